//! What a training estimate rests on: the published fine-tuning runs the memory and speed
//! models are held to (`tests/all/llm_train.rs`, which prints the whole table), the bands
//! those tests hold them within, and the commands that measure the same figures on the user's
//! machine. Training rows only: no inference measurement is a training basis.

use super::super::inputs::{FitInput, Mode, Trainer};
use super::{Setup, Sharding};
use serde::Serialize;

/// Band the held memory rows are judged in, percent.
pub const MEMORY_BAND_PCT: f64 = 20.0;
/// Band the held throughput rows are judged in, percent.
pub const SPEED_BAND_PCT: f64 = 25.0;

/// The basis of a training estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingBasis {
    /// Published runs the memory figures of this framework are held to.
    pub memory_calibrated_to: Vec<String>,
    /// The band they are held within, percent.
    pub memory_band_pct: Option<f64>,
    /// Published runs the speed figures are held to.
    pub speed_calibrated_to: Vec<String>,
    /// The band, percent; `None` where no published run of this framework holds the speed.
    pub speed_band_pct: Option<f64>,
    /// The commands that measure peak memory for this run on the user's machine.
    pub measure_memory: String,
    /// The command that measures tokens/s.
    pub measure_speed: String,
}

const TORCHTUNE_ROWS: &str = "torchtune README (Llama 3.1 8B/70B/405B; full, LoRA, QLoRA on 1x RTX 4090, 1x RTX A6000, 8x A100; batch 2, packed 2048): peak memory per GPU and tokens/s";
const UNSLOTH_ROWS: &str = "Unsloth README (Dec 2024): longest QLoRA context (Llama 3.1 8B and Llama 3.3 70B, rank 32, all linear layers, batch 1) on 8-80 GB, Unsloth and Hugging Face + FA2";

/// The basis for `input` under `setup`.
pub fn training_basis(input: &FitInput, setup: &Setup) -> TrainingBasis {
    let id = &input.model.id;
    let seq = input.context_tokens;
    let batch = input.batch;
    let n = setup.dp.max(1);
    let ck = input.gradient_checkpointing;
    let (mem_rows, speed_rows): (Vec<&str>, Vec<&str>) = match setup.trainer {
        Trainer::HfPeft | Trainer::Axolotl => (
            vec![
                UNSLOTH_ROWS,
                "held: the Hugging Face + FA2 column (Transformers + PEFT + bitsandbytes, gradient checkpointing); Axolotl allocates as Transformers + PEFT (its trainer)",
            ],
            vec![],
        ),
        Trainer::Unsloth => (vec![UNSLOTH_ROWS, "fitted on the 8B 80 GB row; the others held"], vec![]),
        Trainer::Torchtune => (vec![TORCHTUNE_ROWS], vec![TORCHTUNE_ROWS]),
        Trainer::DeepSpeed | Trainer::Fsdp => (
            vec![
                TORCHTUNE_ROWS,
                "held: the FSDP rows (70B full with CPU offload, 70B LoRA, 405B QLoRA on 8x A100); DeepSpeed's model states are its own estimator's formulas",
            ],
            vec![TORCHTUNE_ROWS],
        ),
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
        memory_calibrated_to: mem_rows.into_iter().map(str::to_owned).collect(),
        memory_band_pct: Some(MEMORY_BAND_PCT),
        speed_band_pct: (!speed_rows.is_empty()).then_some(SPEED_BAND_PCT),
        speed_calibrated_to: speed_rows.into_iter().map(str::to_owned).collect(),
        measure_memory,
        measure_speed,
    }
}
