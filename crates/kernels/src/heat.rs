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
//! most `leaf` rows, as the heat benchmark of the CATS and CAB papers does; the
//! destination slice is split with `split_at_mut` along the way, so the kernel is safe
//! code. The same recursion over the same rows happens in every iteration, so a task
//! touches the same rows each time: the locality a cache-aware scheduler can exploit.
//!
//! Footprint, declared once per leaf and sweep: a read of source rows
//! `[lo - 1, hi + 1)` (never clamped in practice: interior rows always have both
//! neighbours) and a write of destination rows `[lo, hi)` (whole rows, boundary columns
//! included although they are not written).
//!
//! The serial reference runs the same leaf code over all interior rows at once (without
//! declaring footprints), so every cell is computed by the same expression on the same
//! operands: results must be bitwise equal.

use std::time::Instant;

use locus::footprint::{read_slice, write_slice};

use crate::exec::Executor;
use crate::rng::SplitMix64;
use crate::size::{self, Opts};
use crate::Outcome;

/// Diffusion coefficient (stable for `K <= 0.25`).
const K: f64 = 0.2;
/// Temperature of the hot (top) edge.
const HOT: f64 = 100.0;
/// Default seed of the interior.
const SEED: u64 = 0x4845_4154; // "HEAT"

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
    let (main, opts) = size::split(s)?;
    let Some((r, c)) = main.split_once(['x', 'X']) else {
        return Err(format!("grid {main:?} is not of the form ROWSxCOLS"));
    };
    let mut p = HeatParams {
        rows: size::number("ROWS", r)?,
        cols: size::number("COLS", c)?,
        ..HeatParams::default()
    };
    if p.rows < 3 || p.cols < 3 {
        return Err(format!(
            "grid {}x{} is too small: rows and columns must be at least 3",
            p.rows, p.cols
        ));
    }
    match p.rows.checked_mul(p.cols) {
        Some(cells) if cells <= isize::MAX as usize / std::mem::size_of::<f64>() => {}
        _ => return Err(format!("grid {}x{} is too large", p.rows, p.cols)),
    }
    let mut opts = Opts::new(opts, &["leaf", "iters", "seed"])?;
    if let Some(v) = opts.take("leaf") {
        p.leaf = size::number("leaf", v)?;
        if p.leaf == 0 {
            return Err("leaf must be at least 1 row".to_owned());
        }
    }
    if let Some(v) = opts.take("iters") {
        p.iters = size::number("iters", v)?;
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// The initial grid (row-major, `rows * cols` cells): hot top edge, cold other edges,
/// seeded interior.
///
/// # Panics
///
/// Panics if `rows` or `cols` is below 3.
pub fn initial(p: &HeatParams) -> Vec<f64> {
    check_shape(p.rows, p.cols);
    let mut rng = SplitMix64::new(p.seed);
    let mut grid = vec![0.0; p.rows * p.cols];
    for (r, row) in grid.chunks_exact_mut(p.cols).enumerate() {
        if r == 0 {
            row.fill(HOT);
        } else if r + 1 < p.rows {
            let n = row.len();
            for x in &mut row[1..n - 1] {
                *x = rng.next_f64();
            }
        }
    }
    grid
}

fn check_shape(rows: usize, cols: usize) {
    assert!(
        rows >= 3 && cols >= 3,
        "heat: grid {rows}x{cols} is smaller than 3x3"
    );
}

/// Runs `p.iters` parallel sweeps starting from `a` (which must hold the initial state)
/// and returns the grid holding the final state: `a` if `iters` is even, else `b`.
/// `b` must hold the same boundary as `a`; its interior is overwritten.
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
    check_shape(p.rows, p.cols);
    assert!(p.leaf >= 1, "heat: leaf must be at least 1");
    assert!(
        a.len() == p.rows * p.cols && b.len() == a.len(),
        "heat: grid size mismatch"
    );
    let (mut src, mut dst) = (a, b);
    let interior = p.cols..(p.rows - 1) * p.cols;
    for _ in 0..p.iters {
        sweep(ex, src, &mut dst[interior.clone()], 1, p.cols, p.leaf);
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

/// One sweep over destination rows `lo..lo + dst.len() / cols`, split in halves with
/// `join` down to `leaf` rows.
fn sweep<E: Executor>(
    ex: &E,
    src: &[f64],
    dst: &mut [f64],
    lo: usize,
    cols: usize,
    leaf_rows: usize,
) {
    let n = dst.len() / cols;
    if n <= leaf_rows {
        leaf(src, dst, lo, cols);
        return;
    }
    let half = n / 2;
    let (top, bottom) = dst.split_at_mut(half * cols);
    ex.join(
        || sweep(ex, src, top, lo, cols, leaf_rows),
        || sweep(ex, src, bottom, lo + half, cols, leaf_rows),
    );
}

/// Computes destination rows `lo..hi` (`dst` holds exactly those rows) from source rows
/// `lo - 1..hi + 1`. Requires `lo >= 1` and `hi + 1 <= rows`.
/// Declares the leaf's footprint, then computes.
fn leaf(src: &[f64], dst: &mut [f64], lo: usize, cols: usize) {
    let hi = lo + dst.len() / cols;
    read_slice(&src[(lo - 1) * cols..(hi + 1) * cols]);
    write_slice(dst);
    compute(src, dst, lo, cols);
}

/// The leaf's work without declarations (the serial reference runs it outside any
/// task, so it declares nothing).
fn compute(src: &[f64], dst: &mut [f64], lo: usize, cols: usize) {
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

/// Compares a final grid with the reference bit for bit.
pub(crate) fn compare(p: &HeatParams, expected: &[f64], got: &[f64]) -> Outcome {
    if expected.len() != got.len() {
        return Outcome::fail(format!(
            "heat {}x{}: result has {} cells, reference {}",
            p.rows,
            p.cols,
            got.len(),
            expected.len()
        ));
    }
    let mut differ = 0usize;
    let mut first = None;
    for (i, (x, y)) in got.iter().zip(expected).enumerate() {
        if x.to_bits() != y.to_bits() {
            differ += 1;
            first.get_or_insert((i, *x, *y));
        }
    }
    match first {
        None => {
            let sum: f64 = got.iter().sum();
            Outcome::pass(format!(
                "heat {}x{} after {} sweeps: bitwise equal to the serial reference (sum {sum:.6})",
                p.rows, p.cols, p.iters
            ))
        }
        Some((i, x, y)) => Outcome::fail(format!(
            "heat {}x{} after {} sweeps: {differ} cells differ from the serial reference; \
             first at row {}, column {}: got {x:e}, expected {y:e}",
            p.rows,
            p.cols,
            p.iters,
            i / p.cols,
            i % p.cols
        )),
    }
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against the serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &HeatParams) -> Outcome {
    let init = initial(p);
    let expected = reference(p, &init);
    let mut a = init.clone();
    let mut b = init;
    let start = Instant::now();
    let got = ex.install(|| solve(ex, p, &mut a, &mut b));
    let elapsed = start.elapsed();
    compare(p, &expected, got).timed(elapsed)
}
