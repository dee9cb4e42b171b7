//! `sor`: successive over-relaxation by red-black Gauss-Seidel sweeps on a `rows x cols`
//! grid (the SOR benchmark of the CATS and CAB papers).
//!
//! A cell `(i, j)` is red if `i + j` is even, black otherwise. Each iteration is a red
//! sweep, then a black sweep; a sweep updates every interior cell of its colour in place
//! by `c + W * ((n + s) + (w + e) - 4 * c)` with `W = omega / 4` (default `omega` 1.25).
//! The four neighbours of a cell have the other colour, so within a sweep they are only
//! read, and the order in which the cells of a sweep are updated does not matter. The
//! boundary is fixed; the initial grid is heat's (hot top edge, seeded interior).
//!
//! Storage: the grid is kept as two colour planes ([`planes`]), each `rows x width` with
//! `width = ceil(cols / 2)`: row `i` of the plane of colour `c` holds the cells
//! `(i, 2t + (i + c) % 2)` at index `t`. A sweep writes rows of its own plane and reads
//! the other plane, so the rows of the plane being written are split with
//! `split_at_mut` into leaves while the other plane is shared read-only: the kernel is
//! in place (one grid's worth of memory) and safe code, without the unsafe cross-leaf
//! reads a single interleaved grid would need. (The halo rows a leaf reads belong to
//! its neighbours' rows, but of the other colour, which nobody writes during the sweep.)
//!
//! Each sweep cuts the interior rows `1..rows-1` of its plane along a [`Split`] tree down
//! to at most `leaf` rows: halves for `sor`, CATS's Algorithm 1 for `sor-ub`
//! ([`crate::sor_ub`]).
//!
//! Footprint, declared once per leaf and sweep: a read of the other plane's rows
//! `[lo - 1, hi + 1)` and a write (in place: read and written) of the own plane's rows
//! `[lo, hi)`. Work, declared with it: [`CELL_WORK`] per cell of its colour the leaf
//! updates; inner tasks only split and join and declare nothing. An iteration (both
//! sweeps) so declares `(rows - 2) * (cols - 2) * CELL_WORK`, whatever the tree.
//!
//! The serial reference is written independently on the ordinary interleaved grid: for
//! each colour, every interior cell of that colour in row-major order, by the same
//! expression on the same operands. Results must be bitwise equal.

use std::hash::{Hash, Hasher};
use std::time::Instant;

use locus::footprint::{is_listening, read_slice, work, write_slice};

use crate::exec::Executor;
use crate::grid;
use crate::size::{self, Opts};
use crate::split::{self, Split};
use crate::Outcome;

/// Default seed of the interior.
const SEED: u64 = 0x0053_4F52; // "SOR"
/// Default relaxation factor.
const OMEGA: f64 = 1.25;
/// Instructions per cell update, an estimate: guess from the inner loop, heat's stencil
/// on plane rows (x86-64 SSE2: about 17 instructions per two cells), rounded up for the
/// per-row overhead (about 65 per plane row); callgrind counts 8.8 per cell at 1024x512.
pub const CELL_WORK: u64 = 9;

/// Parameters of the sor kernel.
///
/// Equality and hashing compare `omega` bit for bit (parsing rejects NaN).
#[derive(Debug, Clone, Copy)]
pub struct SorParams {
    /// Grid rows, boundary included (at least 3).
    pub rows: usize,
    /// Grid columns, boundary included (at least 3).
    pub cols: usize,
    /// Most rows a leaf task computes (at least 1).
    pub leaf: usize,
    /// Number of iterations (each a red and a black sweep).
    pub iters: usize,
    /// Relaxation factor, in `(0, 2)` (1 is plain Gauss-Seidel).
    pub omega: f64,
    /// Seed of the interior's initial values.
    pub seed: u64,
}

impl Default for SorParams {
    fn default() -> Self {
        // About 3.5 ms a run on one core in release (this machine): the same order as
        // heat at the same size.
        SorParams {
            rows: 1024,
            cols: 512,
            leaf: 8,
            iters: 10,
            omega: OMEGA,
            seed: SEED,
        }
    }
}

impl PartialEq for SorParams {
    fn eq(&self, other: &Self) -> bool {
        (self.rows, self.cols, self.leaf, self.iters, self.seed)
            == (other.rows, other.cols, other.leaf, other.iters, other.seed)
            && self.omega.to_bits() == other.omega.to_bits()
    }
}

impl Eq for SorParams {}

impl Hash for SorParams {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.rows, self.cols, self.leaf, self.iters, self.seed).hash(state);
        self.omega.to_bits().hash(state);
    }
}

impl std::fmt::Display for SorParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `f64`'s Display is the shortest string that parses back to the same value.
        write!(
            f,
            "{}x{},leaf={},iters={},omega={}",
            self.rows, self.cols, self.leaf, self.iters, self.omega
        )?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "ROWSxCOLS[,leaf=L][,iters=I][,omega=W][,seed=S] with \
     ROWS, COLS >= 3, L >= 1, 0 < W < 2, e.g. \"1024x512\" or \
     \"1024x512,leaf=8,iters=10,omega=1.25\"";

/// Parses `ROWSxCOLS[,leaf=L][,iters=I][,omega=W][,seed=S]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<SorParams, String> {
    let (main, opts) = size::split(s)?;
    let (rows, cols) = grid::parse_shape(main)?;
    let mut p = SorParams {
        rows,
        cols,
        ..SorParams::default()
    };
    let mut opts = Opts::new(opts, &["leaf", "iters", "omega", "seed"])?;
    if let Some(v) = opts.take("leaf") {
        p.leaf = grid::parse_leaf(v)?;
    }
    if let Some(v) = opts.take("iters") {
        p.iters = size::iters(v)?;
    }
    if let Some(v) = opts.take("omega") {
        p.omega = v
            .parse()
            .map_err(|_| format!("omega {v:?} is not a number"))?;
        if !(p.omega > 0.0 && p.omega < 2.0) {
            return Err(format!("omega {v:?} is outside (0, 2)"));
        }
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// The initial grid, interleaved (row-major, `rows * cols` cells): hot top edge, cold
/// other edges, seeded interior.
///
/// # Panics
///
/// Panics if `rows` or `cols` is below 3.
pub fn initial(p: &SorParams) -> Vec<f64> {
    grid::initial(p.rows, p.cols, p.seed)
}

/// Cells per row of a colour plane.
fn width(cols: usize) -> usize {
    cols.div_ceil(2)
}

/// Column parity of colour `colour` (0 red, 1 black) in row `i`: the row's cells of
/// that colour are the columns `parity + 2t`.
#[inline]
fn parity(i: usize, colour: usize) -> usize {
    (i + colour) % 2
}

/// Splits an interleaved grid into its red and black planes (`rows * width` each,
/// `width = ceil(cols / 2)`; a slot past a row's last cell of that colour holds 0).
///
/// # Panics
///
/// Panics if `grid` is not `rows * cols` long.
pub fn planes(p: &SorParams, grid: &[f64]) -> [Vec<f64>; 2] {
    assert_eq!(grid.len(), p.rows * p.cols, "sor: grid size mismatch");
    let w = width(p.cols);
    [0, 1].map(|colour| {
        let mut plane = vec![0.0; p.rows * w];
        for (i, (out, row)) in plane
            .chunks_exact_mut(w)
            .zip(grid.chunks_exact(p.cols))
            .enumerate()
        {
            for (o, &x) in out
                .iter_mut()
                .zip(row.iter().skip(parity(i, colour)).step_by(2))
            {
                *o = x;
            }
        }
        plane
    })
}

/// Joins the red and black planes back into the interleaved grid.
///
/// # Panics
///
/// Panics if the planes are not `rows * ceil(cols / 2)` long.
pub fn interleave(p: &SorParams, red: &[f64], black: &[f64]) -> Vec<f64> {
    let w = width(p.cols);
    assert!(
        red.len() == p.rows * w && black.len() == red.len(),
        "sor: plane size mismatch"
    );
    let mut grid = vec![0.0; p.rows * p.cols];
    for (colour, plane) in [red, black].into_iter().enumerate() {
        for (i, (row, cells)) in grid
            .chunks_exact_mut(p.cols)
            .zip(plane.chunks_exact(w))
            .enumerate()
        {
            for (g, &x) in row.iter_mut().skip(parity(i, colour)).step_by(2).zip(cells) {
                *g = x;
            }
        }
    }
    grid
}

/// Runs `p.iters` parallel iterations (red sweep, black sweep) in place on the planes,
/// rows split in halves ([`Split::Balanced`]).
///
/// # Panics
///
/// Panics if the planes are not `rows * ceil(cols / 2)` long, or `leaf` is 0.
pub fn solve<E: Executor>(ex: &E, p: &SorParams, red: &mut [f64], black: &mut [f64]) {
    solve_split(ex, Split::Balanced, p, red, black);
}

/// [`solve`] with every sweep's rows cut along the `split` tree; the result is the same
/// bit for bit, whatever the tree.
///
/// # Panics
///
/// Panics if the planes are not `rows * ceil(cols / 2)` long, or `leaf` is 0.
pub fn solve_split<E: Executor>(
    ex: &E,
    split: Split,
    p: &SorParams,
    red: &mut [f64],
    black: &mut [f64],
) {
    grid::check_shape("sor", p.rows, p.cols);
    assert!(p.leaf >= 1, "sor: leaf must be at least 1");
    let w = width(p.cols);
    assert!(
        red.len() == p.rows * w && black.len() == red.len(),
        "sor: plane size mismatch"
    );
    let sweep = Sweep {
        cols: p.cols,
        w,
        factor: p.omega / 4.0,
    };
    let interior = w..(p.rows - 1) * w;
    for _ in 0..p.iters {
        for colour in [0, 1] {
            let (own, other): (&mut [f64], &[f64]) = if colour == 0 {
                (&mut *red, &*black)
            } else {
                (&mut *black, &*red)
            };
            split::rows(
                ex,
                split,
                &mut own[interior.clone()],
                1,
                w,
                p.leaf,
                &|rows: &mut [f64], lo| sweep.leaf(colour, rows, lo, other),
            );
        }
    }
}

/// The fixed arguments of a sweep.
#[derive(Debug, Clone, Copy)]
struct Sweep {
    /// Columns of the interleaved grid.
    cols: usize,
    /// Cells per plane row.
    w: usize,
    /// `omega / 4`.
    factor: f64,
}

impl Sweep {
    /// Updates the cells of `colour` in rows `lo..hi` (`own` holds exactly those plane
    /// rows) from the other plane's rows `lo - 1..hi + 1`. Declares the leaf's footprint
    /// and work, then computes.
    fn leaf(&self, colour: usize, own: &mut [f64], lo: usize, other: &[f64]) {
        let w = self.w;
        let hi = lo + own.len() / w;
        read_slice(&other[(lo - 1) * w..(hi + 1) * w]);
        write_slice(own);
        if is_listening() {
            work(self.cells(colour, lo, hi) * CELL_WORK);
        }
        for (r, cells) in own.chunks_exact_mut(w).enumerate() {
            let i = lo + r;
            self.row(parity(i, colour), cells, &other[(i - 1) * w..(i + 2) * w]);
        }
    }

    /// Interior cells of `colour` in rows `lo..hi`: `(cols - 2) / 2` in a row whose cells
    /// of that colour start at an even column (parity 0), `(cols - 1) / 2` in the others.
    fn cells(&self, colour: usize, lo: usize, hi: usize) -> u64 {
        // Rows i in lo..hi with (i + colour) even.
        let even = (hi + colour).div_ceil(2) - (lo + colour).div_ceil(2);
        let odd = hi - lo - even;
        (even * ((self.cols - 2) / 2) + odd * ((self.cols - 1) / 2)) as u64
    }

    /// One plane row: the interior cells of a row whose own colour has column parity
    /// `p`, from the other plane's rows above, at and below (`around`, three rows).
    ///
    /// Own cell `t` is column `j = 2t + p`; its neighbours in the other plane are `t` in
    /// the rows above and below (same parity there), and `t + p - 1`, `t + p` in its
    /// own row (left, right). Interior cells: `t` from `1 - p`, `m` of them.
    #[inline]
    fn row(&self, p: usize, cells: &mut [f64], around: &[f64]) {
        let w = self.w;
        let m = if p == 0 {
            (self.cols - 2) / 2
        } else {
            (self.cols - 1) / 2
        };
        let t0 = 1 - p;
        let (up, rest) = around.split_at(w);
        let (mid, down) = rest.split_at(w);
        let vertical = up[t0..t0 + m].iter().zip(&down[t0..t0 + m]);
        let horizontal = mid[..m].iter().zip(&mid[1..=m]);
        let factor = self.factor;
        for ((c, (&n, &s)), (&west, &east)) in
            cells[t0..t0 + m].iter_mut().zip(vertical).zip(horizontal)
        {
            *c = *c + factor * ((n + s) + (west + east) - 4.0 * *c);
        }
    }
}

/// The serial reference on the interleaved grid: `iters` times, the red cells then the
/// black cells of the interior in row-major order. Declares no footprint.
pub fn reference(p: &SorParams, initial: &[f64]) -> Vec<f64> {
    grid::check_shape("sor", p.rows, p.cols);
    let (rows, cols) = (p.rows, p.cols);
    let factor = p.omega / 4.0;
    let mut g = initial.to_vec();
    for _ in 0..p.iters {
        for colour in [0, 1] {
            for i in 1..rows - 1 {
                let mut j = 1 + (i + colour + 1) % 2;
                while j < cols - 1 {
                    let c = g[i * cols + j];
                    let (n, s) = (g[(i - 1) * cols + j], g[(i + 1) * cols + j]);
                    let (west, east) = (g[i * cols + j - 1], g[i * cols + j + 1]);
                    g[i * cols + j] = c + factor * ((n + s) + (west + east) - 4.0 * c);
                    j += 2;
                }
            }
        }
    }
    g
}

/// Compares a final interleaved grid with the reference bit for bit; `name` is the
/// kernel's ("sor" or "sor-ub").
pub(crate) fn compare(name: &str, p: &SorParams, expected: &[f64], got: &[f64]) -> Outcome {
    let what = format!(
        "{name} {}x{} omega {} after {} iterations",
        p.rows, p.cols, p.omega, p.iters
    );
    grid::compare(&what, p.cols, expected, got)
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against the serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &SorParams) -> Outcome {
    verify_split(ex, Split::Balanced, p)
}

/// [`verify`] for the `split` tree (sor or sor-ub).
pub(crate) fn verify_split<E: Executor>(ex: &E, split: Split, p: &SorParams) -> Outcome {
    let init = initial(p);
    let expected = reference(p, &init);
    let [mut red, mut black] = planes(p, &init);
    let start = Instant::now();
    ex.install(|| solve_split(ex, split, p, &mut red, &mut black));
    let elapsed = start.elapsed();
    compare(
        split_name(split),
        p,
        &expected,
        &interleave(p, &red, &black),
    )
    .timed(elapsed)
}

/// The kernel name of each tree.
pub(crate) fn split_name(split: Split) -> &'static str {
    match split {
        Split::Balanced => "sor",
        Split::Unbalanced => "sor-ub",
        Split::Loop => "sor (loop)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_round_trip() {
        for (rows, cols) in [(3, 3), (4, 4), (5, 7), (6, 8)] {
            let p = SorParams {
                rows,
                cols,
                ..SorParams::default()
            };
            let g: Vec<f64> = (0..rows * cols).map(|x| x as f64).collect();
            let [red, black] = planes(&p, &g);
            // Red cells have an even row + column.
            assert_eq!(red[0], 0.0);
            assert_eq!(black[0], 1.0);
            assert_eq!(
                red[width(cols)],
                (cols + 1) as f64,
                "row 1 starts at column 1"
            );
            assert_eq!(interleave(&p, &red, &black), g);
        }
    }

    #[test]
    fn reference_colours_alternate() {
        // The reference's first column in row i of colour c has i + j + c even.
        for i in 1..6 {
            for colour in [0, 1] {
                let j = 1 + (i + colour + 1) % 2;
                assert_eq!((i + j) % 2, colour, "i={i} c={colour}");
                assert_eq!(j % 2, parity(i, colour));
            }
        }
    }
}
