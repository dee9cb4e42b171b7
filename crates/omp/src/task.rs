//! Explicit tasks: `GOMP_task`, `taskwait`, `taskgroup` and `depend`.
//!
//! # A task's record
//! A [`Node`] is one task: a [`RawTask`] first (what locus runs and the policy sees),
//! then the function, its data (copied at spawn into the same allocation), its parent,
//! and its [`TaskState`] (`wait.rs`): its incomplete children (what `taskwait` waits
//! for) and its references: one for itself until it completes, one for each child not
//! yet released. A child releases its parent when its
//! own references reach zero, that is when it and every task below it have completed;
//! the record is freed then. So an implicit task whose references are down to its own
//! has no incomplete descendant (what a barrier waits for), and a parent that returns
//! before its children stays allocated until they are done.
//!
//! # Waiting
//! On a crew worker (`team.rs`), a task waits on its own state (or a taskgroup's count)
//! through [`locus::raw::wait_until`], running other tasks of the team meanwhile, after
//! publishing its worker in a [`WaiterSlot`]; whoever brings the count to its end
//! wakes it (`locus::raw::wake` on a worker of the same crew, else through the crew).
//! The handshake and its orderings are in `wait.rs`, with loom models in
//! `src/tests/loom_wait.rs`. A team's thread 0, no worker of its crew, waits running
//! only the team's tasks still in the crew's injector, where the policy allows, and
//! needs no wake (`member::wait_helping`).
//!
//! # Publishing
//! A ready task goes to its team's crew: spawned there by a crew worker, injected into
//! the crew's pool by thread 0 (`publish`).
//!
//! # Dependences
//! A parent keeps, per address its children named in `depend`, the last child that
//! wrote it and the readers since. A new child depends on the last writer (reads) or on
//! it and every reader since (writes); it counts its unfinished predecessors in
//! `unmet` (plus one while it registers) and is published by whoever brings that to
//! zero. The table is emptied when the parent's children are all done (at `taskwait`
//! and barriers).
//!
//! # Detached tasks
//! A task made with `detach(event)` completes once both its body has ended and its
//! event is fulfilled (`omp_fulfill_event`, whose handle is the record's address): its
//! [`Ends`] count the two, and whoever reaches the second completes it. An `if(0)` one
//! counts only the event: its spawner waits for it and completes it, the event holding
//! a reference so that the record outlives the fulfiller's wake-up.
//!
//! # Undeferred tasks
//! `if(0)`, tasks made in a final task, and every task of a team of one run at once on
//! the spawning thread, as new tasks (own record, own children). Below a final task all
//! tasks are undeferred, so their records live on the stack. A plain `if(0)` task
//! elsewhere runs as a task run at once does (below), uncounted by its parent and
//! taskgroup.
//!
//! # Tasks run at once
//! A plain task (no `depend`, `if` true) made while its worker already offers thieves
//! [`BACKLOG`] tasks in its own deque (under `mts`, its squad's queue), with no worker
//! of the pool idle (searching for work or asleep: `locus::raw::offers_enough`), runs
//! at once on its thread too ([`run_at_once`]): lazy task creation, as Cilk's
//! work-first execution and libgomp's long-queue rule do it, which OpenMP allows. It
//! costs a record from the thread's free list and the call, against a spawn, a pop
//! and three read-modify-writes on its parent; on fib without a cutoff most tasks run
//! so. The deque refills as soon as thieves take from it, so work stays there to
//! steal. A team's thread 0, no worker of its crew, runs a plain task at once likewise
//! while as many of its tasks as the crew has workers wait unstarted in the crew's
//! injector (`member::Local::first_offers_enough`): it works meanwhile rather than wait
//! idle beside a crew that has enough. Such a task is not counted
//! among its parent's children (it completes before the parent goes on), and
//! `LOCUS_STATS` counts it apart from the pool's tasks; the policy never sees it.

use crate::member;
use crate::node::{task_info, CopyFn, DepNode, Group, Node, OutlinedFn, SendPtr};
use crate::wait::{Ends, TaskState, WaiterSlot};
use crate::{blocks, sync};
use locus::raw::{self, RawTask};
use locus::TaskId;
use std::alloc::{self, Layout};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};

/// `GOMP_task`'s flags (gomp-constants.h).
pub(crate) const FLAG_FINAL: u32 = 1 << 1;
pub(crate) const FLAG_DEPEND: u32 = 1 << 3;
pub(crate) const FLAG_DETACH: u32 = 1 << 13;
/// `GOMP_taskloop`'s flags (gomp-constants.h): the loop counts up (`_ull` only).
pub(crate) const FLAG_UP: u32 = 1 << 8;
/// `num_tasks` is a grainsize.
pub(crate) const FLAG_GRAINSIZE: u32 = 1 << 9;
/// The `if` clause is true (or absent).
pub(crate) const FLAG_IF: u32 = 1 << 10;
/// No implicit taskgroup around the loop.
pub(crate) const FLAG_NOGROUP: u32 = 1 << 11;
/// A task reduction (`reduction` or `in_reduction` on the taskloop).
pub(crate) const FLAG_REDUCTION: u32 = 1 << 12;
/// `grainsize(strict: g)`: every task but the last has exactly `g` iterations.
pub(crate) const FLAG_STRICT: u32 = 1 << 14;

impl Node {
    /// Waits until every task below this (implicit) task has completed.
    pub(crate) fn wait_for_descendants(&self) {
        wait(&self.state.waiter, || self.state.refs() == 1);
    }

    /// A taskwait or barrier ended: all children are done, so their dependences are
    /// forgotten and the next spawns are numbered from 0 again.
    #[inline]
    pub(crate) fn sync_block_ended(&self) {
        self.spawned.set(0);
        if let Some(table) = self.deps.borrow_mut().as_mut() {
            table.clear();
        }
    }

    /// Whether none of the fields that own something (`group`, `open_group`, `deps`,
    /// `dep`: the only ones with drop glue) holds anything, so that dropping the
    /// record would do nothing. Spares the out-of-line drop of the common record.
    ///
    /// # Safety
    /// Called by the thread that runs or ran the task, while no borrow of its cells is
    /// held (read without the cells' borrow counts: two read-modify-writes per task).
    #[inline]
    unsafe fn owns_nothing(&self) -> bool {
        // SAFETY: no borrow is held (the caller's contract), so nothing writes them.
        self.group.is_none()
            && self.dep.is_none()
            && unsafe { (*self.open_group.as_ptr()).is_none() }
            && unsafe { (*self.deps.as_ptr()).is_none() }
    }

    /// Whether this is a final task (`omp_in_final`).
    pub(crate) fn is_final(&self) -> bool {
        self.is_final
    }
}

/// Waits (running other tasks of the team) until `done`, published in `slot` (see
/// `wait.rs`). Only a crew worker runs tasks and publishes itself; any other thread
/// (a team's thread 0, a thread outside every region) waits running nothing, and
/// nobody needs to wake it (`team.rs`).
fn wait(slot: &WaiterSlot, done: impl Fn() -> bool) {
    if !member::local().pooled() {
        member::wait_helping(done);
        return;
    }
    // Under `ws` the awaited tasks are usually on this worker's deque: run them before
    // publishing a waiter.
    if raw::run_own_until(&done) {
        return;
    }
    match locus::current_worker_index() {
        Some(me) => slot.wait(me, done, |done| raw::wait_until(done)),
        None => crate::wait::outside(done),
    }
}

/// Wakes the crew worker published in `slot`, unless it is the caller: through the
/// caller's own pool on a crew worker, else through the crew of the caller's team.
fn wake_waiter(slot: &WaiterSlot) {
    if member::local().pooled() {
        slot.notify(locus::current_worker_index(), raw::wake);
    } else if let Some(crew) = member::member().team().crew() {
        slot.notify(None, |w| crew.wake(w));
    } else {
        // No crew: the waiter, if any, is a thread that waits without sleeping.
        slot.notify(None, |_| {});
    }
}

/// Runs a spawned task: the trampoline locus calls.
unsafe fn run_spawned(raw: *mut RawTask) {
    let node = raw as *const Node;
    let local = member::local();
    // A published task is of the team of the region this worker's pool runs, and runs
    // as this worker's member of it.
    let _share = local.as_share();
    // SAFETY: `raw` is the first field of a live heap node (spawned or injected).
    if unsafe { (*node).injected } {
        member::member().team().injected.fetch_sub(1, Relaxed);
    }
    if !local.pooled() {
        // Run by thread 0 from the crew's pool, which counts only its workers' tasks.
        local.helped.set(local.helped.get() + 1);
    }
    // SAFETY: `raw` is the first field of a live heap node (spawned by `spawn`).
    unsafe { run_here(node, local) };
}

/// Runs task `node` here and completes it.
///
/// # Safety
/// `node` is live and ready, and runs once.
unsafe fn run(node: *const Node) {
    // SAFETY: the caller's contract.
    unsafe { run_here(node, member::local()) }
}

/// [`run`] with this thread's [`member::Local`] at hand.
///
/// # Safety
/// As for [`run`].
#[inline]
unsafe fn run_here(node: *const Node, local: &'static member::Local) {
    {
        let _current = local.enter_task(node);
        // SAFETY: live; the function and data are the program's. A task of a cancelled
        // taskgroup that had not started is skipped (completed without running).
        unsafe {
            if let Some(f) = (*node).f.filter(|_| !in_cancelled_group(&*node)) {
                f((*node).data);
            }
        }
    }
    // SAFETY: live: it holds its own reference until it completes.
    let n = unsafe { &*node };
    // A detached task completes after its event too: here only if that came first. An
    // `if(0)` one is completed by its spawner, which waits for the event.
    if n.detached && (n.awaited || !n.ends.reach()) {
        return;
    }
    // SAFETY: live until its last reference goes, which `complete` handles.
    unsafe { complete(node, &local.blocks) };
}

/// `omp_fulfill_event`: the event of a detached task happened.
///
/// # Safety
/// `event` is the handle of a detached task's event, fulfilled once.
pub(crate) unsafe fn fulfill(event: *mut c_void) {
    let node = event as *const Node;
    // SAFETY: a detached task is live until both its ends are reached, and an
    // undeferred one until the event's reference is given up below.
    let n = unsafe { &*node };
    if !n.detached {
        crate::env::fail("omp_fulfill_event: not the event of a detached task");
    }
    let blocks = &member::local().blocks;
    if n.awaited {
        if n.ends.reach() {
            wake_waiter(&n.state.waiter);
        }
        // SAFETY: the reference the event held (see `spawn_task`), given up once.
        unsafe { release(node, blocks) };
    } else if n.ends.reach() {
        // SAFETY: both ends reached: the task completes, here, once.
        unsafe { complete(node, blocks) };
    }
    // A thread of no team (the program's own) cannot tell which crew's worker waits for
    // what it completed, so `wake_waiter` woke none: it wakes them all, after the counts
    // moved (the waiters check their condition again and sleep on if it does not hold).
    if !member::local().pooled() && member::member().team().crew().is_none() {
        crate::crew::wake_every_crew();
    }
}

/// Marks `node` complete: its successors, its taskgroup, its parent's children count,
/// then its own reference.
/// Freed records go to `blocks`, this thread's list.
unsafe fn complete(node: *const Node, blocks: &blocks::List) {
    // SAFETY: live: it holds its own reference until `release` below.
    let n = unsafe { &*node };
    if let Some(dep) = &n.dep {
        let successors = {
            let mut inner = dep.inner.lock().unwrap_or_else(|e| e.into_inner());
            inner.0 = true;
            std::mem::take(&mut inner.1)
        };
        for s in successors {
            // SAFETY: a successor waits for us, so it is live and not yet run.
            unsafe { predecessor_done(s.0, blocks) };
        }
    }
    if let Some(g) = &n.group {
        if g.count.fetch_sub(1, SeqCst) == 1 {
            wake_waiter(&g.waiter);
        }
    }
    // SAFETY: our reference keeps the parent live.
    let parent = unsafe { &*n.parent };
    if parent.state.child_completed() {
        wake_waiter(&parent.state.waiter);
    }
    if n.layout.size() != 0 && n.state.only_own_ref() {
        // Nothing below it holds a reference (the usual case after a taskwait): free it
        // without giving up its own reference first, one read-modify-write fewer.
        let layout = n.layout;
        // SAFETY: made by `blocks::alloc` with this layout in `new_heap`; only its own
        // reference is left, held here, so nobody else refers to it.
        unsafe {
            std::ptr::drop_in_place(node.cast_mut());
            blocks::free(blocks, node.cast_mut().cast(), layout);
        }
        // SAFETY: the reference it held on its parent, given up once.
        unsafe { release(parent, blocks) };
    } else {
        // SAFETY: our own reference, given up once.
        unsafe { release(node, blocks) };
    }
}

/// Gives up one reference to `node`; the last frees it (onto `blocks`, this thread's
/// list) and releases its parent.
unsafe fn release(mut node: *const Node, blocks: &blocks::List) {
    loop {
        // SAFETY: the caller holds a reference, so the node is live.
        let n = unsafe { &*node };
        if n.implicit {
            // Implicit tasks are waited for by their member, never freed here; the
            // member is woken when the last descendant goes. The member may be past
            // its barrier by then (it sees the count move before the wake-up), so the
            // node must outlive this call: it lives in its region (`Region::implicit`
            // in `team.rs`), or with thread 0, which waits for the crew to leave.
            if n.state.release() == 2 {
                wake_waiter(&n.state.waiter);
            }
            return;
        }
        if n.state.release() != 1 {
            return;
        }
        let parent = n.parent;
        let layout = n.layout;
        if layout.size() != 0 {
            // SAFETY: made by `blocks::alloc` with this layout in `new_heap`; nobody
            // refers to it any more (its last reference is gone).
            unsafe {
                std::ptr::drop_in_place(node.cast_mut());
                blocks::free(blocks, node.cast_mut().cast(), layout);
            }
        }
        node = parent;
    }
}

/// One predecessor of `node` completed; publish (or wake) it if it was the last.
/// Whatever releases a task spawned inline goes to `blocks`, this thread's list.
///
/// # Safety
/// `node` waits for this predecessor, once; if it is inline, its spawner took the
/// reference for this wake-up (`spawn_task`).
unsafe fn predecessor_done(node: *const Node, blocks: &blocks::List) {
    // SAFETY: live until its count reaches zero.
    let n = unsafe { &*node };
    // Read before the count: once it is zero, an inline task's spawner may run,
    // complete and free it, and its block may hold a new deferred task, which this
    // would then publish before its own predecessors were done (GCC's taskwait_depend
    // test saw a stale value once in some hundred runs under rr-fifo, and hung).
    let inline = n.inline;
    if n.unmet.fetch_sub(1, SeqCst) == 1 {
        if inline {
            wake_waiter(&n.state.waiter);
            // SAFETY: the reference taken for this wake-up, given up once, after it.
            unsafe { release(node, blocks) };
        } else {
            // SAFETY: ready, live, published once.
            unsafe { publish(node) };
        }
    }
}

/// Hands a ready heap task to locus: a crew worker spawns it into its own pool, any
/// other member of a team (its thread 0) injects it into the team's crew (`team.rs`).
/// Without a crew (a team of one, whose tasks are never deferred, or a thread outside
/// every region fulfilling an event) it runs here.
unsafe fn publish(node: *const Node) {
    let task = node.cast_mut().cast();
    if member::local().pooled() {
        // SAFETY: a heap node starts with its RawTask; live until run, run once.
        if unsafe { raw::spawn(task) }.is_ok() {
            return;
        }
    } else if let Some(crew) = member::member().team().crew() {
        // SAFETY: not yet published, so this thread alone touches the node.
        unsafe { (*node.cast_mut()).injected = true };
        member::member().team().injected.fetch_add(1, Relaxed);
        // SAFETY: as above.
        unsafe { raw::inject(&crew.pool, task) };
        return;
    }
    // SAFETY: as above.
    unsafe { run(node) };
}

/// The arguments of `GOMP_task` that describe the task.
#[derive(Clone, Copy)]
pub(crate) struct Spawn {
    pub(crate) f: OutlinedFn,
    pub(crate) data: *mut c_void,
    pub(crate) cpyfn: Option<CopyFn>,
    pub(crate) arg_size: usize,
    pub(crate) arg_align: usize,
    pub(crate) if_clause: bool,
    pub(crate) flags: u32,
    pub(crate) depend: *mut *mut c_void,
    /// A taskloop task's iterations `[first, end)`, written into the first two words
    /// of its data once copied (`taskloop.rs`); `None` for a task construct.
    pub(crate) range: Option<[u64; 2]>,
    /// `detach(event)`: where the task's event handle goes (with `FLAG_DETACH`).
    pub(crate) detach: *mut c_void,
}

/// Writes a taskloop task's range (if any) over the first two words of its data, where
/// GCC's outlined function reads its bounds.
///
/// # Safety
/// With a range, `data` is the task's own data block of at least two aligned words.
#[inline]
unsafe fn write_range(data: *mut c_void, range: Option<[u64; 2]>) {
    if let Some(r) = range {
        // SAFETY: the caller's contract; GCC's block starts with the two bounds.
        unsafe { data.cast::<[u64; 2]>().write(r) };
    }
}

/// `GOMP_task`.
///
/// # Safety
/// The arguments are GCC's for a task construct: `data` holds `arg_size` readable
/// bytes (or is what `cpyfn` reads), `depend` is GCC's dependence array if
/// `FLAG_DEPEND` is set.
#[inline]
pub(crate) unsafe fn task(s: Spawn) {
    let local = member::local();
    let parent = local.current();
    if children_cancelled(parent) {
        // The taskgroup it would join is cancelled: the task is not made (libgomp's
        // `GOMP_task` returns at once too).
        return;
    }
    let plain = s.flags & (FLAG_DETACH | FLAG_DEPEND) == 0;
    // An `if(0)` task runs at once anyway: as one run at once, it skips the counts on
    // its parent and taskgroup that only a deferred task needs (it completes before its
    // parent goes on), and the copy of its data.
    if plain
        && !parent.is_final
        && !parent.alone
        && (!s.if_clause
            || local.offers_enough(BACKLOG)
            || local.first_offers_enough()
            || local.deep())
    {
        // SAFETY: GCC's arguments of a task without depend (the caller's contract).
        unsafe { run_at_once(local, &s, parent) };
    } else {
        // SAFETY: as above.
        unsafe { spawn_task(local, s, parent) };
    }
}

/// The child `parent` makes next: its id (from the spawn path and the function, so that
/// a program's second run of the same code names its tasks the same) and level.
#[inline]
fn next_child(parent: &Node, f: OutlinedFn) -> (TaskId, u32) {
    let index = parent.spawned.get();
    parent.spawned.set(index.wrapping_add(1));
    let id = TaskId(
        parent
            .id
            .child(locus_task::FIRST_SCOPE_SPAWN.wrapping_add(index))
            .0
            ^ locus_task::rng::mix64(f as usize as u64),
    );
    (id, parent.level + 1)
}

/// The taskgroup a child of `parent` joins: the innermost one open in it, else the one
/// it was made in.
#[inline]
fn group_of_children(parent: &Node) -> Option<Arc<Group>> {
    parent
        .open_group
        .borrow()
        .clone()
        .or_else(|| parent.group.clone())
}

/// [`group_of_children`] for a task run at once, without touching the group's reference
/// count (a read-modify-write on a line every thread of the team writes so: 16-18% of
/// the time of GCC's `cancel-taskgroup-1`, whose tasks all run in a taskgroup): the
/// parent holds the group while the task runs, and the task runs within that.
///
/// # Safety
/// The `Arc` returned is borrowed: it must be forgotten, not dropped, unless its count
/// is raised first (as [`run_at_once`] does either way).
#[inline]
unsafe fn borrowed_group_of_children(parent: &Node) -> Option<Arc<Group>> {
    // SAFETY: the parent runs on this thread, which holds no borrow of its cells while
    // it spawns (only `taskgroup_start` and `taskgroup_end` write this one, between
    // spawns): read without the borrow count.
    let open = unsafe { &*parent.open_group.as_ptr() };
    let group = open.as_ref().or(parent.group.as_ref())?;
    // SAFETY: a pointer from a live `Arc`, which the parent keeps until after the task
    // ends; the caller's contract keeps the count balanced.
    Some(unsafe { Arc::from_raw(Arc::as_ptr(group)) })
}

/// `GOMP_task` for every task that does not [`run_at_once`]: spawned, or run at once
/// as an undeferred one (`if(0)`, final, a team of one).
///
/// # Safety
/// As for [`task`].
#[inline(never)]
unsafe fn spawn_task(local: &'static member::Local, s: Spawn, parent: &Node) {
    let detached = s.flags & FLAG_DETACH != 0 && !s.detach.is_null();
    let undeferred = !s.if_clause || parent.is_final || parent.alone;
    let is_final = parent.is_final || s.flags & FLAG_FINAL != 0;
    let (id, level) = next_child(parent, s.f);
    let group = group_of_children(parent);
    let has_deps = s.flags & FLAG_DEPEND != 0 && !s.depend.is_null();
    if let Some(g) = &group {
        g.count.fetch_add(1, Relaxed);
    }
    parent.state.add_child();

    if undeferred && parent.is_final && !has_deps && !detached {
        // Below a final task everything runs at once: the record can live here.
        let mut node = new_node(&s, parent, id, level, true, group, None);
        node.layout = Layout::new::<()>();
        // SAFETY: GCC's arguments (the caller's contract).
        let mut buffer = unsafe { undeferred_data(&s) };
        node.data = buffer.as_mut().map_or(s.data, |b| b.ptr);
        // SAFETY: the task's data (the spawner's own block without a cpyfn, as GCC's
        // libgomp also writes the bounds there).
        unsafe { write_range(node.data, s.range) };
        // SAFETY: live on this frame; all its descendants are undeferred too, so its last
        // reference goes before `run` returns.
        unsafe { run(&node) };
        debug_assert_eq!(node.state.refs(), 0);
        return;
    }

    let dep = has_deps.then(|| {
        Arc::new(DepNode {
            inner: Mutex::new((false, Vec::new())),
        })
    });
    // SAFETY: GCC's arguments.
    let node = unsafe {
        new_heap(
            &local.blocks,
            &s,
            parent,
            id,
            level,
            is_final,
            group,
            dep,
            undeferred,
        )
    };
    let ready = if has_deps {
        if undeferred {
            // The predecessor that meets the last dependence wakes this thread, which
            // may by then have run and freed the task: a reference keeps the record
            // until that wake-up is done (`predecessor_done` gives it up).
            // SAFETY: live, not yet published.
            unsafe { &*node }.state.add_ref();
        }
        // SAFETY: GCC's dependence array; the node is live and not yet published.
        let ready = unsafe { register_deps(parent, node, s.depend) };
        if ready && undeferred {
            // No predecessor will wake this thread: the reference is not needed.
            // SAFETY: the reference taken above, given up once; the task's own keeps
            // it live.
            unsafe { release(node, &local.blocks) };
        }
        ready
    } else {
        true
    };
    if undeferred {
        // SAFETY: live (its own reference is held until it runs).
        let n = unsafe { &*node };
        if !ready {
            wait(&n.state.waiter, || n.unmet.load(SeqCst) == 0);
        }
        // SAFETY: ready, live, run once here.
        unsafe { run(node) };
        if n.awaited {
            // `if(0)`: the task is complete once its event is: wait for it (running
            // other tasks), then complete it here. The event's reference keeps it live
            // for the fulfiller's wake-up. (A task run at once only because its team
            // has one thread, or its parent is final, is not waited for: it completes
            // when its event comes, like a deferred one.)
            wait(&n.state.waiter, || n.ends.all_reached());
            // SAFETY: live (its own reference), complete once, here.
            unsafe { complete(node, &local.blocks) };
        }
    } else if ready {
        // SAFETY: ready, live, published once.
        unsafe { publish(node) };
    }
}

/// Tasks a worker offers from which a new task runs at once instead of joining them
/// (see [`run_at_once`]): the runtime's [`raw::BACKLOG`], which a `join` keeps too.
const BACKLOG: usize = raw::BACKLOG;

/// Runs a task at once on the spawning thread because its worker already has
/// [`BACKLOG`] tasks waiting for thieves in its own deque and no worker idles: lazy
/// task creation, which OpenMP allows (a thread may run a task it encounters at once).
/// Its parent's next tasks are spawned again as soon as thieves have taken some of
/// those. A plain `if(0)` task (not in a final task or a team of one) runs so too.
///
/// It is a task all the same (its own record, id, children, `taskwait` and
/// taskgroup), but neither spawned nor counted among its parent's children or in its
/// taskgroup: it completes before its parent goes on, so nothing that waits for them can
/// miss it, and no read-modify-write touches the parent. Its descendants count
/// themselves as usual; if some still run when it ends, it hands its parent a
/// reference, which the last of them gives up, so a barrier waits for them as for any.
///
/// # Safety
/// GCC's arguments of a task without `depend` or `detach`, `if` true; `parent` is the
/// running task, neither final nor alone in its team.
#[inline]
unsafe fn run_at_once(local: &'static member::Local, s: &Spawn, parent: &Node) {
    if s.if_clause {
        // `LOCUS_STATS` counts the tasks deferred in name only, not the `if(0)` ones.
        local.run_at_once.set(local.run_at_once.get() + 1);
    }
    let (id, level) = next_child(parent, s.f);
    let is_final = s.flags & FLAG_FINAL != 0;
    // SAFETY: dropped only through `own_group` or `forget_group` below.
    let group = unsafe { borrowed_group_of_children(parent) };
    let node = if s.cpyfn.is_none() {
        // The data is the spawner's block, live until this returns (as for if(0)): a
        // record without it, written here. Through `new_heap` (a call, and a copy of
        // data the spawner's block already holds) fib 30 took 24 ms, 19.7 written here
        // (`locus run --policy ws --threads 2 -- ./fib 30 5`, best of 5, with a backlog
        // of 2 then).
        let layout = blocks::layout();
        let block = blocks::alloc(&local.blocks, layout).cast::<Node>();
        // SAFETY: the spawner's block, as the if(0) path writes it.
        unsafe { write_range(s.data, s.range) };
        let mut node = new_node(s, parent, id, level, is_final, group, None);
        node.layout = layout;
        node.inline = true;
        // SAFETY: a pooled block holds a Node at offset 0 (`POOLED_OFFSET`).
        unsafe { block.write(node) };
        block.cast_const()
    } else {
        // SAFETY: GCC's arguments (the caller's contract).
        unsafe {
            new_heap(
                &local.blocks,
                s,
                parent,
                id,
                level,
                is_final,
                group,
                None,
                true,
            )
        }
    };
    {
        let _current = local.enter_task(node);
        // SAFETY: a live record just made; the function and data are the program's.
        unsafe {
            if let Some(f) = (*node).f {
                f((*node).data);
            }
        }
    }
    // SAFETY: live: its own reference is held until given up here.
    let n = unsafe { &*node };
    if n.state.only_own_ref() {
        let layout = n.layout;
        // SAFETY: made by `blocks::alloc` with this layout in `new_heap`; only its own
        // reference is left, so nobody else refers to it: its borrowed taskgroup is
        // taken out and forgotten, then what else it owns dropped.
        unsafe {
            std::mem::forget((*node.cast_mut()).group.take());
            if !n.owns_nothing() {
                std::ptr::drop_in_place(node.cast_mut());
            }
            blocks::free(&local.blocks, node.cast_mut().cast(), layout);
        }
    } else {
        // Descendants still run and hold references to it: the parent (running on this
        // thread, so live) takes one for it, which goes when it is freed, on any
        // thread, with its taskgroup: that one becomes its own reference now.
        if let Some(group) = &n.group {
            // SAFETY: a live `Arc` (the parent's, which holds it still), whose count
            // the record's drop will give back.
            unsafe { Arc::increment_strong_count(Arc::as_ptr(group)) };
        }
        parent.state.add_ref();
        // SAFETY: its own reference, given up once.
        unsafe { release(node, &local.blocks) };
    }
}

/// The data of an undeferred task: the spawner's block itself, or a copy by `cpyfn`.
struct Buffer {
    ptr: *mut c_void,
    layout: Layout,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `undeferred_data`.
        unsafe { alloc::dealloc(self.ptr.cast(), self.layout) };
    }
}

unsafe fn undeferred_data(s: &Spawn) -> Option<Buffer> {
    let cpy = s.cpyfn?;
    let layout = data_layout(s);
    // SAFETY: non-zero size (data_layout rounds up to 1).
    let ptr = unsafe { alloc::alloc(layout) };
    if ptr.is_null() {
        alloc::handle_alloc_error(layout);
    }
    // SAFETY: the program's copy function, into a block of arg_size bytes at arg_align.
    unsafe { cpy(ptr.cast(), s.data) };
    Some(Buffer {
        ptr: ptr.cast(),
        layout,
    })
}

fn data_layout(s: &Spawn) -> Layout {
    let align = s.arg_align.max(1).next_power_of_two();
    Layout::from_size_align(s.arg_size.max(1), align)
        .unwrap_or_else(|_| crate::env::fail("GOMP_task: a task's data is larger than memory"))
}

fn new_node(
    s: &Spawn,
    parent: &Node,
    id: TaskId,
    level: u32,
    is_final: bool,
    group: Option<Arc<Group>>,
    dep: Option<Arc<DepNode>>,
) -> Node {
    Node {
        raw: RawTask::new(task_info(id, level), run_spawned),
        f: Some(s.f),
        data: s.data,
        layout: Layout::new::<()>(),
        parent,
        state: TaskState::new(),
        id,
        level,
        spawned: Cell::new(0),
        nthreads: Cell::new(parent.nthreads.get()),
        is_final,
        implicit: false,
        group,
        open_group: RefCell::new(None),
        deps: RefCell::new(None),
        dep,
        unmet: AtomicUsize::new(1),
        inline: false,
        alone: parent.alone,
        detached: false,
        awaited: false,
        injected: false,
        ends: Ends::new(0),
    }
}

const _: () = assert!(std::mem::align_of::<Node>() <= blocks::ALIGN);

/// Where a record's data goes after the node, when it fits a pooled block.
const POOLED_OFFSET: usize = std::mem::size_of::<Node>().next_multiple_of(blocks::ALIGN);

/// The layout of a task's record and the offset of its data in it: a pooled block
/// (without the checked arithmetic) when the data fits after the node, as GCC's
/// argument blocks of a few pointers do.
#[inline]
fn record_layout(s: &Spawn) -> (Layout, usize) {
    if s.arg_align <= blocks::ALIGN && s.arg_size <= blocks::SIZE - POOLED_OFFSET {
        return (blocks::layout(), POOLED_OFFSET);
    }
    Layout::new::<Node>()
        .extend(data_layout(s))
        .unwrap_or_else(|_| crate::env::fail("GOMP_task: a task's data is larger than memory"))
}

/// A heap node with the task's data copied in after it, in one allocation.
#[allow(clippy::too_many_arguments)]
unsafe fn new_heap(
    blocks: &blocks::List,
    s: &Spawn,
    parent: &Node,
    id: TaskId,
    level: u32,
    is_final: bool,
    group: Option<Arc<Group>>,
    dep: Option<Arc<DepNode>>,
    inline: bool,
) -> *const Node {
    let (layout, offset) = record_layout(s);
    let block = blocks::alloc(blocks, layout);
    let detached = s.flags & FLAG_DETACH != 0 && !s.detach.is_null();
    if detached {
        // The event handle is the record's address: GCC reads it from the `detach`
        // variable, and the task from its firstprivate copy, the first word of its data
        // (written there before the copy, as libgomp does).
        // SAFETY: GCC's event variable, and its data block, which starts with the
        // event's copy when the task has data.
        unsafe {
            s.detach.cast::<*mut u8>().write(block);
            if !s.data.is_null() && s.arg_size >= std::mem::size_of::<*mut u8>() {
                s.data.cast::<*mut u8>().write(block);
            }
        }
    }
    // SAFETY: `offset` is inside the block, after the node.
    let data = unsafe { block.add(offset) }.cast::<c_void>();
    match s.cpyfn {
        // SAFETY: the program's copy function, into arg_size bytes at arg_align.
        Some(cpy) => unsafe { cpy(data, s.data) },
        // SAFETY: GCC passes arg_size readable bytes at `data`; the block has room.
        None if s.arg_size > 0 => unsafe {
            std::ptr::copy_nonoverlapping(s.data.cast::<u8>(), data.cast::<u8>(), s.arg_size)
        },
        None => {}
    }
    // SAFETY: the task's own copy, arg_size bytes.
    unsafe { write_range(data, s.range) };
    let mut node = new_node(s, parent, id, level, is_final, group, dep);
    node.data = data;
    node.layout = layout;
    node.inline = inline;
    if detached {
        node.detached = true;
        // An `if(0)` task's spawner waits for the event alone (and completes it); the
        // event holds a reference until the fulfiller has woken it.
        node.awaited = inline && !s.if_clause;
        node.ends = Ends::new(if node.awaited { 1 } else { 2 });
        if node.awaited {
            node.state.add_ref();
        }
    }
    let node_ptr = block.cast::<Node>();
    // SAFETY: the block is allocated for a Node at offset 0 (its layout comes first).
    unsafe { node_ptr.write(node) };
    node_ptr
}

/// Registers `node`'s dependences with its earlier siblings; whether it is ready now.
unsafe fn register_deps(parent: &Node, node: *const Node, depend: *mut *mut c_void) -> bool {
    // SAFETY: live, not yet published.
    let n = unsafe { &*node };
    let me = n
        .dep
        .as_ref()
        .expect("a task with depend clauses has a DepNode");
    // SAFETY: GCC's dependence array (the caller's contract).
    let list = unsafe { read_depend(depend) };
    let mut table = parent.deps.borrow_mut();
    let table = table.get_or_insert_with(HashMap::new);
    for (addr, writes) in list {
        let entry = table.entry(addr).or_default();
        let wait_for = |pred: &Arc<DepNode>| {
            let mut inner = pred.inner.lock().unwrap_or_else(|e| e.into_inner());
            if !inner.0 {
                n.unmet.fetch_add(1, SeqCst);
                inner.1.push(SendPtr(node));
            }
        };
        if let Some(out) = &entry.last_out {
            if !Arc::ptr_eq(out, me) {
                wait_for(out);
            }
        }
        if writes {
            for reader in entry.ins.iter().filter(|r| !Arc::ptr_eq(r, me)) {
                wait_for(reader);
            }
            entry.last_out = Some(Arc::clone(me));
            entry.ins.clear();
        } else {
            entry.ins.push(Arc::clone(me));
        }
    }
    n.unmet.fetch_sub(1, SeqCst) == 1
}

/// GCC's dependence array as (address, whether the task writes it).
unsafe fn read_depend(depend: *mut *mut c_void) -> Vec<(usize, bool)> {
    let word = |i: usize| {
        // SAFETY: within the array GCC built (the counts it holds bound `i`).
        unsafe { *depend.add(i) as usize }
    };
    let mut out = Vec::new();
    if word(0) != 0 {
        let (n, writes) = (word(0), word(1));
        for i in 0..n {
            out.push((word(2 + i), i < writes));
        }
    } else {
        let (n, outs, mutexes, ins) = (word(1), word(2), word(3), word(4));
        let plain = outs + mutexes + ins;
        for i in 0..plain.min(n) {
            // mutexinoutset is taken as inout: stricter, never wrong.
            out.push((word(5 + i), i < outs + mutexes));
        }
        for i in plain..n {
            // An omp_depend_t: the address, then the kind (1 = in).
            let obj = word(5 + i) as *const usize;
            // SAFETY: GCC passes a pointer to an initialised omp_depend_t.
            let (addr, kind) = unsafe { (*obj, *obj.add(1)) };
            out.push((addr, kind != 1));
        }
    }
    out
}

/// `GOMP_taskwait`.
#[inline]
pub(crate) fn taskwait() {
    let t = member::current();
    // Children that all ran at once (or finished already) leave nothing to wait for.
    if t.state.children() != 0 {
        wait(&t.state.waiter, || t.state.children() == 0);
    }
    t.sync_block_ended();
}

/// `GOMP_taskwait_depend`: waits for the earlier sibling tasks that `depend` conflicts
/// with, as an empty `if(0)` task with those dependences, which is what OpenMP says
/// `taskwait depend(...)` is.
///
/// # Safety
/// `depend` is GCC's dependence array.
pub(crate) unsafe fn taskwait_depend(depend: *mut *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { empty_task(depend, false) }
}

/// An empty task with GCC's dependences `depend`: deferred if `deferred` (it then
/// orders its successors after its predecessors), else run at once once they are done.
///
/// # Safety
/// `depend` is GCC's dependence array.
pub(crate) unsafe fn empty_task(depend: *mut *mut c_void, deferred: bool) {
    unsafe extern "C" fn nothing(_: *mut c_void) {}
    // SAFETY: an empty task with no data and GCC's dependences (the caller's contract).
    unsafe {
        task(Spawn {
            f: nothing,
            data: std::ptr::null_mut(),
            cpyfn: None,
            arg_size: 0,
            arg_align: 1,
            if_clause: deferred,
            flags: FLAG_DEPEND,
            depend,
            range: None,
            detach: std::ptr::null_mut(),
        })
    }
}

/// Whether `node`'s taskgroup has been cancelled.
#[inline]
fn in_cancelled_group(node: &Node) -> bool {
    node.group
        .as_ref()
        .is_some_and(|g| g.cancelled.load(Relaxed))
}

/// Whether the taskgroup a child of `parent` would join has been cancelled.
#[inline]
fn children_cancelled(parent: &Node) -> bool {
    let open = parent.open_group.borrow();
    open.as_ref()
        .or(parent.group.as_ref())
        .is_some_and(|g| g.cancelled.load(Relaxed))
}

/// `cancel taskgroup` (`GOMP_cancel`): cancels the running task's innermost taskgroup
/// (the one it opened last, else the one it was made in) where `OMP_CANCELLATION=true`;
/// whether it did (then GCC's code leaves the task). Its tasks not yet started will not
/// run, and tasks meant for it are not made.
pub(crate) fn cancel_taskgroup() -> bool {
    if !crate::env::settings().cancel_taskgroups {
        return false;
    }
    let t = member::current();
    let open = t.open_group.borrow();
    match open.as_ref().or(t.group.as_ref()) {
        Some(group) => {
            group.cancelled.store(true, Relaxed);
            true
        }
        None => false,
    }
}

/// `cancellation point taskgroup`: whether the running task's innermost taskgroup has
/// been cancelled.
pub(crate) fn taskgroup_cancelled() -> bool {
    children_cancelled(member::current())
}

/// `GOMP_taskgroup_start`.
pub(crate) fn taskgroup_start() {
    let t = member::current();
    let mut open = t.open_group.borrow_mut();
    let prev = open.take().or_else(|| t.group.clone());
    let reductions = prev.as_ref().map_or(0, |p| p.reductions.load(Relaxed));
    *open = Some(Arc::new(Group {
        count: sync::AtomicUsize::new(0),
        waiter: WaiterSlot::new(),
        prev,
        reductions: AtomicUsize::new(reductions),
        cancelled: AtomicBool::new(false),
    }));
}

/// `GOMP_taskgroup_end`.
pub(crate) fn taskgroup_end() {
    let t = member::current();
    let Some(group) = t.open_group.borrow_mut().take() else {
        crate::env::fail("GOMP_taskgroup_end without GOMP_taskgroup_start");
    };
    wait(&group.waiter, || group.count.load(SeqCst) == 0);
    // The enclosing group of this task, unless it is the one the task was made in.
    let outer = group.prev.clone().filter(|p| {
        t.group
            .as_ref()
            .is_none_or(|made_in| !Arc::ptr_eq(p, made_in))
    });
    *t.open_group.borrow_mut() = outer;
}

/// The innermost taskgroup of the running task: one it opened, else the one it was
/// made in.
pub(crate) fn current_group() -> Option<Arc<Group>> {
    let t = member::current();
    let open = t.open_group.borrow().clone();
    open.or_else(|| t.group.clone())
}

/// `omp_in_final`.
pub(crate) fn in_final() -> bool {
    member::current().is_final()
}

/// The running task as an owner of nest locks.
pub(crate) fn current_ptr() -> *mut c_void {
    (member::current() as *const Node).cast_mut().cast()
}
