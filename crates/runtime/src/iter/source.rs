//! The sources: slices (shared, mutable, in chunks) and vectors by value (ranges are in
//! `range.rs`).
//!
//! A source hands out the items of disjoint ranges of its positions to the leaves of a
//! terminal (`ParallelIterator::seq`). The mutable and owning ones do that through a raw
//! pointer, each position at most once (the `seq` contract), so each element is lent or
//! moved to one leaf only. Slice sources declare the elements a leaf touches
//! ([`crate::footprint`]) when a listener is installed.

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::footprint;
use std::marker::PhantomData;
use std::ops::Range;

/// `par_iter()` of a slice: references to its elements.
#[derive(Debug)]
pub struct Iter<'data, T> {
    slice: &'data [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

impl<'data, T: Sync> ParallelIterator for Iter<'data, T> {
    type Item = &'data T;
    type Seq<'a>
        = std::slice::Iter<'data, T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.slice.len()
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let part = &self.slice[range];
        footprint::read_slice(part);
        part.iter()
    }
}

impl<T: Sync> IndexedParallelIterator for Iter<'_, T> {}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data [T] {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Vec<T> {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

/// `par_iter_mut()` of a slice: mutable references to its elements.
#[derive(Debug)]
pub struct IterMut<'data, T> {
    ptr: *mut T,
    len: usize,
    marker: PhantomData<&'data mut [T]>,
}

// SAFETY: an `IterMut` is a `&mut [T]` cut into disjoint parts: it lends each element to
// one leaf only (the `seq` contract), so sharing it between threads moves `&mut T`s to
// other threads, which `T: Send` allows, as for `&mut [T]` itself.
unsafe impl<T: Send> Sync for IterMut<'_, T> {}
// SAFETY: as above: sending it sends the `&mut [T]` it stands for.
unsafe impl<T: Send> Send for IterMut<'_, T> {}

impl<'data, T: Send> IterMut<'data, T> {
    fn new(slice: &'data mut [T]) -> Self {
        IterMut {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            marker: PhantomData,
        }
    }
}

impl<'data, T: Send> ParallelIterator for IterMut<'data, T> {
    type Item = &'data mut T;
    type Seq<'a>
        = std::slice::IterMut<'data, T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.len
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.len)
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: the range is within the slice (checked), and by `seq`'s contract no
        // other leaf gets any of its elements, so this is the only reference to them for
        // the rest of `'data`.
        let part =
            unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) };
        footprint::write_slice(part);
        part.iter_mut()
    }
}

impl<T: Send> IndexedParallelIterator for IterMut<'_, T> {}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut [T] {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut::new(self)
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Vec<T> {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut::new(self)
    }
}

/// `into_par_iter()` of a `Vec`: its elements, moved out.
///
/// The elements of the positions a terminal drives are moved to (or dropped with) the
/// leaf that gets them; those it does not drive (a `zip` with a shorter iterator, or an
/// iterator dropped without a terminal) are dropped with the `IntoIter`.
#[derive(Debug)]
pub struct IntoIter<T> {
    ptr: *mut T,
    len: usize,
    cap: usize,
    /// Positions `0..driven` belong to a terminal's leaves.
    driven: usize,
}

// SAFETY: the `IntoIter` owns its elements (as the `Vec` did) and moves each to one leaf
// only (the `seq` contract): sharing it between threads sends `T`s, which `T: Send`
// allows.
unsafe impl<T: Send> Sync for IntoIter<T> {}
// SAFETY: as above: it owns `T`s as a `Vec<T>` does.
unsafe impl<T: Send> Send for IntoIter<T> {}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        let mut v = std::mem::ManuallyDrop::new(self);
        IntoIter {
            ptr: v.as_mut_ptr(),
            len: v.len(),
            cap: v.capacity(),
            driven: 0,
        }
    }
}

impl<T: Clone + Send> Clone for IntoIter<T> {
    /// A new vector's iterator over clones of the elements not yet handed to a terminal.
    fn clone(&self) -> Self {
        // SAFETY: positions `driven..len` hold live elements that no leaf has taken.
        let rest = unsafe {
            std::slice::from_raw_parts(self.ptr.add(self.driven), self.len - self.driven)
        };
        rest.to_vec().into_par_iter()
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;
    type Seq<'a>
        = Drain<'a, T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.len
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.len)
    }

    unsafe fn seq(&self, range: Range<usize>) -> Drain<'_, T> {
        // SAFETY: positions `0..driven` are live elements (`driven <= len`), and `seq`'s
        // contract gives each to one leaf.
        unsafe { Drain::leaf(self.ptr, self.driven, range) }
    }

    fn driven(&mut self, positions: usize) {
        self.driven = positions.min(self.len);
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {}

impl<T> Drop for IntoIter<T> {
    fn drop(&mut self) {
        // The elements past those driven were never handed out: drop them here. Those
        // driven were moved out or dropped by their leaves.
        let rest = self.len - self.driven;
        // SAFETY: positions `driven..len` hold live elements nobody else owns, and the
        // buffer is the vector's, with its capacity; length 0 frees it without dropping.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.ptr.add(self.driven),
                rest,
            ));
            drop(Vec::from_raw_parts(self.ptr, 0, self.cap));
        }
    }
}

/// The elements of one leaf of an [`IntoIter`], moved out one by one; those not taken
/// are dropped with it.
#[derive(Debug)]
pub struct Drain<'a, T> {
    next: *mut T,
    left: usize,
    marker: PhantomData<&'a mut [T]>,
}

impl<T> Drain<'_, T> {
    /// A leaf's part of a drain whose live elements start at `first` and whose
    /// positions `0..driven` belong to a terminal's leaves: `range` of them, moved out
    /// one by one (their reads told to the footprint listener).
    ///
    /// # Safety
    /// Positions `0..driven` from `first` are live elements, the drain's to give, and no
    /// other leaf gets any of `range` (`seq`'s contract); they stay valid for the new
    /// drain's lifetime.
    pub(crate) unsafe fn leaf(first: *mut T, driven: usize, range: Range<usize>) -> Self {
        assert!(range.start <= range.end && range.end <= driven);
        // SAFETY: within the live elements (checked above; the caller's contract).
        let next = unsafe { first.add(range.start) };
        // SAFETY: as above.
        footprint::read_slice(unsafe { std::slice::from_raw_parts(next, range.len()) });
        Drain {
            next,
            left: range.len(),
            marker: PhantomData,
        }
    }
}

impl<T> Iterator for Drain<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // SAFETY: `next` points to a live element this drain owns (one of `left`); it is
        // read once, then the drain moves past it.
        unsafe {
            let item = self.next.read();
            self.next = self.next.add(1);
            Some(item)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the `left` elements from `next` are live and owned by this drain alone.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.next, self.left));
        }
    }
}

/// `par_chunks(size)` of a slice: consecutive subslices of `size` elements, the last
/// possibly shorter.
#[derive(Debug)]
pub struct Chunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

impl<'data, T: Sync> Chunks<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        Chunks { slice, size }
    }
}

/// The iterator impls of a source of shared chunks, `$name`, whose `slice` holds its
/// chunks of `size` elements (the last possibly shorter), whose positions map to
/// elements by `$elements` (`elements` from the front, `chunks.rs`'s `from_back` from
/// the back) and whose leaves run std's `$method`.
macro_rules! shared_chunks {
    ($name:ident, $method:ident, $elements:path) => {
        impl<'data, T: Sync> ParallelIterator for $name<'data, T> {
            type Item = &'data [T];
            type Seq<'a>
                = std::slice::$name<'data, T>
            where
                Self: 'a;

            fn position_count(&self) -> usize {
                self.slice.len().div_ceil(self.size)
            }

            fn exact_len(&self) -> Option<usize> {
                Some(self.position_count())
            }

            unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
                let part = &self.slice[$elements(range, self.size, self.slice.len())];
                footprint::read_slice(part);
                part.$method(self.size)
            }
        }

        impl<T: Sync> IndexedParallelIterator for $name<'_, T> {}
    };
}
pub(super) use shared_chunks;

shared_chunks!(Chunks, chunks, elements);

/// The elements of chunks `range` of `size` elements of a slice of `len`.
fn elements(range: Range<usize>, size: usize, len: usize) -> Range<usize> {
    let lo = range.start.saturating_mul(size).min(len);
    let hi = range.end.saturating_mul(size).min(len);
    lo..hi
}

/// `par_chunks_exact(size)` of a slice: consecutive subslices of exactly `size`
/// elements; the [`ChunksExact::remainder`] is left out.
#[derive(Debug)]
pub struct ChunksExact<'data, T> {
    slice: &'data [T],
    rem: &'data [T],
    size: usize,
}

impl<T> Clone for ChunksExact<'_, T> {
    fn clone(&self) -> Self {
        ChunksExact { ..*self }
    }
}

impl<'data, T: Sync> ChunksExact<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        let whole = slice.len() / size * size;
        let (slice, rem) = slice.split_at(whole);
        ChunksExact { slice, rem, size }
    }

    /// The elements past the last whole chunk (fewer than `size`).
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

// The slice holds whole chunks only (the remainder is apart), so every chunk is exact.
shared_chunks!(ChunksExact, chunks_exact, elements);

/// `par_chunks_mut(size)` of a slice: consecutive mutable subslices of `size` elements,
/// the last possibly shorter.
#[derive(Debug)]
pub struct ChunksMut<'data, T> {
    ptr: *mut T,
    len: usize,
    size: usize,
    marker: PhantomData<&'data mut [T]>,
}

// SAFETY: as for `IterMut`: each chunk is lent to one leaf only.
unsafe impl<T: Send> Sync for ChunksMut<'_, T> {}
// SAFETY: as for `IterMut`.
unsafe impl<T: Send> Send for ChunksMut<'_, T> {}

impl<'data, T: Send> ChunksMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        ChunksMut {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            size,
            marker: PhantomData,
        }
    }
}

impl<'data, T: Send> ParallelIterator for ChunksMut<'data, T> {
    type Item = &'data mut [T];
    type Seq<'a>
        = std::slice::ChunksMut<'data, T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.len.div_ceil(self.size)
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let elems = elements(range, self.size, self.len);
        // SAFETY: the elements are within the slice (`elements` clamps to its length),
        // and by `seq`'s contract no other leaf gets any of these chunks.
        let part =
            unsafe { std::slice::from_raw_parts_mut(self.ptr.add(elems.start), elems.len()) };
        footprint::write_slice(part);
        part.chunks_mut(self.size)
    }
}

impl<T: Send> IndexedParallelIterator for ChunksMut<'_, T> {}
