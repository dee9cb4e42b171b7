//! Panic plumbing: catching a task's panic to carry it to the caller, and aborting
//! where unwinding would leave shared state corrupt.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// Runs `f`, returning its panic payload instead of unwinding.
#[inline]
pub(crate) fn halt_unwinding<F: FnOnce() -> R, R>(f: F) -> std::thread::Result<R> {
    panic::catch_unwind(AssertUnwindSafe(f))
}

/// Resumes a panic caught by [`halt_unwinding`] on this thread.
pub(crate) fn resume_unwinding(payload: Box<dyn Any + Send>) -> ! {
    panic::resume_unwind(payload)
}

/// Aborts the process if dropped during unwinding. Guards code between taking a job
/// and setting its latch: a panic there would leave a waiter waiting forever on a
/// stack frame that no longer exists. Forget it once the guarded code is done.
pub(crate) struct AbortIfPanic;

impl Drop for AbortIfPanic {
    fn drop(&mut self) {
        eprintln!("locus: a panic escaped the runtime's job bookkeeping; aborting");
        std::process::abort();
    }
}
