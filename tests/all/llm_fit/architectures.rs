//! The GPU architectures the speed tables hold rows on, as the speed basis states them: the
//! NVIDIA architectures the speed models were built and held on
//! ([`HELD_NVIDIA_COMPUTE_CAPABILITIES`]: no line), and every other architecture by runtime
//! family ([`HELD_SPEED_COVERAGE`], computed from the held rows by
//! `moe_2026::held_speed_coverage_by_architecture`): a fit there says where its held rows land
//! (in band: no line; outside ±25 %: their measured-over-estimate range and rows) or that no
//! held row of its runtime was measured there (unvalidated); the planner ranks a machine with
//! such a line after validated machines (issue 36, item 5).

use crate::support;
use kraftwerk::estimate::llm::basis::{HELD_NVIDIA_COMPUTE_CAPABILITIES, HELD_SPEED_COVERAGE, not_measured_on};
use std::collections::BTreeSet;

/// The speed tables of this target (fit/no-fit boundaries and rule tests hold no speed).
const SPEED_TABLES: [&str; 9] = [
    "current.rs",
    "decode_2025.rs",
    "gguf_mix.rs",
    "moe_2026.rs",
    "moe_vllm_fit.rs",
    "offload.rs",
    "parallel.rs",
    "pcie.rs",
    "serving.rs",
];

/// Chips a table defines itself (not in the catalog), with their compute capability from
/// NVIDIA's "CUDA GPUs - Compute Capability" table (https://developer.nvidia.com/cuda-gpus):
/// GeForce RTX 2080 (Turing) 7.5, A100 (Ampere GA100) 8.0, H100 and GH200 (Hopper) 9.0.
const TABLE_CHIPS: [(&str, &str); 5] = [
    ("nvidia-geforce-rtx-2080", "7.5"),
    ("nvidia-a100-40gb-sxm", "8.0"),
    ("nvidia-a100-80gb-sxm", "8.0"),
    ("nvidia-h100-sxm", "9.0"),
    ("nvidia-gh200", "9.0"),
];

#[test]
fn held_architectures() {
    let c = support::catalog();
    let dir = support::manifest_dir().join("tests/all/llm_fit");
    let mut held: BTreeSet<String> = BTreeSet::new();
    for f in SPEED_TABLES {
        let text = std::fs::read_to_string(dir.join(f)).expect("speed table");
        for id in text.split('"').filter(|w| w.starts_with("nvidia-") && !w.contains(' ')) {
            let cc = match c.gpu(id) {
                Some(g) => g.compute_capability.clone().unwrap_or_else(|| panic!("{id} has no compute capability")),
                None => TABLE_CHIPS.iter().find(|(t, _)| *t == id).map_or_else(
                    || panic!("{f} names {id}, neither in the catalog nor in TABLE_CHIPS"),
                    |(_, cc)| (*cc).to_owned(),
                ),
            };
            held.insert(cc);
        }
    }
    // The held NVIDIA list and the NVIDIA cells of the coverage table split the architectures
    // the tables name between them: none in both, none left out.
    let listed: BTreeSet<String> = HELD_NVIDIA_COMPUTE_CAPABILITIES.iter().map(|s| (*s).to_owned()).collect();
    let covered: BTreeSet<String> = HELD_SPEED_COVERAGE
        .iter()
        .filter_map(|c| c.architecture.strip_prefix("compute capability "))
        .map(str::to_owned)
        .collect();
    assert!(listed.is_disjoint(&covered), "{listed:?} and {covered:?}");
    let stated: BTreeSet<String> = listed.union(&covered).cloned().collect();
    assert_eq!(held, stated, "the speed basis must name exactly the architectures the tables hold rows on");
    assert_eq!(covered, BTreeSet::from(["6.0".to_owned(), "7.0".to_owned()]), "Pascal P100 and Volta V100 rows");
}

fn slot(id: &str) -> kraftwerk::estimate::llm::GpuSlot {
    kraftwerk::estimate::llm::GpuSlot::new(support::catalog().gpu(id).expect("gpu").clone())
}

/// (a) Validated: the held llama.cpp HIP rows on gfx1100 (RX 7900 XTX / XT: AM-08's pair row
/// aside, 2 decode rows and 4 prefill rows of moe_2026.rs) all land within ±25 %, so the RX
/// 7900 XTX under HIP gets no line, as an RTX 3090 (compute capability 8.6) under CUDA does not.
#[test]
fn a_7900_xtx_under_hip_is_validated() {
    assert!(not_measured_on(&[slot("amd-radeon-rx-7900-xtx")], "llama.cpp HIP").is_empty());
    assert!(not_measured_on(&[slot("nvidia-geforce-rtx-3090")], "llama.cpp CUDA").is_empty());
}

/// (b) Held rows outside the band: the Tesla P100's two llama.cpp CUDA decode rows (KP-01,
/// KP-01d32k, kyuz0/nvidia-p100-ai-toolboxes: 68.64 and 60.67 tok/s measured) land at 0.43-0.45
/// of the estimate, so a P100 user is told the decode figure is high there (and that its
/// prefill row, KP-01p, is in band); the MI300X's vLLM decode rows (IX-12..15, InferenceX PR
/// 1053) land at 0.34-0.50, and no vLLM prefill row was measured on gfx942. Mixed: 14 of the
/// R9700's 17 HIP decode rows (gfx1201) are in band, the others (KZ-03*) are named.
#[test]
fn held_rows_outside_the_band_are_said_with_their_range() {
    let p100 = not_measured_on(&[slot("nvidia-tesla-p100-pcie-16gb")], "llama.cpp CUDA");
    assert_eq!(p100.len(), 1, "{p100:?}");
    assert!(
        p100[0].contains("compute capability 6.0")
            && p100[0].contains("decode rows (KP-01, KP-01d32k: kyuz0/nvidia-p100-ai-toolboxes) measure 0.43-0.45")
            && p100[0].contains("the decode figure is high there")
            && p100[0].ends_with("(the 1 held prefill row is within ±25 %: held)"),
        "{}",
        p100[0]
    );
    let mi300x = not_measured_on(&[slot("amd-instinct-mi300x")], "vLLM/SGLang");
    assert_eq!(mi300x.len(), 1, "{mi300x:?}");
    assert!(
        mi300x[0].contains("gfx942")
            && mi300x[0].contains("IX-12, IX-13, IX-14, IX-15")
            && mi300x[0].contains("0.34-0.50")
            && mi300x[0].contains("no held prefill row"),
        "{}",
        mi300x[0]
    );
    let r9700 = not_measured_on(&[slot("amd-radeon-ai-pro-r9700")], "llama.cpp HIP");
    assert_eq!(r9700.len(), 1, "{r9700:?}");
    assert!(
        r9700[0].contains("14 of the 17 held decode rows are within ±25 %") && r9700[0].contains("KZ-03"),
        "{}",
        r9700[0]
    );
}

/// (c) No held row: vLLM on the R9700 (gfx1201: held rows there are llama.cpp's only) and
/// llama.cpp on a Tesla P40 (compute capability 6.1: no row at all) are unvalidated, with the
/// runtime named.
#[test]
fn no_held_row_is_unvalidated_with_the_runtime_named() {
    let r9700 = not_measured_on(&[slot("amd-radeon-ai-pro-r9700")], "vLLM/SGLang");
    assert_eq!(r9700.len(), 1, "{r9700:?}");
    assert!(
        r9700[0].contains("no held vLLM/SGLang speed row")
            && r9700[0].contains("held rows there are of llama.cpp HIP, llama.cpp Vulkan")
            && r9700[0].contains("unvalidated"),
        "{}",
        r9700[0]
    );
    let p40 = not_measured_on(&[slot("nvidia-tesla-p40")], "llama.cpp CUDA");
    assert_eq!(p40.len(), 1, "{p40:?}");
    assert!(
        p40[0].contains("compute capability 6.1") && p40[0].contains("no held llama.cpp CUDA speed row"),
        "{}",
        p40[0]
    );
}
