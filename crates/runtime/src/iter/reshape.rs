//! The adapters that move items between positions: `chain`, `skip`, `take`, `step_by`,
//! `rev`, `interleave`, `intersperse`, `chunks`, `fold_chunks`.
//!
//! Each maps its positions onto its sources' positions in closed form, so an indexed
//! chain stays indexed (item `i` is position `i`) and a leaf asks each source for one
//! contiguous range. The positions of a source that no leaf will ask for (the prefix a
//! `skip` passes over, the far end a `rev` of a truncated `zip` never reaches) are taken
//! once in `driven` and dropped there, so owning sources drop every item exactly once.

use super::source::IntoIter;
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::fmt;
use std::ops::Range;

/// [`ParallelIterator::chain`]: `a`'s positions, then `b`'s.
#[derive(Debug, Clone)]
pub struct Chain<A, B> {
    a: A,
    b: B,
    /// The positions of `a` and of `b` the terminal drives.
    driven: (usize, usize),
}

impl<A, B> Chain<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Chain {
            a,
            b,
            driven: (0, 0),
        }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;
    type Seq<'a>
        = std::iter::Chain<A::Seq<'a>, B::Seq<'a>>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.a
            .position_count()
            .saturating_add(self.b.position_count())
    }

    fn exact_len(&self) -> Option<usize> {
        self.a.exact_len()?.checked_add(self.b.exact_len()?)
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        let (amin, amax) = self.a.leaf_bounds();
        let (bmin, bmax) = self.b.leaf_bounds();
        (amin.max(bmin), amax.min(bmax))
    }

    fn driven(&mut self, positions: usize) {
        let a = positions.min(self.a.position_count());
        let b = positions - a;
        self.a.driven(a);
        self.b.driven(b);
        self.driven = (a, b);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let (a, b) = self.driven;
        let skip = self.a.position_count();
        let in_a = range.start.min(a)..range.end.min(a);
        let in_b = range.start.saturating_sub(skip).min(b)..range.end.saturating_sub(skip).min(b);
        // SAFETY: the two parts are the caller's range cut at `a`'s end, within what each
        // side was told it drives; disjoint ranges here give disjoint parts there.
        unsafe { self.a.seq(in_a).chain(self.b.seq(in_b)) }
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
}

/// Takes positions `0..n` of `iter`, announced through `driven` beforehand, and drops
/// their items: the part of a source no leaf gets.
fn drop_prefix<I: ParallelIterator>(iter: &I, n: usize) {
    if n > 0 {
        // SAFETY: the caller announced these positions and gives no leaf any of them.
        drop(unsafe { iter.seq(0..n) });
    }
}

/// [`IndexedParallelIterator::skip`].
#[derive(Debug, Clone)]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        Skip { base, n }
    }

    /// How many of the base's positions are skipped.
    fn skipped(&self) -> usize {
        self.n.min(self.base.position_count())
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Skip<I> {
    type Item = I::Item;
    type Seq<'a>
        = I::Seq<'a>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.base.position_count() - self.skipped()
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        self.base.leaf_bounds()
    }

    fn driven(&mut self, positions: usize) {
        let skipped = self.skipped();
        self.base.driven(skipped + positions);
        drop_prefix(&self.base, skipped);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let s = self.skipped();
        // SAFETY: shifted past the prefix `driven` took; disjoint stays disjoint.
        unsafe { self.base.seq(range.start + s..range.end + s) }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {}

/// [`IndexedParallelIterator::take`].
#[derive(Debug, Clone)]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        Take { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Take<I> {
    type Item = I::Item;
    type Seq<'a>
        = I::Seq<'a>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.base.position_count().min(self.n)
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        self.base.leaf_bounds()
    }

    fn driven(&mut self, positions: usize) {
        self.base.driven(positions);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.seq(range) }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Take<I> {}

/// [`IndexedParallelIterator::step_by`]: position `i` is the base's `i * step`.
///
/// A leaf runs std's `step_by` over the base's positions it covers, so the items
/// stepped over are produced and dropped there (a `map` below runs on them too).
#[derive(Debug, Clone)]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I: IndexedParallelIterator> StepBy<I> {
    pub(super) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: the step must not be zero");
        StepBy { base, step }
    }

    /// The base's positions under positions `0..p`.
    fn under(&self, p: usize) -> usize {
        p.saturating_mul(self.step).min(self.base.position_count())
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;
    type Seq<'a>
        = std::iter::StepBy<I::Seq<'a>>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.base.position_count().div_ceil(self.step)
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    fn driven(&mut self, positions: usize) {
        let under = self.under(positions);
        self.base.driven(under);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let base = self.under(range.start)..self.under(range.end);
        // SAFETY: disjoint ranges here cover disjoint base ranges, within those driven.
        unsafe { self.base.seq(base) }.step_by(self.step)
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {}

/// [`IndexedParallelIterator::rev`]: position `i` is the base's `len - 1 - i`.
///
/// A leaf collects its base items into a vector and gives them back to front (a
/// sequential leaf cannot otherwise reverse every source's iterator).
#[derive(Debug, Clone)]
pub struct Rev<I> {
    base: I,
}

impl<I: IndexedParallelIterator> Rev<I> {
    pub(super) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;
    type Seq<'a>
        = std::iter::Rev<std::vec::IntoIter<I::Item>>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.base.position_count()
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        self.base.leaf_bounds()
    }

    fn driven(&mut self, positions: usize) {
        // The leaves get the base's last `positions`; its first ones are dropped here.
        let len = self.base.position_count();
        self.base.driven(len);
        drop_prefix(&self.base, len - positions.min(len));
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let len = self.base.position_count();
        // SAFETY: mirrored, disjoint ranges stay disjoint, past the prefix dropped.
        let items = unsafe { self.base.seq(len - range.end..len - range.start) };
        items.collect::<Vec<_>>().into_iter().rev()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {}

/// [`IndexedParallelIterator::interleave`]: `a0 b0 a1 b1 ...`, then the rest of the
/// longer side.
#[derive(Debug, Clone)]
pub struct Interleave<A, B> {
    a: A,
    b: B,
}

impl<A, B> Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    pub(super) fn new(a: A, b: B) -> Self {
        Interleave { a, b }
    }

    /// How many of positions `0..p` are `a`'s and how many `b`'s.
    fn split(&self, p: usize) -> (usize, usize) {
        let (la, lb) = (self.a.position_count(), self.b.position_count());
        let both = la.min(lb);
        if p <= 2 * both {
            (p.div_ceil(2), p / 2)
        } else if la > lb {
            (p - both, both)
        } else {
            (both, p - both)
        }
    }
}

/// [`IndexedParallelIterator::interleave_shortest`]: interleaved until one side runs
/// out.
pub type InterleaveShortest<A, B> = Interleave<Take<A>, Take<B>>;

impl<A, B> ParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;
    type Seq<'a>
        = InterleaveSeq<A::Seq<'a>, B::Seq<'a>>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.a
            .position_count()
            .saturating_add(self.b.position_count())
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        let (amin, amax) = self.a.leaf_bounds();
        let (bmin, bmax) = self.b.leaf_bounds();
        (amin.max(bmin), amax.min(bmax))
    }

    fn driven(&mut self, positions: usize) {
        let (a, b) = self.split(positions);
        self.a.driven(a);
        self.b.driven(b);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let (a0, b0) = self.split(range.start);
        let (a1, b1) = self.split(range.end);
        let both = 2 * self.a.position_count().min(self.b.position_count());
        InterleaveSeq {
            // SAFETY: `split` is monotone: disjoint ranges here are disjoint on each side.
            a: unsafe { self.a.seq(a0..a1) },
            // SAFETY: as above.
            b: unsafe { self.b.seq(b0..b1) },
            b_next: range.start % 2 == 1,
            alternating: range.end.min(both).saturating_sub(range.start),
        }
    }
}

impl<A, B> IndexedParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
}

/// A leaf of [`Interleave`]: `alternating` items taken by turns, then what is left.
#[derive(Debug)]
pub struct InterleaveSeq<A, B> {
    a: A,
    b: B,
    b_next: bool,
    alternating: usize,
}

impl<A, B> Iterator for InterleaveSeq<A, B>
where
    A: Iterator,
    B: Iterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        if self.alternating > 0 {
            self.alternating -= 1;
            self.b_next = !self.b_next;
            if self.b_next {
                self.a.next()
            } else {
                self.b.next()
            }
        } else {
            // Past the interleaved part only the longer side has items.
            self.a.next().or_else(|| self.b.next())
        }
    }
}

/// [`IndexedParallelIterator::chunks`]: position `i` is the vector of the base's items
/// `i * size .. (i + 1) * size`.
#[derive(Debug, Clone)]
pub struct ChunksOf<I> {
    base: I,
    size: usize,
}

impl<I: IndexedParallelIterator> ChunksOf<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        assert!(size != 0, "chunks: the chunk size must not be zero");
        ChunksOf { base, size }
    }
}

/// The position plumbing of an adapter whose position `i` stands for its base's
/// positions `i * size .. (i + 1) * size`.
macro_rules! grouped_positions {
    () => {
        fn position_count(&self) -> usize {
            self.base.position_count().div_ceil(self.size)
        }

        fn exact_len(&self) -> Option<usize> {
            Some(self.position_count())
        }

        fn driven(&mut self, positions: usize) {
            let under = positions
                .saturating_mul(self.size)
                .min(self.base.position_count());
            self.base.driven(under);
        }
    };
}

/// The base positions under the grouped positions `range` of groups of `size`.
fn grouped(range: Range<usize>, size: usize, len: usize) -> Range<usize> {
    range.start.saturating_mul(size).min(len)..range.end.saturating_mul(size).min(len)
}

impl<I: IndexedParallelIterator> ParallelIterator for ChunksOf<I> {
    type Item = Vec<I::Item>;
    type Seq<'a>
        = GroupSeq<I::Seq<'a>, fn(&mut I::Seq<'a>, usize) -> Option<Vec<I::Item>>>
    where
        Self: 'a;

    grouped_positions!();

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let base = grouped(range, self.size, self.base.position_count());
        GroupSeq {
            // SAFETY: disjoint groups cover disjoint base positions, within those driven.
            inner: unsafe { self.base.seq(base) },
            size: self.size,
            group: |items, size| {
                let chunk: Vec<_> = items.take(size).collect();
                (!chunk.is_empty()).then_some(chunk)
            },
        }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for ChunksOf<I> {}

/// A leaf of a grouping adapter: `group` makes one item of the next `size` items.
#[derive(Debug)]
pub struct GroupSeq<S, G> {
    inner: S,
    size: usize,
    group: G,
}

impl<S, G, T> Iterator for GroupSeq<S, G>
where
    S: Iterator,
    G: FnMut(&mut S, usize) -> Option<T>,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        (self.group)(&mut self.inner, self.size)
    }
}

/// [`IndexedParallelIterator::fold_chunks`]: each chunk of `size` items folded from
/// `identity()`.
#[derive(Clone)]
pub struct FoldChunks<I, ID, F> {
    base: I,
    size: usize,
    identity: ID,
    fold_op: F,
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    pub(super) fn new(base: I, size: usize, identity: ID, fold_op: F) -> Self {
        assert!(size != 0, "fold_chunks: the chunk size must not be zero");
        FoldChunks {
            base,
            size,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> T + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Send,
{
    type Item = T;
    type Seq<'a>
        = FoldGroups<'a, I::Seq<'a>, &'a ID, F>
    where
        Self: 'a;

    grouped_positions!();

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let base = grouped(range, self.size, self.base.position_count());
        FoldGroups {
            // SAFETY: disjoint groups cover disjoint base positions, within those driven.
            inner: unsafe { self.base.seq(base) },
            size: self.size,
            init: &self.identity,
            fold_op: &self.fold_op,
        }
    }
}

impl<I, ID, F, T> IndexedParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> T + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Send,
{
}

/// [`IndexedParallelIterator::fold_chunks_with`]: each chunk of `size` items folded
/// from a clone of `init`.
#[derive(Clone)]
pub struct FoldChunksWith<I, T, F> {
    base: I,
    size: usize,
    init: T,
    fold_op: F,
}

impl<I, T, F> FoldChunksWith<I, T, F> {
    pub(super) fn new(base: I, size: usize, init: T, fold_op: F) -> Self {
        assert!(
            size != 0,
            "fold_chunks_with: the chunk size must not be zero"
        );
        FoldChunksWith {
            base,
            size,
            init,
            fold_op,
        }
    }
}

/// A starting value: `identity()` or a clone of `init`.
pub trait Init {
    /// The value.
    type Value;

    /// A fresh starting value.
    fn init(&self) -> Self::Value;
}

impl<T, ID: Fn() -> T> Init for ID {
    type Value = T;

    fn init(&self) -> T {
        self()
    }
}

/// The `init` of a `*_with` adapter: starts from a clone.
#[derive(Debug)]
pub struct CloneOf<'a, T>(pub(super) &'a T);

impl<T: Clone> Init for CloneOf<'_, T> {
    type Value = T;

    fn init(&self) -> T {
        self.0.clone()
    }
}

impl<I, T, F> ParallelIterator for FoldChunksWith<I, T, F>
where
    I: IndexedParallelIterator,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Clone + Send + Sync,
{
    type Item = T;
    type Seq<'a>
        = FoldGroups<'a, I::Seq<'a>, CloneOf<'a, T>, F>
    where
        Self: 'a;

    grouped_positions!();

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let base = grouped(range, self.size, self.base.position_count());
        FoldGroups {
            // SAFETY: disjoint groups cover disjoint base positions, within those driven.
            inner: unsafe { self.base.seq(base) },
            size: self.size,
            init: CloneOf(&self.init),
            fold_op: &self.fold_op,
        }
    }
}

impl<I, T, F> IndexedParallelIterator for FoldChunksWith<I, T, F>
where
    I: IndexedParallelIterator,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Clone + Send + Sync,
{
}

/// A leaf of [`FoldChunks`] and [`FoldChunksWith`]: each group of `size` items folded.
#[derive(Debug)]
pub struct FoldGroups<'a, S, N, F> {
    inner: S,
    size: usize,
    init: N,
    fold_op: &'a F,
}

impl<S, N, F> Iterator for FoldGroups<'_, S, N, F>
where
    S: Iterator,
    N: Init,
    F: Fn(N::Value, S::Item) -> N::Value,
{
    type Item = N::Value;

    fn next(&mut self) -> Option<N::Value> {
        let first = self.inner.next()?;
        let acc = (self.fold_op)(self.init.init(), first);
        Some(
            self.inner
                .by_ref()
                .take(self.size - 1)
                .fold(acc, self.fold_op),
        )
    }
}

/// [`ParallelIterator::intersperse`]: a clone of `separator` between each two items.
///
/// Over an indexed chain, position `2i` is the base's item `i` and position `2i + 1` a
/// separator. An unindexed chain cannot say which of its leaves holds the first item,
/// and so which leaves start with a separator: its items are gathered in order when the
/// terminal starts (one parallel `collect`, before any leaf), and the base's positions
/// are mapped onto the interspersed items in proportion, so the leaves keep the base's
/// cut.
#[derive(Debug)]
pub struct Intersperse<I, T> {
    stage: Stage<I, T>,
    separator: T,
}

impl<I: Clone, T: Clone + Send> Clone for Intersperse<I, T> {
    fn clone(&self) -> Self {
        Intersperse {
            stage: self.stage.clone(),
            separator: self.separator.clone(),
        }
    }
}

/// The items an [`Intersperse`] draws from.
#[derive(Debug)]
enum Stage<I, T> {
    /// The base chain, not yet driven if it is unindexed.
    Base(I),
    /// An unindexed base's items, over its `positions`.
    Gathered {
        items: IntoIter<T>,
        positions: usize,
    },
}

impl<I: Clone, T: Clone + Send> Clone for Stage<I, T> {
    fn clone(&self) -> Self {
        match self {
            Stage::Base(base) => Stage::Base(base.clone()),
            Stage::Gathered { items, positions } => Stage::Gathered {
                items: items.clone(),
                positions: *positions,
            },
        }
    }
}

impl<I: ParallelIterator> Intersperse<I, I::Item>
where
    I::Item: Clone + Send + Sync,
{
    pub(super) fn new(base: I, separator: I::Item) -> Self {
        Intersperse {
            stage: Stage::Base(base),
            separator,
        }
    }

    /// Interspersed items `outputs` of `inner`'s items (`2i`: item `i`).
    ///
    /// # Safety
    /// As [`ParallelIterator::seq`], for `outputs` and the interspersed items of
    /// `inner`'s driven ones.
    unsafe fn leaf<'a, P: ParallelIterator<Item = I::Item>>(
        &'a self,
        inner: &'a P,
        outputs: Range<usize>,
    ) -> IntersperseSeq<'a, P::Seq<'a>, I::Item> {
        let items = outputs.start.div_ceil(2)..outputs.end.div_ceil(2);
        IntersperseSeq {
            // SAFETY: the even outputs of disjoint ranges are disjoint items, within
            // those driven (by the caller).
            inner: unsafe { inner.seq(items) },
            separator: &self.separator,
            item_next: outputs.start % 2 == 0,
            left: outputs.len(),
        }
    }
}

/// The number of interspersed items of `n` items.
fn interspersed(n: usize) -> usize {
    (2 * n).saturating_sub(1)
}

impl<I> ParallelIterator for Intersperse<I, I::Item>
where
    I: ParallelIterator,
    I::Item: Clone + Send + Sync,
{
    type Item = I::Item;
    type Seq<'a>
        = StageSeq<
        IntersperseSeq<'a, I::Seq<'a>, I::Item>,
        IntersperseSeq<'a, super::source::Drain<'a, I::Item>, I::Item>,
    >
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        match &self.stage {
            Stage::Base(base) if base.exact_len().is_some() => interspersed(base.position_count()),
            Stage::Base(base) => base.position_count(),
            Stage::Gathered { positions, .. } => *positions,
        }
    }

    fn exact_len(&self) -> Option<usize> {
        match &self.stage {
            Stage::Base(base) => base.exact_len().map(interspersed),
            Stage::Gathered { .. } => None,
        }
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        match &self.stage {
            Stage::Base(base) => base.leaf_bounds(),
            Stage::Gathered { .. } => (1, usize::MAX),
        }
    }

    fn driven(&mut self, positions: usize) {
        let Stage::Base(base) = &mut self.stage else {
            return;
        };
        if base.exact_len().is_some() {
            base.driven(positions.div_ceil(2));
            return;
        }
        let gathered = Stage::Gathered {
            items: Vec::new().into_par_iter(),
            positions,
        };
        let Stage::Base(base) = std::mem::replace(&mut self.stage, gathered) else {
            unreachable!("the stage was the base just above");
        };
        let mut items = base.collect::<Vec<_>>().into_par_iter();
        let n = items.position_count();
        items.driven(n);
        self.stage = Stage::Gathered { items, positions };
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        match &self.stage {
            // SAFETY: forwarded from the caller: the base was driven with the items of
            // the positions driven.
            Stage::Base(base) => StageSeq::Base(unsafe { self.leaf(base, range) }),
            Stage::Gathered { items, positions } => {
                // Position `p` of the base's starts interspersed item `p * outputs /
                // positions`: disjoint ranges of positions give disjoint ranges of items,
                // and all positions give all items.
                let outputs = interspersed(items.position_count());
                let scale = |p: usize| (p as u128 * outputs as u128 / *positions as u128) as usize;
                let outputs = scale(range.start)..scale(range.end);
                // SAFETY: `scale` keeps disjoint ranges disjoint, within the gathered
                // items, all of which were driven.
                StageSeq::Gathered(unsafe { self.leaf(items, outputs) })
            }
        }
    }
}

impl<I> IndexedParallelIterator for Intersperse<I, I::Item>
where
    I: IndexedParallelIterator,
    I::Item: Clone + Send + Sync,
{
}

/// A leaf of an adapter that draws from one of two stages.
#[derive(Debug)]
pub enum StageSeq<A, B> {
    /// From the first.
    Base(A),
    /// From the second.
    Gathered(B),
}

impl<A: Iterator, B: Iterator<Item = A::Item>> Iterator for StageSeq<A, B> {
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        match self {
            StageSeq::Base(a) => a.next(),
            StageSeq::Gathered(b) => b.next(),
        }
    }
}

/// A leaf of an [`Intersperse`]: `left` items, base items and separators by turns.
#[derive(Debug)]
pub struct IntersperseSeq<'a, S, T> {
    inner: S,
    separator: &'a T,
    /// Whether the next position is a base item (else a separator).
    item_next: bool,
    left: usize,
}

impl<S: Iterator<Item = T>, T: Clone> Iterator for IntersperseSeq<'_, S, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let item = self.item_next;
        self.item_next = !item;
        if item {
            self.inner.next()
        } else {
            Some(self.separator.clone())
        }
    }
}

debug_fields! {
    [I: fmt::Debug, ID, F] FoldChunks<I, ID, F> { base, size };
    [I: fmt::Debug, T: fmt::Debug, F] FoldChunksWith<I, T, F> { base, size, init };
}
