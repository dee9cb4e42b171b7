//! Kernels written with parallel iterators, beside their loop forms: porting a rayon
//! program to locus is a change of its `use` line, and these kernels are the proof.
//!
//! - **heat-iter**: heat-loop ([`crate::heat`]) as `par_chunks_mut` over blocks of
//!   `leaf` rows of the destination grid, each sweep reading the source grid; its first
//!   touch the same way. Checked bitwise against heat's reference.
//! - **spmv-iter**: spmv-crs ([`crate::spmv`]) as `par_chunks_mut` of `y` by `grain`
//!   rows, enumerated, each leaf computing its rows of `A x`. Checked bitwise against
//!   spmv-crs's reference.
//! - **mapreduce** ([`crate::mapreduce`]): a histogram and a sum of a function of the
//!   elements of a large array, `par_chunks` then `fold` then `reduce`.
//!
//! # One body, two preludes
//! The kernels' bodies are in `body.rs`, written once and compiled twice: as a child of
//! `on_rayon`, whose `use rayon::prelude;` its `use super::prelude::*;` takes, and of
//! `on_locus`, with `use locus::prelude;`. Which copy runs is the executor's
//! [`Executor::iterators`]: rayon's inside [`crate::Rayon`]'s pool, locus's inside
//! [`crate::Locus`]'s, and locus's under [`crate::Serial`] and the recorder, which run
//! its leaves in order on their thread, each as the loop's chunk `i`
//! ([`locus::iter::hook`]). So `locus bench heat-iter` compares the same source code
//! under both runtimes, and `locus sim heat-iter` simulates the task tree locus's copy
//! makes. The functions here are called inside the executor's
//! [`Executor::install`].
//!
//! # Task trees
//! Each loop cuts its data into the blocks its twin runs as `for_range` chunks, one
//! block a leaf (`with_max_len(1)`), so under locus leaf `i` is the twin's chunk `i`:
//! the same task ids and the same flat tree, recorded alike, and the locality policies
//! (iteration affinity in `cab` and `cats`) see the same loop in every iteration.
//! mapreduce's leaves are cut by locus's default ([`locus::iter::LEAVES`] at most).
//!
//! # Footprints
//! locus's slice sources declare each leaf's elements (a write for `par_chunks_mut`, a
//! read for `par_chunks`) while a listener is installed; the leaves declare the rest,
//! what their twins declare beside it (heat's source rows, the CRS rows' entries and
//! the runs of `x`) and their work. rayon's copy runs where no listener looks.

// The point of the module: one file compiled against each runtime's prelude.
#[allow(clippy::duplicate_mod)]
mod on_locus;
#[allow(clippy::duplicate_mod)]
mod on_rayon;

use crate::exec::{Executor, Iterators};
use crate::grid;
use crate::heat::HeatParams;
use crate::mapreduce::Tally;
use crate::sparse::Csr;

/// Calls `body::$f($args)` in the copy `$ex` runs.
macro_rules! in_copy {
    ($ex:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $ex.iterators() {
            Iterators::Rayon => on_rayon::body::$f($($arg),*),
            Iterators::Locus => on_locus::body::$f($($arg),*),
        }
    };
}

/// heat-iter: heat-loop's first touch of `a` and `b` from `init`, then its `p.iters`
/// sweeps, written with parallel iterators; returns the grid holding the final state
/// (`a` if `iters` is even, else `b`). Call inside `ex`'s [`Executor::install`].
///
/// # Panics
///
/// Panics if the grids are not all `rows * cols` long, the grid is smaller than 3x3, or
/// `leaf` is 0.
pub fn heat<'g, E: Executor>(
    ex: &E,
    p: &HeatParams,
    init: &[f64],
    a: &'g mut [f64],
    b: &'g mut [f64],
) -> &'g [f64] {
    grid::check_shape("heat-iter", p.rows, p.cols);
    assert!(p.leaf >= 1, "heat-iter: leaf must be at least 1");
    let n = p.rows * p.cols;
    assert!(
        init.len() == n && a.len() == n && b.len() == n,
        "heat-iter: grid size mismatch"
    );
    in_copy!(ex, heat_first_touch(p, init, a, b));
    in_copy!(ex, heat_sweeps(p, a, b))
}

/// spmv-iter: `y = A x`, `iters` times, `y` in leaves of `grain` rows, written with
/// parallel iterators. Call inside `ex`'s [`Executor::install`].
///
/// # Panics
///
/// Panics if `x` is not `a.ncols()` long, `y` not `a.nrows()` long, or `grain` is 0.
pub fn spmv_crs<E: Executor>(
    ex: &E,
    a: &Csr,
    x: &[f64],
    y: &mut [f64],
    iters: usize,
    grain: usize,
) {
    assert!(grain >= 1, "spmv-iter: grain must be at least 1");
    assert!(
        x.len() == a.ncols() && y.len() == a.nrows(),
        "spmv-iter: vector length mismatch"
    );
    in_copy!(ex, spmv_crs(a, x, y, iters, grain));
}

/// mapreduce: `iters` map-reduces of `data` in chunks of `grain` elements, written with
/// parallel iterators; every iteration's tally, merged. Call inside `ex`'s
/// [`Executor::install`].
///
/// # Panics
///
/// Panics if `grain` is 0.
pub fn mapreduce<E: Executor>(ex: &E, data: &[u64], iters: usize, grain: usize) -> Tally {
    assert!(grain >= 1, "mapreduce: grain must be at least 1");
    in_copy!(ex, mapreduce(data, iters, grain))
}
