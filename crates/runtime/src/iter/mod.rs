//! Parallel iterators with rayon's names and meanings: `use locus::prelude::*` where a
//! program had `use rayon::prelude::*`.
//!
//! ```
//! use locus::prelude::*;
//! let v: Vec<u64> = (0..10_000).collect();
//! let squares: u64 = v.par_iter().map(|x| x * x).sum();
//! assert_eq!(squares, v.iter().map(|x| x * x).sum());
//! let evens: Vec<u64> = v.par_iter().copied().filter(|x| x % 2 == 0).collect();
//! assert_eq!(evens.len(), 5_000);
//! ```
//!
//! # How a chain runs
//! A parallel iterator is a row of *positions* (a slice's elements, a range's integers,
//! a slice's chunks, a string's bytes), and every adapter maps its positions onto its
//! sources' in closed form: most keep them one to one (`map`, `filter`, `flat_map`,
//! `inspect`, ...), the reshaping ones move them (`chain`, `skip`, `rev`, `step_by`,
//! `interleave`, `chunks`; see `reshape.rs`). An adapter whose items per position vary
//! (`filter`, `flat_map`, `par_split`, `par_bridge`) is unindexed, but still has its
//! source's positions, so its leaves are as deterministic as an indexed chain's. A terminal
//! (`for_each`, `sum`, `collect`, ...) cuts the positions into *leaves* of consecutive
//! positions and runs one loop over them ([`crate::for_range`]'s machinery): leaf `i`
//! is the loop's chunk `i`, a task of its own, and runs the chain sequentially over its
//! positions with std's adapters ([`ParallelIterator::seq`]); the leaves' results are
//! reduced in order.
//!
//! The cut depends only on the number of positions and the bounds
//! (`with_min_len`, `with_max_len`): [`LEAVES`] leaves of equal length, or fewer when
//! the bounds ask for longer leaves. So a chain over the same length is the same loop,
//! with the same task ids, every time it runs, which is what lets the locality policies
//! (iteration affinity in `cab` and `cats`, the static and affinity schedules) send a
//! leaf where the same leaf ran before. rayon splits adaptively instead (more pieces
//! when they are stolen), which balances better on a busy machine but gives a different
//! tree each run.
//!
//! Under work stealing the loop splits as a tree (a thief takes half of what is left);
//! under the policies that place each task, the leaves are spawned one by one and placed
//! by the policy (see `crate::split`).
//!
//! # Locality
//! Slice sources declare the elements a leaf touches ([`crate::footprint`]: reads for
//! `par_iter`, `par_chunks`, a `Vec`'s `into_par_iter`, writes for `par_iter_mut` and
//! `par_chunks_mut`) when a footprint listener is installed, and cost a flag test when
//! none is: CATS under `declared` counters, the kernels' recorder and `locus profile`
//! see iterator code as they see the kernels.
//!
//! # Panics
//! A panic in a leaf reaches the caller of the terminal once every leaf has finished;
//! the pool goes on. Items owned by the chain (a `Vec`'s `into_par_iter`, a `collect`'s
//! result so far) are dropped exactly once.

#![warn(missing_debug_implementations)]

/// `Debug` for adapters and sources holding closures: the named fields only, as
/// rayon's do, so a chain is `Debug` whatever its closures.
macro_rules! debug_fields {
    ($([$($g:tt)*] $name:ident<$($p:tt),*> { $($field:ident),* };)*) => {$(
        impl<$($g)*> fmt::Debug for $name<$($p),*> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    )*};
}

pub mod hook;

mod adapt;
mod any;
mod bridge;
mod chunks;
mod collect;
mod collections;
mod extend;
mod generate;
mod multizip;
mod per_leaf;
mod pieces;
pub mod plumbing;
mod range;
pub mod rayon;
mod reshape;
mod slice;
mod sort;
mod source;
mod stop;
pub mod string;
mod try_op;

pub use adapt::{
    Cloned, Copied, Enumerate, Filter, FilterMap, Fold, Map, MaxLen, MinLen, PlainFold, Zip,
};
pub use any::{
    AnyItems, AnyRule, AnySeq, AnyStep, SkipAny, SkipAnyWhile, SkipCount, SkipWhile, TakeAny,
    TakeAnyWhile, TakeCount, TakeWhile,
};
pub use bridge::{IterBridge, ParallelBridge};
pub use chunks::{
    ArrayWindows, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut, Windows,
};
pub use collect::FromParallelIterator;
pub use collections::{ParallelDrainFull, ParallelDrainRange};
pub use extend::{Either, ParallelExtend};
pub use generate::{
    empty, once, repeat, repeat_n, repeatn, split, walk_tree, walk_tree_postfix, walk_tree_prefix,
    Empty, Once, Repeat, RepeatN, Split, WalkTree, WalkTreePostfix, WalkTreePrefix, EXPAND_LIMIT,
};
pub use multizip::{MultiZip, MultiZipSeq};
pub use per_leaf::{
    FlatMap, FlatMapIter, Flatten, FlattenIter, FlattenSeq, FoldWith, Inspect, MapInit, MapWith,
    PanicFuse, TryFold, TryFoldRun, TryFoldWith, Update, WhileSome, NESTED_LOOP,
};
pub use pieces::{
    ChunkBy, ChunkByMut, ChunkByRule, CutRule, InclusiveRule, Lend, Mutable, Pieces, PiecesSeq,
    Shared, SliceSplit, SplitInclusive, SplitInclusiveMut, SplitMut, SplitRule,
};
pub use range::{
    IndexedInclusiveValue, IndexedRangeValue, RangeInclusiveIter, RangeIter, RangeValue,
};
pub use reshape::{
    Chain, ChunksOf, FoldChunks, FoldChunksWith, Interleave, InterleaveShortest, Intersperse,
    IntersperseSeq, Rev, Skip, StageSeq, StepBy, Take,
};
pub use slice::{ParallelSlice, ParallelSliceMut};
pub use source::{Chunks, ChunksExact, ChunksMut, Drain, IntoIter, Iter, IterMut};
pub use stop::{FoldRun, FoldSeq, Stop, Stoppable, STOPPING_RUN};
pub use string::{CharPattern, ParallelString};
pub use try_op::Try;

use locus_policy::SpawnOrder;
use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};
use std::ops::{ControlFlow, Range};
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

/// How many leaves a terminal cuts its positions into when the bounds allow: enough for
/// load balance on the machines locus targets (16 per worker at 16 workers), few enough
/// that a leaf's task costs nothing next to its work.
pub const LEAVES: usize = 256;

/// A parallel iterator: positions, cut into leaves by a terminal, each run sequentially.
///
/// The methods without a default are the protocol between sources, adapters and
/// terminals (see the module documentation); a program uses the provided ones.
pub trait ParallelIterator: Sized + Send + Sync {
    /// The items.
    type Item: Send;

    /// The sequential iterator of one leaf.
    type Seq<'a>: Iterator<Item = Self::Item>
    where
        Self: 'a;

    /// How many positions there are: leaves cover `0..position_count()`.
    fn position_count(&self) -> usize;

    /// How many items there are, if that is known without running the chain: then item
    /// `i` is position `i`.
    fn exact_len(&self) -> Option<usize>;

    /// The least and the most positions a leaf may hold (`with_min_len`,
    /// `with_max_len`); `(1, usize::MAX)` unless bounded.
    fn leaf_bounds(&self) -> (usize, usize) {
        (1, usize::MAX)
    }

    /// Called by a terminal once, before any [`ParallelIterator::seq`], with the number
    /// of positions it will hand to leaves (`position_count()`, less for a `zip` with a
    /// shorter side). Owning sources keep it to drop what no leaf gets.
    fn driven(&mut self, positions: usize) {
        let _ = positions;
    }

    /// The items of positions `range`, in order.
    ///
    /// # Safety
    /// `range` lies within the positions the terminal announced through
    /// [`ParallelIterator::driven`], and over the iterator's life no position is asked
    /// for twice: the mutable and owning sources lend or move each element once.
    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_>;

    /// The last item of positions `range` that `keep` gives `Some` for, the items walked
    /// until `stop()` (`find_last`'s search of one run of a leaf). The flattening
    /// adapters search each inner iterator from its back (a nested `find_map_last`)
    /// instead of walking it from its front, and the adapters between them and the
    /// terminal pass the search on; the others walk their items.
    ///
    /// # Safety
    /// As for [`ParallelIterator::seq`]: `range` is asked for once.
    #[doc(hidden)]
    unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
    where
        H: Send,
        K: Fn(Self::Item) -> Option<H> + Sync,
        S: Fn() -> bool + Sync,
    {
        // SAFETY: forwarded from the caller.
        let items = unsafe { self.seq(range) };
        items.take_while(|_| !stop()).filter_map(keep).last()
    }

    /// Calls `f` on every item.
    #[track_caller]
    fn for_each<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        drive(self, |_, items| items.for_each(&f), |(), ()| ());
    }

    /// Each item mapped by `f`.
    fn map<F, R>(self, f: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, f)
    }

    /// The items for which `predicate` holds.
    fn filter<P>(self, predicate: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, predicate)
    }

    /// The `Some` values of `f` on the items.
    fn filter_map<F, R>(self, f: F) -> FilterMap<Self, F>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, f)
    }

    /// Copies of the items a chain of references gives.
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Clones of the items a chain of references gives.
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Folds the items of each leaf, starting from `identity()`: an iterator of one
    /// accumulator per leaf, in order, to be reduced (`sum`, `reduce`, ...).
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// The items combined by `op`, which must be associative, with `identity()` as its
    /// neutral element (returned when there are no items).
    #[track_caller]
    fn reduce<ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        drive(self, |_, items| items.fold(identity(), &op), &op).unwrap_or_else(identity)
    }

    /// The sum of the items.
    #[track_caller]
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        drive(
            self,
            |_, items| items.sum::<S>(),
            |a, b| [a, b].into_iter().sum(),
        )
        .unwrap_or_else(|| std::iter::empty::<S>().sum())
    }

    /// The product of the items.
    #[track_caller]
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        drive(
            self,
            |_, items| items.product::<P>(),
            |a, b| [a, b].into_iter().product(),
        )
        .unwrap_or_else(|| std::iter::empty::<P>().product())
    }

    /// How many items there are.
    #[track_caller]
    fn count(self) -> usize {
        drive(self, |_, items| items.count(), |a, b| a + b).unwrap_or(0)
    }

    /// The least item; the first of equal ones.
    #[track_caller]
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        drive(
            self,
            |_, items| items.min(),
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(if b < a { b } else { a }),
                (a, b) => a.or(b),
            },
        )
        .flatten()
    }

    /// The greatest item; the last of equal ones.
    #[track_caller]
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        drive(
            self,
            |_, items| items.max(),
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(if b >= a { b } else { a }),
                (a, b) => a.or(b),
            },
        )
        .flatten()
    }

    /// The item with the least key; the first of those with equal keys, as std's.
    #[track_caller]
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        let best = drive(
            self,
            |_, items| items.map(|x| (f(&x), x)).min_by(|a, b| a.0.cmp(&b.0)),
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                (a, b) => a.or(b),
            },
        );
        best.flatten().map(|(_, x)| x)
    }

    /// The item with the greatest key; the last of those with equal keys, as std's.
    #[track_caller]
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        let best = drive(
            self,
            |_, items| items.map(|x| (f(&x), x)).max_by(|a, b| a.0.cmp(&b.0)),
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(if b.0 >= a.0 { b } else { a }),
                (a, b) => a.or(b),
            },
        );
        best.flatten().map(|(_, x)| x)
    }

    /// Some item for which `predicate` holds, not necessarily the first; leaves stop
    /// once one is found.
    #[track_caller]
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        // Set once a leaf found one: the other leaves stop, inside their adapters too.
        let found = Arc::new(AtomicBool::new(false));
        drive_in(
            self,
            Stop::new(&found),
            |_, items| {
                let hit = until(&found, items).find(|x| predicate(x));
                if hit.is_some() {
                    found.store(true, AtomicOrdering::Relaxed);
                }
                hit
            },
            |a, b| a.or(b),
        )
        .flatten()
    }

    /// Whether `predicate` holds for some item; leaves stop once one is found.
    #[track_caller]
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&hit| hit).is_some()
    }

    /// Whether `predicate` holds for every item; leaves stop once one fails.
    #[track_caller]
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&hit| !hit).is_none()
    }

    /// The items collected, in order (a `Vec`: see [`FromParallelIterator`]).
    #[track_caller]
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// How many items there are, if known without running the chain (rayon's name for
    /// [`ParallelIterator::exact_len`]).
    fn opt_len(&self) -> Option<usize> {
        self.exact_len()
    }

    /// Calls `op` on every item with a leaf's own clone of `init`.
    #[track_caller]
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Sync + Clone,
    {
        self.map_with(init, op).for_each(|()| ());
    }

    /// Calls `op` on every item with a leaf's own `init()`.
    #[track_caller]
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).for_each(|()| ());
    }

    /// Calls `op` on every item until one fails; a failure (any of them, if several)
    /// is returned.
    #[track_caller]
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// [`ParallelIterator::try_for_each`] with a leaf's own clone of `init`.
    #[track_caller]
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Sync + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// [`ParallelIterator::try_for_each`] with a leaf's own `init()`.
    #[track_caller]
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// Each item mapped by `f` with a leaf's own clone of `init`.
    fn map_with<F, T, R>(self, init: T, f: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Sync + Clone,
        R: Send,
    {
        MapWith::new(self, init, f)
    }

    /// Each item mapped by `f` with a leaf's own `init()`.
    fn map_init<F, INIT, T, R>(self, init: INIT, f: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, f)
    }

    /// The items, `f` called on a reference to each as it passes.
    fn inspect<OP>(self, f: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, f)
    }

    /// The items, each changed in place by `f`.
    fn update<F>(self, f: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, f)
    }

    /// The items of the parallel iterators `f` maps each item to, in order.
    fn flat_map<F, PI>(self, f: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, f)
    }

    /// The items of the sequential iterators `f` maps each item to, in order.
    fn flat_map_iter<F, SI>(self, f: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        FlatMapIter::new(self, f)
    }

    /// The items of the items, which are parallel iterators.
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// The items of the items, which are sequential iterators.
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// This chain's items, then `chain`'s.
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// The items with a clone of `separator` between each two.
    fn intersperse(self, separator: Self::Item) -> Intersperse<Self, Self::Item>
    where
        Self::Item: Clone + Sync,
    {
        Intersperse::new(self, separator)
    }

    /// [`ParallelIterator::fold`] with a clone of `init` as each leaf's start.
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Sync + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// Folds each leaf's items from `identity()` until a step fails: one result per leaf.
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, ID, F, R>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// [`ParallelIterator::try_fold`] from a clone of `init`.
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, T, F, R>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send + Sync,
    {
        TryFold::new(self, per_leaf::WithClone(init), fold_op)
    }

    /// The items' outputs combined by `op` from `identity()`, until an item or a step
    /// fails: then a failure (any of them, if several); leaves stop once one fails.
    #[track_caller]
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        let failed = Arc::new(AtomicBool::new(false));
        let combine = |a: Self::Item, b: Self::Item| match (a.branch(), b.branch()) {
            (ControlFlow::Break(r), _) | (_, ControlFlow::Break(r)) => Self::Item::from_residual(r),
            (ControlFlow::Continue(a), ControlFlow::Continue(b)) => op(a, b),
        };
        drive_in(
            self,
            Stop::new(&failed),
            |_, items| {
                let mut acc = identity();
                for x in until(&failed, items) {
                    let step = match x.branch() {
                        ControlFlow::Continue(x) => op(acc, x).branch(),
                        ControlFlow::Break(r) => ControlFlow::Break(r),
                    };
                    match step {
                        ControlFlow::Continue(next) => acc = next,
                        ControlFlow::Break(r) => {
                            failed.store(true, AtomicOrdering::Relaxed);
                            return Self::Item::from_residual(r);
                        }
                    }
                }
                Self::Item::from_output(acc)
            },
            combine,
        )
        .unwrap_or_else(|| Self::Item::from_output(identity()))
    }

    /// [`ParallelIterator::try_reduce`] without an identity: `None` when there are no
    /// items.
    #[track_caller]
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
    {
        let failed = Arc::new(AtomicBool::new(false));
        let combine = |a: Self::Item, b: Self::Item| match (a.branch(), b.branch()) {
            (ControlFlow::Break(r), _) | (_, ControlFlow::Break(r)) => Self::Item::from_residual(r),
            (ControlFlow::Continue(a), ControlFlow::Continue(b)) => op(a, b),
        };
        drive_in(
            self,
            Stop::new(&failed),
            |_, items| {
                let mut acc: Option<T> = None;
                for x in until(&failed, items) {
                    let step = match (x.branch(), acc.take()) {
                        (ControlFlow::Continue(x), None) => ControlFlow::Continue(x),
                        (ControlFlow::Continue(x), Some(a)) => op(a, x).branch(),
                        (ControlFlow::Break(r), _) => ControlFlow::Break(r),
                    };
                    match step {
                        ControlFlow::Continue(next) => acc = Some(next),
                        ControlFlow::Break(r) => {
                            failed.store(true, AtomicOrdering::Relaxed);
                            return Some(Self::Item::from_residual(r));
                        }
                    }
                }
                acc.map(Self::Item::from_output)
            },
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(combine(a, b)),
                (a, b) => a.or(b),
            },
        )
        .flatten()
    }

    /// The items combined by `op`, which must be associative; `None` when there are no
    /// items.
    #[track_caller]
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        drive(
            self,
            |_, items| items.reduce(&op),
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, b) => a.or(b),
            },
        )
        .flatten()
    }

    /// The items; once a leaf panics, the others stop taking items (the panic still
    /// reaches the caller).
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// The `Some` values until the first `None` (leaves stop once one meets a `None`).
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// The items but any `n` of them (which ones depends on the order leaves run in).
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        AnyItems::skip(self, n)
    }

    /// Any `n` of the items (all if there are fewer).
    fn take_any(self, n: usize) -> TakeAny<Self> {
        AnyItems::take(self, n)
    }

    /// The items, skipping those that satisfy `predicate` until one does not (after
    /// that, leaves stop skipping).
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        AnyItems::skip_while(self, predicate)
    }

    /// The items that satisfy `predicate`, until one does not (then every leaf stops).
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        AnyItems::take_while(self, predicate)
    }

    /// The least item by `f`; the first of equal ones.
    #[track_caller]
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        self.reduce_with(|a, b| if f(&b, &a) == Ordering::Less { b } else { a })
    }

    /// The greatest item by `f`; the last of equal ones.
    #[track_caller]
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        self.reduce_with(|a, b| if f(&b, &a) == Ordering::Less { a } else { b })
    }

    /// The first item for which `predicate` holds; leaves right of a hit stop.
    #[track_caller]
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        // The lowest first position of a leaf with a hit; leaves right of it stop.
        let best = AtomicUsize::new(usize::MAX);
        drive(
            self,
            |range, items| {
                let hit = items
                    .take_while(|_| best.load(AtomicOrdering::Relaxed) > range.start)
                    .find(|x| predicate(x));
                if hit.is_some() {
                    best.fetch_min(range.start, AtomicOrdering::Relaxed);
                }
                hit
            },
            |a, b| a.or(b),
        )
        .flatten()
    }

    /// The last item for which `predicate` holds; leaves left of a hit stop.
    ///
    /// The leaves run from the last, and a leaf looks at its positions from the back, in
    /// runs that double in length (1, 2, 4, ... positions), so it stops soon after its
    /// last hit even when its positions hold more items than can be gone through; a
    /// flattening adapter searches its inner iterators from their backs too.
    #[track_caller]
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        drive_back(self, |x| predicate(&x).then_some(x))
    }

    /// Some `Some` value of `f` on the items, not necessarily the first.
    #[track_caller]
    fn find_map_any<P, R>(self, f: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_any(|_| true)
    }

    /// The first `Some` value of `f` on the items.
    #[track_caller]
    fn find_map_first<P, R>(self, f: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_first(|_| true)
    }

    /// The last `Some` value of `f` on the items.
    #[track_caller]
    fn find_map_last<P, R>(self, f: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        drive_back(self, f)
    }

    /// The pairs' first halves and second halves, each extending a default collection.
    #[track_caller]
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        extend::split_sides(self.map(|(a, b)| extend::Both(a, b)))
    }

    /// The items for which `predicate` holds, and the others.
    #[track_caller]
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.partition_map(|x| {
            if predicate(&x) {
                Either::Left(x)
            } else {
                Either::Right(x)
            }
        })
    }

    /// The `Left` values of `predicate` on the items, and the `Right` ones.
    #[track_caller]
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        extend::split_sides(self.map(predicate))
    }

    /// The leaves' items, each leaf's in a vector, in order.
    #[track_caller]
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        collect::vec_list(self)
    }

    /// Drives a rayon consumer with the items (rayon's `drive_unindexed`): the leaves a
    /// terminal would cut, each folded into a consumer split off the left, the results
    /// reduced in order (see [`plumbing`]).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: plumbing::UnindexedConsumer<Self::Item>,
    {
        plumbing::drive_leaves(self, consumer, |right: C, _| {
            let (left, reducer) = (right.split_off_left(), right.to_reducer());
            (left, right, reducer)
        })
    }
}

/// A parallel iterator whose item `i` is its position `i`: it can be enumerated, zipped
/// and bounded.
pub trait IndexedParallelIterator: ParallelIterator {
    /// How many items there are.
    fn len(&self) -> usize {
        self.exact_len().unwrap_or_else(|| self.position_count())
    }

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drives a rayon consumer with the items, split by index (rayon's `drive`; see
    /// [`plumbing`]).
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: plumbing::Consumer<Self::Item>,
    {
        plumbing::drive_leaves(self, consumer, |c: C, at| c.split_at(at))
    }

    /// Hands the items to `callback` as a rayon producer (rayon's `with_producer`; see
    /// [`plumbing`]).
    fn with_producer<CB>(mut self, callback: CB) -> CB::Output
    where
        CB: plumbing::ProducerCallback<Self::Item>,
    {
        let positions = self.position_count();
        self.driven(positions);
        callback.callback(plumbing::LeafProducer::new(&self, positions))
    }

    /// Each item with its index.
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Pairs of this chain's items and `other`'s, as long as the shorter one.
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// Leaves of at least `min` positions (fewer only for the last leaf).
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Leaves of at most `max` positions.
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Collects the items into `target`, in order, replacing what it held (its buffer is
    /// kept and reused where it is large enough).
    #[track_caller]
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        target.clear();
        collect::collect_exact_into(self, target);
    }

    /// The items past the first `n`.
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The first `n` items.
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// Every `step`-th item, from the first.
    ///
    /// # Panics
    /// If `step` is 0, as std's and rayon's do.
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// The items back to front.
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// This chain's items and `other`'s by turns, then the rest of the longer one.
    fn interleave<J>(self, other: J) -> Interleave<Self, J::Iter>
    where
        J: IntoParallelIterator<Item = Self::Item>,
        J::Iter: IndexedParallelIterator,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// This chain's items and `other`'s by turns, until one side runs out.
    fn interleave_shortest<J>(self, other: J) -> InterleaveShortest<Self, J::Iter>
    where
        J: IntoParallelIterator<Item = Self::Item>,
        J::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let (a, b) = (self.len(), other.len());
        Interleave::new(self.take(a.min(b.saturating_add(1))), other.take(b.min(a)))
    }

    /// The same items in the same order. rayon runs the blocks of exponentially
    /// growing length one after another, so a `find_first` can stop early; locus's
    /// leaves are cut by its own rule and a `find_first` already skips the leaves right
    /// of a hit, so the chain is left as it is.
    fn by_exponential_blocks(self) -> Self {
        self
    }

    /// The same items in the same order (rayon runs blocks of `block_size` one after
    /// another; see [`IndexedParallelIterator::by_exponential_blocks`]).
    ///
    /// # Panics
    /// If `block_size` is 0, as rayon's does.
    fn by_uniform_blocks(self, block_size: usize) -> Self {
        assert!(
            block_size != 0,
            "by_uniform_blocks: the block size must not be zero"
        );
        self
    }

    /// The items in vectors of `chunk_size`, the last possibly shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn chunks(self, chunk_size: usize) -> ChunksOf<Self> {
        ChunksOf::new(self, chunk_size)
    }

    /// Each run of `chunk_size` items folded from `identity()`.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// Each run of `chunk_size` items folded from a clone of `init`.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// The index of some item for which `predicate` holds.
    #[track_caller]
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_any(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the first item for which `predicate` holds.
    #[track_caller]
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_first(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the last item for which `predicate` holds.
    #[track_caller]
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_last(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The indices of the items for which `predicate` holds, in order.
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let keep: fn((usize, bool)) -> Option<usize> = |(i, hit)| hit.then_some(i);
        self.map(predicate).enumerate().filter_map(keep)
    }

    /// [`IndexedParallelIterator::zip`] of two chains of the same length.
    ///
    /// # Panics
    /// If the lengths differ, as rayon's does.
    #[track_caller]
    fn zip_eq<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let (a, b) = (self.len(), other.len());
        assert_eq!(a, b, "zip_eq: the iterators have different lengths");
        Zip::new(self, other)
    }

    /// The lexicographic comparison of this chain's items with `other`'s, as std's `cmp`.
    #[track_caller]
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let (a, b) = (self.len(), other.len());
        self.zip(other)
            .map(|(x, y)| x.cmp(&y))
            .find_first(|&o| o != Ordering::Equal)
            .unwrap_or_else(|| a.cmp(&b))
    }

    /// The lexicographic partial comparison of this chain's items with `other`'s, as
    /// std's `partial_cmp`.
    #[track_caller]
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let (a, b) = (self.len(), other.len());
        self.zip(other)
            .map(|(x, y)| x.partial_cmp(&y))
            .find_first(|&o| o != Some(Ordering::Equal))
            .unwrap_or_else(|| Some(a.cmp(&b)))
    }

    /// Whether this chain's items equal `other`'s, one by one, and the lengths agree.
    #[track_caller]
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(x, y)| x.eq(&y))
    }

    /// The negation of [`IndexedParallelIterator::eq`].
    #[track_caller]
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether this chain is lexicographically less than `other`.
    #[track_caller]
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Whether this chain is lexicographically less than or equal to `other`.
    #[track_caller]
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// Whether this chain is lexicographically greater than `other`.
    #[track_caller]
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Whether this chain is lexicographically greater than or equal to `other`.
    #[track_caller]
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Collects the pairs' halves into `left` and `right`, in order, replacing what they
    /// held.
    #[track_caller]
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        let (a, b): (Vec<A>, Vec<B>) = self.unzip();
        *left = a;
        *right = b;
    }
}

/// [`IndexedParallelIterator::positions`].
pub type Positions<I, P> = FilterMap<Enumerate<Map<I, P>>, fn((usize, bool)) -> Option<usize>>;

/// What can become a parallel iterator: rayon's `IntoParallelIterator`.
pub trait IntoParallelIterator {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// The parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;

    fn into_par_iter(self) -> I {
        self
    }
}

/// `par_iter()`: a parallel iterator over references, for anything whose reference is
/// [`IntoParallelIterator`] (slices, `Vec`s).
pub trait IntoParallelRefIterator<'data> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send + 'data;

    /// The parallel iterator over `&self`'s elements.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, C: 'data + ?Sized> IntoParallelRefIterator<'data> for C
where
    &'data C: IntoParallelIterator,
{
    type Iter = <&'data C as IntoParallelIterator>::Iter;
    type Item = <&'data C as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references, for anything whose
/// mutable reference is [`IntoParallelIterator`] (slices, `Vec`s).
pub trait IntoParallelRefMutIterator<'data> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send + 'data;

    /// The parallel iterator over `&mut self`'s elements.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, C: 'data + ?Sized> IntoParallelRefMutIterator<'data> for C
where
    &'data mut C: IntoParallelIterator,
{
    type Iter = <&'data mut C as IntoParallelIterator>::Iter;
    type Item = <&'data mut C as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// The cut of `positions` positions under `bounds`: the leaf length and the number of
/// leaves (see the module documentation).
fn cut(positions: usize, (min, max): (usize, usize)) -> (usize, usize) {
    if positions == 0 {
        return (1, 0);
    }
    let even = positions.div_ceil(LEAVES);
    let len = even.max(min).min(max.max(1)).max(1);
    (len, positions.div_ceil(len))
}

/// Runs `iter` as one loop of leaves: `leaf(range, items)` on each leaf's positions and
/// sequential items, the results reduced in leaf order by `reduce`; `None` when there
/// are no positions.
#[track_caller]
fn drive<I, R, L, Red>(iter: I, leaf: L, reduce: Red) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    L: Fn(Range<usize>, I::Seq<'_>) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    // A loop nested in a leaf's making (a flattening adapter's) keeps that leaf's stop.
    drive_in(iter, Stop::current(), leaf, reduce)
}

/// [`drive`], the leaves' adapters stopping by `stop` (see `stop.rs`).
#[track_caller]
fn drive_in<I, R, L, Red>(mut iter: I, stop: Stop, leaf: L, reduce: Red) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    L: Fn(Range<usize>, I::Seq<'_>) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    let positions = iter.position_count();
    iter.driven(positions);
    let (len, leaves) = cut(positions, iter.leaf_bounds());
    let iter = &iter;
    let run = |i: usize| {
        let lo = i * len;
        let range = lo..positions.min(lo.saturating_add(len));
        // SAFETY: the leaves' ranges are disjoint and within `0..positions`, announced
        // through `driven`; the loop runs each leaf once.
        let items = stop.install(|| unsafe { iter.seq(range.clone()) });
        leaf(range, items)
    };
    let order = stop.spawn_order();
    crate::split::run_loop(Location::caller(), leaves, order, run, reduce)
}

/// Runs `iter` as one loop of leaves for a search from the back: the loop takes the
/// leaves from the last (its chunk 0 is the last leaf, so a search that ends near the end
/// spares the others their work), each leaf takes its positions in runs from its end (1,
/// 2, 4, ... positions) and searches each with [`ParallelIterator::last_in`] until one
/// gives a hit; the last leaf's hit is kept. A leaf left of a leaf with a hit stops.
#[track_caller]
fn drive_back<I, H, K>(mut iter: I, keep: K) -> Option<H>
where
    I: ParallelIterator,
    H: Send,
    K: Fn(I::Item) -> Option<H> + Sync,
{
    let positions = iter.position_count();
    iter.driven(positions);
    let (len, leaves) = cut(positions, iter.leaf_bounds());
    let iter = &iter;
    // One past the highest first position of a leaf with a hit (0: none yet).
    let best = AtomicUsize::new(0);
    let run = |chunk: usize| {
        let lo = (leaves - 1 - chunk) * len;
        let leaf = lo..positions.min(lo.saturating_add(len));
        let beaten = || best.load(AtomicOrdering::Relaxed) > leaf.start;
        let (mut end, mut step) = (leaf.end, 1usize);
        while end > leaf.start && !beaten() {
            let start = end.saturating_sub(step).max(leaf.start);
            // SAFETY: the runs of a leaf are disjoint parts of its range, the leaves'
            // ranges are disjoint and within `0..positions`, announced through `driven`.
            let hit = unsafe { iter.last_in(start..end, &beaten, &keep) };
            end = start;
            if hit.is_some() {
                best.fetch_max(leaf.start + 1, AtomicOrdering::Relaxed);
                // The positions not looked at are taken and dropped below (an owning
                // source drops their items).
                // SAFETY: the rest of this leaf's range, not asked for before.
                drop(unsafe { iter.seq(leaf.start..end) });
                return hit;
            }
            step = step.saturating_mul(2);
        }
        if end > leaf.start {
            // Beaten: the rest is dropped unlooked at.
            // SAFETY: as above.
            drop(unsafe { iter.seq(leaf.start..end) });
        }
        None
    };
    // Chunk 0 is the last leaf: the first hit in chunk order is the last in item order,
    // so the chunks are spawned in order.
    crate::split::run_loop(
        Location::caller(),
        leaves,
        SpawnOrder::InOrder,
        run,
        |a, b| a.or(b),
    )
    .flatten()
}

/// A copy of a shared flag as it stands, for the `Clone` of an adapter that holds one
/// (cloned with its chain, before the chain runs, as rayon's adapters are).
fn flag_copy(flag: &AtomicBool) -> AtomicBool {
    AtomicBool::new(flag.load(AtomicOrdering::Relaxed))
}

/// `items` until `stop` is set (by another leaf).
fn until<'a, T>(
    stop: &'a AtomicBool,
    items: impl Iterator<Item = T> + 'a,
) -> impl Iterator<Item = T> + 'a {
    items.take_while(move |_| !stop.load(AtomicOrdering::Relaxed))
}

/// The comparison by the key `f` gives.
fn by_key<T, K: Ord>(f: impl Fn(&T) -> K) -> impl Fn(&T, &T) -> Ordering {
    move |a, b| f(a).cmp(&f(b))
}
