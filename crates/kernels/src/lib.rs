//! Benchmark kernels for locus, each with a deterministic input, a serial reference and
//! a verifier, generic over the [`Executor`] so the same code runs under locus, rayon
//! or a single thread.
//!
//! Kernels: [`fib`] (scheduler overhead), [`nqueens`] (irregular search), [`heat`]
//! (iterative stencil with row locality), [`sort`] (memory-bound divide and conquer).
//! Each module documents what it computes and the footprint its leaf tasks declare
//! through [`locus::footprint`] (DESIGN.md, "The words").
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
pub mod fib;
pub mod heat;
mod kernel;
pub mod nqueens;
pub mod rng;
mod size;
pub mod sort;

pub use exec::{Executor, Locus, Rayon, Serial};
pub use kernel::{Kernel, KernelError, Outcome, Params, Prepared};
