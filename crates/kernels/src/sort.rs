//! `sort`: fork-join mergesort of `n` seeded random `u64`.
//!
//! The slice is halved recursively; both halves are sorted with `join`, then merged.
//! Ranges of at most `cutoff` elements are sorted serially with `slice::sort_unstable`
//! (fine for `u64`: equal keys are indistinguishable). The merge at each level is
//! serial, so the top-level merge alone is `O(n)` on one worker and bounds the speedup;
//! that is deliberate here (a memory-bound phase after a parallel one). The same sort
//! with a divide-and-conquer parallel merge is [`crate::mergesort`]. A scratch buffer of the same length ping-pongs with the data: each
//! level merges from one into the other, so no level copies back.
//!
//! Footprint: a leaf declares its slice (written, and read; when the leaf's result must
//! land in the buffer, a read of the data slice and a write of the buffer slice); a merge
//! declares reads of both sorted halves and a write of the output range. Work, declared
//! with them: a leaf of `len` elements [`SORT_WORK`] per element and halving
//! (`len * ceil(log2 len)` of them), a merge [`MERGE_WORK`] per output element; an inner
//! task's split and join declare nothing (its merge declares its own).
//!
//! The reference is a sorted copy of the input (`sort_unstable`); results must be equal.

use std::time::Instant;

use locus::footprint::{read_slice, work, write_slice};

use crate::exec::Executor;
use crate::rng::SplitMix64;
use crate::size::{self, Opts};
use crate::Outcome;

/// Default seed of the input.
const SEED: u64 = 0x534F_5254; // "SORT"
/// Instructions per element and halving of a leaf's `sort_unstable`, an estimate:
/// guess for a quicksort's partition step on `u64` (a compare, a conditional move or
/// swap, loop control); callgrind counts 9.0 to 9.3 per element and `log2 len` on
/// random keys from 4096 to 2^20 elements.
pub const SORT_WORK: u64 = 9;
/// Instructions per element of a serial merge, an estimate: guess from the merge loop
/// (2 loads, a compare, a select, a store, 2 index updates, 2 bounds tests, the
/// branches); callgrind counts 16.9 at 2^20 elements.
pub const MERGE_WORK: u64 = 17;

/// Parameters of the sort kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SortParams {
    /// Number of elements (at least 1).
    pub n: usize,
    /// Ranges of at most this many elements are sorted serially (at least 1).
    pub cutoff: usize,
    /// Seed of the input.
    pub seed: u64,
}

impl Default for SortParams {
    fn default() -> Self {
        SortParams {
            n: 1 << 20,
            cutoff: 4096,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for SortParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},cutoff={}", self.n, self.cutoff)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "N[,cutoff=C][,seed=S] with N, C >= 1, e.g. \"1048576\" or \
     \"1048576,cutoff=4096\"";

/// Parses `N[,cutoff=C][,seed=S]`; the error is the reason, without the input.
pub(crate) fn parse(s: &str) -> Result<SortParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = SortParams {
        n: size::number("N", main)?,
        ..SortParams::default()
    };
    if p.n == 0 {
        return Err("N must be at least 1 element".to_owned());
    }
    if p.n > isize::MAX as usize / (2 * std::mem::size_of::<u64>()) {
        return Err(format!("N = {} is too large", p.n));
    }
    let mut opts = Opts::new(opts, &["cutoff", "seed"])?;
    if let Some(v) = opts.take("cutoff") {
        p.cutoff = size::number("cutoff", v)?;
        if p.cutoff == 0 {
            return Err("cutoff must be at least 1 element".to_owned());
        }
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// The input: `n` seeded random `u64`.
pub fn input(p: &SortParams) -> Vec<u64> {
    let mut rng = SplitMix64::new(p.seed);
    (0..p.n).map(|_| rng.next_u64()).collect()
}

/// The reference: a sorted copy of `input`.
pub fn reference(input: &[u64]) -> Vec<u64> {
    let mut v = input.to_vec();
    v.sort_unstable();
    v
}

/// Sorts `data` in place on `ex`, using `buf` (same length, contents ignored) as scratch.
/// A `cutoff` of 0 is treated as 1.
///
/// # Panics
///
/// Panics if `buf` is not as long as `data`.
pub fn sort<E: Executor>(ex: &E, data: &mut [u64], buf: &mut [u64], cutoff: usize) {
    assert_eq!(
        data.len(),
        buf.len(),
        "sort: scratch buffer length mismatch"
    );
    msort(ex, data, buf, false, cutoff.max(1), &merge);
}

/// Sorts the contents of `a`, leaving the result in `b` if `into_b`, else in `a`; the
/// other slice is scratch. Children put their results in the slice this level merges
/// from, which is the one this level does not write. `merge(l, r, out)` merges two
/// sorted halves (serially here, in parallel for [`crate::mergesort`]) and declares
/// its own footprint.
pub(crate) fn msort<E, M>(
    ex: &E,
    a: &mut [u64],
    b: &mut [u64],
    into_b: bool,
    cutoff: usize,
    merge: &M,
) where
    E: Executor,
    M: Fn(&[u64], &[u64], &mut [u64]) + Sync,
{
    let len = a.len();
    if len <= cutoff {
        if into_b {
            read_slice(a);
            write_slice(b);
            work(leaf_work(len));
            b.copy_from_slice(a);
            b.sort_unstable();
        } else {
            write_slice(a);
            work(leaf_work(len));
            a.sort_unstable();
        }
        return;
    }
    let mid = len / 2;
    {
        let (al, ar) = a.split_at_mut(mid);
        let (bl, br) = b.split_at_mut(mid);
        ex.join(
            || msort(ex, al, bl, !into_b, cutoff, merge),
            || msort(ex, ar, br, !into_b, cutoff, merge),
        );
    }
    if into_b {
        let (l, r) = a.split_at(mid);
        merge(l, r, b);
    } else {
        let (l, r) = b.split_at(mid);
        merge(l, r, a);
    }
}

/// The work of a sort leaf of `len` elements: `len * ceil(log2 len) * SORT_WORK` (the
/// copy into the buffer, where there is one, is left out: a `memcpy`, under one
/// instruction per element).
fn leaf_work(len: usize) -> u64 {
    let halvings = usize::BITS - len.saturating_sub(1).leading_zeros();
    len as u64 * u64::from(halvings) * SORT_WORK
}

/// Merges sorted `l` and `r` into `out` (`l.len() + r.len()` long), stably. Declares
/// reads of both, a write of `out` and the work.
pub(crate) fn merge(l: &[u64], r: &[u64], out: &mut [u64]) {
    read_slice(l);
    read_slice(r);
    write_slice(out);
    work(out.len() as u64 * MERGE_WORK);
    assert_eq!(
        l.len() + r.len(),
        out.len(),
        "merge: output length mismatch"
    );
    let (mut i, mut j) = (0, 0);
    let mut slots = out.iter_mut();
    while i < l.len() && j < r.len() {
        let (x, y) = (l[i], r[j]);
        let Some(slot) = slots.next() else {
            unreachable!("out is as long as l and r together")
        };
        if y < x {
            *slot = y;
            j += 1;
        } else {
            *slot = x;
            i += 1;
        }
    }
    let rest = slots.into_slice();
    let tail = if i < l.len() { &l[i..] } else { &r[j..] };
    rest.copy_from_slice(tail);
}

/// Compares a sorted result with the reference; `name` is the kernel's ("sort" or
/// "mergesort").
pub(crate) fn compare(name: &str, p: &SortParams, expected: &[u64], got: &[u64]) -> Outcome {
    if got == expected {
        return Outcome::pass(format!("{name} of {} u64: equal to the sorted copy", p.n));
    }
    let first = got
        .iter()
        .zip(expected)
        .position(|(x, y)| x != y)
        .unwrap_or(got.len().min(expected.len()));
    let unsorted = got.windows(2).filter(|w| w[0] > w[1]).count();
    Outcome::fail(format!(
        "{name} of {} u64: differs from the sorted copy first at index {first} \
         ({unsorted} descents in the result)",
        p.n
    ))
}

/// Runs the kernel on `ex` (inside its pool) and checks it against the sorted copy.
pub fn verify<E: Executor>(ex: &E, p: &SortParams) -> Outcome {
    let mut data = input(p);
    let expected = reference(&data);
    let mut buf = vec![0; data.len()];
    let start = Instant::now();
    ex.install(|| sort(ex, &mut data, &mut buf, p.cutoff));
    let elapsed = start.elapsed();
    compare("sort", p, &expected, &data).timed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_is_stable_and_complete() {
        let mut out = [0u64; 7];
        merge(&[1, 3, 3, 9], &[2, 3, 10], &mut out);
        assert_eq!(out, [1, 2, 3, 3, 3, 9, 10]);
        let mut out = [0u64; 3];
        merge(&[], &[1, 2, 3], &mut out);
        assert_eq!(out, [1, 2, 3]);
    }
}
