//! CUDA backend: cuBLAS and cuBLASLt through cudarc 0.19, all libraries loaded at run time.
//!
//! One [`CudaGemm`] per GPU, made on that GPU's probe thread with its own (primary) context and
//! the context's default stream. cudarc panics when a library or symbol is missing, so
//! [`device_count`] checks each library first and every entry point runs under
//! `catch_unwind` (the device threads in [`run_devices`](super::run_devices), and here).
//!
//! Kernels per precision (the fastest is reported, all are checked):
//! - fp32: cuBLAS `sgemm` (default math mode: no TF32);
//! - tf32: cuBLAS `gemmEx` with `CUBLAS_COMPUTE_32F_FAST_TF32`, and cuBLASLt;
//! - fp16, bf16: cuBLAS `gemmEx` (FP32 compute, 16-bit in/out), and cuBLASLt;
//! - fp8 (compute capability 8.9+): cuBLASLt, E4M3 inputs, BF16 output, TN layout (the only
//!   layout Hopper/Ada FP8 GEMMs support).
//!
//! cuBLASLt plans (descriptor, layouts, heuristic algorithm) are made once per load, not per
//! call. Timing: one CUDA event between consecutive GEMMs on the stream, so per-GEMM times
//! contain no host gaps.
#![allow(
    unsafe_code,
    reason = "raw cuBLAS/cuBLASLt calls (TF32 and FP8 have no safe cudarc API), library presence checks, peer access and pinned host memory; each block has a SAFETY comment"
)]
#![allow(clippy::many_single_char_names, reason = "GEMM operands: a, b, c, x, y, n are the standard names")]

use super::numeric::{bf16_bits, bf16_value, e4m3_bits, f16_bits, f16_value};
use super::{DeviceInfo, GemmDevice, GemmPrecision, HostBandwidth, PeerBandwidth, ProbeConfig, ProbeError, Summary};
use crate::cuda_util::{DevBuf, copy, format_uuid};
use cudarc::cublas::{self, CudaBlas};
use cudarc::cublaslt;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError, sys as dsys};
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// cuBLASLt workspace, bytes: NVIDIA's recommendation for Hopper (32 MiB; 4 MiB suffices
/// before Hopper), as cudarc's own `Workspace` uses.
const LT_WORKSPACE_BYTES: usize = 32 << 20;

/// Number of CUDA devices, after checking that the driver, cuBLAS and cuBLASLt load.
pub fn device_count() -> Result<usize, ProbeError> {
    // SAFETY: `is_culib_present` only tries to dlopen the library under its usual names and
    // closes it again; it calls nothing in it.
    let (driver, blas, lt) = unsafe {
        (cudarc::driver::sys::is_culib_present(), cublas::sys::is_culib_present(), cublaslt::sys::is_culib_present())
    };
    if !driver {
        return Err(ProbeError::Unavailable("libcuda not found (no NVIDIA driver)".to_owned()));
    }
    if !blas || !lt {
        return Err(ProbeError::Unavailable("libcublas/libcublasLt not found (CUDA 13 runtime libraries)".to_owned()));
    }
    let count = catch_unwind(|| {
        cudarc::driver::result::init()?;
        cudarc::driver::result::device::get_count()
    })
    .map_err(|_| ProbeError::Unavailable("the CUDA driver panicked while loading".to_owned()))?
    .map_err(|e| ProbeError::Unavailable(format!("CUDA driver: {e}")))?;
    match usize::try_from(count) {
        Ok(0) | Err(_) => Err(ProbeError::Unavailable("no CUDA device".to_owned())),
        Ok(n) => Ok(n),
    }
}

fn drv(context: &str) -> impl Fn(DriverError) -> ProbeError + '_ {
    move |e| ProbeError::device(context, e)
}

fn blas_err(context: &str) -> impl Fn(cublas::result::CublasError) -> ProbeError + '_ {
    move |e| ProbeError::device(context, e)
}

fn lt_err(context: &str) -> impl Fn(cublaslt::result::CublasError) -> ProbeError + '_ {
    move |e| ProbeError::device(context, e)
}

/// Opens GPU `ordinal` on the calling thread.
pub fn open(ordinal: usize) -> Result<Box<dyn GemmDevice>, ProbeError> {
    let ctx = CudaContext::new(ordinal).map_err(drv("cuCtx (primary context)"))?;
    let stream = ctx.default_stream();
    let name = ctx.name().map_err(drv("cuDeviceGetName"))?;
    let (major, minor) = ctx.compute_capability().map_err(drv("compute capability"))?;
    let uuid = ctx.uuid().ok().map(|u| format_uuid(&u.bytes));
    let total = ctx.total_mem().ok().map(|b| b as u64);
    let cc = (u32::try_from(major).unwrap_or(0), u32::try_from(minor).unwrap_or(0));
    Ok(Box::new(CudaGemm {
        ctx,
        stream,
        info: DeviceInfo {
            name,
            uuid,
            compute_capability: Some(format!("{major}.{minor}")),
            memory_total_bytes: total,
        },
        cc,
        libs: None,
        loaded: None,
        lt_error: None,
    }))
}

/// cuBLAS and cuBLASLt handles and the cuBLASLt workspace.
struct Libs {
    blas: CudaBlas,
    lt: LtHandle,
    workspace: CudaSlice<u8>,
}

struct LtHandle(cublaslt::sys::cublasLtHandle_t);

impl Drop for LtHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from cublasLtCreate and is destroyed once, here.
        let _ = unsafe { cublaslt::result::destroy_handle(self.0) };
    }
}

/// A device buffer of the element type a precision needs.
enum Buf {
    F32(CudaSlice<f32>),
    U16(CudaSlice<u16>),
    U8(CudaSlice<u8>),
}

impl Buf {
    /// Raw device address (the buffer is only used on the context's one stream).
    fn ptr(&self, stream: &CudaStream) -> u64 {
        match self {
            Self::F32(s) => s.device_ptr(stream).0,
            Self::U16(s) => s.device_ptr(stream).0,
            Self::U8(s) => s.device_ptr(stream).0,
        }
    }

    fn ptr_mut(&mut self, stream: &CudaStream) -> u64 {
        match self {
            Self::F32(s) => s.device_ptr_mut(stream).0,
            Self::U16(s) => s.device_ptr_mut(stream).0,
            Self::U8(s) => s.device_ptr_mut(stream).0,
        }
    }
}

/// A cuBLASLt plan for one precision and size: descriptor, layouts, chosen algorithm.
struct LtPlan {
    desc: cublaslt::sys::cublasLtMatmulDesc_t,
    a_layout: cublaslt::sys::cublasLtMatrixLayout_t,
    b_layout: cublaslt::sys::cublasLtMatrixLayout_t,
    c_layout: cublaslt::sys::cublasLtMatrixLayout_t,
    algo: cublaslt::sys::cublasLtMatmulAlgo_t,
}

impl Drop for LtPlan {
    fn drop(&mut self) {
        // SAFETY: each object came from its cublasLt*Create call in `lt_plan` and is destroyed
        // once, here; a null one (creation failed half-way) is skipped.
        unsafe {
            if !self.a_layout.is_null() {
                let _ = cublaslt::result::destroy_matrix_layout(self.a_layout);
            }
            if !self.b_layout.is_null() {
                let _ = cublaslt::result::destroy_matrix_layout(self.b_layout);
            }
            if !self.c_layout.is_null() {
                let _ = cublaslt::result::destroy_matrix_layout(self.c_layout);
            }
            if !self.desc.is_null() {
                let _ = cublaslt::result::destroy_matmul_desc(self.desc);
            }
        }
    }
}

/// Inputs, output and plan of the loaded precision. `x` is the first cuBLAS operand (B, or Bᵀ
/// stored row-major for FP8's TN layout), `y` the second (A): column-major cuBLAS computing
/// `Bᵀ·Aᵀ = (A·B)ᵀ` writes the row-major `A·B`.
struct Loaded {
    precision: GemmPrecision,
    n: usize,
    x: Buf,
    y: Buf,
    c: Buf,
    plan: Option<LtPlan>,
}

/// One GPU.
pub(crate) struct CudaGemm {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    cc: (u32, u32),
    libs: Option<Libs>,
    loaded: Option<Loaded>,
    /// Why the cuBLASLt plan of the loaded precision could not be made.
    lt_error: Option<String>,
}

impl CudaGemm {
    fn libs(&mut self) -> Result<&Libs, ProbeError> {
        if self.libs.is_none() {
            let blas = CudaBlas::new(Arc::clone(&self.stream)).map_err(blas_err("cublasCreate"))?;
            let lt = LtHandle(cublaslt::result::create_handle().map_err(lt_err("cublasLtCreate"))?);
            let workspace = self.stream.alloc_zeros::<u8>(LT_WORKSPACE_BYTES).map_err(drv("cuBLASLt workspace"))?;
            self.libs = Some(Libs { blas, lt, workspace });
        }
        self.libs.as_ref().ok_or_else(|| ProbeError::Invalid("cuBLAS handles".to_owned()))
    }

    fn upload_f32(&self, v: &[f32]) -> Result<Buf, ProbeError> {
        Ok(Buf::F32(self.stream.clone_htod(v).map_err(drv("copy to device"))?))
    }

    fn upload_u16(&self, v: &[f32], enc: fn(f32) -> u16) -> Result<Buf, ProbeError> {
        let bits: Vec<u16> = v.iter().map(|&x| enc(x)).collect();
        Ok(Buf::U16(self.stream.clone_htod(&bits).map_err(drv("copy to device"))?))
    }

    /// One GEMM of the loaded precision with `kernel`, enqueued on the stream.
    fn launch(&mut self, kernel: &str) -> Result<(), ProbeError> {
        use cublas::sys::{cublasComputeType_t as Ct, cublasGemmAlgo_t, cublasOperation_t as Op, cudaDataType_t as Dt};
        let stream = Arc::clone(&self.stream);
        let (Some(libs), Some(l)) = (self.libs.as_ref(), self.loaded.as_mut()) else {
            return Err(ProbeError::Invalid("GEMM before load".to_owned()));
        };
        let n = i32::try_from(l.n).map_err(|_| ProbeError::Invalid("matrix too large".to_owned()))?;
        let x = l.x.ptr(&stream);
        let y = l.y.ptr(&stream);
        let c = l.c.ptr_mut(&stream);
        let (alpha, beta) = (1f32, 0f32);
        let handle = *libs.blas.handle();
        match (l.precision, kernel) {
            (GemmPrecision::Fp32, "cublas") => {
                // SAFETY: x, y, c are live device buffers of n·n f32 on this context; all leading
                // dimensions are n; alpha/beta are host f32 (default pointer mode); the handle is
                // bound to `stream`, the only stream these buffers are used on.
                unsafe {
                    cublas::result::sgemm(
                        handle,
                        Op::CUBLAS_OP_N,
                        Op::CUBLAS_OP_N,
                        n,
                        n,
                        n,
                        &raw const alpha,
                        x as *const f32,
                        n,
                        y as *const f32,
                        n,
                        &raw const beta,
                        c as *mut f32,
                        n,
                    )
                }
                .map_err(blas_err("cublasSgemm"))
            }
            (p @ (GemmPrecision::Tf32 | GemmPrecision::Fp16 | GemmPrecision::Bf16), "cublas") => {
                let (ab, ct, compute) = match p {
                    GemmPrecision::Tf32 => (Dt::CUDA_R_32F, Dt::CUDA_R_32F, Ct::CUBLAS_COMPUTE_32F_FAST_TF32),
                    GemmPrecision::Fp16 => (Dt::CUDA_R_16F, Dt::CUDA_R_16F, Ct::CUBLAS_COMPUTE_32F),
                    _ => (Dt::CUDA_R_16BF, Dt::CUDA_R_16BF, Ct::CUBLAS_COMPUTE_32F),
                };
                // SAFETY: x, y, c are live device buffers of n·n elements of the stated types
                // (f32 or 16-bit) on this context; leading dimensions n; alpha/beta are host f32
                // as FP32 compute types require; one stream.
                unsafe {
                    cublas::result::gemm_ex(
                        handle,
                        Op::CUBLAS_OP_N,
                        Op::CUBLAS_OP_N,
                        n,
                        n,
                        n,
                        (&raw const alpha).cast::<c_void>(),
                        x as *const c_void,
                        ab,
                        n,
                        y as *const c_void,
                        ab,
                        n,
                        (&raw const beta).cast::<c_void>(),
                        c as *mut c_void,
                        ct,
                        n,
                        compute,
                        cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                }
                .map_err(blas_err("cublasGemmEx"))
            }
            (_, "cublasLt") => {
                let Some(plan) = l.plan.as_ref() else {
                    return Err(ProbeError::Invalid("no cuBLASLt plan".to_owned()));
                };
                let ws = libs.workspace.device_ptr(&stream).0;
                // SAFETY: the plan's descriptor and layouts describe exactly these buffers (types,
                // n×n, ld n, TN for FP8) and stay alive for the call; C is both C and D (beta = 0);
                // the workspace buffer holds LT_WORKSPACE_BYTES, the size the algorithm was chosen
                // for; alpha/beta are host f32 (FP32 scale type); one stream.
                unsafe {
                    cublaslt::result::matmul(
                        libs.lt.0,
                        plan.desc,
                        (&raw const alpha).cast::<c_void>(),
                        (&raw const beta).cast::<c_void>(),
                        x as *const c_void,
                        plan.a_layout,
                        y as *const c_void,
                        plan.b_layout,
                        c as *const c_void,
                        plan.c_layout,
                        c as *mut c_void,
                        plan.c_layout,
                        &raw const plan.algo,
                        ws as *mut c_void,
                        LT_WORKSPACE_BYTES,
                        stream.cu_stream().cast(),
                    )
                }
                .map_err(lt_err("cublasLtMatmul"))
            }
            (p, k) => Err(ProbeError::Invalid(format!("no kernel `{k}` for {p}"))),
        }
    }

    fn bandwidth(&mut self, bytes: usize, cancel: &AtomicBool) -> Result<HostBandwidth, ProbeError> {
        const PINNED_REPS: usize = 5;
        const PAGEABLE_REPS: usize = 3;
        let stream = Arc::clone(&self.stream);
        let mut dev = stream.alloc_zeros::<u8>(bytes).map_err(drv("device buffer"))?;
        // SAFETY: allocates `bytes` of page-locked (flags 0: not write-combined) host memory; it
        // is fully initialised by `write_bytes` below before anything reads it.
        let mut pinned = unsafe { self.ctx.alloc_pinned_with_flags::<u8>(bytes, 0) }.map_err(drv("cuMemHostAlloc"))?;
        let p = pinned.as_mut_ptr().map_err(drv("pinned buffer"))?;
        // SAFETY: `p` points to `bytes` writable bytes owned by `pinned`, not otherwise borrowed.
        unsafe { std::ptr::write_bytes(p, 0x5a, bytes) };
        let mut pageable = vec![0x5au8; bytes];
        let timed = |f: &mut dyn FnMut() -> Result<(), DriverError>| -> Result<f64, ProbeError> {
            stream.synchronize().map_err(drv("synchronize"))?;
            let t = Instant::now();
            f().map_err(drv("copy"))?;
            stream.synchronize().map_err(drv("synchronize"))?;
            Ok(bytes as f64 / t.elapsed().as_secs_f64() / 1e9)
        };
        let mut runs = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        for rep in 0..=PINNED_REPS {
            if cancel.load(Ordering::Relaxed) {
                return Err(ProbeError::Cancelled);
            }
            let h2d = timed(&mut || stream.memcpy_htod(&pinned, &mut dev))?;
            let d2h = timed(&mut || stream.memcpy_dtoh(&dev, &mut pinned))?;
            if rep > 0 {
                runs[0].push(h2d);
                runs[1].push(d2h);
            }
        }
        for rep in 0..=PAGEABLE_REPS {
            if cancel.load(Ordering::Relaxed) {
                return Err(ProbeError::Cancelled);
            }
            let h2d = timed(&mut || stream.memcpy_htod(&pageable, &mut dev))?;
            let d2h = timed(&mut || stream.memcpy_dtoh(&dev, &mut pageable))?;
            if rep > 0 {
                runs[2].push(h2d);
                runs[3].push(d2h);
            }
        }
        Ok(HostBandwidth {
            bytes: bytes as u64,
            pinned_h2d_gb_s: Summary::of(&runs[0]),
            pinned_d2h_gb_s: Summary::of(&runs[1]),
            pageable_h2d_gb_s: Summary::of(&runs[2]),
            pageable_d2h_gb_s: Summary::of(&runs[3]),
        })
    }
}

/// Builds the cuBLASLt plan for `p` at size `n`.
fn lt_plan(handle: cublaslt::sys::cublasLtHandle_t, p: GemmPrecision, n: usize) -> Result<LtPlan, ProbeError> {
    use cublaslt::sys::{
        cublasComputeType_t as Ct, cublasLtMatmulDescAttributes_t as Attr,
        cublasLtMatmulPreferenceAttributes_t as Pref, cudaDataType_t as Dt,
    };
    let (compute, ab, ct, trans_a) = match p {
        GemmPrecision::Fp32 => (Ct::CUBLAS_COMPUTE_32F, Dt::CUDA_R_32F, Dt::CUDA_R_32F, 0i32),
        GemmPrecision::Tf32 => (Ct::CUBLAS_COMPUTE_32F_FAST_TF32, Dt::CUDA_R_32F, Dt::CUDA_R_32F, 0),
        GemmPrecision::Fp16 => (Ct::CUBLAS_COMPUTE_32F, Dt::CUDA_R_16F, Dt::CUDA_R_16F, 0),
        GemmPrecision::Bf16 => (Ct::CUBLAS_COMPUTE_32F, Dt::CUDA_R_16BF, Dt::CUDA_R_16BF, 0),
        GemmPrecision::Fp8 => (Ct::CUBLAS_COMPUTE_32F, Dt::CUDA_R_8F_E4M3, Dt::CUDA_R_16BF, 1),
    };
    let n64 = n as u64;
    let ld = i64::try_from(n).map_err(|_| ProbeError::Invalid("matrix too large".to_owned()))?;
    let mut plan = LtPlan {
        desc: std::ptr::null_mut(),
        a_layout: std::ptr::null_mut(),
        b_layout: std::ptr::null_mut(),
        c_layout: std::ptr::null_mut(),
        // SAFETY: cublasLtMatmulAlgo_t is plain data (an array of u64); all-zero is a valid
        // value, overwritten by the heuristic below before use.
        algo: unsafe { std::mem::zeroed() },
    };
    plan.desc =
        cublaslt::result::create_matmul_desc(compute, Dt::CUDA_R_32F).map_err(lt_err("cublasLtMatmulDescCreate"))?;
    let trans_b = 0i32;
    // SAFETY: `plan.desc` is a live descriptor; the attribute values are i32 as cuBLASLt
    // documents for TRANSA/TRANSB (cublasOperation_t), passed with their size.
    unsafe {
        cublaslt::result::set_matmul_desc_attribute(
            plan.desc,
            Attr::CUBLASLT_MATMUL_DESC_TRANSA,
            (&raw const trans_a).cast::<c_void>(),
            size_of::<i32>(),
        )
        .map_err(lt_err("TRANSA"))?;
        cublaslt::result::set_matmul_desc_attribute(
            plan.desc,
            Attr::CUBLASLT_MATMUL_DESC_TRANSB,
            (&raw const trans_b).cast::<c_void>(),
            size_of::<i32>(),
        )
        .map_err(lt_err("TRANSB"))?;
    }
    // Square matrices: the stored shape is n×n with ld n whether or not A is transposed.
    plan.a_layout = cublaslt::result::create_matrix_layout(ab, n64, n64, ld).map_err(lt_err("layout A"))?;
    plan.b_layout = cublaslt::result::create_matrix_layout(ab, n64, n64, ld).map_err(lt_err("layout B"))?;
    plan.c_layout = cublaslt::result::create_matrix_layout(ct, n64, n64, ld).map_err(lt_err("layout C"))?;
    let pref = cublaslt::result::create_matmul_pref().map_err(lt_err("cublasLtMatmulPreferenceCreate"))?;
    let ws = LT_WORKSPACE_BYTES;
    // SAFETY: `pref` is live; the workspace attribute is a size_t passed with its size; the
    // heuristic reads live descriptor/layouts; `pref` is destroyed once after use.
    let heuristic = unsafe {
        let set = cublaslt::result::set_matmul_pref_attribute(
            pref,
            Pref::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&raw const ws).cast::<c_void>(),
            size_of::<usize>(),
        );
        let h = set.and_then(|()| {
            cublaslt::result::get_matmul_algo_heuristic(
                handle,
                plan.desc,
                plan.a_layout,
                plan.b_layout,
                plan.c_layout,
                plan.c_layout,
                pref,
            )
        });
        let _ = cublaslt::result::destroy_matmul_pref(pref);
        h
    }
    .map_err(lt_err("cublasLtMatmulAlgoGetHeuristic"))?;
    plan.algo = heuristic.algo;
    Ok(plan)
}

/// Row-major transpose of an `n`×`n` matrix (blocked for cache).
fn transpose(m: &[f32], n: usize) -> Vec<f32> {
    const B: usize = 64;
    let mut t = vec![0f32; n * n];
    for ib in (0..n).step_by(B) {
        for jb in (0..n).step_by(B) {
            for i in ib..(ib + B).min(n) {
                for j in jb..(jb + B).min(n) {
                    t[j * n + i] = m[i * n + j];
                }
            }
        }
    }
    t
}

impl GemmDevice for CudaGemm {
    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn support(&self, precision: GemmPrecision) -> Result<(), String> {
        let need = precision.min_compute_capability();
        if self.cc >= need {
            Ok(())
        } else {
            Err(format!("needs compute capability {}.{}; this GPU has {}.{}", need.0, need.1, self.cc.0, self.cc.1))
        }
    }

    fn fit_size(&self, requested: usize) -> usize {
        // Three n×n matrices of up to 4 bytes, in at most 80 % of free memory less 512 MiB for
        // the libraries; a multiple of 256 when memory is what limits.
        let free = self.memory_free_bytes().unwrap_or(0) as f64;
        let budget = (free * 0.8 - 512.0 * 1_048_576.0).max(0.0);
        let fit = (((budget / 12.0).sqrt() as usize) / 256 * 256).max(256);
        requested.clamp(1, fit.max(1))
    }

    fn kernels(&self, precision: GemmPrecision) -> Vec<&'static str> {
        let lt_ok = self.lt_error.is_none();
        match precision {
            GemmPrecision::Fp32 => vec!["cublas"],
            GemmPrecision::Fp8 => vec!["cublasLt"],
            _ if lt_ok => vec!["cublas", "cublasLt"],
            _ => vec!["cublas"],
        }
    }

    fn load(&mut self, precision: GemmPrecision, n: usize, a: &[f32], b: &[f32]) -> Result<(), ProbeError> {
        self.unload();
        let lt_handle = self.libs()?.lt.0;
        let (x, y) = match precision {
            GemmPrecision::Fp32 | GemmPrecision::Tf32 => (self.upload_f32(b)?, self.upload_f32(a)?),
            GemmPrecision::Fp16 => (self.upload_u16(b, f16_bits)?, self.upload_u16(a, f16_bits)?),
            GemmPrecision::Bf16 => (self.upload_u16(b, bf16_bits)?, self.upload_u16(a, bf16_bits)?),
            GemmPrecision::Fp8 => {
                let bt: Vec<u8> = transpose(b, n).into_iter().map(e4m3_bits).collect();
                let av: Vec<u8> = a.iter().map(|&v| e4m3_bits(v)).collect();
                let x = self.stream.clone_htod(&bt).map_err(drv("copy to device"))?;
                let y = self.stream.clone_htod(&av).map_err(drv("copy to device"))?;
                (Buf::U8(x), Buf::U8(y))
            }
        };
        let c = match precision {
            GemmPrecision::Fp32 | GemmPrecision::Tf32 => {
                Buf::F32(self.stream.alloc_zeros(n * n).map_err(drv("output"))?)
            }
            _ => Buf::U16(self.stream.alloc_zeros(n * n).map_err(drv("output"))?),
        };
        let plan = if precision == GemmPrecision::Fp32 {
            None
        } else {
            match lt_plan(lt_handle, precision, n) {
                Ok(p) => Some(p),
                Err(e) if precision == GemmPrecision::Fp8 => return Err(e),
                Err(e) => {
                    self.lt_error = Some(e.to_string());
                    None
                }
            }
        };
        self.loaded = Some(Loaded { precision, n, x, y, c, plan });
        Ok(())
    }

    fn run(&mut self, kernel: usize, count: usize) -> Result<Vec<f64>, ProbeError> {
        let Some(precision) = self.loaded.as_ref().map(|l| l.precision) else {
            return Err(ProbeError::Invalid("run before load".to_owned()));
        };
        let name =
            *self.kernels(precision).get(kernel).ok_or_else(|| ProbeError::Invalid(format!("no kernel {kernel}")))?;
        let timing = Some(dsys::CUevent_flags::CU_EVENT_DEFAULT);
        let events = (0..=count)
            .map(|_| self.ctx.new_event(timing))
            .collect::<Result<Vec<_>, _>>()
            .map_err(drv("cuEventCreate"))?;
        events[0].record(&self.stream).map_err(drv("cuEventRecord"))?;
        for e in &events[1..] {
            self.launch(name)?;
            e.record(&self.stream).map_err(drv("cuEventRecord"))?;
        }
        events[count].synchronize().map_err(drv("GEMM"))?;
        events
            .windows(2)
            .map(|w| w[0].elapsed_ms(&w[1]).map(|ms| f64::from(ms) / 1e3))
            .collect::<Result<Vec<_>, _>>()
            .map_err(drv("cuEventElapsedTime"))
    }

    fn output(&mut self) -> Result<Vec<f32>, ProbeError> {
        let Some(l) = self.loaded.as_ref() else {
            return Err(ProbeError::Invalid("output before load".to_owned()));
        };
        match (&l.c, l.precision) {
            (Buf::F32(c), _) => self.stream.clone_dtoh(c).map_err(drv("copy to host")),
            (Buf::U16(c), p) => {
                let bits = self.stream.clone_dtoh(c).map_err(drv("copy to host"))?;
                let dec: fn(u16) -> f32 = if p == GemmPrecision::Fp16 { f16_value } else { bf16_value };
                Ok(bits.into_iter().map(dec).collect())
            }
            (Buf::U8(_), _) => Err(ProbeError::Invalid("8-bit output".to_owned())),
        }
    }

    fn unload(&mut self) {
        if self.loaded.take().is_some() {
            let _ = self.stream.synchronize();
        }
        self.lt_error = None;
    }

    fn host_bandwidth(&mut self, bytes: usize, cancel: &AtomicBool) -> Option<Result<HostBandwidth, ProbeError>> {
        Some(self.bandwidth(bytes, cancel))
    }

    fn memory_free_bytes(&self) -> Option<u64> {
        self.ctx.mem_get_info().ok().map(|(free, _)| free as u64)
    }

    fn release(&mut self) {
        self.unload();
        self.libs = None;
        let _ = self.stream.synchronize();
    }
}

/// GPU↔GPU copy bandwidth for every ordered pair of the `count` GPUs (`peer_bandwidth_bytes`
/// per copy, median of 5 after one warm-up), with peer access enabled where the driver allows
/// it. On two NVLink-connected H200s, with access enabled one way only, this measured 38 GB/s
/// each way (NVLink 4 should give several hundred): both ways is untested on hardware.
pub fn peer_bandwidth(count: usize, cfg: &ProbeConfig) -> Vec<PeerBandwidth> {
    catch_unwind(AssertUnwindSafe(|| peer_inner(count, cfg))).unwrap_or_default()
}

/// Lets `ctx` access `peer`'s memory; true when enabled (or already).
fn enable_peer(ctx: &CudaContext, peer: &CudaContext) -> bool {
    if ctx.bind_to_thread().is_err() {
        return false;
    }
    // SAFETY: `ctx` is current on this thread and `peer` is a live context; enabling peer
    // access is idempotent (ALREADY_ENABLED counts as success).
    let r = unsafe { dsys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) };
    matches!(r, dsys::CUresult::CUDA_SUCCESS | dsys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
}

fn peer_inner(count: usize, cfg: &ProbeConfig) -> Vec<PeerBandwidth> {
    const REPS: usize = 5;
    let bytes = cfg.peer_bandwidth_bytes;
    let Ok(ctxs) = (0..count).map(CudaContext::new).collect::<Result<Vec<_>, _>>() else {
        return Vec::new();
    };
    let streams: Vec<Arc<CudaStream>> = ctxs.iter().map(CudaContext::default_stream).collect();
    // Plain cuMemAlloc buffers, as `links` uses: peer access covers them. Stream-ordered pool
    // allocations (cudarc's `alloc_zeros`) are not covered by cuCtxEnablePeerAccess, so copies
    // between them were staged (38 GB/s on an NVLink pair).
    let Ok(bufs) = ctxs.iter().map(|c| DevBuf::new(c, bytes)).collect::<Result<Vec<_>, _>>() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for from in 0..count {
        for to in 0..count {
            if from == to || cfg.cancel.load(Ordering::Relaxed) {
                continue;
            }
            let mut can: std::ffi::c_int = 0;
            // SAFETY: both are valid device handles of live contexts; `can` is a valid out-pointer.
            let query =
                unsafe { dsys::cuDeviceCanAccessPeer(&raw mut can, ctxs[to].cu_device(), ctxs[from].cu_device()) };
            // Peer access both ways, as NVIDIA's p2pBandwidthLatencyTest does: the driver may use
            // either side's copy engine.
            let peer_access = query == dsys::CUresult::CUDA_SUCCESS
                && can == 1
                && enable_peer(&ctxs[to], &ctxs[from])
                && enable_peer(&ctxs[from], &ctxs[to]);
            let (src, dst) = (&bufs[from], &bufs[to]);
            let mut gb_s = Vec::new();
            for rep in 0..=REPS {
                let _ = streams[from].synchronize();
                let t = Instant::now();
                if copy(dst, src, bytes, &streams[to]).is_err() || streams[to].synchronize().is_err() {
                    break;
                }
                if rep > 0 {
                    gb_s.push(bytes as f64 / t.elapsed().as_secs_f64() / 1e9);
                }
            }
            out.push(PeerBandwidth { from, to, peer_access, bytes: bytes as u64, bandwidth_gb_s: Summary::of(&gb_s) });
        }
    }
    out
}
