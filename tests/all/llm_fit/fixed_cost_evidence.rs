//! Why llama.cpp's CUDA decode of Qwen3-30B-A3B on the RTX 4090 of llama.cpp PR 16834 (held
//! rows MG-07..09 of `moe_2026.rs`) comes out at 1.93-1.96 times the measured rate while
//! gpt-oss-20b of the same table (MG-04..06) lands in band: evidence from published rows that
//! are not held rows, and no change to the model.
//!
//! The step the model gives is `bytes / (e × bandwidth) + layers × overhead` (e = 0.907,
//! overhead 27.5 µs, fitted on five dense rows of other machines, `decode_2025.rs`). On that
//! RTX 4090, the same author's dense Qwen3-0.6B (PR 16630, twelve days before PR 16834) leaves
//! about 2.0 ms a step beyond its bytes at F16 and at Q4_0 alike: 71-74 µs per layer, 2.6
//! times the fitted overhead, in a model with no experts. One per-layer figure fitted on that
//! dense pair (72.9 µs) puts all six gpt-oss-20b and Qwen3-30B-A3B rows of PR 16834 in band
//! (0.92-0.93 and 1.15-1.16): Qwen3-30B-A3B reads 1.69 GB a token in 48 layers, so on that
//! machine about 65 % of its step is fixed cost (gpt-oss-20b: 3.71 GB in 24 layers, 30 %).
//! The gap is that machine's (host, driver, build) fixed cost, which the inputs do not name,
//! not a cost of MoE layers: a per-MoE-layer term fitted on the two micro-batch-1 MoE rows of
//! PR 15631 (40.1 µs) rests on rows whose own values differ 2.2 times, and the held LC-06
//! (gpt-oss-20b on an RTX PRO 6000 Blackwell, PR 16991) leaves at most 12 µs per layer for its
//! whole fixed cost. Part of the `llm_fit` test target.

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::decode_2025::without_logits;
use super::*;
use kraftwerk::estimate::llm::LlamaCppBackend;

/// ggml-org/llama.cpp PR 16630 ("CUDA: fuse gate + up for mmvq, and mmvf", description by
/// am17an, 2025-10-17, "Performance on a 4090"), llama-bench, column `t/s master` (the
/// baseline build; the PR's column is not used).
const PR_16630: &str =
    "https://github.com/ggml-org/llama.cpp/pull/16630 (am17an, 2025-10-17, 'Performance on a 4090', 't/s master')";

/// ggml-org/llama.cpp PR 15631 ("CUDA: fuse adds, fuse add with rms norm"), JohannesGaessler's
/// compare-llama-bench table (2025-08/09), column `t/s master`, `pp4096` at `-ub 1`.
const PR_15631: &str =
    "https://github.com/ggml-org/llama.cpp/pull/15631 (JohannesGaessler's table, 't/s master', pp4096 at -ub 1)";

/// ggml-org/llama.cpp PR 16834 ("CUDA: use fastdiv in set-rows", am17an, 2025-10-29), the
/// source of the held MG-04..09; its figures are restated here to check, not fit.
const PR_16834: &str = "https://github.com/ggml-org/llama.cpp/pull/16834 (held rows MG-04..09, 't/s master')";

/// ggml-org/llama.cpp PR 16991, the source of the held LC-06 (`-ngl 99 -ub 2048 -fa 1`, RTX
/// PRO 6000 Blackwell Workstation, gpt-oss-20b tg128 391.20), restated to check, not fit.
const PR_16991: &str = "https://github.com/ggml-org/llama.cpp/pull/16991 (held row LC-06)";

/// One published llama.cpp CUDA decode row on one GPU.
struct Row {
    label: &'static str,
    source: &'static str,
    gpu: &'static str,
    model: &'static str,
    precision: Precision,
    /// Decode position the estimate uses, tokens.
    context_tokens: u32,
    /// `pp` at `-ub 1`: single-token steps that compute no logits (no LM head read).
    no_logits: bool,
    published_tok_s: f64,
}

const RTX_4090: &str = "nvidia-geforce-rtx-4090";

/// A tg row (logits every step).
fn tg(
    label: &'static str,
    source: &'static str,
    gpu: &'static str,
    model: &'static str,
    precision: Precision,
    context_tokens: u32,
    published_tok_s: f64,
) -> Row {
    Row { label, source, gpu, model, precision, context_tokens, no_logits: false, published_tok_s }
}

/// What the model makes of one row (CUDA back end, current builds).
struct Parts {
    /// The model's whole step, s.
    model_step_s: f64,
    /// Weights and KV cache at the fitted decode efficiency, s.
    stream_s: f64,
    /// Layers (each pays the per-layer overhead).
    layers: f64,
    /// Layers that hold routed experts.
    moe_layers: f64,
}

fn parts(row: &Row) -> Parts {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let gpu = cat.gpus.iter().find(|g| g.id == row.gpu).expect("GPU in the catalog").clone();
    let mut model = cat.model(row.model).expect("model in the catalog").clone();
    if row.no_logits {
        model = without_logits(model);
    }
    let layers = f64::from(model.layers);
    let moe_layers =
        model.experts.as_ref().filter(|e| e.routed > 0).map_or(0.0, |e| f64::from(e.layers.min(model.layers)));
    let mut i = infer(model, row.precision, row.context_tokens, Runtime::LlamaCpp);
    i.llama_cpp_backend = Some(LlamaCppBackend::Cuda);
    let s = llm::estimate(&i, &slots(&gpu, 1)).expect("estimate").speed.expect("speed");
    let stream_s = s.bytes_per_token_gb / (llm::LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY * gpu.memory_bandwidth_gb_s);
    Parts { model_step_s: 1.0 / s.decode_batch1_tokens_per_s, stream_s, layers, moe_layers }
}

/// The measured step beyond the model's streaming part, per layer, s.
fn fixed_per_layer_s(row: &Row) -> f64 {
    let p = parts(row);
    (1.0 / row.published_tok_s - p.stream_s) / p.layers
}

/// PR 16630's dense Qwen3-0.6B pair (tg64 is the last Q4_0 figure the stored copy shows).
fn dense_pair() -> [Row; 2] {
    [
        tg("RTX 4090 qwen3 0.6B F16 tg128", PR_16630, RTX_4090, "qwen3-0.6b", Precision::Fp16, 64, 303.35),
        tg("RTX 4090 qwen3 0.6B Q4_0 tg64", PR_16630, RTX_4090, "qwen3-0.6b", Precision::Q4_0, 32, 407.95),
    ]
}

/// Least squares of the relative step-time error over `rows` for one per-layer figure `o`
/// (`t = stream + layers × o`), s.
fn machine_per_layer_fit(rows: &[Row]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for row in rows {
        let p = parts(row);
        let t = 1.0 / row.published_tok_s;
        num -= (p.stream_s / t - 1.0) * (p.layers / t);
        den += (p.layers / t) * (p.layers / t);
    }
    num / den
}

/// On the RTX 4090 of the held MG rows, a dense model with no experts leaves 71-74 µs per layer
/// beyond its bytes (2.6 times the fitted 27.5 µs) at F16 and at Q4_0 alike, and the model puts
/// it 1.58 and 2.14 times too fast: the fixed cost is the machine's, not the experts'.
#[test]
fn the_held_rows_4090_runs_a_dense_qwen3_with_2_6_times_the_fitted_fixed_cost() {
    let overhead = llm::LLAMA_CPP_2025_LAYER_OVERHEAD_S;
    for row in dense_pair() {
        let p = parts(&row);
        let fixed = fixed_per_layer_s(&row);
        let ratio = 1.0 / p.model_step_s / row.published_tok_s;
        println!(
            "{}: {:.1} µs per layer beyond the bytes ({:.2}x the fitted {:.1} µs), model {ratio:.2}x, {}",
            row.label,
            fixed * 1e6,
            fixed / overhead,
            overhead * 1e6,
            row.source
        );
        assert!((65e-6..80e-6).contains(&fixed), "{}: {:.1} µs", row.label, fixed * 1e6);
        assert!(fixed / overhead > 2.4, "{}", row.label);
        assert!(ratio > 1.5, "{}: {ratio:.2}", row.label);
    }
    let o = machine_per_layer_fit(&dense_pair());
    println!("that machine's per-layer figure over the dense pair: {:.1} µs", o * 1e6);
    assert!((70e-6..76e-6).contains(&o), "{:.1} µs", o * 1e6);
}

/// Checked, not fitted (the held rows set nothing): with the one per-layer figure of the dense
/// pair, the model's step puts PR 16834's gpt-oss-20b rows at 0.92-0.93 and its Qwen3-30B-A3B
/// rows at 1.15-1.16, all in band, where the fitted 27.5 µs gives 1.14-1.15 and 1.93-1.96. On
/// that machine about 65 % of a Qwen3-30B-A3B step is fixed cost, 30 % of a gpt-oss-20b step.
#[test]
fn one_machine_figure_puts_both_moe_models_of_pr_16834_in_band() {
    let o = machine_per_layer_fit(&dense_pair());
    let rows = [
        tg("MG-04 gpt-oss 20B MXFP4 tg128", PR_16834, RTX_4090, "gpt-oss-20b", Precision::Mxfp4, 128, 186.10),
        tg("MG-05 gpt-oss 20B MXFP4 tg256", PR_16834, RTX_4090, "gpt-oss-20b", Precision::Mxfp4, 256, 184.63),
        tg("MG-06 gpt-oss 20B MXFP4 tg512", PR_16834, RTX_4090, "gpt-oss-20b", Precision::Mxfp4, 512, 183.95),
        tg("MG-07 qwen3moe 30B.A3B Q4_0 tg128", PR_16834, RTX_4090, "qwen3-30b-a3b", Precision::Q4_0, 128, 161.55),
        tg("MG-08 qwen3moe 30B.A3B Q4_0 tg256", PR_16834, RTX_4090, "qwen3-30b-a3b", Precision::Q4_0, 256, 162.39),
        tg("MG-09 qwen3moe 30B.A3B Q4_0 tg512", PR_16834, RTX_4090, "qwen3-30b-a3b", Precision::Q4_0, 512, 159.14),
    ];
    for row in rows {
        let p = parts(&row);
        let step = p.stream_s + p.layers * o;
        let ratio = 1.0 / step / row.published_tok_s;
        let model = 1.0 / p.model_step_s / row.published_tok_s;
        let fixed_share = p.layers * o / step;
        println!(
            "{}: {ratio:.2} with {:.1} µs per layer (model {model:.2}); fixed share {:.0} %, {}",
            row.label,
            o * 1e6,
            fixed_share * 100.0,
            row.source
        );
        assert!((ratio - 1.0).abs() <= 0.25, "{}: {ratio:.2}", row.label);
        if row.model == "qwen3-30b-a3b" {
            assert!(model > 1.9, "{}: model {model:.2}", row.label);
            assert!(fixed_share > 0.6, "{}: {fixed_share:.2}", row.label);
        } else {
            assert!(fixed_share < 0.35, "{}: {fixed_share:.2}", row.label);
        }
    }
}

/// A per-MoE-layer term is not what the published rows show: fitted on the two micro-batch-1
/// MoE rows of PR 15631 it would be 40.1 µs, but the two rows' own values are 32.9 and 72.5 µs
/// (2.2 times apart, different cards of one author); the held LC-06 (gpt-oss-20b on an RTX PRO
/// 6000 Blackwell) leaves at most 12 µs per layer for its whole fixed cost, below even the dense
/// 27.5 µs; and PR 16630's DeepSeek-V2-Lite (MLA and MoE) on the held rows' 4090 leaves 129 µs.
/// The term was tried (it moved the held decode count from 63 to 69 of 90, but LC-06 from 0.87
/// to 0.65) and not kept.
#[test]
fn a_per_moe_layer_term_is_not_what_the_rows_show() {
    let overhead = llm::LLAMA_CPP_2025_LAYER_OVERHEAD_S;
    let ub1 = [
        Row {
            label: "RTX 4090 qwen3moe 30B.A3B Q4_0 -ub 1 pp4096",
            source: PR_15631,
            gpu: RTX_4090,
            model: "qwen3-30b-a3b",
            precision: Precision::Q4_0,
            context_tokens: 2048,
            no_logits: true,
            published_tok_s: 194.24,
        },
        Row {
            label: "RTX 3090 gpt-oss 20B MXFP4 -ub 1 pp4096",
            source: PR_15631,
            gpu: "nvidia-geforce-rtx-3090",
            model: "gpt-oss-20b",
            precision: Precision::Mxfp4,
            context_tokens: 2048,
            no_logits: true,
            published_tok_s: 182.88,
        },
    ];
    // Own per-MoE-layer value of each row: what is left beyond the model's step.
    let own: Vec<f64> = ub1
        .iter()
        .map(|row| {
            let p = parts(row);
            (1.0 / row.published_tok_s - p.model_step_s) / p.moe_layers
        })
        .collect();
    // The two-row least squares of the relative step error for the term.
    let (mut num, mut den) = (0.0, 0.0);
    for row in &ub1 {
        let p = parts(row);
        let t = 1.0 / row.published_tok_s;
        num -= (p.model_step_s / t - 1.0) * (p.moe_layers / t);
        den += (p.moe_layers / t) * (p.moe_layers / t);
    }
    let fit = num / den;
    println!(
        "per-MoE-layer term over PR 15631's rows: {:.1} µs (own values {:.1} and {:.1} µs), {}",
        fit * 1e6,
        own[0] * 1e6,
        own[1] * 1e6,
        PR_15631
    );
    assert!((39e-6..41.5e-6).contains(&fit), "{:.1} µs", fit * 1e6);
    assert!(own[1] / own[0] > 2.0, "{own:?}");
    let lc06 = tg(
        "LC-06 gpt-oss 20B MXFP4 tg128, RTX PRO 6000 Blackwell",
        PR_16991,
        "nvidia-rtx-pro-6000-blackwell",
        "gpt-oss-20b",
        Precision::Mxfp4,
        128,
        391.20,
    );
    let lc06_fixed = fixed_per_layer_s(&lc06);
    let p = parts(&lc06);
    let with_term = 1.0 / (p.model_step_s + p.moe_layers * fit) / lc06.published_tok_s;
    println!(
        "{}: at most {:.1} µs per layer of fixed cost; with the term {with_term:.2}, {}",
        lc06.label,
        lc06_fixed * 1e6,
        lc06.source
    );
    assert!(lc06_fixed < 12.5e-6 && lc06_fixed < overhead, "{:.1} µs", lc06_fixed * 1e6);
    assert!(with_term < 0.75, "{with_term:.2}");
    let ds =
        tg("RTX 4090 deepseek2 16B Q4_0 tg128", PR_16630, RTX_4090, "deepseek-v2-lite", Precision::Q4_0, 64, 200.51);
    let ds_fixed = fixed_per_layer_s(&ds);
    println!("{}: {:.1} µs per layer beyond the bytes, {}", ds.label, ds_fixed * 1e6, ds.source);
    assert!(ds_fixed > 100e-6, "{:.1} µs", ds_fixed * 1e6);
}
