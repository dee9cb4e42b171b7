//! What the loop kernels (spmv-crs, spmv-ccs, spmm, radix, irreg) share: handing each
//! chunk of an [`Executor::for_range`] loop its own part of an output slice, running a
//! second loop of an iteration under task ids of its own, and declaring the runs of
//! consecutive indices a chunk touches in a vector.
//!
//! A loop's chunk `i` is spawn `i` of the scope the loop opens, so two loops opened by
//! the same task one after the other would give their `i`-th chunks the same task id,
//! and a profile keyed on ids would merge unrelated chunks. [`side_loop`] runs a loop
//! inside one half of a `join` whose other half is empty: its chunks then descend from
//! that half (ids `root.0.i` or `root.1.i` rather than `root.i`), distinct from the main
//! loop's and from the other half's, and the same in every iteration.
//!
//! Output parts go through [`Parts`]: the slice is cut before the loop exactly as the
//! loop cuts its range, and each chunk takes its part once (a `Mutex<Option<_>>` per
//! part, taken without contention); `split::Split::Loop` hands heat-loop its blocks of
//! rows the same way. The kernels stay safe code.
//!
//! No footprint is declared here except by [`read_runs`] and [`write_runs`], which
//! declare the ranges their caller names.

use std::ops::Range;
use std::sync::Mutex;

use locus::footprint::{read_slice, write_slice};

use crate::exec::Executor;

/// Which half of the `join` a [`side_loop`] runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Half {
    /// The first half (task ids `parent.0.i`).
    First,
    /// The second half (task ids `parent.1.i`).
    Second,
}

/// Runs `f` (which opens a loop) inside half `half` of a `join` whose other half does
/// nothing, so the loop's chunks get task ids of their own (see the module doc).
pub(crate) fn side_loop<E: Executor>(ex: &E, half: Half, f: impl FnOnce() + Send) {
    match half {
        Half::First => {
            ex.join(f, || ());
        }
        Half::Second => {
            ex.join(|| (), f);
        }
    }
}

/// A slice cut into parts, one per chunk of a loop, each taken once by its chunk.
pub(crate) struct Parts<'a, T> {
    /// Index of each part's first element in the whole slice, and one past the last.
    bounds: Vec<usize>,
    parts: Vec<Mutex<Option<&'a mut [T]>>>,
}

impl<'a, T> Parts<'a, T> {
    /// Cuts `data` at `bounds` (increasing, first 0, last `data.len()`): part `i` is
    /// `bounds[i]..bounds[i + 1]`.
    ///
    /// # Panics
    ///
    /// Panics if `bounds` is not such a list.
    pub(crate) fn at(data: &'a mut [T], bounds: Vec<usize>) -> Parts<'a, T> {
        assert!(
            bounds.first() == Some(&0) && bounds.last() == Some(&data.len()),
            "parts: bounds must run from 0 to the slice's length"
        );
        let mut parts = Vec::with_capacity(bounds.len() - 1);
        let mut rest = data;
        for w in bounds.windows(2) {
            assert!(w[0] <= w[1], "parts: bounds must not decrease");
            let (part, tail) = rest.split_at_mut(w[1] - w[0]);
            parts.push(Mutex::new(Some(part)));
            rest = tail;
        }
        Parts { bounds, parts }
    }

    /// Cuts `data` as `for_range(0..data.len(), grain, ..)` cuts its range.
    pub(crate) fn even(data: &'a mut [T], grain: usize) -> Parts<'a, T> {
        let len = data.len();
        Parts::at(data, even_bounds(len, grain))
    }

    /// Takes part `i`, with the index of its first element in the whole slice.
    ///
    /// # Panics
    ///
    /// Panics if part `i` does not exist or was taken before: the executor ran a chunk
    /// twice, which [`Executor::for_range`] promises never to do.
    pub(crate) fn take(&self, i: usize) -> (usize, &'a mut [T]) {
        let part = self.parts[i]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("the executor runs each chunk of a loop once");
        (self.bounds[i], part)
    }
}

/// The bounds `0, grain, 2 grain, ..., len` of a loop of `len` elements cut by `grain`
/// (as the executors cut it).
pub(crate) fn even_bounds(len: usize, grain: usize) -> Vec<usize> {
    let grain = grain.max(1);
    let mut bounds: Vec<usize> = (0..len.div_ceil(grain)).map(|i| i * grain).collect();
    bounds.push(len);
    bounds
}

/// The runs of consecutive values in `indices` (any order, repeats allowed), as
/// half-open ranges in increasing order. Sorts `indices`.
pub(crate) fn runs(indices: &mut [u32]) -> Vec<Range<usize>> {
    indices.sort_unstable();
    let mut out: Vec<Range<usize>> = Vec::new();
    for &i in indices.iter() {
        let i = i as usize;
        match out.last_mut() {
            Some(run) if i < run.end => {}
            Some(run) if i == run.end => run.end += 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// Declares a read of `data[run]` for each run.
pub(crate) fn read_runs<T>(data: &[T], runs: &[Range<usize>]) {
    for run in runs {
        read_slice(&data[run.clone()]);
    }
}

/// Declares a write of `data[run]` for each run.
pub(crate) fn write_runs<T>(data: &[T], runs: &[Range<usize>]) {
    for run in runs {
        write_slice(&data[run.clone()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Serial;

    #[test]
    fn runs_merge_consecutive_indices() {
        assert_eq!(runs(&mut []), Vec::<Range<usize>>::new());
        assert_eq!(runs(&mut [5]), vec![5..6]);
        assert_eq!(runs(&mut [7, 3, 4, 4, 9, 8, 0]), vec![0..1, 3..5, 7..10]);
    }

    #[test]
    fn parts_follow_the_loop_and_are_taken_once() {
        let mut data: Vec<usize> = vec![0; 10];
        {
            let parts = Parts::even(&mut data, 4);
            Serial.for_range(0..10, 4, |r| {
                let (lo, part) = parts.take(r.start / 4);
                assert_eq!(lo, r.start);
                assert_eq!(part.len(), r.len());
                for (k, x) in part.iter_mut().enumerate() {
                    *x = lo + k;
                }
            });
        }
        assert_eq!(data, (0..10).collect::<Vec<_>>());
        assert_eq!(even_bounds(0, 3), vec![0]);
        assert_eq!(even_bounds(6, 3), vec![0, 3, 6]);
    }

    #[test]
    #[should_panic(expected = "once")]
    fn a_part_taken_twice_panics() {
        let mut data = [1, 2, 3];
        let parts = Parts::at(&mut data, vec![0, 1, 3]);
        let _ = parts.take(1);
        let _ = parts.take(1);
    }
}
