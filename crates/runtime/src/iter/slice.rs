//! rayon's `ParallelSlice` and `ParallelSliceMut`: chunks and sorts of slices.

use super::sort;
use super::source::{Chunks, ChunksExact, ChunksMut};
use std::cmp::Ordering;

/// Parallel methods of shared slices (and of `Vec`, through `Deref`).
pub trait ParallelSlice<T: Sync> {
    /// The slice.
    fn as_parallel_slice(&self) -> &[T];

    /// Consecutive chunks of `chunk_size` elements, the last possibly shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        Chunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Consecutive chunks of exactly `chunk_size` elements; the rest is
    /// [`ChunksExact::remainder`].
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        ChunksExact::new(self.as_parallel_slice(), chunk_size)
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel methods of mutable slices (and of `Vec`, through `DerefMut`).
pub trait ParallelSliceMut<T: Send> {
    /// The slice.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Consecutive mutable chunks of `chunk_size` elements, the last possibly shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        ChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Sorts the slice, stably.
    #[track_caller]
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        sort::stable(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice by `compare`, stably.
    #[track_caller]
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort::stable(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice by the key `f` gives, stably.
    #[track_caller]
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort::stable(self.as_parallel_slice_mut(), &super::by_key(f));
    }

    /// Sorts the slice; equal elements may be reordered.
    #[track_caller]
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        sort::unstable(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice by `compare`; equal elements may be reordered.
    #[track_caller]
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort::unstable(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice by the key `f` gives; equal keys may be reordered.
    #[track_caller]
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort::unstable(self.as_parallel_slice_mut(), &super::by_key(f));
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
