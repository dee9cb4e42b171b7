//! `mergesort`: CAB's Mergesort benchmark ("merge sort on 1024 * 1024 numbers"), a
//! fork-join mergesort whose merges are parallel too.
//!
//! The sort is [`crate::sort`]'s (halve with `join`, sort ranges of at most `cutoff`
//! elements serially, ping-pong between the data and a scratch buffer) with one
//! difference: `sort` merges serially, so its top merge alone is `O(n)` on one worker,
//! while here every merge is divide and conquer, as in Cilk's `cilksort`: split the
//! longer of the two sorted inputs at its middle element, binary-search that element in
//! the other input, and merge the two pairs of pieces with `join`, down to outputs of
//! at most `cutoff` elements (at least 2, so that both pieces always shrink), which are
//! merged serially. The merge stays stable: of equal keys, those of the left input come
//! first. Span `O(log^3 n)` instead of `O(n)`.
//!
//! Parameters and size syntax are sort's ([`SortParams`]), so is the input; one
//! `cutoff` serves the sort leaves and the merge leaves.
//!
//! Footprint: as `sort`'s, declared by the same leaves: a sort leaf declares its slice
//! (or a read of the data slice and a write of the buffer slice), a serial merge leaf
//! declares reads of its two input pieces and a write of its output piece. The
//! splitting steps only binary-search, and declare no footprint. Work: as `sort`'s for
//! the sort leaves, the inner sort tasks and the serial merge leaves; a merge's
//! splitting step declares its binary search, [`SEARCH_WORK`] per halving (`bits(len)`
//! of them for a search over `len` elements), and nothing for its split and join.
//!
//! The reference is a sorted copy of the input (`sort_unstable`); results must be equal.

use std::time::Instant;

use locus::footprint::work;

use crate::exec::Executor;
use crate::sort::{self, SortParams};
use crate::Outcome;

/// Instructions per halving of a merge split's binary search, an estimate: guess from
/// `partition_point`'s branch-free loop (a halving, a load, a compare, a conditional
/// move, an add, loop control).
pub const SEARCH_WORK: u64 = 7;

/// Sorts `data` in place on `ex` with parallel merges, using `buf` (same length,
/// contents ignored) as scratch. A `cutoff` of 0 is treated as 1 for the sort leaves and
/// as 2 for the merge leaves.
///
/// # Panics
///
/// Panics if `buf` is not as long as `data`.
pub fn sort<E: Executor>(ex: &E, data: &mut [u64], buf: &mut [u64], cutoff: usize) {
    assert_eq!(
        data.len(),
        buf.len(),
        "mergesort: scratch buffer length mismatch"
    );
    let merge_cutoff = cutoff.max(2);
    sort::msort(ex, data, buf, false, cutoff.max(1), &|l, r, out| {
        merge(ex, l, r, out, merge_cutoff)
    });
}

/// Merges sorted `l` and `r` into `out` (`l.len() + r.len()` long), stably, splitting
/// with `join` while `out` is longer than `cutoff` (at least 2).
///
/// # Panics
///
/// Panics if `out` has the wrong length.
pub fn merge<E: Executor>(ex: &E, l: &[u64], r: &[u64], out: &mut [u64], cutoff: usize) {
    assert_eq!(
        l.len() + r.len(),
        out.len(),
        "merge: output length mismatch"
    );
    if out.len() <= cutoff.max(2) {
        sort::merge(l, r, out);
        return;
    }
    // Both halves shrink: with at least 3 outputs the longer input has at least 2
    // elements, so `m >= 1`, and each half gets at least one of them.
    let (i, j) = if l.len() >= r.len() {
        let m = l.len() / 2;
        let x = l[m];
        work(search_work(r.len()));
        (m, r.partition_point(|&y| y < x))
    } else {
        let m = r.len() / 2;
        let y = r[m];
        work(search_work(l.len()));
        (l.partition_point(|&x| x <= y), m)
    };
    let (l_lo, l_hi) = l.split_at(i);
    let (r_lo, r_hi) = r.split_at(j);
    let (out_lo, out_hi) = out.split_at_mut(i + j);
    ex.join(
        || merge(ex, l_lo, r_lo, out_lo, cutoff),
        || merge(ex, l_hi, r_hi, out_hi, cutoff),
    );
}

/// The work of a binary search over `len` elements.
fn search_work(len: usize) -> u64 {
    u64::from(usize::BITS - len.leading_zeros()) * SEARCH_WORK
}

/// Runs the kernel on `ex` (inside its pool) and checks it against the sorted copy.
pub fn verify<E: Executor>(ex: &E, p: &SortParams) -> Outcome {
    let mut data = sort::input(p);
    let expected = sort::reference(&data);
    let mut buf = vec![0; data.len()];
    let start = Instant::now();
    ex.install(|| sort(ex, &mut data, &mut buf, p.cutoff));
    let elapsed = start.elapsed();
    sort::compare("mergesort", p, &expected, &data).timed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Serial;

    #[test]
    fn parallel_merge_is_complete() {
        let l = [1u64, 3, 3, 3, 9, 9, 12];
        let r = [0u64, 3, 3, 9, 10, 11, 12, 13];
        let mut want = [&l[..], &r[..]].concat();
        want.sort_unstable();
        for cutoff in [0, 1, 2, 3, 5, 100] {
            let mut out = vec![0; l.len() + r.len()];
            merge(&Serial, &l, &r, &mut out, cutoff);
            assert_eq!(out, want, "cutoff {cutoff}");
            merge(&Serial, &r, &l, &mut out, cutoff);
            assert_eq!(out, want, "swapped, cutoff {cutoff}");
        }
        let mut out = [0u64; 3];
        merge(&Serial, &[], &[1, 2, 3], &mut out, 1);
        assert_eq!(out, [1, 2, 3]);
        merge(&Serial, &[1, 2, 3], &[], &mut out, 1);
        assert_eq!(out, [1, 2, 3]);
    }
}
