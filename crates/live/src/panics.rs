//! Panic payloads as text, for the worker threads that run CUDA/NCCL work under
//! `catch_unwind` (cudarc panics when a library or symbol is missing).

/// The message of a panic payload (`&str` or `String`), or "unknown panic".
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}
