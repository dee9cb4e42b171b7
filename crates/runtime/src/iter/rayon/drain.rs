//! rayon's draining traits over rayon's [`ParallelIterator`]: what the drop-in crate
//! calls `rayon::iter::ParallelDrainRange` and `ParallelDrainFull`, so a crate can
//! implement them for its own collections (indexmap does), and the drain of a range of
//! a `Vec`, `VecDeque` or `BinaryHeap` in place, [`RangeDrain`] (rayon's `vec::Drain`,
//! `vec_deque::Drain` and `binary_heap::Drain`).
//!
//! A [`RangeDrain`] borrows its collection for its whole life and, as rayon's drains
//! do, keeps the collection's capacity. At the call it takes the collection's vector
//! (a `VecDeque` moves its elements to the front of its buffer, as `Vec::from` does;
//! nothing is allocated) and sets the vector's length to the range's start: from then
//! on the drain owns the range and the tail after it. A terminal moves each element of
//! the range to the leaf that gets it, as a `Vec`'s `into_par_iter` does; when the
//! drain is dropped, consumed or not, it drops the elements no leaf was handed, moves
//! the tail down to close the gap and gives the vector back to the collection (that
//! last step runs even if an element's `drop` panics). A leaf that panics drops the
//! elements it had not yet yielded with its iterator. A drain leaked with
//! `std::mem::forget` leaves the collection empty and leaks its elements (rayon leaves
//! it unspecified how many items a leaked drain removes).
//!
//! A `String`'s drain and the full drains of a `HashMap` and a `HashSet` move their
//! items into a vector at the call, as locus's own `par_drain` and rayon's hash drains
//! do, and iterate that.

use super::ParallelIterator;
use crate::iter as li;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::fmt;
use std::ops::{Bound, Range, RangeBounds};

/// rayon's `ParallelDrainRange`: `par_drain(range)` moves the elements of a range out of
/// a collection and leaves the rest in order; the collection keeps its capacity.
///
/// When the iterator is dropped, every element of the range is removed, even if the
/// iterator was not consumed.
pub trait ParallelDrainRange<Idx = usize> {
    /// The draining iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// The elements of `range`, removed.
    ///
    /// # Panics
    /// If `range` starts after it ends or ends past the collection's length (or, for a
    /// `String`, is not on char boundaries), as std's `drain` does.
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// rayon's `ParallelDrainFull`: `par_drain()` moves every element out of a collection
/// that cannot be cut by position (a heap, a hash table); the collection keeps its
/// capacity.
///
/// When the iterator is dropped, every element is removed, even if the iterator was not
/// consumed.
pub trait ParallelDrainFull {
    /// The draining iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Every element, removed; the collection is left empty.
    fn par_drain(self) -> Self::Iter;
}

/// The elements of a range of a `Vec`, a `VecDeque` or a `BinaryHeap`, `C`, moved out
/// in place (see the module documentation): rayon's `vec::Drain`, `vec_deque::Drain`
/// and `binary_heap::Drain`. An indexed parallel iterator.
pub struct RangeDrain<'a, C: From<Vec<T>>, T> {
    collection: &'a mut C,
    /// The collection's vector, lent for the drain: its length is the range's start;
    /// the range and the tail after it lie beyond, owned by the drain.
    vec: Vec<T>,
    /// The range's first element, in `vec`'s buffer.
    first: *mut T,
    /// The range's length.
    len: usize,
    /// The number of elements after the range.
    tail: usize,
    /// Positions `0..driven` belong to a terminal's leaves.
    driven: usize,
}

// SAFETY: the drain owns the range's and the tail's `T`s and borrows `C` mutably; a
// `&RangeDrain` reaches only `first` and the counts, and hands each element of the
// range to one leaf only (the `seq` contract), which moves `T`s between threads: `T:
// Send` allows that. The collection and the vector are touched through `&mut self` alone.
unsafe impl<C: From<Vec<T>> + Send, T: Send> Sync for RangeDrain<'_, C, T> {}
// SAFETY: as above: it holds `T`s and a `&mut C`, both `Send`.
unsafe impl<C: From<Vec<T>> + Send, T: Send> Send for RangeDrain<'_, C, T> {}

impl<'a, C, T> RangeDrain<'a, C, T>
where
    C: From<Vec<T>> + Default,
    Vec<T>: From<C>,
{
    /// The drain of `range` of `collection`, whose length is `len`.
    #[track_caller]
    fn new(collection: &'a mut C, len: usize, range: impl RangeBounds<usize>) -> Self {
        let range = bounds(range, len);
        let mut vec = Vec::from(std::mem::take(collection));
        debug_assert_eq!(vec.len(), len);
        // SAFETY: `range.start <= len` (checked by `bounds`), within the vector.
        let first = unsafe { vec.as_mut_ptr().add(range.start) };
        // SAFETY: the elements from `range.start` stay live in the buffer, and the drain
        // owns them from here (it drops or moves each once).
        unsafe { vec.set_len(range.start) };
        RangeDrain {
            collection,
            vec,
            first,
            len: range.len(),
            tail: len - range.end,
            driven: 0,
        }
    }
}

/// `range` of a collection of `len` elements, checked as std's `drain` checks it.
#[track_caller]
fn bounds(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let past = |i: usize| {
        i.checked_add(1)
            .unwrap_or_else(|| panic!("par_drain: the range's bound {i} overflows usize"))
    };
    let start = match range.start_bound() {
        Bound::Included(&i) => i,
        Bound::Excluded(&i) => past(i),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&i) => past(i),
        Bound::Excluded(&i) => i,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "par_drain: the range starts at {start} but ends at {end}"
    );
    assert!(
        end <= len,
        "par_drain: the range ends at {end}, past the length {len}"
    );
    start..end
}

impl<C: From<Vec<T>>, T> fmt::Debug for RangeDrain<'_, C, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RangeDrain")
            .field("start", &self.vec.len())
            .field("len", &self.len)
            .field("tail", &self.tail)
            .finish_non_exhaustive()
    }
}

impl<C: From<Vec<T>> + Send, T: Send> li::ParallelIterator for RangeDrain<'_, C, T> {
    type Item = T;
    type Seq<'s>
        = li::Drain<'s, T>
    where
        Self: 's;

    fn position_count(&self) -> usize {
        self.len
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.len)
    }

    fn driven(&mut self, positions: usize) {
        self.driven = positions.min(self.len);
    }

    unsafe fn seq(&self, range: Range<usize>) -> li::Drain<'_, T> {
        // SAFETY: positions `0..driven` are the range's live elements (`driven <= len`),
        // and by `seq`'s contract no other leaf gets any of them: the leaf's drain owns
        // them, and the drain skips them when it is dropped.
        unsafe { li::Drain::leaf(self.first, self.driven, range) }
    }
}

impl<C: From<Vec<T>> + Send, T: Send> li::IndexedParallelIterator for RangeDrain<'_, C, T> {}

impl<C: From<Vec<T>>, T> Drop for RangeDrain<'_, C, T> {
    fn drop(&mut self) {
        /// Closes the gap and gives the vector back, even if an element's `drop` panics.
        struct Close<'d, 'a, C: From<Vec<T>>, T>(&'d mut RangeDrain<'a, C, T>);

        impl<C: From<Vec<T>>, T> Drop for Close<'_, '_, C, T> {
            fn drop(&mut self) {
                let drain = &mut *self.0;
                let start = drain.vec.len();
                // SAFETY: the buffer holds the tail's `tail` live elements from `start +
                // len` (owned by the drain); `copy` allows the overlap, and afterwards
                // the vector's first `start + tail` elements are live and the range's
                // slots were all moved out or dropped.
                unsafe {
                    let base = drain.vec.as_mut_ptr();
                    std::ptr::copy(base.add(start + drain.len), base.add(start), drain.tail);
                    drain.vec.set_len(start + drain.tail);
                }
                *drain.collection = C::from(std::mem::take(&mut drain.vec));
            }
        }

        let close = Close(self);
        let drain = &*close.0;
        let rest = drain.len - drain.driven;
        // SAFETY: positions `driven..len` hold live elements that no leaf was handed:
        // the drain owns them, and they are dropped here once.
        unsafe {
            let rest = std::ptr::slice_from_raw_parts_mut(drain.first.add(drain.driven), rest);
            std::ptr::drop_in_place(rest);
        }
    }
}

/// `ParallelDrainRange` by a [`RangeDrain`] of the collection `$coll`.
macro_rules! drain_in_place {
    ($($coll:ident)*) => {$(
        impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut $coll<T> {
            type Iter = RangeDrain<'a, $coll<T>, T>;
            type Item = T;

            #[track_caller]
            fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
                let len = self.len();
                RangeDrain::new(self, len, range)
            }
        }
    )*};
}

drain_in_place! { Vec VecDeque }

impl ParallelDrainRange<usize> for &mut String {
    type Iter = li::IntoIter<char>;
    type Item = char;

    #[track_caller]
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        li::ParallelDrainRange::par_drain(self, range)
    }
}

/// `T: Ord`, as rayon asks: the heap is rebuilt from its (empty) vector afterwards.
impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = RangeDrain<'a, BinaryHeap<T>, T>;
    type Item = T;

    fn par_drain(self) -> Self::Iter {
        let len = self.len();
        RangeDrain::new(self, len, ..)
    }
}

impl<T: Send, S> ParallelDrainFull for &mut HashSet<T, S> {
    type Iter = li::IntoIter<T>;
    type Item = T;

    fn par_drain(self) -> Self::Iter {
        li::ParallelDrainFull::par_drain(self)
    }
}

impl<K: Send, V: Send, S> ParallelDrainFull for &mut HashMap<K, V, S> {
    type Iter = li::IntoIter<(K, V)>;
    type Item = (K, V);

    fn par_drain(self) -> Self::Iter {
        li::ParallelDrainFull::par_drain(self)
    }
}
