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
//! a slice's chunks), and every adapter keeps its source's positions. A terminal
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

pub mod hook;

mod adapt;
mod collect;
mod slice;
mod sort;
mod source;

pub use adapt::{Cloned, Copied, Enumerate, Filter, FilterMap, Fold, Map, MaxLen, MinLen, Zip};
pub use collect::FromParallelIterator;
pub use slice::{ParallelSlice, ParallelSliceMut};
pub use source::{Chunks, ChunksExact, ChunksMut, Drain, IntoIter, Iter, IterMut, RangeIter};

use std::cmp::Ordering;
use std::iter::{Product, Sum};
use std::ops::Range;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

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

    /// How many positions there are: leaves cover `0..positions()`.
    fn positions(&self) -> usize;

    /// How many items there are, if that is known without running the chain: then item
    /// `i` is position `i`.
    fn exact_len(&self) -> Option<usize>;

    /// The least and the most positions a leaf may hold (`with_min_len`,
    /// `with_max_len`); `(1, usize::MAX)` unless bounded.
    fn leaf_bounds(&self) -> (usize, usize) {
        (1, usize::MAX)
    }

    /// Called by a terminal once, before any [`ParallelIterator::seq`], with the number
    /// of positions it will hand to leaves (`positions()`, less for a `zip` with a
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
        let found = AtomicBool::new(false);
        drive(
            self,
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
}

/// A parallel iterator whose item `i` is its position `i`: it can be enumerated, zipped
/// and bounded.
pub trait IndexedParallelIterator: ParallelIterator {
    /// How many items there are.
    fn len(&self) -> usize {
        self.exact_len().unwrap_or_else(|| self.positions())
    }

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// Collects the items into `target`, in order, replacing what it held.
    #[track_caller]
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        target.clear();
        *target = collect::collect_exact(self);
    }
}

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
fn drive<I, R, L, Red>(mut iter: I, leaf: L, reduce: Red) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    L: Fn(Range<usize>, I::Seq<'_>) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    let positions = iter.positions();
    iter.driven(positions);
    let (len, leaves) = cut(positions, iter.leaf_bounds());
    let iter = &iter;
    let run = |i: usize| {
        let lo = i * len;
        let range = lo..positions.min(lo + len);
        // SAFETY: the leaves' ranges are disjoint and within `0..positions`, announced
        // through `driven`; the loop runs each leaf once.
        let items = unsafe { iter.seq(range.clone()) };
        leaf(range, items)
    };
    crate::split::run_loop(Location::caller(), leaves, run, reduce)
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
