//! Executors: the seam that lets one kernel run under locus, rayon or a single thread.
//!
//! Every kernel is generic over [`Executor`] and uses only its four operations, so the
//! same code (same task tree, same per-element arithmetic) is measured under every
//! scheduler. An executor declares no footprint itself; the kernels do, in their leaves.
//!
//! The kernels written with parallel iterators ([`crate::iters`]) are compiled twice,
//! against `rayon::prelude` and `locus::prelude`; [`Executor::iterators`] says which
//! copy runs inside an executor's [`Executor::install`]: rayon's in [`Rayon`]'s pool,
//! locus's in [`Locus`]'s pool, and locus's also under [`Serial`] and the recorder,
//! whose `install` puts a serial loop executor on the calling thread
//! ([`locus::iter::hook`]), so an iterator's leaves run there in order, each as the
//! loop's chunk `i`.
//!
//! [`Executor::join`] and [`Executor::for_range`] are meant to be called from inside
//! [`Executor::install`]: that is what places the work in the executor's own pool. Called
//! outside it, [`Rayon`] falls back to rayon's global pool, as `rayon::join` does.
//!
//! Implementations here: [`Serial`] (everything in order on the calling thread) and
//! [`Rayon`] (a dedicated `rayon::ThreadPool`). The locus implementation lives at the end
//! of this file.

use std::ops::Range;
use std::panic::Location;
use std::sync::Arc;

use locus::iter::hook::{self, LoopExecutor};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A fork-join executor the kernels can run on.
pub trait Executor: Sync {
    /// Short name for reports ("rayon", "serial", or a locus policy name).
    fn name(&self) -> String;

    /// Runs both closures, potentially in parallel, and returns both results.
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send;

    /// Calls `body` on disjoint subranges covering `range`, each at most `grain` long
    /// (grain >= 1), potentially in parallel; flat task generation (one task per chunk).
    ///
    /// # Panics
    ///
    /// Panics if `grain` is 0.
    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send;

    /// Runs `f` inside the executor's thread pool and returns its result.
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R;

    /// Which copy of the kernels written with parallel iterators runs inside
    /// [`Executor::install`] (see the module documentation). locus's unless the
    /// executor says otherwise: its loops then run in the locus pool `install` enters,
    /// in the serial loop executor it puts on the thread, or else in locus's global pool.
    fn iterators(&self) -> Iterators {
        Iterators::Locus
    }
}

/// The parallel iterators a kernel written with them is compiled against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Iterators {
    /// `use rayon::prelude::*`: the loops run in the rayon pool the executor installs.
    Rayon,
    /// `use locus::prelude::*`: the loops run in the locus pool the executor installs,
    /// or, on a thread outside any pool, in the serial loop executor installed there.
    Locus,
}

/// Runs a loop's chunks in order on the calling thread: the serial loop executor
/// [`Serial`] installs, so locus's iterators run serially under it.
#[derive(Debug, Clone, Copy, Default)]
pub struct InOrder;

impl LoopExecutor for InOrder {
    fn run_loop(
        &self,
        _location: &'static Location<'static>,
        chunks: usize,
        chunk: &mut dyn FnMut(usize),
    ) {
        for i in 0..chunks {
            chunk(i);
        }
    }
}

/// Number of `grain`-sized chunks covering `range`, and the `i`-th chunk.
///
/// Shared by the implementations so that all of them cut a range identically.
#[inline]
fn chunk_count(range: &Range<usize>, grain: usize) -> usize {
    assert!(grain >= 1, "for_range: grain must be at least 1");
    range.len().div_ceil(grain)
}

/// The `i`-th chunk of `range` cut into pieces of `grain` elements (the last may be
/// shorter). `i` must be below `chunk_count`.
#[inline]
fn chunk(range: &Range<usize>, grain: usize, i: usize) -> Range<usize> {
    let lo = range.start + i * grain;
    lo..range.end.min(lo + grain)
}

/// Runs everything in order on the calling thread: `join` runs `a` then `b`,
/// `for_range` visits the chunks in increasing order, `install` calls `f` with
/// [`InOrder`] running the loops of locus's iterators that `f` starts (on a thread
/// outside any pool; on a worker of a locus pool they run in that pool).
///
/// The baseline for speedups, and a deterministic executor for tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct Serial;

impl Executor for Serial {
    fn name(&self) -> String {
        "serial".to_owned()
    }

    #[inline]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let ra = a();
        (ra, b())
    }

    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        for i in 0..chunk_count(&range, grain) {
            body(chunk(&range, grain, i));
        }
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        hook::with_loop_executor(Arc::new(InOrder), f)
    }
}

/// A dedicated rayon thread pool: the reference work-stealing scheduler.
///
/// `join` is `rayon::join`, `for_range` is a parallel iterator over chunk indices with
/// one task per chunk, `install` is `ThreadPool::install`.
#[derive(Debug)]
pub struct Rayon {
    /// The pool the kernels run in (through [`Executor::install`]).
    pub pool: rayon::ThreadPool,
}

impl Rayon {
    /// Builds a pool of `threads` workers (0: rayon's default, `RAYON_NUM_THREADS` or
    /// one per logical CPU).
    pub fn new(threads: usize) -> Result<Rayon, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("rayon-{i}"))
            .build()?;
        Ok(Rayon { pool })
    }

    /// Number of worker threads in the pool.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

impl Executor for Rayon {
    fn name(&self) -> String {
        "rayon".to_owned()
    }

    #[inline]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(a, b)
    }

    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        let n = chunk_count(&range, grain);
        (0..n)
            .into_par_iter()
            .with_max_len(1)
            .for_each(|i| body(chunk(&range, grain, i)));
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    fn iterators(&self) -> Iterators {
        Iterators::Rayon
    }
}

/// A locus thread pool, running whichever policy it was built with.
///
/// `join` is [`locus::join`], `for_range` is [`locus::for_range`] (flat: one task per
/// chunk), `install` is [`locus::ThreadPool::install`].
#[derive(Debug)]
pub struct Locus {
    /// The pool the kernels run in (through [`Executor::install`]).
    pub pool: locus::ThreadPool,
}

impl Locus {
    /// Wraps a built pool.
    pub fn new(pool: locus::ThreadPool) -> Locus {
        Locus { pool }
    }
}

impl Executor for Locus {
    fn name(&self) -> String {
        self.pool.policy_name().to_owned()
    }

    /// `locus::join`, which knows the kernel's call site (see `locus_task::Spawner`).
    #[inline]
    #[track_caller]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        locus::join(a, b)
    }

    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        assert!(grain >= 1, "for_range: grain must be at least 1");
        locus::for_range(range, grain, body);
    }

    /// The root's task id comes from the caller's call site, as the recorder's does
    /// ([`crate::record()`]), so that a schedule made from a recording names the tasks
    /// of a run.
    #[track_caller]
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }
}
