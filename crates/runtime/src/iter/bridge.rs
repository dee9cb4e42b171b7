//! `par_bridge`: a sequential iterator's items spread over a pool.
//!
//! The sequential iterator sits behind a lock; the bridge has [`LEAVES`] positions, and
//! each leaf takes items from the shared iterator, one per lock, until it is exhausted.
//! So the leaves (and their task ids) are the same every run, while which leaf gets
//! which item depends on timing: the bridge is unordered and unindexed, as rayon's is.
//! The lock is held only for one `next`, never while an item is processed, so a leaf may
//! start nested parallel work on its items.

use super::{ParallelIterator, LEAVES};
use parking_lot::Mutex;
use std::ops::Range;

/// What `par_bridge` applies to: every sequential iterator whose items and self may move
/// between threads.
pub trait ParallelBridge: Sized {
    /// The items of `self`, taken by the leaves of a parallel loop as they come.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T> ParallelBridge for T
where
    T: Iterator + Send,
    T::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge {
            iter: Mutex::new(Some(self)),
        }
    }
}

/// [`ParallelBridge::par_bridge`].
#[derive(Debug)]
pub struct IterBridge<I> {
    /// `None` once the iterator has returned `None` (or panicked).
    iter: Mutex<Option<I>>,
}

impl<I> ParallelIterator for IterBridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;
    type Seq<'a>
        = BridgeSeq<'a, I>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        LEAVES
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> BridgeSeq<'_, I> {
        let _ = range;
        BridgeSeq { iter: &self.iter }
    }
}

/// A leaf of an [`IterBridge`]: items taken from the shared iterator.
#[derive(Debug)]
pub struct BridgeSeq<'a, I> {
    iter: &'a Mutex<Option<I>>,
}

impl<I: Iterator> Iterator for BridgeSeq<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let mut guard = self.iter.lock();
        // Taken out while `next` runs: should it panic, the other leaves find the
        // iterator gone rather than one left halfway through a call.
        let mut held = guard.take()?;
        let item = held.next();
        if item.is_some() {
            *guard = Some(held);
        }
        item
    }
}
