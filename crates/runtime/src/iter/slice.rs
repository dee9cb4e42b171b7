//! rayon's `ParallelSlice` and `ParallelSliceMut`: chunks, windows, splits and sorts of
//! slices.

use super::chunks::{
    ArrayWindows, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut, Windows,
};
use super::pieces::{
    self, ChunkBy, ChunkByMut, SliceSplit, SplitInclusive, SplitInclusiveMut, SplitMut,
};
use super::sort;
use super::source::{Chunks, ChunksExact, ChunksMut};
use super::{IndexedParallelIterator, IntoParallelRefMutIterator, ParallelIterator};
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

    /// Every run of `window_size` consecutive elements.
    ///
    /// # Panics
    /// If `window_size` is 0, as rayon's does.
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        Windows::new(self.as_parallel_slice(), window_size)
    }

    /// Every run of `N` consecutive elements, as an array (rayon's `par_array_windows`).
    ///
    /// # Panics
    /// If `N` is 0, as rayon's does.
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }

    /// Chunks of `chunk_size` elements from the back, the last (the front) possibly
    /// shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        RChunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Chunks of exactly `chunk_size` elements from the back; the rest (at the front) is
    /// [`RChunksExact::remainder`].
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        RChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// The subslices between the elements for which `separator` holds, as std's
    /// `split`.
    fn par_split<P>(&self, separator: P) -> SliceSplit<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        pieces::shared(self.as_parallel_slice(), pieces::split_rule(separator))
    }

    /// The subslices each ending with an element for which `separator` holds (the last
    /// one may end without), as std's `split_inclusive`.
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        pieces::shared(self.as_parallel_slice(), pieces::inclusive_rule(separator))
    }

    /// The runs of consecutive elements each two neighbours of which `pred` joins, as
    /// std's `chunk_by`.
    fn par_chunk_by<P>(&self, pred: P) -> ChunkBy<'_, T, P>
    where
        P: Fn(&T, &T) -> bool + Sync + Send,
    {
        pieces::shared(self.as_parallel_slice(), pieces::chunk_by_rule(pred))
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

    /// Mutable chunks of exactly `chunk_size` elements; the rest is left out
    /// ([`ChunksExactMut::into_remainder`]).
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        ChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Mutable chunks of `chunk_size` elements from the back, the last possibly
    /// shorter.
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        RChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Mutable chunks of exactly `chunk_size` elements from the back; the rest is left
    /// out ([`RChunksExactMut::into_remainder`]).
    ///
    /// # Panics
    /// If `chunk_size` is 0, as rayon's does.
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        RChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// The mutable subslices between the elements for which `separator` holds, as std's
    /// `split_mut`.
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        pieces::mutable(self.as_parallel_slice_mut(), pieces::split_rule(separator))
    }

    /// The mutable subslices each ending with an element for which `separator` holds, as
    /// std's `split_inclusive_mut`.
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        pieces::mutable(
            self.as_parallel_slice_mut(),
            pieces::inclusive_rule(separator),
        )
    }

    /// The mutable runs of consecutive elements each two neighbours of which `pred`
    /// joins, as std's `chunk_by_mut`.
    fn par_chunk_by_mut<P>(&mut self, pred: P) -> ChunkByMut<'_, T, P>
    where
        P: Fn(&T, &T) -> bool + Sync + Send,
    {
        pieces::mutable(self.as_parallel_slice_mut(), pieces::chunk_by_rule(pred))
    }

    /// Sorts the slice by the key `f` gives, stably, calling `f` once per element.
    #[track_caller]
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        let v = self.as_parallel_slice_mut();
        let mut keys: Vec<(K, usize)> = v
            .par_iter_mut()
            .enumerate()
            .map(|(i, x)| (f(x), i))
            .collect();
        // Keys with their indices are distinct, so the unstable sort gives the stable
        // order.
        sort::unstable(&mut keys, &|a: &(K, usize), b: &(K, usize)| a.cmp(b));
        // Apply the permutation: position `i` takes the element at `keys[i].1`, following
        // each cycle with swaps, as std's `sort_by_cached_key` does.
        for i in 0..v.len() {
            let mut index = keys[i].1;
            while index < i {
                index = keys[index].1;
            }
            keys[i].1 = index;
            v.swap(i, index);
        }
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
