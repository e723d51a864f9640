//! Number formats, random inputs and the three correctness checks of the probe.
//!
//! Every check compares against the *same rounded inputs* the device multiplied: the inputs are
//! generated in `f32`, rounded to the precision's input format here (round to nearest, ties to
//! even, like the hardware conversion), and the device receives exactly those values. The
//! reference then differs from the device only by accumulation order/precision and by the
//! rounding of the output, which is what the tolerances bound.
//!
//! 1. **Known answer** ([`known_answer`]): sampled outputs against an `f64` dot product. The error
//!    is measured over `Σ|a·b|` (the scale of the dot product's terms, immune to cancellation), as
//!    our H200 measurements (`tests/fixtures/probe-h200*.json`) do.
//! 2. **Whole matrix** ([`freivalds`]): Freivalds' check `C·x = A·(B·x)` with a random ±1 vector,
//!    against a rigorous bound built from `|C|·1` and `|A|·(|B|·1)`. It sees every output element
//!    (the sampled check sees 256), but only errors well above rounding.
//! 3. **Run to run** ([`run_to_run`]): two outputs of the same kernel on the same inputs compared
//!    element by element (cuBLAS is bitwise reproducible on one GPU for a given kernel, cuBLAS
//!    documentation "Results reproducibility"); this catches transient faults that a
//!    known-answer check on samples would miss.

#![allow(clippy::many_single_char_names, reason = "matrix algebra: a, b, c, n, i, j, k, x are the standard names")]

use super::precision::GemmPrecision;
pub use super::precision::{BF16, E4M3, F16, F32, NumberFormat, TF32};

/// Rounds `x` to `format` (to nearest, ties to even, saturating at `max_finite`; NaN stays NaN).
pub(crate) fn round_to(x: f32, format: NumberFormat) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let magnitude = f64::from(x.abs());
    let biased = ((x.to_bits() >> 23) & 0xff).cast_signed();
    let exponent = (biased - 127).max(format.min_normal_exponent);
    // Division and multiplication by a power of two are exact in f64 for every f32 input.
    let quantum = 2f64.powi(exponent - format.mantissa_bits);
    let rounded = ((magnitude / quantum).round_ties_even() * quantum).min(format.max_finite);
    // `rounded` is representable in `format`, hence in f32: the cast is exact.
    (rounded as f32).copysign(x)
}

/// bfloat16 bits of a value already representable in bfloat16 (see [`round_to`]).
pub fn bf16_bits(x: f32) -> u16 {
    (x.to_bits() >> 16) as u16
}

/// The value of bfloat16 bits.
pub fn bf16_value(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// IEEE binary16 bits of a value already representable in binary16 (see [`round_to`]).
pub fn f16_bits(x: f32) -> u16 {
    let sign = ((x.to_bits() >> 16) & 0x8000) as u16;
    let a = x.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a < 2f32.powi(-14) {
        // Subnormal: a multiple of 2^-24, exact.
        return sign | (a * 2f32.powi(24)) as u16;
    }
    if a > 65_504.0 {
        return sign | 0x7c00;
    }
    // 2^-14 ≤ a ≤ 65504: the f32 biased exponent is 113..=142, the f16 one 1..=30.
    let exponent = (((a.to_bits() >> 23) & 0xff) + 15 - 127) as u16;
    let mantissa = ((a.to_bits() >> 13) & 0x3ff) as u16;
    sign | (exponent << 10) | mantissa
}

/// The value of IEEE binary16 bits.
pub fn f16_value(bits: u16) -> f32 {
    let sign = if bits & 0x8000 == 0 { 1.0 } else { -1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    let magnitude = match exponent {
        0 => mantissa * 2f32.powi(-24),
        0x1f if mantissa == 0.0 => f32::INFINITY,
        0x1f => f32::NAN,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    };
    sign * magnitude
}

/// FP8 E4M3 bits of a value already representable in E4M3 (see [`round_to`]).
pub fn e4m3_bits(x: f32) -> u8 {
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return sign | 0x7f;
    }
    if a < 2f32.powi(-6) {
        // Subnormal: a multiple of 2^-9, exact.
        return sign | (a * 512.0) as u8;
    }
    if a >= 448.0 {
        return sign | 0x7e;
    }
    // 2^-6 ≤ a < 448: the f32 biased exponent is 121..=135, the E4M3 one 1..=15.
    let exponent = (((a.to_bits() >> 23) & 0xff) + 7 - 127) as u8;
    let mantissa = ((a.to_bits() >> 20) & 0x7) as u8;
    sign | (exponent << 3) | mantissa
}

/// The value of FP8 E4M3 bits.
pub fn e4m3_value(bits: u8) -> f32 {
    let sign = if bits & 0x80 == 0 { 1.0 } else { -1.0 };
    let exponent = i32::from((bits >> 3) & 0xf);
    let mantissa = f32::from(bits & 0x7);
    if exponent == 0xf && bits & 0x7 == 0x7 {
        return f32::NAN;
    }
    let magnitude =
        if exponent == 0 { mantissa * 2f32.powi(-9) } else { (1.0 + mantissa / 8.0) * 2f32.powi(exponent - 7) };
    sign * magnitude
}

/// `SplitMix64` (Steele, Lea, Flood 2014): a small, fast, seedable generator; quality is ample
/// for test inputs and sample positions.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)` with 24 random bits.
    pub(crate) fn next_signed_unit(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32).mul_add(2f32.powi(-23), -1.0)
    }

    /// Uniform index in `0..len` (`len` > 0).
    pub(crate) fn next_index(&mut self, len: usize) -> usize {
        ((u128::from(self.next_u64()) * len as u128) >> 64) as usize
    }
}

/// A row-major `n`×`n` matrix of uniform values in `[-1, 1)`, rounded to `format`.
///
/// Uniform values (not small integers) keep every multiplier bit toggling, which loads the GPU's
/// power like real work; the rounded inputs make the reference exact to `f64` precision.
pub(crate) fn random_matrix(n: usize, seed: u64, format: NumberFormat) -> Vec<f32> {
    let len = n * n;
    let threads = worker_threads(len);
    let chunk = len.div_ceil(threads);
    let mut out = vec![0f32; len];
    std::thread::scope(|s| {
        for (t, part) in out.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                let mut rng = SplitMix64::new(seed ^ (t as u64).wrapping_mul(0xa076_1d64_78bd_642f));
                for v in part {
                    *v = round_to(rng.next_signed_unit(), format);
                }
            });
        }
    });
    out
}

/// Threads worth spawning for `work` elements (1 below a million).
fn worker_threads(work: usize) -> usize {
    if work < 1 << 20 { 1 } else { std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(16) }
}

/// Error allowed for one output, whose exact value is `reference` and whose terms have
/// `sum_abs = Σ|a·b|`: one unit in the last place of the output format plus the precision's
/// accumulation tolerance over `Σ|a·b|` ([`GemmPrecision::accumulation_tolerance`]).
pub(crate) fn allowed_error(precision: GemmPrecision, reference: f64, sum_abs: f64) -> f64 {
    let out = precision.output_format();
    let ulp = 2f64.powi(-out.mantissa_bits);
    let smallest = 2f64.powi(out.min_normal_exponent - out.mantissa_bits);
    ulp * reference.abs() + precision.accumulation_tolerance() * sum_abs + smallest
}

/// Result of the sampled known-answer check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct KnownAnswer {
    /// Outputs compared.
    pub samples: usize,
    /// Largest `|device − reference| / Σ|a·b|` over the samples.
    pub max_err_over_sum_abs: f64,
    /// Largest `|device − reference| / allowed`; above 1 (or NaN) fails.
    pub max_tolerance_ratio: f64,
    /// Non-finite sampled outputs.
    pub nonfinite: usize,
    /// The worst sample: row, column, device value, reference.
    pub worst: Option<(usize, usize, f32, f64)>,
}

/// Compares `samples` pseudo-random outputs of `c = a·b` (all row-major `n`×`n`) with an `f64`
/// reference on the same inputs.
pub(crate) fn known_answer(
    precision: GemmPrecision,
    n: usize,
    a: &[f32],
    b: &[f32],
    c: &[f32],
    samples: usize,
    seed: u64,
) -> KnownAnswer {
    let mut rng = SplitMix64::new(seed);
    let mut result =
        KnownAnswer { samples: 0, max_err_over_sum_abs: 0.0, max_tolerance_ratio: 0.0, nonfinite: 0, worst: None };
    if n == 0 {
        return result;
    }
    for _ in 0..samples {
        let (i, j) = (rng.next_index(n), rng.next_index(n));
        let (mut dot, mut sum_abs) = (0f64, 0f64);
        for k in 0..n {
            let p = f64::from(a[i * n + k]) * f64::from(b[k * n + j]);
            dot += p;
            sum_abs += p.abs();
        }
        let got = c[i * n + j];
        result.samples += 1;
        let err = (f64::from(got) - dot).abs();
        let ratio = if got.is_finite() { err / allowed_error(precision, dot, sum_abs) } else { f64::INFINITY };
        if !got.is_finite() {
            result.nonfinite += 1;
        }
        if sum_abs > 0.0 {
            result.max_err_over_sum_abs = result.max_err_over_sum_abs.max(err / sum_abs);
        }
        if ratio > result.max_tolerance_ratio || result.worst.is_none() {
            result.max_tolerance_ratio = result.max_tolerance_ratio.max(ratio);
            result.worst = Some((i, j, got, dot));
        }
    }
    if result.nonfinite > 0 {
        result.max_err_over_sum_abs = f64::INFINITY;
    }
    result
}

/// Freivalds' whole-matrix check: returns the largest `|C·x − A·(B·x)|_i / bound_i` over rows
/// (above 1, or infinite for non-finite outputs, fails).
///
/// `bound_i = ulp·(|C|·1)_i + tol·(|A|·(|B|·1))_i` with `x ∈ {±1}ⁿ`, which bounds the sum of
/// the per-element allowances of [`allowed_error`] along the row: a rigorous, loose bound that
/// flags any element off by more than roughly `n`× its tolerance.
pub(crate) fn freivalds(precision: GemmPrecision, n: usize, a: &[f32], b: &[f32], c: &[f32], seed: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let mut rng = SplitMix64::new(seed);
    let x: Vec<f64> = (0..n).map(|_| if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 }).collect();
    // y = B·x and yb = |B|·1 (row by row, both row-major reads).
    let (bx, b_abs) = row_products(b, n, &x);
    // z = A·y, zb = |A|·yb.
    let (abx, _) = row_products(a, n, &bx);
    let (_, ab_abs) = row_products_abs(a, n, &b_abs);
    let (cx, c_abs) = row_products(c, n, &x);
    let out = precision.output_format();
    let ulp = 2f64.powi(-out.mantissa_bits);
    let smallest = 2f64.powi(out.min_normal_exponent - out.mantissa_bits) * n as f64;
    let tol = precision.accumulation_tolerance();
    let mut worst = 0f64;
    for i in 0..n {
        if !cx[i].is_finite() {
            return f64::INFINITY;
        }
        let bound = ulp * c_abs[i] + tol * ab_abs[i] + smallest;
        worst = worst.max((cx[i] - abx[i]).abs() / bound);
    }
    worst
}

/// For row-major `m` (`n`×`n`): `(m·v, |m|·1)` in f64.
fn row_products(m: &[f32], n: usize, v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut dot = vec![0f64; n];
    let mut abs = vec![0f64; n];
    par_rows(n, &mut dot, &mut abs, |i| {
        let row = &m[i * n..(i + 1) * n];
        let (mut s, mut sa) = (0f64, 0f64);
        for (&e, &x) in row.iter().zip(v) {
            let e = f64::from(e);
            s += e * x;
            sa += e.abs();
        }
        (s, sa)
    });
    (dot, abs)
}

/// For row-major `m` (`n`×`n`): `(_, |m|·v)` in f64 (`v` non-negative).
fn row_products_abs(m: &[f32], n: usize, v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut unused = vec![0f64; n];
    let mut abs = vec![0f64; n];
    par_rows(n, &mut unused, &mut abs, |i| {
        let row = &m[i * n..(i + 1) * n];
        let sa: f64 = row.iter().zip(v).map(|(&e, &x)| f64::from(e).abs() * x).sum();
        (0.0, sa)
    });
    (unused, abs)
}

/// Fills `first[i], second[i] = f(i)` for every row, on several threads for big matrices.
fn par_rows(n: usize, first: &mut [f64], second: &mut [f64], f: impl Fn(usize) -> (f64, f64) + Sync) {
    let threads = worker_threads(n * n);
    let chunk = n.div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|s| {
        for (t, (fa, fb)) in first.chunks_mut(chunk).zip(second.chunks_mut(chunk)).enumerate() {
            s.spawn(move || {
                for (r, (x, y)) in fa.iter_mut().zip(fb.iter_mut()).enumerate() {
                    (*x, *y) = f(t * chunk + r);
                }
            });
        }
    });
}

/// Result of comparing two outputs of the same kernel on the same inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RunToRun {
    /// Elements compared.
    pub compared: u64,
    /// Elements whose bits differ at all.
    pub bitwise_differing: u64,
    /// Elements that differ by more than the precision's tolerance (a fault).
    pub mismatches: u64,
}

/// Compares `first` and `second` element by element. `typical_sum_abs` estimates `Σ|a·b|` for
/// one output (`n`·mean|a|·mean|b|); a difference beyond [`allowed_error`] with it, or a NaN in
/// one and not the other, is a mismatch.
pub(crate) fn run_to_run(precision: GemmPrecision, first: &[f32], second: &[f32], typical_sum_abs: f64) -> RunToRun {
    let len = first.len().min(second.len());
    let threads = worker_threads(len);
    let chunk = len.div_ceil(threads).max(1);
    let parts: Vec<RunToRun> = std::thread::scope(|s| {
        let handles: Vec<_> = first[..len]
            .chunks(chunk)
            .zip(second[..len].chunks(chunk))
            .map(|(x, y)| {
                s.spawn(move || {
                    let mut r = RunToRun::default();
                    for (&p, &q) in x.iter().zip(y) {
                        r.compared += 1;
                        if p.to_bits() == q.to_bits() {
                            continue;
                        }
                        r.bitwise_differing += 1;
                        let scale = f64::from(p.abs().max(q.abs()));
                        let diff = (f64::from(p) - f64::from(q)).abs();
                        if diff.is_nan() || diff > allowed_error(precision, scale, typical_sum_abs) {
                            r.mismatches += 1;
                        }
                    }
                    r
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(RunToRun { mismatches: 1, ..RunToRun::default() })).collect()
    });
    let mut total = RunToRun::default();
    for p in parts {
        total.compared += p.compared;
        total.bitwise_differing += p.bitwise_differing;
        total.mismatches += p.mismatches;
    }
    if first.len() != second.len() {
        total.mismatches += first.len().abs_diff(second.len()) as u64;
    }
    total
}

/// Non-finite values in `c`.
pub(crate) fn count_nonfinite(c: &[f32]) -> u64 {
    c.iter().filter(|v| !v.is_finite()).count() as u64
}

/// Mean of `|v|` (0 for an empty slice).
pub(crate) fn mean_abs(v: &[f32]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.iter().map(|x| f64::from(x.abs())).sum::<f64>() / v.len() as f64
}

#[cfg(test)]
#[allow(clippy::float_cmp, reason = "rounding results are exact values")]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_known_values() {
        assert_eq!(round_to(1.0 + 2f32.powi(-8), BF16), 1.0); // tie → even
        assert_eq!(round_to(1.0 + 3.0 * 2f32.powi(-8), BF16), 1.0 + 2f32.powi(-6));
        assert_eq!(round_to(1.0 + 2f32.powi(-11), F16), 1.0);
        assert_eq!(round_to(1e6, F16), 65_504.0);
        assert_eq!(round_to(1000.0, E4M3), 448.0);
        assert_eq!(round_to(0.3, E4M3), 0.3125);
        assert_eq!(round_to(2f32.powi(-20), F16), 2f32.powi(-20)); // subnormal, exact
        assert_eq!(round_to(2f32.powi(-26), F16), 0.0);
        assert_eq!(round_to(3.0 * 2f32.powi(-25), F16), 2f32.powi(-23)); // subnormal, tie → even
    }

    #[test]
    fn encodings_round_trip() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..100_000 {
            let x = rng.next_signed_unit() * 4.0;
            let h = round_to(x, F16);
            assert_eq!(f16_value(f16_bits(h)), h, "{x}");
            let b = round_to(x, BF16);
            assert_eq!(bf16_value(bf16_bits(b)), b, "{x}");
            let e = round_to(x, E4M3);
            assert_eq!(e4m3_value(e4m3_bits(e)), e, "{x}");
        }
        for bits in 0..=255u8 {
            let v = e4m3_value(bits);
            if v.is_finite() && v != 0.0 {
                assert_eq!(e4m3_bits(v), bits);
            }
        }
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn rounding_agrees_with_half() {
        let mut rng = SplitMix64::new(11);
        for _ in 0..200_000 {
            let x = rng.next_signed_unit() * 100.0 * if rng.next_u64() & 1 == 0 { 1e-4 } else { 1.0 };
            assert_eq!(round_to(x, F16), half::f16::from_f32(x).to_f32(), "{x}");
            assert_eq!(round_to(x, BF16), half::bf16::from_f32(x).to_f32(), "{x}");
            assert_eq!(f16_bits(round_to(x, F16)), half::f16::from_f32(x).to_bits(), "{x}");
        }
    }

    #[test]
    fn checks_accept_exact_and_reject_planted() {
        let n = 64;
        let a = random_matrix(n, 1, BF16);
        let b = random_matrix(n, 2, BF16);
        let mut c = vec![0f32; n * n];
        for i in 0..n {
            for j in 0..n {
                let s: f64 = (0..n).map(|k| f64::from(a[i * n + k]) * f64::from(b[k * n + j])).sum();
                c[i * n + j] = round_to(s as f32, BF16);
            }
        }
        let ka = known_answer(GemmPrecision::Bf16, n, &a, &b, &c, 4096, 3);
        assert!(ka.max_tolerance_ratio <= 1.0, "{ka:?}");
        assert!(freivalds(GemmPrecision::Bf16, n, &a, &b, &c, 4) <= 1.0);
        let mut bad = c.clone();
        bad[5 * n + 9] += 100.0;
        assert!(freivalds(GemmPrecision::Bf16, n, &a, &b, &bad, 4) > 1.0);
        let r = run_to_run(GemmPrecision::Bf16, &c, &bad, n as f64 * 0.25);
        assert_eq!((r.compared, r.bitwise_differing, r.mismatches), ((n * n) as u64, 1, 1));
        bad[0] = f32::NAN;
        assert!(freivalds(GemmPrecision::Bf16, n, &a, &b, &bad, 4).is_infinite());
    }
}
