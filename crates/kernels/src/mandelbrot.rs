//! `mandelbrot`: escape-time counts of the Mandelbrot set on a `rows x cols` image (the
//! CPU-bound Mandelbrot benchmark of CATS's Table 1).
//!
//! Pixel `(i, j)` samples `c = (-2 + 3 (j + 0.5) / cols) + (-1.5 + 3 (i + 0.5) / rows) i`
//! (the square `[-2, 1] x [-1.5, 1.5]`) and counts the iterations of `z = z^2 + c` from
//! `z = 0` before `|z|^2 > 4`, at most `maxiter`. Rows near the middle of the image
//! cross the set and cost up to `maxiter` per pixel, rows near the edges escape at
//! once: the work per row is very uneven.
//!
//! The image rows are halved with `join` down to at most `leaf` rows ([`Split::Balanced`]
//! through [`crate::split`]); each leaf fills its own rows.
//!
//! Footprint, declared once per leaf: a write of its output rows. The kernel reads no
//! input; its work is arithmetic on registers. Work, declared by each leaf after it
//! computed its rows: [`ITER_WORK`] per iteration (the sum of the leaf's escape counts,
//! summed only while a listener is installed) and [`PIXEL_WORK`] per pixel; inner tasks
//! only split and join and declare nothing.
//!
//! The serial reference runs the same row code over the whole image (declaring
//! nothing); the counts must be equal.

use std::time::Instant;

use locus::footprint::{is_listening, work, write_slice};

use crate::exec::Executor;
use crate::size::{self, Opts};
use crate::split::{self, Split};
use crate::Outcome;

/// Instructions per iteration of `z = z^2 + c`, an estimate: guess from the escape loop
/// (3 multiplies, 4 additions, the escape compare, the count and its bound, moves); a
/// fit of callgrind's counts over two `maxiter`s gives 16.0.
pub const ITER_WORK: u64 = 16;
/// Instructions per pixel besides its iterations, an estimate: `c`'s real part (a
/// conversion, a multiply and 2 additions), the last escape test, the store and the
/// loops' control; the same fit gives 22.
pub const PIXEL_WORK: u64 = 22;

/// Parameters of the mandelbrot kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MandelbrotParams {
    /// Image rows (at least 1).
    pub rows: usize,
    /// Image columns (at least 1).
    pub cols: usize,
    /// Most iterations per pixel (at least 1).
    pub maxiter: u32,
    /// Most rows a leaf task computes (at least 1).
    pub leaf: usize,
}

impl Default for MandelbrotParams {
    fn default() -> Self {
        // About 10 ms a run on one core in release (this machine).
        MandelbrotParams {
            rows: 256,
            cols: 256,
            maxiter: 256,
            leaf: 4,
        }
    }
}

impl std::fmt::Display for MandelbrotParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{},maxiter={},leaf={}",
            self.rows, self.cols, self.maxiter, self.leaf
        )
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "ROWSxCOLS[,maxiter=M][,leaf=L] with ROWS, COLS, M, L >= 1, \
     e.g. \"256x256\" or \"256x256,maxiter=256,leaf=4\"";

/// Parses `ROWSxCOLS[,maxiter=M][,leaf=L]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<MandelbrotParams, String> {
    let (main, opts) = size::split(s)?;
    let Some((r, c)) = main.split_once(['x', 'X']) else {
        return Err(format!("image {main:?} is not of the form ROWSxCOLS"));
    };
    let mut p = MandelbrotParams {
        rows: size::number("ROWS", r)?,
        cols: size::number("COLS", c)?,
        ..MandelbrotParams::default()
    };
    if p.rows == 0 || p.cols == 0 {
        return Err(format!(
            "image {}x{} is empty: rows and columns must be at least 1",
            p.rows, p.cols
        ));
    }
    match p.rows.checked_mul(p.cols) {
        Some(px) if px <= isize::MAX as usize / std::mem::size_of::<u32>() => {}
        _ => return Err(format!("image {}x{} is too large", p.rows, p.cols)),
    }
    let mut opts = Opts::new(opts, &["maxiter", "leaf"])?;
    if let Some(v) = opts.take("maxiter") {
        p.maxiter = size::number("maxiter", v)?;
        if p.maxiter == 0 {
            return Err("maxiter must be at least 1".to_owned());
        }
    }
    if let Some(v) = opts.take("leaf") {
        p.leaf = size::number("leaf", v)?;
        if p.leaf == 0 {
            return Err("leaf must be at least 1 row".to_owned());
        }
    }
    Ok(p)
}

/// Fills `image` (`rows * cols` counts, row-major) on `ex`.
///
/// # Panics
///
/// Panics if `image` is not `rows * cols` long, or `leaf` is 0.
pub fn render<E: Executor>(ex: &E, p: &MandelbrotParams, image: &mut [u32]) {
    assert_eq!(
        image.len(),
        p.rows * p.cols,
        "mandelbrot: image size mismatch"
    );
    let p = *p;
    split::rows(
        ex,
        Split::Balanced,
        image,
        0,
        p.cols,
        p.leaf,
        &|rows, lo| {
            write_slice(rows);
            compute(&p, rows, lo);
            if is_listening() {
                work(leaf_work(rows));
            }
        },
    );
}

/// The work of a leaf that computed the escape counts `counts`.
fn leaf_work(counts: &[u32]) -> u64 {
    let iterations: u64 = counts.iter().map(|&k| u64::from(k)).sum();
    iterations * ITER_WORK + counts.len() as u64 * PIXEL_WORK
}

/// The serial reference: the row code over the whole image. Declares no footprint.
pub fn reference(p: &MandelbrotParams) -> Vec<u32> {
    let mut image = vec![0; p.rows * p.cols];
    compute(p, &mut image, 0);
    image
}

/// Rows `lo..` of the image (`out` holds whole rows).
fn compute(p: &MandelbrotParams, out: &mut [u32], lo: usize) {
    let dx = 3.0 / p.cols as f64;
    let dy = 3.0 / p.rows as f64;
    for (r, row) in out.chunks_exact_mut(p.cols).enumerate() {
        let ci = -1.5 + ((lo + r) as f64 + 0.5) * dy;
        for (j, count) in row.iter_mut().enumerate() {
            let cr = -2.0 + (j as f64 + 0.5) * dx;
            *count = escape(cr, ci, p.maxiter);
        }
    }
}

/// Iterations of `z = z^2 + c` from 0 before `|z|^2 > 4`, at most `maxiter`.
#[inline]
fn escape(cr: f64, ci: f64, maxiter: u32) -> u32 {
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    let mut k = 0;
    while k < maxiter {
        let (zr2, zi2) = (zr * zr, zi * zi);
        if zr2 + zi2 > 4.0 {
            break;
        }
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        k += 1;
    }
    k
}

/// Compares an image with the reference.
pub(crate) fn compare(p: &MandelbrotParams, expected: &[u32], got: &[u32]) -> Outcome {
    let what = format!("mandelbrot {}x{} maxiter {}", p.rows, p.cols, p.maxiter);
    if got == expected {
        let total: u64 = got.iter().map(|&k| u64::from(k)).sum();
        let inside = got.iter().filter(|&&k| k == p.maxiter).count();
        return Outcome::pass(format!(
            "{what}: equal to the serial reference ({total} iterations, {inside} pixels \
             never escape)"
        ));
    }
    if got.len() != expected.len() {
        return Outcome::fail(format!(
            "{what}: result has {} pixels, reference {}",
            got.len(),
            expected.len()
        ));
    }
    let differ = got.iter().zip(expected).filter(|(x, y)| x != y).count();
    let i = got
        .iter()
        .zip(expected)
        .position(|(x, y)| x != y)
        .unwrap_or(0);
    Outcome::fail(format!(
        "{what}: {differ} pixels differ from the serial reference; first at row {}, \
         column {}: got {}, expected {}",
        i / p.cols,
        i % p.cols,
        got[i],
        expected[i]
    ))
}

/// Runs the kernel on `ex` (inside its pool) and checks it against the serial reference.
pub fn verify<E: Executor>(ex: &E, p: &MandelbrotParams) -> Outcome {
    let expected = reference(p);
    let mut image = vec![0; p.rows * p.cols];
    let start = Instant::now();
    ex.install(|| render(ex, p, &mut image));
    let elapsed = start.elapsed();
    compare(p, &expected, &image).timed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_counts() {
        assert_eq!(escape(0.0, 0.0, 100), 100, "the origin is in the set");
        assert_eq!(escape(-1.0, 0.0, 100), 100, "-1 cycles");
        assert_eq!(escape(2.0, 2.0, 100), 1, "far outside escapes at once");
        assert!(escape(0.5, 0.0, 1000) < 1000, "0.5 escapes");
    }
}
