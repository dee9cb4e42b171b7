//! The parallel sorts of [`super::ParallelSliceMut`].
//!
//! - Unstable: quicksort with `join`. A pivot (the median of three medians of three)
//!   partitions the slice in one pass of swaps; the two sides are sorted in parallel;
//!   below [`SEQUENTIAL`] elements, or past a depth of `2 log2 n` (a pathological
//!   input), a part is sorted by std's `sort_unstable_by`. When no element is less than
//!   the pivot, the elements equal to it are split off first, so runs of equal keys do
//!   not make the recursion quadratic.
//! - Stable: the slice is cut into runs of `⌈n / STABLE_RUNS⌉` elements that are sorted
//!   in parallel by std's stable sort (a `par_chunks_mut` loop), then std's stable sort
//!   merges the sorted runs, which it finds as they are: one pass of `n log2 runs`
//!   comparisons, serial. (Not yet a parallel merge.)
//!
//! Both first look for an input already in order, or in strictly descending order
//! (then reversed): one pass that stops at the first pair out of order, so a presorted
//! input costs what rayon's and pdqsort's run detection costs, not a whole sort.
//!
//! Both move elements only by swaps and std's sorts, which leave the slice a permutation
//! of itself when a comparison panics; the panic reaches the caller.

use super::{IndexedParallelIterator, ParallelIterator, ParallelSliceMut};
use std::cmp::Ordering;

/// Parts of at most this many elements are sorted sequentially. Guess, checked on
/// `par_sort_unstable` of 10^7 random `u64` on 2 threads (1024 to 8192 were alike).
const SEQUENTIAL: usize = 4096;

/// Runs a stable sort cuts the slice into before merging them.
const STABLE_RUNS: usize = 16;

/// Sorts `v` by `cmp`, not stably (see the module documentation).
#[track_caller]
pub(super) fn unstable<T, F>(v: &mut [T], cmp: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let limit = 2 * (usize::BITS - v.len().leading_zeros());
    if v.len() <= SEQUENTIAL {
        v.sort_unstable_by(cmp);
        return;
    }
    if presorted(v, cmp) {
        return;
    }
    if crate::registry::WorkerThread::current().is_some() {
        quicksort(v, cmp, limit);
    } else if super::hook::current().is_some() {
        // A serial executor runs this thread's loops (the recorder): sort here.
        v.sort_unstable_by(cmp);
    } else {
        // Outside a pool, the recursion runs on the global pool as one root task.
        let location = std::panic::Location::caller();
        crate::pool::global_registry().in_worker(location, |_| quicksort(v, cmp, limit));
    }
}

fn quicksort<T, F>(v: &mut [T], cmp: &F, limit: u32)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= SEQUENTIAL || limit == 0 {
        v.sort_unstable_by(cmp);
        return;
    }
    let is_less = |a: &T, b: &T| cmp(a, b) == Ordering::Less;
    let p = pivot(v, &is_less);
    v.swap(0, p);
    let (pivot, rest) = v
        .split_first_mut()
        .expect("the slice is longer than SEQUENTIAL");
    let less = partition(rest, |x| is_less(x, pivot));
    if less == 0 {
        // The pivot is a least element: the elements equal to it are in place once
        // moved to the front; only those greater remain to be sorted.
        let equal = partition(rest, |x| !is_less(pivot, x));
        quicksort(&mut rest[equal..], cmp, limit - 1);
        return;
    }
    // Put the pivot between the sides: `v[..less]` < pivot <= `v[less + 1..]`.
    v.swap(0, less);
    let (left, right) = v.split_at_mut(less);
    let right = &mut right[1..];
    crate::join(
        || quicksort(left, cmp, limit - 1),
        || quicksort(right, cmp, limit - 1),
    );
}

/// Moves the elements for which `pred` holds to the front, by swaps, and returns how
/// many there are. Branch-free: every step swaps, so it runs at the same speed whatever
/// the order of the input.
fn partition<T>(v: &mut [T], pred: impl Fn(&T) -> bool) -> usize {
    let mut front = 0;
    for i in 0..v.len() {
        let hit = pred(&v[i]);
        // `front <= i`: elements `front..i` are those for which `pred` fails.
        v.swap(front, i);
        front += usize::from(hit);
    }
    front
}

/// The index of a pivot: the median of the medians of three triples spread over `v`.
fn pivot<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let n = v.len();
    let step = n / 8;
    let median3 = |a: usize, b: usize, c: usize| {
        let (x, y, z) = (&v[a], &v[b], &v[c]);
        if is_less(x, y) {
            if is_less(y, z) {
                b
            } else if is_less(x, z) {
                c
            } else {
                a
            }
        } else if is_less(x, z) {
            a
        } else if is_less(y, z) {
            c
        } else {
            b
        }
    };
    let a = median3(0, step, 2 * step);
    let b = median3(3 * step, 4 * step, 5 * step);
    let c = median3(6 * step, 7 * step, n - 1);
    median3(a, b, c)
}

/// Whether `v` is in order by `cmp` now: it was, or it was in strictly descending order
/// and has been reversed (no two elements equal, so the stable sort may reverse it
/// too). At most two passes of one comparison per pair, each stopping at the first pair
/// out of its order; on a shuffled input both stop within the first few elements.
fn presorted<T>(v: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) -> bool {
    if v.windows(2).all(|w| cmp(&w[0], &w[1]) != Ordering::Greater) {
        return true;
    }
    if v.windows(2).all(|w| cmp(&w[0], &w[1]) == Ordering::Greater) {
        v.reverse();
        return true;
    }
    false
}

/// Sorts `v` by `cmp`, stably (see the module documentation).
#[track_caller]
pub(super) fn stable<T, F>(v: &mut [T], cmp: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= SEQUENTIAL {
        v.sort_by(cmp);
        return;
    }
    if presorted(v, cmp) {
        return;
    }
    let run = v.len().div_ceil(STABLE_RUNS).max(SEQUENTIAL);
    v.par_chunks_mut(run)
        .with_max_len(1)
        .for_each(|part| part.sort_by(cmp));
    v.sort_by(cmp);
}
