//! `fib`: the n-th Fibonacci number by doubly recursive fork-join.
//!
//! Every call with `n >= 2` joins `fib(n - 1)` and `fib(n - 2)`; with a cutoff `c > 0`,
//! calls with `n < c` recurse serially instead. With cutoff 0 (the default) nearly every
//! task does no work at all, so the kernel measures the scheduler's spawn, steal and join
//! overhead. The serial reference iterates.
//!
//! Footprint: none. The kernel is CPU-bound; its only state is on the stack.

use std::time::Instant;

use crate::exec::Executor;
use crate::size::{self, Opts};
use crate::Outcome;

/// The largest `n` whose Fibonacci number fits in a `u64` (fib(93) = 12200160415121876738).
pub const MAX_N: u32 = 93;

/// Parameters of the fib kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FibParams {
    /// Which Fibonacci number to compute (at most [`MAX_N`]).
    pub n: u32,
    /// Calls with `n < cutoff` run serially; 0 means no cutoff (every call joins).
    pub cutoff: u32,
}

impl Default for FibParams {
    fn default() -> Self {
        FibParams { n: 30, cutoff: 0 }
    }
}

impl std::fmt::Display for FibParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},cutoff={}", self.n, self.cutoff)
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "N[,cutoff=C] with N in 0..=93, e.g. \"30\" or \"30,cutoff=0\"";

/// Parses `N[,cutoff=C]`; the error is the reason, without the input.
pub(crate) fn parse(s: &str) -> Result<FibParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = FibParams {
        n: size::number("N", main)?,
        ..FibParams::default()
    };
    if p.n > MAX_N {
        return Err(format!(
            "N = {} is too large: fib(N) overflows u64 above N = {MAX_N}",
            p.n
        ));
    }
    let mut opts = Opts::new(opts, &["cutoff"])?;
    if let Some(v) = opts.take("cutoff") {
        p.cutoff = size::number("cutoff", v)?;
    }
    Ok(p)
}

/// `fib(n)` by fork-join on `ex`: joins both recursive calls for `n >= 2`, except below
/// the cutoff (`n < cutoff`), where it recurses serially. `cutoff` 0 means no cutoff.
pub fn fib<E: Executor>(ex: &E, n: u32, cutoff: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    if n < cutoff {
        return fib_recursive(n);
    }
    let (a, b) = ex.join(|| fib(ex, n - 1, cutoff), || fib(ex, n - 2, cutoff));
    a + b
}

/// `fib(n)` by plain serial double recursion: the leaf work below the cutoff.
pub fn fib_recursive(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_recursive(n - 1) + fib_recursive(n - 2)
    }
}

/// `fib(n)` by iteration: the serial reference. Wraps silently above [`MAX_N`].
pub fn reference(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a.wrapping_add(b));
    }
    a
}

/// Compares a result with the reference value.
pub(crate) fn compare(p: &FibParams, expected: u64, got: u64) -> Outcome {
    if got == expected {
        Outcome::pass(format!("fib({}) = {got}", p.n))
    } else {
        Outcome::fail(format!("fib({}): got {got}, expected {expected}", p.n))
    }
}

/// Runs the kernel on `ex` (inside its pool) and checks it against the serial reference.
pub fn verify<E: Executor>(ex: &E, p: &FibParams) -> Outcome {
    let start = Instant::now();
    let got = ex.install(|| fib(ex, p.n, p.cutoff));
    let elapsed = start.elapsed();
    compare(p, reference(p.n), got).timed(elapsed)
}
