//! The primitives of `footprint`'s listener hand-off: std's normally, loom's when this
//! crate's own tests run under `--cfg loom`, so the models in `src/tests/` check the
//! shipped code.
//!
//! The switch is `all(loom, test)`, not `loom` alone as in the runtime: the runtime's
//! and locus-omp's loom builds compile this crate as a dependency (no `test` there), and
//! the process-wide listener must then stay a `static` of std's primitives, which loom's
//! cannot be (they have no `const fn new`).

#[cfg(all(loom, test))]
pub(crate) use loom::sync::{
    atomic::{AtomicUsize, Ordering},
    RwLock,
};
#[cfg(not(all(loom, test)))]
pub(crate) use std::sync::{
    atomic::{AtomicUsize, Ordering},
    RwLock,
};
