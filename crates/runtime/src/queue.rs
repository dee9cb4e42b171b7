//! `SharedQueue`: a locked double-ended queue that any worker may push to and pop from,
//! for the policies whose queues are shared (a squad's queue, the central LIFO, the
//! round-robin inboxes). Per-worker work-stealing deques are crossbeam's Chase-Lev
//! deques instead; these queues are shared by design, so a lock is what Qthreads uses
//! too and what a benchmark would have to beat before something cleverer is worth it.
//!
//! # Orderings
//! `len` mirrors the queue's length so that probes ([`SharedQueue::is_empty`]) need no
//! lock. It is written under the lock; a probe that races with a push may see the old
//! length. Workers that are about to sleep close that race with a `SeqCst` fence on
//! both sides (see `sleep.rs`): the pusher fences after `push`, the sleeper fences after
//! announcing itself and before probing.

use crate::sync::{lock_queue as lock, AtomicBool, AtomicUsize, QueueLock};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;

/// A locked deque shared by many workers.
#[derive(Debug)]
pub(crate) struct SharedQueue<T> {
    len: AtomicUsize,
    items: QueueLock<VecDeque<T>>,
}

impl<T> SharedQueue<T> {
    pub(crate) fn new() -> SharedQueue<T> {
        SharedQueue {
            len: AtomicUsize::new(0),
            items: QueueLock::new(VecDeque::new()),
        }
    }

    /// Whether the queue looked empty. A probe, not a promise.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len.load(Ordering::Relaxed) == 0
    }

    /// How many items the queue looked to hold. A probe, not a promise.
    #[inline]
    pub(crate) fn len_hint(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    pub(crate) fn push(&self, item: T) {
        let mut q = lock(&self.items);
        q.push_back(item);
        self.len.store(q.len(), Ordering::Relaxed);
    }

    pub(crate) fn pop_newest(&self) -> Option<T> {
        let mut q = lock(&self.items);
        let item = q.pop_back();
        self.len.store(q.len(), Ordering::Relaxed);
        item
    }

    pub(crate) fn pop_oldest(&self) -> Option<T> {
        let mut q = lock(&self.items);
        let item = q.pop_front();
        self.len.store(q.len(), Ordering::Relaxed);
        item
    }

    /// Removes the newest item for which `is_it` holds, searching from the newest end.
    /// Used by a worker that reaches a join to take back its own half if nobody has
    /// started it yet.
    pub(crate) fn take_back(&self, is_it: impl Fn(&T) -> bool) -> Option<T> {
        let mut q = lock(&self.items);
        let at = q.iter().rposition(is_it)?;
        let item = q.remove(at);
        self.len.store(q.len(), Ordering::Relaxed);
        item
    }

    /// Removes the item `pick` chooses, by its index in the queue (oldest first), under
    /// one lock; `None` when `pick` chooses none (it is not called on an empty queue).
    pub(crate) fn pop_picked(&self, pick: impl FnOnce(&VecDeque<T>) -> Option<usize>) -> Option<T> {
        let mut q = lock(&self.items);
        if q.is_empty() {
            return None;
        }
        let item = pick(&q).and_then(|at| q.remove(at));
        self.len.store(q.len(), Ordering::Relaxed);
        item
    }

    /// Moves up to `max` of the oldest items into `out`, oldest first; returns how many.
    pub(crate) fn steal_oldest(&self, max: usize, out: &mut Vec<T>) -> usize {
        let mut q = lock(&self.items);
        let n = max.min(q.len());
        out.extend(q.drain(..n));
        self.len.store(q.len(), Ordering::Relaxed);
        n
    }

    /// Pushes every item of `items`, in order, under one lock.
    pub(crate) fn push_all(&self, items: impl IntoIterator<Item = T>) {
        let mut q = lock(&self.items);
        q.extend(items);
        self.len.store(q.len(), Ordering::Relaxed);
    }
}

/// An entry of a squad's shared queue: the job, the worker that queued it and the job's
/// level, which `mts` reads to choose the end it pops
/// ([`locus_policy::pick_shallow`]) without touching the job itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Queued<J> {
    pub(crate) job: J,
    pub(crate) by: usize,
    pub(crate) level: u32,
}

/// What one bulk-steal attempt came to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BulkSteal<T> {
    /// Another worker of the squad is stealing for it; wait for its work.
    Busy,
    /// The victim's probe showed no work.
    Empty,
    /// The probe showed work but the victim was drained before the lock was taken.
    Failed,
    /// Took these tasks: the first is the thief's to run, the rest went to its squad.
    Took { first: T, moved: usize },
}

/// One MTS bulk steal: if no other worker of the thief's squad holds `stealing`, take up
/// to `batch` of the oldest tasks of `victim`, keep the oldest for the thief and put the
/// others in the squad's `own` queue. `scratch` is the thief's reusable buffer.
///
/// `stealing` is acquired with `Acquire` (pairs with the `Release` below) so that a
/// worker that next takes the flag sees the queue as the last holder left it.
pub(crate) fn bulk_steal<T>(
    stealing: &AtomicBool,
    victim: &SharedQueue<T>,
    own: &SharedQueue<T>,
    batch: usize,
    scratch: &mut Vec<T>,
) -> BulkSteal<T> {
    if victim.is_empty() {
        return BulkSteal::Empty;
    }
    if stealing
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return BulkSteal::Busy;
    }
    scratch.clear();
    let taken = victim.steal_oldest(batch.max(1), scratch);
    let outcome = if taken == 0 {
        BulkSteal::Failed
    } else {
        let mut stolen = scratch.drain(..);
        let first = stolen.next().expect("took at least one");
        // The oldest tasks are the largest; the squad pops its queue newest first, so
        // push them oldest first and the squad starts on the smallest, as its own
        // spawns would be ordered.
        own.push_all(stolen);
        BulkSteal::Took {
            first,
            moved: taken,
        }
    };
    stealing.store(false, Ordering::Release);
    outcome
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn ends_and_take_back() {
        let q = SharedQueue::new();
        assert!(q.is_empty());
        for i in 0..5 {
            q.push(i);
        }
        assert_eq!(q.pop_newest(), Some(4));
        assert_eq!(q.pop_oldest(), Some(0));
        assert_eq!(q.take_back(|&x| x == 2), Some(2));
        assert_eq!(q.take_back(|&x| x == 2), None);
        let mut out = Vec::new();
        assert_eq!(q.steal_oldest(10, &mut out), 2);
        assert_eq!(out, vec![1, 3]);
        assert!(q.is_empty());
    }

    #[test]
    fn a_picked_pop_removes_what_the_pick_names() {
        let q = SharedQueue::new();
        let mut called = false;
        assert_eq!(
            q.pop_picked(|_| {
                called = true;
                Some(0)
            }),
            None
        );
        assert!(!called, "an empty queue is not shown to the pick");
        q.push_all([10, 11, 12, 13]);
        assert_eq!(
            q.pop_picked(|items| items.iter().position(|&x| x == 12)),
            Some(12)
        );
        assert_eq!(q.pop_picked(|_| None), None);
        assert_eq!(
            q.pop_picked(|_| Some(9)),
            None,
            "an index past the end takes nothing"
        );
        assert_eq!(q.pop_picked(|_| Some(0)), Some(10));
        assert_eq!(q.pop_newest(), Some(13));
        assert_eq!(q.pop_oldest(), Some(11));
        assert!(q.is_empty());
    }

    #[test]
    fn bulk_steal_keeps_the_oldest_and_moves_the_rest() {
        let (victim, own, flag) = (
            SharedQueue::new(),
            SharedQueue::new(),
            AtomicBool::new(false),
        );
        let mut scratch = Vec::new();
        assert_eq!(
            bulk_steal(&flag, &victim, &own, 3, &mut scratch),
            BulkSteal::Empty
        );
        victim.push_all(0..5);
        assert_eq!(
            bulk_steal(&flag, &victim, &own, 3, &mut scratch),
            BulkSteal::Took { first: 0, moved: 3 }
        );
        assert_eq!(own.pop_newest(), Some(2));
        assert_eq!(own.pop_newest(), Some(1));
        assert_eq!(victim.pop_oldest(), Some(3));
        flag.store(true, Ordering::Relaxed);
        assert_eq!(
            bulk_steal(&flag, &victim, &own, 3, &mut scratch),
            BulkSteal::Busy
        );
    }
}
