//! The types behind rayon's adapter names: an [`Adapter`] (or an [`IndexedAdapter`],
//! for the adapters that need their base's indices) holds its base iterator and an
//! operation, and runs as the locus chain the operation builds on its base's locus
//! iterator.

use super::{IndexedLocusCallback, LocusCallback};
use crate::iter as li;
use crate::iter::plumbing::{
    Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
};
use crate::iter::rayon as compat;
use crate::iter::ParallelIterator as _;
use std::collections::LinkedList;
use std::fmt;

/// An operation on a locus iterator of `T`s that any locus iterator takes.
pub trait Op<T: Send>: Send + Sized {
    /// The items of the result.
    type Item: Send;

    /// Hands `callback` the locus chain this operation makes of `iter`.
    fn apply<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::ParallelIterator<Item = T>,
        CB: LocusCallback<Self::Item>;

    /// The number of items of the result, from the base's, if known.
    fn opt_len(&self, base: Option<usize>) -> Option<usize> {
        let _ = base;
        None
    }
}

/// An operation on an indexed locus iterator of `T`s whose result is indexed.
pub trait IndexedOp<T: Send>: Send + Sized {
    /// The items of the result.
    type Item: Send;

    /// Hands `callback` the indexed locus chain this operation makes of `iter`.
    fn apply_indexed<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<Self::Item>;

    /// The number of items of the result, from the base's.
    fn len(&self, base: usize) -> usize;
}

/// An adapter that any base takes: indexed where its base is and its operation keeps
/// the indices.
#[derive(Clone)]
pub struct Adapter<I, A> {
    base: I,
    op: A,
}

/// An adapter that needs its base's indices.
#[derive(Clone)]
pub struct IndexedAdapter<I, A> {
    base: I,
    op: A,
}

impl<I, A> Adapter<I, A> {
    pub(super) fn new(base: I, op: A) -> Self {
        Adapter { base, op }
    }
}

impl<I, A> IndexedAdapter<I, A> {
    pub(super) fn new(base: I, op: A) -> Self {
        IndexedAdapter { base, op }
    }
}

impl<I: fmt::Debug, A: fmt::Debug> fmt::Debug for Adapter<I, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Adapter")
            .field("base", &self.base)
            .field("op", &self.op)
            .finish()
    }
}

impl<I: fmt::Debug, A: fmt::Debug> fmt::Debug for IndexedAdapter<I, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IndexedAdapter")
            .field("base", &self.base)
            .field("op", &self.op)
            .finish()
    }
}

/// The callback that applies an operation, then hands the result on.
struct Apply<A, CB> {
    op: A,
    callback: CB,
}

impl<T: Send, A: Op<T>, CB: LocusCallback<A::Item>> LocusCallback<T> for Apply<A, CB> {
    type Output = CB::Output;

    #[track_caller]
    fn call<L: li::ParallelIterator<Item = T>>(self, iter: L) -> CB::Output {
        self.op.apply(iter, self.callback)
    }
}

impl<T: Send, A: IndexedOp<T>, CB: IndexedLocusCallback<A::Item>> IndexedLocusCallback<T>
    for Apply<A, CB>
{
    type Output = CB::Output;

    #[track_caller]
    fn call<L: li::IndexedParallelIterator<Item = T>>(self, iter: L) -> CB::Output {
        self.op.apply_indexed(iter, self.callback)
    }
}

/// An unindexed callback handed an indexed iterator.
struct Unindexed<CB>(CB);

impl<T: Send, CB: LocusCallback<T>> IndexedLocusCallback<T> for Unindexed<CB> {
    type Output = CB::Output;

    #[track_caller]
    fn call<L: li::IndexedParallelIterator<Item = T>>(self, iter: L) -> CB::Output {
        self.0.call(iter)
    }
}

/// Drives a rayon consumer with the locus iterator, unindexed.
struct DriveUnindexed<C>(C);

impl<T: Send, C: UnindexedConsumer<T>> LocusCallback<T> for DriveUnindexed<C> {
    type Output = C::Result;

    fn call<L: li::ParallelIterator<Item = T>>(self, iter: L) -> C::Result {
        iter.drive_unindexed(self.0)
    }
}

/// Drives a rayon consumer with the indexed locus iterator.
struct Drive<C>(C);

impl<T: Send, C: Consumer<T>> IndexedLocusCallback<T> for Drive<C> {
    type Output = C::Result;

    fn call<L: li::IndexedParallelIterator<Item = T>>(self, iter: L) -> C::Result {
        iter.drive(self.0)
    }
}

/// Hands the indexed locus iterator's producer to a rayon callback.
struct WithProducer<CB>(CB);

impl<T: Send, CB: ProducerCallback<T>> IndexedLocusCallback<T> for WithProducer<CB> {
    type Output = CB::Output;

    fn call<L: li::IndexedParallelIterator<Item = T>>(self, iter: L) -> CB::Output {
        iter.with_producer(self.0)
    }
}

/// A rayon producer of `len` items, made a locus iterator cut at locus's leaves, handed
/// to `callback`.
pub(super) struct ToLocus<CB> {
    pub(super) len: usize,
    pub(super) callback: CB,
}

impl<T: Send, CB: IndexedLocusCallback<T>> ProducerCallback<T> for ToLocus<CB> {
    type Output = CB::Output;

    #[track_caller]
    fn callback<P: Producer<Item = T>>(self, producer: P) -> CB::Output {
        self.callback
            .call(li::plumbing::producer_iter(producer, self.len))
    }
}

/// The items of an iterator that only `drive_unindexed` can run, gathered in order, as
/// a locus iterator over the vectors its pieces gave.
pub(super) fn gathered<I: compat::ParallelIterator>(
    iter: I,
) -> li::FlattenIter<li::IntoIter<Vec<I::Item>>> {
    let pieces: Vec<Vec<I::Item>> = compat::ParallelIterator::drive_unindexed(iter, Gather)
        .into_iter()
        .collect();
    li::IntoParallelIterator::into_par_iter(pieces).flatten_iter()
}

/// The consumer that gathers items in order as a list of vectors (rayon's
/// `collect_vec_list`).
struct Gather;

impl<T: Send> Consumer<T> for Gather {
    type Folder = GatherFolder<T>;
    type Reducer = Gather;
    type Result = LinkedList<Vec<T>>;

    fn split_at(self, _index: usize) -> (Self, Self, Gather) {
        (Gather, Gather, Gather)
    }

    fn into_folder(self) -> GatherFolder<T> {
        GatherFolder(Vec::new())
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for Gather {
    fn split_off_left(&self) -> Self {
        Gather
    }

    fn to_reducer(&self) -> Gather {
        Gather
    }
}

impl<T> Reducer<LinkedList<Vec<T>>> for Gather {
    fn reduce(
        self,
        mut left: LinkedList<Vec<T>>,
        mut right: LinkedList<Vec<T>>,
    ) -> LinkedList<Vec<T>> {
        left.append(&mut right);
        left
    }
}

/// [`Gather`]'s folder: one piece's items.
struct GatherFolder<T>(Vec<T>);

impl<T> Folder<T> for GatherFolder<T> {
    type Result = LinkedList<Vec<T>>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn consume_iter<It: IntoIterator<Item = T>>(mut self, iter: It) -> Self {
        self.0.extend(iter);
        self
    }

    fn complete(self) -> LinkedList<Vec<T>> {
        let mut list = LinkedList::new();
        if !self.0.is_empty() {
            list.push_back(self.0);
        }
        list
    }

    fn full(&self) -> bool {
        false
    }
}

impl<I, A> compat::ParallelIterator for Adapter<I, A>
where
    I: compat::ParallelIterator,
    A: Op<I::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        compat::ParallelIterator::with_locus(self, DriveUnindexed(consumer))
    }

    fn opt_len(&self) -> Option<usize> {
        self.op
            .opt_len(compat::ParallelIterator::opt_len(&self.base))
    }

    #[track_caller]
    fn with_locus<CB: LocusCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let Adapter { base, op } = self;
        compat::ParallelIterator::with_locus(base, Apply { op, callback })
    }
}

/// The indexed methods of an adapter: through its base's indexed locus iterator.
macro_rules! indexed_adapter {
    ($name:ident where $($bound:tt)*) => {
        impl<I, A> compat::IndexedParallelIterator for $name<I, A>
        where
            I: compat::IndexedParallelIterator,
            $($bound)*
        {
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                compat::IndexedParallelIterator::with_locus_indexed(self, Drive(consumer))
            }

            fn len(&self) -> usize {
                self.op.len(compat::IndexedParallelIterator::len(&self.base))
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                compat::IndexedParallelIterator::with_locus_indexed(self, WithProducer(callback))
            }

            #[track_caller]
            fn with_locus_indexed<CB>(self, callback: CB) -> CB::Output
            where
                CB: IndexedLocusCallback<Self::Item>,
            {
                let $name { base, op } = self;
                compat::IndexedParallelIterator::with_locus_indexed(base, Apply { op, callback })
            }
        }
    };
}

indexed_adapter!(Adapter where
    A: Op<I::Item> + IndexedOp<I::Item, Item = <A as Op<I::Item>>::Item>,);
indexed_adapter!(IndexedAdapter where A: IndexedOp<I::Item>,);

impl<I, A> compat::ParallelIterator for IndexedAdapter<I, A>
where
    I: compat::IndexedParallelIterator,
    A: IndexedOp<I::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        compat::ParallelIterator::with_locus(self, DriveUnindexed(consumer))
    }

    fn opt_len(&self) -> Option<usize> {
        Some(
            self.op
                .len(compat::IndexedParallelIterator::len(&self.base)),
        )
    }

    #[track_caller]
    fn with_locus<CB: LocusCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let IndexedAdapter { base, op } = self;
        let callback = Unindexed(callback);
        compat::IndexedParallelIterator::with_locus_indexed(base, Apply { op, callback })
    }
}

/// Declares operation structs: `Debug` names the operation and its plain fields.
macro_rules! ops {
    ($($(#[$doc:meta])* $name:ident $(<$($g:ident),*>)? { $($field:ident: $ty:ty),* } shows [$($shown:ident),*];)*) => {$(
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name $(<$($g),*>)? {
            $(pub(super) $field: $ty,)*
        }

        impl $(<$($g),*>)? fmt::Debug for $name $(<$($g),*>)? {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                #[allow(unused_mut)]
                let mut d = f.debug_struct(stringify!($name));
                $(d.field(stringify!($shown), &self.$shown);)*
                d.finish_non_exhaustive()
            }
        }
    )*};
}

ops! {
    /// `map`'s operation.
    MapOp<F> { f: F } shows [];
    /// `map_with`'s operation.
    MapWithOp<T, F> { init: T, f: F } shows [];
    /// `map_init`'s operation.
    MapInitOp<INIT, F> { init: INIT, f: F } shows [];
    /// `cloned`'s operation.
    ClonedOp {} shows [];
    /// `copied`'s operation.
    CopiedOp {} shows [];
    /// `inspect`'s operation.
    InspectOp<F> { f: F } shows [];
    /// `update`'s operation.
    UpdateOp<F> { f: F } shows [];
    /// `filter`'s operation.
    FilterOp<F> { f: F } shows [];
    /// `filter_map`'s operation.
    FilterMapOp<F> { f: F } shows [];
    /// `flat_map`'s operation.
    FlatMapOp<F> { f: F } shows [];
    /// `flat_map_iter`'s operation.
    FlatMapIterOp<F> { f: F } shows [];
    /// `flatten`'s operation.
    FlattenOp {} shows [];
    /// `flatten_iter`'s operation.
    FlattenIterOp {} shows [];
    /// `fold`'s operation.
    FoldOp<ID, F> { identity: ID, f: F } shows [];
    /// `fold_with`'s operation.
    FoldWithOp<T, F> { init: T, f: F } shows [];
    /// `try_fold`'s operation.
    TryFoldOp<ID, F> { identity: ID, f: F } shows [];
    /// `try_fold_with`'s operation.
    TryFoldWithOp<T, F> { init: T, f: F } shows [];
    /// `chain`'s operation.
    ChainOp<J> { other: J } shows [];
    /// `while_some`'s operation.
    WhileSomeOp {} shows [];
    /// `panic_fuse`'s operation.
    PanicFuseOp {} shows [];
    /// `intersperse`'s operation.
    IntersperseOp<T> { element: T } shows [];
    /// `skip_any`'s operation.
    SkipAnyOp { n: usize } shows [n];
    /// `take_any`'s operation.
    TakeAnyOp { n: usize } shows [n];
    /// `skip_any_while`'s operation.
    SkipAnyWhileOp<F> { f: F } shows [];
    /// `take_any_while`'s operation.
    TakeAnyWhileOp<F> { f: F } shows [];
    /// `zip`'s and `zip_eq`'s operation.
    ZipOp<J> { other: J } shows [];
    /// `interleave`'s and `interleave_shortest`'s operation.
    InterleaveOp<J> { other: J, shortest: bool } shows [shortest];
    /// `chunks`' operation.
    ChunksOp { size: usize } shows [size];
    /// `fold_chunks`' operation.
    FoldChunksOp<ID, F> { size: usize, identity: ID, f: F } shows [size];
    /// `fold_chunks_with`'s operation.
    FoldChunksWithOp<T, F> { size: usize, init: T, f: F } shows [size];
    /// `enumerate`'s operation.
    EnumerateOp {} shows [];
    /// `step_by`'s operation.
    StepByOp { step: usize } shows [step];
    /// `skip`'s operation.
    SkipOp { n: usize } shows [n];
    /// `take`'s operation.
    TakeOp { n: usize } shows [n];
    /// `rev`'s operation.
    RevOp {} shows [];
    /// `with_min_len`'s operation.
    MinLenOp { min: usize } shows [min];
    /// `with_max_len`'s operation.
    MaxLenOp { max: usize } shows [max];
}

impl<ID, F> TryFoldOp<ID, F> {
    pub(super) fn new(identity: ID, f: F) -> Self {
        TryFoldOp { identity, f }
    }
}

impl<T, F> TryFoldWithOp<T, F> {
    pub(super) fn new(init: T, f: F) -> Self {
        TryFoldWithOp { init, f }
    }
}

/// An operation that keeps the indices, on any base: `Op` and `IndexedOp` with one
/// body, the locus adapter made of `$iter` (the base's locus iterator) and the fields.
macro_rules! keeps_indices {
    ($([$($g:tt)*] $name:ident $(<$($p:ident),*>)? for $t:ty => $item:ty
        where [$($w:tt)*] |$iter:ident, $($field:ident),*| $make:expr;)*) => {$(
        impl<$($g)*> Op<$t> for $name $(<$($p),*>)? where $($w)* {
            type Item = $item;

            #[track_caller]
            fn apply<L, CB>(self, $iter: L, callback: CB) -> CB::Output
            where
                L: li::ParallelIterator<Item = $t>,
                CB: LocusCallback<$item>,
            {
                let $name { $($field,)* .. } = self;
                callback.call($make)
            }

            fn opt_len(&self, base: Option<usize>) -> Option<usize> {
                base
            }
        }

        impl<$($g)*> IndexedOp<$t> for $name $(<$($p),*>)? where $($w)* {
            type Item = $item;

            #[track_caller]
            fn apply_indexed<L, CB>(self, $iter: L, callback: CB) -> CB::Output
            where
                L: li::IndexedParallelIterator<Item = $t>,
                CB: IndexedLocusCallback<$item>,
            {
                let $name { $($field,)* .. } = self;
                callback.call($make)
            }

            fn len(&self, base: usize) -> usize {
                base
            }
        }
    )*};
}

keeps_indices! {
    [T: Send, F: Fn(T) -> R + Sync + Send, R: Send] MapOp<F> for T => R
        where [] |iter, f| iter.map(f);
    [T: Send, U: Send + Sync + Clone, F: Fn(&mut U, T) -> R + Sync + Send, R: Send]
        MapWithOp<U, F> for T => R where [] |iter, init, f| iter.map_with(init, f);
    [T: Send, U, INIT: Fn() -> U + Sync + Send, F: Fn(&mut U, T) -> R + Sync + Send, R: Send]
        MapInitOp<INIT, F> for T => R where [] |iter, init, f| iter.map_init(init, f);
    ['a, T: 'a + Clone + Send + Sync] ClonedOp for &'a T => T where [] |iter, | iter.cloned();
    ['a, T: 'a + Copy + Send + Sync] CopiedOp for &'a T => T where [] |iter, | iter.copied();
    [T: Send, F: Fn(&T) + Sync + Send] InspectOp<F> for T => T where [] |iter, f| iter.inspect(f);
    [T: Send, F: Fn(&mut T) + Sync + Send] UpdateOp<F> for T => T where [] |iter, f| iter.update(f);
    [T: Send] PanicFuseOp for T => T where [] |iter, | iter.panic_fuse();
}

/// An operation whose result is unindexed: `Op` alone.
macro_rules! unindexed {
    ($([$($g:tt)*] $name:ident $(<$($p:ident),*>)? for $t:ty => $item:ty
        where [$($w:tt)*] |$iter:ident, $($field:ident),*| $make:expr;)*) => {$(
        impl<$($g)*> Op<$t> for $name $(<$($p),*>)? where $($w)* {
            type Item = $item;

            #[track_caller]
            fn apply<L, CB>(self, $iter: L, callback: CB) -> CB::Output
            where
                L: li::ParallelIterator<Item = $t>,
                CB: LocusCallback<$item>,
            {
                let $name { $($field,)* .. } = self;
                callback.call($make)
            }
        }
    )*};
}

unindexed! {
    [T: Send, F: Fn(&T) -> bool + Sync + Send] FilterOp<F> for T => T
        where [] |iter, f| iter.filter(f);
    [T: Send, F: Fn(T) -> Option<R> + Sync + Send, R: Send] FilterMapOp<F> for T => R
        where [] |iter, f| iter.filter_map(f);
    [T: Send, F: Fn(T) -> PI + Sync + Send, PI: li::IntoParallelIterator] FlatMapOp<F> for T
        => PI::Item where [] |iter, f| iter.flat_map(f);
    [T: Send, F: Fn(T) -> SI + Sync + Send, SI: IntoIterator] FlatMapIterOp<F> for T
        => SI::Item where [SI::Item: Send] |iter, f| iter.flat_map_iter(f);
    [T: li::IntoParallelIterator + Send] FlattenOp for T => T::Item where [] |iter, | iter.flatten();
    [T: IntoIterator + Send] FlattenIterOp for T => T::Item
        where [T::Item: Send] |iter, | iter.flatten_iter();
    [T: Send, U: Send, ID: Fn() -> U + Sync + Send, F: Fn(U, T) -> U + Sync + Send]
        FoldOp<ID, F> for T => U where [] |iter, identity, f| iter.fold(identity, f);
    [T: Send, U: Send + Sync + Clone, F: Fn(U, T) -> U + Sync + Send]
        FoldWithOp<U, F> for T => U where [] |iter, init, f| iter.fold_with(init, f);
    [T: Send, U, R: li::Try<Output = U> + Send, ID: Fn() -> U + Sync + Send,
        F: Fn(U, T) -> R + Sync + Send]
        TryFoldOp<ID, F> for T => R where [] |iter, identity, f| iter.try_fold(identity, f);
    [T: Send, U: Clone + Send + Sync, R: li::Try<Output = U> + Send,
        F: Fn(U, T) -> R + Sync + Send]
        TryFoldWithOp<U, F> for T => R where [] |iter, init, f| iter.try_fold_with(init, f);
    [T: Send] WhileSomeOp for Option<T> => T where [] |iter, | iter.while_some();
    [T: Send] SkipAnyOp for T => T where [] |iter, n| iter.skip_any(n);
    [T: Send] TakeAnyOp for T => T where [] |iter, n| iter.take_any(n);
    [T: Send, F: Fn(&T) -> bool + Sync + Send] SkipAnyWhileOp<F> for T => T
        where [] |iter, f| iter.skip_any_while(f);
    [T: Send, F: Fn(&T) -> bool + Sync + Send] TakeAnyWhileOp<F> for T => T
        where [] |iter, f| iter.take_any_while(f);
}

/// An operation that needs its base's indices: `IndexedOp` alone, with the length of
/// its result.
macro_rules! needs_indices {
    ($([$($g:tt)*] $name:ident $(<$($p:ident),*>)? for $t:ty => $item:ty
        where [$($w:tt)*] |$iter:ident, $($field:ident),*| $make:expr;
        len |$this:ident, $base:ident| $len:expr;)*) => {$(
        impl<$($g)*> IndexedOp<$t> for $name $(<$($p),*>)? where $($w)* {
            type Item = $item;

            #[track_caller]
            fn apply_indexed<L, CB>(self, $iter: L, callback: CB) -> CB::Output
            where
                L: li::IndexedParallelIterator<Item = $t>,
                CB: IndexedLocusCallback<$item>,
            {
                let $name { $($field,)* .. } = self;
                callback.call($make)
            }

            fn len(&self, $base: usize) -> usize {
                let $this = self;
                $len
            }
        }
    )*};
}

needs_indices! {
    [T: Send] EnumerateOp for T => (usize, T) where [] |iter, | iter.enumerate();
        len |_this, base| base;
    [T: Send] StepByOp for T => T where [] |iter, step| iter.step_by(step);
        len |this, base| base.div_ceil(this.step);
    [T: Send] SkipOp for T => T where [] |iter, n| iter.skip(n);
        len |this, base| base.saturating_sub(this.n);
    [T: Send] TakeOp for T => T where [] |iter, n| iter.take(n);
        len |this, base| base.min(this.n);
    [T: Send] RevOp for T => T where [] |iter, | iter.rev();
        len |_this, base| base;
    [T: Send] MinLenOp for T => T where [] |iter, min| iter.with_min_len(min);
        len |_this, base| base;
    [T: Send] MaxLenOp for T => T where [] |iter, max| iter.with_max_len(max);
        len |_this, base| base;
    [T: Send] ChunksOp for T => Vec<T> where [] |iter, size| iter.chunks(size);
        len |this, base| base.div_ceil(this.size);
    [T: Send, U: Send, ID: Fn() -> U + Sync + Send, F: Fn(U, T) -> U + Sync + Send]
        FoldChunksOp<ID, F> for T => U
        where [] |iter, size, identity, f| iter.fold_chunks(size, identity, f);
        len |this, base| base.div_ceil(this.size);
    [T: Send, U: Send + Sync + Clone, F: Fn(U, T) -> U + Sync + Send]
        FoldChunksWithOp<U, F> for T => U
        where [] |iter, size, init, f| iter.fold_chunks_with(size, init, f);
        len |this, base| base.div_ceil(this.size);
}

/// The second iterator of a two-sided operation, run as a locus iterator beside the
/// first.
struct Second<L, CB, M> {
    first: L,
    callback: CB,
    make: M,
}

impl<T: Send, U: Send, L, CB, M, R> LocusCallback<U> for Second<L, CB, M>
where
    L: li::ParallelIterator<Item = T>,
    CB: LocusCallback<R>,
    R: Send,
    M: MakeUnindexed<T, U, Item = R>,
{
    type Output = CB::Output;

    #[track_caller]
    fn call<L2: li::ParallelIterator<Item = U>>(self, second: L2) -> CB::Output {
        self.make.make(self.first, second, self.callback)
    }
}

impl<T: Send, U: Send, L, CB, M, R> IndexedLocusCallback<U> for Second<L, CB, M>
where
    L: li::IndexedParallelIterator<Item = T>,
    CB: IndexedLocusCallback<R>,
    R: Send,
    M: MakeIndexed<T, U, Item = R>,
{
    type Output = CB::Output;

    #[track_caller]
    fn call<L2: li::IndexedParallelIterator<Item = U>>(self, second: L2) -> CB::Output {
        self.make.make_indexed(self.first, second, self.callback)
    }
}

/// How a two-sided operation joins two locus iterators.
trait MakeUnindexed<T: Send, U: Send> {
    type Item: Send;

    fn make<A, B, CB>(self, a: A, b: B, callback: CB) -> CB::Output
    where
        A: li::ParallelIterator<Item = T>,
        B: li::ParallelIterator<Item = U>,
        CB: LocusCallback<Self::Item>;
}

/// How a two-sided operation joins two indexed locus iterators.
trait MakeIndexed<T: Send, U: Send> {
    type Item: Send;

    fn make_indexed<A, B, CB>(self, a: A, b: B, callback: CB) -> CB::Output
    where
        A: li::IndexedParallelIterator<Item = T>,
        B: li::IndexedParallelIterator<Item = U>,
        CB: IndexedLocusCallback<Self::Item>;
}

/// `chain`'s join.
struct Chained;

impl<T: Send> MakeUnindexed<T, T> for Chained {
    type Item = T;

    #[track_caller]
    fn make<A, B, CB>(self, a: A, b: B, callback: CB) -> CB::Output
    where
        A: li::ParallelIterator<Item = T>,
        B: li::ParallelIterator<Item = T>,
        CB: LocusCallback<T>,
    {
        callback.call(a.chain(b))
    }
}

impl<T: Send> MakeIndexed<T, T> for Chained {
    type Item = T;

    #[track_caller]
    fn make_indexed<A, B, CB>(self, a: A, b: B, callback: CB) -> CB::Output
    where
        A: li::IndexedParallelIterator<Item = T>,
        B: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<T>,
    {
        callback.call(a.chain(b))
    }
}

/// `zip`'s join.
struct Zipped;

impl<T: Send, U: Send> MakeIndexed<T, U> for Zipped {
    type Item = (T, U);

    #[track_caller]
    fn make_indexed<A, B, CB>(self, a: A, b: B, callback: CB) -> CB::Output
    where
        A: li::IndexedParallelIterator<Item = T>,
        B: li::IndexedParallelIterator<Item = U>,
        CB: IndexedLocusCallback<(T, U)>,
    {
        callback.call(a.zip(b))
    }
}

/// `interleave`'s join, or `interleave_shortest`'s.
struct Interleaved(bool);

impl<T: Send> MakeIndexed<T, T> for Interleaved {
    type Item = T;

    #[track_caller]
    fn make_indexed<A, B, CB>(self, a: A, b: B, callback: CB) -> CB::Output
    where
        A: li::IndexedParallelIterator<Item = T>,
        B: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<T>,
    {
        if self.0 {
            callback.call(a.interleave_shortest(b))
        } else {
            callback.call(a.interleave(b))
        }
    }
}

impl<T: Send, J: compat::ParallelIterator<Item = T>> Op<T> for ChainOp<J> {
    type Item = T;

    #[track_caller]
    fn apply<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::ParallelIterator<Item = T>,
        CB: LocusCallback<T>,
    {
        let make = Chained;
        compat::ParallelIterator::with_locus(
            self.other,
            Second {
                first: iter,
                callback,
                make,
            },
        )
    }

    fn opt_len(&self, base: Option<usize>) -> Option<usize> {
        base?.checked_add(compat::ParallelIterator::opt_len(&self.other)?)
    }
}

impl<T: Send, J: compat::IndexedParallelIterator<Item = T>> IndexedOp<T> for ChainOp<J> {
    type Item = T;

    #[track_caller]
    fn apply_indexed<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<T>,
    {
        let make = Chained;
        compat::IndexedParallelIterator::with_locus_indexed(
            self.other,
            Second {
                first: iter,
                callback,
                make,
            },
        )
    }

    fn len(&self, base: usize) -> usize {
        base + compat::IndexedParallelIterator::len(&self.other)
    }
}

impl<T: Send, J: compat::IndexedParallelIterator> IndexedOp<T> for ZipOp<J> {
    type Item = (T, J::Item);

    #[track_caller]
    fn apply_indexed<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<Self::Item>,
    {
        let make = Zipped;
        compat::IndexedParallelIterator::with_locus_indexed(
            self.other,
            Second {
                first: iter,
                callback,
                make,
            },
        )
    }

    fn len(&self, base: usize) -> usize {
        base.min(compat::IndexedParallelIterator::len(&self.other))
    }
}

impl<T: Send, J: compat::IndexedParallelIterator<Item = T>> IndexedOp<T> for InterleaveOp<J> {
    type Item = T;

    #[track_caller]
    fn apply_indexed<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<T>,
    {
        let make = Interleaved(self.shortest);
        compat::IndexedParallelIterator::with_locus_indexed(
            self.other,
            Second {
                first: iter,
                callback,
                make,
            },
        )
    }

    fn len(&self, base: usize) -> usize {
        let other = compat::IndexedParallelIterator::len(&self.other);
        if self.shortest {
            base.min(other.saturating_add(1)) + other.min(base)
        } else {
            base + other
        }
    }
}

/// `intersperse` keeps an indexed base indexed.
impl<T: Send + Clone + Sync> Op<T> for IntersperseOp<T> {
    type Item = T;

    #[track_caller]
    fn apply<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::ParallelIterator<Item = T>,
        CB: LocusCallback<T>,
    {
        callback.call(iter.intersperse(self.element))
    }
}

impl<T: Send + Clone + Sync> IndexedOp<T> for IntersperseOp<T> {
    type Item = T;

    #[track_caller]
    fn apply_indexed<L, CB>(self, iter: L, callback: CB) -> CB::Output
    where
        L: li::IndexedParallelIterator<Item = T>,
        CB: IndexedLocusCallback<T>,
    {
        callback.call(iter.intersperse(self.element))
    }

    fn len(&self, base: usize) -> usize {
        (2 * base).saturating_sub(1)
    }
}

/// rayon's `Map`.
pub type Map<I, F> = Adapter<I, MapOp<F>>;
/// rayon's `MapWith`.
pub type MapWith<I, T, F> = Adapter<I, MapWithOp<T, F>>;
/// rayon's `MapInit`.
pub type MapInit<I, INIT, F> = Adapter<I, MapInitOp<INIT, F>>;
/// rayon's `Cloned`.
pub type Cloned<I> = Adapter<I, ClonedOp>;
/// rayon's `Copied`.
pub type Copied<I> = Adapter<I, CopiedOp>;
/// rayon's `Inspect`.
pub type Inspect<I, F> = Adapter<I, InspectOp<F>>;
/// rayon's `Update`.
pub type Update<I, F> = Adapter<I, UpdateOp<F>>;
/// rayon's `Filter`.
pub type Filter<I, P> = Adapter<I, FilterOp<P>>;
/// rayon's `FilterMap`.
pub type FilterMap<I, P> = Adapter<I, FilterMapOp<P>>;
/// rayon's `FlatMap`.
pub type FlatMap<I, F> = Adapter<I, FlatMapOp<F>>;
/// rayon's `FlatMapIter`.
pub type FlatMapIter<I, F> = Adapter<I, FlatMapIterOp<F>>;
/// rayon's `Flatten`.
pub type Flatten<I> = Adapter<I, FlattenOp>;
/// rayon's `FlattenIter`.
pub type FlattenIter<I> = Adapter<I, FlattenIterOp>;
/// rayon's `Fold`.
pub type Fold<I, ID, F> = Adapter<I, FoldOp<ID, F>>;
/// rayon's `FoldWith`.
pub type FoldWith<I, U, F> = Adapter<I, FoldWithOp<U, F>>;
/// rayon's `TryFold`.
pub type TryFold<I, ID, F> = Adapter<I, TryFoldOp<ID, F>>;
/// rayon's `TryFoldWith`.
pub type TryFoldWith<I, R, F> = Adapter<I, TryFoldWithOp<<R as li::Try>::Output, F>>;
/// rayon's `Chain`.
pub type Chain<A, B> = Adapter<A, ChainOp<B>>;
/// rayon's `WhileSome`.
pub type WhileSome<I> = Adapter<I, WhileSomeOp>;
/// rayon's `PanicFuse`.
pub type PanicFuse<I> = Adapter<I, PanicFuseOp>;
/// rayon's `Intersperse`.
pub type Intersperse<I> = Adapter<I, IntersperseOp<<I as compat::ParallelIterator>::Item>>;
/// rayon's `SkipAny`.
pub type SkipAny<I> = Adapter<I, SkipAnyOp>;
/// rayon's `TakeAny`.
pub type TakeAny<I> = Adapter<I, TakeAnyOp>;
/// rayon's `SkipAnyWhile`.
pub type SkipAnyWhile<I, P> = Adapter<I, SkipAnyWhileOp<P>>;
/// rayon's `TakeAnyWhile`.
pub type TakeAnyWhile<I, P> = Adapter<I, TakeAnyWhileOp<P>>;
/// rayon's `Zip`.
pub type Zip<A, B> = IndexedAdapter<A, ZipOp<B>>;
/// rayon's `ZipEq`.
pub type ZipEq<A, B> = IndexedAdapter<A, ZipOp<B>>;
/// rayon's `Interleave`.
pub type Interleave<I, J> = IndexedAdapter<I, InterleaveOp<J>>;
/// rayon's `InterleaveShortest`.
pub type InterleaveShortest<I, J> = IndexedAdapter<I, InterleaveOp<J>>;
/// rayon's `Chunks`.
pub type Chunks<I> = IndexedAdapter<I, ChunksOp>;
/// rayon's `FoldChunks`.
pub type FoldChunks<I, ID, F> = IndexedAdapter<I, FoldChunksOp<ID, F>>;
/// rayon's `FoldChunksWith`.
pub type FoldChunksWith<I, U, F> = IndexedAdapter<I, FoldChunksWithOp<U, F>>;
/// rayon's `Enumerate`.
pub type Enumerate<I> = IndexedAdapter<I, EnumerateOp>;
/// rayon's `StepBy`.
pub type StepBy<I> = IndexedAdapter<I, StepByOp>;
/// rayon's `Skip`.
pub type Skip<I> = IndexedAdapter<I, SkipOp>;
/// rayon's `Take`.
pub type Take<I> = IndexedAdapter<I, TakeOp>;
/// rayon's `Positions`.
pub type Positions<I, P> = FilterMap<Enumerate<Map<I, P>>, fn((usize, bool)) -> Option<usize>>;
/// rayon's `Rev`.
pub type Rev<I> = IndexedAdapter<I, RevOp>;
/// rayon's `MinLen`.
pub type MinLen<I> = IndexedAdapter<I, MinLenOp>;
/// rayon's `MaxLen`.
pub type MaxLen<I> = IndexedAdapter<I, MaxLenOp>;

/// An operation whose locus adapter has a type of its own: what makes an [`Adapter`] (or
/// an [`IndexedAdapter`]) over a locus source a locus `IntoParallelIterator`, so that a
/// `flat_map` closure may return a chain built with this module's methods.
pub trait LocusOp<L: li::ParallelIterator> {
    /// The locus adapter.
    type Locus: li::ParallelIterator;

    /// The locus adapter over `base`.
    fn locus(self, base: L) -> Self::Locus;
}

/// `LocusOp` impls: the locus adapter's type and how it is made of `$base` and the
/// fields.
macro_rules! locus_ops {
    ($([$($g:tt)*] $name:ident $(<$($p:ident),*>)? => $locus:ty
        where [$($w:tt)*] |$base:ident, $($field:ident),*| $make:expr;)*) => {$(
        impl<$($g)*> LocusOp<L> for $name $(<$($p),*>)? where $($w)* {
            type Locus = $locus;

            fn locus(self, $base: L) -> $locus {
                let $name { $($field,)* .. } = self;
                $make
            }
        }
    )*};
}

locus_ops! {
    [L: li::ParallelIterator, F: Fn(L::Item) -> R + Sync + Send, R: Send]
        MapOp<F> => li::Map<L, F> where [] |base, f| base.map(f);
    [L: li::ParallelIterator, U: Send + Sync + Clone, F: Fn(&mut U, L::Item) -> R + Sync + Send,
        R: Send]
        MapWithOp<U, F> => li::MapWith<L, U, F> where [] |base, init, f| base.map_with(init, f);
    [L: li::ParallelIterator, U, INIT: Fn() -> U + Sync + Send,
        F: Fn(&mut U, L::Item) -> R + Sync + Send, R: Send]
        MapInitOp<INIT, F> => li::MapInit<L, INIT, F>
        where [] |base, init, f| base.map_init(init, f);
    ['a, T: 'a + Clone + Send + Sync, L: li::ParallelIterator<Item = &'a T>]
        ClonedOp => li::Cloned<L> where [] |base, | base.cloned();
    ['a, T: 'a + Copy + Send + Sync, L: li::ParallelIterator<Item = &'a T>]
        CopiedOp => li::Copied<L> where [] |base, | base.copied();
    [L: li::ParallelIterator, F: Fn(&L::Item) + Sync + Send]
        InspectOp<F> => li::Inspect<L, F> where [] |base, f| base.inspect(f);
    [L: li::ParallelIterator, F: Fn(&mut L::Item) + Sync + Send]
        UpdateOp<F> => li::Update<L, F> where [] |base, f| base.update(f);
    [L: li::ParallelIterator, F: Fn(&L::Item) -> bool + Sync + Send]
        FilterOp<F> => li::Filter<L, F> where [] |base, f| base.filter(f);
    [L: li::ParallelIterator, F: Fn(L::Item) -> Option<R> + Sync + Send, R: Send]
        FilterMapOp<F> => li::FilterMap<L, F> where [] |base, f| base.filter_map(f);
    [L: li::ParallelIterator, F: Fn(L::Item) -> PI + Sync + Send, PI: li::IntoParallelIterator]
        FlatMapOp<F> => li::FlatMap<L, F> where [] |base, f| base.flat_map(f);
    [L: li::ParallelIterator, F: Fn(L::Item) -> SI + Sync + Send, SI: IntoIterator]
        FlatMapIterOp<F> => li::FlatMapIter<L, F> where [SI::Item: Send]
        |base, f| base.flat_map_iter(f);
    [L: li::ParallelIterator] FlattenOp => li::Flatten<L>
        where [L::Item: li::IntoParallelIterator] |base, | base.flatten();
    [L: li::ParallelIterator] FlattenIterOp => li::FlattenIter<L>
        where [L::Item: IntoIterator, <L::Item as IntoIterator>::Item: Send]
        |base, | base.flatten_iter();
    [L: li::ParallelIterator, U: Send, ID: Fn() -> U + Sync + Send,
        F: Fn(U, L::Item) -> U + Sync + Send]
        FoldOp<ID, F> => li::Fold<L, ID, F> where [] |base, identity, f| base.fold(identity, f);
    [L: li::ParallelIterator, U: Send + Sync + Clone, F: Fn(U, L::Item) -> U + Sync + Send]
        FoldWithOp<U, F> => li::FoldWith<L, U, F> where [] |base, init, f| base.fold_with(init, f);
    [L: li::ParallelIterator] PanicFuseOp => li::PanicFuse<L> where [] |base, | base.panic_fuse();
    [T: Send, L: li::ParallelIterator<Item = Option<T>>] WhileSomeOp => li::WhileSome<L>
        where [] |base, | base.while_some();
    [L: li::IndexedParallelIterator] EnumerateOp => li::Enumerate<L>
        where [] |base, | base.enumerate();
    [L: li::IndexedParallelIterator] MinLenOp => li::MinLen<L>
        where [] |base, min| base.with_min_len(min);
    [L: li::IndexedParallelIterator] MaxLenOp => li::MaxLen<L>
        where [] |base, max| base.with_max_len(max);
    [L: li::IndexedParallelIterator] SkipOp => li::Skip<L> where [] |base, n| base.skip(n);
    [L: li::IndexedParallelIterator] TakeOp => li::Take<L> where [] |base, n| base.take(n);
    [L: li::IndexedParallelIterator] StepByOp => li::StepBy<L>
        where [] |base, step| base.step_by(step);
    [L: li::IndexedParallelIterator] RevOp => li::Rev<L> where [] |base, | base.rev();
    [L: li::IndexedParallelIterator] ChunksOp => li::ChunksOf<L>
        where [] |base, size| base.chunks(size);
    [L: li::ParallelIterator, J: li::IntoParallelIterator<Item = L::Item>]
        ChainOp<J> => li::Chain<L, J::Iter>
        where [] |base, other| base.chain(other);
    [L: li::IndexedParallelIterator, J: li::IntoParallelIterator]
        ZipOp<J> => li::Zip<L, J::Iter>
        where [J::Iter: li::IndexedParallelIterator] |base, other| base.zip(other);
}

impl<I, A> li::IntoParallelIterator for Adapter<I, A>
where
    I: li::IntoParallelIterator,
    A: LocusOp<I::Iter>,
{
    type Iter = A::Locus;
    type Item = <A::Locus as li::ParallelIterator>::Item;

    fn into_par_iter(self) -> A::Locus {
        self.op.locus(self.base.into_par_iter())
    }
}

impl<I, A> li::IntoParallelIterator for IndexedAdapter<I, A>
where
    I: li::IntoParallelIterator,
    A: LocusOp<I::Iter>,
{
    type Iter = A::Locus;
    type Item = <A::Locus as li::ParallelIterator>::Item;

    fn into_par_iter(self) -> A::Locus {
        self.op.locus(self.base.into_par_iter())
    }
}
