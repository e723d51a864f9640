//! NVML readings during the probe (power, temperature, clocks, clock event reasons, PCIe link),
//! taken on their own thread and matched to devices by UUID (CUDA and NVML order differ).
//!
//! Every metric is optional: an unsupported reading is `None`, never a failure. Without a
//! driver NVML does not load and no samples are taken.

use super::checks::clock_event_names;
use super::{LoadSample, Summary, SustainedSummary};
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::enums::device::SampleValue;
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::{Device, Nvml};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `NVML_FI_DEV_POWER_INSTANT` (nvml.h): instant board power, mW.
const FIELD_POWER_INSTANT: u32 = 186;

/// Samples every device whose UUID is known, every `interval`, until `stop`; returns the samples
/// per device index.
pub(super) fn spawn(
    uuids: Arc<Mutex<Vec<Option<String>>>>,
    stop: Arc<AtomicBool>,
    clock: Instant,
    interval: Duration,
) -> JoinHandle<Vec<Vec<LoadSample>>> {
    let body = move || {
        let count = uuids.lock().unwrap_or_else(PoisonError::into_inner).len();
        let mut out = vec![Vec::new(); count];
        let Ok(nvml) = Nvml::init() else { return out };
        let mut next = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let known = uuids.lock().unwrap_or_else(PoisonError::into_inner).clone();
            let t_seconds = clock.elapsed().as_secs_f64();
            for (i, uuid) in known.iter().enumerate() {
                if let Some(dev) = uuid.as_deref().and_then(|u| nvml.device_by_uuid(u).ok()) {
                    out[i].push(read(&dev, t_seconds));
                }
            }
            next += interval;
            let now = Instant::now();
            if next > now {
                std::thread::sleep(next - now);
            } else {
                next = now;
            }
        }
        out
    };
    // A thread that cannot start just means no samples.
    std::thread::Builder::new()
        .name("kraftwerk-probe-nvml".to_owned())
        .spawn(body)
        .unwrap_or_else(|_| std::thread::spawn(Vec::new))
}

fn read(dev: &Device<'_>, t_seconds: f64) -> LoadSample {
    let power_instant_w = dev
        .field_values_for(&[FieldId(FIELD_POWER_INSTANT)])
        .ok()
        .and_then(|v| v.into_iter().next())
        .and_then(Result::ok)
        .and_then(|s| s.value.ok())
        .map(|v| match v {
            SampleValue::F64(x) => x,
            SampleValue::U32(x) => f64::from(x),
            SampleValue::U64(x) => x as f64,
            SampleValue::I64(x) => x as f64,
        })
        .map(|mw| mw / 1000.0);
    LoadSample {
        t_seconds,
        power_w: dev.power_usage().ok().map(|mw| f64::from(mw) / 1000.0),
        power_instant_w,
        power_limit_w: dev.enforced_power_limit().ok().map(|mw| f64::from(mw) / 1000.0),
        power_limit_max_w: dev.power_management_limit_constraints().ok().map(|c| f64::from(c.max_limit) / 1000.0),
        temperature_c: dev.temperature(TemperatureSensor::Gpu).ok().map(f64::from),
        sm_clock_mhz: dev.clock_info(Clock::SM).ok().map(f64::from),
        clock_event_reasons: dev.current_throttle_reasons().ok().map(|r| r.bits()),
        pcie_gen: dev.current_pcie_link_gen().ok(),
        pcie_width: dev.current_pcie_link_width().ok(),
    }
}

/// Fills the NVML part of a sustained summary from the samples taken during the load.
pub(super) fn summarize(s: &mut SustainedSummary, samples: Vec<LoadSample>) {
    let col = |f: fn(&LoadSample) -> Option<f64>| -> Option<Summary> {
        Summary::of(&samples.iter().filter_map(f).collect::<Vec<_>>())
    };
    s.power_w = col(|x| x.power_w);
    s.power_instant_w = col(|x| x.power_instant_w);
    s.power_limit_w = samples.iter().rev().find_map(|x| x.power_limit_w);
    s.power_limit_max_w = samples.iter().rev().find_map(|x| x.power_limit_max_w);
    s.temperature_c = col(|x| x.temperature_c);
    s.sm_clock_mhz = col(|x| x.sm_clock_mhz);
    s.clock_event_reasons = samples.iter().filter_map(|x| x.clock_event_reasons).fold(0, |a, b| a | b);
    s.clock_event_names = clock_event_names(s.clock_event_reasons).into_iter().map(str::to_owned).collect();
    s.pcie_gen_max = samples.iter().filter_map(|x| x.pcie_gen).max();
    s.pcie_width_max = samples.iter().filter_map(|x| x.pcie_width).max();
    s.samples = samples;
}
