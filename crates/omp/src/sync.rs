//! The atomics and locks of locus-omp's own waiting protocols (`wait.rs`, and the
//! hand-off between a team and its crew in `crew.rs`), from std normally and from loom
//! under `cfg(loom)`, so the loom models in `src/tests/` check the shipped code.

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex};

/// `std::cell::UnsafeCell` with loom's interface (`with`, `with_mut`), so that the
/// shipped code is the code loom checks.
#[cfg(not(loom))]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Calls `f` with a pointer to read the value through.
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Calls `f` with a pointer to write the value through.
    #[inline]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}
