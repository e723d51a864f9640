#!/usr/bin/env python3
"""Writes the model-file fixtures of tests/model_file.rs with the official writers.

GGUF files come from the `gguf` package's GGUFWriter (the writer llama.cpp's converters use),
safetensors files from the `safetensors` package. The shapes are tiny (a few hundred KB) but
the metadata keys are the ones llama.cpp's converters write for each architecture, and the
tensor types are the mixes real files have (Q4_K_M: Q4_K with Q6_K for some tensors and F32
norms; gpt-oss: MXFP4 experts). Tensor data is random bytes: only the header is under test.

    pip install gguf safetensors numpy
    python3 scripts/make_model_fixtures.py   # writes tests/fixtures/model-files/
"""
import json
import os

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from safetensors.numpy import save_file

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "model-files")
RNG = np.random.default_rng(16)


def raw(w, name, shape, qtype):
    """A tensor of `shape` (ggml order reversed, as numpy) in `qtype`, random bytes."""
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    n = int(np.prod(shape))
    assert n % block == 0, (name, shape, qtype)
    nbytes = n // block * size
    # The writer takes quantized data as bytes shaped [rows..., bytes per row] (numpy order;
    # it reverses the shape into ggml order and converts the row to elements).
    assert shape[-1] % block == 0, (name, shape, qtype)
    byte_shape = list(shape[:-1]) + [shape[-1] // block * size]
    data = RNG.integers(0, 255, size=nbytes, dtype=np.uint8).reshape(byte_shape)
    w.add_tensor(name, data, raw_dtype=qtype)


def common(w, name, layers, ctx, hidden, ffn, heads, kv, vocab, file_type):
    w.add_name(name)
    w.add_organization("kraftwerk-fixture")
    w.add_file_type(file_type)
    w.add_quantization_version(2)
    w.add_block_count(layers)
    w.add_context_length(ctx)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(500000.0)
    w.add_tokenizer_model("gpt2")
    w.add_token_list([f"t{i}" for i in range(vocab)])
    w.add_token_types([1] * vocab)
    w.add_bos_token_id(0)
    w.add_eos_token_id(1)


def attn(w, i, hidden, heads, kv, head_dim, qt, vt):
    raw(w, f"blk.{i}.attn_norm.weight", [hidden], T.F32)
    raw(w, f"blk.{i}.attn_q.weight", [heads * head_dim, hidden], qt)
    raw(w, f"blk.{i}.attn_k.weight", [kv * head_dim, hidden], qt)
    raw(w, f"blk.{i}.attn_v.weight", [kv * head_dim, hidden], vt)
    raw(w, f"blk.{i}.attn_output.weight", [hidden, heads * head_dim], qt)
    raw(w, f"blk.{i}.ffn_norm.weight", [hidden], T.F32)


def llama_q4_k_m():
    """Llama-3-style GQA, Q4_K_M mix (llama.cpp: attn_v and ffn_down of some layers in Q6_K)."""
    L, H, F, NH, KV, V = 2, 256, 256, 4, 2, 256
    w = gguf.GGUFWriter(os.path.join(OUT, "tiny-llama-q4_k_m.gguf"), "llama")
    common(w, "Tiny Llama", L, 131072, H, F, NH, KV, V, 15)  # 15 = MOSTLY_Q4_K_M
    w.add_rope_dimension_count(H // NH)
    w.add_vocab_size(V)
    raw(w, "token_embd.weight", [V, H], T.Q4_K)
    for i in range(L):
        attn(w, i, H, NH, KV, H // NH, T.Q4_K, T.Q6_K)
        raw(w, f"blk.{i}.ffn_gate.weight", [F, H], T.Q4_K)
        raw(w, f"blk.{i}.ffn_up.weight", [F, H], T.Q4_K)
        raw(w, f"blk.{i}.ffn_down.weight", [H, F], T.Q6_K if i == 0 else T.Q4_K)
    raw(w, "output_norm.weight", [H], T.F32)
    raw(w, "output.weight", [V, H], T.Q6_K)
    finish(w)


def qwen3moe_q8_0():
    """Qwen3-MoE-style: 8 experts, 2 used, expert FFN width, tied-free head, Q8_0."""
    L, H, F, NH, KV, V, E, U, EF = 2, 64, 192, 4, 2, 128, 8, 2, 32
    w = gguf.GGUFWriter(os.path.join(OUT, "tiny-qwen3moe-q8_0.gguf"), "qwen3moe")
    common(w, "Tiny Qwen3 MoE", L, 40960, H, F, NH, KV, V, 7)  # 7 = MOSTLY_Q8_0
    w.add_key_length(32)
    w.add_value_length(32)
    w.add_expert_count(E)
    w.add_expert_used_count(U)
    w.add_expert_feed_forward_length(EF)
    raw(w, "token_embd.weight", [V, H], T.Q8_0)
    for i in range(L):
        attn(w, i, H, NH, KV, 32, T.Q8_0, T.Q8_0)
        raw(w, f"blk.{i}.attn_q_norm.weight", [32], T.F32)
        raw(w, f"blk.{i}.attn_k_norm.weight", [32], T.F32)
        raw(w, f"blk.{i}.ffn_gate_inp.weight", [E, H], T.F32)
        raw(w, f"blk.{i}.ffn_gate_exps.weight", [E, EF, H], T.Q8_0)
        raw(w, f"blk.{i}.ffn_up_exps.weight", [E, EF, H], T.Q8_0)
        raw(w, f"blk.{i}.ffn_down_exps.weight", [E, H, EF], T.Q8_0)
    raw(w, "output_norm.weight", [H], T.F32)
    raw(w, "output.weight", [V, H], T.Q8_0)
    finish(w)


def deepseek2_q4_k():
    """DeepSeek-V3-style MLA: kv_lora_rank, rope dims, tied-free head."""
    L, H, F, NH, V = 2, 256, 256, 2, 256
    w = gguf.GGUFWriter(os.path.join(OUT, "tiny-deepseek2-q4_k.gguf"), "deepseek2")
    common(w, "Tiny DeepSeek", L, 163840, H, F, NH, NH, V, 12)  # 12 = MOSTLY_Q4_K_S
    w.add_key_length(192)
    w.add_value_length(128)
    w.add_kv_lora_rank(512)
    w.add_q_lora_rank(1536)
    w.add_rope_dimension_count(64)
    w.add_expert_count(4)
    w.add_expert_used_count(2)
    w.add_expert_shared_count(1)
    w.add_expert_feed_forward_length(256)
    w.add_leading_dense_block_count(1)
    raw(w, "token_embd.weight", [V, H], T.Q4_K)
    for i in range(L):
        raw(w, f"blk.{i}.attn_norm.weight", [H], T.F32)
        raw(w, f"blk.{i}.attn_kv_a_mqa.weight", [512 + 64, H], T.Q8_0)
        raw(w, f"blk.{i}.attn_kv_b.weight", [NH * 256, 512], T.Q4_K)
        raw(w, f"blk.{i}.attn_q.weight", [NH * 192, H], T.Q4_K)
        raw(w, f"blk.{i}.attn_output.weight", [H, NH * 128], T.Q4_K)
        raw(w, f"blk.{i}.ffn_norm.weight", [H], T.F32)
        if i == 0:
            raw(w, f"blk.{i}.ffn_gate.weight", [F, H], T.Q4_K)
            raw(w, f"blk.{i}.ffn_up.weight", [F, H], T.Q4_K)
            raw(w, f"blk.{i}.ffn_down.weight", [H, F], T.Q6_K)
        else:
            raw(w, f"blk.{i}.ffn_gate_inp.weight", [4, H], T.F32)
            raw(w, f"blk.{i}.ffn_gate_exps.weight", [4, 256, H], T.Q4_K)
            raw(w, f"blk.{i}.ffn_up_exps.weight", [4, 256, H], T.Q4_K)
            raw(w, f"blk.{i}.ffn_down_exps.weight", [4, H, 256], T.Q6_K)
            raw(w, f"blk.{i}.ffn_gate_shexp.weight", [256, H], T.Q4_K)
            raw(w, f"blk.{i}.ffn_up_shexp.weight", [256, H], T.Q4_K)
            raw(w, f"blk.{i}.ffn_down_shexp.weight", [H, 256], T.Q6_K)
    raw(w, "output_norm.weight", [H], T.F32)
    raw(w, "output.weight", [V, H], T.Q6_K)
    finish(w)


def gpt_oss_mxfp4():
    """gpt-oss-style: MXFP4 experts, alternating 128-token sliding window, tied-free head."""
    L, H, NH, KV, V, E, U, EF = 2, 64, 4, 2, 128, 4, 2, 64
    w = gguf.GGUFWriter(os.path.join(OUT, "tiny-gpt-oss-mxfp4.gguf"), "gpt-oss")
    common(w, "Tiny gpt-oss", L, 131072, H, EF, NH, KV, V, 38)  # 38 = MOSTLY_MXFP4_MOE
    w.add_key_length(32)
    w.add_value_length(32)
    w.add_sliding_window(128)
    w.add_expert_count(E)
    w.add_expert_used_count(U)
    w.add_expert_feed_forward_length(EF)
    raw(w, "token_embd.weight", [V, H], T.Q8_0)
    for i in range(L):
        attn(w, i, H, NH, KV, 32, T.Q8_0, T.Q8_0)
        raw(w, f"blk.{i}.attn_sinks.weight", [NH], T.F32)
        raw(w, f"blk.{i}.ffn_gate_inp.weight", [E, H], T.F32)
        raw(w, f"blk.{i}.ffn_gate_exps.weight", [E, EF, H], T.MXFP4)
        raw(w, f"blk.{i}.ffn_up_exps.weight", [E, EF, H], T.MXFP4)
        raw(w, f"blk.{i}.ffn_down_exps.weight", [E, H, EF], T.MXFP4)
    raw(w, "output_norm.weight", [H], T.F32)
    raw(w, "output.weight", [V, H], T.Q8_0)
    finish(w)


def gemma3_bf16():
    """Gemma-3-style: tied embeddings (no output.weight), 1024-token window, BF16."""
    L, H, F, NH, KV, V = 6, 64, 128, 2, 1, 128
    w = gguf.GGUFWriter(os.path.join(OUT, "tiny-gemma3-bf16.gguf"), "gemma3")
    common(w, "Tiny Gemma 3", L, 131072, H, F, NH, KV, V, 32)  # 32 = MOSTLY_BF16
    w.add_key_length(64)
    w.add_value_length(64)
    w.add_sliding_window(1024)
    raw(w, "token_embd.weight", [V, H], T.BF16)
    for i in range(L):
        attn(w, i, H, NH, KV, 64, T.BF16, T.BF16)
        raw(w, f"blk.{i}.ffn_gate.weight", [F, H], T.BF16)
        raw(w, f"blk.{i}.ffn_up.weight", [F, H], T.BF16)
        raw(w, f"blk.{i}.ffn_down.weight", [H, F], T.BF16)
    raw(w, "output_norm.weight", [H], T.F32)
    finish(w)


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def hf_qwen3():
    """A Hugging Face folder: Qwen3-style config.json and two safetensors shards with index."""
    d = os.path.join(OUT, "tiny-qwen3-hf")
    os.makedirs(d, exist_ok=True)
    L, H, F, NH, KV, V, HD = 2, 64, 128, 4, 2, 128, 16
    config = {
        "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "torch_dtype": "float16",
        "hidden_size": H, "intermediate_size": F, "num_hidden_layers": L,
        "num_attention_heads": NH, "num_key_value_heads": KV, "head_dim": HD,
        "vocab_size": V, "max_position_embeddings": 40960, "rope_theta": 1000000,
        "rms_norm_eps": 1e-6, "sliding_window": None, "use_sliding_window": False,
        "tie_word_embeddings": False, "hidden_act": "silu",
    }
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    f16 = lambda *s: RNG.standard_normal(s).astype(np.float16)
    f32 = lambda *s: RNG.standard_normal(s).astype(np.float32)
    shard1 = {"model.embed_tokens.weight": f16(V, H)}
    shard2 = {"lm_head.weight": f16(V, H), "model.norm.weight": f32(H)}
    for i in range(L):
        p = f"model.layers.{i}."
        t = shard1 if i == 0 else shard2
        t[p + "input_layernorm.weight"] = f32(H)
        t[p + "self_attn.q_proj.weight"] = f16(NH * HD, H)
        t[p + "self_attn.k_proj.weight"] = f16(KV * HD, H)
        t[p + "self_attn.v_proj.weight"] = f16(KV * HD, H)
        t[p + "self_attn.o_proj.weight"] = f16(H, NH * HD)
        t[p + "self_attn.q_norm.weight"] = f32(HD)
        t[p + "self_attn.k_norm.weight"] = f32(HD)
        t[p + "post_attention_layernorm.weight"] = f32(H)
        t[p + "mlp.gate_proj.weight"] = f16(F, H)
        t[p + "mlp.up_proj.weight"] = f16(F, H)
        t[p + "mlp.down_proj.weight"] = f16(H, F)
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    weight_map = {}
    total = 0
    for name, t in zip(names, [shard1, shard2]):
        save_file(t, os.path.join(d, name), metadata={"format": "pt"})
        for k, v in t.items():
            weight_map[k] = name
            total += v.nbytes
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)


def hf_mixtral_index_only():
    """A folder with config.json and the index only (shards not downloaded)."""
    d = os.path.join(OUT, "mixtral-index-only")
    os.makedirs(d, exist_ok=True)
    config = {  # mistralai/Mixtral-8x7B-v0.1 config.json
        "architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "torch_dtype": "bfloat16",
        "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
        "max_position_embeddings": 32768, "num_local_experts": 8, "num_experts_per_tok": 2,
        "sliding_window": None, "rope_theta": 1e6, "tie_word_embeddings": False,
    }
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        # total_size as published in the model's index (93,405,585,408 bytes of BF16).
        json.dump({"metadata": {"total_size": 93405585408},
                   "weight_map": {"lm_head.weight": "model-00019-of-00019.safetensors",
                                  "model.embed_tokens.weight": "model-00001-of-00019.safetensors"}}, f, indent=2)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    llama_q4_k_m()
    qwen3moe_q8_0()
    deepseek2_q4_k()
    gpt_oss_mxfp4()
    gemma3_bf16()
    hf_qwen3()
    hf_mixtral_index_only()
    with open(os.path.join(OUT, "not-a-model.gguf"), "wb") as f:
        f.write(b"PK\x03\x04 this is a zip file, not a model" * 4)


def expected():
    """What the official readers say about each fixture, for tests/model_file.rs to match:
    the sum of tensor bytes (gguf.GGUFReader / safetensors safe_open), layers, heads and KV
    heads from the metadata."""
    from safetensors import safe_open

    out = {}
    for name in sorted(os.listdir(OUT)):
        p = os.path.join(OUT, name)
        if name.endswith(".gguf") and name != "not-a-model.gguf":
            r = gguf.GGUFReader(p)
            arch = bytes(r.fields["general.architecture"].parts[-1]).decode()
            field = lambda k: int(r.fields[f"{arch}.{k}"].parts[-1][0])
            out[name] = {
                "tensor_bytes": int(sum(int(t.n_bytes) for t in r.tensors)),
                "tensors": len(r.tensors),
                "layers": field("block_count"),
                "heads": field("attention.head_count"),
                "kv_heads": field("attention.head_count_kv"),
            }
        elif os.path.isdir(p) and any(f.endswith(".safetensors") for f in os.listdir(p)):
            total, count = 0, 0
            for f in sorted(os.listdir(p)):
                if f.endswith(".safetensors"):
                    with safe_open(os.path.join(p, f), framework="numpy") as st:
                        for k in st.keys():
                            total += st.get_tensor(k).nbytes
                            count += 1
            cfg = json.load(open(os.path.join(p, "config.json")))
            out[name] = {"tensor_bytes": total, "tensors": count, "layers": cfg["num_hidden_layers"],
                         "heads": cfg["num_attention_heads"], "kv_heads": cfg["num_key_value_heads"]}
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(out, f, indent=2, sort_keys=True)


if __name__ == "__main__":
    expected()
