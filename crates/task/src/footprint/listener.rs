//! The process-wide listener's hand-off: a slot that [`Listener::set`] and
//! [`Listener::clear`] replace under a lock, and a generation that lets every thread keep
//! its own copy of the slot ([`Snapshot`]) and take the lock only when the slot has changed.
//!
//! # Protocol
//! 1. A writer takes the write lock, replaces the slot, and bumps the generation
//!    (`Release`) before it lets the lock go. The first sink installed adds one to the
//!    count of listeners, the last one removed takes it away (a thread's own listener
//!    adds and takes one too, [`Listener::add_thread`]).
//! 2. A reader loads the generation (`Acquire`, pairs with the writer's bump). If its
//!    copy is of that generation it uses the copy; else it reads the slot under the read
//!    lock and keeps it with the generation it loaded.
//!
//! A copy therefore holds the slot of its generation or of a later one: a reader that
//! loaded generation `g` has seen the write that `g` was bumped after, and the read lock
//! waits for any writer still holding the lock. So a declaration made after `set` or
//! `clear` returned (after it in happens-before: the thread was told, or started later)
//! loads that generation or a later one, which no copy made before it carries, and reads
//! the slot again. A declaration racing with a writer uses the old sink or the new one,
//! never a mix. The loom models in `src/tests/loom_listener.rs` check both.
//!
//! Generations wrap after `usize::MAX` changes of sink; a thread idle for exactly that
//! many would keep its old copy. Accepted: no program changes its sink that often.

use crate::sync::{AtomicUsize, Ordering, RwLock};

/// One thread's copy of the slot, with the generation it was read at. A new thread's
/// copy is `(0, None)`: generation 0 is the empty slot no writer has touched yet.
pub(crate) type Snapshot<S> = (usize, Option<S>);

/// A slot for one process-wide sink, read through per-thread copies.
#[derive(Debug)]
pub(crate) struct Listener<S> {
    slot: RwLock<Option<S>>,
    /// Bumped under the write lock each time the slot changes.
    generation: AtomicUsize,
    /// Listeners installed: 1 while the slot holds a sink, plus one per thread that has
    /// a listener of its own. Read on every declaration.
    count: AtomicUsize,
}

// Under loom only the models use it, and they leave the declarations' fast tests out.
#[cfg_attr(all(loom, test), allow(dead_code))]
impl<S: Clone> Listener<S> {
    /// An empty slot, no listeners.
    #[cfg(not(all(loom, test)))]
    pub(crate) const fn new() -> Listener<S> {
        Listener {
            slot: RwLock::new(None),
            generation: AtomicUsize::new(0),
            count: AtomicUsize::new(0),
        }
    }

    /// An empty slot, no listeners (loom's primitives have no `const fn new`).
    #[cfg(all(loom, test))]
    pub(crate) fn new() -> Listener<S> {
        Listener {
            slot: RwLock::new(None),
            generation: AtomicUsize::new(0),
            count: AtomicUsize::new(0),
        }
    }

    /// Puts `sink` in the slot, replacing any earlier one.
    pub(crate) fn set(&self, sink: S) {
        let mut slot = self.slot.write().unwrap_or_else(|e| e.into_inner());
        let first = slot.replace(sink).is_none();
        // Before the count and the lock's release: a reader that sees the count
        // (`Acquire` in `any`) sees the new generation, and waits on the lock for the
        // new sink.
        self.generation.fetch_add(1, Ordering::Release);
        if first {
            self.count.fetch_add(1, Ordering::Release);
        }
    }

    /// Empties the slot.
    pub(crate) fn clear(&self) {
        let mut slot = self.slot.write().unwrap_or_else(|e| e.into_inner());
        if slot.take().is_some() {
            self.generation.fetch_add(1, Ordering::Release);
            self.count.fetch_sub(1, Ordering::Release);
        }
    }

    /// A thread installs a listener of its own.
    pub(crate) fn add_thread(&self) {
        self.count.fetch_add(1, Ordering::Release);
    }

    /// A thread removes its own listener.
    pub(crate) fn remove_thread(&self) {
        self.count.fetch_sub(1, Ordering::Release);
    }

    /// Whether anyone listens, as cheaply as it can be asked: a declaration's first
    /// test, which may be one change late (the next one sees it).
    #[inline]
    pub(crate) fn is_listening(&self) -> bool {
        self.count.load(Ordering::Relaxed) != 0
    }

    /// Whether anyone listens, ordered after the change that installed the listener
    /// (pairs with the `Release` in [`Listener::set`] and [`Listener::add_thread`]).
    pub(crate) fn any(&self) -> bool {
        self.count.load(Ordering::Acquire) != 0
    }

    /// Whether `copy` is of the current generation.
    pub(crate) fn is_current(&self, copy: &Snapshot<S>) -> bool {
        copy.0 == self.generation.load(Ordering::Acquire)
    }

    /// Brings `copy` up to date (step 2 of the protocol).
    pub(crate) fn refresh(&self, copy: &mut Snapshot<S>) {
        // The generation first, then the slot: loaded the other way round, a writer
        // between the two would leave the old sink under the new generation for good.
        let generation = self.generation.load(Ordering::Acquire);
        if copy.0 != generation {
            *copy = (generation, self.read());
        }
    }

    /// The slot, read under its lock.
    pub(crate) fn read(&self) -> Option<S> {
        self.slot.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
