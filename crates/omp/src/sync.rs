//! The atomics and locks of locus-omp's own waiting protocols (`wait.rs`, and the
//! hand-off between a team and its crew in `crew.rs`), from std normally and from loom
//! under `cfg(loom)`, so the loom models in `src/tests/` check the shipped code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicU64, AtomicUsize};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicU64, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex};
