//! CPU backend: `matrixmultiply`'s `sgemm` (FP32 accumulate), so the whole probe pipeline
//! (timing, checking, grading, report) runs where there is no GPU, such as CI.
//!
//! Reduced precisions are emulated the way tensor cores compute them: the inputs arrive already
//! rounded to the precision's input format, products are accumulated in `f32`, and the output is
//! rounded to the precision's output format (FP16 → FP16, BF16 and FP8 → BF16).

use super::numeric::round_to;
use super::{DeviceFactory, DeviceInfo, GemmDevice, GemmPrecision, ProbeError};
use std::time::Instant;

/// Largest matrix size the CPU backend uses: a 512³ GEMM takes a few milliseconds to tens of
/// milliseconds on one core, which keeps cancel prompt and tests quick.
pub(crate) const MAX_SIZE: usize = 512;

/// The CPU as a probe device (one device, index 0).
#[derive(Debug, Default)]
pub struct CpuDevice {
    precision: Option<GemmPrecision>,
    n: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

impl CpuDevice {
    /// A CPU device with nothing loaded.
    pub fn new() -> Self {
        Self::default()
    }
}

/// A factory for [`run_devices`](super::run_devices).
pub fn factory() -> DeviceFactory {
    Box::new(|| Ok(Box::new(CpuDevice::new()) as Box<dyn GemmDevice>))
}

impl GemmDevice for CpuDevice {
    fn info(&self) -> DeviceInfo {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        DeviceInfo {
            name: format!("CPU ({threads} threads; matrixmultiply sgemm, reduced precisions emulated)"),
            uuid: None,
            compute_capability: None,
            memory_total_bytes: None,
        }
    }

    fn support(&self, _precision: GemmPrecision) -> Result<(), String> {
        Ok(())
    }

    fn fit_size(&self, requested: usize) -> usize {
        requested.clamp(1, MAX_SIZE)
    }

    fn kernels(&self, _precision: GemmPrecision) -> Vec<&'static str> {
        vec!["matrixmultiply"]
    }

    fn load(&mut self, precision: GemmPrecision, n: usize, a: &[f32], b: &[f32]) -> Result<(), ProbeError> {
        if a.len() != n * n || b.len() != n * n {
            return Err(ProbeError::Invalid(format!("inputs of {} and {} elements for n = {n}", a.len(), b.len())));
        }
        self.precision = Some(precision);
        self.n = n;
        self.a = a.to_vec();
        self.b = b.to_vec();
        self.c = vec![0.0; n * n];
        Ok(())
    }

    fn run(&mut self, _kernel: usize, count: usize) -> Result<Vec<f64>, ProbeError> {
        let Some(p) = self.precision else {
            return Err(ProbeError::Invalid("run before load".to_owned()));
        };
        let out = p.output_format();
        let mut seconds = Vec::with_capacity(count);
        for _ in 0..count {
            let t = Instant::now();
            sgemm(self.n, &self.a, &self.b, &mut self.c);
            if out != super::numeric::F32 {
                for v in &mut self.c {
                    *v = round_to(*v, out);
                }
            }
            seconds.push(t.elapsed().as_secs_f64());
        }
        Ok(seconds)
    }

    fn output(&mut self) -> Result<Vec<f32>, ProbeError> {
        Ok(self.c.clone())
    }

    fn unload(&mut self) {
        self.precision = None;
        self.a = Vec::new();
        self.b = Vec::new();
        self.c = Vec::new();
    }
}

/// `c = a·b` for row-major `n`×`n` matrices.
///
/// # Panics
/// When a slice is shorter than `n²` (checked before the unsafe call).
fn sgemm(n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    let len = n * n;
    assert!(a.len() >= len && b.len() >= len && c.len() >= len, "sgemm: slices shorter than n²");
    let stride = isize::try_from(n).unwrap_or(isize::MAX);
    #[expect(unsafe_code, reason = "matrixmultiply's sgemm takes raw pointers and strides")]
    // SAFETY: `a`, `b` and `c` hold at least n² elements (asserted above); with row stride `n`
    // and column stride 1 every access (i·n + j, i, j < n) is in bounds; `c` is a unique borrow
    // and does not alias `a` or `b`.
    unsafe {
        matrixmultiply::sgemm(
            n,
            n,
            n,
            1.0,
            a.as_ptr(),
            stride,
            1,
            b.as_ptr(),
            stride,
            1,
            0.0,
            c.as_mut_ptr(),
            stride,
            1,
        );
    }
}
