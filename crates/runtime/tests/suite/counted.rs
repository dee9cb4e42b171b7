//! An item that counts its drops, for the tests that owned items are dropped exactly
//! once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Adds one to its counter when dropped.
pub(crate) struct Counted(pub(crate) Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Counts the [`Counted`] items it makes and their drops, to check that every item made
/// was dropped once.
#[derive(Default)]
pub(crate) struct Tally {
    drops: Arc<AtomicUsize>,
    made: AtomicUsize,
}

impl Tally {
    /// `n` items numbered `first..first + n`, each with a [`Counted`] of this tally.
    pub(crate) fn items(&self, first: usize, n: usize) -> Vec<(usize, Counted)> {
        self.made.fetch_add(n, Ordering::Relaxed);
        (first..first + n)
            .map(|k| (k, Counted(Arc::clone(&self.drops))))
            .collect()
    }

    /// Fails unless every item made so far has been dropped exactly once.
    pub(crate) fn assert_each_dropped_once(&self) {
        assert_eq!(
            self.drops.load(Ordering::Relaxed),
            self.made.load(Ordering::Relaxed),
            "every item made is dropped once"
        );
    }
}
