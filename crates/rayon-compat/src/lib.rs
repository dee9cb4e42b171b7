//! rayon's public API, over locus: the items of `rayon` 1.x by their rayon paths, so a
//! program, or a whole dependency tree, moves to locus by one line of its `Cargo.toml`:
//!
//! ```toml
//! [patch.crates-io]
//! rayon = { path = "/path/to/locus/crates/rayon-compat" }
//! ```
//!
//! The iterators, the plumbing, the scopes and the free functions are locus's own
//! (`locus::iter`, `locus::scope`, ...), re-exported here. [`ThreadPool`] and
//! [`ThreadPoolBuilder`] wrap locus's, because two of rayon's methods differ from
//! locus's by signature (`ThreadPool::broadcast` hands each share a [`BroadcastContext`]
//! and returns the results; locus's hands it the worker index); [`ThreadPool::locus`]
//! reaches the locus pool and its extras (policies, statistics, traces).
//!
//! The iterator traits are rayon's ([`iter::ParallelIterator`] with `drive_unindexed`
//! and `opt_len`, ...), so a crate that implements them for its own types (hashbrown,
//! indexmap) builds against this one; locus's iterators implement them and run as
//! locus runs them (see [`iter`]). What differs from rayon is listed in
//! `docs/porting.md`; in short, the items locus lacks are absent (a program that uses
//! them stops at compile time, naming them).

#![deny(missing_docs)]

use std::any::Any;
use std::thread::{self, ThreadId};

pub use locus::{
    broadcast, current_num_threads, current_thread_index, in_place_scope, in_place_scope_fifo,
    join, scope, scope_fifo, spawn, spawn_fifo, yield_local, yield_now, BroadcastContext, Scope,
    ScopeFifo, Yield,
};
pub use locus::{range, range_inclusive, slice, str};

/// rayon's `rayon::iter`: rayon's traits (`locus::iter::rayon`, implemented by every
/// locus iterator and by any type that implements rayon's required methods), their
/// adapters, locus's sources, and [`iter::plumbing`].
pub mod iter {
    pub use locus::iter::rayon::{
        adapters, plumbing, Adapter, Chain, Chunks, Cloned, Copied, Enumerate, Filter, FilterMap,
        FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldChunks, FoldChunksWith, FoldWith,
        FromParallelIterator, IndexedAdapter, IndexedLocusCallback, IndexedOp,
        IndexedParallelIterator, Inspect, Interleave, InterleaveShortest, Intersperse,
        IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, LocusCallback,
        LocusOp, Map, MapInit, MapWith, MaxLen, MinLen, Op, PanicFuse, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator, Positions, RangeDrain, Rev, Skip,
        SkipAny, SkipAnyWhile, StepBy, Take, TakeAny, TakeAnyWhile, TryFold, TryFoldWith, Update,
        WhileSome, Zip, ZipEq,
    };
    pub use locus::iter::*;
}

/// rayon's `rayon::prelude`: the traits a program calls the parallel methods through.
pub mod prelude {
    pub use crate::iter::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut,
        ParallelString,
    };
}

/// rayon's `rayon::vec`: the types of a `Vec`'s parallel iterators.
pub mod vec {
    pub use locus::vec::{IntoIter, Iter, IterMut};
    /// `par_drain(range)`: the range's elements moved out in place; the rest closes up
    /// when the drain is dropped, consumed or not ([`iter::RangeDrain`](crate::iter::RangeDrain)).
    pub type Drain<'a, T> = crate::iter::RangeDrain<'a, Vec<T>, T>;
}

/// rayon's `rayon::option`: the types of an `Option`'s parallel iterators.
pub mod option {
    /// By value.
    pub type IntoIter<T> = locus::iter::IntoIter<T>;
    /// By reference.
    pub type Iter<'a, T> = locus::iter::IntoIter<&'a T>;
    /// By mutable reference.
    pub type IterMut<'a, T> = locus::iter::IntoIter<&'a mut T>;
}

/// rayon's `rayon::result`: the types of a `Result`'s parallel iterators.
pub mod result {
    pub use crate::option::{IntoIter, Iter, IterMut};
}

/// rayon's `rayon::string`: the type of `String::par_drain`.
pub mod string {
    /// The chars of a drained range.
    pub type Drain<'a> = locus::iter::IntoIter<char>;
}

/// rayon's `rayon::collections`: the types of std's collections' parallel iterators
/// (each collection is gathered into a vector first, as in `locus::iter`).
pub mod collections {
    /// `BinaryHeap`'s.
    pub mod binary_heap {
        pub use crate::option::IntoIter;
        /// By reference: the heap's slice.
        pub type Iter<'a, T> = locus::iter::Iter<'a, T>;
        /// `par_drain()`: every element moved out of the heap's vector in place.
        pub type Drain<'a, T> = crate::iter::RangeDrain<'a, std::collections::BinaryHeap<T>, T>;
    }

    /// `BTreeSet`'s.
    pub mod btree_set {
        pub use crate::option::{IntoIter, Iter};
    }

    /// `HashSet`'s.
    pub mod hash_set {
        pub use crate::option::{IntoIter, Iter};
        /// `par_drain()`: the elements, moved into a vector first.
        pub type Drain<'a, T> = locus::iter::IntoIter<T>;
    }

    /// `LinkedList`'s.
    pub mod linked_list {
        pub use crate::option::{IntoIter, Iter, IterMut};
    }

    /// `VecDeque`'s.
    pub mod vec_deque {
        pub use crate::option::IntoIter;
        /// `par_drain(range)`: the range's elements moved out of the deque's vector in
        /// place.
        pub type Drain<'a, T> = crate::iter::RangeDrain<'a, std::collections::VecDeque<T>, T>;
        /// By reference: the deque's two slices.
        pub type Iter<'a, T> =
            locus::iter::Chain<locus::iter::Iter<'a, T>, locus::iter::Iter<'a, T>>;
        /// By mutable reference: the deque's two slices.
        pub type IterMut<'a, T> =
            locus::iter::Chain<locus::iter::IterMut<'a, T>, locus::iter::IterMut<'a, T>>;
    }

    /// `BTreeMap`'s.
    pub mod btree_map {
        /// By value.
        pub type IntoIter<K, V> = locus::iter::IntoIter<(K, V)>;
        /// By reference.
        pub type Iter<'a, K, V> = locus::iter::IntoIter<(&'a K, &'a V)>;
        /// By mutable reference.
        pub type IterMut<'a, K, V> = locus::iter::IntoIter<(&'a K, &'a mut V)>;
    }

    /// `HashMap`'s.
    pub mod hash_map {
        pub use super::btree_map::{IntoIter, Iter, IterMut};
        /// `par_drain()`: the entries, moved into a vector first.
        pub type Drain<'a, K, V> = locus::iter::IntoIter<(K, V)>;
    }
}

/// rayon's `ThreadPoolBuildError`: why a pool could not be built.
pub type ThreadPoolBuildError = locus::BuildError;

/// The most threads a pool may have (rayon's `max_num_threads`).
pub fn max_num_threads() -> usize {
    locus::MAX_THREADS
}

/// What [`join_context`]'s closures are told (rayon's `FnContext`).
#[derive(Debug, Clone, Copy)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// Whether the closure runs on another thread than the one that called
    /// [`join_context`].
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// [`join`], each closure told whether it was stolen (rayon's `join_context`).
#[track_caller]
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let caller = thread::current().id();
    join(move || a(context(caller)), move || b(context(caller)))
}

fn context(caller: ThreadId) -> FnContext {
    FnContext {
        migrated: thread::current().id() != caller,
    }
}

/// rayon's `ThreadPoolBuilder`: locus's, with rayon's methods.
#[derive(Debug, Clone, Default)]
pub struct ThreadPoolBuilder {
    inner: locus::ThreadPoolBuilder,
}

impl ThreadPoolBuilder {
    /// A builder with locus's defaults (`locus::ThreadPoolBuilder::new`).
    pub fn new() -> ThreadPoolBuilder {
        ThreadPoolBuilder::default()
    }

    /// The number of workers; 0 for the default.
    pub fn num_threads(self, n: usize) -> Self {
        self.map(|b| b.num_threads(n))
    }

    /// Each worker's name, from its index.
    pub fn thread_name<F>(self, name: F) -> Self
    where
        F: FnMut(usize) -> String + Send + 'static,
    {
        self.map(|b| b.thread_name(name))
    }

    /// Each worker's stack size, in bytes.
    pub fn stack_size(self, bytes: usize) -> Self {
        self.map(|b| b.stack_size(bytes))
    }

    /// What the panic of a detached [`spawn`] is handed to (without one it aborts).
    pub fn panic_handler<H>(self, handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.map(|b| b.panic_handler(handler))
    }

    /// Any of locus's own settings (policy, topology, pinning, tracing):
    /// `ThreadPoolBuilder::new().locus(|b| b.policy(PolicyKind::Cab))`.
    pub fn locus(
        self,
        configure: impl FnOnce(locus::ThreadPoolBuilder) -> locus::ThreadPoolBuilder,
    ) -> Self {
        self.map(configure)
    }

    fn map(self, f: impl FnOnce(locus::ThreadPoolBuilder) -> locus::ThreadPoolBuilder) -> Self {
        ThreadPoolBuilder {
            inner: f(self.inner),
        }
    }

    /// Starts the workers.
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        self.inner.build().map(|inner| ThreadPool { inner })
    }

    /// Builds the global pool; fails if it was built already.
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        self.inner.build_global()
    }
}

/// rayon's `ThreadPool`: a locus pool with rayon's methods.
#[derive(Debug)]
pub struct ThreadPool {
    inner: locus::ThreadPool,
}

impl ThreadPool {
    /// The locus pool, for locus's own methods.
    pub fn locus(&self) -> &locus::ThreadPool {
        &self.inner
    }

    /// Runs `op` on a worker of this pool and returns its result.
    #[track_caller]
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.inner.install(op)
    }

    /// [`join`] on this pool.
    #[track_caller]
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.inner.join(a, b)
    }

    /// [`scope`] on this pool.
    #[track_caller]
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.inner.scope(op)
    }

    /// [`scope_fifo`] on this pool.
    #[track_caller]
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.inner.scope_fifo(op)
    }

    /// [`in_place_scope`] on this pool.
    #[track_caller]
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        self.inner.in_place_scope(op)
    }

    /// [`in_place_scope_fifo`] on this pool.
    #[track_caller]
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        self.inner.in_place_scope_fifo(op)
    }

    /// [`spawn`] on this pool.
    #[track_caller]
    pub fn spawn<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.inner.spawn(func)
    }

    /// [`spawn_fifo`] on this pool.
    #[track_caller]
    pub fn spawn_fifo<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.inner.spawn_fifo(func)
    }

    /// `op` on every worker of this pool at once, the results in worker order.
    #[track_caller]
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.inner.broadcast_each(op)
    }

    /// The number of workers.
    pub fn current_num_threads(&self) -> usize {
        self.inner.current_num_threads()
    }

    /// The calling thread's worker index, if it is a worker of this pool.
    pub fn current_thread_index(&self) -> Option<usize> {
        self.inner.current_thread_index()
    }

    /// [`yield_now`], if the caller is a worker of this pool; `None` otherwise.
    pub fn yield_now(&self) -> Option<Yield> {
        self.inner.yield_now()
    }

    /// [`yield_local`], if the caller is a worker of this pool; `None` otherwise.
    pub fn yield_local(&self) -> Option<Yield> {
        self.inner.yield_local()
    }
}
