//! Times each NVML call Kraftwerk's sampler makes, per GPU, and one whole sample.
//!
//! ```text
//! cargo run --release -p kraftwerk-live --example nvml_call_timing [ROUNDS [COLD [GAP]]]
//! ```
//!
//! Prints the median time of each call over ROUNDS back-to-back calls (default 200, NVML's
//! caches warm) and over COLD calls GAP milliseconds apart (default 8 calls 250 ms apart, like a
//! sampler), and which calls NVML does not support. Without a driver it says so and exits 0.

use kraftwerk_live::nvml::{self, NvmlState, SampleOptions};
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::{Clock, EccCounter, MemoryError, PcieUtilCounter, TemperatureSensor};
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::sys_exports::field_id::{
    NVML_FI_DEV_PCIE_COUNT_RX_BYTES, NVML_FI_DEV_PCIE_COUNT_TX_BYTES, NVML_FI_DEV_POWER_INSTANT,
};
use std::time::{Duration, Instant};

/// A named NVML call that returns whether it succeeded.
type Call<'a> = (&'a str, Box<dyn Fn() -> bool + 'a>);

fn median_us(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let cold_rounds: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    let gap = Duration::from_millis(std::env::args().nth(3).and_then(|a| a.parse().ok()).unwrap_or(250));
    let mut gpus = match nvml::open() {
        NvmlState::Ready(g) => g,
        other => {
            println!("{}", other.message());
            return;
        }
    };
    // Whole samples through Kraftwerk: back to back (NVML's caches warm) and spaced like a
    // sampler (caches cold), fast tier only and with the slow tier.
    let fast = SampleOptions { slow_refresh: Duration::from_hours(1), ..SampleOptions::default() };
    let with_slow = SampleOptions { slow_refresh: Duration::ZERO, ..SampleOptions::default() };
    for gpu in 0..gpus.gpus().len() {
        for (label, opts) in [("fast tier", fast), ("fast + slow tier", with_slow)] {
            let warm: Vec<f64> =
                (0..rounds).filter_map(|_| gpus.sample_gpu(gpu, opts).read_us.map(|us| us as f64)).collect();
            let cold: Vec<f64> = (0..cold_rounds)
                .filter_map(|_| {
                    std::thread::sleep(gap);
                    gpus.sample_gpu(gpu, opts).read_us.map(|us| us as f64)
                })
                .collect();
            println!(
                "GPU {gpu}: {label:<16} back to back median {:>8.1} µs, max {:>8.1} µs | {} ms apart median {:>8.1} µs, max {:>8.1} µs",
                median_us(warm.clone()),
                warm.iter().copied().fold(0.0, f64::max),
                gap.as_millis(),
                median_us(cold.clone()),
                cold.iter().copied().fold(0.0, f64::max),
            );
        }
    }

    // Each call on its own, GPU 0.
    let Ok(nvml) = Nvml::init() else { return };
    let Ok(d) = nvml.device_by_index(0) else { return };
    let power_field = [FieldId(NVML_FI_DEV_POWER_INSTANT)];
    let pcie_fields = [FieldId(NVML_FI_DEV_PCIE_COUNT_TX_BYTES), FieldId(NVML_FI_DEV_PCIE_COUNT_RX_BYTES)];
    let all_ok = |v: Result<Vec<Result<nvml_wrapper::struct_wrappers::device::FieldValueSample, _>>, _>| {
        v.is_ok_and(|v| v.iter().all(|f| f.as_ref().is_ok_and(|f| f.value.is_ok())))
    };
    let calls: Vec<Call<'_>> = vec![
        ("memory_info", Box::new(|| d.memory_info().is_ok())),
        ("temperature", Box::new(|| d.temperature(TemperatureSensor::Gpu).is_ok())),
        ("power_usage", Box::new(|| d.power_usage().is_ok())),
        ("field_values(power instant)", Box::new(|| all_ok(d.field_values_for(&power_field)))),
        ("field_values(pcie tx, rx bytes)", Box::new(|| all_ok(d.field_values_for(&pcie_fields)))),
        ("total_energy_consumption", Box::new(|| d.total_energy_consumption().is_ok())),
        ("clock_info(SM)", Box::new(|| d.clock_info(Clock::SM).is_ok())),
        ("clock_info(Graphics)", Box::new(|| d.clock_info(Clock::Graphics).is_ok())),
        ("clock_info(Memory)", Box::new(|| d.clock_info(Clock::Memory).is_ok())),
        ("utilization_rates", Box::new(|| d.utilization_rates().is_ok())),
        ("performance_state", Box::new(|| d.performance_state().is_ok())),
        ("current_pcie_link_gen", Box::new(|| d.current_pcie_link_gen().is_ok())),
        ("current_pcie_link_width", Box::new(|| d.current_pcie_link_width().is_ok())),
        ("pcie_replay_counter", Box::new(|| d.pcie_replay_counter().is_ok())),
        (
            "total_ecc_errors(corrected, volatile)",
            Box::new(|| d.total_ecc_errors(MemoryError::Corrected, EccCounter::Volatile).is_ok()),
        ),
        ("current_throttle_reasons_strict", Box::new(|| d.current_throttle_reasons_strict().is_ok())),
    ];
    println!("GPU 0, each call: median back to back | median {} ms apart", gap.as_millis());
    for (name, call) in &calls {
        let mut ok = true;
        let mut time = |pause: bool| {
            if pause {
                std::thread::sleep(gap);
            }
            let t = Instant::now();
            ok &= call();
            t.elapsed().as_secs_f64() * 1e6
        };
        let warm: Vec<f64> = (0..rounds).map(|_| time(false)).collect();
        let cold: Vec<f64> = (0..cold_rounds).map(|_| time(true)).collect();
        let note = if ok { "" } else { "  (failed or unsupported)" };
        println!("  {name:<48} {:>8.1} µs | {:>8.1} µs{note}", median_us(warm), median_us(cold));
    }
    // The blocking throughput call, a few times only.
    let t = Instant::now();
    let ok = d.pcie_throughput(PcieUtilCounter::Send).is_ok();
    println!("  {:<48} {:>8.1} µs (ok={ok}, once)", "pcie_throughput(Send)", t.elapsed().as_secs_f64() * 1e6);
}
