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
