//! The pending second halves of a worker's joins, where thieves can take them but the
//! owner pays no fence: Cilk-5's THE protocol with an asymmetric fence.
//!
//! A `join` that runs as `ws` pushes its second half here instead of on the worker's
//! crossbeam deque. The owner's push is two plain stores; its pop, after the first half,
//! is a store, a *compiler* fence and a load. Nobody else ever waits for the owner. A
//! thief (a worker looking for work) takes the oldest pending half under a lock, and pays
//! for both sides: its fence is `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which
//! makes every running thread of the process pass a full barrier before it returns, so
//! the owner's compiler fence acts as a full fence whenever a thief is there to race it
//! (the pairing user-space RCU and folly's `asymmetricHeavyBarrier` rely on). A join
//! nobody steals thus costs what two calls cost plus a few stores, which is how the
//! heartbeat schedulers (chili, spice) get their joins cheap, without their heartbeat
//! thread: here the thief, not a timer, makes the half public, and an idle pool runs
//! nothing at all.
//!
//! # The protocol
//!
//! `tail` is the slot the owner fills next (only the owner writes it, except under the
//! lock); `head` is the slot a thief claims next (written only under the lock). Slots
//! `head..tail` hold halves anyone may take.
//!
//! ```text
//! owner push(x):  slot[t] = x; tail = t + 1                      (t = tail)
//! owner pop(t):   tail = t; light fence; h = head
//!                 h <= t: ours (no thief can have it)
//!                 else:   lock; ours if head <= t, else stolen: tail = t + 1; unlock
//! thief steal:    lock; h = head; head = h + 1; heavy fence; t = tail
//!                 h < t:  take slot[h]; unlock
//!                 else:   head = h; unlock (nothing, or the owner took it back)
//! owner release(t), after a stolen half has run: lock; head = tail = t; unlock
//! ```
//!
//! The two fences order each side's store before its load (a store-buffering pattern),
//! so either the owner sees the thief's claim or the thief sees the owner's retraction:
//! a half is never both run inline and stolen. Thieves claim in order from `head`, so
//! when the half of the owner's join at slot `t` is stolen, so are all below it, and
//! `release` resets both ends to `t` once the owner is back at that join. A join deeper
//! than [`CAPACITY`] slots falls back to the deque, and so does every join in a process
//! where `membarrier` is unavailable (an old kernel, a seccomp filter): its frames hold
//! nothing ([`Frames::is_usable`]), so the owner's fence is a compiler fence always and
//! its pop tests no flag. The crate's own tests, Miri and loom check the symmetric form
//! instead, both fences full ones.
//!
//! `src/tests/loom_frames.rs` models the protocol with both fences as `SeqCst` fences
//! (what the asymmetric pair stands for), including the slot reads, whose races loom
//! would report.

use crate::sync::{fence, lock, AtomicUsize, Mutex, SlotCell};
use crossbeam_utils::CachePadded;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};

/// Pending halves one worker keeps here; a deeper join uses the deque.
pub(crate) const CAPACITY: usize = 128;

/// One worker's pending join halves (see the module docs).
pub(crate) struct Frames<T> {
    /// Written by the owner (and under `lock`), read by thieves.
    tail: CachePadded<AtomicUsize>,
    /// Written under `lock` only; read by the owner at every pop.
    head: CachePadded<AtomicUsize>,
    lock: Mutex<()>,
    /// Whether the thieves' fence is `membarrier` (the owner's then a compiler fence);
    /// else both are full fences, which only the crate's tests, Miri and loom run.
    asymmetric: bool,
    /// How many slots a push may use: [`CAPACITY`], or none where the fences cannot be
    /// asymmetric outside those checks.
    limit: usize,
    /// Loom only: whether the owner's fence is there at all (a model without it must
    /// fail, which shows that the models can see the race the fence closes).
    #[cfg(loom)]
    owner_fence: bool,
    slots: [SlotCell<T>; CAPACITY],
}

impl<T: Copy> Frames<T> {
    /// Empty frames; `asymmetric`: the process may use `membarrier` (see
    /// [`asymmetric_fences`]). Without it they hold nothing, except in the crate's tests,
    /// under Miri and under loom, where both sides fence fully.
    pub(crate) fn new(asymmetric: bool) -> Frames<T> {
        let checked = cfg!(any(test, loom, miri));
        Frames {
            limit: if asymmetric || checked { CAPACITY } else { 0 },
            tail: CachePadded::new(AtomicUsize::new(0)),
            head: CachePadded::new(AtomicUsize::new(0)),
            lock: Mutex::new(()),
            asymmetric,
            #[cfg(loom)]
            owner_fence: true,
            slots: std::array::from_fn(|_| SlotCell::new()),
        }
    }

    /// Whether a push can succeed at all (see [`Frames::new`]).
    pub(crate) fn is_usable(&self) -> bool {
        self.limit > 0
    }

    /// Loom only: frames whose owner skips its fence, a protocol that must fail.
    #[cfg(all(loom, test))]
    pub(crate) fn without_owner_fence() -> Frames<T> {
        Frames {
            owner_fence: false,
            ..Frames::new(false)
        }
    }

    /// Owner: makes `item` takeable; returns its slot, or `None` when every slot is in
    /// use (the caller publishes it elsewhere).
    #[inline]
    pub(crate) fn push(&self, item: T) -> Option<usize> {
        let t = self.tail.load(Relaxed);
        if t >= self.limit {
            return None;
        }
        // SAFETY: `t < limit <= CAPACITY`, the slots' length (one bounds check, not two).
        let slot = unsafe { self.slots.get_unchecked(t) };
        // SAFETY: only the owner writes slots, and no thief reads slot `t` now: a thief
        // reads a slot below the `tail` it saw, and the owner's `tail` is `t` (any thief
        // that claimed `t` earlier saw the retraction, or the owner saw its claim and
        // has since released the slot under the lock).
        unsafe { slot.write(item) };
        self.tail.store(t + 1, Release);
        Some(t)
    }

    /// Owner: after the first half, whether the item at `slot` (from [`Frames::push`])
    /// is still the owner's; `false`: a thief took it, and the owner calls
    /// [`Frames::release`] once that item has run.
    #[inline]
    pub(crate) fn pop(&self, slot: usize) -> bool {
        self.tail.store(slot, Release);
        self.light_fence();
        if self.head.load(Relaxed) <= slot {
            return true;
        }
        self.pop_contended(slot)
    }

    #[cold]
    #[inline(never)]
    fn pop_contended(&self, slot: usize) -> bool {
        let _guard = lock(&self.lock);
        // Under the lock no thief is between its claim and its check: `head` is exact.
        if self.head.load(Relaxed) <= slot {
            return true;
        }
        // Stolen, and with it every slot below: nothing stays takeable.
        self.tail.store(slot + 1, Release);
        false
    }

    /// Owner: back at the join whose item at `slot` was stolen (and has run), with
    /// nothing of its own above it: the slot and every one above are free again.
    #[cold]
    pub(crate) fn release(&self, slot: usize) {
        let _guard = lock(&self.lock);
        self.head.store(slot, Relaxed);
        self.tail.store(slot, Release);
    }

    /// Whether there looks to be nothing to take (a hint: no lock, no fence).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.head.load(Relaxed) >= self.tail.load(Acquire)
    }

    /// Thief: takes the oldest item, if there is one the owner has not taken back.
    pub(crate) fn steal(&self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let _guard = lock(&self.lock);
        let h = self.head.load(Relaxed);
        self.head.store(h + 1, Relaxed);
        self.heavy_fence();
        if h >= self.tail.load(Acquire) {
            self.head.store(h, Relaxed);
            return None;
        }
        // SAFETY: slot `h` is below the `tail` this thief read after the fence, so the
        // owner's write of it happens before this read (the `Release` store of `tail`
        // the `Acquire` load read, or one after it by the owner), and the owner cannot
        // write it again before it sees this claim (it writes slot `h` only after a pop
        // of `h` that the fences make see the claim, then waits on the lock held here).
        Some(unsafe { self.slots[h].read() })
    }

    /// The owner's side of the store-load fence: free with `membarrier`, the only form
    /// a process runs outside the checks (see [`Frames::new`]).
    #[inline]
    fn light_fence(&self) {
        #[cfg(loom)]
        if !self.owner_fence {
            return;
        }
        let full = cfg!(loom) || (cfg!(any(test, miri)) && !self.asymmetric);
        if full {
            fence(SeqCst);
        } else {
            std::sync::atomic::compiler_fence(SeqCst);
        }
    }

    /// The thieves' side: a full fence on every running thread of the process.
    fn heavy_fence(&self) {
        fence(SeqCst);
        if self.asymmetric && !cfg!(loom) {
            membarrier::private_expedited();
        }
    }
}

/// Whether this process may use the asymmetric fence: `membarrier`'s private expedited
/// command, registered once (Linux 4.14 and later, where no filter refuses it).
pub(crate) fn asymmetric_fences() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // Miri runs no system calls of this kind: it checks the symmetric form.
    *AVAILABLE.get_or_init(|| !cfg!(miri) && membarrier::register())
}

#[cfg(target_os = "linux")]
mod membarrier {
    // From linux/membarrier.h (not in the libc crate).
    const QUERY: libc::c_long = 0;
    const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    fn call(command: libc::c_long) -> libc::c_long {
        // SAFETY: `membarrier(cmd, flags, cpu_id)` reads no memory of ours; an unknown
        // or refused command returns -1 with errno set.
        unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                command,
                0 as libc::c_long,
                0 as libc::c_long,
            )
        }
    }

    /// Registers the process for the private expedited command, if the kernel offers it.
    pub(super) fn register() -> bool {
        let offered = call(QUERY);
        offered >= 0
            && offered & PRIVATE_EXPEDITED != 0
            && call(REGISTER_PRIVATE_EXPEDITED) == 0
            && call(PRIVATE_EXPEDITED) == 0
    }

    /// A full barrier on every running thread of the process.
    pub(super) fn private_expedited() {
        if call(PRIVATE_EXPEDITED) != 0 {
            // Registered in `register`, which tried this very call: the kernel cannot
            // refuse it later, and going on without the barrier could run a half twice.
            eprintln!("locus: membarrier failed after it was registered; aborting");
            std::process::abort();
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod membarrier {
    pub(super) fn register() -> bool {
        false
    }

    pub(super) fn private_expedited() {}
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_owner_takes_back_what_nobody_stole() {
        let frames = Frames::new(asymmetric_fences());
        let a = frames.push(1u32).unwrap();
        let b = frames.push(2).unwrap();
        assert_eq!((a, b), (0, 1));
        assert!(frames.pop(b));
        assert!(frames.pop(a));
        assert!(frames.is_empty());
        assert_eq!(frames.steal(), None);
    }

    #[test]
    fn thieves_take_the_oldest_first_and_the_owner_then_finds_it_gone() {
        let frames = Frames::new(asymmetric_fences());
        let slots: Vec<usize> = (10u32..13).map(|x| frames.push(x).unwrap()).collect();
        assert_eq!(frames.steal(), Some(10));
        assert_eq!(frames.steal(), Some(11));
        assert!(frames.pop(slots[2]), "the newest is still the owner's");
        assert!(!frames.pop(slots[1]), "stolen");
        // While the owner waits for the stolen half, it runs other work here.
        let nested = frames.push(20).unwrap();
        assert_eq!(nested, 2);
        assert_eq!(frames.steal(), Some(20));
        assert!(!frames.pop(nested));
        frames.release(nested);
        frames.release(slots[1]);
        assert!(!frames.pop(slots[0]), "stolen before the one above it");
        frames.release(slots[0]);
        assert!(frames.is_empty());
        assert_eq!(frames.push(30), Some(0));
        assert_eq!(frames.steal(), Some(30));
    }

    #[test]
    fn a_full_stack_says_so() {
        let frames = Frames::new(false);
        for i in 0..CAPACITY {
            assert_eq!(frames.push(i), Some(i));
        }
        assert_eq!(frames.push(0), None);
        assert!(frames.pop(CAPACITY - 1));
        assert_eq!(frames.push(7), Some(CAPACITY - 1));
    }

    #[test]
    fn the_asymmetric_fence_is_available_where_the_kernel_offers_it() {
        // Either answer is right; asking twice gives the same one, and the heavy fence
        // then works (a failure aborts the process).
        let first = asymmetric_fences();
        assert_eq!(first, asymmetric_fences());
        let frames = Frames::new(first);
        frames.push(1u8).unwrap();
        assert_eq!(frames.steal(), Some(1));
    }
}
