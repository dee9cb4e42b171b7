//! Mutual exclusion: `critical` (unnamed and named), `atomic`, and the OpenMP lock
//! families, all one futex mutex on a 32-bit word.
//!
//! The word is 0 (free), 1 (held) or 2 (held, maybe with sleepers): Drepper's "Futexes
//! are tricky" mutex 2. Locking acquires (`Acquire` on the winning exchange) and
//! unlocking releases (`Release` swap), so a critical section sees everything the
//! previous holder wrote. A thread that waits for a lock blocks; it runs no tasks
//! meanwhile (a task holding the lock may be suspended below it on the same stack).
//!
//! The words live in the program's own memory: `omp_lock_t` is 4 bytes, aligned 4;
//! `omp_nest_lock_t` is 16, aligned 8 (the word, a nesting count, the owning task); a
//! named critical section's `void *` slot is zero-initialised and aligned 8.

use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, Ordering};

/// The lock word's states.
const FREE: u32 = 0;
/// Held, nobody asleep on it.
const HELD: u32 = 1;
/// Held, and someone may sleep on it: unlocking must wake one.
const CONTENDED: u32 = 2;

/// Spins before sleeping on a held lock. Guess: a critical section in a task program is
/// a few hundred cycles, shorter than a futex round trip.
const SPINS: u32 = 100;

pub(crate) fn lock(word: &AtomicU32) {
    if word
        .compare_exchange(FREE, HELD, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
    {
        return;
    }
    lock_slow(word);
}

#[cold]
fn lock_slow(word: &AtomicU32) {
    for _ in 0..SPINS {
        std::hint::spin_loop();
        if word.load(Ordering::Relaxed) == FREE
            && word
                .compare_exchange(FREE, HELD, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            return;
        }
    }
    while word.swap(CONTENDED, Ordering::Acquire) != FREE {
        futex_wait(word, CONTENDED);
    }
}

pub(crate) fn try_lock(word: &AtomicU32) -> bool {
    word.compare_exchange(FREE, HELD, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
}

pub(crate) fn unlock(word: &AtomicU32) {
    if word.swap(FREE, Ordering::Release) == CONTENDED {
        futex_wake(word);
    }
}

fn futex_wait(word: &AtomicU32, expected: u32) {
    // SAFETY: FUTEX_WAIT reads the aligned 32-bit word at a live address; a spurious or
    // interrupted return is handled by the caller's loop.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE only uses the address as a key.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            1,
        );
    }
}

/// The lock of every unnamed `critical` section.
pub(crate) static CRITICAL: AtomicU32 = AtomicU32::new(FREE);
/// The lock of `atomic` constructs the compiler could not do with an instruction.
pub(crate) static ATOMIC: AtomicU32 = AtomicU32::new(FREE);

/// The lock word of a named critical section's slot, or of an `omp_lock_t`.
///
/// # Safety
/// `ptr` must point to at least 4 writable bytes, aligned 4, used only as a lock word
/// for as long as the returned reference is used.
pub(crate) unsafe fn word<'a>(ptr: *mut c_void) -> &'a AtomicU32 {
    // SAFETY: forwarded from the caller; AtomicU32 has u32's size and alignment.
    unsafe { AtomicU32::from_ptr(ptr.cast()) }
}

/// The layout of `omp_nest_lock_t` (16 bytes, aligned 8): a lock word, the nesting
/// count, and the task that holds it (nest locks are owned by tasks).
#[repr(C)]
pub(crate) struct NestLock {
    word: AtomicU32,
    count: AtomicI32,
    owner: AtomicPtr<c_void>,
}

impl NestLock {
    /// # Safety
    /// `ptr` must point to an `omp_nest_lock_t`, live while the reference is used.
    pub(crate) unsafe fn at<'a>(ptr: *mut c_void) -> &'a NestLock {
        // SAFETY: forwarded; the layout matches GCC's 16-byte, 8-aligned type.
        unsafe { &*ptr.cast::<NestLock>() }
    }

    pub(crate) fn init(&self) {
        self.word.store(FREE, Ordering::Relaxed);
        self.count.store(0, Ordering::Relaxed);
        self.owner.store(std::ptr::null_mut(), Ordering::Relaxed);
    }

    /// Takes the lock for task `me`, or nests once more if `me` holds it.
    pub(crate) fn set(&self, me: *mut c_void) {
        if self.owner.load(Ordering::Relaxed) == me {
            self.count.fetch_add(1, Ordering::Relaxed);
            return;
        }
        lock(&self.word);
        self.owner.store(me, Ordering::Relaxed);
        self.count.store(1, Ordering::Relaxed);
    }

    /// `omp_test_nest_lock`: the new nesting count, or 0 if another task holds it.
    pub(crate) fn test(&self, me: *mut c_void) -> i32 {
        if self.owner.load(Ordering::Relaxed) == me {
            return self.count.fetch_add(1, Ordering::Relaxed) + 1;
        }
        if !try_lock(&self.word) {
            return 0;
        }
        self.owner.store(me, Ordering::Relaxed);
        self.count.store(1, Ordering::Relaxed);
        1
    }

    /// Leaves one nesting level; frees the lock at the outermost.
    pub(crate) fn unset(&self) {
        if self.count.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.owner.store(std::ptr::null_mut(), Ordering::Relaxed);
            unlock(&self.word);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_excludes_and_counts_right() {
        let word = AtomicU32::new(FREE);
        let mut total = 0u64;
        let total_ptr = &mut total as *mut u64 as usize;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..20_000 {
                        lock(&word);
                        // SAFETY: only the holder of `word` touches `total`.
                        unsafe { *(total_ptr as *mut u64) += 1 };
                        unlock(&word);
                    }
                });
            }
        });
        assert_eq!(total, 80_000);
        assert!(try_lock(&word));
        assert!(!try_lock(&word));
        unlock(&word);
    }

    #[test]
    fn a_nest_lock_nests_for_its_owner_only() {
        let mut raw = [0u64; 2];
        // SAFETY: 16 bytes, aligned 8, used only as this lock.
        let l = unsafe { NestLock::at(raw.as_mut_ptr().cast()) };
        l.init();
        let (me, other) = (1usize as *mut c_void, 2usize as *mut c_void);
        l.set(me);
        assert_eq!(l.test(me), 2);
        assert_eq!(l.test(other), 0);
        l.unset();
        l.unset();
        assert_eq!(l.test(other), 1);
        l.unset();
    }
}
