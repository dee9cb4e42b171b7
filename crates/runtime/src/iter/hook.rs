//! A serial loop executor for a thread: how the kernels' recorder sees iterator code.
//!
//! The recorder (`locus_kernels::record`) runs a kernel on one thread, outside any pool,
//! and writes down its task tree. Kernels written with [`crate::iter`] do not go through
//! its executor, so while a recording runs it installs a [`LoopExecutor`] on its thread
//! ([`with_loop_executor`]): a parallel loop started there outside any pool (an
//! iterator's terminal, [`crate::for_range`]) is handed to it instead of the global pool,
//! with the same chunks the runtime would make, and it runs them in order, recording
//! each as the loop's chunk `i` (the numbering of `locus_task::Spawner::loop_chunk`).
//! Loops inside a pool never look here.

use std::cell::RefCell;
use std::panic::Location;
use std::sync::Arc;

/// Runs parallel loops serially on the thread it is installed on.
pub trait LoopExecutor: Send + Sync {
    /// Runs a loop of `chunks` chunks started at `location`: calls `chunk(i)` for each
    /// `i` in `0..chunks`, in order, each as chunk `i` of the loop.
    fn run_loop(
        &self,
        location: &'static Location<'static>,
        chunks: usize,
        chunk: &mut dyn FnMut(usize),
    );
}

thread_local! {
    static EXECUTOR: RefCell<Option<Arc<dyn LoopExecutor>>> = const { RefCell::new(None) };
}

/// Runs `f` with `executor` running the parallel loops this thread starts outside any
/// pool. Nests: the inner executor wins until its closure returns, also when it unwinds.
pub fn with_loop_executor<R>(executor: Arc<dyn LoopExecutor>, f: impl FnOnce() -> R) -> R {
    /// Puts the outer executor back when dropped.
    struct Restore(Option<Arc<dyn LoopExecutor>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            EXECUTOR.with(|e| *e.borrow_mut() = outer);
        }
    }
    let outer = EXECUTOR.with(|e| e.borrow_mut().replace(executor));
    let _restore = Restore(outer);
    f()
}

/// The executor installed on this thread, if any.
pub(crate) fn current() -> Option<Arc<dyn LoopExecutor>> {
    EXECUTOR.with(|e| e.borrow().clone())
}
