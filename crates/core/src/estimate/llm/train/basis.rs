//! What a training estimate rests on: the published fine-tuning runs the memory and speed
//! models are held to (`tests/all/llm_train.rs`, which prints the whole table), the bands
//! those tests hold them within, and the commands that measure the same figures on the user's
//! machine. Training rows only: no inference measurement is a training basis.

use super::super::inputs::{FitInput, Mode, Trainer};
use super::types::TrainingBasis;
use super::{Setup, Sharding};

/// Band the held memory rows are judged in, percent.
pub(crate) const MEMORY_BAND_PCT: f64 = 20.0;
/// Band the held throughput rows are judged in, percent.
pub(crate) const SPEED_BAND_PCT: f64 = 25.0;

/// torchtune README @0031bfb (Llama 3.1, batch 2, packed 2048, torch.compile): peak memory per
/// GPU, as `held.rs` holds them (the A6000 rows fall outside: their configuration is not the
/// 4090 rows').
const TORCHTUNE_MEMORY: [&str; 8] = [
    "torchtune README: Llama 3.1 8B full, 1x RTX 4090: 18.9 GiB (held, +2 %)",
    "torchtune README: Llama 3.1 8B full, 1x RTX A6000: 37.4 GiB (held, outside: -49 %, configuration not published)",
    "torchtune README: Llama 3.1 8B LoRA, 1x RTX 4090: 16.2 GiB (held, +14 %)",
    "torchtune README: Llama 3.1 8B LoRA, 1x RTX A6000: 30.3 GiB (held, outside: -39 %, configuration not published)",
    "torchtune README: Llama 3.1 8B QLoRA, 1x RTX 4090: 7.4 GiB (held, +19 %)",
    "torchtune README: Llama 3.1 70B full, 8x A100, FSDP + CPU offload: 13.9 GiB (held, +3 %)",
    "torchtune README: Llama 3.1 70B LoRA, 8x A100, FSDP: 27.6 GiB (held, +1 %)",
    "torchtune README: Llama 3.1 405B QLoRA, 8x A100, FSDP: 44.8 GB (held, +16 %)",
];
/// The same table's tokens/s.
const TORCHTUNE_SPEED: [&str; 8] = [
    "torchtune README: Llama 3.1 8B full, 1x RTX 4090: 1,650 tokens/s (fitted: MFU of GDDR GPUs)",
    "torchtune README: Llama 3.1 8B full, 1x RTX A6000: 2,579 tokens/s (held, outside: -40 %, configuration not published)",
    "torchtune README: Llama 3.1 8B LoRA, 1x RTX 4090: 3,083 tokens/s (held, outside: -29 %, checkpointing not published)",
    "torchtune README: Llama 3.1 8B LoRA, 1x RTX A6000: 4,699 tokens/s (held, outside: -56 %, configuration not published)",
    "torchtune README: Llama 3.1 8B QLoRA, 1x RTX 4090: 2,413 tokens/s (held, -15 %)",
    "torchtune README: Llama 3.1 70B full, 8x A100, CPU offload: 1,568 tokens/s (held, outside: +69 %, CPU optimizer step not modelled)",
    "torchtune README: Llama 3.1 70B LoRA, 8x A100: 3,497 tokens/s (fitted: MFU of HBM GPUs)",
    "torchtune README: Llama 3.1 405B QLoRA, 8x A100: 653 tokens/s (held, -13 %)",
];
/// Unsloth README (Dec 2024): the longest QLoRA context (rank 32, all linear layers, batch 1)
/// that fills a GPU of the size given, Unsloth column.
const UNSLOTH_MEMORY: [&str; 9] = [
    "Unsloth README: Llama 3.1 8B QLoRA fills 8 GB at 2,972 tokens (held, -4 %)",
    "Unsloth README: Llama 3.1 8B QLoRA fills 12 GB at 21,848 tokens (held, -2 %)",
    "Unsloth README: Llama 3.1 8B QLoRA fills 16 GB at 40,724 tokens (held, -2 %)",
    "Unsloth README: Llama 3.1 8B QLoRA fills 24 GB at 78,475 tokens (held, -1 %)",
    "Unsloth README: Llama 3.1 8B QLoRA fills 40 GB at 153,977 tokens (held, -1 %)",
    "Unsloth README: Llama 3.1 8B QLoRA fills 48 GB at 191,728 tokens (held, -1 %)",
    "Unsloth README: Llama 3.1 8B QLoRA fills 80 GB at 342,733 tokens (fitted: Unsloth's per-token working set)",
    "Unsloth README: Llama 3.3 70B QLoRA fills 48 GB at 12,106 tokens (held, -3 %)",
    "Unsloth README: Llama 3.3 70B QLoRA fills 80 GB at 89,389 tokens (held, -1 %)",
];
/// The same table's "Hugging Face + FA2" column (Transformers + PEFT + bitsandbytes).
const HF_MEMORY: [&str; 7] = [
    "Unsloth README, Hugging Face + FA2: Llama 3.1 8B QLoRA fills 12 GB at 932 tokens (held, -7 %)",
    "Unsloth README, Hugging Face + FA2: Llama 3.1 8B QLoRA fills 16 GB at 2,551 tokens (held, -7 %)",
    "Unsloth README, Hugging Face + FA2: Llama 3.1 8B QLoRA fills 24 GB at 5,789 tokens (held, -7 %)",
    "Unsloth README, Hugging Face + FA2: Llama 3.1 8B QLoRA fills 40 GB at 12,264 tokens (held, -7 %)",
    "Unsloth README, Hugging Face + FA2: Llama 3.1 8B QLoRA fills 48 GB at 15,502 tokens (held, -7 %)",
    "Unsloth README, Hugging Face + FA2: Llama 3.1 8B QLoRA fills 80 GB at 28,454 tokens (held, -7 %)",
    "Unsloth README, Hugging Face + FA2: Llama 3.3 70B QLoRA fills 80 GB at 6,916 tokens (held, -14 %)",
];

/// The basis for `input` under `setup`.
pub(crate) fn training_basis(input: &FitInput, setup: Setup) -> TrainingBasis {
    let id = &input.model.id;
    let seq = input.context_tokens;
    let batch = input.batch;
    let n = setup.dp.max(1);
    let ck = input.gradient_checkpointing;
    // The MFU behind every framework's speed is calibrated on torchtune's rows.
    let (mem_rows, speed_rows): (Vec<&str>, Vec<&str>) = match setup.trainer {
        // Axolotl allocates as Transformers + PEFT (its trainer).
        Trainer::HfPeft | Trainer::Axolotl => (HF_MEMORY.to_vec(), Vec::new()),
        Trainer::Unsloth => (UNSLOTH_MEMORY.to_vec(), Vec::new()),
        Trainer::Torchtune => (TORCHTUNE_MEMORY.to_vec(), TORCHTUNE_SPEED.to_vec()),
        // torchtune's multi-GPU rows are FSDP runs; DeepSpeed's model states are its own
        // estimator's formulas (no DeepSpeed measurement is held).
        Trainer::Fsdp => (TORCHTUNE_MEMORY[5..].to_vec(), TORCHTUNE_SPEED[5..].to_vec()),
        Trainer::DeepSpeed => (Vec::new(), Vec::new()),
    };
    let gc = |hf: &str| if ck { hf.to_owned() } else { String::new() };
    let one_step = "and print torch.cuda.max_memory_allocated() / 2**30 after the second optimizer step";
    let measure_memory = match setup.trainer {
        Trainer::HfPeft => format!(
            "accelerate estimate-memory {id} --library_name transformers --dtypes bfloat16 float32 (weights, gradients \
             and Adam states; no activations), then a two-step run: accelerate launch --num_processes {n} train.py \
             --model {id} --max_steps 2 --per_device_train_batch_size {batch} --max_seq_length {seq}{} {one_step}",
            gc(" --gradient_checkpointing")
        ),
        Trainer::Axolotl => format!(
            "axolotl train config.yml with base_model: {id}, micro_batch_size: {batch}, sequence_len: {seq}, max_steps: 2{} \
             (it logs the peak allocated GPU memory), or accelerate estimate-memory {id} for the model states",
            if ck { ", gradient_checkpointing: true" } else { "" }
        ),
        Trainer::Unsloth => format!(
            "FastLanguageModel.from_pretrained(\"{id}\", max_seq_length={seq}, load_in_4bit={}), SFTTrainer with \
             per_device_train_batch_size={batch}, max_steps=2, then print torch.cuda.max_memory_reserved() / 2**30 \
             (the \"Peak reserved memory\" line of Unsloth's notebooks)",
            if input.mode == Mode::Qlora { "True" } else { "False" }
        ),
        Trainer::Torchtune => format!(
            "tune run {}{} --config <{id} config> batch_size={batch} tokenizer.max_seq_len={seq} max_steps_per_epoch=2 \
             enable_activation_checkpointing={} log_peak_memory_stats=True (logs peak_memory_alloc, \
             peak_memory_reserved)",
            if n > 1 { format!("--nproc_per_node {n} ") } else { String::new() },
            match (input.mode, n > 1) {
                (Mode::FullFineTune, false) => "full_finetune_single_device",
                (Mode::FullFineTune, true) => "full_finetune_distributed",
                (_, false) => "lora_finetune_single_device",
                (_, true) => "lora_finetune_distributed",
            },
            if ck { "True" } else { "False" }
        ),
        Trainer::DeepSpeed => {
            let stage = match setup.sharding {
                Sharding::Zero(s) => s,
                _ => 3,
            };
            let est = if stage == 3 {
                format!(
                    "python -c \"from transformers import AutoModelForCausalLM; from deepspeed.runtime.zero.stage3 import \
                     estimate_zero3_model_states_mem_needs_all_live as e; e(AutoModelForCausalLM.from_pretrained('{id}'), \
                     num_gpus_per_node={n}, num_nodes=1)\""
                )
            } else {
                format!(
                    "python -c \"from transformers import AutoModelForCausalLM; from deepspeed.runtime.zero.stage_1_and_2 \
                     import estimate_zero2_model_states_mem_needs_all_live as e; \
                     e(AutoModelForCausalLM.from_pretrained('{id}'), num_gpus_per_node={n}, num_nodes=1)\""
                )
            };
            format!(
                "{est} (model states per GPU and CPU, offload or not), then deepspeed --num_gpus {n} train.py --deepspeed \
                 ds_zero{stage}{}.json --max_steps 2 --per_device_train_batch_size {batch} {one_step}",
                if setup.offload { "_offload" } else { "" }
            )
        }
        Trainer::Fsdp => format!(
            "accelerate launch --use_fsdp --fsdp_sharding_strategy FULL_SHARD{} --num_processes {n} train.py --model {id} \
             --max_steps 2 --per_device_train_batch_size {batch} --max_seq_length {seq} {one_step}",
            if setup.offload { " --fsdp_offload_params true" } else { "" }
        ),
    };
    let measure_speed = match setup.trainer {
        Trainer::Torchtune => "the same tune run: tokens_per_second_per_gpu in its log (times the GPUs)".to_owned(),
        Trainer::Unsloth => {
            "the same run: trainer_stats.metrics['train_runtime'] over the tokens of its steps".to_owned()
        }
        _ => format!(
            "the same run over 20+ steps: the Trainer's train_runtime and train_samples_per_second x {seq} tokens \
             (tokens/s over all GPUs)"
        ),
    };
    TrainingBasis {
        memory_band_pct: (!mem_rows.is_empty()).then_some(MEMORY_BAND_PCT),
        memory_calibrated_to: mem_rows.into_iter().map(str::to_owned).collect(),
        speed_band_pct: (!speed_rows.is_empty()).then_some(SPEED_BAND_PCT),
        speed_calibrated_to: speed_rows.into_iter().map(str::to_owned).collect(),
        measure_memory,
        measure_speed,
    }
}
