//! `fib`: the n-th Fibonacci number by doubly recursive fork-join.
//!
//! Every call with `n >= 2` joins `fib(n - 1)` and `fib(n - 2)`; with a cutoff `c > 0`,
//! calls with `n < c` recurse serially instead. With cutoff 0 (the default) nearly every
//! task does no work at all, so the kernel measures the scheduler's spawn, steal and join
//! overhead. The serial reference iterates.
//!
//! Footprint: none. The kernel is CPU-bound; its only state is on the stack. Work:
//! [`CALL_WORK`] per call. A call with `n < 2` declares it for itself, and a serial leaf
//! `fib_recursive(n)` below the cutoff its `2 fib(n + 1) - 1` calls at once, from a
//! table ([`serial_calls`]). The inner calls that join declare nothing: they only split
//! and join, as the other kernels' inner tasks, and a check there would cost this
//! kernel, whose tasks are as short as tasks get, about 5% of its time (measured). So
//! `fib(n)` declares `CALL_WORK * (2 fib(n + 1) - 1 - j)` for `j` joins: with cutoff 0,
//! `CALL_WORK * fib(n + 1)`.

use std::time::Instant;

use locus::footprint::{is_listening, work};

use crate::exec::Executor;
use crate::size::{self, Opts};
use crate::Outcome;

/// The largest `n` whose Fibonacci number fits in a `u64` (fib(93) = 12200160415121876738).
pub const MAX_N: u32 = 93;

/// Instructions per call, an estimate: guess from a serial call (two compares, two
/// calls, an add, the frame), which callgrind counts at 10.1 for `fib_recursive`.
pub const CALL_WORK: u64 = 10;

/// `fib(0..=MAX_N)`, for [`serial_calls`].
const FIB: [u64; MAX_N as usize + 1] = {
    let mut t = [0u64; MAX_N as usize + 1];
    t[1] = 1;
    let mut i = 2;
    while i < t.len() {
        t[i] = t[i - 1] + t[i - 2];
        i += 1;
    }
    t
};

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
pub(crate) const SYNTAX: &str = "N[,cutoff=C] with N in 1..=93, e.g. \"30\" or \"30,cutoff=0\"";

/// Parses `N[,cutoff=C]`; the error is the reason, without the input.
pub(crate) fn parse(s: &str) -> Result<FibParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = FibParams {
        n: size::number("N", main)?,
        ..FibParams::default()
    };
    if p.n == 0 {
        return Err("N = 0 is no input: fib(0) makes no call (N is at least 1)".to_owned());
    }
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
///
/// Declares [`CALL_WORK`] per call, serial ones included, except for the inner calls
/// that join (see the module doc).
pub fn fib<E: Executor>(ex: &E, n: u32, cutoff: u32) -> u64 {
    if n < 2 {
        return declaring(|| CALL_WORK, move || u64::from(n));
    }
    if n < cutoff {
        return declaring(
            || CALL_WORK.saturating_mul(serial_calls(n)),
            move || fib_recursive(n),
        );
    }
    let (a, b) = ex.join(|| fib(ex, n - 1, cutoff), || fib(ex, n - 2, cutoff));
    a + b
}

/// Runs `rest`, the rest of a call, after declaring `instructions()` of work. Only the
/// check is inline; the declaration and a second copy of `rest` sit in a cold function
/// called in tail position, so the hot path keeps no register alive across a call (a
/// plain [`work`] call in every call made `fib 30` 10% slower, under rayon and `ws`
/// alike, mostly through the registers it saved).
#[inline(always)]
fn declaring<R>(instructions: impl FnOnce() -> u64, rest: impl FnOnce() -> R) -> R {
    if is_listening() {
        declare_then(instructions, rest)
    } else {
        rest()
    }
}

/// The listening path of [`declaring`].
#[cold]
#[inline(never)]
fn declare_then<R>(instructions: impl FnOnce() -> u64, rest: impl FnOnce() -> R) -> R {
    work(instructions());
    rest()
}

/// `fib(n)` by plain serial double recursion: the leaf work below the cutoff. Declares
/// nothing ([`fib`] declares its calls).
pub fn fib_recursive(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_recursive(n - 1) + fib_recursive(n - 2)
    }
}

/// The calls `fib_recursive(n)` makes, itself included: `2 fib(n + 1) - 1`, saturating
/// (above `n = 91`).
pub fn serial_calls(n: u32) -> u64 {
    FIB.get(n as usize + 1)
        .and_then(|f| f.checked_mul(2))
        .map_or(u64::MAX, |twice| twice - 1)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls of `fib_recursive(n)`, counted.
    fn count(n: u32) -> u64 {
        if n < 2 {
            1
        } else {
            1 + count(n - 1) + count(n - 2)
        }
    }

    #[test]
    fn serial_calls_closed_form() {
        for n in 0..20 {
            assert_eq!(serial_calls(n), count(n), "n = {n}");
        }
        assert_eq!(FIB[MAX_N as usize], reference(MAX_N));
        assert_eq!(serial_calls(91), 2 * reference(92) - 1);
        assert_eq!(serial_calls(92), u64::MAX, "saturates");
        assert_eq!(serial_calls(MAX_N), u64::MAX);
        assert_eq!(serial_calls(u32::MAX), u64::MAX);
    }
}
