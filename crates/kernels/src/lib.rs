//! Benchmark kernels for locus, each with a deterministic input, a serial reference and
//! a verifier, generic over the [`Executor`] so the same code runs under locus, rayon
//! or a single thread.
//!
//! Kernels: [`fib`] (scheduler overhead), [`nqueens`] (irregular search), [`heat`]
//! (iterative stencil with row locality), [`sort`] (memory-bound divide and conquer),
//! then the benchmarks of the CATS and CAB papers: [`heat_ub`], [`sor`], [`sor_ub`],
//! [`ge`], [`ge_ub`] (memory-bound, balanced and unbalanced task trees, see [`split`]),
//! [`mergesort`] (with parallel merges), and the CPU-bound [`mandelbrot`], [`fft`] and
//! [`knapsack`]. Each module documents what it computes and the footprint its leaf tasks
//! declare through [`locus::footprint`] (DESIGN.md, "The words").
//!
//! Drivers use the uniform entry: [`Kernel`] → [`Params`] → [`Prepared`] → [`Outcome`].
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

pub mod exec;
pub mod fft;
pub mod fib;
pub mod ge;
pub mod ge_ub;
mod grid;
pub mod heat;
pub mod heat_ub;
mod kernel;
pub mod knapsack;
pub mod mandelbrot;
pub mod mergesort;
pub mod nqueens;
mod prepared;
pub mod rng;
mod size;
pub mod sor;
pub mod sor_ub;
pub mod sort;
pub mod split;

pub use exec::{Executor, Locus, Rayon, Serial};
pub use kernel::{Kernel, KernelError, Params};
pub use prepared::{Outcome, Prepared};
