//! rayon's `rayon::iter::plumbing`: the producer and consumer traits with rayon's names,
//! signatures and meanings, the bridges between them, and the ways between them and
//! locus's own iterators.
//!
//! - A [`Producer`] (rayon's indexed source: split at an index, then iterate) becomes a
//!   locus iterator with [`producer_iter`], which works with every adapter and terminal
//!   of [`super`]. Its leaves are locus's: the terminal cuts the positions as for any
//!   source (`super::LEAVES` leaves of equal length, or as `min_len`/`max_len` ask), and
//!   each leaf asks the producer for its range, split off at the leaf's edges; so the
//!   same length gives the same split points and the same tasks every time.
//! - An [`UnindexedProducer`] becomes one with [`unindexed_iter`]: split in halves
//!   [`UNINDEXED_DEPTH`] times (fewer where a piece refuses), on the caller, each piece
//!   a position.
//! - A locus iterator drives a rayon [`Consumer`]: [`super::ParallelIterator::drive_unindexed`],
//!   [`super::IndexedParallelIterator::drive`], [`bridge`]; and gives a [`Producer`] to
//!   a [`ProducerCallback`] ([`super::IndexedParallelIterator::with_producer`]). Its
//!   leaves are the ones its terminals would cut, split as a tree of `join`s at the
//!   middle leaf.
//! - [`bridge_producer_consumer`] and [`bridge_unindexed`] drive a consumer from a
//!   producer with the same deterministic cuts.
//!
//! What differs from rayon: a type cannot implement locus's `ParallelIterator` with
//! rayon's required methods alone (`drive_unindexed`, and `drive`/`with_producer` for an
//! indexed one), because locus's iterators are driven by positions, not consumers (see
//! [`super`]); such a type hands its producer to [`producer_iter`] or
//! [`unindexed_iter`] instead, and then has every adapter and terminal.

use super::{cut, IndexedParallelIterator, ParallelIterator, LEAVES};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::Mutex;

/// rayon's `Producer`: an indexed source that can be split at an index and iterated in
/// both directions with a known length.
pub trait Producer: Send + Sized {
    /// The items.
    type Item;
    /// The sequential iterator of the whole producer.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// The items, in order.
    fn into_iter(self) -> Self::IntoIter;

    /// The fewest items a split may leave in one piece.
    fn min_len(&self) -> usize {
        1
    }

    /// The most items a piece should hold before it is split.
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// The items before `index` and those from it.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds the items to `folder` until it is full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }
}

/// rayon's `ProducerCallback`: what [`IndexedParallelIterator::with_producer`] hands a
/// producer to.
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;

    /// Called with the iterator's producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

/// rayon's `Consumer`: the receiving end of an indexed drive, split at indices, each
/// piece folded sequentially and the results reduced.
pub trait Consumer<Item>: Send + Sized {
    /// The sequential folder of one piece.
    type Folder: Folder<Item, Result = Self::Result>;
    /// How the results of two pieces combine.
    type Reducer: Reducer<Self::Result>;
    /// The result.
    type Result: Send;

    /// Two consumers for the items before `index` and from it, and their reducer.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// The folder of this piece.
    fn into_folder(self) -> Self::Folder;

    /// Whether no more items are wanted.
    fn full(&self) -> bool;
}

/// rayon's `Folder`: folds the items of one piece, sequentially.
pub trait Folder<Item>: Sized {
    /// The result of the piece.
    type Result;

    /// Takes one item.
    fn consume(self, item: Item) -> Self;

    /// Takes items until the folder is full.
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// The piece's result.
    fn complete(self) -> Self::Result;

    /// Whether no more items are wanted.
    fn full(&self) -> bool;
}

/// rayon's `Reducer`: combines the results of two neighbouring pieces, left then right.
pub trait Reducer<Result> {
    /// The combined result.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// rayon's `UnindexedConsumer`: a consumer that can be split without an index.
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// A consumer for items to the left of this one's.
    fn split_off_left(&self) -> Self;

    /// The reducer for a piece split off this one.
    fn to_reducer(&self) -> Self::Reducer;
}

/// rayon's `UnindexedProducer`: a source that can be split in two pieces of unknown
/// lengths, and folded.
pub trait UnindexedProducer: Send + Sized {
    /// The items.
    type Item;

    /// Two pieces, or this one back with `None` where it will not split.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds the items to `folder` until it is full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}

/// How many times [`unindexed_iter`] and [`bridge_unindexed`] halve an unindexed
/// producer: up to [`LEAVES`] pieces, a terminal's leaves.
pub const UNINDEXED_DEPTH: u32 = LEAVES.trailing_zeros();

/// Drives `consumer` with `par_iter`'s items: rayon's `bridge`, through the iterator's
/// producer ([`IndexedParallelIterator::with_producer`]) and
/// [`bridge_producer_consumer`], never through its `drive`: an iterator implemented the
/// way rayon's documentation shows implements `drive` by calling `bridge` (ndarray's
/// parallel iterators do), so a `bridge` that called `drive` would recurse until the
/// stack ran out.
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    let len = par_iter.len();
    par_iter.with_producer(BridgeCallback { len, consumer })
}

/// The callback of both `bridge`s (this one and rayon's, in `iter::rayon::plumbing`):
/// bridges the producer it is handed, of `len` items, with `consumer`.
pub(crate) struct BridgeCallback<C> {
    pub(crate) len: usize,
    pub(crate) consumer: C,
}

impl<T: Send, C: Consumer<T>> ProducerCallback<T> for BridgeCallback<C> {
    type Output = C::Result;

    fn callback<P>(self, producer: P) -> C::Result
    where
        P: Producer<Item = T>,
    {
        bridge_producer_consumer(self.len, producer, self.consumer)
    }
}

/// Drives `consumer` with the `len` items of `producer`: cut into leaves as a locus
/// terminal cuts `len` positions under the producer's `min_len` and `max_len`, split as
/// a tree of `join`s at the middle leaf. rayon's `bridge_producer_consumer`.
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    P::Item: Send,
    C: Consumer<P::Item>,
{
    producer_iter(producer, len).drive(consumer)
}

/// Drives `consumer` with `producer`'s items, halving it [`UNINDEXED_DEPTH`] times (less
/// where a piece will not split) as a tree of `join`s. rayon's `bridge_unindexed`.
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    halve(UNINDEXED_DEPTH, producer, consumer)
}

fn halve<P, C>(depth: u32, producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if depth == 0 || consumer.full() {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    match producer.split() {
        (left, Some(right)) => {
            let (lc, reducer) = (consumer.split_off_left(), consumer.to_reducer());
            let (l, r) = crate::join(
                || halve(depth - 1, left, lc),
                || halve(depth - 1, right, consumer),
            );
            reducer.reduce(l, r)
        }
        (whole, None) => whole.fold_with(consumer.into_folder()).complete(),
    }
}

/// The leaves of a locus iterator driving `consumer`, which `split` splits at a
/// position: rayon's `Consumer::split_at` for an indexed drive, `split_off_left` for an
/// unindexed one.
pub(super) fn drive_leaves<I, C, S>(mut iter: I, consumer: C, split: S) -> C::Result
where
    I: ParallelIterator,
    C: Consumer<I::Item>,
    S: Fn(C, usize) -> (C, C, C::Reducer) + Sync,
{
    let positions = iter.position_count();
    iter.driven(positions);
    let (leaf, leaves) = cut(positions, iter.leaf_bounds());
    let iter = &iter;
    let run = |range: Range<usize>, consumer: C| {
        // SAFETY: the leaves' ranges are disjoint and within `0..positions`, announced
        // through `driven`, and each is run once.
        let items = unsafe { iter.seq(range) };
        consumer.into_folder().consume_iter(items).complete()
    };
    let tree = Tree {
        leaf,
        positions,
        split: &split,
        run: &run,
    };
    tree.drive(0..leaves, consumer)
}

/// The join tree over the leaves of [`drive_leaves`].
struct Tree<'a, S, Run> {
    leaf: usize,
    positions: usize,
    split: &'a S,
    run: &'a Run,
}

impl<S, Run> Tree<'_, S, Run>
where
    S: Sync,
    Run: Sync,
{
    fn at(&self, leaf: usize) -> usize {
        leaf.saturating_mul(self.leaf).min(self.positions)
    }

    fn drive<T, C>(&self, leaves: Range<usize>, consumer: C) -> C::Result
    where
        C: Consumer<T>,
        S: Fn(C, usize) -> (C, C, C::Reducer),
        Run: Fn(Range<usize>, C) -> C::Result,
    {
        if leaves.len() <= 1 || consumer.full() {
            return (self.run)(self.at(leaves.start)..self.at(leaves.end), consumer);
        }
        let mid = leaves.start + leaves.len() / 2;
        let (left, right, reducer) = (self.split)(consumer, self.at(mid) - self.at(leaves.start));
        let (l, r) = crate::join(
            || self.drive(leaves.start..mid, left),
            || self.drive(mid..leaves.end, right),
        );
        reducer.reduce(l, r)
    }
}

/// A [`Producer`] of `len` items as a locus iterator, with every adapter and terminal;
/// its leaf bounds are the producer's `min_len` and `max_len`.
///
/// ```
/// use locus::iter::plumbing::{producer_iter, Producer};
/// use locus::prelude::*;
///
/// /// The numbers `lo..hi`, as a rayon producer.
/// struct Numbers(usize, usize);
///
/// impl Producer for Numbers {
///     type Item = usize;
///     type IntoIter = std::ops::Range<usize>;
///     fn into_iter(self) -> Self::IntoIter {
///         self.0..self.1
///     }
///     fn split_at(self, index: usize) -> (Self, Self) {
///         let mid = self.0 + index;
///         (Numbers(self.0, mid), Numbers(mid, self.1))
///     }
/// }
///
/// let evens: usize = producer_iter(Numbers(0, 1000), 1000).filter(|x| x % 2 == 0).sum();
/// assert_eq!(evens, 249_500);
/// ```
pub fn producer_iter<P>(producer: P, len: usize) -> ProducerIter<P>
where
    P: Producer,
    P::Item: Send,
{
    let bounds = (producer.min_len().max(1), producer.max_len().max(1));
    let (empty, producer) = producer.split_at(0);
    ProducerIter {
        len,
        bounds,
        pieces: Mutex::new(BTreeMap::from([(0, (len, producer))])),
        empty: Mutex::new(Some(empty)),
    }
}

/// The iterator of [`producer_iter`]. Each leaf takes its range from the piece of the
/// producer that holds it, split off at the leaf's edges, under a lock held for the
/// splits only.
pub struct ProducerIter<P> {
    len: usize,
    bounds: (usize, usize),
    /// The pieces no leaf has taken, by first position: (end, piece).
    pieces: Mutex<BTreeMap<usize, (usize, P)>>,
    /// An empty piece, split off the front at the start: what an empty range is given
    /// (an adapter may ask for one where every piece is taken), split in two each time.
    empty: Mutex<Option<P>>,
}

impl<P> fmt::Debug for ProducerIter<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProducerIter")
            .field("len", &self.len)
            .field("bounds", &self.bounds)
            .finish_non_exhaustive()
    }
}

impl<P: Producer> ProducerIter<P> {
    /// The piece of positions `range`, split off the piece that holds it.
    fn take(&self, range: Range<usize>) -> P {
        if range.is_empty() {
            let mut empty = self.empty.lock().unwrap_or_else(|e| e.into_inner());
            let (given, kept) = empty
                .take()
                .expect("the empty piece is put back after each split")
                .split_at(0);
            *empty = Some(kept);
            return given;
        }
        let mut pieces = self.pieces.lock().unwrap_or_else(|e| e.into_inner());
        let (&start, _) = pieces
            .range(..=range.start)
            .next_back()
            .expect("a leaf's range lies in a piece no other leaf took");
        let (end, piece) = pieces.remove(&start).expect("just found");
        debug_assert!(range.end <= end, "a leaf's range lies in one piece");
        let (before, rest) = piece.split_at(range.start - start);
        if range.start > start {
            pieces.insert(start, (range.start, before));
        }
        let (wanted, after) = rest.split_at(range.len());
        if end > range.end {
            pieces.insert(range.end, (end, after));
        }
        wanted
    }
}

impl<P> ParallelIterator for ProducerIter<P>
where
    P: Producer,
    P::Item: Send,
{
    type Item = P::Item;
    type Seq<'a>
        = P::IntoIter
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.len
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.len)
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        self.bounds
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        self.take(range).into_iter()
    }
}

impl<P> IndexedParallelIterator for ProducerIter<P>
where
    P: Producer,
    P::Item: Send,
{
}

/// An [`UnindexedProducer`] as a locus iterator, with every adapter and terminal: halved
/// [`UNINDEXED_DEPTH`] times here (fewer where a piece will not split), each piece a
/// position whose items a leaf folds into a vector and then hands on.
pub fn unindexed_iter<P>(producer: P) -> UnindexedIter<P>
where
    P: UnindexedProducer,
    P::Item: Send,
{
    let mut pieces = vec![producer];
    for _ in 0..UNINDEXED_DEPTH {
        let mut next = Vec::with_capacity(pieces.len() * 2);
        let mut split_any = false;
        for piece in pieces {
            let (left, right) = piece.split();
            next.push(left);
            if let Some(right) = right {
                next.push(right);
                split_any = true;
            }
        }
        pieces = next;
        if !split_any {
            break;
        }
    }
    UnindexedIter {
        pieces: pieces.into_iter().map(|p| Mutex::new(Some(p))).collect(),
    }
}

/// The iterator of [`unindexed_iter`].
pub struct UnindexedIter<P> {
    pieces: Vec<Mutex<Option<P>>>,
}

impl<P> fmt::Debug for UnindexedIter<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnindexedIter")
            .field("pieces", &self.pieces.len())
            .finish()
    }
}

/// A folder that keeps the items, for [`UnindexedIter`]'s leaves.
struct Keep<T>(Vec<T>);

impl<T> Folder<T> for Keep<T> {
    type Result = Vec<T>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = T>,
    {
        self.0.extend(iter);
        self
    }

    fn complete(self) -> Vec<T> {
        self.0
    }

    fn full(&self) -> bool {
        false
    }
}

impl<P> ParallelIterator for UnindexedIter<P>
where
    P: UnindexedProducer,
    P::Item: Send,
{
    type Item = P::Item;
    type Seq<'a>
        = std::vec::IntoIter<P::Item>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.pieces.len()
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let mut items = Keep(Vec::new());
        for piece in &self.pieces[range] {
            let piece = piece.lock().unwrap_or_else(|e| e.into_inner()).take();
            items = piece
                .expect("each position is asked for once")
                .fold_with(items);
        }
        items.0.into_iter()
    }
}

/// The producer a locus iterator hands to a [`ProducerCallback`]: positions `range` of
/// `iter`, each leaf's items gathered in a vector when iterated (rayon's producers
/// iterate both ways with a known length, which a leaf of a locus chain need not).
/// Positions no piece iterated are run and dropped with the piece.
pub(super) struct LeafProducer<'a, I: ParallelIterator> {
    iter: &'a I,
    range: Range<usize>,
}

impl<'a, I: ParallelIterator> LeafProducer<'a, I> {
    /// The producer of all of `iter`'s `positions`, announced through `driven`.
    pub(super) fn new(iter: &'a I, positions: usize) -> Self {
        LeafProducer {
            iter,
            range: 0..positions,
        }
    }

    fn take_range(&mut self) -> Range<usize> {
        std::mem::replace(&mut self.range, 0..0)
    }
}

impl<I: ParallelIterator> Producer for LeafProducer<'_, I> {
    type Item = I::Item;
    type IntoIter = std::vec::IntoIter<I::Item>;

    fn into_iter(mut self) -> Self::IntoIter {
        let range = self.take_range();
        // SAFETY: the pieces of one producer hold disjoint ranges of the positions
        // announced through `driven`, and taking the range leaves this one empty.
        unsafe { self.iter.seq(range) }
            .collect::<Vec<_>>()
            .into_iter()
    }

    fn min_len(&self) -> usize {
        self.iter.leaf_bounds().0
    }

    fn max_len(&self) -> usize {
        self.iter.leaf_bounds().1
    }

    fn split_at(mut self, index: usize) -> (Self, Self) {
        let range = self.take_range();
        let mid = range.start + index.min(range.len());
        let piece = |range| LeafProducer {
            iter: self.iter,
            range,
        };
        (piece(range.start..mid), piece(mid..range.end))
    }
}

impl<I: ParallelIterator> Drop for LeafProducer<'_, I> {
    fn drop(&mut self) {
        let range = self.take_range();
        if !range.is_empty() {
            // SAFETY: as in `into_iter`.
            unsafe { self.iter.seq(range) }.for_each(drop);
        }
    }
}
