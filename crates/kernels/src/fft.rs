//! `fft`: recursive radix-2 complex FFT of `n = 2^k` points (the CPU-bound FFT benchmark
//! of CATS's Table 1).
//!
//! Computes `X[k] = sum_j x[j] w^(jk)` with `w = exp(-2 pi i / n)` by decimation in time:
//! the transform of `n` points is the transforms of the even- and odd-indexed points,
//! combined by `n / 2` butterflies `X[k] = E[k] + w^k O[k]`,
//! `X[k + n/2] = E[k] - w^k O[k]`. The twiddles `w^k` are a table computed with the input
//! (not timed).
//!
//! Parallel version: each level first de-interleaves its points into the scratch
//! buffer (evens to the first half, odds to the second), transforms the two halves with
//! `join` (the scratch halves hold the points, the data halves serve as their scratch),
//! then combines them back into the data. De-interleaving and combining are themselves
//! split into halves with `join` down to `cutoff` butterflies, so no level has an `O(n)`
//! serial step. Transforms of at most `cutoff` points run serially with the same code.
//! Every task touches contiguous ranges only: that is what the de-interleaving buys,
//! against a copy per level.
//!
//! Footprint: a serial leaf transform declares writes (in place) of its data and scratch
//! ranges; a de-interleaving chunk a read of its data range and writes of its two
//! scratch ranges; a combining chunk reads of its two scratch ranges and writes of its
//! two data ranges. Reads of the twiddle table (shared by all, strided) are not
//! declared. Work, declared with them: a serial leaf of `m` points its `m/2 log2 m`
//! butterflies and as many de-interleaved pairs, [`BUTTERFLY_WORK`] + [`PAIR_WORK`]
//! each, and its `2m - 1` calls at [`CALL_WORK`]; a de-interleaving chunk [`PAIR_WORK`]
//! per pair; a combining chunk [`BUTTERFLY_WORK`] per butterfly. Inner tasks only split
//! and join and declare nothing.
//!
//! The serial reference is the textbook recursion written independently (out of place,
//! strided input, no de-interleaving copies). Both compute each output by the same
//! butterfly on the same operands in the same order, so results must be bitwise equal;
//! the tests also check both against a naive `O(n^2)` DFT within a tolerance.

use std::f64::consts::PI;
use std::time::Instant;

use locus::footprint::{read_slice, work, write_slice};

use crate::exec::Executor;
use crate::rng::SplitMix64;
use crate::size::{self, Opts};
use crate::Outcome;

/// Default seed of the input.
const SEED: u64 = 0x0046_4654; // "FFT"
/// Largest `log2 n` accepted.
pub const MAX_LOG2: u32 = 30;
/// Instructions per butterfly, an estimate: guess from the combining loop, which x86-64
/// (SSE2) runs in 28 instructions (3 loads and a strided twiddle, a complex multiply
/// in 2 multiplies, shuffles and an add/sub, an add and a sub, 2 stores, 6 of loop
/// control).
pub const BUTTERFLY_WORK: u64 = 28;
/// Instructions per de-interleaved pair of points, an estimate: guess from the
/// de-interleaving loop (unrolled twice: 12 instructions for two pairs, 2 loads and 2
/// stores of 16 bytes each per pair).
pub const PAIR_WORK: u64 = 6;
/// Instructions per call of the serial transform besides its loops, an estimate: a fit
/// of callgrind's counts for leaves of 256 to 16384 points (a call of 2 or more points
/// sets up two slices, two loops and two calls, one of 1 point returns at once).
pub const CALL_WORK: u64 = 48;

/// A complex number.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Complex {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl Complex {
    /// `re + im i`.
    pub const fn new(re: f64, im: f64) -> Complex {
        Complex { re, im }
    }

    #[inline]
    fn add(self, o: Complex) -> Complex {
        Complex::new(self.re + o.re, self.im + o.im)
    }

    #[inline]
    fn sub(self, o: Complex) -> Complex {
        Complex::new(self.re - o.re, self.im - o.im)
    }

    #[inline]
    fn mul(self, o: Complex) -> Complex {
        Complex::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

/// Parameters of the fft kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FftParams {
    /// Number of points, a power of two (at most `2^MAX_LOG2`).
    pub n: usize,
    /// Transforms of at most this many points run serially, and de-interleaving and
    /// combining split down to this many elements (at least 1).
    pub cutoff: usize,
    /// Seed of the input.
    pub seed: u64,
}

impl Default for FftParams {
    fn default() -> Self {
        // About 11 ms a run on one core in release (this machine).
        FftParams {
            n: 1 << 18,
            cutoff: 2048,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for FftParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},cutoff={}", self.n, self.cutoff)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "N[,cutoff=C][,seed=S] with N a power of two up to 2^30 \
     (written out or as 2^K), C >= 1, e.g. \"262144\", \"2^18\" or \"2^18,cutoff=2048\"";

/// Parses `N[,cutoff=C][,seed=S]`, `N` written out or as `2^K`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<FftParams, String> {
    let (main, opts) = size::split(s)?;
    let n = if let Some((base, exp)) = main.split_once('^') {
        if base.trim() != "2" {
            return Err(format!(
                "N {main:?}: only powers of 2 can be written as B^K"
            ));
        }
        let k: u32 = size::number("exponent K", exp.trim())?;
        if k > MAX_LOG2 {
            return Err(format!("N = 2^{k} is too large (at most 2^{MAX_LOG2})"));
        }
        1usize << k
    } else {
        let n: usize = size::number("N", main)?;
        if !n.is_power_of_two() {
            return Err(format!("N = {n} is not a power of two"));
        }
        if n > 1 << MAX_LOG2 {
            return Err(format!("N = {n} is too large (at most 2^{MAX_LOG2})"));
        }
        n
    };
    let mut p = FftParams {
        n,
        ..FftParams::default()
    };
    let mut opts = Opts::new(opts, &["cutoff", "seed"])?;
    if let Some(v) = opts.take("cutoff") {
        p.cutoff = size::number("cutoff", v)?;
        if p.cutoff == 0 {
            return Err("cutoff must be at least 1".to_owned());
        }
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// The input: `n` seeded points with parts uniform in `[-1, 1)`.
pub fn input(p: &FftParams) -> Vec<Complex> {
    let mut rng = SplitMix64::new(p.seed);
    (0..p.n)
        .map(|_| {
            let re = 2.0 * rng.next_f64() - 1.0;
            Complex::new(re, 2.0 * rng.next_f64() - 1.0)
        })
        .collect()
}

/// The twiddle table of an `n`-point transform: `w^k = exp(-2 pi i k / n)` for
/// `k < n / 2`.
pub fn twiddles(n: usize) -> Vec<Complex> {
    (0..n / 2)
        .map(|k| {
            let a = -2.0 * PI * k as f64 / n as f64;
            Complex::new(a.cos(), a.sin())
        })
        .collect()
}

/// Transforms `data` in place on `ex`, using `tmp` (same length, contents ignored) as
/// scratch and `tw` = [`twiddles`]`(data.len())`. A `cutoff` of 0 is treated as 1.
///
/// # Panics
///
/// Panics if `data.len()` is not a power of two, or `tmp` or `tw` has the wrong length.
pub fn fft<E: Executor>(
    ex: &E,
    data: &mut [Complex],
    tmp: &mut [Complex],
    tw: &[Complex],
    cutoff: usize,
) {
    let n = data.len();
    assert!(n.is_power_of_two(), "fft: {n} points is not a power of two");
    assert_eq!(tmp.len(), n, "fft: scratch length mismatch");
    assert_eq!(tw.len(), n / 2, "fft: twiddle table length mismatch");
    Fft {
        ex,
        tw,
        cutoff: cutoff.max(1),
    }
    .transform(data, tmp, 1);
}

/// The fixed arguments of one parallel transform.
struct Fft<'a, E> {
    ex: &'a E,
    tw: &'a [Complex],
    cutoff: usize,
}

impl<E: Executor> Fft<'_, E> {
    /// Transforms `x` in place (`tmp` is scratch); `step` is the twiddle stride of this
    /// size (`N / x.len()`).
    fn transform(&self, x: &mut [Complex], tmp: &mut [Complex], step: usize) {
        let n = x.len();
        if n <= self.cutoff {
            write_slice(x);
            write_slice(tmp);
            work(serial_work(n));
            serial(x, tmp, self.tw, step);
            return;
        }
        let h = n / 2;
        {
            let src: &[Complex] = x;
            let (evens, odds) = tmp.split_at_mut(h);
            self.pairs(evens, odds, 0, &|e, o, k0| {
                read_slice(&src[2 * k0..2 * (k0 + e.len())]);
                write_slice(e);
                write_slice(o);
                work(e.len() as u64 * PAIR_WORK);
                deinterleave(&src[2 * k0..], e, o);
            });
        }
        {
            let (t_lo, t_hi) = tmp.split_at_mut(h);
            let (x_lo, x_hi) = x.split_at_mut(h);
            self.ex.join(
                || self.transform(t_lo, x_lo, 2 * step),
                || self.transform(t_hi, x_hi, 2 * step),
            );
        }
        let (t_lo, t_hi) = tmp.split_at(h);
        let (x_lo, x_hi) = x.split_at_mut(h);
        let tw = self.tw;
        self.pairs(x_lo, x_hi, 0, &|lo, hi, k0| {
            let k1 = k0 + lo.len();
            read_slice(&t_lo[k0..k1]);
            read_slice(&t_hi[k0..k1]);
            write_slice(lo);
            write_slice(hi);
            work(lo.len() as u64 * BUTTERFLY_WORK);
            combine(&t_lo[k0..k1], &t_hi[k0..k1], lo, hi, tw, step, k0);
        });
    }

    /// Calls `f(a_chunk, b_chunk, first)` on equal-offset chunks of `a` and `b` (same
    /// length) of at most `cutoff` elements, halving with `join`.
    fn pairs<F>(&self, a: &mut [Complex], b: &mut [Complex], k0: usize, f: &F)
    where
        F: Fn(&mut [Complex], &mut [Complex], usize) + Sync,
    {
        let n = a.len();
        if n <= self.cutoff {
            f(a, b, k0);
            return;
        }
        let h = n / 2;
        let (a_lo, a_hi) = a.split_at_mut(h);
        let (b_lo, b_hi) = b.split_at_mut(h);
        self.ex.join(
            || self.pairs(a_lo, b_lo, k0, f),
            || self.pairs(a_hi, b_hi, k0 + h, f),
        );
    }
}

/// The work of a serial transform of `n` points (a power of two): `n/2 log2 n`
/// butterflies and pairs, `2n - 1` calls.
fn serial_work(n: usize) -> u64 {
    let n = n as u64;
    let levels = u64::from(n.trailing_zeros());
    n / 2 * levels * (BUTTERFLY_WORK + PAIR_WORK) + (2 * n - 1) * CALL_WORK
}

/// The serial transform of the parallel version, in place in `x` with scratch `tmp`.
fn serial(x: &mut [Complex], tmp: &mut [Complex], tw: &[Complex], step: usize) {
    let n = x.len();
    if n == 1 {
        return;
    }
    let h = n / 2;
    let (t_lo, t_hi) = tmp.split_at_mut(h);
    deinterleave(x, t_lo, t_hi);
    let (x_lo, x_hi) = x.split_at_mut(h);
    serial(t_lo, x_lo, tw, 2 * step);
    serial(t_hi, x_hi, tw, 2 * step);
    combine(t_lo, t_hi, x_lo, x_hi, tw, step, 0);
}

/// `evens[i] = src[2i]`, `odds[i] = src[2i + 1]` for `i < evens.len()`.
#[inline]
fn deinterleave(src: &[Complex], evens: &mut [Complex], odds: &mut [Complex]) {
    for ((e, o), pair) in evens.iter_mut().zip(odds).zip(src.chunks_exact(2)) {
        *e = pair[0];
        *o = pair[1];
    }
}

/// Butterflies `k0 + i` for `i < lo.len()`: `lo[i] = e[i] + w o[i]`,
/// `hi[i] = e[i] - w o[i]` with `w = tw[(k0 + i) * step]`.
#[inline]
fn combine(
    e: &[Complex],
    o: &[Complex],
    lo: &mut [Complex],
    hi: &mut [Complex],
    tw: &[Complex],
    step: usize,
    k0: usize,
) {
    let twiddles = tw[k0 * step..].iter().step_by(step);
    for ((((l, h), &a), &b), &w) in lo.iter_mut().zip(hi).zip(e).zip(o).zip(twiddles) {
        let t = w.mul(b);
        *l = a.add(t);
        *h = a.sub(t);
    }
}

/// The serial reference: the textbook recursive FFT, out of place. Declares no
/// footprint.
///
/// # Panics
///
/// Panics if `input.len()` is not a power of two or `tw` has the wrong length.
pub fn reference(input: &[Complex], tw: &[Complex]) -> Vec<Complex> {
    let n = input.len();
    assert!(n.is_power_of_two(), "fft: {n} points is not a power of two");
    assert_eq!(tw.len(), n / 2, "fft: twiddle table length mismatch");
    let mut out = vec![Complex::default(); n];
    textbook(input, 1, &mut out, tw, 1);
    out
}

/// `out` = the transform of `input[0], input[stride], ...` (`out.len()` points).
fn textbook(input: &[Complex], stride: usize, out: &mut [Complex], tw: &[Complex], step: usize) {
    let n = out.len();
    if n == 1 {
        out[0] = input[0];
        return;
    }
    let (lo, hi) = out.split_at_mut(n / 2);
    textbook(input, 2 * stride, lo, tw, 2 * step);
    textbook(&input[stride..], 2 * stride, hi, tw, 2 * step);
    for k in 0..n / 2 {
        let t = tw[k * step].mul(hi[k]);
        let a = lo[k];
        lo[k] = a.add(t);
        hi[k] = a.sub(t);
    }
}

/// The naive `O(n^2)` DFT, for tests at small sizes.
pub fn naive_dft(input: &[Complex]) -> Vec<Complex> {
    let n = input.len();
    (0..n)
        .map(|k| {
            input
                .iter()
                .enumerate()
                .fold(Complex::default(), |acc, (j, &x)| {
                    // Reduce j k mod n first: exact, and keeps the angle small.
                    let a = -2.0 * PI * ((j * k) % n) as f64 / n as f64;
                    acc.add(x.mul(Complex::new(a.cos(), a.sin())))
                })
        })
        .collect()
}

/// Compares a transform with the reference bit for bit.
pub(crate) fn compare(p: &FftParams, expected: &[Complex], got: &[Complex]) -> Outcome {
    let what = format!("fft of {} points", p.n);
    if got.len() != expected.len() {
        return Outcome::fail(format!(
            "{what}: result has {} points, reference {}",
            got.len(),
            expected.len()
        ));
    }
    let same = |x: &Complex, y: &Complex| {
        x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits()
    };
    match got.iter().zip(expected).position(|(x, y)| !same(x, y)) {
        None => {
            let energy: f64 = got.iter().map(|z| z.re * z.re + z.im * z.im).sum();
            Outcome::pass(format!(
                "{what}: bitwise equal to the serial reference (energy {energy:.6e})"
            ))
        }
        Some(i) => {
            let differ = got
                .iter()
                .zip(expected)
                .filter(|(x, y)| !same(x, y))
                .count();
            Outcome::fail(format!(
                "{what}: {differ} points differ from the serial reference; first at {i}: \
                 got {:?}, expected {:?}",
                got[i], expected[i]
            ))
        }
    }
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against the serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &FftParams) -> Outcome {
    let mut data = input(p);
    let tw = twiddles(p.n);
    let expected = reference(&data, &tw);
    let mut tmp = vec![Complex::default(); p.n];
    let start = Instant::now();
    ex.install(|| fft(ex, &mut data, &mut tmp, &tw, p.cutoff));
    let elapsed = start.elapsed();
    compare(p, &expected, &data).timed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Serial;

    #[test]
    fn matches_naive_dft() {
        for log2 in 0u32..=8 {
            let p = FftParams {
                n: 1 << log2,
                cutoff: 4,
                seed: u64::from(log2),
            };
            let x = input(&p);
            let tw = twiddles(p.n);
            let want = naive_dft(&x);
            let got = reference(&x, &tw);
            let tol = 1e-12 * (p.n as f64) * (p.n as f64).log2().max(1.0);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let err = (g.re - w.re).abs().max((g.im - w.im).abs());
                assert!(err <= tol, "n={} k={k}: {g:?} vs {w:?}", p.n);
            }
            let mut data = x.clone();
            let mut tmp = vec![Complex::default(); p.n];
            fft(&Serial, &mut data, &mut tmp, &tw, p.cutoff);
            assert_eq!(data, got, "n={}: parallel code equals the reference", p.n);
        }
    }

    #[test]
    fn impulse_and_constant() {
        let n = 16;
        let tw = twiddles(n);
        let mut impulse = vec![Complex::default(); n];
        impulse[0] = Complex::new(1.0, 0.0);
        assert!(reference(&impulse, &tw)
            .iter()
            .all(|z| *z == Complex::new(1.0, 0.0)));
        let ones = vec![Complex::new(1.0, 0.0); n];
        let x = reference(&ones, &tw);
        assert_eq!(x[0], Complex::new(n as f64, 0.0));
        assert!(x[1..]
            .iter()
            .all(|z| z.re.abs() < 1e-12 && z.im.abs() < 1e-12));
    }
}
