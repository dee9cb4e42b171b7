//! `ge`: Gaussian elimination of a dense `n x n` matrix, in place, without pivoting
//! (the GE benchmark of the CATS and CAB papers).
//!
//! The matrix is seeded and strictly diagonally dominant (off-diagonal entries uniform
//! in `[0, 1)`, diagonal `n` plus a uniform `[0, 1)`), so elimination without pivoting is
//! stable. For each pivot `k` in `0..n-1`, every row `i > k` gets the multiplier
//! `f = a[i][k] / a[k][k]`, stored in `a[i][k]`, and `a[i][j] = a[i][j] - f * a[k][j]`
//! for `j > k`. The result is the LU factorisation: the unit lower factor's multipliers
//! below the diagonal, the upper factor on and above it.
//!
//! For each pivot, the rows `k+1..n` are cut along a [`Split`] tree down to at most
//! `leaf` rows, with `split_at_mut` below the pivot row (which is read-only during its
//! step), so the kernel is safe code: halves for `ge`, CATS's Algorithm 1 for `ge-ub`
//! ([`crate::ge_ub`]). The tree shrinks as `k` grows, so the leaves of step `k` are not
//! those of step `k + 1`; the matrix is `n` joins deep in time (one tree per pivot).
//!
//! Footprint, declared once per leaf and pivot: a read of the pivot row from column `k`
//! and a write (in place) of the leaf's whole rows (columns before `k` included,
//! although they are not touched: an over-approximation by up to `n / (n - k)`). Work,
//! declared with it: per row, [`ROW_WORK`] and [`UPDATE_WORK`] per updated entry
//! (`n - k - 1` of them); inner tasks only split and join and declare nothing.
//!
//! The serial reference is an independent triple loop computing every entry by the
//! same expression on the same operands in the same pivot order: results must be
//! bitwise equal. The verifier also solves `A x = b` with the factors for `b = A 1`
//! and checks the residual.

use std::time::Instant;

use locus::footprint::{is_listening, read_slice, work, write_slice};

use crate::exec::Executor;
use crate::rng::SplitMix64;
use crate::size::{self, Opts};
use crate::split::{self, Split};
use crate::Outcome;

/// Default seed of the matrix.
const SEED: u64 = 0x4745; // "GE"
/// Largest relative residual `max |b - A x| / (max_i sum_j |a_ij| * max |x|)` accepted
/// (guess: a few hundred ulps times n at the sizes tested).
const RESIDUAL: f64 = 1e-10;
/// Instructions per updated entry `a[i][j] -= f * a[k][j]`, an estimate: guess from the
/// inner loop, which x86-64 (SSE2, unrolled twice) runs in 13 instructions per four
/// entries (4 loads, 2 multiplies, 2 subtractions, 2 stores, 3 of loop control).
pub const UPDATE_WORK: u64 = 3;
/// Instructions per row and pivot besides the updates, an estimate: the multiplier's
/// division and store, the loop's setup and its scalar remainder (0 to 3 entries); a
/// fit of callgrind's counts at n = 256 and 512 gives 46 (and 3.25 per update).
pub const ROW_WORK: u64 = 46;

/// Parameters of the ge kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GeParams {
    /// Matrix order (at least 1).
    pub n: usize,
    /// Most rows a leaf task updates (at least 1).
    pub leaf: usize,
    /// Seed of the matrix.
    pub seed: u64,
}

impl Default for GeParams {
    fn default() -> Self {
        // About 12 ms a run on one core in release (this machine).
        GeParams {
            n: 512,
            leaf: 8,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for GeParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},leaf={}", self.n, self.leaf)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str =
    "N[,leaf=L][,seed=S] with N, L >= 1 (an N x N matrix), e.g. \"512\" or \"512,leaf=8\"";

/// Parses `N[,leaf=L][,seed=S]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<GeParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = GeParams {
        n: size::number("N", main)?,
        ..GeParams::default()
    };
    if p.n == 0 {
        return Err("N must be at least 1".to_owned());
    }
    match p.n.checked_mul(p.n) {
        Some(cells) if cells <= isize::MAX as usize / std::mem::size_of::<f64>() => {}
        _ => return Err(format!("matrix {0}x{0} is too large", p.n)),
    }
    let mut opts = Opts::new(opts, &["leaf", "seed"])?;
    if let Some(v) = opts.take("leaf") {
        p.leaf = size::number("leaf", v)?;
        if p.leaf == 0 {
            return Err("leaf must be at least 1 row".to_owned());
        }
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// The input matrix (row-major, `n * n`): seeded, strictly diagonally dominant.
pub fn input(p: &GeParams) -> Vec<f64> {
    let n = p.n;
    let mut rng = SplitMix64::new(p.seed);
    let mut a = vec![0.0; n * n];
    for (i, row) in a.chunks_exact_mut(n.max(1)).enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = rng.next_f64();
            if i == j {
                *x += n as f64;
            }
        }
    }
    a
}

/// Eliminates `a` (`n * n`, row-major) in place on `ex`, rows of each step split in
/// halves ([`Split::Balanced`]).
///
/// # Panics
///
/// Panics if `a` is not `n * n` long or `leaf` is 0.
pub fn solve<E: Executor>(ex: &E, p: &GeParams, a: &mut [f64]) {
    solve_split(ex, Split::Balanced, p, a);
}

/// [`solve`] with the rows of each pivot step cut along the `split` tree; the result is
/// the same bit for bit, whatever the tree.
///
/// # Panics
///
/// Panics if `a` is not `n * n` long or `leaf` is 0.
pub fn solve_split<E: Executor>(ex: &E, split: Split, p: &GeParams, a: &mut [f64]) {
    let n = p.n;
    assert_eq!(a.len(), n * n, "ge: matrix size mismatch");
    assert!(p.leaf >= 1, "ge: leaf must be at least 1");
    for k in 0..n.saturating_sub(1) {
        let (top, below) = a.split_at_mut((k + 1) * n);
        let pivot: &[f64] = &top[k * n..];
        split::rows(
            ex,
            split,
            below,
            k + 1,
            n,
            p.leaf,
            &|rows: &mut [f64], _| leaf(pivot, rows, k),
        );
    }
}

/// Updates whole rows `rows` for pivot `k` (`pivot` is row `k`). Declares the leaf's
/// footprint and work, then computes.
fn leaf(pivot: &[f64], rows: &mut [f64], k: usize) {
    read_slice(&pivot[k..]);
    write_slice(rows);
    let n = pivot.len();
    if is_listening() {
        work((rows.len() / n) as u64 * (ROW_WORK + (n - k - 1) as u64 * UPDATE_WORK));
    }
    let diag = pivot[k];
    for row in rows.chunks_exact_mut(n) {
        let f = row[k] / diag;
        row[k] = f;
        for (x, &u) in row[k + 1..].iter_mut().zip(&pivot[k + 1..]) {
            *x -= f * u;
        }
    }
}

/// The serial reference: the elimination as a plain triple loop. Declares no footprint.
pub fn reference(p: &GeParams, input: &[f64]) -> Vec<f64> {
    let n = p.n;
    assert_eq!(input.len(), n * n, "ge: matrix size mismatch");
    let mut a = input.to_vec();
    for k in 0..n.saturating_sub(1) {
        for i in k + 1..n {
            let f = a[i * n + k] / a[k * n + k];
            a[i * n + k] = f;
            for j in k + 1..n {
                a[i * n + j] -= f * a[k * n + j];
            }
        }
    }
    a
}

/// The relative residual of solving `A x = A 1` with the factors `lu` of `a`, and
/// `max |x - 1|`.
fn residual(n: usize, a: &[f64], lu: &[f64]) -> (f64, f64) {
    let b: Vec<f64> = a.chunks_exact(n).map(|row| row.iter().sum()).collect();
    // Forward substitution with the unit lower factor, then back substitution.
    let mut x = b.clone();
    for i in 0..n {
        let s: f64 = (0..i).map(|j| lu[i * n + j] * x[j]).sum();
        x[i] -= s;
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| lu[i * n + j] * x[j]).sum();
        x[i] = (x[i] - s) / lu[i * n + i];
    }
    let norm_a = a
        .chunks_exact(n)
        .map(|row| row.iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let norm_x = x.iter().map(|v| v.abs()).fold(0.0, f64::max);
    let r = a
        .chunks_exact(n)
        .zip(&b)
        .map(|(row, bi)| (bi - row.iter().zip(&x).map(|(u, v)| u * v).sum::<f64>()).abs())
        .fold(0.0, f64::max);
    let err = x.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    (r / (norm_a * norm_x).max(f64::MIN_POSITIVE), err)
}

/// Compares the factors with the reference bit for bit, then checks the residual of a
/// solve with them; `name` is the kernel's ("ge" or "ge-ub").
pub(crate) fn compare(
    name: &str,
    p: &GeParams,
    input: &[f64],
    expected: &[f64],
    got: &[f64],
) -> Outcome {
    let n = p.n;
    let what = format!("{name} {n}x{n}");
    if got.len() != expected.len() {
        return Outcome::fail(format!(
            "{what}: result has {} entries, reference {}",
            got.len(),
            expected.len()
        ));
    }
    if let Some(i) = got
        .iter()
        .zip(expected)
        .position(|(x, y)| x.to_bits() != y.to_bits())
    {
        let differ = got
            .iter()
            .zip(expected)
            .filter(|(x, y)| x.to_bits() != y.to_bits())
            .count();
        return Outcome::fail(format!(
            "{what}: {differ} entries differ from the serial reference; first at row {}, \
             column {}: got {:e}, expected {:e}",
            i / n,
            i % n,
            got[i],
            expected[i]
        ));
    }
    let (rel, err) = residual(n, input, got);
    if rel.is_nan() || rel > RESIDUAL {
        return Outcome::fail(format!(
            "{what}: bitwise equal to the serial reference, but solving A x = A 1 with the \
             factors leaves a relative residual of {rel:e} (max |x - 1| = {err:e})"
        ));
    }
    Outcome::pass(format!(
        "{what}: bitwise equal to the serial reference; A x = A 1 solved with relative \
         residual {rel:.1e}, max |x - 1| = {err:.1e}"
    ))
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against the serial
/// reference and by the residual of a solve.
pub fn verify<E: Executor>(ex: &E, p: &GeParams) -> Outcome {
    verify_split(ex, Split::Balanced, p)
}

/// [`verify`] for the `split` tree (ge or ge-ub).
pub(crate) fn verify_split<E: Executor>(ex: &E, split: Split, p: &GeParams) -> Outcome {
    let init = input(p);
    let expected = reference(p, &init);
    let mut a = init.clone();
    let start = Instant::now();
    ex.install(|| solve_split(ex, split, p, &mut a));
    let elapsed = start.elapsed();
    compare(split_name(split), p, &init, &expected, &a).timed(elapsed)
}

/// The kernel name of each tree.
pub(crate) fn split_name(split: Split) -> &'static str {
    match split {
        Split::Balanced => "ge",
        Split::Unbalanced => "ge-ub",
        Split::Loop => "ge (loop)",
    }
}
