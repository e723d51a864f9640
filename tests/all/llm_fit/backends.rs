//! llama.cpp's back end (issue 35, item 6): typed on the fit input, the CLI (`fit --backend`) and
//! the build file (`workload.backend`); HIP on AMD RDNA 3/4 decodes at
//! [`LLAMA_CPP_HIP_RDNA_DECODE_FACTOR`] of the CUDA-fitted efficiency; an AMD or Intel speed
//! carries its "not validated" caveat in `fit`, `plan` and `compare`.

use super::*;
use crate::support::kw;
use kraftwerk::estimate::llm::LlamaCppBackend;

fn decode(i: &FitInput, g: &Gpu) -> f64 {
    llm::estimate(i, &slots(g, 1)).expect("estimate").speed.expect("speed").decode_batch1_tokens_per_s
}

/// The default back end follows the vendor (CUDA on NVIDIA, HIP on AMD, SYCL on Intel, CPU
/// without a GPU), and the names parse (`rocm` is HIP).
#[test]
fn the_back_end_defaults_to_the_vendors() {
    assert_eq!(LlamaCppBackend::for_vendor(Some("NVIDIA")), LlamaCppBackend::Cuda);
    assert_eq!(LlamaCppBackend::for_vendor(Some("AMD")), LlamaCppBackend::Hip);
    assert_eq!(LlamaCppBackend::for_vendor(Some("Intel")), LlamaCppBackend::Sycl);
    assert_eq!(LlamaCppBackend::for_vendor(None), LlamaCppBackend::Cpu);
    for b in LlamaCppBackend::ALL {
        assert_eq!(b.to_string().parse::<LlamaCppBackend>().expect("round trip"), b);
    }
    assert_eq!("rocm".parse::<LlamaCppBackend>().expect("rocm"), LlamaCppBackend::Hip);
    assert!("metal2".parse::<LlamaCppBackend>().is_err());
}

/// llama.cpp issue 20934 (2026-03-24): one RX 7900 XTX, Llama 7B Q4_0, tg128, Vulkan ~172.0 and
/// ROCm/HIP ~136.5 tok/s. The HIP estimate is the Vulkan one with the weight-streaming time
/// divided by the factor, so their ratio is within 2 % of the measured 136.5 / 172.0 = 0.794;
/// an NVIDIA card is unchanged by `--backend hip` (the factor is RDNA 3/4 only).
#[test]
fn hip_on_rdna3_decodes_below_vulkan_as_measured() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let xtx = cat.gpu("amd-radeon-rx-7900-xtx").expect("7900 XTX").clone();
    let m = cat.model("llama-2-7b").expect("llama-2-7b").clone();
    let mut i = infer(m, Precision::Q4_0, 128, Runtime::LlamaCpp);
    i.llama_cpp_backend = Some(LlamaCppBackend::Vulkan);
    let vulkan = decode(&i, &xtx);
    i.llama_cpp_backend = Some(LlamaCppBackend::Hip);
    let hip = decode(&i, &xtx);
    i.llama_cpp_backend = None;
    assert!((decode(&i, &xtx) - hip).abs() < 1e-9, "AMD defaults to HIP");
    let ratio = hip / vulkan;
    assert!((ratio / (136.5 / 172.0) - 1.0).abs() < 0.02, "HIP/Vulkan {ratio:.3} vs measured 0.794");
    let rtx = cat.gpu("nvidia-geforce-rtx-3090").expect("3090").clone();
    let cuda = decode(&i, &rtx);
    i.llama_cpp_backend = Some(LlamaCppBackend::Hip);
    assert!((decode(&i, &rtx) - cuda).abs() < 1e-9, "no HIP factor off RDNA 3/4");
}

/// A build file of one RX 7900 XTX (the 2x RTX 4090 reference build with its GPUs swapped):
/// `fit --backend vulkan` decodes faster than the default (HIP), the file's `workload.backend`
/// is read, an unknown back end is refused (exit 2); under HIP the card is validated (its held
/// gfx1100 HIP rows land in band: no caveat), under Vulkan `fit` and `compare` print the caveat
/// of its held Vulkan rows (AM-01 outside the band, no Vulkan prefill row), and `plan` prints
/// the caveat of a Radeon AI PRO R9700 under HIP (gfx1201: 14 of 17 held decode rows in band).
#[test]
fn the_cli_and_build_file_take_the_back_end_and_every_face_prints_the_caveat() {
    let text = std::fs::read_to_string(crate::support::builds("2x-rtx-4090-x870e.rig.ron")).expect("reference build");
    let amd = text.replace("nvidia-geforce-rtx-4090", "amd-radeon-rx-7900-xtx").replace(
        "workload: (model: \"llama-3.1-70b\", precision: \"q4_k_m\"",
        "workload: (model: \"llama-3.1-8b\", precision: \"q4_k_m\"",
    );
    let dir = std::env::temp_dir().join(format!("kraftwerk-backend-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("amd.rig.ron");
    std::fs::write(&path, &amd).expect("write");
    let p = path.display().to_string();
    let decode_of = |args: &[&str]| -> f64 {
        let mut a = vec!["fit", p.as_str(), "--format", "json"];
        a.extend_from_slice(args);
        let o = kw(&a);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        v["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64().expect("decode")
    };
    let hip = decode_of(&[]);
    let vulkan = decode_of(&["--backend", "vulkan"]);
    assert!(vulkan > hip * 1.1, "vulkan {vulkan:.1} vs hip {hip:.1}");
    let in_file = dir.join("amd-vulkan.rig.ron");
    std::fs::write(&in_file, amd.replace("mode: \"inference\"", "mode: \"inference\", backend: \"vulkan\""))
        .expect("write");
    let o = kw(&["fit", &in_file.display().to_string(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let from_file = v["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64().expect("decode");
    assert!((from_file - vulkan).abs() < 1e-6, "workload.backend: {from_file} vs --backend vulkan {vulkan}");
    assert_eq!(kw(&["fit", &p, "--backend", "metal2"]).status.code(), Some(2));

    let o = kw(&["fit", &p]);
    let fit = String::from_utf8_lossy(&o.stdout);
    assert!(!fit.contains("not validated"), "fit under HIP: {fit}");
    let vk = in_file.display().to_string();
    let o = kw(&["fit", &vk]);
    let fit = String::from_utf8_lossy(&o.stdout);
    assert!(
        fit.contains("not validated: Radeon RX 7900 XTX (AMD, gfx1100), llama.cpp Vulkan: 1 of the 2 held decode rows"),
        "fit: {fit}"
    );
    let o = kw(&["compare", &vk, &crate::support::builds("2x-rtx-4090-x870e.rig.ron"), "--model", "llama-3.1-8b"]);
    let cmp = String::from_utf8_lossy(&o.stdout);
    assert!(cmp.contains("speed caveat") && cmp.contains("(AMD, gfx1100), llama.cpp Vulkan"), "compare: {cmp}");
    // llama.cpp named: with the R9700's gfx1201 target in the catalog, vLLM (which supports it)
    // is the planner's own choice at bf16.
    let o = kw(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--must-have",
        "amd-radeon-ai-pro-r9700",
        "--runtime",
        "llama.cpp",
        "--max-results",
        "1",
    ]);
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(
        plan.contains("speed caveat: Radeon AI PRO R9700 (AMD, gfx1201), llama.cpp HIP: 14 of the 17 held decode rows"),
        "plan: {plan}"
    );
}
