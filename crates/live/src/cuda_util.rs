//! CUDA helpers that the GEMM probe ([`crate::probe`]) and the link measurements
//! ([`crate::links`]) share: plain `cuMemAlloc` buffers, peer copies, NVML-style UUID text and
//! the driver-error mapping. Neither of those modules imports the other for these.
#![allow(
    unsafe_code,
    reason = "raw CUDA driver calls cudarc has no safe API for (cuMemAlloc buffers and cuMemcpyPeerAsync between them); each block has a SAFETY comment"
)]

use cudarc::driver::{CudaContext, CudaStream, DriverError, result as dr, sys as ds};
use std::fmt::Write as _;
use std::sync::Arc;

/// A failed CUDA driver call: what was being done and the driver's error text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct DeviceCallError(pub String);

/// Maps a driver error to a [`DeviceCallError`] naming the call (`context`).
pub(crate) fn drv(context: &'static str) -> impl Fn(DriverError) -> DeviceCallError {
    move |e| DeviceCallError(format!("{context}: {e}"))
}

/// NVML's UUID text (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`) of a CUDA UUID (16 bytes), so
/// CUDA devices can be matched to NVML's by UUID (CUDA's device order is not NVML's).
pub(crate) fn format_uuid(bytes: &[std::ffi::c_char; 16]) -> String {
    let b: Vec<u8> = bytes.iter().map(|&c| c.to_ne_bytes()[0]).collect();
    let hex = |r: std::ops::Range<usize>| {
        b[r].iter().fold(String::new(), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
    };
    format!("GPU-{}-{}-{}-{}-{}", hex(0..4), hex(4..6), hex(6..8), hex(8..10), hex(10..16))
}

/// A plain `cuMemAlloc` allocation, freed on drop. Users synchronize the streams that touch it
/// before it drops.
pub(crate) struct DevBuf {
    ctx: Arc<CudaContext>,
    pub(crate) ptr: ds::CUdeviceptr,
    pub(crate) bytes: usize,
}

impl DevBuf {
    /// Allocates `bytes` on `ctx`'s device (contents undefined).
    pub(crate) fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, DeviceCallError> {
        ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        // SAFETY: a cuMemAlloc of `bytes` in the context current on this thread; the pointer is
        // freed exactly once, in Drop, with the same context current.
        let ptr = unsafe { dr::malloc_sync(bytes) }.map_err(drv("cuMemAlloc"))?;
        Ok(Self { ctx: Arc::clone(ctx), ptr, bytes })
    }

    /// Allocates `bytes` filled with `byte`.
    pub(crate) fn filled(ctx: &Arc<CudaContext>, bytes: usize, byte: u8) -> Result<Self, DeviceCallError> {
        let buf = Self::new(ctx, bytes)?;
        // SAFETY: `buf.ptr` is a live allocation of `bytes` bytes in the current context.
        unsafe { dr::memset_d8_sync(buf.ptr, byte, bytes) }.map_err(drv("cuMemsetD8"))?;
        Ok(buf)
    }

    /// Device address of byte `offset` (at most the size).
    pub(crate) fn at(&self, offset: usize) -> ds::CUdeviceptr {
        self.ptr + offset.min(self.bytes) as u64
    }

    /// Copies `host.len()` elements starting at byte `offset` to the host (synchronous; the
    /// caller has synchronized the streams writing it).
    pub(crate) fn read<T: Copy>(&self, offset: usize, host: &mut [T]) -> Result<(), DeviceCallError> {
        let len = std::mem::size_of_val(host);
        if offset + len > self.bytes {
            return Err(DeviceCallError("read past the end of a device buffer".to_owned()));
        }
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        // SAFETY: [offset, offset + len) lies inside this live allocation (checked above); `host`
        // is a writable slice of exactly `len` bytes of plain data.
        unsafe { dr::memcpy_dtoh_sync(host, self.at(offset)) }.map_err(drv("cuMemcpyDtoH"))
    }

    /// Copies `host` to byte `offset` (synchronous with respect to the host buffer).
    pub(crate) fn write<T: Copy>(&self, offset: usize, host: &[T]) -> Result<(), DeviceCallError> {
        let len = std::mem::size_of_val(host);
        if offset + len > self.bytes {
            return Err(DeviceCallError("write past the end of a device buffer".to_owned()));
        }
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        // SAFETY: [offset, offset + len) lies inside this live allocation (checked above); `host`
        // is a readable slice of exactly `len` bytes of plain data.
        unsafe { dr::memcpy_htod_sync(self.at(offset), host) }.map_err(drv("cuMemcpyHtoD"))
    }
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated by cuMemAlloc in this context (now current) and freed once, here;
            // the streams using it were synchronized by its owner.
            let _ = unsafe { dr::free_sync(self.ptr) };
        }
    }
}

/// Enqueues a copy of `bytes` from `src` to `dst` (any two devices) on `stream`.
pub(crate) fn copy(dst: &DevBuf, src: &DevBuf, bytes: usize, stream: &CudaStream) -> Result<(), DeviceCallError> {
    let bytes = bytes.min(dst.bytes).min(src.bytes);
    stream.context().bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
    // SAFETY: both pointers are live cuMemAlloc allocations of at least `bytes` bytes, each
    // given with its own context; `stream` is a live stream of the current context; the buffers
    // outlive the copy (every batch is waited for before the buffers can drop).
    unsafe { dr::memcpy_peer_async(dst.ctx.cu_ctx(), dst.ptr, src.ctx.cu_ctx(), src.ptr, bytes, stream.cu_stream()) }
        .map_err(drv("cuMemcpyPeerAsync"))
}
