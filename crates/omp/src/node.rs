//! A task's record ([`Node`]): what `task.rs` makes, runs and completes, and what a
//! team member's implicit task is (`member.rs`); its taskgroups and dependences. The
//! record's life (spawning, running, completing, waiting) is `task.rs`'s.

use crate::sync;
use crate::wait::{Ends, TaskState, WaiterSlot};
use locus::raw::RawTask;
use locus::TaskId;
use locus_task::TaskInfo;
use std::alloc::Layout;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};

/// The function of a region or a task, as GCC outlines it.
pub(crate) type OutlinedFn = unsafe extern "C" fn(*mut c_void);

/// A cpyfn: copies the firstprivate data from the spawner's block to the task's.
pub(crate) type CopyFn = unsafe extern "C" fn(*mut c_void, *mut c_void);

/// One task (see the module docs).
///
/// Its fields that own something (with drop glue) are `group`, `open_group`, `deps` and
/// `dep`, and only they: [`Node::owns_nothing`] reads them to spare the drop of a
/// record that holds nothing; a new owning field must join it.
#[repr(C)]
pub(crate) struct Node {
    pub(crate) raw: RawTask,
    pub(crate) f: Option<OutlinedFn>,
    pub(crate) data: *mut c_void,
    /// The allocation holding this node and its data; size 0 if not on the heap.
    pub(crate) layout: Layout,
    pub(crate) parent: *const Node,
    pub(crate) state: TaskState,
    pub(crate) id: TaskId,
    pub(crate) level: u32,
    /// Spawns since the last taskwait: the spawn path of the next child.
    pub(crate) spawned: Cell<u32>,
    /// nthreads-var of this task's data environment (`omp_set_num_threads` sets the
    /// running task's; a task starts with its spawner's): the team size of a region it
    /// meets without `num_threads`; 0 if never set (one per PU).
    pub(crate) nthreads: Cell<u32>,
    pub(crate) is_final: bool,
    pub(crate) implicit: bool,
    /// The taskgroup this task was made in, which counts it.
    pub(crate) group: Option<Arc<Group>>,
    /// The innermost taskgroup open in this task (its children join it).
    pub(crate) open_group: RefCell<Option<Arc<Group>>>,
    /// The dependences of this task's children, by address.
    /// Made at the first `depend` clause: a `HashMap::new` per task would cost a
    /// thread-local read (its random keys) and 48 bytes in every record.
    pub(crate) deps: RefCell<Option<HashMap<usize, DepEntry>>>,
    /// This task as a predecessor of its later siblings, if it had `depend` clauses.
    pub(crate) dep: Option<Arc<DepNode>>,
    /// Predecessors not yet complete, plus one while registering.
    pub(crate) unmet: AtomicUsize,
    /// Runs on the spawning thread when ready instead of being published (if(0)).
    pub(crate) inline: bool,
    /// Its team has one thread: every task it makes runs at once.
    pub(crate) alone: bool,
    /// Made with a `detach` clause: it completes once its body has ended and its event
    /// is fulfilled (`ends`).
    pub(crate) detached: bool,
    /// A detached `if(0)` task: its spawner waits for the event and completes it.
    pub(crate) awaited: bool,
    /// Published through its crew's injector by its team's thread 0, and counted in the
    /// team's `injected` until a worker starts it.
    pub(crate) injected: bool,
    /// A detached task's ends still to come: its body's (unless it is `awaited`) and its
    /// event's.
    pub(crate) ends: Ends,
}

// SAFETY: a node moves to the worker that runs it; its cells are touched only by the
// thread running the task (tasks are tied), its shared parts are atomics and locks.
unsafe impl Send for Node {}
// SAFETY: as above.
unsafe impl Sync for Node {}

/// A taskgroup: counts its tasks (those made in it, and their descendants made outside
/// any inner group) until they complete.
pub(crate) struct Group {
    pub(crate) count: sync::AtomicUsize,
    pub(crate) waiter: WaiterSlot,
    pub(crate) prev: Option<Arc<Group>>,
    /// The task reductions registered in this group, else the enclosing group's: the
    /// address of GCC's newest reduction block, 0 if none (`reduction.rs`). Set by the
    /// task that opened the group before it makes the tasks that read it.
    pub(crate) reductions: AtomicUsize,
    /// `cancel taskgroup` was met in it (only under `OMP_CANCELLATION=true`): its
    /// tasks not yet started are skipped, and tasks meant for it are not made.
    pub(crate) cancelled: AtomicBool,
}

/// The predecessors' side of `depend`: whether the task completed, and who waits.
pub(crate) struct DepNode {
    pub(crate) inner: Mutex<(bool, Vec<SendPtr>)>,
}

pub(crate) struct SendPtr(pub(crate) *const Node);
// SAFETY: a waiting successor node, live until it runs (it runs only after this list
// releases it).
unsafe impl Send for SendPtr {}

#[derive(Default)]
pub(crate) struct DepEntry {
    pub(crate) last_out: Option<Arc<DepNode>>,
    pub(crate) ins: Vec<Arc<DepNode>>,
}

pub(crate) fn task_info(id: TaskId, level: u32) -> TaskInfo {
    TaskInfo {
        id,
        level,
        loop_chunks: 0,
    }
}

impl Node {
    /// The implicit task of member `num` of a region whose function is at `fn_id`: level
    /// 1, as the broadcast share it runs in is to locus, so its children are at 2;
    /// `alone` if its team has one thread; `nthreads` its nthreads-var.
    pub(crate) fn implicit(fn_id: u64, num: u32, alone: bool, nthreads: u32) -> Node {
        let id = TaskId(locus_task::rng::mix64(fn_id)).child(num);
        Node {
            raw: RawTask::new(task_info(id, 1), run_never),
            f: None,
            data: std::ptr::null_mut(),
            layout: Layout::new::<()>(),
            parent: std::ptr::null(),
            state: TaskState::new(),
            id,
            level: 1,
            spawned: Cell::new(0),
            nthreads: Cell::new(nthreads),
            is_final: false,
            implicit: true,
            group: None,
            open_group: RefCell::new(None),
            deps: RefCell::new(None),
            dep: None,
            unmet: AtomicUsize::new(0),
            inline: false,
            alone,
            detached: false,
            awaited: false,
            injected: false,
            ends: Ends::new(0),
        }
    }
}

unsafe fn run_never(_: *mut RawTask) {
    unreachable!("implicit tasks are never spawned");
}
