//! The number formats of the probe: [`GemmPrecision`] (input, accumulate and output types of a
//! GEMM) and the binary floating-point formats ([`NumberFormat`]) its checks round to. A leaf
//! module: the grading thresholds and the numeric checks both key on these types without
//! importing the probe or each other.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A binary floating-point format, described by what rounding needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberFormat {
    /// Explicit mantissa bits (`f32` 23, `bf16` 7, `f16` 10, TF32 10, FP8 E4M3 3).
    pub mantissa_bits: i32,
    /// Exponent of the smallest normal number (`f32` −126, `f16` −14, E4M3 −6).
    pub min_normal_exponent: i32,
    /// Largest finite value; rounding saturates there.
    pub max_finite: f64,
}

/// IEEE 754 binary32.
pub const F32: NumberFormat =
    NumberFormat { mantissa_bits: 23, min_normal_exponent: -126, max_finite: f32::MAX as f64 };
/// NVIDIA TF32: the `f32` exponent with a 10-bit mantissa (stored in 32 bits).
pub const TF32: NumberFormat =
    NumberFormat { mantissa_bits: 10, min_normal_exponent: -126, max_finite: 3.401_162_5e38 };
/// IEEE 754 binary16.
pub const F16: NumberFormat = NumberFormat { mantissa_bits: 10, min_normal_exponent: -14, max_finite: 65_504.0 };
/// bfloat16.
pub const BF16: NumberFormat = NumberFormat { mantissa_bits: 7, min_normal_exponent: -126, max_finite: 3.389_531_4e38 };
/// OCP FP8 E4M3 ("FN": no infinities, largest finite 448).
pub const E4M3: NumberFormat = NumberFormat { mantissa_bits: 3, min_normal_exponent: -6, max_finite: 448.0 };

/// A GEMM precision: input type, accumulate type, output type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GemmPrecision {
    /// FP32 in and out, FP32 (non-tensor) math: cuBLAS `sgemm`.
    Fp32,
    /// FP32 in and out, inputs rounded to TF32 on tensor cores, FP32 accumulate.
    Tf32,
    /// FP16 in and out, FP32 accumulate.
    Fp16,
    /// BF16 in and out, FP32 accumulate.
    Bf16,
    /// FP8 E4M3 in, BF16 out, FP32 accumulate (compute capability 8.9+, cuBLASLt, TN layout).
    Fp8,
}

impl GemmPrecision {
    /// Every precision, in report order.
    pub const ALL: [Self; 5] = [Self::Fp32, Self::Tf32, Self::Fp16, Self::Bf16, Self::Fp8];

    /// Lower-case name (`bf16`), as on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Tf32 => "tf32",
            Self::Fp16 => "fp16",
            Self::Bf16 => "bf16",
            Self::Fp8 => "fp8",
        }
    }

    /// The format inputs are rounded to before the device sees them.
    pub(crate) fn input_format(self) -> NumberFormat {
        match self {
            Self::Fp32 => F32,
            Self::Tf32 => TF32,
            Self::Fp16 => F16,
            Self::Bf16 => BF16,
            Self::Fp8 => E4M3,
        }
    }

    /// The format of the output matrix.
    pub(crate) fn output_format(self) -> NumberFormat {
        match self {
            Self::Fp32 | Self::Tf32 => F32,
            Self::Fp16 => F16,
            Self::Bf16 | Self::Fp8 => BF16,
        }
    }

    /// Allowed accumulation error over `Σ|a·b|` (on top of one output ulp).
    ///
    /// Measured maxima on an H200 at n = 4096 and 8192 (`tests/fixtures/probe-h200*.json`,
    /// including output rounding): fp32 1.3e-7, tf32 1.9e-5 (inputs not pre-rounded), fp16
    /// 1.5e-5, bf16 1.2e-4, fp8 1.2e-4. The tolerances leave 10–100× headroom; FP8 gets more
    /// because Hopper accumulates FP8 products with fewer than 32 bits.
    pub(crate) fn accumulation_tolerance(self) -> f64 {
        match self {
            Self::Fp32 => 1e-5,
            Self::Tf32 | Self::Fp16 | Self::Bf16 => 1e-4,
            Self::Fp8 => 1e-3,
        }
    }

    /// Lowest CUDA compute capability with tensor-core (or, for fp32, any) support:
    /// TF32 and BF16 arrived with Ampere (8.0), FP8 with Ada (8.9), FP16 tensor cores with Volta
    /// (7.0) (CUDA C++ Programming Guide, "Compute Capabilities").
    pub fn min_compute_capability(self) -> (u32, u32) {
        match self {
            Self::Fp32 => (0, 0),
            Self::Fp16 => (7, 0),
            Self::Tf32 | Self::Bf16 => (8, 0),
            Self::Fp8 => (8, 9),
        }
    }

    /// Bytes per input element on the device.
    pub fn input_bytes(self) -> usize {
        match self {
            Self::Fp32 | Self::Tf32 => 4,
            Self::Fp16 | Self::Bf16 => 2,
            Self::Fp8 => 1,
        }
    }

    /// Bytes per output element on the device.
    pub fn output_bytes(self) -> usize {
        match self {
            Self::Fp32 | Self::Tf32 => 4,
            Self::Fp16 | Self::Bf16 | Self::Fp8 => 2,
        }
    }
}

impl fmt::Display for GemmPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
