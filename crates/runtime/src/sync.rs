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

/// A slot one thread writes and others read by a protocol that keeps the two apart
/// (`frames.rs`): std's `UnsafeCell` normally, loom's under `cfg(loom)`, where a read
/// racing a write fails the model.
pub(crate) struct SlotCell<T> {
    #[cfg(not(loom))]
    cell: std::cell::UnsafeCell<std::mem::MaybeUninit<T>>,
    #[cfg(loom)]
    cell: loom::cell::UnsafeCell<std::mem::MaybeUninit<T>>,
}

// SAFETY: the value moves between threads (it is `Send`); the users of `read` and
// `write` guarantee that the two never race (see their safety contracts).
unsafe impl<T: Send> Sync for SlotCell<T> {}

impl<T: Copy> SlotCell<T> {
    pub(crate) fn new() -> SlotCell<T> {
        SlotCell {
            #[cfg(not(loom))]
            cell: std::cell::UnsafeCell::new(std::mem::MaybeUninit::uninit()),
            #[cfg(loom)]
            cell: loom::cell::UnsafeCell::new(std::mem::MaybeUninit::uninit()),
        }
    }

    /// # Safety
    /// No other thread reads or writes the slot meanwhile.
    #[inline]
    pub(crate) unsafe fn write(&self, value: T) {
        #[cfg(not(loom))]
        // SAFETY: exclusive access, from the caller.
        unsafe {
            (*self.cell.get()).write(value);
        }
        #[cfg(loom)]
        // SAFETY: as above.
        self.cell.with_mut(|p| unsafe {
            (*p).write(value);
        });
    }

    /// # Safety
    /// The slot was written, that write happens before this read, and no thread writes
    /// it meanwhile.
    #[inline]
    pub(crate) unsafe fn read(&self) -> T {
        #[cfg(not(loom))]
        // SAFETY: initialised and not written concurrently, from the caller.
        unsafe {
            (*self.cell.get()).assume_init()
        }
        #[cfg(loom)]
        // SAFETY: as above.
        self.cell.with(|p| unsafe { (*p).assume_init() })
    }
}
