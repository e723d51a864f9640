//! Issue 35: `kraftwerk fit` with llama.cpp placement flags (`--n-cpu-moe`, `-ot`, `-ub`, ...)
//! reports exactly that placement. A new user's trial (two RTX 3090, 128 GB of DDR4-3200,
//! Qwen3-235B-A22B-Instruct-2507 in Q2_K under llama.cpp: the fixture
//! `2x-rtx-3090-128gib-qwen3-235b.rig.ron`) found the verdict, the per-GPU lines and the speed
//! taken from llama.cpp's automatic placement instead: `--n-cpu-moe 0` printed "fits with
//! experts in system RAM" (exit 0) beside a breakdown of 42014 MiB on CUDA0 of 24084 free and
//! the automatic `--n-cpu-moe 48`'s 15.2 tok/s. The figures asserted here are the estimate's own
//! llama.cpp table (`runtime_memory`), one placement throughout.

use crate::support::{builds, fixture, kw};

fn qwen_build() -> String {
    fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron").display().to_string()
}

/// `(exit code, stdout, stderr)` of `kraftwerk fit BUILD ARGS...`.
fn fit(build: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["fit", build];
    all.extend_from_slice(args);
    let o = kw(&all);
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line `{start}`:\n{text}"))
}

/// An explicit all-GPU placement that overflows the GPUs does not fit (exit 1), names the
/// devices that overflow, and gives no speed: neither the automatic offload's nor any other.
/// `--n-cpu-moe 0 -ub 4096` is such a placement too (every layer on the GPUs, as given, at
/// that micro-batch); `-ub 4096` alone is not a placement (see
/// `a_micro_batch_alone_is_not_a_placement`).
#[test]
fn an_explicit_placement_that_overflows_the_gpus_does_not_fit() {
    let b = qwen_build();
    for flags in [&["--n-cpu-moe", "0"][..], &["--n-cpu-moe", "0", "-ub", "4096"][..]] {
        let (code, text, err) = fit(&b, flags);
        assert_eq!(code, Some(1), "{flags:?}: {text}{err}");
        let head = text.lines().next().expect("headline");
        assert!(head.contains(": does not fit (inference q2_k, split:2, context 16384"), "{flags:?}: {head}");
        // `-ub 4096` widens the FP32 logits of CUDA1's compute buffer from 512 to 4096 tokens
        // (297 to 2374 MiB: 4096 x 151936 x 4 bytes).
        // CUDA0's compute holds its graph inputs (the KQ mask and the hidden state, 24 MiB per
        // 512 tokens), four copies of them with pipeline parallelism: 96 MiB, 768 at 4096.
        let (ub, cuda0, cuda1, gpu1) = if flags.len() > 2 {
            (" -ub 4096", 42782, 44875, ("41.8", "0.8"))
        } else {
            ("", 42110, 42798, ("41.1", "0.1"))
        };
        assert_eq!(
            line(&text, "the placement as given"),
            format!(
                "the placement as given (-c 16384 -ngl 94{ub} -ts 47,47) does not fit: CUDA0 (gigabyte-geforce-rtx-3090-turbo) needs {cuda0} MiB, 24084 MiB free; CUDA1 (gigabyte-geforce-rtx-3090-turbo) needs {cuda1} MiB, 24084 MiB free"
            )
        );
        assert_eq!(
            line(&text, "GPU 1 "),
            format!(
                "GPU 1 gigabyte-geforce-rtx-3090-turbo: {} of 23.5 GiB free (does not fit) with every weight on the GPUs (-c 16384 -ngl 94{ub} -ts 47,47): model 39.6, context 1.5, compute {}",
                gpu1.0, gpu1.1
            )
        );
        assert_eq!(
            line(&text, "speed:"),
            "speed: none: the placement as given does not fit; every weight on the GPUs",
            "{flags:?}"
        );
        // The automatic offload's 15.2 tok/s is not the placement's speed (the speed line above
        // says none); it is named only as the smallest --n-cpu-moe that keeps the margin.
        assert!(!text.contains("fits with experts in system RAM"), "{text}");
        assert!(
            text.lines().filter(|l| l.contains("15.2 tok/s")).all(|l| l.contains("the smallest that keeps")),
            "{text}"
        );
    }
}

/// `-ub N` grows llama.cpp's compute buffer as llama.cpp reserves it (`min(n_ctx, n_ubatch)`
/// tokens of FP32 logits on the device holding the output layer), so a larger `-ub` needs more
/// experts in RAM; the prefill line names the micro-batch the placement runs.
#[test]
fn the_micro_batch_sizes_the_compute_buffer_and_is_named() {
    let b = qwen_build();
    let (code, text, err) = fit(&b, &["--n-cpu-moe", "0", "-ub", "4096"]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert_eq!(
        line(&text, "- llama.cpp with --n-cpu-moe"),
        "- llama.cpp with --n-cpu-moe 52, the smallest that keeps llama.cpp's 1024 MiB free on every GPU with the other flags given (-c 16384 -ngl 94 --n-cpu-moe 52 -ub 4096 -ts 72,22): 42.5 GiB of routed experts in system RAM, about 14.3 tok/s decode, 789 tok/s prefill"
    );
    let (code, text, err) = fit(&b, &["--n-cpu-moe", "50", "-ub", "2048"]);
    assert_eq!(code, Some(0), "{text}{err}");
    assert_eq!(
        line(&text, "prefill (llama.cpp)"),
        "prefill (llama.cpp): about 680 tok/s, bounded by copying the experts in RAM over the host link (the first GPU's PCIe 4.0 x16, 31.5 GB/s per direction) per 2048-token micro-batch, from pageable memory (mmap on, llama.cpp's default; --no-mmap would pin them)"
    );
    assert!(
        line(&text, "CUDA1 ").ends_with(" 1187"),
        "2048 x 151936 x 4 B of FP32 logits = 1187 MiB (297 at -ub 512):\n{text}"
    );
}

/// `-ub 4096` alone is not a placement: llama.cpp's own placement search still runs (its
/// `common/fit.cpp` gives up only where `-ngl`, `-ts`, `-ot` or `-sm row` were set) with its
/// compute buffers reserved at that micro-batch, and so does `fit`: the experts of 52 layers in
/// system RAM (48 at the default 512: the logits of CUDA1's compute buffer are 2374 MiB, not
/// 297), exit 0, the arguments carry `-ub 4096` and the prefill is that micro-batch's. A trial
/// found it judged as every layer on the GPUs ("does not fit", exit 1). Seen failing with
/// `LlamaCppFlags::places` counting `-ub`.
#[test]
fn a_micro_batch_alone_is_not_a_placement() {
    let b = qwen_build();
    let (code, text, err) = fit(&b, &["-ub", "4096"]);
    assert_eq!(code, Some(0), "{text}{err}");
    let head = text.lines().next().expect("headline");
    assert!(head.contains(": fits with experts in system RAM (inference q2_k, split:2, context 16384"), "{head}");
    assert_eq!(
        line(&text, "llama.cpp arguments:"),
        "llama.cpp arguments: -c 16384 -ngl 94 --n-cpu-moe 52 -ub 4096 -ts 72,22"
    );
    assert!(line(&text, "CUDA1 ").ends_with(" 2374"), "{text}");
    assert!(
        line(&text, "prefill (llama.cpp)").contains("per 4096-token micro-batch"),
        "{}",
        line(&text, "prefill (llama.cpp)")
    );
    assert!(!text.contains("the placement as given"), "{text}");
    // The same split as the smallest --n-cpu-moe an explicit all-GPU placement at -ub 4096 is
    // offered (the test above): one answer.
    let (_, explicit, _) = fit(&b, &["--n-cpu-moe", "0", "-ub", "4096"]);
    assert!(explicit.contains("(-c 16384 -ngl 94 --n-cpu-moe 52 -ub 4096 -ts 72,22)"), "{explicit}");
    // JSON: the same placement.
    let (code, json, _) = fit(&b, &["-ub", "4096", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["verdict"], "fits_with_experts_in_ram");
    assert_eq!(v["placement"]["table"]["n_cpu_moe"], 52, "{}", v["placement"]["table"]);
}

/// `--n-cpu-moe 20` and `-ot 'blk\.(1[0-9])\.ffn_.*_exps=CPU'` do not fit either: the GPU lines
/// are the placement's memory (33.7 GiB on GPU 1, llama.cpp's 34515 MiB; not the
/// every-weight-on-the-GPUs 43.2), the speed line names the experts in RAM, and "what would fit
/// instead" offers the smallest `--n-cpu-moe` that fits with the other flags: 45.
#[test]
fn an_explicit_expert_placement_shows_its_own_memory_and_the_smallest_that_fits() {
    let b = qwen_build();
    // The smallest that keeps llama.cpp's 1024 MiB margin is 48, the automatic placement's own
    // (45 fits the free memory with 59 MiB left on CUDA1: the margin is what llama.cpp keeps).
    let smallest = "- llama.cpp with --n-cpu-moe 48, the smallest that keeps llama.cpp's 1024 MiB free on every GPU with the other flags given (-c 16384 -ngl 94 --n-cpu-moe 48 -ts 70,24): 39.2 GiB of routed experts in system RAM, about 15.2 tok/s decode, 316 tok/s prefill";
    let (code, text, err) = fit(&b, &["--n-cpu-moe", "20"]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert_eq!(
        line(&text, "GPU 1 "),
        "GPU 1 gigabyte-geforce-rtx-3090-turbo: 33.7 of 23.5 GiB free (does not fit) with --n-cpu-moe 20: the routed experts of 20 layers in system RAM (16.3 GiB) (-c 16384 -ngl 94 --n-cpu-moe 20 -ts 57,37): model 31.6, context 1.8, compute 0.3"
    );
    assert!(line(&text, "CUDA0 ").split_whitespace().nth(3) == Some("34515"), "{text}");
    assert_eq!(
        line(&text, "speed:"),
        "speed: none: the placement as given does not fit; --n-cpu-moe 20: the routed experts of 20 layers in system RAM (16.3 GiB)"
    );
    assert_eq!(line(&text, "- llama.cpp with --n-cpu-moe"), smallest);
    assert!(!text.contains("43.2 of 24.0") && !text.contains("every weight on the GPUs"), "{text}");

    let (code, text, err) = fit(&b, &["-ot", "blk\\.(1[0-9])\\.ffn_.*_exps=CPU"]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert_eq!(
        line(&text, "GPU 1 "),
        "GPU 1 gigabyte-geforce-rtx-3090-turbo: 37.5 of 23.5 GiB free (does not fit) with -ot: the routed experts of 10 layers in system RAM (8.2 GiB) (-c 16384 -ngl 94 -ot \"blk\\.(1[0-9])\\.ffn_.*_exps=CPU\" -ts 52,42): model 35.6, context 1.6, compute 0.3"
    );
    assert_eq!(
        line(&text, "speed:"),
        "speed: none: the placement as given does not fit; -ot: the routed experts of 10 layers in system RAM (8.2 GiB)"
    );
    assert_eq!(line(&text, "- llama.cpp with --n-cpu-moe"), smallest);
}

/// `-ot exps=CPU` puts every routed expert in RAM, and is labelled so (llama.cpp's `--cpu-moe`,
/// the same as `--n-cpu-moe` at the layer count), not "--n-cpu-moe 0".
#[test]
fn every_expert_in_ram_is_labelled_by_what_it_is() {
    let (code, text, err) = fit(&qwen_build(), &["--model", "gpt-oss-120b", "--precision", "mxfp4", "-ot", "exps=CPU"]);
    assert_eq!(code, Some(0), "{text}{err}");
    assert!(text.lines().next().is_some_and(|h| h.contains("fits with experts in system RAM")), "{text}");
    assert_eq!(
        line(&text, "speed:"),
        "speed: decode 22.7 tok/s per user, prefill 335 tok/s; all routed experts in system RAM (56.7 GiB; llama.cpp's --cpu-moe, the same as --n-cpu-moe 36)"
    );
    assert!(!text.contains("--n-cpu-moe 0"), "{text}");
}

/// llama.cpp flags without `--runtime` on a build whose runtime would be vLLM (gpt-oss-120b
/// MXFP4 on an H200) estimate llama.cpp and say so; with `--runtime vllm` they stay refused.
#[test]
fn llama_cpp_flags_imply_llama_cpp_unless_another_runtime_is_named() {
    let b = builds("h200-sxm-1gpu.rig.ron");
    let (code, text, err) = fit(&b, &["--model", "gpt-oss-120b", "--n-cpu-moe", "10"]);
    assert_eq!(code, Some(0), "{text}{err}");
    assert!(text.lines().next().is_some_and(|h| h.ends_with("batch 4, llama.cpp)")), "{text}");
    assert_eq!(
        line(&text, "note: llama.cpp flags"),
        "note: llama.cpp flags given without --runtime: estimated under llama.cpp, not vllm (the runtime this build would use otherwise); give --runtime to choose another llama.cpp-family runtime"
    );
    assert_eq!(line(&text, "llama.cpp arguments:"), "llama.cpp arguments: -c 65536 -np 4 -ngl 36 --n-cpu-moe 10");
    let (code, text, err) = fit(&b, &["--model", "gpt-oss-120b", "--runtime", "vllm", "--n-cpu-moe", "10"]);
    assert_eq!(code, Some(2), "{text}{err}");
    assert!(err.contains("the runtime is vllm"), "{err}");
    // Without flags the build's runtime is vLLM, as before.
    let (_, text, _) = fit(&b, &["--model", "gpt-oss-120b"]);
    assert!(!text.contains("llama.cpp flags given"), "{text}");
}

/// `fit --search` lists the sub-4-bit GGUF quants large MoE models run at, and a precision the
/// GPUs alone do not hold but `fit --precision P` runs with experts in system RAM reads
/// "experts in RAM" with that split's decode, prefill and arguments (the trial found q4_k_m
/// "does not fit" in the table while `fit --precision q4_k_m` said it runs): one answer.
#[test]
fn the_search_table_agrees_with_fit_at_each_precision() {
    let b = qwen_build();
    let (code, text, err) = fit(&b, &["--search"]);
    assert_eq!(code, Some(0), "{text}{err}");
    for p in ["q4_k_m", "iq4_xs", "q3_k_m", "q2_k", "iq2_xxs"] {
        let row = text
            .lines()
            .map(str::trim_start)
            .find(|l| l.split_whitespace().next() == Some(p))
            .unwrap_or_else(|| panic!("no {p} row:\n{text}"));
        let (code, json, err) = fit(&b, &["--precision", p, "--format", "json"]);
        assert_eq!(code, Some(0), "{p}: {json}{err}");
        let v: serde_json::Value = serde_json::from_str(&json).expect("json");
        let split = &v["fits_with_experts_in_ram"];
        let decode = split["decode_tokens_per_s"].as_f64().expect("decode");
        let prefill = split["prefill_tokens_per_s"].as_f64().expect("prefill");
        assert!(row.contains("experts in RAM"), "{p}: {row}");
        assert!(
            row.contains(&format!(" {decode:.1} ")) && row.ends_with(&format!(" {prefill:.0}")),
            "{p}: {row} vs {decode} / {prefill}"
        );
        let args = split["args"].as_str().expect("args");
        assert!(text.contains(&format!("experts in RAM, {p}: {args}")), "{p}: {args}\n{text}");
    }
    let q8 = line(&text, "q8_0 ");
    assert!(q8.contains("does not fit"), "{q8}");
}

/// A dense model with `-ngl` below its layer count runs with layers, not experts, in system
/// RAM, and says so (the review found "fits with experts in system RAM" and "the experts of 0
/// layers in system RAM" for Llama-3.1-70B at `-ngl 40`).
#[test]
fn a_dense_model_split_by_ngl_names_layers_not_experts() {
    let (code, text, err) = fit(&qwen_build(), &["--model", "llama-3.1-70b", "--precision", "q4_k_m", "-ngl", "40"]);
    assert_eq!(code, Some(0), "{text}{err}");
    let head = text.lines().next().expect("headline");
    assert!(head.contains("fits with layers in system RAM"), "{head}");
    assert!(
        line(&text, "GPU 1 ").contains("with the layers -ngl leaves off the GPUs in system RAM (-c 16384 -ngl 40"),
        "{text}"
    );
    assert!(!text.contains("experts of 0 layers") && !text.contains("every expert on the GPU"), "{text}");
}

/// `--no-mmap` (llama-bench `-mmp 0`, `--load-mode none`) leaves the experts in RAM in pinned
/// `CUDA_Host` buffers, so their copy per micro-batch runs `PINNED_OVER_PAGEABLE_COPY` (1.911)
/// faster than from the default pageable mapping (826 against 700 tok/s at -ub 2048, where the
/// GPU's own compute is part of each micro-batch): the prefill line says which path it assumed
/// and the arguments carry the flag; `--no-host` keeps them pageable.
#[test]
fn no_mmap_pins_the_experts_and_the_prefill_line_says_so() {
    let b = qwen_build();
    let base = ["--n-cpu-moe", "50", "-ub", "2048"];
    let (code, text, err) = fit(&b, &[&base[..], &["--no-mmap"]].concat());
    assert_eq!(code, Some(0), "{text}{err}");
    let pinned = line(&text, "prefill (llama.cpp)");
    assert_eq!(
        pinned,
        "prefill (llama.cpp): about 799 tok/s, bounded by copying the experts in RAM over the host link (the first GPU's PCIe 4.0 x16, 31.5 GB/s per direction) per 2048-token micro-batch, from pinned memory (--no-mmap)"
    );
    assert!(text.contains("-ub 2048 --no-mmap"), "{text}");
    for spelling in [&["-mmp", "0"][..], &["--load-mode", "none"][..], &["--load-mode", "dio"][..]] {
        let (_, t, e) = fit(&b, &[&base[..], spelling].concat());
        assert_eq!(line(&t, "prefill (llama.cpp)"), pinned, "{spelling:?}: {t}{e}");
    }
    let (_, t, e) = fit(&b, &[&base[..], &["--no-mmap", "--no-host"]].concat());
    assert!(line(&t, "prefill (llama.cpp)").starts_with("prefill (llama.cpp): about 680 tok/s"), "{t}{e}");
    let (_, t, e) = fit(&b, &[&base[..], &["--load-mode", "mmap"]].concat());
    assert!(line(&t, "prefill (llama.cpp)").ends_with("--no-mmap would pin them)"), "{t}{e}");
    let (code, _, e) = fit(&b, &[&base[..], &["--load-mode", "direct"]].concat());
    assert_eq!(code, Some(2), "{e}");
}

/// `--no-mmap --no-host`: the weights sit in plain, unpinned memory (no pinned host buffer), so
/// the copy runs at the pageable rate, the prefill line says why, and the arguments keep both
/// flags (a trial found the line blaming "mmap on" and the arguments without them). `--cpu-moe`
/// (llama.cpp's rule for every routed expert) is read as llama.cpp reads it, as `-ot exps=CPU`.
#[test]
fn no_host_is_said_and_kept_and_cpu_moe_is_read() {
    let b = fixture("hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron").display().to_string();
    let (code, text, err) = fit(&b, &["--n-cpu-moe", "24", "--no-mmap", "--no-host"]);
    assert_eq!(code, Some(0), "{text}{err}");
    let prefill = line(&text, "prefill (llama.cpp)");
    assert!(
        prefill.ends_with("from pageable memory (--no-mmap with --no-host: loaded into plain, unpinned memory)"),
        "{prefill}"
    );
    let (_, pageable, _) = fit(&b, &["--n-cpu-moe", "24"]);
    let rate = |t: &str| line(t, "prefill (llama.cpp)").split_whitespace().nth(3).map(str::to_owned);
    assert_eq!(rate(&text), rate(&pageable), "the pageable rate");
    assert!(line(&text, "llama.cpp arguments:").contains(" --no-mmap --no-host"), "{text}");
    // On this build (64 GB) every expert in RAM needs 57.0 GiB in all against 58.4 after the
    // 6 GB kept for the OS: both spellings fit, alike.
    let (code, text, err) = fit(&b, &["--cpu-moe"]);
    let (ot_code, ot, _) = fit(&b, &["-ot", "exps=CPU"]);
    assert_eq!((code, ot_code), (Some(0), Some(0)), "{text}{err}");
    assert!(
        text.contains("57.0 GiB of system RAM; this build has 64 GiB (58.4 GiB after the 6 GB kept for the OS"),
        "{text}"
    );
    assert_eq!(line(&text, "speed:"), line(&ot, "speed:"));
    assert!(line(&text, "speed:").contains("all routed experts in system RAM"), "{text}");
}

/// Every device's compute buffer grows with `-ub`, not only the last one's logits: llama.cpp
/// reserves each device's graph at `min(n_ctx, n_ubatch)` tokens (`llama_context::sched_reserve`;
/// `ggml_backend_sched` sizes a buffer per backend for the nodes it runs), and each device
/// holding layers keeps its graph inputs there: the F16 flash-attention KQ mask (`n_kv x
/// n_ubatch`) and the F32 hidden state its first layer reads (`n_embd x n_ubatch`). With the
/// experts of 60 layers in RAM (no pipeline copies), CUDA0's compute goes from 303 to 471 MiB
/// between `-ub 512` and `-ub 4096`: 3584 more tokens x (16384 x 2 + 4096 x 4) bytes = 168 MiB
/// (279 MiB of it is the copied expert tensor). It stayed 279 at both before.
#[test]
fn every_device_compute_buffer_grows_with_the_micro_batch() {
    let b = qwen_build();
    let cuda0 = |ub: &str| -> f64 {
        let (_, text, err) = fit(&b, &["--n-cpu-moe", "60", "-ub", ub]);
        let row = line(&text, "CUDA0 ");
        row.split_whitespace().last().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{row}{err}"))
    };
    let (small, large) = (cuda0("512"), cuda0("4096"));
    assert_eq!((small, large), (303.0, 471.0));
    let grew_mib = 3584.0 * (16384.0 * 2.0 + 4096.0 * 4.0) / 1024.0 / 1024.0;
    assert!((large - small - grew_mib).abs() <= 1.0, "{small} -> {large}, {grew_mib}");
}

/// A placement that runs with more experts in RAM than the GPUs need says so, with the smallest
/// `--n-cpu-moe` that keeps llama.cpp's margin and its speed (a new user's trial: GLM-4.5-Air,
/// `--n-cpu-moe 30` on two RTX 4090s left 20 GiB of VRAM idle, and `fit` gave only its 16.5
/// tok/s); at that smallest count the line is gone, and the JSON carries the same figures.
#[test]
fn a_placement_with_idle_vram_names_the_smallest_n_cpu_moe_that_fits() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let args = ["--model", "glm-4.5-air", "--runtime", "llama.cpp", "--n-cpu-moe", "30", "--format", "json"];
    let (code, out, err) = fit(&b, &args);
    assert_eq!(code, Some(0), "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("json");
    let fewer = &j["placement_with_fewer_in_ram"];
    let n = fewer["n_cpu_moe"].as_u64().expect("a smaller --n-cpu-moe");
    assert!(n < 30, "{fewer}");
    let mine = j["fits_with_experts_in_ram"]["decode_tokens_per_s"].as_f64().expect("the placement's decode");
    let faster = fewer["decode_tokens_per_s"].as_f64().expect("its decode");
    assert!(faster > mine, "fewer experts in RAM decode faster: {faster} against {mine}");
    assert!(
        fewer["host_experts_gib"].as_f64().expect("gib")
            < j["fits_with_experts_in_ram"]["host_experts_gib"].as_f64().expect("gib")
    );
    let (_, text, _) = fit(&b, &args[..6]);
    let l = line(&text, "fewer experts in system RAM fit:");
    assert!(l.contains(&format!("--n-cpu-moe {n} ")), "{l}");
    assert!(l.contains(&format!("(this placement: {mine:.1} tok/s decode)")), "{l}");
    // At the smallest count itself nothing fewer fits.
    let n = n.to_string();
    let (code, text, err) = fit(&b, &["--model", "glm-4.5-air", "--runtime", "llama.cpp", "--n-cpu-moe", &n]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!text.contains("fewer experts in system RAM fit"), "{text}");
}

/// A workload that does not fit under vLLM names the GGUF quant that fits every layer on the
/// GPUs under llama.cpp, with the decode `fit` gives that run (a new user's 2x RTX 3090 for
/// Llama-3.1-70B at bf16 was offered eight GPUs and a `-ngl 25` offload at 0.3 tok/s, while
/// Q4_K_M under llama.cpp fits both cards at 18 tok/s); under llama.cpp itself it is not offered.
#[test]
fn a_vllm_misfit_names_the_llama_cpp_quant_that_fits() {
    let b = qwen_build();
    let (code, out, err) =
        fit(&b, &["--model", "llama-3.1-70b", "--precision", "bf16", "--runtime", "vllm", "--format", "json"]);
    assert_eq!(code, Some(1), "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("json");
    let q = &j["alternatives"]["llama_cpp_quant"];
    let p = q["precision"].as_str().expect("a quant").to_owned();
    let decode = q["decode_tokens_per_s"].as_f64().expect("its decode");
    let (code, out, err) =
        fit(&b, &["--model", "llama-3.1-70b", "--precision", &p, "--runtime", "llama.cpp", "--format", "json"]);
    assert_eq!(code, Some(0), "{p} fits under llama.cpp: {err}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("json");
    let direct = j["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64().expect("decode");
    assert!((direct - decode).abs() < 1e-9, "{decode} offered, {direct} when run");
    let (_, text, _) = fit(&b, &["--model", "llama-3.1-70b", "--precision", "bf16", "--runtime", "vllm"]);
    assert!(
        text.contains(&format!("- llama.cpp at {p} with every layer on the GPUs: about {decode:.1} tok/s decode")),
        "{text}"
    );
    let (_, out, _) =
        fit(&b, &["--model", "llama-3.1-70b", "--precision", "q8_0", "--runtime", "llama.cpp", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(j["alternatives"].get("llama_cpp_quant").is_none(), "not under llama.cpp itself");
}
