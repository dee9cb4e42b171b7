//! `heat`: explicit heat diffusion by five-point Jacobi sweeps on a `rows x cols` grid.
//!
//! Each sweep computes, for every interior cell,
//! `out = c + K * ((n + s) + (w + e) - 4 * c)` with `K = 0.2`, from the source grid
//! into the destination grid; the two grids swap roles every iteration. The boundary
//! (first and last row and column) is fixed: it is never written, and both grids start
//! with the same boundary. The initial condition is a hot top edge (100.0), the other
//! edges at 0.0, and a seeded uniform `[0, 1)` interior.
//!
//! Each sweep splits the interior rows `1..rows-1` in halves with `join` down to at
//! most `leaf` rows, as the heat benchmark of the CATS and CAB papers does
//! ([`Split::Balanced`]); `heat-ub` ([`crate::heat_ub`]) runs the same sweeps over the
//! unbalanced tree of CATS's Algorithm 1 ([`Split::Unbalanced`]) through
//! [`solve_split`]. The destination slice is split with `split_at_mut` along the way
//! ([`crate::split`]), so the kernel is safe code. The same recursion over the same rows
//! happens in every iteration, so a task touches the same rows each time: the locality
//! a cache-aware scheduler can exploit.
//!
//! Footprint, declared once per leaf and sweep: a read of source rows
//! `[lo - 1, hi + 1)` (never clamped in practice: interior rows always have both
//! neighbours) and a write of destination rows `[lo, hi)` (whole rows, boundary columns
//! included although they are not written). Work, declared with it: [`CELL_WORK`] per
//! interior cell of the leaf's rows; inner tasks only split and join and declare
//! nothing. A sweep of a `rows x cols` grid so declares
//! `(rows - 2) * (cols - 2) * CELL_WORK`, whatever the tree.
//!
//! heat-iter ([`crate::iters`]) is heat-loop written with parallel iterators: its
//! leaves run `copy_rows` and `sweep_rows`, whose arithmetic is heat's, and declare
//! what heat-loop's do (the write through locus's `par_chunks_mut`).
//!
//! The serial reference runs the same leaf code over all interior rows at once (without
//! declaring footprints), so every cell is computed by the same expression on the same
//! operands: results must be bitwise equal.

use std::time::Instant;

use locus::footprint::{read_slice, work, write_slice};

use crate::exec::Executor;
use crate::grid;
use crate::size::{self, Opts};
use crate::split::{self, Split};
use crate::Outcome;

/// Diffusion coefficient (stable for `K <= 0.25`).
const K: f64 = 0.2;
/// Default seed of the interior.
const SEED: u64 = 0x4845_4154; // "HEAT"
/// Instructions per interior cell of a sweep, an estimate: guess from the inner loop,
/// which x86-64 (SSE2) runs in 17 instructions per two cells (5 loads, 7 flops, a copy,
/// a store, 3 of loop control), rounded up for the per-row overhead (about 50);
/// callgrind counts 8.6 per cell at 1024x512.
pub const CELL_WORK: u64 = 9;
/// Instructions per cell of heat-loop's first touch ([`first_touch`]), an estimate: a
/// `memcpy` moves 16 to 32 bytes per instruction, so well under one per cell; rounded up
/// to one for the loop around it.
pub const COPY_WORK: u64 = 1;

/// Parameters of the heat kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeatParams {
    /// Grid rows, boundary included (at least 3).
    pub rows: usize,
    /// Grid columns, boundary included (at least 3).
    pub cols: usize,
    /// Most rows a leaf task computes (at least 1).
    pub leaf: usize,
    /// Number of sweeps.
    pub iters: usize,
    /// Seed of the interior's initial values.
    pub seed: u64,
}

impl Default for HeatParams {
    fn default() -> Self {
        HeatParams {
            rows: 1024,
            cols: 512,
            leaf: 8,
            iters: 10,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for HeatParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{},leaf={},iters={}",
            self.rows, self.cols, self.leaf, self.iters
        )?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "ROWSxCOLS[,leaf=L][,iters=I][,seed=S] with ROWS, COLS >= 3, \
     L >= 1, e.g. \"1024x512\" or \"1024x512,leaf=8,iters=10\"";

/// Parses `ROWSxCOLS[,leaf=L][,iters=I][,seed=S]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<HeatParams, String> {
    parse_with(s, &[]).map(|(p, _)| p)
}

/// Parses heat's size string with the option keys `extra` allowed beside heat's own:
/// heat's parameters, and the options left for the caller to take (only keys of
/// `extra` remain). The error is the reason.
pub(crate) fn parse_with<'a>(s: &'a str, extra: &[&str]) -> Result<(HeatParams, Opts<'a>), String> {
    let (main, opts) = size::split(s)?;
    let (rows, cols) = grid::parse_shape(main)?;
    let mut p = HeatParams {
        rows,
        cols,
        ..HeatParams::default()
    };
    let mut known = vec!["leaf", "iters", "seed"];
    known.extend_from_slice(extra);
    let mut opts = Opts::new(opts, &known)?;
    if let Some(v) = opts.take("leaf") {
        p.leaf = grid::parse_leaf(v)?;
    }
    if let Some(v) = opts.take("iters") {
        p.iters = size::iters(v)?;
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok((p, opts))
}

/// The initial grid (row-major, `rows * cols` cells): hot top edge, cold other edges,
/// seeded interior.
///
/// # Panics
///
/// Panics if `rows` or `cols` is below 3.
pub fn initial(p: &HeatParams) -> Vec<f64> {
    grid::initial(p.rows, p.cols, p.seed)
}

fn check_shape(rows: usize, cols: usize) {
    grid::check_shape("heat", rows, cols);
}

/// Runs `p.iters` parallel sweeps starting from `a` (which must hold the initial state)
/// and returns the grid holding the final state: `a` if `iters` is even, else `b`.
/// `b` must hold the same boundary as `a`; its interior is overwritten. Rows are split
/// in halves ([`Split::Balanced`]).
///
/// # Panics
///
/// Panics if the grids are not both `rows * cols` long, or `leaf` is 0.
pub fn solve<'g, E: Executor>(
    ex: &E,
    p: &HeatParams,
    a: &'g mut [f64],
    b: &'g mut [f64],
) -> &'g [f64] {
    solve_split(ex, Split::Balanced, p, a, b)
}

/// [`solve`] with the rows of every sweep cut along the `split` tree: the same leaves'
/// arithmetic, hence the same result bit for bit, whatever the tree.
///
/// # Panics
///
/// Panics if the grids are not both `rows * cols` long, or `leaf` is 0.
pub fn solve_split<'g, E: Executor>(
    ex: &E,
    split: Split,
    p: &HeatParams,
    a: &'g mut [f64],
    b: &'g mut [f64],
) -> &'g [f64] {
    let cols = p.cols;
    sweeps(ex, split, "heat", p, a, b, &|_, from, rows, lo| {
        leaf(from, rows, lo, cols)
    })
}

/// The sweeps of heat and its variants: `p.iters` times, the interior rows of the
/// destination are cut along the `split` tree and each leaf calls
/// `leaf(sweep, source, rows, first_row)`; then the grids swap. Returns the grid holding
/// the final state (`a` if `iters` is even, else `b`).
///
/// # Panics
///
/// Panics (naming `name`) if the grids are not both `rows * cols` long, the grid is
/// smaller than 3x3, or `leaf` is 0.
pub(crate) fn sweeps<'g, E, L>(
    ex: &E,
    split: Split,
    name: &str,
    p: &HeatParams,
    a: &'g mut [f64],
    b: &'g mut [f64],
    leaf: &L,
) -> &'g [f64]
where
    E: Executor,
    L: Fn(usize, &[f64], &mut [f64], usize) + Sync,
{
    grid::check_shape(name, p.rows, p.cols);
    assert!(p.leaf >= 1, "{name}: leaf must be at least 1");
    assert!(
        a.len() == p.rows * p.cols && b.len() == a.len(),
        "{name}: grid size mismatch"
    );
    let (mut src, mut dst) = (a, b);
    let interior = p.cols..(p.rows - 1) * p.cols;
    for sweep in 0..p.iters {
        let from: &[f64] = src;
        split::rows(
            ex,
            split,
            &mut dst[interior.clone()],
            1,
            p.cols,
            p.leaf,
            &|rows: &mut [f64], lo| leaf(sweep, from, rows, lo),
        );
        std::mem::swap(&mut src, &mut dst);
    }
    src
}

/// The serial reference: `iters` sweeps of the leaf code over all interior rows at once.
/// Declares no footprint.
pub fn reference(p: &HeatParams, initial: &[f64]) -> Vec<f64> {
    check_shape(p.rows, p.cols);
    let mut src = initial.to_vec();
    let mut dst = initial.to_vec();
    let interior = p.cols..(p.rows - 1) * p.cols;
    for _ in 0..p.iters {
        compute(&src, &mut dst[interior.clone()], 1, p.cols);
        std::mem::swap(&mut src, &mut dst);
    }
    src
}

/// Computes destination rows `lo..hi` (`dst` holds exactly those rows) from source rows
/// `lo - 1..hi + 1`. Requires `lo >= 1` and `hi + 1 <= rows`.
/// Declares the leaf's footprint and work, then computes.
fn leaf(src: &[f64], dst: &mut [f64], lo: usize, cols: usize) {
    let hi = lo + dst.len() / cols;
    read_slice(&src[(lo - 1) * cols..(hi + 1) * cols]);
    write_slice(dst);
    work(((hi - lo) * (cols - 2)) as u64 * CELL_WORK);
    compute(src, dst, lo, cols);
}

/// heat-iter's leaf ([`crate::iters`]): destination rows `lo..lo + dst.len() / cols`
/// from source rows `lo - 1..hi + 1`, declaring the read of the source rows and the
/// work; the write of `dst` is declared by the slice source that lends it (locus's
/// `par_chunks_mut`), so the leaf declares what heat's does, once.
pub(crate) fn sweep_rows(src: &[f64], dst: &mut [f64], lo: usize, cols: usize) {
    let hi = lo + dst.len() / cols;
    read_slice(&src[(lo - 1) * cols..(hi + 1) * cols]);
    work(((hi - lo) * (cols - 2)) as u64 * CELL_WORK);
    compute(src, dst, lo, cols);
}

/// heat-iter's first touch of one block ([`crate::iters`]): rows
/// `lo..lo + rows.len() / cols` copied from `init`, declaring the read of `init`'s rows
/// and [`COPY_WORK`] per cell (the write, as in [`sweep_rows`], is the source's).
pub(crate) fn copy_rows(init: &[f64], rows: &mut [f64], lo: usize, cols: usize) {
    let from = &init[lo * cols..lo * cols + rows.len()];
    read_slice(from);
    work(rows.len() as u64 * COPY_WORK);
    rows.copy_from_slice(from);
}

/// The leaf's work without declarations (the serial reference runs it outside any
/// task, so it declares nothing). heat-moving ([`crate::heat_moving`]) runs it on its
/// leaves' rows too.
pub(crate) fn compute(src: &[f64], dst: &mut [f64], lo: usize, cols: usize) {
    let hi = lo + dst.len() / cols;
    let window = &src[(lo - 1) * cols..(hi + 1) * cols];
    for (i, out) in dst.chunks_exact_mut(cols).enumerate() {
        let rows = &window[i * cols..(i + 3) * cols];
        let (up, rest) = rows.split_at(cols);
        let (mid, down) = rest.split_at(cols);
        row(up, mid, down, out);
    }
}

/// One row of the stencil: interior cells of `out` from the rows above, at and below.
/// All four slices are `cols` long; iterators keep the loop free of bounds checks.
#[inline]
fn row(up: &[f64], mid: &[f64], down: &[f64], out: &mut [f64]) {
    let n = out.len();
    let vertical = up[1..n - 1].iter().zip(&down[1..n - 1]);
    let horizontal = mid[..n - 2].iter().zip(&mid[2..]);
    for (((o, (&u, &d)), (&w, &e)), &c) in out[1..n - 1]
        .iter_mut()
        .zip(vertical)
        .zip(horizontal)
        .zip(&mid[1..n - 1])
    {
        *o = c + K * ((u + d) + (w + e) - 4.0 * c);
    }
}

/// Compares a final grid with the reference bit for bit; `name` is the kernel's
/// ("heat" or "heat-ub").
pub(crate) fn compare(name: &str, p: &HeatParams, expected: &[f64], got: &[f64]) -> Outcome {
    let what = format!("{name} {}x{} after {} sweeps", p.rows, p.cols, p.iters);
    grid::compare(&what, p.cols, expected, got)
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against the serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &HeatParams) -> Outcome {
    verify_split(ex, Split::Balanced, p)
}

/// heat-loop, checked bitwise against heat's reference: both grids cleared, then
/// [`first_touch`] and the sweeps as parallel loops ([`Split::Loop`]).
pub fn verify_loop<E: Executor>(ex: &E, p: &HeatParams) -> Outcome {
    verify_with(ex, "heat-loop", p, |a, b| {
        let init = a.to_vec();
        a.fill(0.0);
        b.fill(0.0);
        first_touch(ex, p, &init, a, b);
        solve_split(ex, Split::Loop, p, a, b)
    })
}

/// heat-iter, checked bitwise against heat's reference: both grids cleared, then
/// heat-loop's first touch and sweeps written with parallel iterators
/// ([`crate::iters::heat`]), rayon's or locus's as `ex` runs them.
pub fn verify_iter<E: Executor>(ex: &E, p: &HeatParams) -> Outcome {
    verify_with(ex, "heat-iter", p, |a, b| {
        let init = a.to_vec();
        a.fill(0.0);
        b.fill(0.0);
        crate::iters::heat(ex, p, &init, a, b)
    })
}

/// [`verify`] for the `split` tree (heat or heat-ub).
pub(crate) fn verify_split<E: Executor>(ex: &E, split: Split, p: &HeatParams) -> Outcome {
    verify_with(ex, split_name(split), p, |a, b| {
        solve_split(ex, split, p, a, b)
    })
}

/// Runs `solve` on heat's initial grids inside `ex`'s pool, timed, and compares the
/// final grid with heat's serial reference bit for bit: the check of every kernel whose
/// sweeps compute heat's values (`name` is the kernel's).
pub(crate) fn verify_with<E, S>(ex: &E, name: &str, p: &HeatParams, solve: S) -> Outcome
where
    E: Executor,
    S: for<'g> FnOnce(&'g mut [f64], &'g mut [f64]) -> &'g [f64] + Send,
{
    let init = initial(p);
    let expected = reference(p, &init);
    let mut a = init.clone();
    let mut b = init;
    let start = Instant::now();
    let got = ex.install(|| solve(&mut a, &mut b));
    let elapsed = start.elapsed();
    compare(name, p, &expected, got).timed(elapsed)
}

/// The kernel name of each tree.
pub(crate) fn split_name(split: Split) -> &'static str {
    match split {
        Split::Balanced => "heat",
        Split::Unbalanced => "heat-ub",
        Split::Loop => "heat-loop",
    }
}

/// heat-loop's first touch: copies the initial grid into `a`, then into `b`, each with
/// the loop its sweeps run (the same blocks of `p.leaf` rows, hence the same loop chunks
/// and task ids), so the pages of a block are first touched on the squad its sweeps
/// will run on, wherever the scheduler puts that chunk. The first and last rows (fixed
/// boundary) are copied by the calling task. Each chunk declares a read of its `init`
/// rows, a write of its rows and [`COPY_WORK`] per cell.
///
/// # Panics
///
/// Panics if the grids are not all `rows * cols` long, the grid is smaller than 3x3, or
/// `leaf` is 0.
pub fn first_touch<E: Executor>(
    ex: &E,
    p: &HeatParams,
    init: &[f64],
    a: &mut [f64],
    b: &mut [f64],
) {
    grid::check_shape("heat-loop", p.rows, p.cols);
    assert!(p.leaf >= 1, "heat-loop: leaf must be at least 1");
    let n = p.rows * p.cols;
    assert!(
        init.len() == n && a.len() == n && b.len() == n,
        "heat-loop: grid size mismatch"
    );
    let cols = p.cols;
    let interior = cols..(p.rows - 1) * cols;
    for grid in [a, b] {
        grid[..cols].copy_from_slice(&init[..cols]);
        grid[n - cols..].copy_from_slice(&init[n - cols..]);
        split::rows(
            ex,
            Split::Loop,
            &mut grid[interior.clone()],
            1,
            cols,
            p.leaf,
            &|rows: &mut [f64], lo| {
                let from = &init[lo * cols..lo * cols + rows.len()];
                read_slice(from);
                write_slice(rows);
                work(rows.len() as u64 * COPY_WORK);
                rows.copy_from_slice(from);
            },
        );
    }
}
