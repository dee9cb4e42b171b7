//! The uniform entry the CLI and benchmark drivers use: pick a [`Kernel`], get its
//! [`Params`] (defaults or parsed from a `--size` string), [`Params::prepare`] the input
//! once, then per repetition [`Prepared::run`] (or `reset`, a timed `execute`, `verify`).
//!
//! Timing protocol: [`Prepared::reset`] restores whatever input the kernel mutates (the
//! heat grids, the sort array) so every repetition does identical work;
//! [`Prepared::execute`] runs the parallel kernel once inside the executor's pool and is
//! the only part meant to be timed; [`Prepared::verify`] compares the last result with
//! the serial reference computed once in [`Params::prepare`]. [`Prepared::run`] does
//! all three and times only `execute`.
//!
//! Footprints are declared by the kernels themselves (see each kernel's module); this
//! module declares none.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::exec::Executor;
use crate::fib::{self, FibParams};
use crate::heat::{self, HeatParams};
use crate::nqueens::{self, NqueensParams};
use crate::sort::{self, SortParams};

/// A benchmark kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Doubly recursive Fibonacci: scheduler overhead ([`crate::fib`]).
    Fib,
    /// N-queens solution count: irregular search tree ([`crate::nqueens`]).
    Nqueens,
    /// Five-point Jacobi heat diffusion: iterative, locality-sensitive ([`crate::heat`]).
    Heat,
    /// Fork-join mergesort: memory-bound divide and conquer ([`crate::sort`]).
    Sort,
}

impl Kernel {
    /// Every kernel, in the order reports list them.
    pub const ALL: [Kernel; 4] = [Kernel::Fib, Kernel::Nqueens, Kernel::Heat, Kernel::Sort];

    /// The kernel's name, as accepted by `FromStr` and written by `Display`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Fib => "fib",
            Kernel::Nqueens => "nqueens",
            Kernel::Heat => "heat",
            Kernel::Sort => "sort",
        }
    }

    /// The syntax of this kernel's `--size` string, for help texts.
    pub fn size_syntax(self) -> &'static str {
        match self {
            Kernel::Fib => fib::SYNTAX,
            Kernel::Nqueens => nqueens::SYNTAX,
            Kernel::Heat => heat::SYNTAX,
            Kernel::Sort => sort::SYNTAX,
        }
    }

    /// The default parameters of this kernel.
    pub fn default_params(self) -> Params {
        match self {
            Kernel::Fib => Params::Fib(FibParams::default()),
            Kernel::Nqueens => Params::Nqueens(NqueensParams::default()),
            Kernel::Heat => Params::Heat(HeatParams::default()),
            Kernel::Sort => Params::Sort(SortParams::default()),
        }
    }

    /// Parses a `--size` string for this kernel; unspecified options keep their defaults.
    ///
    /// fib `"30"` or `"30,cutoff=0"`; nqueens `"11"` or `"11,depth=3"`; heat
    /// `"1024x512"` or `"1024x512,leaf=8,iters=10"`; sort `"1048576"` or
    /// `"1048576,cutoff=4096"`. heat and sort also take `seed=S`. The error names the
    /// input, what is wrong with it and the expected syntax.
    pub fn parse_size(self, s: &str) -> Result<Params, KernelError> {
        let parsed = match self {
            Kernel::Fib => fib::parse(s).map(Params::Fib),
            Kernel::Nqueens => nqueens::parse(s).map(Params::Nqueens),
            Kernel::Heat => heat::parse(s).map(Params::Heat),
            Kernel::Sort => sort::parse(s).map(Params::Sort),
        };
        parsed.map_err(|reason| KernelError {
            kind: ErrorKind::BadSize {
                kernel: self,
                input: s.to_owned(),
                reason,
            },
        })
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kernel {
    type Err = KernelError;

    /// Parses a kernel name, ignoring ASCII case and surrounding blanks.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Kernel::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| KernelError {
                kind: ErrorKind::UnknownKernel {
                    input: s.to_owned(),
                },
            })
    }
}

/// The parameters of one kernel run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Params {
    /// Parameters of [`Kernel::Fib`].
    Fib(FibParams),
    /// Parameters of [`Kernel::Nqueens`].
    Nqueens(NqueensParams),
    /// Parameters of [`Kernel::Heat`].
    Heat(HeatParams),
    /// Parameters of [`Kernel::Sort`].
    Sort(SortParams),
}

impl Params {
    /// The kernel these parameters belong to.
    pub fn kernel(&self) -> Kernel {
        match self {
            Params::Fib(_) => Kernel::Fib,
            Params::Nqueens(_) => Kernel::Nqueens,
            Params::Heat(_) => Kernel::Heat,
            Params::Sort(_) => Kernel::Sort,
        }
    }

    /// Generates the input and computes the serial reference result, once, outside any
    /// timing. This can take as long as a serial run of the kernel.
    pub fn prepare(&self) -> Prepared {
        let state = match *self {
            Params::Fib(p) => State::Fib {
                p,
                expected: fib::reference(p.n),
                got: None,
            },
            Params::Nqueens(p) => State::Nqueens {
                p,
                expected: nqueens::reference(p.n),
                got: None,
            },
            Params::Heat(p) => {
                let init = heat::initial(&p);
                let expected = heat::reference(&p, &init);
                State::Heat {
                    p,
                    a: init.clone(),
                    b: init.clone(),
                    init,
                    expected,
                    ran: false,
                }
            }
            Params::Sort(p) => {
                let input = sort::input(&p);
                let expected = sort::reference(&input);
                State::Sort {
                    p,
                    data: input.clone(),
                    buf: vec![0; input.len()],
                    input,
                    expected,
                    ran: false,
                }
            }
        };
        Prepared {
            params: *self,
            state,
            fresh: true,
        }
    }
}

impl fmt::Display for Params {
    /// Writes the canonical size string, which [`Kernel::parse_size`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Params::Fib(p) => p.fmt(f),
            Params::Nqueens(p) => p.fmt(f),
            Params::Heat(p) => p.fmt(f),
            Params::Sort(p) => p.fmt(f),
        }
    }
}

/// A kernel with its input generated and its serial reference computed.
///
/// Use: `let mut pr = params.prepare();` then per repetition either
/// `let out = pr.run(&ex);` (resets, times the kernel alone, verifies), or
/// `pr.reset(); /* start clock */ pr.execute(&ex); /* stop clock */ let out = pr.verify();`.
#[derive(Debug)]
pub struct Prepared {
    params: Params,
    state: State,
    /// Whether the mutable input is in its initial state (no `execute` since `reset`).
    fresh: bool,
}

#[derive(Debug)]
enum State {
    Fib {
        p: FibParams,
        expected: u64,
        got: Option<u64>,
    },
    Nqueens {
        p: NqueensParams,
        expected: u64,
        got: Option<u64>,
    },
    Heat {
        p: HeatParams,
        init: Vec<f64>,
        a: Vec<f64>,
        b: Vec<f64>,
        expected: Vec<f64>,
        ran: bool,
    },
    Sort {
        p: SortParams,
        input: Vec<u64>,
        data: Vec<u64>,
        buf: Vec<u64>,
        expected: Vec<u64>,
        ran: bool,
    },
}

impl Prepared {
    /// The parameters this input was prepared for.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The kernel this input was prepared for.
    pub fn kernel(&self) -> Kernel {
        self.params.kernel()
    }

    /// Restores the input the kernel mutates (heat grids, sort array) to its initial
    /// state and forgets the last result. Not meant to be timed. Cheap no-op for fib and
    /// nqueens; a copy of the input for heat and sort.
    pub fn reset(&mut self) {
        match &mut self.state {
            State::Fib { got, .. } | State::Nqueens { got, .. } => *got = None,
            State::Heat { init, a, ran, .. } => {
                // `b` needs no reset: its boundary is never written and the first sweep
                // overwrites its whole interior before anything reads it.
                if !self.fresh {
                    a.copy_from_slice(init);
                }
                *ran = false;
            }
            State::Sort {
                input, data, ran, ..
            } => {
                if !self.fresh {
                    data.copy_from_slice(input);
                }
                *ran = false;
            }
        }
        self.fresh = true;
    }

    /// Runs the parallel kernel once inside `ex`'s pool and keeps its result for
    /// [`Prepared::verify`]. This is the part to time. Call [`Prepared::reset`] first
    /// for every repetition after the first: without it, heat continues from the last
    /// state and sort sorts sorted data, and `verify` then reports a failure.
    pub fn execute<E: Executor>(&mut self, ex: &E) {
        self.fresh = false;
        match &mut self.state {
            State::Fib { p, got, .. } => {
                let p = *p;
                *got = Some(ex.install(|| fib::fib(ex, p.n, p.cutoff)));
            }
            State::Nqueens { p, got, .. } => {
                let p = *p;
                *got = Some(ex.install(|| nqueens::count(ex, p.n, p.depth)));
            }
            State::Heat { p, a, b, ran, .. } => {
                let p = *p;
                ex.install(|| {
                    heat::solve(ex, &p, a, b);
                });
                *ran = true;
            }
            State::Sort {
                p, data, buf, ran, ..
            } => {
                let cutoff = p.cutoff;
                ex.install(|| sort::sort(ex, data, buf, cutoff));
                *ran = true;
            }
        }
    }

    /// Compares the result of the last [`Prepared::execute`] with the serial reference.
    /// Not verified if nothing ran since the last reset, or if a run followed another
    /// without a reset in between.
    pub fn verify(&self) -> Outcome {
        let missing = || {
            Outcome::fail(format!(
                "{}: no result to verify (run first)",
                self.kernel()
            ))
        };
        match &self.state {
            State::Fib { p, expected, got } => match got {
                Some(got) => fib::compare(p, *expected, *got),
                None => missing(),
            },
            State::Nqueens { p, expected, got } => match got {
                Some(got) => nqueens::compare(p, *expected, *got),
                None => missing(),
            },
            State::Heat {
                p,
                a,
                b,
                expected,
                ran,
                ..
            } => {
                if !ran {
                    return missing();
                }
                // `heat::solve` leaves the final state in `a` after an even number of
                // sweeps, in `b` after an odd number.
                let got = if p.iters % 2 == 0 { a } else { b };
                heat::compare(p, expected, got)
            }
            State::Sort {
                p,
                data,
                expected,
                ran,
                ..
            } => {
                if !ran {
                    return missing();
                }
                sort::compare(p, expected, data)
            }
        }
    }

    /// One repetition: [`Prepared::reset`] (untimed), [`Prepared::execute`] (timed: the
    /// `elapsed` of the outcome, including entering the executor's pool), then
    /// [`Prepared::verify`] (untimed).
    pub fn run<E: Executor>(&mut self, ex: &E) -> Outcome {
        self.reset();
        let start = Instant::now();
        self.execute(ex);
        let elapsed = start.elapsed();
        self.verify().timed(elapsed)
    }
}

/// The result of one verified kernel run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Whether the parallel result matched the serial reference.
    pub verified: bool,
    /// One line on what was compared, or on the first difference found.
    pub detail: String,
    /// Wall time of the parallel kernel alone (zero where the outcome was not timed,
    /// as from [`Prepared::verify`]).
    pub elapsed: Duration,
}

impl Outcome {
    pub(crate) fn pass(detail: String) -> Outcome {
        Outcome {
            verified: true,
            detail,
            elapsed: Duration::ZERO,
        }
    }

    pub(crate) fn fail(detail: String) -> Outcome {
        Outcome {
            verified: false,
            detail,
            elapsed: Duration::ZERO,
        }
    }

    pub(crate) fn timed(self, elapsed: Duration) -> Outcome {
        Outcome { elapsed, ..self }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.verified { "ok" } else { "FAILED" };
        write!(f, "{verdict}: {}", self.detail)
    }
}

/// A kernel name or `--size` string that could not be parsed.
///
/// The message names the input, what is wrong and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct KernelError {
    kind: ErrorKind,
}

impl KernelError {
    /// The string that failed to parse.
    pub fn input(&self) -> &str {
        match &self.kind {
            ErrorKind::UnknownKernel { input } | ErrorKind::BadSize { input, .. } => input,
        }
    }
}

/// The kernel names, comma-separated.
fn valid_names() -> String {
    Kernel::ALL.map(Kernel::name).join(", ")
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ErrorKind {
    #[error("unknown kernel {input:?}; valid kernels: {}", valid_names())]
    UnknownKernel { input: String },
    #[error(
        "invalid size {input:?} for kernel {kernel}: {reason}; expected {}",
        kernel.size_syntax()
    )]
    BadSize {
        kernel: Kernel,
        input: String,
        reason: String,
    },
}
