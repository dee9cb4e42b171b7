//! locus: a locality-aware fork-join runtime for multi-socket, multi-cache-domain
//! machines.
//!
//! The API is the one rayon users know: [`join`], [`scope`], a flat parallel loop
//! [`for_range`], and [`ThreadPool::install`]. What differs is underneath: workers are
//! grouped into *squads* (the workers under one last-level cache), and a pluggable
//! [`Policy`] decides where each spawned task goes and where idle workers look, so that
//! tasks which share data can stay in one cache domain (see docs/design.md).
//!
//! ```
//! use locus::{PolicyKind, ThreadPoolBuilder};
//! let pool = ThreadPoolBuilder::new().num_threads(2).policy(PolicyKind::Ws).build().unwrap();
//! let data: Vec<u64> = (0..10_000).collect();
//! let sum = pool.install(|| {
//!     let (lo, hi) = data.split_at(data.len() / 2);
//!     let (a, b) = locus::join(|| lo.iter().sum::<u64>(), || hi.iter().sum::<u64>());
//!     a + b
//! });
//! assert_eq!(sum, 49_995_000);
//! ```
//!
//! # Pools per domain
//! [`ThreadPoolBuilder::build_per_domain`] builds one pool per NUMA node, package or
//! squad, each pinned there, and [`domains::run_each`] runs work on all of them at once
//! (see [`domains`]): for programs that say where their work and their memory go.
//!
//! # Environment
//! The global pool (used by `join`/`scope`/`for_range` called outside any pool) reads
//! `LOCUS_NUM_THREADS` (workers; default one per PU the process may use),
//! `LOCUS_POLICY` (any policy of [`locus_policy::POLICIES`] but `affinity`, e.g. `ws`,
//! `mts:BATCH` or `cab:bl=2`; default `cats`, [`PolicyKind::default`], which is `ws`'s
//! layout and search on a machine of one squad) and `LOCUS_TOPOLOGY` (a preset such as
//! `opteron-8380`, an hwloc synthetic string, `SxC` shorthand, or an hwloc XML file): a
//! described machine is laid over the real cores as a virtual topology.
//! `LOCUS_TRACE=FILE` writes a trace of its run to FILE at exit (see
//! [`ThreadPoolBuilder::trace`]).
//!
//! # Tasks
//! Every task carries a [`TaskId`] (its spawn path hashed to 64 bits, the root's taken
//! from the call site) and its level in the DAG; [`current_task`] returns them. Tasks
//! declare the memory they touch through [`footprint`], which costs nothing unless a
//! listener is installed.

#![deny(missing_docs)]

// Not API: the hot path's internals for `benches/hot_path.rs` (see the module).
#[doc(hidden)]
#[cfg(not(loom))]
pub mod bench_hooks;
mod broadcast;
pub mod counters;
pub mod domains;
mod frames;
pub mod iter;
mod job;
mod join;
mod latch;
mod pin;
mod pool;
mod queue;
pub mod raw;
mod registry;
mod scope;
mod sleep;
mod spawn;
mod split;
mod stats;
mod sync;
mod trace;
mod unwind;

#[cfg(all(test, loom))]
mod tests;

pub use join::join;

/// What `use locus::prelude::*` brings: the parallel iterator traits, as
/// `rayon::prelude` does (see [`iter`]).
pub mod prelude {
    pub use crate::iter::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut,
        ParallelString,
    };
}

/// rayon's `rayon::range`: the type of a range's parallel iterator.
pub mod range {
    pub use crate::iter::RangeIter as Iter;
}

/// rayon's `rayon::range_inclusive`: the type of an inclusive range's parallel iterator.
pub mod range_inclusive {
    pub use crate::iter::RangeInclusiveIter as Iter;
}

/// rayon's `rayon::slice`: the slice traits and the types of their iterators.
pub mod slice {
    pub use crate::iter::{
        ArrayWindows, ChunkBy, ChunkByMut, Chunks, ChunksExact, ChunksExactMut, ChunksMut, Iter,
        IterMut, ParallelSlice, ParallelSliceMut, RChunks, RChunksExact, RChunksExactMut,
        RChunksMut, SliceSplit as Split, SplitInclusive, SplitInclusiveMut, SplitMut, Windows,
    };
}

/// rayon's `rayon::str`: [`ParallelString`](crate::iter::ParallelString) and the types of
/// its iterators.
pub mod str {
    pub use crate::iter::string::*;
}

/// rayon's `rayon::vec`: the type of a `Vec`'s parallel iterator by value.
pub mod vec {
    pub use crate::iter::{Drain, IntoIter, Iter, IterMut};
}
pub use locus_policy::{CabInputs, Policy, PolicyKind, TaskCost, TaskId, TaskInfo, WorkerMap};
pub use locus_task::footprint;
pub use locus_topo::Topology;
pub use pin::Pinning;
pub use pool::{global, BuildError, ThreadPool, ThreadPoolBuilder, DEFAULT_PINNING, MAX_THREADS};
pub use scope::{for_range, scope, Scope};
pub use spawn::{
    broadcast, current_num_threads, current_thread_index, in_place_scope, in_place_scope_fifo,
    scope_fifo, spawn, spawn_fifo, yield_local, yield_now, BroadcastContext, ScopeFifo, Yield,
};
pub use stats::{PoolStats, WorkerStats};
pub use trace::{TraceReport, DEFAULT_TRACE_CAP};

/// The task running on this thread, if it is a worker of a locus pool.
pub fn current_task() -> Option<TaskInfo> {
    registry::WorkerThread::current().map(|w| w.ctx.get().info())
}

/// The index of the worker running on this thread within its pool, if any.
pub fn current_worker_index() -> Option<usize> {
    registry::WorkerThread::current().map(|w| w.index)
}

/// Formats an error with its chain of sources, `outer: inner: innermost`.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The policy guide's example (`docs/policies.md`), compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/policies.md")]
pub struct PolicyGuideDoctests;
