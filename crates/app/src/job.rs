//! The one background-job type of the window: a named thread with a cancel flag, a bounded
//! progress channel and a result channel. The Live tab's probe and links measurement and the
//! Plan tab's search all run as a [`Job`]; the app starts and cancels them through actions and
//! polls them once a frame.

use eframe::egui;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::thread::JoinHandle;
use std::time::Instant;

/// Progress messages a job's channel holds before new ones are dropped.
pub const PROGRESS_CAPACITY: usize = 64;

/// A background job: a named thread, its cancel flag, progress and result channels.
pub struct Job<T, P> {
    handle: Option<JoinHandle<()>>,
    cancel: Arc<AtomicBool>,
    progress: Receiver<P>,
    result: Receiver<T>,
    /// When it started.
    pub started: Instant,
    /// When Cancel was pressed.
    pub cancelled_at: Option<Instant>,
}

impl<T, P> std::fmt::Debug for Job<T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("started", &self.started)
            .field("cancelled_at", &self.cancelled_at)
            .finish_non_exhaustive()
    }
}

/// What a job's poll found.
pub enum Polled<T> {
    /// Still running.
    Running,
    /// Finished with this result.
    Done(T),
    /// The thread ended without a result (it panicked).
    Lost,
}

impl<T: Send + 'static, P: Send + 'static> Job<T, P> {
    /// Starts `work` on a thread named `name`; it gets the cancel flag and a bounded progress
    /// sender, and its result is sent back followed by a repaint request.
    pub fn spawn(
        name: &str,
        ctx: Option<egui::Context>,
        work: impl FnOnce(Arc<AtomicBool>, SyncSender<P>) -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        let cancel = Arc::new(AtomicBool::new(false));
        let (ptx, prx) = sync_channel(PROGRESS_CAPACITY);
        let (rtx, rrx) = sync_channel(1);
        let flag = Arc::clone(&cancel);
        let handle = std::thread::Builder::new().name(name.to_owned()).spawn(move || {
            let out = work(flag, ptx);
            // The receiver is gone only when the tab was dropped; nothing to report to then.
            let _ = rtx.send(out);
            if let Some(ctx) = ctx {
                ctx.request_repaint();
            }
        })?;
        Ok(Job {
            handle: Some(handle),
            cancel,
            progress: prx,
            result: rrx,
            started: Instant::now(),
            cancelled_at: None,
        })
    }

    /// Asks the job to stop (the library checks the flag at least once a second).
    pub fn cancel(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.cancelled_at.get_or_insert_with(Instant::now);
    }

    /// Whether Cancel was pressed.
    pub fn is_cancelling(&self) -> bool {
        self.cancelled_at.is_some()
    }

    /// The progress messages sent since the last call.
    pub fn drain_progress(&self) -> Vec<P> {
        self.progress.try_iter().collect()
    }

    /// The result, once there is one (the thread is joined then).
    pub fn poll(&mut self) -> Polled<T> {
        match self.result.try_recv() {
            Ok(t) => {
                self.join();
                Polled::Done(t)
            }
            Err(TryRecvError::Empty) => Polled::Running,
            Err(TryRecvError::Disconnected) => {
                self.join();
                Polled::Lost
            }
        }
    }

    fn join(&mut self) {
        if let Some(h) = self.handle.take() {
            // A panic already printed its message; the lost result is reported by `poll`.
            let _ = h.join();
        }
    }
}

impl<T, P> Drop for Job<T, P> {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
