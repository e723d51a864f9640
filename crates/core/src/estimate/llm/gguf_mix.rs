//! Sub-4-bit GGUF files as llama.cpp writes them: the bytes of each ggml block type, and the
//! type `llama-quantize` gives each tensor for a file type (a "mix": `Q3_K_M` keeps its
//! `attn_v` and `ffn_down` tensors at 4-5 bits, `IQ1_S` its token embedding at `Q2_K` and its
//! output at `Q5_K`).
//!
//! Sources, both in <https://github.com/ggml-org/llama.cpp>:
//! - block layouts, `ggml/src/ggml-common.h` (the `static_assert(sizeof(block_…))` lines):
//!   bytes per block of 256 weights (`QK_K`) or 32;
//! - per-tensor types, `src/llama-quant.cpp`: `llama_ftype_get_default_type` (the file type's
//!   default tensor type) and `llama_tensor_get_type_impl` (the overrides by tensor category,
//!   layer, GQA ratio and expert count), and `tensor_type_fallback` (a tensor whose row length
//!   is not a multiple of the block takes a 32-block type).
//!
//! What is modelled: token embedding, output, `attn_q`/`attn_k`/`attn_v`/`attn_output` (for
//! MLA models `attn_kv_b` as `attn_v` and the other projections at the default type), the
//! FFN and routed-expert `gate`/`up`/`down` tensors, the F32 router. Norms and biases (F32,
//! under 0.1 % of a model) are counted at the default type. An importance matrix is assumed
//! for the i-quants (llama.cpp refuses to write them without one) and not used by the k-quant
//! rules modelled here. Held to the llama.cpp quantize README's Llama-3.1-8B file sizes and to
//! llama-bench's printed sizes of MoE files in the unit tests below and in
//! `tests/all/llm_fit/moe_2026.rs`.

#![allow(clippy::doc_markdown, reason = "format names (IQ2_XXS, Q3_K_M, GGUF) read better unquoted")]

use super::inputs::Precision;
use kraftwerk_catalog::{Attention, LlmModel};

/// A ggml tensor type, with its block layout from `ggml/src/ggml-common.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types, reason = "ggml type names as llama.cpp spells them")]
pub(crate) enum GgmlType {
    /// 32-bit float (norms, router).
    F32,
    /// `block_q8_0`: FP16 scale + 32 int8, 34 bytes per 32.
    Q8_0,
    /// `block_q4_0`: FP16 scale + 16 bytes, 18 bytes per 32 (the 32-block fallback of Q2_K/Q3_K).
    Q4_0,
    /// `block_iq4_nl`: 18 bytes per 32 (the 32-block fallback of the i-quants).
    IQ4_NL,
    /// `block_q2_K`: 2 × FP16 + 16 scale bytes + 64 quant bytes, 84 bytes per 256.
    Q2_K,
    /// `block_q3_K`: 32 + 64 + 12 + 2, 110 bytes per 256.
    Q3_K,
    /// `block_q4_K`: 4 + 12 + 128, 144 bytes per 256.
    Q4_K,
    /// `block_q5_K`: 4 + 12 + 32 + 128, 176 bytes per 256.
    Q5_K,
    /// `block_q6_K`: 128 + 64 + 16 + 2, 210 bytes per 256.
    Q6_K,
    /// `block_iq1_s`: 2 + 32 + 16, 50 bytes per 256.
    IQ1_S,
    /// `block_iq1_m`: 32 + 16 + 8, 56 bytes per 256.
    IQ1_M,
    /// `block_iq2_xxs`: 2 + 64, 66 bytes per 256.
    IQ2_XXS,
    /// `block_iq2_xs`: 2 + 64 + 8, 74 bytes per 256.
    IQ2_XS,
    /// `block_iq2_s`: 2 + 64 + 16, 82 bytes per 256.
    IQ2_S,
    /// `block_iq3_xxs`: 2 + 96, 98 bytes per 256.
    IQ3_XXS,
    /// `block_iq3_s`: 2 + 13 × 8 + 4, 110 bytes per 256.
    IQ3_S,
    /// `block_iq4_xs`: 2 + 2 + 4 + 128, 136 bytes per 256.
    IQ4_XS,
}

impl GgmlType {
    /// (bytes per block, weights per block).
    pub fn block(self) -> (u32, u32) {
        match self {
            GgmlType::F32 => (4, 1),
            GgmlType::Q8_0 => (34, 32),
            GgmlType::Q4_0 | GgmlType::IQ4_NL => (18, 32),
            GgmlType::Q2_K => (84, 256),
            GgmlType::Q3_K | GgmlType::IQ3_S => (110, 256),
            GgmlType::Q4_K => (144, 256),
            GgmlType::Q5_K => (176, 256),
            GgmlType::Q6_K => (210, 256),
            GgmlType::IQ1_S => (50, 256),
            GgmlType::IQ1_M => (56, 256),
            GgmlType::IQ2_XXS => (66, 256),
            GgmlType::IQ2_XS => (74, 256),
            GgmlType::IQ2_S => (82, 256),
            GgmlType::IQ3_XXS => (98, 256),
            GgmlType::IQ4_XS => (136, 256),
        }
    }

    /// Bytes per weight (block bytes / block weights): `IQ2_XXS` 0.2578 (2.0625 bits).
    pub fn bytes_per_weight(self) -> f64 {
        let (bytes, n) = self.block();
        f64::from(bytes) / f64::from(n)
    }

    /// The type a tensor whose rows are `ncols` long gets instead (`tensor_type_fallback`):
    /// 256-block i-quants fall back to `IQ4_NL`, `Q2_K`/`Q3_K` to `Q4_0`, `Q4_K` to `Q5_0`
    /// (counted as `Q5_K`'s 5.5 bits: `block_q5_0` is 22 bytes per 32), `Q5_K`/`Q6_K` to 8 bits.
    fn for_row(self, ncols: u32) -> GgmlType {
        let (_, n) = self.block();
        if ncols.is_multiple_of(n) {
            return self;
        }
        match self {
            GgmlType::IQ1_S
            | GgmlType::IQ1_M
            | GgmlType::IQ2_XXS
            | GgmlType::IQ2_XS
            | GgmlType::IQ2_S
            | GgmlType::IQ3_XXS
            | GgmlType::IQ3_S
            | GgmlType::IQ4_XS => GgmlType::IQ4_NL,
            GgmlType::Q2_K | GgmlType::Q3_K => GgmlType::Q4_0,
            GgmlType::Q4_K => GgmlType::Q5_K,
            GgmlType::Q5_K | GgmlType::Q6_K => GgmlType::Q8_0,
            other => other,
        }
    }
}

/// The llama.cpp file types (`LLAMA_FTYPE_MOSTLY_*`) whose tensors [`tensor_type`] decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types, reason = "llama.cpp file type names")]
pub(crate) enum Ftype {
    /// `Q2_K` (ftype 10).
    Q2_K,
    /// `Q2_K_S` (21).
    Q2_K_S,
    /// `Q3_K_S` (11).
    Q3_K_S,
    /// `Q3_K_M` (12).
    Q3_K_M,
    /// `Q3_K_L` (13).
    Q3_K_L,
    /// `IQ1_S` (24).
    IQ1_S,
    /// `IQ1_M` (31).
    IQ1_M,
    /// `IQ2_XXS` (19).
    IQ2_XXS,
    /// `IQ2_XS` (20).
    IQ2_XS,
    /// `IQ2_S` (28).
    IQ2_S,
    /// `IQ2_M` (29).
    IQ2_M,
    /// `IQ3_XXS` (23).
    IQ3_XXS,
    /// `IQ3_XS` (22).
    IQ3_XS,
    /// `IQ3_S` (26).
    IQ3_S,
    /// `IQ3_M` (27).
    IQ3_M,
    /// `IQ4_XS` (30).
    IQ4_XS,
}

impl Ftype {
    /// The file type of a precision, for the precisions whose bytes are counted per tensor.
    pub fn of(p: Precision) -> Option<Ftype> {
        Some(match p {
            Precision::Q2_K => Ftype::Q2_K,
            Precision::Q2_K_S => Ftype::Q2_K_S,
            Precision::Q3_K_S => Ftype::Q3_K_S,
            Precision::Q3_K_M => Ftype::Q3_K_M,
            Precision::Q3_K_L => Ftype::Q3_K_L,
            Precision::IQ1_S => Ftype::IQ1_S,
            Precision::IQ1_M => Ftype::IQ1_M,
            Precision::IQ2_XXS => Ftype::IQ2_XXS,
            Precision::IQ2_XS => Ftype::IQ2_XS,
            Precision::IQ2_S => Ftype::IQ2_S,
            Precision::IQ2_M => Ftype::IQ2_M,
            Precision::IQ3_XXS => Ftype::IQ3_XXS,
            Precision::IQ3_XS => Ftype::IQ3_XS,
            Precision::IQ3_S => Ftype::IQ3_S,
            Precision::IQ3_M => Ftype::IQ3_M,
            Precision::IQ4_XS => Ftype::IQ4_XS,
            _ => return None,
        })
    }

    /// `llama_ftype_get_default_type`.
    pub(crate) fn default_type(self) -> GgmlType {
        match self {
            Ftype::Q2_K | Ftype::Q2_K_S => GgmlType::Q2_K,
            Ftype::Q3_K_S | Ftype::Q3_K_M | Ftype::Q3_K_L => GgmlType::Q3_K,
            Ftype::IQ1_S => GgmlType::IQ1_S,
            Ftype::IQ1_M => GgmlType::IQ1_M,
            Ftype::IQ2_XXS => GgmlType::IQ2_XXS,
            Ftype::IQ2_XS | Ftype::IQ2_S => GgmlType::IQ2_XS,
            Ftype::IQ2_M => GgmlType::IQ2_S,
            Ftype::IQ3_XXS => GgmlType::IQ3_XXS,
            Ftype::IQ3_XS | Ftype::IQ3_S | Ftype::IQ3_M => GgmlType::IQ3_S,
            Ftype::IQ4_XS => GgmlType::IQ4_XS,
        }
    }

    /// The 1- and 2-bit i-quants, which `llama_tensor_get_type_impl` treats in one branch.
    fn low_iq(self) -> bool {
        matches!(self, Ftype::IQ2_XXS | Ftype::IQ2_XS | Ftype::IQ1_S | Ftype::IQ2_S | Ftype::IQ2_M | Ftype::IQ1_M)
    }
}

/// The tensor categories of `tensor_get_category` that the rules below tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// `token_embd.weight`.
    TokenEmbd,
    /// `output.weight` (and a tied token embedding).
    Output,
    /// `attn_q` (MLA's `attn_q_a`/`attn_q_b`/`attn_kv_a_mqa` count as other tensors: default type).
    AttnQ,
    /// `attn_k`.
    AttnK,
    /// `attn_v`, `attn_qkv`, `attn_kv_b`.
    AttnV,
    /// `attn_output`.
    AttnOutput,
    /// `ffn_gate*`.
    FfnGate,
    /// `ffn_up*`.
    FfnUp,
    /// `ffn_down*`.
    FfnDown,
    /// Anything else quantized at the default type.
    Other,
}

/// What the rules read of the model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MixContext {
    /// `n_head / n_head_kv`.
    pub n_gqa: u32,
    /// Routed experts (0 dense).
    pub n_expert: u32,
    /// Layers (`n_layer_all`).
    pub n_layer: u32,
    /// Whether the output reuses the token embedding (`has_tied_embeddings`: the embedding
    /// then takes the output's type).
    pub tied: bool,
}

/// `use_more_bits(i, n)` of llama-quant.cpp: the first and last eighth and every third layer
/// between.
fn use_more_bits(i: u32, n: u32) -> bool {
    let (i, n) = (i64::from(i), i64::from(n));
    i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2
}

/// The type `llama_tensor_get_type_impl` gives a tensor of `cat` in layer (or, for the
/// counter-based rules, position) `i`, before the row-length fallback. Only the branches of
/// the file types of [`Ftype`] are kept.
#[allow(
    clippy::many_single_char_names,
    clippy::match_same_arms,
    reason = "the arms mirror llama-quant.cpp's branches one for one, with its short names"
)]
pub(crate) fn tensor_type(f: Ftype, cat: Category, i: u32, c: MixContext) -> GgmlType {
    use Category as C;
    use GgmlType as T;
    let d = f.default_type();
    let n = c.n_layer;
    let iq2s_or_m = matches!(f, Ftype::IQ2_S | Ftype::IQ2_M);
    let cat = if cat == C::TokenEmbd && c.tied { C::Output } else { cat };
    match cat {
        C::Output => {
            if matches!(
                f,
                Ftype::IQ2_XXS
                    | Ftype::IQ2_XS
                    | Ftype::IQ3_XXS
                    | Ftype::IQ1_S
                    | Ftype::IQ2_S
                    | Ftype::IQ2_M
                    | Ftype::IQ1_M
            ) {
                T::Q5_K
            } else {
                T::Q6_K
            }
        }
        C::TokenEmbd => match f {
            Ftype::IQ2_XXS | Ftype::IQ2_XS | Ftype::IQ1_S | Ftype::IQ1_M => T::Q2_K,
            Ftype::IQ2_S | Ftype::IQ2_M | Ftype::IQ3_XXS => T::IQ3_S,
            _ => d,
        },
        _ if f.low_iq() => match cat {
            C::AttnV if c.n_gqa >= 4 || c.n_expert >= 4 => T::Q4_K,
            C::AttnV if iq2s_or_m => T::IQ3_S,
            C::AttnV => T::Q2_K,
            C::AttnK if c.n_expert == 8 => T::Q4_K,
            C::FfnDown if i < n / 8 && iq2s_or_m => T::IQ3_S,
            C::FfnDown if i < n / 8 => T::Q2_K,
            C::AttnOutput if c.n_expert == 8 => T::Q5_K,
            C::AttnOutput if matches!(f, Ftype::IQ1_S | Ftype::IQ1_M) => T::IQ2_XXS,
            C::AttnOutput if iq2s_or_m => T::IQ3_S,
            _ => d,
        },
        C::AttnV => {
            let mut t = match f {
                Ftype::Q2_K if c.n_gqa >= 4 => T::Q4_K,
                Ftype::Q2_K => T::Q3_K,
                Ftype::Q2_K_S if c.n_gqa >= 4 => T::Q4_K,
                Ftype::IQ3_XXS if c.n_gqa >= 4 => T::Q4_K,
                Ftype::IQ3_XXS => T::IQ3_XXS,
                Ftype::IQ3_XS | Ftype::IQ3_S if c.n_gqa >= 4 => T::Q4_K,
                Ftype::IQ3_M => T::Q4_K,
                Ftype::Q3_K_M if i < 2 => T::Q5_K,
                Ftype::Q3_K_M => T::Q4_K,
                Ftype::Q3_K_L => T::Q5_K,
                Ftype::IQ4_XS if c.n_gqa >= 4 => T::Q5_K,
                _ => d,
            };
            if c.n_expert == 8 {
                t = T::Q8_0;
            }
            t
        }
        C::AttnK => match f {
            _ if c.n_expert == 8 => T::Q8_0,
            Ftype::IQ3_XS => T::IQ3_XXS,
            Ftype::IQ3_XXS => T::IQ2_S,
            _ => d,
        },
        C::AttnQ => match f {
            Ftype::IQ3_XS => T::IQ3_XXS,
            Ftype::IQ3_XXS => T::IQ2_S,
            _ => d,
        },
        C::FfnDown => match f {
            Ftype::Q2_K => T::Q3_K,
            Ftype::Q2_K_S if i < n / 8 => T::Q4_K,
            Ftype::Q3_K_M if i < n / 16 => T::Q5_K,
            // `arch != LLM_ARCH_FALCON || use_more_bits(...)`: Q4_K for every other model.
            Ftype::Q3_K_M => T::Q4_K,
            Ftype::IQ3_M if i < n / 8 || (c.n_expert == 8 && use_more_bits(i, n)) => T::Q4_K,
            Ftype::Q3_K_L => T::Q5_K,
            _ => d,
        },
        C::AttnOutput => {
            if c.n_expert == 8 {
                match f {
                    Ftype::Q2_K
                    | Ftype::IQ3_XS
                    | Ftype::IQ3_XXS
                    | Ftype::Q3_K_S
                    | Ftype::Q3_K_M
                    | Ftype::IQ3_S
                    | Ftype::IQ3_M
                    | Ftype::IQ4_XS => T::Q5_K,
                    _ => d,
                }
            } else {
                match f {
                    Ftype::Q2_K => T::Q3_K,
                    Ftype::IQ3_XXS => T::IQ3_S,
                    Ftype::Q3_K_M | Ftype::IQ3_M => T::Q4_K,
                    Ftype::Q3_K_L => T::Q5_K,
                    _ => d,
                }
            }
        }
        C::FfnGate | C::FfnUp if f == Ftype::IQ3_XS && i >= n / 8 && i < 7 * n / 8 => T::IQ3_XXS,
        _ => d,
    }
}

/// Bytes of a GGUF file of `model` at the sub-4-bit `precision`, split as
/// [`super::shape`] splits weights: (token embedding, output, transformer layers); `None` for a
/// precision that is not a per-tensor GGUF mix ([`Ftype::of`]). `groups` is the model's
/// parameters as (one embedding table, routed experts, the rest of the layers), as
/// `shape::param_groups` splits them.
///
/// Shapes: attention `q`/`o` are `hidden × heads × head_dim`, `k`/`v` `hidden × kv_heads ×
/// head_dim` (MLA: `attn_kv_b` `kv_lora_rank × heads × 2 head_dim`, `attn_output`
/// `heads × head_dim × hidden`, the rest of its attention at the default type); routed experts
/// `gate`/`up`/`down` a third each of [`LlmModel::expert_params_b`], in the last
/// `experts.layers` layers; the F32 router `routed × hidden` per expert layer; what remains of
/// the layers (dense FFN, shared experts) as FFN tensors, a third of them `down`.
pub(crate) fn parts_bytes(model: &LlmModel, precision: Precision, groups: (f64, f64, f64)) -> Option<(f64, f64, f64)> {
    let f = Ftype::of(precision)?;
    let layers = model.layers.max(1);
    let c = MixContext {
        n_gqa: model.heads / model.kv_heads.max(1),
        n_expert: model.experts.as_ref().map_or(0, |e| e.routed),
        n_layer: layers,
        tied: model.tied_embeddings,
    };
    let ty = |cat, i, ncols: u32| tensor_type(f, cat, i, c).for_row(ncols).bytes_per_weight();
    let (g_table, g_experts, g_layers) = groups;
    let (hidden, heads, kv, hd) =
        (f64::from(model.hidden), f64::from(model.heads), f64::from(model.kv_heads), f64::from(model.head_dim));
    let q_width = model.heads * model.head_dim;
    let embed = g_table * ty(Category::TokenEmbd, 0, model.hidden);
    let head = if model.tied_embeddings { 0.0 } else { g_table * ty(Category::Output, 0, model.hidden) };

    // Attention per layer, as (category, params, row length).
    let attention: Vec<(Category, f64, u32)> = match model.attention {
        Attention::Mla { kv_lora_rank, .. } => vec![
            (Category::AttnV, f64::from(kv_lora_rank) * heads * 2.0 * hd, kv_lora_rank),
            (Category::AttnOutput, heads * hd * hidden, q_width),
        ],
        _ => vec![
            (Category::AttnQ, hidden * heads * hd, model.hidden),
            (Category::AttnK, hidden * kv * hd, model.hidden),
            (Category::AttnV, hidden * kv * hd, model.hidden),
            (Category::AttnOutput, heads * hd * hidden, q_width),
        ],
    };
    let attn_params_per_layer: f64 = attention.iter().map(|a| a.1).sum();
    let linear_layers = (0..layers).filter(|&i| model.attention.is_linear_layer(i)).count() as u32;
    let attn_layers = layers - linear_layers;
    let attn_total = (attn_params_per_layer * f64::from(attn_layers)).min(g_layers);
    let attn_scale = if attn_params_per_layer > 0.0 {
        attn_total / (attn_params_per_layer * f64::from(attn_layers.max(1)))
    } else {
        0.0
    };
    let (expert_layers, expert_inter, n_routed) =
        model.experts.as_ref().map_or((0, 0, 0), |e| (e.layers.min(layers), e.intermediate, e.routed));
    let router = (f64::from(expert_layers) * f64::from(n_routed) * hidden).min((g_layers - attn_total).max(0.0));
    let ffn_rest = (g_layers - attn_total - router).max(0.0);
    let dense_inter = model.intermediate.unwrap_or(expert_inter.max(model.hidden));

    let mut body = router * GgmlType::F32.bytes_per_weight();
    let mut v_counter = 0;
    for i in 0..layers {
        if !model.attention.is_linear_layer(i) {
            for &(cat, params, ncols) in &attention {
                let idx = if cat == Category::AttnV {
                    v_counter += 1;
                    v_counter - 1
                } else {
                    i
                };
                body += params * attn_scale * ty(cat, idx, ncols);
            }
        }
    }
    // Linear-attention projections (Qwen3-Next's, Qwen3.5's) and whatever the attention shapes
    // above do not cover sit in `ffn_rest`, counted as FFN tensors.
    let per_layer_rest = ffn_rest / f64::from(layers);
    let per_expert_layer = if expert_layers > 0 { g_experts / f64::from(expert_layers) } else { 0.0 };
    // Counter-based `ffn_down` rules (the 1- and 2-bit i-quants) bump the first n/8 ffn_down
    // tensors; an expert layer with shared experts holds two.
    let mut down_counter = 0;
    let first_expert_layer = layers - expert_layers;
    for i in 0..layers {
        let expert_layer = i >= first_expert_layer && expert_layers > 0;
        let down_idx = |counter: u32| if f.low_iq() { counter } else { i };
        if per_layer_rest > 0.0 {
            body +=
                per_layer_rest * (ty(Category::FfnGate, i, model.hidden) + ty(Category::FfnUp, i, model.hidden)) / 3.0;
            body += per_layer_rest / 3.0 * ty(Category::FfnDown, down_idx(down_counter), dense_inter);
            down_counter += 1;
        }
        if expert_layer {
            body += per_expert_layer * (ty(Category::FfnGate, i, model.hidden) + ty(Category::FfnUp, i, model.hidden))
                / 3.0;
            body += per_expert_layer / 3.0 * ty(Category::FfnDown, down_idx(down_counter), expert_inter);
            down_counter += 1;
        }
    }
    Some((embed, head, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str) -> LlmModel {
        kraftwerk_catalog::builtin().expect("catalog").model(id).expect("preset").clone()
    }

    fn gib(m: &LlmModel, p: Precision) -> f64 {
        crate::estimate::llm::weight_gib(m, p)
    }

    /// The block sizes ggml-common.h asserts, as bits per weight.
    #[test]
    fn block_bits_match_ggml_common() {
        let bits = |t: GgmlType| t.bytes_per_weight() * 8.0;
        assert!((bits(GgmlType::IQ1_S) - 1.5625).abs() < 1e-9);
        assert!((bits(GgmlType::IQ1_M) - 1.75).abs() < 1e-9);
        assert!((bits(GgmlType::IQ2_XXS) - 2.0625).abs() < 1e-9);
        assert!((bits(GgmlType::IQ2_XS) - 2.3125).abs() < 1e-9);
        assert!((bits(GgmlType::IQ2_S) - 2.5625).abs() < 1e-9);
        assert!((bits(GgmlType::IQ3_XXS) - 3.0625).abs() < 1e-9);
        assert!((bits(GgmlType::IQ3_S) - 3.4375).abs() < 1e-9);
        assert!((bits(GgmlType::Q2_K) - 2.625).abs() < 1e-9);
        assert!((bits(GgmlType::Q3_K) - 3.4375).abs() < 1e-9);
        assert!((bits(GgmlType::Q6_K) - 6.5625).abs() < 1e-9);
    }

    /// The llama.cpp quantize README's Llama-3.1-8B table (tools/quantize/README.md, "size
    /// (GiB)" column): every sub-4-bit file within 1.5 % (IQ4_XS is 0.9 % under: its first ffn_down layers are Q5_K only without an importance matrix).
    #[test]
    fn llama_3_1_8b_file_sizes_of_the_quantize_readme() {
        let m = model("llama-3.1-8b");
        let rows = [
            (Precision::IQ1_S, 1.87),
            (Precision::IQ1_M, 2.01),
            (Precision::IQ2_XXS, 2.23),
            (Precision::IQ2_XS, 2.42),
            (Precision::IQ2_S, 2.56),
            (Precision::IQ2_M, 2.74),
            (Precision::IQ3_XXS, 3.04),
            (Precision::IQ3_XS, 3.27),
            (Precision::IQ3_S, 3.42),
            (Precision::IQ3_M, 3.52),
            (Precision::IQ4_XS, 4.17),
            (Precision::Q2_K_S, 2.78),
            (Precision::Q2_K, 2.95),
            (Precision::Q3_K_S, 3.41),
            (Precision::Q3_K_L, 4.02),
        ];
        for (p, published) in rows {
            let est = gib(&m, p);
            println!("llama-3.1-8b {p}: {est:.3} GiB (published {published})");
            assert!((est / published - 1.0).abs() <= 0.015, "{p}: {est:.3} GiB vs published {published}");
        }
    }

    /// Qwen3-30B-A3B-Instruct-2507 `Q3_K_M`: llama-bench prints 13.70 GiB
    /// (<https://github.com/ggml-org/llama.cpp/pull/15952>, 2025-09-12).
    #[test]
    fn qwen3_30b_a3b_q3_k_m_file_size() {
        let est = gib(&model("qwen3-30b-a3b"), Precision::Q3_K_M);
        println!("qwen3-30b-a3b q3_k_m: {est:.3} GiB (published 13.70)");
        let q38 = gib(&model("llama-3.1-8b"), Precision::Q3_K_M);
        println!(
            "llama-3.1-8b q3_k_m: {q38:.3} GiB, {:.3} bits per weight",
            q38 * 8.0 * f64::from(1u32 << 30) / 8.03e9
        );
        assert!((est / 13.70 - 1.0).abs() <= 0.03, "{est:.3} GiB vs 13.70");
    }
}
