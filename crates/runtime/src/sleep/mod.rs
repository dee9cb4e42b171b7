//! Idle workers spin briefly, then sleep here until there is work for them or the latch
//! they wait on is set. `README.md` beside this file tells the whole protocol and why
//! it is shaped so; in short:
//!
//! 1. A worker about to sleep locks its slot, sets `sleeping`, increments `sleepers`,
//!    issues a `SeqCst` fence, and only then checks once more whether it has a reason to
//!    stay awake (work it may take, its latch set, the pool terminating). If so it undoes
//!    the announcement; if not it waits on its condition variable, which releases the
//!    lock atomically.
//! 2. Whoever makes work available (a push) or sets a latch first publishes it (the push
//!    or the latch store), issues a `SeqCst` fence, and then reads `sleepers` (for work)
//!    or the owner's `sleeping` flag (for a latch). If it sees a sleeper it takes that
//!    slot's lock, clears `sleeping`, decrements `sleepers` and notifies. A worker
//!    publishing work it will drain itself skips the fence (see `new_work`).
//!
//! The two fences make this a Dekker handshake: either the waker sees the sleeper's
//! announcement, or the sleeper's re-check sees the waker's publication. A waker that
//! sees the announcement must take the slot's lock, which the sleeper holds from before
//! the announcement until it is inside `wait`, so the notification cannot fall between
//! the re-check and the wait. Whoever flips `sleeping` from true to false does so under
//! the lock and is the one who decrements `sleepers`. The loom models in
//! `src/tests/loom_sleep.rs` check both the work and the latch hand-offs, and
//! `src/tests/loom_cross.rs` a latch set by a worker of another pool (whose setter holds
//! the waiter's pool alive until its wake-up is done: `latch::CrossLatch`).

use crate::sync::{fence, lock, AtomicBool, AtomicUsize, Condvar, Mutex};
use crossbeam_utils::CachePadded;
use std::sync::atomic::Ordering::SeqCst;

/// The sleep state of every worker of one pool.
#[derive(Debug)]
pub(crate) struct Sleep {
    /// Number of workers between announcing sleep and being woken.
    sleepers: CachePadded<AtomicUsize>,
    slots: Box<[CachePadded<Slot>]>,
}

#[derive(Debug)]
struct Slot {
    /// Set under `lock` by the worker going to sleep; cleared under `lock` by whoever
    /// wakes it (or by the worker itself if its re-check finds a reason to stay up).
    sleeping: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Sleep {
    pub(crate) fn new(workers: usize) -> Sleep {
        let slots = (0..workers)
            .map(|_| {
                CachePadded::new(Slot {
                    sleeping: AtomicBool::new(false),
                    lock: Mutex::new(()),
                    wake: Condvar::new(),
                })
            })
            .collect();
        Sleep {
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            slots,
        }
    }

    /// Puts `worker` to sleep unless `stay_awake` (evaluated after the announcement)
    /// holds; `falling_asleep` runs just before it blocks.
    pub(crate) fn sleep(
        &self,
        worker: usize,
        stay_awake: impl Fn() -> bool,
        falling_asleep: impl FnOnce(),
    ) {
        let slot = &self.slots[worker];
        let mut guard = lock(&slot.lock);
        slot.sleeping.store(true, SeqCst);
        self.sleepers.fetch_add(1, SeqCst);
        // Pairs with the fence in `new_work` / `wake`: see the module docs.
        fence(SeqCst);
        if stay_awake() {
            slot.sleeping.store(false, SeqCst);
            self.sleepers.fetch_sub(1, SeqCst);
            return;
        }
        falling_asleep();
        while slot.sleeping.load(SeqCst) {
            guard = slot.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Called by a worker after publishing work that it will also drain itself (its own
    /// deque, its squad's queue, the central queue): wakes one sleeper, trying the workers
    /// in `prefer` first. No fence: a wake-up lost to the race costs parallelism, never
    /// progress, because the publisher takes the job back at its join or pops it while
    /// its scope waits (rayon-core makes the same trade; see README.md).
    #[inline]
    pub(crate) fn new_work(&self, prefer: &[usize]) {
        if self.sleepers.load(SeqCst) != 0 {
            self.wake_any(prefer);
        }
    }

    /// Called after publishing work that the publisher will not drain itself (a root
    /// injected from outside the pool): as [`Sleep::new_work`], with the fence that
    /// makes the wake-up certain.
    #[inline]
    pub(crate) fn new_foreign_work(&self, prefer: &[usize]) {
        // Pairs with the fence in `sleep`: see the module docs.
        fence(SeqCst);
        self.new_work(prefer);
    }

    /// Called after publishing work only `worker` may take, or setting a latch `worker`
    /// waits on: wakes `worker` if it sleeps.
    #[inline]
    pub(crate) fn wake(&self, worker: usize) {
        // Pairs with the fence in `sleep`: see the module docs.
        fence(SeqCst);
        self.wake_slot(worker);
    }

    /// Wakes every sleeping worker (termination).
    pub(crate) fn wake_all(&self) {
        fence(SeqCst);
        for worker in 0..self.slots.len() {
            self.wake_slot(worker);
        }
    }

    #[cold]
    fn wake_any(&self, prefer: &[usize]) {
        if prefer.iter().any(|&w| self.wake_slot(w)) {
            return;
        }
        for worker in 0..self.slots.len() {
            if self.wake_slot(worker) {
                return;
            }
        }
    }

    fn wake_slot(&self, worker: usize) -> bool {
        let slot = &self.slots[worker];
        if !slot.sleeping.load(SeqCst) {
            return false;
        }
        let _guard = lock(&slot.lock);
        if !slot.sleeping.load(SeqCst) {
            return false;
        }
        slot.sleeping.store(false, SeqCst);
        self.sleepers.fetch_sub(1, SeqCst);
        slot.wake.notify_one();
        true
    }
}
