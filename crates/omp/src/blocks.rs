//! Task records' memory: a per-thread free list of blocks of one size, big enough for
//! a record and the data of most tasks (GCC's argument blocks are a few pointers), so
//! `GOMP_task` neither allocates nor frees in the steady state. Larger or more aligned
//! records go to the global allocator.
//!
//! Only the owning thread touches its list, which lives in the thread's `member::Local`
//! (one thread-local lookup per task for everything `GOMP_task` needs). A block freed
//! on another thread than the one that took it joins that thread's list; each list
//! keeps at most [`KEEP`] blocks (the rest go back to the allocator) and frees them
//! when its thread exits.

use std::alloc::{self, Layout};
use std::cell::Cell;

/// The size of a pooled block: a record (`crate::node::Node`, under 256 bytes) and 64 bytes of
/// data. Guess.
pub(crate) const SIZE: usize = 384;
/// The alignment of a pooled block.
pub(crate) const ALIGN: usize = 16;
/// Blocks a thread keeps; guess (fib's live tasks per worker stay far below).
const KEEP: usize = 1024;

/// The layout of a pooled block.
#[inline]
pub(crate) fn layout() -> Layout {
    // SAFETY: ALIGN is a power of two and SIZE a multiple of it, far below isize::MAX.
    unsafe { Layout::from_size_align_unchecked(SIZE, ALIGN) }
}

/// A free block: its first word links to the next.
struct Free {
    next: *mut Free,
}

/// One thread's free blocks. It has no destructor (so that it can sit in a
/// const-initialised thread-local read without a state check); the first block kept
/// registers [`EXIT`], which frees the list when the thread exits.
pub(crate) struct List {
    head: Cell<*mut Free>,
    len: Cell<usize>,
    registered: Cell<bool>,
}

impl List {
    pub(crate) const fn new() -> List {
        List {
            head: Cell::new(std::ptr::null_mut()),
            len: Cell::new(0),
            registered: Cell::new(false),
        }
    }

    fn drain(&self) {
        let mut p = self.head.replace(std::ptr::null_mut());
        self.len.set(0);
        while !p.is_null() {
            // SAFETY: every block on the list is a free pooled block, owned by the list.
            unsafe {
                let next = (*p).next;
                alloc::dealloc(p.cast(), layout());
                p = next;
            }
        }
    }
}

/// Frees this thread's list at its exit: the list it was registered for (a thread's
/// one list, in a thread-local without a destructor, so live until the thread ends).
struct AtExit(Cell<*const List>);

impl Drop for AtExit {
    fn drop(&mut self) {
        // SAFETY: the thread's list, set by `register` (see the type), or none.
        if let Some(list) = unsafe { self.0.get().as_ref() } {
            list.drain();
        }
    }
}

thread_local! {
    static EXIT: AtExit = const { AtExit(Cell::new(std::ptr::null())) };
}

/// Allocates `layout` for this thread (whose list is `list`): a pooled block if it
/// fits in one, else from the allocator.
#[inline]
pub(crate) fn alloc(list: &List, layout: Layout) -> *mut u8 {
    if layout.size() <= SIZE && layout.align() <= ALIGN {
        let p = list.head.get();
        if !p.is_null() {
            // SAFETY: a free block on this thread's list.
            list.head.set(unsafe { (*p).next });
            list.len.set(list.len.get() - 1);
            return p.cast();
        }
        return fresh(self::layout());
    }
    fresh(layout)
}

fn fresh(layout: Layout) -> *mut u8 {
    // SAFETY: the layouts passed here have a non-zero size (a task record at least).
    let p = unsafe { alloc::alloc(layout) };
    if p.is_null() {
        alloc::handle_alloc_error(layout);
    }
    p
}

/// Frees a block `alloc(layout)` returned, onto this thread's list `list`.
///
/// # Safety
/// `p` came from [`alloc()`] (on any thread) with `layout` and is not used again.
#[inline]
pub(crate) unsafe fn free(list: &List, p: *mut u8, layout: Layout) {
    if layout.size() <= SIZE && layout.align() <= ALIGN {
        let kept = list.len.get() < KEEP && (list.registered.get() || register(list));
        if kept {
            let f = p.cast::<Free>();
            // SAFETY: a pooled block (SIZE bytes at ALIGN), no longer used: its first word
            // becomes the link.
            unsafe {
                f.write(Free {
                    next: list.head.get(),
                })
            };
            list.head.set(f);
            list.len.set(list.len.get() + 1);
        } else {
            // SAFETY: a pooled block, allocated with the pooled layout.
            unsafe { alloc::dealloc(p, self::layout()) };
        }
        return;
    }
    // SAFETY: allocated with `layout` in `fresh` (the caller's contract).
    unsafe { alloc::dealloc(p, layout) };
}

/// Registers the list's exit hook; whether blocks may be kept (not while the thread's
/// thread-locals are being destroyed).
#[cold]
fn register(list: &List) -> bool {
    let ok = EXIT.try_with(|exit| exit.0.set(list)).is_ok();
    list.registered.set(ok);
    ok
}
