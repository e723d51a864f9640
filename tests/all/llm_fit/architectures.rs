//! The NVIDIA architectures the speed tables hold rows on, as the speed basis states them
//! ([`HELD_NVIDIA_COMPUTE_CAPABILITIES`]): a fit on any other architecture says its speed is
//! unvalidated, and the planner ranks it after validated machines (issue 36, item 5).

use crate::support;
use kraftwerk::estimate::llm::basis::HELD_NVIDIA_COMPUTE_CAPABILITIES;
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
    let stated: BTreeSet<String> = HELD_NVIDIA_COMPUTE_CAPABILITIES.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(held, stated, "the speed basis must name exactly the architectures the tables hold rows on");
}

#[test]
fn a_pascal_card_is_unvalidated_and_an_ampere_card_is_not() {
    let c = support::catalog();
    let slot = |id: &str| kraftwerk::estimate::llm::GpuSlot::new(c.gpu(id).expect("gpu").clone());
    let p40 = kraftwerk::estimate::llm::basis::not_measured_on(&[slot("nvidia-tesla-p40")]);
    assert_eq!(p40.len(), 1, "{p40:?}");
    assert!(p40[0].contains("compute capability 6.1"), "{}", p40[0]);
    assert!(kraftwerk::estimate::llm::basis::not_measured_on(&[slot("nvidia-geforce-rtx-3090")]).is_empty());
}
