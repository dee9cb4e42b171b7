//! Latches: one-shot signals a waiting thread polls or blocks on.
//!
//! - [`CoreLatch`]: the flag itself. `set` stores with `SeqCst` (it is half of the
//!   Dekker handshake of `sleep.rs`, and its release half publishes the job's result);
//!   `probe` loads with `Acquire`, pairing with that store, so a waiter that sees the
//!   latch set also sees the result.
//! - [`WorkerLatch`]: a `CoreLatch` waited on by a worker of a pool, which keeps working
//!   while it waits and may sleep; setting it wakes that worker. Only for jobs of the
//!   waiter's own pool: their setter, a worker of that pool, keeps the pool alive.
//! - [`CrossLatch`]: the same for a worker waiting on a job of *another* pool (see
//!   `Registry::in_worker_cross`). It holds the waiter's pool ([`HasSleep`]) alive
//!   itself: the setter runs in the other pool, and once the store is visible the waiter
//!   may return, and its pool be dropped, before the setter's wake-up is through.
//! - [`CountLatch`]: set when a counter falls to zero (a scope's outstanding spawns).
//! - [`LockLatch`]: a mutex and condition variable, for threads outside the pool.
//!
//! A latch usually lives on the waiter's stack, which the waiter may free as soon as it
//! sees the latch set. So `set` copies everything it needs before the store and touches
//! nothing of the latch after it; that is why `Latch::set` takes a raw pointer.

use crate::sleep::Sleep;
use crate::sync::{lock, AtomicBool, AtomicUsize, Condvar, Mutex};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Something that can be set once.
pub(crate) trait Latch {
    /// Sets the latch and wakes its waiter.
    ///
    /// # Safety
    /// `this` must point to a live latch. The latch may be freed by its waiter as soon as
    /// the store that sets it is visible, so callers must not touch it afterwards.
    unsafe fn set(this: *const Self);
}

/// The flag of a latch.
#[derive(Debug, Default)]
pub(crate) struct CoreLatch {
    set: AtomicBool,
}

impl CoreLatch {
    pub(crate) fn new() -> CoreLatch {
        CoreLatch {
            set: AtomicBool::new(false),
        }
    }

    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Sets the flag. A raw pointer rather than `&self`: the waiter may free the latch as
    /// soon as the store is visible, while a `&self` argument would still be live.
    ///
    /// # Safety
    /// `this` must point to a live latch.
    #[inline]
    unsafe fn store(this: *const Self) {
        // SAFETY: forwarded from the caller.
        unsafe { (*this).set.store(true, Ordering::SeqCst) };
    }
}

/// A latch that worker `owner` of a pool waits on while it keeps working.
#[derive(Debug)]
pub(crate) struct WorkerLatch {
    core: CoreLatch,
    /// The owner's pool's sleep state. A pointer rather than a borrow because the pool
    /// outlives every latch of its workers (they hold it alive), which no lifetime here
    /// can say.
    sleep: *const Sleep,
    owner: usize,
}

// SAFETY: the fields are an atomic, a pointer to a `Sync` value that outlives the latch
// (see `sleep`), and a plain index; setting and probing are safe from any thread.
unsafe impl Send for WorkerLatch {}
// SAFETY: as above.
unsafe impl Sync for WorkerLatch {}

impl WorkerLatch {
    pub(crate) fn new(sleep: &Sleep, owner: usize) -> WorkerLatch {
        WorkerLatch {
            core: CoreLatch::new(),
            sleep,
            owner,
        }
    }

    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.core.probe()
    }
}

impl Latch for WorkerLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: the caller guarantees `this` is live until the store below; we copy the
        // fields we need first.
        let (sleep, owner) = unsafe { ((*this).sleep, (*this).owner) };
        // SAFETY: as above, `this` is live here.
        unsafe { CoreLatch::store(&raw const (*this).core) };
        // SAFETY: `sleep` belongs to the owner's pool, which outlives the owner's wait
        // and so this call (the setter runs a job of that pool or holds it alive).
        unsafe { (*sleep).wake(owner) };
    }
}

/// What owns a pool's sleep state and keeps it alive: the pool's registry (a test
/// double in the loom models).
pub(crate) trait HasSleep: Send + Sync {
    /// The pool's sleep state.
    fn sleep(&self) -> &Sleep;
}

/// A latch that worker `owner` of one pool waits on while it keeps working, set by a
/// job that runs in another pool. As [`WorkerLatch`], but the latch holds the owner's
/// pool `P` by an `Arc`, and `set` takes a reference of its own before the store: the
/// setter is no worker of the owner's pool, so nothing else keeps that pool alive until
/// the wake-up is through. The two clones (making the latch, setting it) cost two
/// atomic increments per wait across pools, off every hot path.
pub(crate) struct CrossLatch<P: HasSleep> {
    core: CoreLatch,
    pool: Arc<P>,
    owner: usize,
}

impl<P: HasSleep> CrossLatch<P> {
    /// A latch worker `owner` of `pool` waits on.
    pub(crate) fn new(pool: &Arc<P>, owner: usize) -> CrossLatch<P> {
        CrossLatch {
            core: CoreLatch::new(),
            pool: Arc::clone(pool),
            owner,
        }
    }

    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.core.probe()
    }
}

impl<P: HasSleep> Latch for CrossLatch<P> {
    unsafe fn set(this: *const Self) {
        // SAFETY: the caller guarantees `this` is live until the store below. The pool
        // is cloned first: after the store the owner may return, drop the latch and its
        // `Arc`, and let the pool go.
        let (pool, owner) = unsafe { (Arc::clone(&(*this).pool), (*this).owner) };
        // SAFETY: as above, `this` is live here.
        unsafe { CoreLatch::store(&raw const (*this).core) };
        // Fenced (`Sleep::wake`): the owner may be asleep in its pool, and its re-check
        // before sleeping must see the store or be woken (the handshake of `sleep/`).
        pool.sleep().wake(owner);
    }
}

/// A latch set when its counter falls to zero. Starts at one (the owner's own share).
#[derive(Debug)]
pub(crate) struct CountLatch {
    count: AtomicUsize,
    latch: WorkerLatch,
    /// Set instead of `latch` for an owner that is no worker of the pool and blocks
    /// (`CountLatch::blocking`, rayon's `in_place_scope` from outside a pool).
    blocking: Option<LockLatch>,
}

impl CountLatch {
    pub(crate) fn new(sleep: &Sleep, owner: usize) -> CountLatch {
        CountLatch {
            count: AtomicUsize::new(1),
            latch: WorkerLatch::new(sleep, owner),
            blocking: None,
        }
    }

    /// A count latch whose owner is no worker of the pool: it waits with
    /// [`CountLatch::wait_blocking`].
    pub(crate) fn blocking(sleep: &Sleep) -> CountLatch {
        CountLatch {
            blocking: Some(LockLatch::new()),
            ..CountLatch::new(sleep, 0)
        }
    }

    /// Whether the owner blocks ([`CountLatch::blocking`]) rather than works.
    pub(crate) fn is_blocking(&self) -> bool {
        self.blocking.is_some()
    }

    /// Blocks until the count reaches zero, for a [`CountLatch::blocking`] latch.
    pub(crate) fn wait_blocking(&self) {
        if let Some(lock) = &self.blocking {
            lock.wait();
        }
    }

    /// Adds one to the count; must happen before the matching `set`.
    pub(crate) fn increment(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.latch.probe()
    }
}

impl Latch for CountLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is live: the count has not reached zero yet, so the owner is
        // still waiting. AcqRel: the last decrement acquires every earlier one, so the
        // owner (which acquires the latch) sees all the work of the counted tasks.
        if unsafe { (*this).count.fetch_sub(1, Ordering::AcqRel) } == 1 {
            // SAFETY: still live; the owner waits for the inner latch, not the count.
            match unsafe { &(*this).blocking } {
                // SAFETY: as above; `LockLatch::set` keeps it live until it is done.
                Some(lock) => unsafe { LockLatch::set(lock) },
                // SAFETY: as above.
                None => unsafe { WorkerLatch::set(&(*this).latch) },
            }
        }
    }
}

/// A latch for a thread outside the pool, which blocks until it is set.
#[derive(Debug, Default)]
pub(crate) struct LockLatch {
    set: Mutex<bool>,
    cond: Condvar,
}

impl LockLatch {
    pub(crate) fn new() -> LockLatch {
        LockLatch {
            set: Mutex::new(false),
            cond: Condvar::new(),
        }
    }

    /// Blocks until the latch is set.
    pub(crate) fn wait(&self) {
        let mut set = lock(&self.set);
        while !*set {
            set = self.cond.wait(set).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Latch for LockLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is live until the waiter sees `*set == true`, which it can only
        // do after we release the lock; notifying under the lock keeps it live.
        let this = unsafe { &*this };
        let mut set = lock(&this.set);
        *set = true;
        this.cond.notify_all();
    }
}
