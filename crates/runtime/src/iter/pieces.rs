//! A slice cut into pieces by its elements: `par_split`, `par_split_inclusive` and
//! `par_chunk_by`, shared and mutable, as std's `split`, `split_inclusive` and
//! `chunk_by`.
//!
//! The positions are the slice's elements (one position for an empty slice's `split`,
//! whose one piece is empty, as std's). A *cut* `c` (`1 <= c <= len`) ends a piece after
//! element `c - 1`: after each separator for the splits, between two neighbours the
//! predicate does not join for `chunk_by`. The cuts are found once, before any leaf runs
//! (`driven`), by a parallel pass in which each element is looked at by one task only
//! (chunk by chunk; `chunk_by`'s pairs across two chunks are looked at after it), so the
//! predicate runs once per element and needs no more than `T: Send` for the mutable
//! sources. A leaf then only slices: it owns the first piece if it holds position 0,
//! and the piece after each cut `c` whose position `c - 1` it holds. So the pieces, and
//! the leaves that give them, are the same every run, and no element is lent to two
//! leaves: the mutable pieces are disjoint, and no leaf reads another's piece to find
//! its own.

use super::{IndexedParallelIterator, ParallelIterator, ParallelSlice, ParallelSliceMut};
use crate::footprint;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::OnceLock;

/// Where the pieces of a slice end.
pub trait CutRule<T>: Send + Sync {
    /// Whether a piece's last element is its cut's separator, to be left out (`split`);
    /// then the piece after the last cut is given even when empty.
    const DROPS_SEPARATOR: bool;

    /// Whether a cut after element `i` depends on element `i + 1` too (`chunk_by`).
    const PAIRS: bool;

    /// Whether a piece ends after `v[i]` (`v[i + 1]` exists when [`CutRule::PAIRS`]).
    fn cut_after(&self, v: &[T], i: usize) -> bool;
}

/// The cuts of [`ParallelSlice::par_split`] and [`ParallelSliceMut::par_split_mut`].
#[derive(Clone)]
pub struct SplitRule<P>(P);

/// The cuts of [`ParallelSlice::par_split_inclusive`] and
/// [`ParallelSliceMut::par_split_inclusive_mut`].
#[derive(Clone)]
pub struct InclusiveRule<P>(P);

/// The cuts of [`ParallelSlice::par_chunk_by`] and [`ParallelSliceMut::par_chunk_by_mut`].
#[derive(Clone)]
pub struct ChunkByRule<P>(P);

impl<T, P: Fn(&T) -> bool + Send + Sync> CutRule<T> for SplitRule<P> {
    const DROPS_SEPARATOR: bool = true;
    const PAIRS: bool = false;

    fn cut_after(&self, v: &[T], i: usize) -> bool {
        (self.0)(&v[i])
    }
}

impl<T, P: Fn(&T) -> bool + Send + Sync> CutRule<T> for InclusiveRule<P> {
    const DROPS_SEPARATOR: bool = false;
    const PAIRS: bool = false;

    fn cut_after(&self, v: &[T], i: usize) -> bool {
        (self.0)(&v[i])
    }
}

impl<T, P: Fn(&T, &T) -> bool + Send + Sync> CutRule<T> for ChunkByRule<P> {
    const DROPS_SEPARATOR: bool = false;
    const PAIRS: bool = true;

    fn cut_after(&self, v: &[T], i: usize) -> bool {
        !(self.0)(&v[i], &v[i + 1])
    }
}

/// Pieces lent as shared subslices.
#[derive(Debug, Clone, Copy)]
pub struct Shared;

/// Pieces lent as mutable subslices, each to one leaf.
#[derive(Debug, Clone, Copy)]
pub struct Mutable;

/// How a [`Pieces`] lends its pieces: [`Shared`] or [`Mutable`].
pub trait Lend<'data, T>: Send + Sync + Sized {
    /// A piece.
    type Piece: Send + 'data;

    /// The piece of `elements`.
    ///
    /// # Safety
    /// `ptr` is the source's slice, `elements` lie within it, and for [`Mutable`] no
    /// other piece lent overlaps them.
    unsafe fn piece(ptr: *mut T, elements: Range<usize>) -> Self::Piece;

    /// The cuts of `pieces`' slice, one parallel pass.
    fn find_cuts<R: CutRule<T>>(pieces: &mut Pieces<'data, T, R, Self>) -> Vec<usize>;
}

impl<'data, T: Sync + 'data> Lend<'data, T> for Shared {
    type Piece = &'data [T];

    unsafe fn piece(ptr: *mut T, elements: Range<usize>) -> &'data [T] {
        // SAFETY: within the slice, by the caller; shared pieces may overlap nothing
        // mutable.
        let piece = unsafe { std::slice::from_raw_parts(ptr.add(elements.start), elements.len()) };
        footprint::read_slice(piece);
        piece
    }

    fn find_cuts<R: CutRule<T>>(pieces: &mut Pieces<'data, T, R, Self>) -> Vec<usize> {
        // SAFETY: the source's shared slice, borrowed for 'data.
        let slice: &[T] = unsafe { std::slice::from_raw_parts(pieces.ptr, pieces.len) };
        let (size, rule) = (cut_chunk(pieces.len), &pieces.rule);
        let found = chunk_cuts(rule, size, slice.par_chunks(size));
        join_cuts(rule, slice, size, found)
    }
}

impl<'data, T: Send + 'data> Lend<'data, T> for Mutable {
    type Piece = &'data mut [T];

    unsafe fn piece(ptr: *mut T, elements: Range<usize>) -> &'data mut [T] {
        // SAFETY: within the slice and lent to no one else, by the caller.
        let piece =
            unsafe { std::slice::from_raw_parts_mut(ptr.add(elements.start), elements.len()) };
        footprint::write_slice(piece);
        piece
    }

    fn find_cuts<R: CutRule<T>>(pieces: &mut Pieces<'data, T, R, Self>) -> Vec<usize> {
        // SAFETY: the source's mutable slice, borrowed for 'data; `driven` runs before
        // any leaf, under `&mut self`, so nothing else reaches it now.
        let slice: &mut [T] = unsafe { std::slice::from_raw_parts_mut(pieces.ptr, pieces.len) };
        let (size, rule) = (cut_chunk(pieces.len), &pieces.rule);
        let found = chunk_cuts(rule, size, slice.par_chunks_mut(size));
        join_cuts(rule, slice, size, found)
    }
}

/// The elements per task of the pass that finds the cuts of a slice of `len`.
fn cut_chunk(len: usize) -> usize {
    len.div_ceil(super::LEAVES).max(1)
}

/// The cuts after the elements of `chunk` (which starts at element `offset`), but the
/// one after its last element when that depends on the next chunk.
fn cuts_within<T, R: CutRule<T>>(rule: &R, chunk: &[T], offset: usize) -> Vec<usize> {
    let looked = chunk.len() - usize::from(R::PAIRS && !chunk.is_empty());
    (0..looked)
        .filter(|&i| rule.cut_after(chunk, i))
        .map(|i| offset + i + 1)
        .collect()
}

/// The cuts within each of `chunks` (of `size` elements), one task per chunk.
fn chunk_cuts<T, R, C>(rule: &R, size: usize, chunks: C) -> Vec<Vec<usize>>
where
    R: CutRule<T>,
    C: IndexedParallelIterator,
    C::Item: AsRef<[T]>,
{
    chunks
        .enumerate()
        .map(|(i, chunk)| cuts_within(rule, chunk.as_ref(), i * size))
        .collect()
}

/// The chunks' cuts in order, with the cuts between two chunks of a pair rule.
fn join_cuts<T, R: CutRule<T>>(
    rule: &R,
    slice: &[T],
    size: usize,
    found: Vec<Vec<usize>>,
) -> Vec<usize> {
    let mut cuts = Vec::with_capacity(found.iter().map(Vec::len).sum());
    for (i, chunk) in found.into_iter().enumerate() {
        cuts.extend(chunk);
        let last = (i + 1) * size - 1;
        if R::PAIRS && last + 1 < slice.len() && rule.cut_after(slice, last) {
            cuts.push(last + 1);
        }
    }
    cuts
}

/// A slice cut into pieces by a [`CutRule`], lent by a [`Lend`] (see the module
/// documentation).
pub struct Pieces<'data, T, R, M> {
    ptr: *mut T,
    len: usize,
    rule: R,
    cuts: OnceLock<Vec<usize>>,
    marker: PhantomData<(&'data mut [T], M)>,
}

/// `par_split(separator)` of a slice: the subslices between the elements for which
/// `separator` holds, as std's `split`.
pub type SliceSplit<'data, T, P> = Pieces<'data, T, SplitRule<P>, Shared>;
/// `par_split_inclusive(separator)`: the subslices each ending with its separator, as
/// std's `split_inclusive`.
pub type SplitInclusive<'data, T, P> = Pieces<'data, T, InclusiveRule<P>, Shared>;
/// `par_chunk_by(pred)`: the runs of neighbours `pred` joins, as std's `chunk_by`.
pub type ChunkBy<'data, T, P> = Pieces<'data, T, ChunkByRule<P>, Shared>;
/// `par_split_mut(separator)`: [`SliceSplit`]'s pieces, mutable.
pub type SplitMut<'data, T, P> = Pieces<'data, T, SplitRule<P>, Mutable>;
/// `par_split_inclusive_mut(separator)`: [`SplitInclusive`]'s pieces, mutable.
pub type SplitInclusiveMut<'data, T, P> = Pieces<'data, T, InclusiveRule<P>, Mutable>;
/// `par_chunk_by_mut(pred)`: [`ChunkBy`]'s pieces, mutable.
pub type ChunkByMut<'data, T, P> = Pieces<'data, T, ChunkByRule<P>, Mutable>;

// SAFETY: shared pieces lend `&T`s to several threads, which `T: Sync` allows; mutable
// ones lend each element to one leaf only (see the module documentation), which moves
// `&mut T`s between threads, allowed by `T: Send` (the `Lend` impls ask for each).
unsafe impl<'data, T, R: Sync, M: Lend<'data, T>> Sync for Pieces<'data, T, R, M> {}
// SAFETY: as above.
unsafe impl<'data, T, R: Send, M: Lend<'data, T>> Send for Pieces<'data, T, R, M> {}

impl<'data, T, R, M> Pieces<'data, T, R, M> {
    fn from_parts(ptr: *mut T, len: usize, rule: R) -> Self {
        Pieces {
            ptr,
            len,
            rule,
            cuts: OnceLock::new(),
            marker: PhantomData,
        }
    }
}

impl<R: Clone, T> Clone for Pieces<'_, T, R, Shared> {
    fn clone(&self) -> Self {
        Pieces {
            cuts: self.cuts.clone(),
            rule: self.rule.clone(),
            ..*self
        }
    }
}

impl<T: fmt::Debug, R, M> fmt::Debug for Pieces<'_, T, R, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pieces")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<'data, T, R, M> ParallelIterator for Pieces<'data, T, R, M>
where
    R: CutRule<T>,
    M: Lend<'data, T>,
{
    type Item = M::Piece;
    type Seq<'a>
        = PiecesSeq<'data, 'a, T, M>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        if R::DROPS_SEPARATOR {
            // An empty slice still has its one (empty) piece, as std's `split`.
            self.len.max(1)
        } else {
            self.len
        }
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    fn driven(&mut self, _positions: usize) {
        if self.cuts.get().is_none() {
            let cuts = M::find_cuts(self);
            let _ = self.cuts.set(cuts);
        }
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // Found by `driven`, unless an adapter between the terminal and this source did
        // not pass it on; then the first leaf finds them alone, before any piece is lent.
        let cuts = self.cuts.get_or_init(|| {
            // SAFETY: no piece is lent before the cuts are set (every leaf waits here).
            let slice = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
            let found = vec![cuts_within(&self.rule, slice, 0)];
            join_cuts(&self.rule, slice, self.len.max(1), found)
        });
        // The cuts this leaf owns: `c - 1` within `range`.
        let first = cuts.partition_point(|&c| c <= range.start);
        let last = cuts.partition_point(|&c| c <= range.end);
        PiecesSeq {
            ptr: self.ptr,
            len: self.len,
            cuts,
            next: first,
            end: last,
            from_zero: range.start == 0 && !range.is_empty(),
            drops: R::DROPS_SEPARATOR,
            marker: PhantomData,
        }
    }
}

/// A leaf of a [`Pieces`]: the piece from element 0 if `from_zero`, then the pieces after
/// `cuts[next..end]`.
pub struct PiecesSeq<'data, 'a, T, M> {
    ptr: *mut T,
    len: usize,
    cuts: &'a [usize],
    next: usize,
    end: usize,
    from_zero: bool,
    drops: bool,
    marker: PhantomData<(&'data mut [T], M)>,
}

impl<T, M> fmt::Debug for PiecesSeq<'_, '_, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PiecesSeq")
            .field("next", &self.next)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

impl<'data, T, M: Lend<'data, T>> Iterator for PiecesSeq<'data, '_, T, M> {
    type Item = M::Piece;

    fn next(&mut self) -> Option<M::Piece> {
        // `i`: the index of the cut that ends the piece.
        let (start, i) = if std::mem::take(&mut self.from_zero) {
            (0, 0)
        } else if self.next < self.end {
            self.next += 1;
            (self.cuts[self.next - 1], self.next)
        } else {
            return None;
        };
        let end = match self.cuts.get(i) {
            Some(&cut) if self.drops => cut - 1,
            Some(&cut) => cut,
            None if self.drops || start < self.len => self.len,
            // The last cut ends the slice: no piece after it but `split`'s empty one.
            None => return None,
        };
        // SAFETY: `start..end` lies within the slice, between two cuts, and is this
        // leaf's alone: it owns the cut before it (or position 0), and each cut, and so
        // each piece, has one owner.
        Some(unsafe { M::piece(self.ptr, start..end) })
    }
}

/// The pieces of the shared `slice` by `rule`.
pub(super) fn shared<T: Sync, R>(slice: &[T], rule: R) -> Pieces<'_, T, R, Shared> {
    Pieces::from_parts(slice.as_ptr().cast_mut(), slice.len(), rule)
}

/// The pieces of the mutable `slice` by `rule`.
pub(super) fn mutable<T: Send, R>(slice: &mut [T], rule: R) -> Pieces<'_, T, R, Mutable> {
    Pieces::from_parts(slice.as_mut_ptr(), slice.len(), rule)
}

/// The rules' constructors, for `slice.rs`.
pub(super) fn split_rule<P>(p: P) -> SplitRule<P> {
    SplitRule(p)
}

/// See [`split_rule`].
pub(super) fn inclusive_rule<P>(p: P) -> InclusiveRule<P> {
    InclusiveRule(p)
}

/// See [`split_rule`].
pub(super) fn chunk_by_rule<P>(p: P) -> ChunkByRule<P> {
    ChunkByRule(p)
}

debug_fields! {
    [P] SplitRule<P> {};
    [P] InclusiveRule<P> {};
    [P] ChunkByRule<P> {};
}
