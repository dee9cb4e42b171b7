//! The kernels written with parallel iterators, written once: this file is compiled
//! twice, as `on_rayon::body` and `on_locus::body`, and its first `use` takes the
//! prelude its parent names (`rayon::prelude` or `locus::prelude`). Nothing else
//! differs between the two copies.
//!
//! Each loop cuts its data into the blocks the kernel's loop twin runs as chunks
//! (`with_max_len(1)`: one block a leaf, rayon's or locus's), so the leaves are the
//! chunks of the twin's `for_range`, and the leaves' arithmetic is the twin's.

use super::prelude::*;

use crate::heat::{self, HeatParams};
use crate::mapreduce::Tally;
use crate::sparse::Csr;
use crate::spmv;

/// heat-iter's first touch: the boundary rows of `a`, then of `b`, copied from `init`
/// by the calling task, and the interior of each in blocks of `p.leaf` rows, one leaf
/// each, as heat-loop's `heat::first_touch` does.
pub(crate) fn heat_first_touch(p: &HeatParams, init: &[f64], a: &mut [f64], b: &mut [f64]) {
    let cols = p.cols;
    let n = p.rows * cols;
    let leaf = p.leaf.min(p.rows);
    for grid in [a, b] {
        grid[..cols].copy_from_slice(&init[..cols]);
        grid[n - cols..].copy_from_slice(&init[n - cols..]);
        grid[cols..n - cols]
            .par_chunks_mut(leaf * cols)
            .with_max_len(1)
            .enumerate()
            .for_each(|(i, rows)| heat::copy_rows(init, rows, 1 + i * leaf, cols));
    }
}

/// heat-iter's sweeps: `p.iters` times, the interior rows of the destination in blocks
/// of `p.leaf` rows, one leaf each, computed from the source; then the grids swap.
/// Returns the grid holding the final state (`a` if `iters` is even, else `b`).
pub(crate) fn heat_sweeps<'g>(p: &HeatParams, a: &'g mut [f64], b: &'g mut [f64]) -> &'g [f64] {
    let cols = p.cols;
    let leaf = p.leaf.min(p.rows);
    let interior = cols..(p.rows - 1) * cols;
    let (mut src, mut dst) = (a, b);
    for _ in 0..p.iters {
        let from: &[f64] = src;
        dst[interior.clone()]
            .par_chunks_mut(leaf * cols)
            .with_max_len(1)
            .enumerate()
            .for_each(|(i, rows)| heat::sweep_rows(from, rows, 1 + i * leaf, cols));
        std::mem::swap(&mut src, &mut dst);
    }
    src
}

/// spmv-iter: `y = A x`, `iters` times, `y` in chunks of `grain` rows, one leaf each.
pub(crate) fn spmv_crs(a: &Csr, x: &[f64], y: &mut [f64], iters: usize, grain: usize) {
    for _ in 0..iters {
        y.par_chunks_mut(grain)
            .with_max_len(1)
            .enumerate()
            .for_each(|(i, out)| {
                let lo = i * grain;
                spmv::crs_reads(a, x, lo, lo + out.len());
                spmv::crs_chunk(a, x, lo, out);
            });
    }
}

/// mapreduce: `iters` map-reduces of `data` in chunks of `grain`, each a `fold` into a
/// tally per leaf then a `reduce` of the leaves' tallies; all iterations' tallies
/// merged.
pub(crate) fn mapreduce(data: &[u64], iters: usize, grain: usize) -> Tally {
    (0..iters).fold(Tally::default(), |total, iteration| {
        let tally = data
            .par_chunks(grain)
            .fold(Tally::default, |t, chunk| t.add(iteration, chunk))
            .reduce(Tally::default, Tally::merge);
        total.merge(tally)
    })
}
