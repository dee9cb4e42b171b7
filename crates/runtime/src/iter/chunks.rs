//! The slice sources beyond `par_chunks`: windows, chunks from the back, exact mutable
//! chunks, and splits at separator elements.
//!
//! Each chunk source is indexed: position `i` is chunk `i` (counted from the back for the
//! `rchunks` ones, as std counts them), and a leaf runs std's iterator of the same name
//! over the subslice its chunks cover, which gives the same chunks. The mutable ones lend
//! each chunk to one leaf only, as `ChunksMut` does (see `source.rs`).
//!
//! The splits of a slice at its elements (`par_split`, `par_chunk_by`) are in
//! `pieces.rs`.

use super::{IndexedParallelIterator, ParallelIterator};
use crate::footprint;
use std::marker::PhantomData;
use std::ops::Range;

/// `par_windows(size)`: every run of `size` consecutive elements.
#[derive(Debug)]
pub struct Windows<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

impl<'data, T: Sync> Windows<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "window size must not be zero");
        Windows { slice, size }
    }
}

impl<'data, T: Sync> ParallelIterator for Windows<'data, T> {
    type Item = &'data [T];
    type Seq<'a>
        = std::slice::Windows<'data, T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        (self.slice.len() + 1).saturating_sub(self.size)
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let end = if range.is_empty() {
            range.start
        } else {
            range.end + self.size - 1
        };
        let part = &self.slice[range.start..end];
        footprint::read_slice(part);
        part.windows(self.size)
    }
}

impl<T: Sync> IndexedParallelIterator for Windows<'_, T> {}

/// `par_array_windows::<N>()`: every run of `N` consecutive elements, as an array.
#[derive(Debug, Clone)]
pub struct ArrayWindows<'data, T, const N: usize> {
    windows: Windows<'data, T>,
}

impl<'data, T: Sync, const N: usize> ArrayWindows<'data, T, N> {
    pub(super) fn new(slice: &'data [T]) -> Self {
        ArrayWindows {
            windows: Windows::new(slice, N),
        }
    }
}

/// A window of `N` elements as the array it is.
fn as_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window.try_into().expect("a window holds N elements")
}

impl<'data, T: Sync, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];
    type Seq<'a>
        = std::iter::Map<std::slice::Windows<'data, T>, fn(&'data [T]) -> &'data [T; N]>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.windows.position_count()
    }

    fn exact_len(&self) -> Option<usize> {
        self.windows.exact_len()
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.windows.seq(range) }.map(as_array::<T, N>)
    }
}

impl<T: Sync, const N: usize> IndexedParallelIterator for ArrayWindows<'_, T, N> {}

/// The elements under chunks `range` of `size`, counted from the back of `len`.
fn from_back(range: Range<usize>, size: usize, len: usize) -> Range<usize> {
    let hi = len - range.start.saturating_mul(size).min(len);
    let lo = len - range.end.saturating_mul(size).min(len);
    lo..hi
}

/// `par_rchunks(size)`: chunks of `size` from the back, the last (the slice's front)
/// possibly shorter.
#[derive(Debug)]
pub struct RChunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

/// `par_rchunks_exact(size)`: chunks of exactly `size` from the back; the
/// [`RChunksExact::remainder`] at the front is left out.
#[derive(Debug)]
pub struct RChunksExact<'data, T> {
    slice: &'data [T],
    rem: &'data [T],
    size: usize,
}

impl<T> Clone for RChunksExact<'_, T> {
    fn clone(&self) -> Self {
        RChunksExact { ..*self }
    }
}

impl<'data, T: Sync> RChunks<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        RChunks { slice, size }
    }
}

impl<'data, T: Sync> RChunksExact<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        let (rem, slice) = slice.split_at(slice.len() % size);
        RChunksExact { slice, rem, size }
    }

    /// The elements before the first whole chunk from the back (fewer than `size`).
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

super::source::shared_chunks!(RChunks, rchunks, from_back);
super::source::shared_chunks!(RChunksExact, rchunks_exact, from_back);

/// A mutable chunk source: a `&mut [T]` lent chunk by chunk, each to one leaf.
macro_rules! mut_chunks {
    ($(#[$doc:meta])* $name:ident, $std:ident, $method:ident, $elements:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'data, T> {
            ptr: *mut T,
            len: usize,
            size: usize,
            marker: PhantomData<&'data mut [T]>,
        }

        // SAFETY: as for `IterMut`: each chunk is lent to one leaf only, so sharing the
        // source moves `&mut T`s between threads, which `T: Send` allows.
        unsafe impl<T: Send> Sync for $name<'_, T> {}
        // SAFETY: as above.
        unsafe impl<T: Send> Send for $name<'_, T> {}

        impl<'data, T: Send> $name<'data, T> {
            pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
                assert!(size != 0, "chunk size must not be zero");
                $name {
                    ptr: slice.as_mut_ptr(),
                    len: slice.len(),
                    size,
                    marker: PhantomData,
                }
            }
        }

        impl<'data, T: Send> ParallelIterator for $name<'data, T> {
            type Item = &'data mut [T];
            type Seq<'a>
                = std::slice::$std<'data, T>
            where
                Self: 'a;

            fn position_count(&self) -> usize {
                self.len.div_ceil(self.size)
            }

            fn exact_len(&self) -> Option<usize> {
                Some(self.position_count())
            }

            unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
                let elements: fn(Range<usize>, usize, usize) -> Range<usize> = $elements;
                let elems = elements(range, self.size, self.len);
                // SAFETY: the elements lie within the slice (clamped to its length), and
                // by `seq`'s contract no other leaf gets any of these chunks.
                let part = unsafe {
                    std::slice::from_raw_parts_mut(self.ptr.add(elems.start), elems.len())
                };
                footprint::write_slice(part);
                part.$method(self.size)
            }
        }

        impl<T: Send> IndexedParallelIterator for $name<'_, T> {}
    };
}

/// The elements under chunks `range` of `size`, counted from the front of `len`.
fn from_front(range: Range<usize>, size: usize, len: usize) -> Range<usize> {
    range.start.saturating_mul(size).min(len)..range.end.saturating_mul(size).min(len)
}

mut_chunks!(
    /// `par_rchunks_mut(size)`: mutable chunks of `size` from the back, the last possibly
    /// shorter.
    RChunksMut,
    RChunksMut,
    rchunks_mut,
    from_back
);

/// `par_chunks_exact_mut(size)`: mutable chunks of exactly `size`; the remainder at the
/// back is left out ([`ChunksExactMut::into_remainder`]).
pub struct ChunksExactMut<'data, T> {
    body: ExactBodyMut<'data, T>,
    rem: Remainder<'data, T>,
}

/// The elements an exact chunk source leaves out.
struct Remainder<'data, T>(&'data mut [T]);

// SAFETY: the remainder is reached only through `&mut self` or by value (`take_remainder`,
// `into_remainder`), never through a shared reference, so sharing it lends nothing.
unsafe impl<T: Send> Sync for Remainder<'_, T> {}

/// `par_rchunks_exact_mut(size)`: mutable chunks of exactly `size` from the back; the
/// remainder at the front is left out ([`RChunksExactMut::into_remainder`]).
pub struct RChunksExactMut<'data, T> {
    body: ExactBodyRevMut<'data, T>,
    rem: Remainder<'data, T>,
}

mut_chunks!(
    /// The whole chunks of a [`ChunksExactMut`].
    ExactBodyMut,
    ChunksExactMut,
    chunks_exact_mut,
    from_front
);

mut_chunks!(
    /// The whole chunks of an [`RChunksExactMut`].
    ExactBodyRevMut,
    RChunksExactMut,
    rchunks_exact_mut,
    from_back
);

impl<'data, T: Send> ChunksExactMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        let whole = slice.len() / size * size;
        let (body, rem) = slice.split_at_mut(whole);
        ChunksExactMut {
            body: ExactBodyMut::new(body, size),
            rem: Remainder(rem),
        }
    }

    /// The elements past the last whole chunk.
    pub fn into_remainder(self) -> &'data mut [T] {
        self.rem.0
    }

    /// The elements past the last whole chunk.
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.rem.0)
    }
}

impl<'data, T: Send> RChunksExactMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "chunk size must not be zero");
        let (rem, body) = slice.split_at_mut(slice.len() % size);
        RChunksExactMut {
            body: ExactBodyRevMut::new(body, size),
            rem: Remainder(rem),
        }
    }

    /// The elements before the first whole chunk from the back.
    pub fn into_remainder(self) -> &'data mut [T] {
        self.rem.0
    }

    /// The elements before the first whole chunk from the back.
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.rem.0)
    }
}

/// The impls of an exact mutable chunk source, forwarded to its body.
macro_rules! exact_mut {
    ($name:ident, $body:ident) => {
        impl<T> std::fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("size", &self.body.size)
                    .field("remainder", &self.rem.0.len())
                    .finish()
            }
        }

        impl<'data, T: Send> ParallelIterator for $name<'data, T> {
            type Item = &'data mut [T];
            type Seq<'a>
                = <$body<'data, T> as ParallelIterator>::Seq<'a>
            where
                Self: 'a;

            fn position_count(&self) -> usize {
                self.body.position_count()
            }

            fn exact_len(&self) -> Option<usize> {
                self.body.exact_len()
            }

            unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
                // SAFETY: forwarded from the caller.
                unsafe { self.body.seq(range) }
            }
        }

        impl<T: Send> IndexedParallelIterator for $name<'_, T> {}
    };
}

exact_mut!(ChunksExactMut, ExactBodyMut);
exact_mut!(RChunksExactMut, ExactBodyRevMut);
