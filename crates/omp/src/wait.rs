//! The counts that `taskwait`, `taskgroup` and barriers wait on, and the handshake
//! between a waiter and the task that brings a count to its end.
//!
//! # A task's state
//! [`TaskState`] is one 64-bit word: the high half counts the task's incomplete
//! children (what `taskwait` waits for), the low half its references (one for itself
//! until it completes, one for each child not yet released; see `task.rs`). A child is
//! added with `Relaxed` (only its spawner, which runs the task, adds, and the task is
//! published afterwards by a release); completions and releases are `SeqCst`
//! read-modify-writes, so a waiter that reads the count at its end (`SeqCst`, an
//! acquire) sees everything the finished tasks did.
//!
//! # The handshake
//! A waiter publishes its worker in a [`WaiterSlot`], fences (`SeqCst`), then checks
//! its condition before each sleep (`locus::raw::wait_until` does). Whoever brings a
//! count to its end fences (`SeqCst`) after its read-modify-write, then reads the slot
//! and wakes that worker unless it is itself. The two fences are ordered: if the
//! waiter's fence is first, the completer reads the slot and wakes it; if the
//! completer's is first, the waiter's check sees the count at its end. No wake-up is
//! lost. (`SeqCst` accesses alone order this too, but loom models them as
//! acquire/release; the fences let the model check it. The completer's fence runs only
//! when a count reaches its end, not per task.) Only a live slot is read: a child
//! reads its parent's slot while it still holds its reference.
//!
//! The loom models in `src/tests/loom_wait.rs` check this with a waiter and two
//! completers, for `taskwait` and for a barrier's wait on descendants.

use crate::sync::{fence, AtomicU64, AtomicUsize};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, SeqCst};

/// One incomplete child, in the high half of a [`TaskState`].
const CHILD: u64 = 1 << 32;
/// One reference, in the low half of a [`TaskState`].
const REF: u64 = 1;
/// The references' half.
const REFS: u64 = CHILD - 1;

/// The worker waiting on a count, plus one; 0 if none.
pub(crate) struct WaiterSlot(AtomicUsize);

impl WaiterSlot {
    pub(crate) fn new() -> WaiterSlot {
        WaiterSlot(AtomicUsize::new(0))
    }

    /// Waits until `done()` as worker `me`: publishes `me`, fences, then hands `done`
    /// to `sleep_until`, which must check it before every sleep and return once it
    /// holds, sleeping only until `wake(me)` (see the module docs).
    #[inline]
    pub(crate) fn wait(
        &self,
        me: usize,
        done: impl Fn() -> bool,
        sleep_until: impl FnOnce(&dyn Fn() -> bool),
    ) {
        if done() {
            return;
        }
        self.0.store(me + 1, Relaxed);
        // Pairs with the fence in `notify`.
        fence(SeqCst);
        sleep_until(&done);
        self.0.store(0, Relaxed);
    }

    /// Called by whoever brought the count to its end, after that read-modify-write:
    /// wakes the published waiter unless it is `me` (the caller's worker).
    #[cold]
    pub(crate) fn notify(&self, me: Option<usize>, wake: impl FnOnce(usize)) {
        // Pairs with the fence in `wait`.
        fence(SeqCst);
        let w = self.0.load(Relaxed);
        if w != 0 && me != Some(w - 1) {
            wake(w - 1);
        }
    }
}

/// The ends a detached task (OpenMP's `detach` clause) completes after: its body's end
/// and its event's fulfilment (`omp_fulfill_event`), in either order, on any threads.
/// Whoever reaches the last end completes the task; `AcqRel`, so the completer sees
/// what both sides did before. The loom model in `src/tests/loom_wait.rs` checks it.
pub(crate) struct Ends(AtomicUsize);

impl Ends {
    /// `n` ends to reach.
    pub(crate) fn new(n: usize) -> Ends {
        Ends(AtomicUsize::new(n))
    }

    /// One end reached; whether it was the last.
    pub(crate) fn reach(&self) -> bool {
        self.0.fetch_sub(1, AcqRel) == 1
    }

    /// Whether every end was reached (`Acquire`: pairs with [`Ends::reach`]).
    pub(crate) fn all_reached(&self) -> bool {
        self.0.load(Acquire) == 0
    }
}

/// A task's children and references, and the slot of its waiter (see the module docs).
pub(crate) struct TaskState {
    state: AtomicU64,
    pub(crate) waiter: WaiterSlot,
}

impl TaskState {
    /// A task holding its own reference and no children.
    pub(crate) fn new() -> TaskState {
        TaskState {
            state: AtomicU64::new(REF),
            waiter: WaiterSlot::new(),
        }
    }

    /// A child was made: one more incomplete child and one more reference. Only the
    /// thread running the task calls this.
    #[inline]
    pub(crate) fn add_child(&self) {
        self.state.fetch_add(CHILD | REF, Relaxed);
    }

    /// One more reference, not a child: a task run at once whose descendants outlive it
    /// hands it to its parent (`task.rs`). Only the thread running the task calls this.
    #[inline]
    pub(crate) fn add_ref(&self) {
        self.state.fetch_add(REF, Relaxed);
    }

    /// A child completed; whether it was the last incomplete one (then the caller
    /// notifies the waiter).
    #[inline]
    pub(crate) fn child_completed(&self) -> bool {
        self.state.fetch_sub(CHILD, SeqCst) >> 32 == 1
    }

    /// Gives up one reference; how many there were.
    #[inline]
    pub(crate) fn release(&self) -> u64 {
        self.state.fetch_sub(REF, SeqCst) & REFS
    }

    /// Whether only the task's own reference is left (`Acquire`: pairs with the
    /// read-modify-writes by which its children gave theirs up, so none of them touches
    /// it any more). Only the task's own thread, which alone adds references, asks.
    #[inline]
    pub(crate) fn only_own_ref(&self) -> bool {
        self.state.load(Acquire) & REFS == 1
    }

    /// Incomplete children (`SeqCst`).
    #[inline]
    pub(crate) fn children(&self) -> u64 {
        self.state.load(SeqCst) >> 32
    }

    /// References held (`SeqCst`).
    #[inline]
    pub(crate) fn refs(&self) -> u64 {
        self.state.load(SeqCst) & REFS
    }
}

/// Waits until `done()` holds, running nothing: spins, then yields, then naps, for a
/// thread that no waker knows of (a team's thread 0, a crew's starter); needs no wake.
pub(crate) fn outside(done: impl Fn() -> bool) {
    outside_running(done, || false);
}

/// Waits until `done()` holds, calling `run` between checks (it returns whether it ran
/// a task, which starts the back-off again): spins, then yields, then naps.
pub(crate) fn outside_running(done: impl Fn() -> bool, run: impl Fn() -> bool) {
    /// Checks spent spinning, then yielding, before napping. Guess.
    const SPINS: u32 = 64;
    const YIELDS: u32 = 32;
    /// The longest nap between checks: the most a waiter lags the condition. Guess,
    /// against the cost of a region's closing barrier.
    const MAX_NAP_US: u64 = 100;
    let mut checks = 0u32;
    let mut nap = 1;
    while !done() {
        if run() {
            checks = 0;
            nap = 1;
            continue;
        }
        if checks < SPINS {
            std::hint::spin_loop();
        } else if checks < SPINS + YIELDS {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(nap));
            nap = (nap * 2).min(MAX_NAP_US);
        }
        checks = checks.saturating_add(1);
    }
}
