//! rayon's own iterator traits, with rayon's required methods: what the drop-in crate
//! (`crates/rayon-compat`) calls `rayon::iter::ParallelIterator` and so on, every
//! adapter and terminal with them. A program uses `locus::prelude` (locus's traits) or
//! these, not both: locus's iterators implement both sets, and with both in scope a
//! method call is ambiguous.
//!
//! # Two kinds of iterator, one set of traits
//! [`ParallelIterator`] and [`IndexedParallelIterator`] are rayon's traits: a type
//! implements them with rayon's required methods alone (`drive_unindexed` and
//! `opt_len`; `drive`, `len` and `with_producer` for an indexed one), as hashbrown's,
//! indexmap's and ndarray's iterators do, and gets every adapter and terminal.
//!
//! Every iterator of locus (`locus::iter`: the sources, locus's own adapters) is one of
//! them through a blanket implementation, and runs as locus runs it: the adapters and
//! terminals here build the same locus chain that `locus::prelude` would, through
//! [`ParallelIterator::with_locus`] (a callback handed the locus iterator, so nothing is
//! boxed and the chain compiles to what locus's own methods give: same leaves, same
//! task ids).
//!
//! A type of another crate becomes a locus iterator the way rayon would drive it:
//! - an indexed one ([`IndexedParallelIterator::with_locus_indexed`]) hands its
//!   [`plumbing::Producer`] to locus, which cuts it at the leaves it cuts any source at
//!   ([`plumbing::producer_iter`]: deterministic, split on locus's pool);
//! - an unindexed one is driven once by its own `drive_unindexed`, its pieces gathered
//!   in order into vectors (on locus's pool: a crate's `drive_unindexed` calls
//!   [`plumbing::bridge_unindexed`], which halves its producer as a tree of locus
//!   `join`s), and the chain then runs over those vectors. So an adapter on such a type
//!   gathers its items first: a search does not stop that gathering early.
//!
//! rayon's `ParallelDrainRange` and `ParallelDrainFull` are here too, over these traits,
//! with rayon's in-place drain of a `Vec`, `VecDeque` or `BinaryHeap`, [`RangeDrain`]
//! (`drain.rs`).
//!
//! What differs from rayon: a type implementing [`ParallelIterator`] by hand is not
//! [`IntoParallelIterator`] by that alone (call the adapters on it directly, or `.map`
//! it first); `flat_map`'s and `flatten`'s inner iterators, and `unzip`'s and
//! `partition`'s targets, are locus's (std's collections and locus's iterators, as with
//! `locus::prelude`).

pub mod adapters;
mod drain;
mod terminals;

pub use adapters::{
    Adapter, Chain, Chunks, Cloned, Copied, Enumerate, Filter, FilterMap, FlatMap, FlatMapIter,
    Flatten, FlattenIter, Fold, FoldChunks, FoldChunksWith, FoldWith, IndexedAdapter, IndexedOp,
    Inspect, Interleave, InterleaveShortest, Intersperse, LocusOp, Map, MapInit, MapWith, MaxLen,
    MinLen, Op, PanicFuse, Positions, Rev, Skip, SkipAny, SkipAnyWhile, StepBy, Take, TakeAny,
    TakeAnyWhile, TryFold, TryFoldWith, Update, WhileSome, Zip, ZipEq,
};
pub use drain::{ParallelDrainFull, ParallelDrainRange, RangeDrain};

use super::{Either, Try};
use crate::iter as li;
use plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::iter::{Product, Sum};
use std::ops::{Range, RangeInclusive};
use std::rc::Rc;
use std::sync::Arc;
use terminals as t;

/// rayon's `rayon::iter::plumbing`: locus's ([`super::plumbing`]), with
/// [`plumbing::bridge`] taking this module's [`IndexedParallelIterator`].
pub mod plumbing {
    pub use crate::iter::plumbing::*;

    /// Drives `consumer` with `par_iter`'s items: rayon's `bridge`, through the
    /// iterator's producer, as locus's own `bridge` (whose documentation says why).
    pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
    where
        I: super::IndexedParallelIterator,
        C: Consumer<I::Item>,
    {
        let len = par_iter.len();
        par_iter.with_producer(crate::iter::plumbing::BridgeCallback { len, consumer })
    }
}

/// What [`ParallelIterator::with_locus`] hands the locus iterator to (rayon's
/// `ProducerCallback`, for locus's iterators).
pub trait LocusCallback<T: Send> {
    /// What the callback returns.
    type Output;

    /// Called with the locus iterator.
    fn call<L>(self, iter: L) -> Self::Output
    where
        L: li::ParallelIterator<Item = T>;
}

/// What [`IndexedParallelIterator::with_locus_indexed`] hands the indexed locus iterator
/// to.
pub trait IndexedLocusCallback<T: Send> {
    /// What the callback returns.
    type Output;

    /// Called with the indexed locus iterator.
    fn call<L>(self, iter: L) -> Self::Output
    where
        L: li::IndexedParallelIterator<Item = T>;
}

/// rayon's `ParallelIterator`. A type implements `drive_unindexed` (and `opt_len` where
/// it knows its length); locus's iterators implement it all.
pub trait ParallelIterator: Sized + Send {
    /// The items.
    type Item: Send;

    /// Drives `consumer` with the items (rayon's required method).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The number of items, if known without running the chain.
    fn opt_len(&self) -> Option<usize> {
        None
    }

    /// Hands the locus iterator this one runs as to `callback`: itself for locus's
    /// iterators, the chain an adapter builds for an adapter, and for another type its
    /// items, gathered by `drive_unindexed` (see the module documentation).
    #[track_caller]
    fn with_locus<CB>(self, callback: CB) -> CB::Output
    where
        CB: LocusCallback<Self::Item>,
    {
        callback.call(adapters::gathered(self))
    }

    /// Calls `op` on every item.
    #[track_caller]
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        self.with_locus(t::ForEach::new(op))
    }

    /// Calls `op` on every item with a clone of `init` per leaf.
    #[track_caller]
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Sync + Clone,
    {
        self.with_locus(t::ForEachWith::new(init, op))
    }

    /// Calls `op` on every item with a value `init` makes per leaf.
    #[track_caller]
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.with_locus(t::ForEachInit::new(init, op))
    }

    /// Calls `op` on every item until one fails.
    #[track_caller]
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.with_locus(t::TryForEach::new(op))
    }

    /// [`ParallelIterator::try_for_each`] with a clone of `init` per leaf.
    #[track_caller]
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Sync + Clone,
        R: Try<Output = ()> + Send,
    {
        self.with_locus(t::TryForEachWith::new(init, op))
    }

    /// [`ParallelIterator::try_for_each`] with a value `init` makes per leaf.
    #[track_caller]
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.with_locus(t::TryForEachInit::new(init, op))
    }

    /// The number of items.
    #[track_caller]
    fn count(self) -> usize {
        self.with_locus(t::Count::new())
    }

    /// Each item mapped by `map_op`.
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Adapter::new(self, adapters::MapOp { f: map_op })
    }

    /// Each item mapped by `map_op` with a clone of `init` per leaf.
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Sync + Clone,
        R: Send,
    {
        Adapter::new(self, adapters::MapWithOp { init, f: map_op })
    }

    /// Each item mapped by `map_op` with a value `init` makes per leaf.
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        Adapter::new(self, adapters::MapInitOp { init, f: map_op })
    }

    /// The referenced items, cloned.
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Adapter::new(self, adapters::ClonedOp {})
    }

    /// The referenced items, copied.
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Adapter::new(self, adapters::CopiedOp {})
    }

    /// The items, each shown to `inspect_op` first.
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Adapter::new(self, adapters::InspectOp { f: inspect_op })
    }

    /// The items, each changed in place by `update_op`.
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Adapter::new(self, adapters::UpdateOp { f: update_op })
    }

    /// The items `filter_op` keeps.
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Adapter::new(self, adapters::FilterOp { f: filter_op })
    }

    /// The `Some`s `filter_op` gives.
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        Adapter::new(self, adapters::FilterMapOp { f: filter_op })
    }

    /// The items of the parallel iterators `map_op` gives, in order.
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: li::IntoParallelIterator,
    {
        Adapter::new(self, adapters::FlatMapOp { f: map_op })
    }

    /// The items of the sequential iterators `map_op` gives, in order.
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        Adapter::new(self, adapters::FlatMapIterOp { f: map_op })
    }

    /// The items of the items, which are parallel iterators.
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: li::IntoParallelIterator,
    {
        Adapter::new(self, adapters::FlattenOp {})
    }

    /// The items of the items, which are sequential iterators.
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        Adapter::new(self, adapters::FlattenIterOp {})
    }

    /// Reduces the items with `op`, `identity` for none.
    #[track_caller]
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        self.with_locus(t::Reduce::new(identity, op))
    }

    /// Reduces the items with `op`; `None` for none.
    #[track_caller]
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        self.with_locus(t::ReduceWith::new(op))
    }

    /// Reduces the successes with `op` until a failure.
    #[track_caller]
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        self.with_locus(t::TryReduce::new(identity, op))
    }

    /// Reduces the successes with `op` until a failure; `None` for none.
    #[track_caller]
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
    {
        self.with_locus(t::TryReduceWith::new(op))
    }

    /// One accumulator per leaf, folded by `fold_op` from `identity()`.
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Adapter::new(
            self,
            adapters::FoldOp {
                identity,
                f: fold_op,
            },
        )
    }

    /// One accumulator per leaf, folded by `fold_op` from a clone of `init`.
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Sync + Clone,
    {
        Adapter::new(self, adapters::FoldWithOp { init, f: fold_op })
    }

    /// [`ParallelIterator::fold`] until `fold_op` fails.
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        Adapter::new(self, adapters::TryFoldOp::new(identity, fold_op))
    }

    /// [`ParallelIterator::fold_with`] until `fold_op` fails.
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send + Sync,
    {
        Adapter::new(self, adapters::TryFoldWithOp::new(init, fold_op))
    }

    /// The sum of the items.
    #[track_caller]
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        self.with_locus(t::SumOf::new())
    }

    /// The product of the items.
    #[track_caller]
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        self.with_locus(t::ProductOf::new())
    }

    /// The least item (the first of equals).
    #[track_caller]
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.with_locus(t::Min::new())
    }

    /// The least item by `f` (the first of equals).
    #[track_caller]
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        self.with_locus(t::MinBy::new(f))
    }

    /// The item of least key (the first of equals).
    #[track_caller]
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.with_locus(t::MinByKey::new(f))
    }

    /// The greatest item (the last of equals).
    #[track_caller]
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.with_locus(t::Max::new())
    }

    /// The greatest item by `f` (the last of equals).
    #[track_caller]
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        self.with_locus(t::MaxBy::new(f))
    }

    /// The item of greatest key (the last of equals).
    #[track_caller]
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.with_locus(t::MaxByKey::new(f))
    }

    /// The items of `self`, then those of `chain`.
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Adapter::new(
            self,
            adapters::ChainOp {
                other: chain.into_par_iter(),
            },
        )
    }

    /// Some item `predicate` accepts.
    #[track_caller]
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.with_locus(t::FindAny::new(predicate))
    }

    /// The first item `predicate` accepts.
    #[track_caller]
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.with_locus(t::FindFirst::new(predicate))
    }

    /// The last item `predicate` accepts.
    #[track_caller]
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.with_locus(t::FindLast::new(predicate))
    }

    /// Some `Some` that `predicate` gives.
    #[track_caller]
    fn find_map_any<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_any(|_| true)
    }

    /// The first `Some` that `predicate` gives.
    #[track_caller]
    fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_first(|_| true)
    }

    /// The last `Some` that `predicate` gives.
    #[track_caller]
    fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_last(|_| true)
    }

    /// Whether `predicate` accepts some item.
    #[track_caller]
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.with_locus(t::AnyOf::new(predicate))
    }

    /// Whether `predicate` accepts every item.
    #[track_caller]
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.with_locus(t::AllOf::new(predicate))
    }

    /// The items up to the first `None`, unwrapped.
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        Adapter::new(self, adapters::WhileSomeOp {})
    }

    /// The items, every leaf stopping once one has panicked.
    fn panic_fuse(self) -> PanicFuse<Self> {
        Adapter::new(self, adapters::PanicFuseOp {})
    }

    /// The items gathered into `C`.
    #[track_caller]
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// The pairs' halves gathered into two collections.
    #[track_caller]
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + li::ParallelExtend<A>,
        FromB: Default + Send + li::ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        self.with_locus(t::Unzip::new())
    }

    /// The items `predicate` accepts into one collection, the others into another.
    #[track_caller]
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + li::ParallelExtend<Self::Item>,
        B: Default + Send + li::ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.with_locus(t::Partition::new(predicate))
    }

    /// Each item's `Left` into one collection, `Right` into another.
    #[track_caller]
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + li::ParallelExtend<L>,
        B: Default + Send + li::ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        self.with_locus(t::PartitionMap::new(predicate))
    }

    /// The items with a clone of `element` between each two.
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone + Sync,
    {
        Adapter::new(self, adapters::IntersperseOp { element })
    }

    /// All but `n` items, not necessarily the first.
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        Adapter::new(self, adapters::SkipAnyOp { n })
    }

    /// `n` items, not necessarily the first.
    fn take_any(self, n: usize) -> TakeAny<Self> {
        Adapter::new(self, adapters::TakeAnyOp { n })
    }

    /// The items from the first `predicate` refuses in each leaf on.
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Adapter::new(self, adapters::SkipAnyWhileOp { f: predicate })
    }

    /// The items before the first `predicate` refuses in each leaf.
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Adapter::new(self, adapters::TakeAnyWhileOp { f: predicate })
    }

    /// The items as a list of vectors, in order.
    #[track_caller]
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        self.with_locus(t::VecList::new())
    }
}

/// rayon's `IndexedParallelIterator`. A type implements `drive`, `len` and
/// `with_producer`; locus's indexed iterators implement it all.
pub trait IndexedParallelIterator: ParallelIterator {
    /// Drives `consumer` with the items, split at indices (rayon's required method).
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// The number of items.
    fn len(&self) -> usize;

    /// Hands the iterator's producer to `callback` (rayon's required method).
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;

    /// Hands the indexed locus iterator this one runs as to `callback`: itself for
    /// locus's iterators, the chain an adapter builds for an adapter, and for another
    /// type its producer, cut at locus's leaves ([`plumbing::producer_iter`]).
    #[track_caller]
    fn with_locus_indexed<CB>(self, callback: CB) -> CB::Output
    where
        CB: IndexedLocusCallback<Self::Item>,
    {
        let len = self.len();
        self.with_producer(adapters::ToLocus { len, callback })
    }

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gathers the items into `target`, replacing what it held.
    #[track_caller]
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        self.with_locus_indexed(t::IntoVec::new(target))
    }

    /// The pairs' halves into two vectors, replacing what they held.
    #[track_caller]
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        self.with_locus_indexed(t::UnzipIntoVecs::new(left, right))
    }

    /// Pairs of the items of `self` and `zip_op`, as long as the shorter.
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        IndexedAdapter::new(
            self,
            adapters::ZipOp {
                other: zip_op.into_par_iter(),
            },
        )
    }

    /// [`IndexedParallelIterator::zip`] of two iterators of equal length.
    ///
    /// # Panics
    /// If the lengths differ.
    #[track_caller]
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = zip_op.into_par_iter();
        let (a, b) = (self.len(), other.len());
        assert_eq!(a, b, "zip_eq: the iterators have different lengths");
        IndexedAdapter::new(self, adapters::ZipOp { other })
    }

    /// The items of `self` and `other`, alternating, then the longer one's rest.
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        IndexedAdapter::new(
            self,
            adapters::InterleaveOp {
                other: other.into_par_iter(),
                shortest: false,
            },
        )
    }

    /// The items of `self` and `other`, alternating, until one runs out.
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        IndexedAdapter::new(
            self,
            adapters::InterleaveOp {
                other: other.into_par_iter(),
                shortest: true,
            },
        )
    }

    /// Vectors of `chunk_size` consecutive items (the last may be shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        assert!(chunk_size != 0, "chunks: the chunk size must not be zero");
        IndexedAdapter::new(self, adapters::ChunksOp { size: chunk_size })
    }

    /// Each run of `chunk_size` items folded by `fold_op` from `identity()`.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
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
        assert!(
            chunk_size != 0,
            "fold_chunks: the chunk size must not be zero"
        );
        let op = adapters::FoldChunksOp {
            size: chunk_size,
            identity,
            f: fold_op,
        };
        IndexedAdapter::new(self, op)
    }

    /// Each run of `chunk_size` items folded by `fold_op` from a clone of `init`.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    #[track_caller]
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
        assert!(
            chunk_size != 0,
            "fold_chunks_with: the chunk size must not be zero"
        );
        let op = adapters::FoldChunksWithOp {
            size: chunk_size,
            init,
            f: fold_op,
        };
        IndexedAdapter::new(self, op)
    }

    /// The items' order against `other`'s, lexicographically.
    #[track_caller]
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Cmp))
    }

    /// The items' partial order against `other`'s, lexicographically.
    #[track_caller]
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::PartialCmp))
    }

    /// Whether the items equal `other`'s.
    #[track_caller]
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Eq))
    }

    /// Whether the items differ from `other`'s.
    #[track_caller]
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Ne))
    }

    /// Whether the items come before `other`'s.
    #[track_caller]
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Lt))
    }

    /// Whether the items come before `other`'s or equal them.
    #[track_caller]
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Le))
    }

    /// Whether the items come after `other`'s.
    #[track_caller]
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Gt))
    }

    /// Whether the items come after `other`'s or equal them.
    #[track_caller]
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        self.with_locus_indexed(t::Pair::new(other, t::Ge))
    }

    /// Each item with its index.
    fn enumerate(self) -> Enumerate<Self> {
        IndexedAdapter::new(self, adapters::EnumerateOp {})
    }

    /// Every `step`th item, from the first.
    ///
    /// # Panics
    /// If `step` is 0.
    #[track_caller]
    fn step_by(self, step: usize) -> StepBy<Self> {
        assert!(step != 0, "step_by: the step must not be zero");
        IndexedAdapter::new(self, adapters::StepByOp { step })
    }

    /// All but the first `n` items.
    fn skip(self, n: usize) -> Skip<Self> {
        IndexedAdapter::new(self, adapters::SkipOp { n })
    }

    /// The first `n` items.
    fn take(self, n: usize) -> Take<Self> {
        IndexedAdapter::new(self, adapters::TakeOp { n })
    }

    /// The index of some item `predicate` accepts.
    #[track_caller]
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.with_locus_indexed(t::PositionAny::new(predicate))
    }

    /// The index of the first item `predicate` accepts.
    #[track_caller]
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.with_locus_indexed(t::PositionFirst::new(predicate))
    }

    /// The index of the last item `predicate` accepts.
    #[track_caller]
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.with_locus_indexed(t::PositionLast::new(predicate))
    }

    /// The indices of the items `predicate` accepts.
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let keep: fn((usize, bool)) -> Option<usize> = |(i, hit)| hit.then_some(i);
        self.map(predicate).enumerate().filter_map(keep)
    }

    /// The items from the last to the first.
    fn rev(self) -> Rev<Self> {
        IndexedAdapter::new(self, adapters::RevOp {})
    }

    /// The items, no leaf holding fewer than `min`.
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        IndexedAdapter::new(self, adapters::MinLenOp { min })
    }

    /// The items, no leaf holding more than `max`.
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        IndexedAdapter::new(self, adapters::MaxLenOp { max })
    }

    /// The items (locus's leaves already let a `find_first` skip the leaves right of a
    /// hit).
    fn by_exponential_blocks(self) -> Self {
        self
    }

    /// The items (see [`IndexedParallelIterator::by_exponential_blocks`]).
    ///
    /// # Panics
    /// If `block_size` is 0.
    #[track_caller]
    fn by_uniform_blocks(self, block_size: usize) -> Self {
        assert!(
            block_size != 0,
            "by_uniform_blocks: the block size must not be zero"
        );
        self
    }
}

impl<T: li::ParallelIterator> ParallelIterator for T {
    type Item = T::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        li::ParallelIterator::drive_unindexed(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        li::ParallelIterator::opt_len(self)
    }

    #[track_caller]
    fn with_locus<CB>(self, callback: CB) -> CB::Output
    where
        CB: LocusCallback<Self::Item>,
    {
        callback.call(self)
    }
}

impl<T: li::IndexedParallelIterator> IndexedParallelIterator for T {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        li::IndexedParallelIterator::drive(self, consumer)
    }

    fn len(&self) -> usize {
        li::IndexedParallelIterator::len(self)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        li::IndexedParallelIterator::with_producer(self, callback)
    }

    #[track_caller]
    fn with_locus_indexed<CB>(self, callback: CB) -> CB::Output
    where
        CB: IndexedLocusCallback<Self::Item>,
    {
        callback.call(self)
    }
}

/// rayon's `IntoParallelIterator`: what `into_par_iter` makes a parallel iterator of.
/// Every source of locus is one, and so are this crate's adapters.
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// The parallel iterator over `self`.
    fn into_par_iter(self) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;

    fn into_par_iter(self) -> T {
        self
    }
}

/// The sources of `locus::iter` that are not iterators themselves: their
/// `IntoParallelIterator` is locus's.
macro_rules! sources {
    ($([$($g:tt)*] $ty:ty;)*) => {$(
        impl<$($g)*> IntoParallelIterator for $ty
        where
            $ty: li::IntoParallelIterator,
        {
            type Iter = <$ty as li::IntoParallelIterator>::Iter;
            type Item = <$ty as li::IntoParallelIterator>::Item;

            fn into_par_iter(self) -> Self::Iter {
                li::IntoParallelIterator::into_par_iter(self)
            }
        }
    )*};
}

sources! {
    [T] Vec<T>;
    ['a, T] &'a Vec<T>;
    ['a, T] &'a mut Vec<T>;
    ['a, T] &'a [T];
    ['a, T] &'a mut [T];
    [T, const N: usize] [T; N];
    ['a, T, const N: usize] &'a [T; N];
    ['a, T, const N: usize] &'a mut [T; N];
    [T] Box<[T]>;
    [T] Range<T>;
    [T] RangeInclusive<T>;
    [T] Option<T>;
    ['a, T] &'a Option<T>;
    ['a, T] &'a mut Option<T>;
    [T, E] Result<T, E>;
    ['a, T, E] &'a Result<T, E>;
    ['a, T, E] &'a mut Result<T, E>;
    [T] LinkedList<T>;
    ['a, T] &'a LinkedList<T>;
    ['a, T] &'a mut LinkedList<T>;
    [T] VecDeque<T>;
    ['a, T] &'a VecDeque<T>;
    ['a, T] &'a mut VecDeque<T>;
    [T] BinaryHeap<T>;
    ['a, T] &'a BinaryHeap<T>;
    [T] BTreeSet<T>;
    ['a, T] &'a BTreeSet<T>;
    [K, V] BTreeMap<K, V>;
    ['a, K, V] &'a BTreeMap<K, V>;
    ['a, K, V] &'a mut BTreeMap<K, V>;
    [T, S] HashSet<T, S>;
    ['a, T, S] &'a HashSet<T, S>;
    [K, V, S] HashMap<K, V, S>;
    ['a, K, V, S] &'a HashMap<K, V, S>;
    ['a, K, V, S] &'a mut HashMap<K, V, S>;
}

/// Tuples of indexed iterators zipped (locus's `MultiZip`), by value and by reference.
macro_rules! tuples {
    ($(($($t:ident),+))*) => {$(
        sources! {
            [$($t),+] ($($t,)+);
            ['a, $($t),+] &'a ($($t,)+);
            ['a, $($t),+] &'a mut ($($t,)+);
        }
    )*};
}

tuples! {
    (A) (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) (A, B, C, D, E, F)
    (A, B, C, D, E, F, G) (A, B, C, D, E, F, G, H) (A, B, C, D, E, F, G, H, I)
    (A, B, C, D, E, F, G, H, I, J) (A, B, C, D, E, F, G, H, I, J, K)
    (A, B, C, D, E, F, G, H, I, J, K, L)
}

/// rayon's `IntoParallelRefIterator`: `par_iter` on what `&C` iterates.
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send + 'data;

    /// The parallel iterator over `&self`.
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

/// rayon's `IntoParallelRefMutIterator`: `par_iter_mut` on what `&mut C` iterates.
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send + 'data;

    /// The parallel iterator over `&mut self`.
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

/// rayon's `FromParallelIterator`: what `collect` builds. Every collection locus
/// collects into is one.
pub trait FromParallelIterator<T: Send>: Sized {
    /// Builds `Self` from the items of `par_iter`, in order.
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// rayon's `ParallelExtend`: what `par_extend` adds to. Every collection locus extends
/// is one.
pub trait ParallelExtend<T: Send> {
    /// Adds the items of `par_iter`, in order.
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

/// The collections of `locus::iter`: their `FromParallelIterator` and `ParallelExtend`
/// are locus's. (A blanket implementation over locus's traits would keep a crate from
/// implementing these traits for its own generic collections, as hashbrown does.)
macro_rules! collections {
    (@from [$($g:tt)*] $ty:ty => $item:ty) => {
        impl<$($g)*> FromParallelIterator<$item> for $ty
        where
            $item: Send,
            $ty: li::FromParallelIterator<$item>,
        {
            #[track_caller]
            fn from_par_iter<I>(par_iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                par_iter.into_par_iter().with_locus(t::Collect::new())
            }
        }
    };
    (@extend [$($g:tt)*] $ty:ty => $item:ty) => {
        impl<$($g)*> ParallelExtend<$item> for $ty
        where
            $item: Send,
            $ty: li::ParallelExtend<$item>,
        {
            #[track_caller]
            fn par_extend<I>(&mut self, par_iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                par_iter.into_par_iter().with_locus(t::Extend::new(self))
            }
        }
    };
    ($($how:ident [$($g:tt)*] $ty:ty => $item:ty;)*) => {$(
        collections!(@$how [$($g)*] $ty => $item);
    )*};
    (@both [$($g:tt)*] $ty:ty => $item:ty) => {
        collections!(@from [$($g)*] $ty => $item);
        collections!(@extend [$($g)*] $ty => $item);
    };
}

collections! {
    both [T] Vec<T> => T;
    extend ['a, T] Vec<T> => &'a T;
    both [T] VecDeque<T> => T;
    both ['a, T] VecDeque<T> => &'a T;
    both [T] LinkedList<T> => T;
    both ['a, T] LinkedList<T> => &'a T;
    both [T] BinaryHeap<T> => T;
    both ['a, T] BinaryHeap<T> => &'a T;
    both [T] BTreeSet<T> => T;
    both ['a, T] BTreeSet<T> => &'a T;
    both [K, V] BTreeMap<K, V> => (K, V);
    both ['a, K, V] BTreeMap<K, V> => (&'a K, &'a V);
    both [T, S] HashSet<T, S> => T;
    both ['a, T, S] HashSet<T, S> => &'a T;
    both [K, V, S] HashMap<K, V, S> => (K, V);
    both ['a, K, V, S] HashMap<K, V, S> => (&'a K, &'a V);
    both [] String => char;
    both ['a] String => &'a char;
    both ['a] String => &'a str;
    both [] String => String;
    both [] String => Box<str>;
    both ['a] String => Cow<'a, str>;
    both [] () => ();
    from [T] Box<[T]> => T;
    from [T] Rc<[T]> => T;
    from [T] Arc<[T]> => T;
    from ['a, C: ?Sized + ToOwned, T] Cow<'a, C> => T;
    from [C, T] Option<C> => Option<T>;
    extend [C, T] Option<C> => Option<T>;
    from [C, T, E] Result<C, E> => Result<T, E>;
    both [A, B, FromA, FromB] (FromA, FromB) => (A, B);
}
