//! Task reductions: `GOMP_taskgroup_reduction_register/_unregister` and
//! `GOMP_task_reduction_remap`, which GCC emits for `taskgroup task_reduction`, `task
//! in_reduction` and `taskloop reduction` (through `GOMP_taskloop`'s reduction flag),
//! and the `reduction(task, ...)` clause of `parallel` ([`register_parallel`]) and of
//! the worksharing constructs ([`workshare_register`]).
//!
//! GCC describes the reductions of a construct in a block of words it owns (the layout
//! of libgomp's task.c): `[0]` the number of variables, `[1]` the bytes of one thread's
//! private copies, `[2]` their alignment, which the runtime replaces with the address of
//! `nthreads` zeroed copies, `[3]` the allocator, `[4]` the next (older) block, `[5]`
//! and `[6]` the runtime's (here: `[5]` marks the last block of one registration, `[6]`
//! the end of its copies); then per variable its original address, its offset in a
//! thread's copies and a word for the runtime (here: the block's address). The
//! compiler initialises and combines the copies itself; the runtime allocates them,
//! finds a thread's copy of a variable, and frees them.
//!
//! A block is registered in the running task's innermost taskgroup, and chains to the
//! blocks its enclosing groups registered (a group starts with its parent's), so a task
//! finds every reduction it may take part in. A task's copy is the one of the team
//! member running it: tasks run only on their team's members, and a team of `n` members
//! numbers them `0..n`. Lookups walk the chain (a construct has few reductions) instead
//! of libgomp's hash table.

use crate::{member, task, team};
use std::ffi::c_void;
use std::sync::atomic::Ordering::Relaxed;

/// The words of a block's header, then of each variable's entry.
const HEADER: usize = 7;
const ENTRY: usize = 3;

/// `GOMP_taskgroup_reduction_register`: allocates the private copies of `data`'s
/// reductions (and of the blocks chained after it in the same registration) for every
/// member of the team, and makes them the running task's innermost group's.
///
/// # Safety
/// `data` is GCC's reduction block, live until `unregister`.
pub(crate) unsafe fn register(data: *mut usize) {
    let Some(group) = task::current_group() else {
        crate::env::fail("a task reduction outside any taskgroup");
    };
    let old = group.reductions.load(Relaxed);
    // SAFETY: the caller's contract.
    unsafe { allocate(data, member::member().team().size, old) };
    group.reductions.store(data as usize, Relaxed);
}

/// Allocates `threads` zeroed private copies for each block of the registration that
/// starts at `data`, and chains the last to `old`.
///
/// # Safety
/// As for [`register`].
unsafe fn allocate(data: *mut usize, threads: usize, old: usize) {
    let mut d = data;
    loop {
        // SAFETY: GCC's block (the caller's contract), and the ones it chains.
        unsafe {
            let size = (*d.add(1)).max(1) * threads;
            let align = (*d.add(2))
                .max(std::mem::size_of::<usize>())
                .next_power_of_two();
            let mut copies: *mut c_void = std::ptr::null_mut();
            if libc::posix_memalign(&mut copies, align, size) != 0 {
                crate::env::fail("task reductions: out of memory for the private copies");
            }
            std::ptr::write_bytes(copies.cast::<u8>(), 0, size);
            *d.add(2) = copies as usize;
            *d.add(6) = copies as usize + size;
            *d.add(5) = 0;
            for j in 0..*d {
                *d.add(HEADER + j * ENTRY + 2) = d as usize;
            }
            if *d.add(4) == 0 {
                // The last block of this registration: chain the older ones after it.
                *d.add(4) = old;
                *d.add(5) = 1;
                break;
            }
            d = *d.add(4) as *mut usize;
        }
    }
}

/// `GOMP_parallel_reductions`' registration: copies for the `threads` members of the
/// region about to start; each member's implicit task then opens a group holding them
/// ([`enter_parallel`]). GCC combines and unregisters them after the region.
///
/// # Safety
/// As for [`register`].
pub(crate) unsafe fn register_parallel(data: *mut usize, threads: usize) {
    // SAFETY: the caller's contract; no enclosing reductions reach into a new region.
    unsafe { allocate(data, threads, 0) };
}

/// A member of a region with task reductions starts: its implicit task opens a group
/// holding the region's reductions, which the tasks it makes join.
pub(crate) fn enter_parallel(data: usize) {
    task::taskgroup_start();
    if let Some(group) = task::current_group() {
        group.reductions.store(data, Relaxed);
    }
}

/// The task reductions of a worksharing construct (`for`, `sections` or `scope` with
/// `reduction(task, ...)`; GCC 9's `GOMP_loop_start`, `GOMP_sections2_start`,
/// `GOMP_scope_start`). Every member passes its own block describing the same
/// variables: the first to claim the construct allocates the copies for the team,
/// the others point their blocks at those. Each member then opens a group holding its
/// block, which the tasks it makes in the construct join; GCC's code combines the
/// copies after the construct, on thread 0, before [`workshare_unregister`].
///
/// # Safety
/// `data` is GCC's block, live until `workshare_unregister`; `w` is the member's
/// construct.
pub(crate) unsafe fn workshare_register(data: *mut usize, w: &crate::workshare::WorkShare) {
    use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
    task::taskgroup_start();
    let Some(group) = task::current_group() else {
        unreachable!("taskgroup_start opened one");
    };
    let old = group.reductions.load(Relaxed);
    if !w.reductions_claimed.swap(true, AcqRel) {
        // SAFETY: the caller's contract.
        unsafe { allocate(data, member::member().team().size, old) };
        // Release: the copies' addresses, written above, before the block is seen.
        w.reductions.store(data as usize, Release);
    } else {
        // The first member is inside its `GOMP_*_start` (its block lives on its stack
        // until the construct's end), with no task to wait for.
        locus::raw::spin_until(|| w.reductions.load(Acquire) != 0);
        let first = w.reductions.load(Acquire) as *const usize;
        // SAFETY: both blocks describe the same reductions, block for block; the
        // first's is live (above).
        unsafe { adopt(data, first, old) };
    }
    group.reductions.store(data as usize, Relaxed);
}

/// Points each block of `data`'s registration at the copies `first` (the same
/// reductions, registered by another member) allocated, and chains the last to `old`.
///
/// # Safety
/// As for [`workshare_register`].
unsafe fn adopt(data: *mut usize, first: *const usize, old: usize) {
    let (mut d, mut f) = (data, first);
    loop {
        // SAFETY: the caller's contract: the two chains match block for block.
        unsafe {
            *d.add(2) = *f.add(2);
            *d.add(6) = *f.add(6);
            *d.add(5) = 0;
            for j in 0..*d {
                *d.add(HEADER + j * ENTRY + 2) = d as usize;
            }
            if *d.add(4) == 0 || *f.add(5) != 0 {
                *d.add(4) = old;
                *d.add(5) = 1;
                break;
            }
            d = *d.add(4) as *mut usize;
            f = *f.add(4) as *const usize;
        }
    }
}

/// `GOMP_workshare_task_reduction_unregister`: the member's group of the construct
/// closes (its tasks are done), thread 0 frees the copies (GCC's code has combined
/// them), and, unless the construct was cancelled, the team meets at a barrier so that
/// nobody leaves while they are in use.
pub(crate) fn workshare_unregister(cancelled: bool) {
    // A scope's record ends here (a loop's and sections' ended at their `_end`).
    crate::loops::end_nowait(member::member());
    let data = task::current_group().map_or(0, |g| g.reductions.load(Relaxed));
    task::taskgroup_end();
    if member::member().num == 0 && data != 0 {
        // SAFETY: registered by `workshare_register` for this construct; only thread 0
        // frees it, once (every member's block points at the same copies).
        unsafe { unregister(data as *mut usize) };
    }
    if !cancelled {
        team::barrier();
    }
}

/// `GOMP_taskgroup_reduction_unregister`: frees the copies `register` made for `data`
/// (GCC has combined them into the originals).
///
/// # Safety
/// `data` was registered and is unregistered once.
pub(crate) unsafe fn unregister(data: *mut usize) {
    let mut d = data;
    loop {
        // SAFETY: a registered block and the blocks of its registration.
        unsafe {
            libc::free(*d.add(2) as *mut c_void);
            let last = *d.add(5) != 0;
            d = *d.add(4) as *mut usize;
            if last || d.is_null() {
                break;
            }
        }
    }
}

/// `GOMP_task_reduction_remap`: replaces each of `ptrs[0..cnt]` (an original variable,
/// or some member's copy of one) with the running member's copy; for `i < cntorig`
/// also stores the original's address in `ptrs[cnt + i]`.
///
/// # Safety
/// `ptrs` holds `cnt + cntorig` writable pointers; the running task takes part in the
/// reductions they name.
pub(crate) unsafe fn remap(cnt: usize, cntorig: usize, ptrs: *mut *mut c_void) {
    let chain = task::current_group().map_or(0, |g| g.reductions.load(Relaxed));
    let id = member::member().num;
    for i in 0..cnt {
        // SAFETY: the caller's contract; the blocks of the chain are GCC's, live while
        // the taskgroups that registered them are open.
        unsafe {
            let p = *ptrs.add(i) as usize;
            let Some((d, offset, original)) = find(chain, p) else {
                crate::env::fail(&format!(
                    "no task reduction of the enclosing taskgroups covers {p:#x}"
                ));
            };
            *ptrs.add(i) = (*d.add(2) + id * *d.add(1) + offset) as *mut c_void;
            if i < cntorig {
                *ptrs.add(cnt + i) = original as *mut c_void;
            }
        }
    }
}

/// The block of `chain` that covers address `p` (an original variable or a copy), the
/// variable's offset in a thread's copies, and its original address.
unsafe fn find(chain: usize, p: usize) -> Option<(*const usize, usize, usize)> {
    let mut d = chain as *const usize;
    while !d.is_null() {
        // SAFETY: the caller's contract (GCC's live blocks).
        unsafe {
            let entries = d.add(HEADER);
            for j in 0..*d {
                let e = entries.add(j * ENTRY);
                if *e == p {
                    return Some((d, *e.add(1), p));
                }
            }
            let (start, end, size) = (*d.add(2), *d.add(6), (*d.add(1)).max(1));
            if (start..end).contains(&p) {
                let offset = (p - start) % size;
                let original = (0..*d)
                    .map(|j| entries.add(j * ENTRY))
                    .find(|e| *e.add(1) == offset)
                    .map(|e| *e)?;
                return Some((d, offset, original));
            }
            d = *d.add(4) as *const usize;
        }
    }
    None
}
