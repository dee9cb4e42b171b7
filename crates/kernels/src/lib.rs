//! Benchmark kernels for locus, each with a deterministic input, a serial reference and
//! a verifier, generic over the [`Executor`] so the same code runs under locus, rayon
//! or a single thread.
//!
//! Kernels: [`fib`] (scheduler overhead), [`nqueens`] (irregular search), [`heat`]
//! (iterative stencil with row locality), [`sort`] (memory-bound divide and conquer),
//! then the benchmarks of the CATS and CAB papers: [`heat_ub`], [`sor`], [`sor_ub`],
//! [`ge`], [`ge_ub`] (memory-bound, balanced and unbalanced task trees, see [`split`]),
//! [`mergesort`] (with parallel merges), and the CPU-bound [`mandelbrot`], [`fft`] and
//! [`knapsack`]; and [`heat_moving`], heat with a band of rows computed several times
//! that moves between sweeps, so a subtree's work changes from one iteration to the
//! next. Then the benchmarks of the affinity-graph paper, each a flat parallel loop
//! ([`Executor::for_range`]) rerun every iteration: [`spmv`] (sparse matrix-vector
//! product by rows and by columns), [`spmm`] (sparse `A A^T`), [`radix`] (partitioned
//! MSD radix sort) and [`irreg`] (an edge loop over an irregular mesh), over the sparse
//! matrices of [`sparse`] (generated, or read by the Matrix Market reader [`mtx`]).
//! Last, kernels written with parallel iterators ([`iters`]), one body compiled against
//! both `rayon::prelude` and `locus::prelude`: heat-iter and spmv-iter (heat-loop and
//! spmv-crs as iterator chains) and [`mapreduce`] (`fold` then `reduce`).
//! Each module documents what it computes and the footprint its leaf tasks
//! declare through [`locus::footprint`] (docs/design.md, "The words").
//!
//! Each module also documents the work its tasks declare ([`locus::footprint::work`]):
//! every task declares about the instructions it executes itself, so the simulator can
//! turn them into compute time and the `declared` counter source into instructions.
//! Leaves declare per element (cell, entry, point, pixel, search node) with a named
//! constant in their module, estimated from the inner loop as x86-64 release builds
//! compile it (baseline SSE2, so two `f64` lanes) and checked against callgrind's
//! instruction counts under [`Serial`]: at the default sizes the declared totals are
//! within 8% of what callgrind counts (fib aside, whose inner calls are left out).
//! Data-dependent work is counted exactly (mandelbrot's escape counts, the nodes of
//! nqueens and knapsack) or in closed form (fib's serial calls), and only while a
//! listener is installed where that costs more than a few instructions.
//!
//! A task that only splits and joins declares nothing, in every kernel: its own
//! instructions (20 to 50 under `Serial`, by callgrind) are few beside the join's, and
//! even a check costs fib, whose inner calls are such tasks, 5% of its time. Where a
//! split does more, it declares that part: mergesort's binary searches, and the search
//! nodes of nqueens and knapsack, which declare their nodes wherever they are. Results
//! and task trees are the same whether anyone listens or not.
//!
//! Drivers use the uniform entry: [`Kernel`] → [`Params`] → [`Prepared`] → [`Outcome`].
//! Before preparing, [`Params::estimate`] gives what an input costs in memory, work and
//! tasks, so a driver can refuse one this machine cannot hold ([`available_memory`]).
//!
//! ```
//! use locus_kernels::{Kernel, Serial};
//!
//! let params = Kernel::Sort.parse_size("10000,cutoff=512").unwrap();
//! let mut prepared = params.prepare();
//! for _ in 0..2 {
//!     let outcome = prepared.run(&Serial);
//!     assert!(outcome.verified, "{outcome}");
//! }
//! ```
#![deny(missing_docs)]

mod chunks;
mod estimate;
pub mod exec;
pub mod fft;
pub mod fib;
pub mod ge;
pub mod ge_ub;
mod grid;
pub mod heat;
pub mod heat_moving;
pub mod heat_ub;
pub mod irreg;
pub mod iters;
mod kernel;
pub mod knapsack;
pub mod mandelbrot;
pub mod mapreduce;
pub mod mergesort;
pub mod mtx;
pub mod nqueens;
mod prepared;
pub mod radix;
pub mod record;
pub mod rng;
mod size;
pub mod sor;
pub mod sor_ub;
pub mod sort;
pub mod sparse;
pub mod split;
pub mod spmm;
pub mod spmv;

pub use estimate::{available_memory, Available, Estimate, MAX_WORK, SLACK_BYTES};
pub use exec::{Executor, Iterators, Locus, Rayon, Serial};
pub use kernel::{Kernel, KernelError, Params};
pub use prepared::{Outcome, Prepared};
pub use record::{record, RecordError, Recorder};
pub use size::{check_iters, MAX_ITERS};
