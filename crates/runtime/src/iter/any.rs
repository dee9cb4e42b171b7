//! rayon's `skip_any`, `take_any`, `skip_any_while` and `take_any_while`: items skipped
//! or taken from anywhere in the chain, by a count or a flag all leaves share.
//!
//! Each is one [`AnyRule`] over [`AnyItems`]: a leaf asks the rule about each item as it
//! comes. The counts are exact (each skip or take is one successful decrement of a
//! shared counter); which items they hit depends on the order leaves run in, as under
//! rayon.

use super::ParallelIterator;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What an [`AnyItems`] leaf does with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyStep {
    /// Hands it on.
    Yield,
    /// Drops it and goes on.
    Skip,
    /// Drops it and ends the leaf.
    Stop,
}

/// The shared decision of an [`AnyItems`] adapter.
pub trait AnyRule<T>: Send + Sync {
    /// Whether a leaf may stop before asking about its next item.
    fn done(&self) -> bool {
        false
    }

    /// What to do with `item`.
    fn step(&self, item: &T) -> AnyStep;
}

/// Items left to skip ([`ParallelIterator::skip_any`]).
#[derive(Debug)]
pub struct SkipCount(AtomicUsize);

/// Items left to take ([`ParallelIterator::take_any`]).
#[derive(Debug)]
pub struct TakeCount(AtomicUsize);

/// The predicate of [`ParallelIterator::skip_any_while`], and whether skipping goes on.
pub struct SkipWhile<P> {
    predicate: P,
    skipping: AtomicBool,
}

/// The predicate of [`ParallelIterator::take_any_while`], and whether taking goes on.
pub struct TakeWhile<P> {
    predicate: P,
    taking: AtomicBool,
}

impl Clone for SkipCount {
    fn clone(&self) -> Self {
        SkipCount(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

impl Clone for TakeCount {
    fn clone(&self) -> Self {
        TakeCount(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

impl<P: Clone> Clone for SkipWhile<P> {
    fn clone(&self) -> Self {
        SkipWhile {
            predicate: self.predicate.clone(),
            skipping: super::flag_copy(&self.skipping),
        }
    }
}

impl<P: Clone> Clone for TakeWhile<P> {
    fn clone(&self) -> Self {
        TakeWhile {
            predicate: self.predicate.clone(),
            taking: super::flag_copy(&self.taking),
        }
    }
}

debug_fields! {
    [P] SkipWhile<P> { skipping };
    [P] TakeWhile<P> { taking };
}

/// One decrement of `count`, if it is not yet zero.
fn claim(count: &AtomicUsize) -> bool {
    // Relaxed: the read-modify-write alone makes each claim unique; nothing else is
    // published through the count.
    count
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| c.checked_sub(1))
        .is_ok()
}

impl<T> AnyRule<T> for SkipCount {
    fn step(&self, _item: &T) -> AnyStep {
        if claim(&self.0) {
            AnyStep::Skip
        } else {
            AnyStep::Yield
        }
    }
}

impl<T> AnyRule<T> for TakeCount {
    fn done(&self) -> bool {
        self.0.load(Ordering::Relaxed) == 0
    }

    fn step(&self, _item: &T) -> AnyStep {
        if claim(&self.0) {
            AnyStep::Yield
        } else {
            AnyStep::Stop
        }
    }
}

impl<T, P: Fn(&T) -> bool + Send + Sync> AnyRule<T> for SkipWhile<P> {
    fn step(&self, item: &T) -> AnyStep {
        // Relaxed: a hint; an item seen after another leaf stopped skipping may still be
        // skipped if it satisfies the predicate, as under rayon.
        if self.skipping.load(Ordering::Relaxed) {
            if (self.predicate)(item) {
                return AnyStep::Skip;
            }
            self.skipping.store(false, Ordering::Relaxed);
        }
        AnyStep::Yield
    }
}

impl<T, P: Fn(&T) -> bool + Send + Sync> AnyRule<T> for TakeWhile<P> {
    fn done(&self) -> bool {
        !self.taking.load(Ordering::Relaxed)
    }

    fn step(&self, item: &T) -> AnyStep {
        if (self.predicate)(item) {
            AnyStep::Yield
        } else {
            self.taking.store(false, Ordering::Relaxed);
            AnyStep::Stop
        }
    }
}

/// A chain's items filtered by a shared [`AnyRule`].
#[derive(Clone)]
pub struct AnyItems<I, R> {
    base: I,
    rule: R,
}

impl<I: fmt::Debug, R: fmt::Debug> fmt::Debug for AnyItems<I, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnyItems")
            .field("base", &self.base)
            .field("rule", &self.rule)
            .finish()
    }
}

/// [`ParallelIterator::skip_any`].
pub type SkipAny<I> = AnyItems<I, SkipCount>;
/// [`ParallelIterator::take_any`].
pub type TakeAny<I> = AnyItems<I, TakeCount>;
/// [`ParallelIterator::skip_any_while`].
pub type SkipAnyWhile<I, P> = AnyItems<I, SkipWhile<P>>;
/// [`ParallelIterator::take_any_while`].
pub type TakeAnyWhile<I, P> = AnyItems<I, TakeWhile<P>>;

impl<I> AnyItems<I, SkipCount> {
    pub(super) fn skip(base: I, n: usize) -> Self {
        AnyItems {
            base,
            rule: SkipCount(AtomicUsize::new(n)),
        }
    }
}

impl<I> AnyItems<I, TakeCount> {
    pub(super) fn take(base: I, n: usize) -> Self {
        AnyItems {
            base,
            rule: TakeCount(AtomicUsize::new(n)),
        }
    }
}

impl<I, P> AnyItems<I, SkipWhile<P>> {
    pub(super) fn skip_while(base: I, predicate: P) -> Self {
        AnyItems {
            base,
            rule: SkipWhile {
                predicate,
                skipping: AtomicBool::new(true),
            },
        }
    }
}

impl<I, P> AnyItems<I, TakeWhile<P>> {
    pub(super) fn take_while(base: I, predicate: P) -> Self {
        AnyItems {
            base,
            rule: TakeWhile {
                predicate,
                taking: AtomicBool::new(true),
            },
        }
    }
}

impl<I, R> ParallelIterator for AnyItems<I, R>
where
    I: ParallelIterator,
    R: AnyRule<I::Item>,
{
    type Item = I::Item;
    type Seq<'a>
        = AnySeq<'a, I::Seq<'a>, R>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.base.position_count()
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        self.base.leaf_bounds()
    }

    fn driven(&mut self, positions: usize) {
        self.base.driven(positions);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        AnySeq {
            // SAFETY: forwarded from the caller.
            inner: unsafe { self.base.seq(range) },
            rule: &self.rule,
        }
    }
}

/// A leaf of an [`AnyItems`].
#[derive(Debug)]
pub struct AnySeq<'a, S, R> {
    inner: S,
    rule: &'a R,
}

impl<S: Iterator, R: AnyRule<S::Item>> Iterator for AnySeq<'_, S, R> {
    type Item = S::Item;

    fn next(&mut self) -> Option<S::Item> {
        loop {
            if self.rule.done() {
                return None;
            }
            let item = self.inner.next()?;
            match self.rule.step(&item) {
                AnyStep::Yield => return Some(item),
                AnyStep::Skip => continue,
                AnyStep::Stop => return None,
            }
        }
    }
}
