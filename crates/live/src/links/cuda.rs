//! CUDA and NCCL measurements through cudarc 0.19 (driver API and NCCL, loaded at run time).
//!
//! cudarc panics when a library or symbol is missing, so [`devices`] and
//! [`measure_all_reduce`] check the library first, and the caller runs everything here on a
//! named thread under `catch_unwind` ([`super::on_thread`]).
//!
//! - P2P ([`measure_p2p`]): one thread drives every GPU (copies are asynchronous; a two-way
//!   batch enqueues both directions before waiting). Buffers are plain `cuMemAlloc` memory, which
//!   `cuCtxEnablePeerAccess` covers; cudarc's own allocations come from the stream-ordered pool,
//!   which it does not (`cuMemPoolSetAccess` would be needed), and copies between pool buffers of
//!   two GPUs may be staged through the host.
//! - All-reduce ([`measure_all_reduce`]): one thread per GPU, each its own NCCL rank through the
//!   raw `ncclCommInitRank`/`ncclAllReduce` bindings (the safe `Comm` wants cudarc pool buffers
//!   and aborts with a panic in `Drop` on error). The ranks meet at a [`Gate`] before NCCL
//!   starts and before each timed batch; a rank that fails opens the gate for the others, and
//!   the caller gives up after [`ALL_REDUCE_DEADLINE`].
#![allow(
    unsafe_code,
    reason = "raw CUDA driver calls cudarc has no safe API for (peer-access queries and enabling, cuMemAlloc buffers and cuMemcpyPeerAsync between them) and the raw NCCL API (one communicator per thread); each block has a SAFETY comment"
)]

use super::{
    AllReduceRow, AllReduceTable, CudaDevice, ELEMENT_BYTES, LATENCY_BYTES, LinksError, LinksOptions, P2pMatrix,
    PeerLink, all_reduce_sizes, bus_factor, gb_per_s, iterations_for, nccl_env,
};
use crate::cuda_util::{DevBuf, copy, format_uuid};
use crate::panics::panic_text;
use crate::probe::Summary;
use cudarc::driver::{CudaContext, CudaStream, DriverError, result as dr, sys as ds};
use cudarc::nccl::{result as nr, sys as ns};
use std::ffi::{CStr, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

/// How long [`measure_all_reduce`] waits for its ranks before giving up (a rank stuck in NCCL
/// never returns; its thread is left behind).
pub(crate) const ALL_REDUCE_DEADLINE: Duration = Duration::from_mins(4);

/// Elements per host chunk when filling and checking all-reduce buffers (32 MiB of float32; a
/// multiple of 8, the pattern's period).
const CHUNK_ELEMENTS: usize = 8 << 20;

/// Bytes read back per P2P buffer end to check a copy landed.
const CHECK_BYTES: usize = 4096;

fn drv(context: &'static str) -> impl Fn(DriverError) -> LinksError {
    move |e| LinksError::failed(context, e)
}

fn nccl_err(context: &'static str) -> impl Fn(nr::NcclError) -> LinksError {
    move |e| {
        // SAFETY: ncclGetErrorString returns a pointer to a static NUL-terminated string for
        // every result code; the library is loaded (this error came from it).
        let text = unsafe { CStr::from_ptr(ns::ncclGetErrorString(e.0)) }.to_string_lossy().into_owned();
        LinksError::failed(context, format!("{:?}: {text}", e.0))
    }
}

/// Whether libcuda can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: `is_culib_present` only tries to dlopen the library under its usual names and
    // closes it again; it calls nothing in it.
    unsafe { ds::is_culib_present() }
}

/// Whether cudarc finds NCCL under its own library names (`libnccl.so`, …; not `libnccl.so.2`,
/// see [`nccl_env`]).
pub fn nccl_present() -> bool {
    // SAFETY: as in `driver_present`: a dlopen attempt and nothing else.
    unsafe { ns::is_culib_present() }
}

/// The CUDA devices (no contexts are made).
pub fn devices() -> Result<Vec<CudaDevice>, LinksError> {
    if !driver_present() {
        return Err(LinksError::Unavailable("libcuda not found (no NVIDIA driver)".to_owned()));
    }
    let unavailable = |e: DriverError| LinksError::Unavailable(format!("CUDA driver: {e}"));
    dr::init().map_err(unavailable)?;
    let count = usize::try_from(dr::device::get_count().map_err(unavailable)?).unwrap_or(0);
    (0..count)
        .map(|ordinal| {
            let dev = dr::device::get(c_int::try_from(ordinal).unwrap_or(c_int::MAX)).map_err(drv("cuDeviceGet"))?;
            Ok(CudaDevice {
                ordinal,
                name: dr::device::get_name(dev).map_err(drv("cuDeviceGetName"))?,
                uuid: dr::device::get_uuid(dev).ok().map(|u| format_uuid(&u.bytes)),
            })
        })
        .collect()
}

/// Seconds between two timing events recorded on `stream` around `enqueue` (waits for them).
fn timed(stream: &Arc<CudaStream>, enqueue: impl FnOnce() -> Result<(), LinksError>) -> Result<f64, LinksError> {
    let ctx = stream.context();
    let timing = Some(ds::CUevent_flags::CU_EVENT_DEFAULT);
    let start = ctx.new_event(timing).map_err(drv("cuEventCreate"))?;
    let end = ctx.new_event(timing).map_err(drv("cuEventCreate"))?;
    start.record(stream).map_err(drv("cuEventRecord"))?;
    enqueue()?;
    end.record(stream).map_err(drv("cuEventRecord"))?;
    let ms = start.elapsed_ms(&end).map_err(drv("cuEventElapsedTime"))?;
    Ok(f64::from(ms) / 1e3)
}

/// Seconds for work enqueued on two streams (of two devices) at once: `b` starts when `a`
/// reaches the start event, and `a`'s end event waits for `b`.
fn timed_pair(
    a: &Arc<CudaStream>,
    b: &Arc<CudaStream>,
    enqueue: impl FnOnce() -> Result<(), LinksError>,
) -> Result<f64, LinksError> {
    let ctx = a.context();
    let timing = Some(ds::CUevent_flags::CU_EVENT_DEFAULT);
    let start = ctx.new_event(timing).map_err(drv("cuEventCreate"))?;
    let end = ctx.new_event(timing).map_err(drv("cuEventCreate"))?;
    let b_done = b.context().new_event(None).map_err(drv("cuEventCreate"))?;
    start.record(a).map_err(drv("cuEventRecord"))?;
    b.wait(&start).map_err(drv("cuStreamWaitEvent"))?;
    enqueue()?;
    b_done.record(b).map_err(drv("cuEventRecord"))?;
    a.wait(&b_done).map_err(drv("cuStreamWaitEvent"))?;
    end.record(a).map_err(drv("cuEventRecord"))?;
    let ms = start.elapsed_ms(&end).map_err(drv("cuEventElapsedTime"))?;
    Ok(f64::from(ms) / 1e3)
}

/// The byte each GPU's P2P source buffer holds, so a copy's origin can be told.
fn fill_byte(gpu: usize) -> u8 {
    0x10u8.wrapping_add(u8::try_from(gpu % 200).unwrap_or(0))
}

/// One device's P2P state.
struct P2pDevice {
    stream: Arc<CudaStream>,
    src: DevBuf,
    dst: DevBuf,
}

/// P2P copies between every ordered pair of the `count` CUDA devices.
pub(crate) fn measure_p2p(opts: &LinksOptions, count: usize) -> Result<P2pMatrix, LinksError> {
    let ctxs = (0..count)
        .map(|i| CudaContext::new(i).map_err(drv("cuDevicePrimaryCtxRetain")))
        .collect::<Result<Vec<_>, _>>()?;
    // Two buffers per GPU in at most 80 % of the free memory, whole MiB.
    let mut bytes = opts.p2p_bytes.max(LATENCY_BYTES);
    for ctx in &ctxs {
        let (free, _) = ctx.mem_get_info().map_err(drv("cuMemGetInfo"))?;
        bytes = bytes.min((free as f64 * 0.4) as usize / (1 << 20) * (1 << 20));
    }
    if bytes < CHECK_BYTES * 2 {
        return Err(LinksError::Unavailable("not enough free GPU memory for the copy buffers".to_owned()));
    }
    let devs = ctxs
        .iter()
        .enumerate()
        .map(|(i, ctx)| {
            Ok(P2pDevice {
                stream: ctx.new_stream().map_err(drv("cuStreamCreate"))?,
                src: DevBuf::filled(ctx, bytes, fill_byte(i))?,
                dst: DevBuf::filled(ctx, bytes, 0)?,
            })
        })
        .collect::<Result<Vec<_>, LinksError>>()?;
    // The fills ran on the legacy stream, which the non-blocking copy streams do not wait for.
    for ctx in &ctxs {
        ctx.synchronize().map_err(drv("cuCtxSynchronize"))?;
    }
    // Peer access, both directions of every pair where the driver allows it.
    let mut can = vec![vec![None; count]; count];
    let mut enabled = vec![vec![false; count]; count];
    for a in 0..count {
        for b in (0..count).filter(|&b| b != a) {
            let mut v: c_int = 0;
            // SAFETY: both are device handles of live contexts; `v` is a valid out-pointer.
            let r = unsafe { ds::cuDeviceCanAccessPeer(&raw mut v, ctxs[a].cu_device(), ctxs[b].cu_device()) };
            can[a][b] = (r == ds::CUresult::CUDA_SUCCESS).then_some(v == 1);
            if can[a][b] == Some(true) && ctxs[a].bind_to_thread().is_ok() {
                // SAFETY: `a`'s context is current on this thread and `b`'s is a live primary
                // context; flags must be 0. Enabling twice answers ALREADY_ENABLED, also fine.
                let r = unsafe { ds::cuCtxEnablePeerAccess(ctxs[b].cu_ctx(), 0) };
                enabled[a][b] =
                    matches!(r, ds::CUresult::CUDA_SUCCESS | ds::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
            }
        }
    }
    let mut links = Vec::new();
    for a in 0..count {
        for b in (0..count).filter(|&b| b != a) {
            if opts.cancelled() {
                break;
            }
            opts.say(format!("P2P GPU{a} -> GPU{b}"));
            let mut link = PeerLink {
                from: a,
                to: b,
                can_access_peer: can[a][b],
                peer_access_enabled: enabled[a][b],
                ..PeerLink::default()
            };
            match one_way(opts, &devs[a], &devs[b], bytes, fill_byte(a)) {
                Ok((bw, lat)) => {
                    link.one_way_gb_s = Summary::of(&bw);
                    link.latency_us = Summary::of(&lat);
                }
                Err(e) => link.error = Some(e.to_string()),
            }
            links.push(link);
        }
    }
    // Both directions at once, once per unordered pair, reported on both ordered pairs.
    for a in 0..count {
        for b in a + 1..count {
            if opts.cancelled() {
                break;
            }
            opts.say(format!("P2P GPU{a} <-> GPU{b}"));
            let outcome = two_way(opts, &devs[a], &devs[b], bytes);
            for l in links.iter_mut().filter(|l| (l.from, l.to) == (a, b) || (l.from, l.to) == (b, a)) {
                match &outcome {
                    Ok(bw) => l.two_way_gb_s = Summary::of(bw),
                    Err(e) => {
                        l.error = Some(l.error.take().map_or_else(|| e.to_string(), |x| format!("{x}; {e}")));
                    }
                }
            }
        }
    }
    for d in &devs {
        let _ = d.stream.synchronize();
    }
    links.sort_by_key(|l| (l.from, l.to));
    Ok(P2pMatrix {
        copy_bytes: bytes as u64,
        copies_per_trial: opts.p2p_copies.max(1),
        trials: opts.p2p_trials.max(1),
        latency_bytes: LATENCY_BYTES as u64,
        latency_copies: opts.latency_copies.max(1),
        links,
    })
}

/// One-way bandwidth batches (GB/s) and latency batches (µs per copy) from `a` to `b`, then a
/// check that `b`'s buffer holds `a`'s bytes at both ends.
fn one_way(
    opts: &LinksOptions,
    a: &P2pDevice,
    b: &P2pDevice,
    bytes: usize,
    expect_byte: u8,
) -> Result<(Vec<f64>, Vec<f64>), LinksError> {
    let copies = opts.p2p_copies.max(1);
    copy(&b.dst, &a.src, bytes, &a.stream)?;
    a.stream.synchronize().map_err(drv("cuStreamSynchronize"))?;
    let mut bw = Vec::new();
    for _ in 0..opts.p2p_trials.max(1) {
        let s = timed(&a.stream, || (0..copies).try_for_each(|_| Ok(copy(&b.dst, &a.src, bytes, &a.stream)?)))?;
        bw.push(gb_per_s((bytes * copies) as f64, s));
    }
    let mut head = vec![0u8; CHECK_BYTES];
    let mut tail = vec![0u8; CHECK_BYTES];
    b.dst.read(0, &mut head)?;
    b.dst.read(bytes - CHECK_BYTES, &mut tail)?;
    if head.iter().chain(&tail).any(|&x| x != expect_byte) {
        return Err(LinksError::Failed(
            "the copied data is wrong (the destination does not hold the source's bytes)".to_owned(),
        ));
    }
    let n = opts.latency_copies.max(1);
    for _ in 0..10 {
        copy(&b.dst, &a.src, LATENCY_BYTES, &a.stream)?;
    }
    let mut lat = Vec::new();
    for _ in 0..3 {
        // A large copy first keeps the stream busy while the small ones are enqueued, so the
        // batch measures the copies, not how fast this thread enqueues them
        // (p2pBandwidthLatencyTest blocks its stream with a spin kernel for the same reason).
        copy(&b.dst, &a.src, bytes, &a.stream)?;
        let s = timed(&a.stream, || (0..n).try_for_each(|_| Ok(copy(&b.dst, &a.src, LATENCY_BYTES, &a.stream)?)))?;
        lat.push(s / n as f64 * 1e6);
    }
    Ok((bw, lat))
}

/// Two-way batches between `a` and `b`: total GB/s of both directions.
fn two_way(opts: &LinksOptions, a: &P2pDevice, b: &P2pDevice, bytes: usize) -> Result<Vec<f64>, LinksError> {
    let copies = opts.p2p_copies.max(1);
    let mut bw = Vec::new();
    for _ in 0..opts.p2p_trials.max(1) {
        let s = timed_pair(&a.stream, &b.stream, || {
            for _ in 0..copies {
                copy(&b.dst, &a.src, bytes, &a.stream)?;
                copy(&a.dst, &b.src, bytes, &b.stream)?;
            }
            Ok(())
        })?;
        bw.push(gb_per_s((2 * bytes * copies) as f64, s));
    }
    b.stream.synchronize().map_err(drv("cuStreamSynchronize"))?;
    Ok(bw)
}

// ---------------------------------------------------------------------------------------------
// All-reduce
// ---------------------------------------------------------------------------------------------

/// `ncclGetVersion`'s code as text: `2.27.3` (codes ≥ 2.9 are `major·10000 + minor·100 + patch`).
pub(crate) fn nccl_version_text(code: i32) -> String {
    if code >= 20900 {
        format!("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100)
    }
}

/// Where the ranks meet: an abortable barrier. The cancel flag is read by the last rank to
/// arrive, so every rank gets the same answer.
struct Gate {
    state: Mutex<GateState>,
    all: Condvar,
    total: usize,
}

#[derive(Default)]
struct GateState {
    arrived: usize,
    generation: u64,
    aborted: bool,
    cancelled: bool,
}

impl Gate {
    fn new(total: usize) -> Self {
        Self { state: Mutex::new(GateState::default()), all: Condvar::new(), total }
    }

    /// Waits for every rank; `Ok(cancelled)`, or `Err` when a rank gave up.
    fn wait(&self, cancel: &AtomicBool) -> Result<bool, LinksError> {
        let gave_up = || LinksError::Failed("another rank gave up".to_owned());
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.aborted {
            return Err(gave_up());
        }
        let generation = s.generation;
        s.arrived += 1;
        if s.arrived == self.total {
            s.arrived = 0;
            s.generation += 1;
            s.cancelled = cancel.load(Ordering::Relaxed);
            self.all.notify_all();
            return Ok(s.cancelled);
        }
        loop {
            s = self.all.wait_timeout(s, Duration::from_millis(100)).unwrap_or_else(PoisonError::into_inner).0;
            if s.aborted {
                return Err(gave_up());
            }
            if s.generation != generation {
                return Ok(s.cancelled);
            }
        }
    }

    /// Lets every waiting and future rank go with an error.
    fn abort(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).aborted = true;
        self.all.notify_all();
    }
}

/// One NCCL communicator (one rank), destroyed on drop.
struct RawComm(ns::ncclComm_t);

impl RawComm {
    fn init(ranks: usize, id: ns::ncclUniqueId, rank: usize) -> Result<Self, LinksError> {
        let too_many = |_| LinksError::Failed("too many ranks".to_owned());
        let (nranks, me) = (c_int::try_from(ranks).map_err(too_many)?, c_int::try_from(rank).map_err(too_many)?);
        let mut comm: ns::ncclComm_t = std::ptr::null_mut();
        // SAFETY: `comm` is a valid out-pointer; `id` came from ncclGetUniqueId in this process
        // and is shared by every rank; each rank calls this from its own thread with its own
        // device's context current, all at once (it blocks until all have joined).
        unsafe { nr::comm_init_rank(&raw mut comm, nranks, id, me) }.map_err(nccl_err("ncclCommInitRank"))?;
        Ok(Self(comm))
    }
}

impl Drop for RawComm {
    fn drop(&mut self) {
        // SAFETY: the communicator came from ncclCommInitRank and is destroyed once, here, after
        // its stream was synchronized.
        let _ = unsafe { nr::comm_destroy(self.0) };
    }
}

/// Enqueues one out-of-place float32 sum of `count` elements.
fn all_reduce(
    comm: &RawComm,
    send: &DevBuf,
    recv: &DevBuf,
    count: usize,
    stream: &CudaStream,
) -> Result<(), LinksError> {
    let count = count.min(send.bytes / ELEMENT_BYTES).min(recv.bytes / ELEMENT_BYTES);
    // SAFETY: `send` and `recv` are live, distinct allocations of at least `count` float32 on
    // this rank's device; the communicator belongs to this thread's rank; `stream` is a live
    // stream of the device's context; the buffers outlive the operation (the stream is
    // synchronized before they drop).
    unsafe {
        nr::all_reduce(
            send.ptr as *const c_void,
            recv.ptr as *mut c_void,
            count,
            ns::ncclDataType_t::ncclFloat32,
            ns::ncclRedOp_t::ncclSum,
            comm.0,
            stream.cu_stream().cast(),
        )
    }
    .map(|_| ())
    .map_err(nccl_err("ncclAllReduce"))
}

/// Rank `rank`'s value at element `k`: `(rank + 1) + (k mod 8)`; exact in float32.
fn pattern(rank: usize, k: usize) -> f32 {
    (rank + 1 + k % 8) as f32
}

/// The sum over `ranks` ranks at element `k`: `n(n + 1)/2 + n·(k mod 8)`.
fn expected_sum(ranks: usize, k: usize) -> f32 {
    (ranks * (ranks + 1) / 2 + ranks * (k % 8)) as f32
}

/// Elements of `recv[..count]` that differ from [`expected_sum`].
fn count_wrong(recv: &DevBuf, count: usize, ranks: usize) -> Result<u64, LinksError> {
    let mut host = vec![0f32; CHUNK_ELEMENTS.min(count)];
    let mut wrong = 0u64;
    let mut off = 0;
    while off < count {
        let len = CHUNK_ELEMENTS.min(count - off);
        recv.read(off * ELEMENT_BYTES, &mut host[..len])?;
        wrong += host[..len]
            .iter()
            .enumerate()
            .filter(|&(i, v)| v.to_bits() != expected_sum(ranks, off + i).to_bits())
            .count() as u64;
        off += len;
    }
    Ok(wrong)
}

/// One rank's results for one size.
struct SizeResult {
    bytes: usize,
    iterations: usize,
    /// Seconds per all-reduce, per batch.
    batches: Vec<f64>,
    wrong: u64,
}

/// One rank: set up, join NCCL, time every size, check every result.
fn rank_main(
    rank: usize,
    ranks: usize,
    id: ns::ncclUniqueId,
    sizes: &[usize],
    opts: &LinksOptions,
    gate: &Gate,
) -> Result<Vec<SizeResult>, LinksError> {
    let max = *sizes.last().ok_or_else(|| LinksError::Failed("no sizes".to_owned()))?;
    let ctx = CudaContext::new(rank).map_err(drv("cuDevicePrimaryCtxRetain"))?;
    let stream = ctx.new_stream().map_err(drv("cuStreamCreate"))?;
    let send = DevBuf::new(&ctx, max)?;
    let recv = DevBuf::filled(&ctx, max, 0)?;
    let elements = max / ELEMENT_BYTES;
    let chunk: Vec<f32> = (0..CHUNK_ELEMENTS.min(elements)).map(|k| pattern(rank, k)).collect();
    let mut off = 0;
    while off < elements {
        let len = chunk.len().min(elements - off);
        send.write(off * ELEMENT_BYTES, &chunk[..len])?;
        off += len;
    }
    // Pageable copies may still be in flight: wait for all of the context's work.
    ctx.synchronize().map_err(drv("cuCtxSynchronize"))?;
    // Everyone set up (or the gate is opened by a rank that failed) before NCCL starts.
    if gate.wait(&opts.cancel)? {
        return Ok(Vec::new());
    }
    ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
    let comm = RawComm::init(ranks, id, rank)?;
    let mut out = Vec::new();
    for (i, &bytes) in sizes.iter().enumerate() {
        let count = bytes / ELEMENT_BYTES;
        if rank == 0 {
            opts.say(format!("all-reduce {} MiB", bytes >> 20));
        }
        stream.context().bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        // SAFETY: `recv` is a live allocation of at least `bytes` bytes on this device; the
        // stream belongs to its (current) context.
        unsafe { dr::memset_d8_async(recv.ptr, 0, bytes, stream.cu_stream()) }.map_err(drv("cuMemsetD8Async"))?;
        let warmup = if i == 0 { opts.warmup_iterations * 4 } else { opts.warmup_iterations }.max(1);
        for _ in 0..warmup {
            all_reduce(&comm, &send, &recv, count, &stream)?;
        }
        stream.synchronize().map_err(drv("cuStreamSynchronize"))?;
        let iterations = iterations_for(bytes);
        let mut batches = Vec::new();
        for _ in 0..opts.trials.max(1) {
            if gate.wait(&opts.cancel)? {
                stream.synchronize().map_err(drv("cuStreamSynchronize"))?;
                return Ok(out);
            }
            let s =
                timed(&stream, || (0..iterations).try_for_each(|_| all_reduce(&comm, &send, &recv, count, &stream)))?;
            batches.push(s / iterations as f64);
        }
        stream.synchronize().map_err(drv("cuStreamSynchronize"))?;
        let wrong = count_wrong(&recv, count, ranks)?;
        out.push(SizeResult { bytes, iterations, batches, wrong });
    }
    stream.synchronize().map_err(drv("cuStreamSynchronize"))?;
    drop(comm);
    Ok(out)
}

/// The sizes that fit: two buffers of the largest in 80 % of every GPU's free memory.
fn fitting_sizes(opts: &LinksOptions, count: usize) -> Result<Vec<usize>, LinksError> {
    let mut max = opts.max_bytes;
    for i in 0..count {
        let ctx = CudaContext::new(i).map_err(drv("cuDevicePrimaryCtxRetain"))?;
        let (free, _) = ctx.mem_get_info().map_err(drv("cuMemGetInfo"))?;
        max = max.min((free as f64 * 0.4) as usize);
    }
    let sizes = all_reduce_sizes(opts.min_bytes, max);
    if sizes.is_empty() {
        return Err(LinksError::Unavailable(format!(
            "no all-reduce size between {} and {} bytes fits the free GPU memory",
            opts.min_bytes, opts.max_bytes
        )));
    }
    Ok(sizes)
}

/// NCCL all-reduce over the `count` CUDA devices, one thread (rank) per device.
pub(crate) fn measure_all_reduce(opts: &LinksOptions, count: usize) -> Result<AllReduceTable, LinksError> {
    if !nccl_present() {
        let hint = nccl_env::find_libnccl(false).map_or_else(
            || "no libnccl.so.2 found either; install NCCL (libnccl2, or the nvidia-nccl wheel) or set KRAFTWERK_NCCL_LIB".to_owned(),
            |p| format!("found {} but cudarc looks for libnccl.so: `kraftwerk links` links it itself", p.display()),
        );
        return Err(LinksError::Unavailable(format!("NCCL library not found under cudarc's names ({hint})")));
    }
    let version = nr::get_nccl_version().map_err(nccl_err("ncclGetVersion"))?;
    let sizes = fitting_sizes(opts, count)?;
    let id = nr::get_uniqueid().map_err(nccl_err("ncclGetUniqueId"))?;
    let gate = Arc::new(Gate::new(count));
    let (tx, rx) = mpsc::channel::<(usize, Result<Vec<SizeResult>, LinksError>)>();
    for rank in 0..count {
        let (tx, my_gate, sizes, opts) = (tx.clone(), Arc::clone(&gate), sizes.clone(), opts.clone());
        let spawned = std::thread::Builder::new().name(format!("kraftwerk-links-nccl-{rank}")).spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| rank_main(rank, count, id, &sizes, &opts, &my_gate)))
                .unwrap_or_else(|p| Err(LinksError::Failed(format!("panicked: {}", panic_text(&*p)))));
            if outcome.is_err() {
                my_gate.abort();
            }
            let _ = tx.send((rank, outcome));
        });
        if let Err(e) = spawned {
            gate.abort();
            return Err(LinksError::Failed(format!("cannot start rank {rank}'s thread: {e}")));
        }
    }
    drop(tx);
    let deadline = Instant::now() + ALL_REDUCE_DEADLINE;
    let mut per_rank: Vec<Option<Vec<SizeResult>>> = (0..count).map(|_| None).collect();
    let mut first_error = None;
    for _ in 0..count {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok((rank, Ok(r))) => per_rank[rank] = Some(r),
            Ok((rank, Err(e))) => {
                if first_error.is_none() || !matches!(e, LinksError::Failed(ref m) if m == "another rank gave up") {
                    first_error = Some(LinksError::Failed(format!("rank {rank}: {e}")));
                }
            }
            Err(_) => {
                gate.abort();
                return Err(LinksError::Failed(format!(
                    "timed out after {} s waiting for the NCCL ranks",
                    ALL_REDUCE_DEADLINE.as_secs()
                )));
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let results: Vec<Vec<SizeResult>> = per_rank.into_iter().map(Option::unwrap_or_default).collect();
    let done = results.iter().map(Vec::len).min().unwrap_or(0);
    let factor = bus_factor(count);
    let rows = (0..done)
        .map(|i| {
            let first = &results[0][i];
            let trials = results.iter().map(|r| r[i].batches.len()).min().unwrap_or(0);
            // A batch lasts as long as its slowest rank.
            let per_batch: Vec<f64> =
                (0..trials).map(|t| results.iter().map(|r| r[i].batches[t]).fold(0.0, f64::max)).collect();
            let s = Summary::of(&per_batch);
            let time = s.map_or(0.0, |s| s.median);
            let algbw = gb_per_s(first.bytes as f64, time);
            AllReduceRow {
                bytes: first.bytes as u64,
                count: (first.bytes / ELEMENT_BYTES) as u64,
                iterations: first.iterations,
                time_us: time * 1e6,
                algbw_gb_s: algbw,
                busbw_gb_s: algbw * factor,
                time_us_range: s.map_or((0.0, 0.0), |s| (s.min * 1e6, s.max * 1e6)),
                wrong: results.iter().map(|r| r[i].wrong).sum(),
            }
        })
        .collect();
    Ok(AllReduceTable {
        ranks: count,
        nccl_version: Some(nccl_version_text(version)),
        dtype: "float32".to_owned(),
        op: "sum".to_owned(),
        out_of_place: true,
        warmup_iterations: opts.warmup_iterations,
        trials: opts.trials.max(1),
        nvls_enable: nccl_env::nvls_value(),
        library: nccl_env::loaded_libnccl(),
        rows,
    })
}
