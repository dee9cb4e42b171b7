//! `collect` into a `Vec`, in order (other collections: `extend.rs`).
//!
//! An indexed chain (one item per position) writes each leaf's items straight into their
//! places in the result: leaf `[lo, hi)` owns slots `lo..hi`. What a leaf has written is
//! held by a [`Written`] guard, which drops those items if it is dropped itself: when the
//! leaf panics halfway, or when another leaf's panic discards the finished leaves'
//! results. Adjacent guards merge as the leaves' results are reduced in order; the last
//! one, covering every slot, is released into the vector's length. So each item is
//! dropped exactly once, by the guard or by the vector, also when a panic cuts the
//! collect short.
//!
//! Other chains (`filter`, `filter_map`, `fold`) collect each leaf into a `Vec`, link the
//! leaves' vectors in order and move them into one at the end.

use super::{drive, ParallelIterator};
use std::collections::LinkedList;
use std::marker::PhantomData;

/// What `collect` can build: rayon's `FromParallelIterator`.
pub trait FromParallelIterator<T: Send>: Sized {
    /// Builds `Self` from the items of `iter`, in order.
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = T>;
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Vec<T>
    where
        I: ParallelIterator<Item = T>,
    {
        if iter.exact_len().is_some() {
            collect_exact(iter)
        } else {
            collect_linked(iter)
        }
    }
}

/// Items `start..start + len` of the result, written and owned by this guard until it is
/// merged or released.
struct Written<T> {
    start: *mut T,
    len: usize,
    marker: PhantomData<T>,
}

// SAFETY: a guard owns the `T`s it has written (in slots no other guard covers), so
// sending it sends them.
unsafe impl<T: Send> Send for Written<T> {}

impl<T> Written<T> {
    /// Merges `self` and the guard of the slots right after it.
    fn merge(self, next: Written<T>) -> Written<T> {
        // Each leaf writes exactly its positions' items (checked by the leaf), so in
        // order the guards are adjacent.
        assert!(
            std::ptr::eq(self.start.wrapping_add(self.len), next.start),
            "collect: a leaf gave fewer items than its positions"
        );
        let merged = Written {
            start: self.start,
            len: self.len + next.len,
            marker: PhantomData,
        };
        std::mem::forget(self);
        std::mem::forget(next);
        merged
    }
}

impl<T> Drop for Written<T> {
    fn drop(&mut self) {
        // SAFETY: the guard's slots hold items it wrote and owns alone.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.start, self.len));
        }
    }
}

/// The result's buffer, shared by the leaves.
struct Slots<T>(*mut T);

// SAFETY: leaves write disjoint slots of the buffer (their own positions); the pointer is
// only offset and written through, never read.
unsafe impl<T: Send> Sync for Slots<T> {}

/// Collects an indexed chain into a vector (see the module documentation).
#[track_caller]
pub(super) fn collect_exact<I: ParallelIterator>(iter: I) -> Vec<I::Item> {
    let mut out = Vec::new();
    collect_exact_into(iter, &mut out);
    out
}

/// Appends the items of an indexed chain to `out`, written in place into its spare
/// capacity (reserved first), so a vector collected into again keeps its buffer.
///
/// `out`'s length stays what it was until every leaf has finished: a panic leaves it
/// holding its old items, while the guards drop the new ones.
#[track_caller]
pub(super) fn collect_exact_into<I: ParallelIterator>(iter: I, out: &mut Vec<I::Item>) {
    let n = iter
        .exact_len()
        .expect("collect_exact is called on indexed chains");
    out.reserve(n);
    let old = out.len();
    // SAFETY: `old <= capacity`, so the pointer is within (or one past) the buffer.
    let slots = Slots(unsafe { out.as_mut_ptr().add(old) });
    let slots = &slots;
    let written = drive(
        iter,
        |range, items| {
            let mut guard = Written {
                // SAFETY: `range.start <= n`, within the `n` reserved slots.
                start: unsafe { slots.0.add(range.start) },
                len: 0,
                marker: PhantomData,
            };
            // An indexed chain gives one item per position: taking at most that many
            // keeps the writes inside the leaf's slots without a test per item. Driven
            // by `for_each` (the items' own fold), which std's adapters run as a plain
            // loop the compiler can vectorise, where `next` in a `for` loop is not.
            let len = &mut guard.len;
            let start = guard.start;
            items.take(range.len()).for_each(|item| {
                // SAFETY: slot `range.start + len` is this leaf's and unwritten, and
                // `len < range.len()` (the `take`), so it is inside the reserved slots.
                unsafe { start.add(*len).write(item) };
                *len += 1;
            });
            assert_eq!(
                guard.len,
                range.len(),
                "collect: a leaf gave fewer items than its positions"
            );
            guard
        },
        Written::merge,
    );
    if let Some(w) = written {
        assert_eq!(
            w.len, n,
            "collect: the leaves gave fewer items than positions"
        );
        std::mem::forget(w);
        // SAFETY: the released guard covered the `n` slots after `old`, all written.
        unsafe { out.set_len(old + n) };
    }
}

/// Collects any chain: a vector per leaf, linked in order, then moved into one.
#[track_caller]
fn collect_linked<I: ParallelIterator>(iter: I) -> Vec<I::Item> {
    let lists = vec_list(iter);
    let total = lists.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    for mut part in lists {
        out.append(&mut part);
    }
    out
}

/// The items of any chain in order, as a vector per leaf.
#[track_caller]
pub(super) fn vec_list<I: ParallelIterator>(iter: I) -> LinkedList<Vec<I::Item>> {
    drive(
        iter,
        |_, items| {
            // Gathered through the items' own fold (`for_each`), which a source that
            // folds faster than it steps (a tree walk's recursion) runs as its loop;
            // `collect` would call `next` per item.
            let mut leaf = Vec::with_capacity(items.size_hint().0);
            items.for_each(|item| leaf.push(item));
            let mut list = LinkedList::new();
            list.push_back(leaf);
            list
        },
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    )
    .unwrap_or_default()
}
