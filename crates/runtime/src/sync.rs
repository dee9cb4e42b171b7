//! The synchronisation primitives of the runtime's own protocols, from std normally and
//! from loom under `cfg(loom)`, so the loom models in `tests/` check the shipped code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicUsize};
/// The lock of the shared task queues (see `queue.rs`).
#[cfg(loom)]
pub(crate) use loom::sync::Mutex as QueueLock;
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};

/// The lock of the shared task queues (see `queue.rs`): parking_lot's, which spins
/// briefly before parking; std's parks at once, and two workers pushing and popping one
/// queue at every `join` then spent their time in futex calls.
#[cfg(not(loom))]
pub(crate) use parking_lot::Mutex as QueueLock;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

/// Locks a queue lock (parking_lot's cannot be poisoned; loom's mirrors std's).
#[cfg(not(loom))]
#[inline]
pub(crate) fn lock_queue<T>(mutex: &QueueLock<T>) -> parking_lot::MutexGuard<'_, T> {
    mutex.lock()
}

/// Locks a queue lock (parking_lot's cannot be poisoned; loom's mirrors std's).
#[cfg(loom)]
pub(crate) fn lock_queue<T>(mutex: &QueueLock<T>) -> MutexGuard<'_, T> {
    lock(mutex)
}

/// Locks `mutex`, ignoring poisoning: the runtime never panics while holding its locks
/// (every task runs under `catch_unwind`), so a poisoned lock still guards valid data.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
