//! [`Prepared`]: a kernel's input and serial reference, and the timing protocol over
//! them (see [`crate::Kernel`]'s module for the whole entry).
//!
//! Timing protocol: [`Prepared::reset`] restores whatever input the kernel mutates (the
//! grids, arrays and matrices) so every repetition does identical work;
//! [`Prepared::execute`] runs the parallel kernel once inside the executor's pool and is
//! the only part meant to be timed; [`Prepared::verify`] compares the last result with
//! the serial reference computed once in [`Params::prepare`]. [`Prepared::run`] does
//! all three and times only `execute`.
//!
//! Footprints are declared by the kernels themselves (see each kernel's module); this
//! module declares none.

use std::fmt;
use std::panic;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::exec::Executor;
use crate::fft::{self, Complex, FftParams};
use crate::fib::{self, FibParams};
use crate::ge::{self, GeParams};
use crate::heat::{self, HeatParams};
use crate::heat_moving::{self, HeatMovingParams};
use crate::irreg::IrregRun;
use crate::knapsack::{self, Instance, KnapsackParams};
use crate::mandelbrot::{self, MandelbrotParams};
use crate::mapreduce::MapReduceRun;
use crate::mergesort;
use crate::nqueens::{self, NqueensParams};
use crate::radix::RadixRun;
use crate::sor::{self, SorParams};
use crate::sort::{self, SortParams};
use crate::split::Split;
use crate::spmm::SpmmRun;
use crate::spmv::{CcsRun, CrsForm, CrsRun};
use crate::{Kernel, Params};

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
    /// heat and heat-ub.
    Heat {
        split: Split,
        p: HeatParams,
        init: Vec<f64>,
        a: Vec<f64>,
        b: Vec<f64>,
        expected: Reference<Vec<f64>>,
        ran: bool,
    },
    /// heat-iter: heat-loop's grids, first touched by each run, written with parallel
    /// iterators.
    HeatIter {
        p: HeatParams,
        init: Vec<f64>,
        a: Vec<f64>,
        b: Vec<f64>,
        expected: Reference<Vec<f64>>,
        ran: bool,
    },
    /// heat-moving: heat's grids and reference.
    HeatMoving {
        p: HeatMovingParams,
        init: Vec<f64>,
        a: Vec<f64>,
        b: Vec<f64>,
        expected: Reference<Vec<f64>>,
        ran: bool,
    },
    /// sort (serial merges) and mergesort (parallel merges).
    Sort {
        parallel_merge: bool,
        p: SortParams,
        input: Vec<u64>,
        data: Vec<u64>,
        buf: Vec<u64>,
        expected: Reference<Vec<u64>>,
        ran: bool,
    },
    /// sor and sor-ub: the colour planes, red then black.
    Sor {
        split: Split,
        p: SorParams,
        init: [Vec<f64>; 2],
        planes: [Vec<f64>; 2],
        /// The reference's final interleaved grid.
        expected: Reference<Vec<f64>>,
        ran: bool,
    },
    /// ge and ge-ub.
    Ge {
        split: Split,
        p: GeParams,
        input: Vec<f64>,
        a: Vec<f64>,
        expected: Reference<Vec<f64>>,
        ran: bool,
    },
    Mandelbrot {
        p: MandelbrotParams,
        image: Vec<u32>,
        expected: Reference<Vec<u32>>,
        ran: bool,
    },
    Fft {
        p: FftParams,
        input: Vec<Complex>,
        tw: Vec<Complex>,
        data: Vec<Complex>,
        tmp: Vec<Complex>,
        expected: Reference<Vec<Complex>>,
        ran: bool,
    },
    Knapsack {
        p: KnapsackParams,
        inst: Instance,
        expected: u64,
        got: Option<u64>,
    },
    SpmvCrs(CrsRun),
    SpmvCcs(CcsRun),
    Spmm(SpmmRun),
    Radix(RadixRun),
    Irreg(IrregRun),
    MapReduce(MapReduceRun),
}

impl State {
    fn heat(split: Split, p: HeatParams, overlap: bool) -> State {
        let init = heat::initial(&p);
        let expected = Reference::new(overlap, move || heat::reference(&p, &heat::initial(&p)));
        let (a, b) = match split {
            // heat-loop's run first touches its grids itself (`heat::first_touch`):
            // zeroed allocations leave their pages untouched until then.
            Split::Loop => (vec![0.0; init.len()], vec![0.0; init.len()]),
            Split::Balanced | Split::Unbalanced => (init.clone(), init.clone()),
        };
        State::Heat {
            split,
            p,
            a,
            b,
            init,
            expected,
            ran: false,
        }
    }

    fn heat_iter(p: HeatParams, overlap: bool) -> State {
        let init = heat::initial(&p);
        let expected = Reference::new(overlap, move || heat::reference(&p, &heat::initial(&p)));
        // As heat-loop's: each run first touches the grids itself.
        State::HeatIter {
            p,
            a: vec![0.0; init.len()],
            b: vec![0.0; init.len()],
            init,
            expected,
            ran: false,
        }
    }

    fn heat_moving(p: HeatMovingParams, overlap: bool) -> State {
        let init = heat_moving::initial(&p);
        let expected = Reference::new(overlap, move || {
            heat_moving::reference(&p, &heat_moving::initial(&p))
        });
        State::HeatMoving {
            p,
            a: init.clone(),
            b: init.clone(),
            init,
            expected,
            ran: false,
        }
    }

    fn sort(parallel_merge: bool, p: SortParams, overlap: bool) -> State {
        let input = sort::input(&p);
        let expected = Reference::new(overlap, move || sort::reference(&sort::input(&p)));
        State::Sort {
            parallel_merge,
            p,
            data: input.clone(),
            buf: vec![0; input.len()],
            input,
            expected,
            ran: false,
        }
    }

    fn sor(split: Split, p: SorParams, overlap: bool) -> State {
        let grid = sor::initial(&p);
        let expected = Reference::new(overlap, move || sor::reference(&p, &sor::initial(&p)));
        let init = sor::planes(&p, &grid);
        State::Sor {
            split,
            p,
            planes: init.clone(),
            init,
            expected,
            ran: false,
        }
    }

    fn ge(split: Split, p: GeParams, overlap: bool) -> State {
        let input = ge::input(&p);
        let expected = Reference::new(overlap, move || ge::reference(&p, &ge::input(&p)));
        State::Ge {
            split,
            p,
            a: input.clone(),
            input,
            expected,
            ran: false,
        }
    }
}

impl Prepared {
    /// Generates the input of `params` and computes its serial reference result; with
    /// `overlap`, the reference of the kernels that take an input is computed on a
    /// thread of its own, which the first [`Prepared::verify`] waits for.
    pub(crate) fn new(params: Params, overlap: bool) -> Prepared {
        let state = match params {
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
            Params::Heat(p) => State::heat(Split::Balanced, p, overlap),
            Params::HeatUb(p) => State::heat(Split::Unbalanced, p, overlap),
            Params::HeatLoop(p) => State::heat(Split::Loop, p, overlap),
            Params::HeatIter(p) => State::heat_iter(p, overlap),
            Params::HeatMoving(p) => State::heat_moving(p, overlap),
            Params::Sort(p) => State::sort(false, p, overlap),
            Params::Mergesort(p) => State::sort(true, p, overlap),
            Params::Sor(p) => State::sor(Split::Balanced, p, overlap),
            Params::SorUb(p) => State::sor(Split::Unbalanced, p, overlap),
            Params::Ge(p) => State::ge(Split::Balanced, p, overlap),
            Params::GeUb(p) => State::ge(Split::Unbalanced, p, overlap),
            Params::Mandelbrot(p) => State::Mandelbrot {
                p,
                image: vec![0; p.rows * p.cols],
                expected: Reference::new(overlap, move || mandelbrot::reference(&p)),
                ran: false,
            },
            Params::Fft(p) => {
                let input = fft::input(&p);
                let tw = fft::twiddles(p.n);
                let expected = Reference::new(overlap, move || {
                    fft::reference(&fft::input(&p), &fft::twiddles(p.n))
                });
                State::Fft {
                    p,
                    data: input.clone(),
                    tmp: vec![Complex::default(); p.n],
                    input,
                    tw,
                    expected,
                    ran: false,
                }
            }
            Params::Knapsack(p) => {
                let inst = knapsack::instance(&p);
                State::Knapsack {
                    p,
                    expected: knapsack::reference(&inst),
                    inst,
                    got: None,
                }
            }
            Params::SpmvCrs(ref p) => State::SpmvCrs(CrsRun::new(CrsForm::Loop, p)),
            Params::SpmvIter(ref p) => State::SpmvCrs(CrsRun::new(CrsForm::Iter, p)),
            Params::SpmvCcs(ref p) => State::SpmvCcs(CcsRun::new(p)),
            Params::Spmm(ref p) => State::Spmm(SpmmRun::new(p)),
            Params::Radix(ref p) => State::Radix(RadixRun::new(p)),
            Params::Irreg(ref p) => State::Irreg(IrregRun::new(p)),
            Params::MapReduce(ref p) => State::MapReduce(MapReduceRun::new(p)),
        };
        Prepared {
            params,
            state,
            fresh: true,
        }
    }

    /// The parameters this input was prepared for.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The kernel this input was prepared for.
    pub fn kernel(&self) -> Kernel {
        self.params.kernel()
    }

    /// Restores the input the kernel mutates (heat grids, sort array, sor planes, ge
    /// matrix, fft data) to its initial state and forgets the last result. Not meant to
    /// be timed. Cheap for fib, nqueens and knapsack; a copy of the input for the others
    /// (mandelbrot clears its image, so a run that wrote nothing cannot pass).
    pub fn reset(&mut self) {
        let dirty = !self.fresh;
        match &mut self.state {
            State::Fib { got, .. } | State::Nqueens { got, .. } | State::Knapsack { got, .. } => {
                *got = None;
            }
            // The affinity-graph kernels clear their outputs (irreg restores its nodes).
            State::SpmvCrs(run) => run.reset(),
            State::SpmvCcs(run) => run.reset(),
            State::Spmm(run) => run.reset(),
            State::Radix(run) => run.reset(),
            State::Irreg(run) => run.reset(),
            State::MapReduce(run) => run.reset(),
            State::Heat {
                split: Split::Loop,
                ran,
                ..
            }
            | State::HeatIter { ran, .. } => {
                // heat-loop's and heat-iter's runs start by copying the initial grid into
                // both grids.
                *ran = false;
            }
            State::Heat { init, a, ran, .. } | State::HeatMoving { init, a, ran, .. } => {
                // `b` needs no reset: its boundary is never written and the first sweep
                // overwrites its whole interior before anything reads it.
                if dirty {
                    a.copy_from_slice(init);
                }
                *ran = false;
            }
            State::Sort {
                input, data, ran, ..
            } => {
                if dirty {
                    data.copy_from_slice(input);
                }
                *ran = false;
            }
            State::Sor {
                init, planes, ran, ..
            } => {
                if dirty {
                    for (plane, init) in planes.iter_mut().zip(init.iter()) {
                        plane.copy_from_slice(init);
                    }
                }
                *ran = false;
            }
            State::Ge { input, a, ran, .. } => {
                if dirty {
                    a.copy_from_slice(input);
                }
                *ran = false;
            }
            State::Mandelbrot { image, ran, .. } => {
                if dirty {
                    image.fill(0);
                }
                *ran = false;
            }
            State::Fft {
                input, data, ran, ..
            } => {
                // `tmp` is scratch: every level writes before it reads.
                if dirty {
                    data.copy_from_slice(input);
                }
                *ran = false;
            }
        }
        self.fresh = true;
    }

    /// Runs the parallel kernel once inside `ex`'s pool and keeps its result for
    /// [`Prepared::verify`]. This is the part to time. Call [`Prepared::reset`] first
    /// for every repetition after the first: without it, the grid kernels continue from
    /// the last state, ge and fft transform their own output, sort sorts sorted data,
    /// and `verify` then reports a failure (except for sorting, where only the time is
    /// off).
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
            State::Heat {
                split,
                p,
                init,
                a,
                b,
                ran,
                ..
            } => {
                let (split, p) = (*split, *p);
                ex.install(|| {
                    if split == Split::Loop {
                        heat::first_touch(ex, &p, init, a, b);
                    }
                    heat::solve_split(ex, split, &p, a, b);
                });
                *ran = true;
            }
            State::HeatIter {
                p, init, a, b, ran, ..
            } => {
                let p = *p;
                ex.install(|| {
                    crate::iters::heat(ex, &p, init, a, b);
                });
                *ran = true;
            }
            State::HeatMoving { p, a, b, ran, .. } => {
                let p = *p;
                ex.install(|| {
                    heat_moving::solve(ex, &p, a, b);
                });
                *ran = true;
            }
            State::Sort {
                parallel_merge,
                p,
                data,
                buf,
                ran,
                ..
            } => {
                let cutoff = p.cutoff;
                if *parallel_merge {
                    ex.install(|| mergesort::sort(ex, data, buf, cutoff));
                } else {
                    ex.install(|| sort::sort(ex, data, buf, cutoff));
                }
                *ran = true;
            }
            State::Sor {
                split,
                p,
                planes,
                ran,
                ..
            } => {
                let (split, p) = (*split, *p);
                let [red, black] = planes;
                ex.install(|| sor::solve_split(ex, split, &p, red, black));
                *ran = true;
            }
            State::Ge {
                split, p, a, ran, ..
            } => {
                let (split, p) = (*split, *p);
                ex.install(|| ge::solve_split(ex, split, &p, a));
                *ran = true;
            }
            State::Mandelbrot { p, image, ran, .. } => {
                let p = *p;
                ex.install(|| mandelbrot::render(ex, &p, image));
                *ran = true;
            }
            State::Fft {
                p,
                tw,
                data,
                tmp,
                ran,
                ..
            } => {
                let cutoff = p.cutoff;
                let tw: &[Complex] = tw;
                ex.install(|| fft::fft(ex, data, tmp, tw, cutoff));
                *ran = true;
            }
            State::Knapsack { p, inst, got, .. } => {
                let depth = p.depth;
                let inst: &Instance = inst;
                *got = Some(ex.install(|| knapsack::best(ex, inst, depth)));
            }
            State::SpmvCrs(run) => run.execute(ex),
            State::SpmvCcs(run) => run.execute(ex),
            State::Spmm(run) => run.execute(ex),
            State::Radix(run) => run.execute(ex),
            State::Irreg(run) => run.execute(ex),
            State::MapReduce(run) => run.execute(ex),
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
            State::SpmvCrs(run) => run.verify().unwrap_or_else(missing),
            State::SpmvCcs(run) => run.verify().unwrap_or_else(missing),
            State::Spmm(run) => run.verify().unwrap_or_else(missing),
            State::Radix(run) => run.verify().unwrap_or_else(missing),
            State::Irreg(run) => run.verify().unwrap_or_else(missing),
            State::MapReduce(run) => run.verify().unwrap_or_else(missing),
            State::Fib { p, expected, got } => match got {
                Some(got) => fib::compare(p, *expected, *got),
                None => missing(),
            },
            State::Nqueens { p, expected, got } => match got {
                Some(got) => nqueens::compare(p, *expected, *got),
                None => missing(),
            },
            State::Knapsack {
                p,
                inst,
                expected,
                got,
            } => match got {
                Some(got) => knapsack::compare(p, inst, *expected, *got),
                None => missing(),
            },
            State::Heat {
                split,
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
                // `heat::solve_split` leaves the final state in `a` after an even number
                // of sweeps, in `b` after an odd number.
                let got = if p.iters % 2 == 0 { a } else { b };
                heat::compare(heat::split_name(*split), p, expected.get(), got)
            }
            State::HeatIter {
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
                // As for heat: `a` after an even number of sweeps, `b` after an odd one.
                let got = if p.iters % 2 == 0 { a } else { b };
                heat::compare("heat-iter", p, expected.get(), got)
            }
            State::HeatMoving {
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
                // As for heat: `a` after an even number of sweeps, `b` after an odd one.
                let got = if p.heat.iters % 2 == 0 { a } else { b };
                heat_moving::compare(p, expected.get(), got)
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
                sort::compare(self.kernel().name(), p, expected.get(), data)
            }
            State::Sor {
                split,
                p,
                planes,
                expected,
                ran,
                ..
            } => {
                if !ran {
                    return missing();
                }
                let got = sor::interleave(p, &planes[0], &planes[1]);
                sor::compare(sor::split_name(*split), p, expected.get(), &got)
            }
            State::Ge {
                split,
                p,
                input,
                a,
                expected,
                ran,
            } => {
                if !ran {
                    return missing();
                }
                ge::compare(ge::split_name(*split), p, input, expected.get(), a)
            }
            State::Mandelbrot {
                p,
                image,
                expected,
                ran,
            } => {
                if !ran {
                    return missing();
                }
                mandelbrot::compare(p, expected.get(), image)
            }
            State::Fft {
                p,
                data,
                expected,
                ran,
                ..
            } => {
                if !ran {
                    return missing();
                }
                fft::compare(p, expected.get(), data)
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

/// A kernel's serial reference result: computed at once, or on a thread of its own
/// that the first [`Reference::get`] waits for.
///
/// The thread computes it from its own copy of the input, generated again from the
/// parameters (the generators are deterministic), so the caller keeps the input it
/// generated and nothing is shared. A panic of the reference reaches the caller of
/// [`Reference::get`]; where no thread can be started, the reference is computed at
/// once. A reference dropped before anyone asked for it (a run that failed first) is
/// left to finish on its thread, unjoined.
struct Reference<T> {
    value: OnceLock<T>,
    pending: Mutex<Option<JoinHandle<T>>>,
}

impl<T: Send + 'static> Reference<T> {
    fn new<F: FnOnce() -> T + Send + 'static>(overlap: bool, compute: F) -> Reference<T> {
        let reference = Reference {
            value: OnceLock::new(),
            pending: Mutex::new(None),
        };
        let compute = if overlap {
            // The thread gets the closure once it has started, so that the closure is
            // still here to run where no thread can be started.
            let (tx, rx) = std::sync::mpsc::channel::<F>();
            let spawned = thread::Builder::new()
                .name("locus-reference".into())
                .spawn(move || {
                    let compute = rx.recv().expect("the closure is sent before the join");
                    compute()
                });
            match spawned {
                Ok(handle) => {
                    // The thread holds the receiver until it has the closure; should it
                    // be gone, its join reports why.
                    let _ = tx.send(compute);
                    *reference
                        .pending
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = Some(handle);
                    return reference;
                }
                Err(_) => compute,
            }
        } else {
            compute
        };
        let _ = reference.value.set(compute());
        reference
    }

    /// The reference, waiting for its thread the first time.
    fn get(&self) -> &T {
        self.value.get_or_init(|| {
            let handle = self
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .expect("a reference is either computed or pending");
            handle
                .join()
                .unwrap_or_else(|panic| panic::resume_unwind(panic))
        })
    }
}

impl<T: fmt::Debug> fmt::Debug for Reference<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value.get() {
            Some(value) => value.fmt(f),
            None => f.write_str("(being computed)"),
        }
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

/// A kernel's input and output, made once and run as often as asked: the
/// affinity-graph kernels' `*Run` types, which [`Prepared`] holds and each kernel's
/// `verify` runs once through [`timed_run`].
pub(crate) trait Run {
    /// Clears the output (and restores any input the run updates), so a run that writes
    /// nothing cannot pass.
    fn reset(&mut self);

    /// Runs the kernel inside `ex`'s pool.
    fn execute<E: Executor>(&mut self, ex: &E);

    /// The check of the last run; `None` if nothing ran since the last reset.
    fn verify(&self) -> Option<Outcome>;
}

/// Runs `run` once on `ex`, timed, and checks it.
pub(crate) fn timed_run<E: Executor>(mut run: impl Run, ex: &E) -> Outcome {
    let start = Instant::now();
    run.execute(ex);
    let elapsed = start.elapsed();
    run.verify().expect("it ran").timed(elapsed)
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.verified { "ok" } else { "FAILED" };
        write!(f, "{verdict}: {}", self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Serial;

    #[test]
    fn an_overlapped_reference_verifies_as_the_one_computed_at_once() {
        for spec in [
            "heat 64x32,leaf=4,iters=3",
            "heat-moving 64x32,leaf=4,iters=3",
            "sort 4096,cutoff=256",
            "sor 64x32,leaf=4,iters=3",
            "ge 32,leaf=4",
            "fft 1024,cutoff=64",
            "mandelbrot 32x32",
        ] {
            let (kernel, size) = spec.split_once(' ').expect("kernel and size");
            let kernel: Kernel = kernel.parse().expect("a kernel");
            let params = kernel.parse_size(size).expect("a valid size");
            let (mut at_once, mut overlapped) = (params.prepare(), params.prepare_overlapped());
            let (a, b) = (at_once.run(&Serial), overlapped.run(&Serial));
            assert!(a.verified && b.verified, "{spec}: {a} / {b}");
            assert_eq!(a.detail, b.detail, "{spec}");
        }
    }

    #[test]
    fn a_reference_that_panics_reaches_the_caller_of_get() {
        let reference: Reference<u64> = Reference::new(true, || panic!("no reference"));
        let caught = panic::catch_unwind(panic::AssertUnwindSafe(|| *reference.get()));
        let payload = caught.expect_err("the thread's panic is resumed");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"no reference"));
    }

    #[test]
    fn a_reference_is_computed_once_and_kept() {
        let reference = Reference::new(true, || vec![1, 2, 3]);
        assert_eq!(reference.get(), &[1, 2, 3]);
        assert_eq!(reference.get(), &[1, 2, 3]);
        assert_eq!(format!("{reference:?}"), "[1, 2, 3]");
        let at_once = Reference::new(false, || 7);
        assert_eq!(format!("{at_once:?}"), "7");
    }
}
