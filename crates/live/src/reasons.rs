//! Clock event reasons (formerly "throttle reasons"): why the GPU runs below its maximum clock.
//!
//! NVML reports them as a bit mask (`nvmlDeviceGetCurrentClocksEventReasons`, constants
//! `nvmlClocksEventReason*` in `nvml.h`); `nvidia-smi -q` prints them under "Clocks Event
//! Reasons" and `nvidia-smi --query-gpu=clocks_event_reasons.active` as hex. Decoding here is a
//! pure function of the bits, so recordings decode the same way as live readings.
//!
//! Classification follows DCGM's failure mask (DCGM diagnostics,
//! <https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html>):
//! HW slowdown (0x8), SW thermal (0x20), HW thermal (0x40) and HW power brake (0x80) are faults;
//! SW power cap (0x4) at full load is normal (the GPU holds its power limit).

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether a clock event reason means something is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonClass {
    /// Expected in normal operation (idle, power cap under load, application clocks, sync boost).
    Normal,
    /// A hardware or thermal slowdown: fails validation (DCGM's failure mask).
    Fault,
    /// A bit this version of Kraftwerk does not know.
    Unknown,
}

/// One decoded clock event reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockEventReason {
    /// The bit in NVML's mask (`nvmlClocksEventReason*`).
    pub bit: u64,
    /// NVML constant name without prefix, upper snake case (`SW_POWER_CAP`).
    pub name: &'static str,
    /// Words for people, as `nvidia-smi -q` prints them (`SW Power Cap`).
    pub label: &'static str,
    /// `nvidia-smi --query-gpu` field suffix (`clocks_event_reasons.sw_power_cap`).
    pub smi_field: &'static str,
    /// Fault or normal.
    pub class: ReasonClass,
    /// One sentence: what it means.
    pub meaning: &'static str,
}

/// Every reason NVML defines (nvml.h, driver 580), in bit order.
pub(crate) const KNOWN_REASONS: &[ClockEventReason] = &[
    ClockEventReason {
        bit: 0x1,
        name: "GPU_IDLE",
        label: "Idle",
        smi_field: "clocks_event_reasons.gpu_idle",
        class: ReasonClass::Normal,
        meaning: "nothing is running on the GPU, so clocks are low",
    },
    ClockEventReason {
        bit: 0x2,
        name: "APPLICATIONS_CLOCKS_SETTING",
        label: "Applications Clocks Setting",
        smi_field: "clocks_event_reasons.applications_clocks_setting",
        class: ReasonClass::Normal,
        meaning: "clocks are held at the application clock setting",
    },
    ClockEventReason {
        bit: 0x4,
        name: "SW_POWER_CAP",
        label: "SW Power Cap",
        smi_field: "clocks_event_reasons.sw_power_cap",
        class: ReasonClass::Normal,
        meaning: "the power limit holds clocks down; normal at full load",
    },
    ClockEventReason {
        bit: 0x8,
        name: "HW_SLOWDOWN",
        label: "HW Slowdown",
        smi_field: "clocks_event_reasons.hw_slowdown",
        class: ReasonClass::Fault,
        meaning: "hardware slowdown (temperature, power brake or power supply signal)",
    },
    ClockEventReason {
        bit: 0x10,
        name: "SYNC_BOOST",
        label: "Sync Boost",
        smi_field: "clocks_event_reasons.sync_boost",
        class: ReasonClass::Normal,
        meaning: "clocks are synchronised with other GPUs in a sync-boost group",
    },
    ClockEventReason {
        bit: 0x20,
        name: "SW_THERMAL_SLOWDOWN",
        label: "SW Thermal Slowdown",
        smi_field: "clocks_event_reasons.sw_thermal_slowdown",
        class: ReasonClass::Fault,
        meaning: "the driver slows clocks because the GPU or memory is too hot",
    },
    ClockEventReason {
        bit: 0x40,
        name: "HW_THERMAL_SLOWDOWN",
        label: "HW Thermal Slowdown",
        smi_field: "clocks_event_reasons.hw_thermal_slowdown",
        class: ReasonClass::Fault,
        meaning: "the hardware slows clocks because the GPU is too hot",
    },
    ClockEventReason {
        bit: 0x80,
        name: "HW_POWER_BRAKE_SLOWDOWN",
        label: "HW Power Brake Slowdown",
        smi_field: "clocks_event_reasons.hw_power_brake_slowdown",
        class: ReasonClass::Fault,
        meaning: "an external power brake signal (e.g. the power supply) slows the GPU",
    },
    ClockEventReason {
        bit: 0x100,
        name: "DISPLAY_CLOCK_SETTING",
        label: "Display Clock Setting",
        smi_field: "clocks_event_reasons.display_clock_setting",
        class: ReasonClass::Normal,
        meaning: "clocks are held by the display clock setting",
    },
];

/// Bits DCGM treats as failures: HW slowdown, SW thermal, HW thermal, HW power brake.
pub const FAULT_MASK: u64 = 0x8 | 0x20 | 0x40 | 0x80;

/// A clock event reason mask as NVML reports it (all bits kept, known or not).
///
/// Serialized as the plain number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClockEventReasons(pub u64);

impl ClockEventReasons {
    /// The raw mask.
    pub fn bits(self) -> u64 {
        self.0
    }

    /// The reasons whose bits are set, in bit order; unknown bits come last as
    /// [`ReasonClass::Unknown`] entries named `UNKNOWN`.
    pub fn reasons(self) -> Vec<ClockEventReason> {
        let mut out: Vec<ClockEventReason> = KNOWN_REASONS.iter().filter(|r| self.0 & r.bit != 0).copied().collect();
        let known: u64 = KNOWN_REASONS.iter().map(|r| r.bit).fold(0, |a, b| a | b);
        let mut unknown = self.0 & !known;
        while unknown != 0 {
            let bit = unknown & unknown.wrapping_neg();
            out.push(ClockEventReason {
                bit,
                name: "UNKNOWN",
                label: "Unknown",
                smi_field: "",
                class: ReasonClass::Unknown,
                meaning: "a reason bit this version of Kraftwerk does not know",
            });
            unknown &= !bit;
        }
        out
    }

    /// Names of the set reasons (`["SW_POWER_CAP"]`); unknown bits as `UNKNOWN_0x…`.
    pub fn names(self) -> Vec<String> {
        self.reasons()
            .iter()
            .map(|r| if r.class == ReasonClass::Unknown { format!("UNKNOWN_{:#x}", r.bit) } else { r.name.to_owned() })
            .collect()
    }

    /// The set reasons that are faults (HW slowdown, SW/HW thermal, HW power brake).
    pub fn faults(self) -> Vec<ClockEventReason> {
        self.reasons().into_iter().filter(|r| r.class == ReasonClass::Fault).collect()
    }

    /// True when any fault bit is set ([`FAULT_MASK`]).
    pub fn has_fault(self) -> bool {
        self.0 & FAULT_MASK != 0
    }

    /// True when no bit is set: the GPU runs at full clock for its current state.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The worst class among the set bits: `Fault` > `Unknown` > `Normal`; `Normal` when empty.
    pub fn worst_class(self) -> ReasonClass {
        if self.has_fault() {
            ReasonClass::Fault
        } else if self.reasons().iter().any(|r| r.class == ReasonClass::Unknown) {
            ReasonClass::Unknown
        } else {
            ReasonClass::Normal
        }
    }

    /// Hex as `nvidia-smi --query-gpu=clocks_event_reasons.active` prints it
    /// (`0x0000000000000004`).
    pub fn smi_hex(self) -> String {
        format!("{:#018x}", self.0)
    }
}

impl fmt::Display for ClockEventReasons {
    /// `0x4 (SW Power Cap)`, `0x0 (none)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return write!(f, "0x0 (none)");
        }
        let labels: Vec<String> = self
            .reasons()
            .iter()
            .map(|r| {
                let fault = if r.class == ReasonClass::Fault { " [fault]" } else { "" };
                if r.class == ReasonClass::Unknown {
                    format!("unknown {:#x}", r.bit)
                } else {
                    format!("{}{fault}", r.label)
                }
            })
            .collect();
        write!(f, "{:#x} ({})", self.0, labels.join(", "))
    }
}
