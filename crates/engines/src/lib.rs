//! The two engines together: what the runtime and the simulator must agree on, tested.
//!
//! The crate's tests run the real kernels (recorded with `locus_kernels::record`) in
//! both engines and in the profiler; they live here because the simulator and the
//! profiler depend on neither the runtime nor the kernels (see `locus_task`'s
//! layering). Not published.

#![deny(missing_docs)]
