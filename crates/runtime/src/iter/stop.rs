//! Leaves that stop early inside the adapters that go through many of their base's
//! items per item they give: `filter`, `filter_map`, the folds and the flattening
//! adapters.
//!
//! A terminal that no longer needs any item once a flag is set (`find_any`, and `any`
//! and `all` through it; `try_reduce` after a failure) drives its leaves with a
//! [`Stop`] over that flag. A terminal checks its flag only between the items a leaf
//! gives it; a `filter` whose leaf has no match, or a fold, goes through all of its
//! base's items before giving one. So the adapters take the stop of the terminal when
//! their leaf is made (`ParallelIterator::seq`) and check it before each base item, as
//! rayon's folders check `full()`: a leaf of `(0..10u128.pow(27)).into_par_iter()
//! .filter(..).find_any(..)` ends as soon as another leaf found a match.
//!
//! A fold under such a terminal gives an accumulator every [`STOPPING_RUN`] items rather
//! than one per leaf (rayon's contract for `fold`: at least one accumulator per piece it
//! splits into), so that `fold(..).find_any(..)` over a leaf of 10^21 items ends too.
//!
//! The stop reaches the adapters through a thread-local that the driver sets only while
//! it makes a leaf's iterator ([`Stop::install`]): a terminal the user calls from inside
//! a closure is not stopped by the enclosing one. A flattening adapter hands its stop on
//! to the nested loops it runs for its inner iterators. An adapter that stops gives
//! fewer items than it has, but only once the flag is set, after which the terminal
//! takes no more items (the flag is never cleared, and a leaf that saw it set, or a
//! nested loop joined after it saw it, is ordered before the terminal's next check).

use locus_policy::SpawnOrder;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    /// The stop of the leaf whose iterator this thread is making, if any.
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// A terminal's flag, as the adapters of a leaf see it: none, or set once the terminal
/// needs no more items.
#[derive(Clone, Debug, Default)]
pub struct Stop(Option<Arc<AtomicBool>>);

impl Stop {
    /// A stop over `flag`.
    pub(super) fn new(flag: &Arc<AtomicBool>) -> Stop {
        Stop(Some(Arc::clone(flag)))
    }

    /// The stop installed on this thread (none outside [`Stop::install`]).
    pub(super) fn current() -> Stop {
        Stop(CURRENT.with(|c| c.borrow().clone()))
    }

    /// Whether this thread is inside a leaf of a terminal that stops, making its
    /// iterator or gathering a window of a flattening adapter's inner iterator (a nested
    /// loop it waits for): the wait of such a loop must not start a leaf of the search
    /// that ends only by the stop (`registry/search.rs`).
    pub(crate) fn in_search() -> bool {
        CURRENT.with(|c| c.borrow().is_some())
    }

    /// The order in which a flat loop driven under this stop spawns its jobs: spread
    /// over the loop under a terminal that stops, so that leaves which end only by the
    /// stop hold up no part of the loop (`locus_policy::SpawnOrder`).
    pub(super) fn spawn_order(&self) -> SpawnOrder {
        match self.0 {
            Some(_) => SpawnOrder::Spread,
            None => SpawnOrder::InOrder,
        }
    }

    /// Whether the terminal needs no more items.
    #[inline]
    pub(super) fn now(&self) -> bool {
        // Relaxed: a hint to stop early; what the terminal returns is ordered by the
        // loop's joins, and the flag only ever goes from false to true.
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Runs `f` (which makes a leaf's iterator) with this stop installed on this thread,
    /// and puts back what was there, also when `f` panics.
    pub(super) fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        Self::swap_during(self.0.clone(), f)
    }

    fn swap_during<R>(stop: Option<Arc<AtomicBool>>, f: impl FnOnce() -> R) -> R {
        /// Puts the previous stop back when dropped.
        struct Restore(Option<Arc<AtomicBool>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), stop));
        let _restore = Restore(previous);
        f()
    }

    /// `items`, ending once the terminal needs no more.
    pub(super) fn wrap<S>(self, items: S) -> Stoppable<S> {
        Stoppable { items, stop: self }
    }
}

/// A leaf's base items that end once its terminal needs no more (see [`Stop`]).
#[derive(Debug)]
pub struct Stoppable<S> {
    items: S,
    stop: Stop,
}

impl<S: Iterator> Iterator for Stoppable<S> {
    type Item = S::Item;

    #[inline]
    fn next(&mut self) -> Option<S::Item> {
        if self.stop.now() {
            return None;
        }
        self.items.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.items.size_hint().1)
    }

    fn fold<B, F: FnMut(B, S::Item) -> B>(self, init: B, mut f: F) -> B {
        if self.stop.0.is_none() {
            // No terminal to stop for: the base's own (internal) iteration.
            return self.items.fold(init, f);
        }
        let mut acc = init;
        for x in self {
            acc = f(acc, x);
        }
        acc
    }
}

/// Under a terminal that stops, a fold's leaf gives an accumulator every this many items.
/// Guess: long enough that the extra accumulators cost nothing next to their items.
pub const STOPPING_RUN: usize = 1024;

/// How a fold's leaf folds a run of its items into one accumulator (`fold`, `fold_with`,
/// `try_fold`).
pub trait FoldRun<X> {
    /// The accumulator.
    type Acc;

    /// `items` folded from a fresh start.
    fn fold_run(&self, items: impl Iterator<Item = X>) -> Self::Acc;
}

/// A fold's leaf: one accumulator of all its items, or under a terminal that stops, one
/// per [`STOPPING_RUN`] items (at least one, ending early once the terminal needs no
/// more).
#[derive(Debug)]
pub struct FoldSeq<S, R> {
    /// `None` once a fold without a stop has taken them: folded by value, the base's
    /// own `fold` runs (std's `Range` folds as a counted loop; folding through `&mut`
    /// steps with `next`, 1.23 times the instructions of rayon's fold of a range into
    /// vectors, measured with callgrind).
    items: Option<Stoppable<S>>,
    run: R,
    /// Whether an accumulator was given.
    given: bool,
    done: bool,
}

impl<S, R> FoldSeq<S, R> {
    /// The leaf folding `items` by `run`, with the stop of the leaf being made.
    pub(super) fn new(items: S, run: R) -> Self {
        FoldSeq {
            items: Some(Stop::current().wrap(items)),
            run,
            given: false,
            done: false,
        }
    }
}

impl<S: Iterator, R: FoldRun<S::Item>> Iterator for FoldSeq<S, R> {
    type Item = R::Acc;

    fn next(&mut self) -> Option<R::Acc> {
        if self.done {
            return None;
        }
        if self
            .items
            .as_ref()
            .is_some_and(|items| items.stop.0.is_none())
        {
            self.done = true;
            let items = self.items.take().expect("checked above");
            return Some(self.run.fold_run(items));
        }
        let items = self.items.as_mut().expect("taken only when done");
        let mut taken = 0;
        let acc = self
            .run
            .fold_run(items.by_ref().take(STOPPING_RUN).inspect(|_| taken += 1));
        self.done = taken < STOPPING_RUN;
        if taken == 0 && self.given {
            return None;
        }
        self.given = true;
        Some(acc)
    }
}
