//! Teams: parallel regions, barriers, `single`, and the thread's place in its team.
//!
//! A region of `n > 1` threads runs on the pool of `n` workers (`env::pool_for`), one
//! region per pool at a time, by [`locus::ThreadPool::broadcast`]: worker `i` runs the
//! region's function as thread `i` with a [`Member`] and an implicit task on its stack,
//! published in this thread's `MEMBER` and `CURRENT` cells, then the region's closing
//! barrier. A region started by a member (nested), or of one thread, runs on the
//! calling thread as a team of one: every task it makes runs at once, so nothing of it
//! can run on another thread.
//!
//! # Entering a region
//! A region's tasks are published to its pool, where any worker may take one; a worker
//! must then already be the member that runs it. So each member first publishes itself
//! (its `MEMBER`, and `share`: the member it is of its pool's region), then waits until
//! every member has (`gather`), before it runs any of the region's code; it runs no
//! task while it waits, since the first members through may already have made some. A
//! task taken from the pool runs as the worker's `share` member, even if the worker
//! waits inside a nested team of one.
//!
//! # The barrier
//! A member first waits until its implicit task's references fall to its own (every
//! task descended from it has completed; see `task.rs`), then arrives; the last to
//! arrive resets the count and moves the generation on (`SeqCst`), then wakes every
//! worker ([`locus::raw::wake_all`], which fences). The others wait for the generation
//! to move. All members' descendants done, all arrived: no task of the team is left.
//! Every waiting member runs the team's tasks meanwhile.
//!
//! Threads outside any region act as the one member of their own team (`initial`).

use crate::loops::WorkShare;
use crate::task::Node;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The function of a region or a task, as GCC outlines it.
pub(crate) type OutlinedFn = unsafe extern "C" fn(*mut c_void);

/// The shared state of one team.
pub(crate) struct Team {
    /// Number of members.
    pub(crate) size: usize,
    /// Members at the current barrier.
    arrived: AtomicUsize,
    /// Barriers passed.
    generation: AtomicUsize,
    /// Members that have entered the region (see [`parallel`]).
    entered: AtomicUsize,
    /// `single` constructs claimed (see [`single_start`]).
    singles: AtomicU64,
    /// Worksharing loops in progress, by their number in each member's sequence.
    pub(crate) works: Mutex<HashMap<u64, Arc<WorkShare>>>,
}

impl Team {
    pub(crate) fn new(size: usize) -> Team {
        Team {
            size,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            entered: AtomicUsize::new(0),
            singles: AtomicU64::new(0),
            works: Mutex::new(HashMap::new()),
        }
    }
}

/// One thread's place in a team; lives on that thread's stack for the region.
pub(crate) struct Member {
    pub(crate) team: *const Team,
    /// `omp_get_thread_num`.
    pub(crate) num: usize,
    /// The member's implicit task.
    pub(crate) implicit: *const Node,
    /// Whether an enclosing region (this one or an outer one) has more than one thread.
    pub(crate) active: bool,
    /// Enclosing parallel regions (`omp_get_level`): 0 outside every region.
    pub(crate) level: usize,
    /// The member that started this member's region (null at level 0): the thread's
    /// ancestors (`omp_get_ancestor_thread_num`, `omp_get_team_size`). It outlives this
    /// member: a region's starter waits for it.
    parent: *const Member,
    /// `single` constructs met.
    singles: Cell<u64>,
    /// Worksharing loops met.
    pub(crate) loops: Cell<u64>,
    /// The loop being dealt to this member.
    pub(crate) work: RefCell<Option<Arc<WorkShare>>>,
    /// Chunks of a static loop this member has taken.
    pub(crate) static_taken: Cell<u64>,
    /// The `teams` league this member runs a team of: a host `teams` region's at level
    /// 0, or a target region's teams where the member met them (`teams.rs`).
    pub(crate) league: crate::teams::League,
    /// Whether the current loop has an `ordered` clause.
    pub(crate) ordered: Cell<bool>,
    /// The chunk of an ordered loop this member runs, whose turn it passes on when done.
    pub(crate) ordered_chunk: Cell<Option<(u64, u64)>>,
}

impl Member {
    pub(crate) fn new(
        team: &Team,
        num: usize,
        implicit: &Node,
        active: bool,
        parent: Option<&Member>,
    ) -> Member {
        Member {
            team,
            num,
            implicit,
            active,
            level: parent.map_or(0, |p| p.level + 1),
            parent: parent.map_or(std::ptr::null(), |p| p as *const Member),
            singles: Cell::new(0),
            loops: Cell::new(0),
            work: RefCell::new(None),
            static_taken: Cell::new(0),
            league: Default::default(),
            ordered: Cell::new(false),
            ordered_chunk: Cell::new(None),
        }
    }

    pub(crate) fn team(&self) -> &Team {
        // SAFETY: a member lives inside its team's region, and the team outlives it.
        unsafe { &*self.team }
    }

    /// This thread's member at enclosing level `level` (0: the initial thread's team
    /// of one), if `level <= self.level`.
    pub(crate) fn ancestor(&self, level: usize) -> Option<&Member> {
        let mut m = self;
        for _ in level..self.level {
            // SAFETY: a member's parent outlives it (see `parent`).
            m = unsafe { m.parent.as_ref()? };
        }
        (level <= self.level).then_some(m)
    }

    pub(crate) fn implicit(&self) -> &Node {
        // SAFETY: the implicit task lives beside the member for the whole region.
        unsafe { &*self.implicit }
    }
}

/// What this thread keeps for locus-omp, in one thread-local so that a task's hot path
/// looks it up once (a thread-local of a shared library costs a `__tls_get_addr` call
/// per lookup).
pub(crate) struct Local {
    member: Cell<*const Member>,
    /// The member this worker is of the region its pool runs (the broadcast share it
    /// runs), while it runs it; null otherwise. The member that runs a task of that
    /// region's team, whatever nested team of one it is in when it takes the task.
    share: Cell<*const Member>,
    /// The task running on this thread (an implicit or explicit task); null if none.
    current: Cell<*const Node>,
    /// Free task records (`blocks.rs`).
    pub(crate) blocks: crate::blocks::List,
    /// This thread's locus worker while it runs a region of its pool (set with
    /// `share`); `None` otherwise.
    worker: Cell<Option<locus::raw::Worker>>,
    /// Tasks this thread ran at once in the region it runs, added to its pool's count
    /// as it leaves the region.
    pub(crate) run_at_once: Cell<u64>,
}

impl Local {
    /// The task running on this thread.
    #[inline]
    pub(crate) fn current(&self) -> &'static Node {
        let t = self.current.get();
        if t.is_null() {
            return member().implicit();
        }
        // SAFETY: `current` points to the running task, live while it runs (restored
        // when it ends); 'static as for `member`.
        unsafe { &*t }
    }

    /// [`locus::raw::offers_enough`] for this thread's worker; `false` outside a region
    /// of its pool.
    #[inline]
    pub(crate) fn offers_enough(&self, tasks: usize) -> bool {
        match self.worker.get() {
            // SAFETY: set only while this thread runs a region of its pool (cleared when
            // its broadcast share ends), so the worker is live; this is its thread (a
            // thread-local).
            Some(worker) => unsafe { worker.offers_enough(tasks) },
            None => false,
        }
    }

    /// Makes `node` the running task until the returned guard drops.
    #[inline]
    pub(crate) fn enter_task(&'static self, node: *const Node) -> TaskGuard {
        TaskGuard(self, self.current.replace(node))
    }
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            member: Cell::new(std::ptr::null()),
            share: Cell::new(std::ptr::null()),
            current: Cell::new(std::ptr::null()),
            blocks: crate::blocks::List::new(),
            worker: Cell::new(None),
            run_at_once: Cell::new(0),
        }
    };
    /// The team of one of a thread outside every region, made on first use and leaked
    /// (one per such thread: a few hundred bytes).
    static INITIAL: &'static Member = initial_member();
}

fn initial_member() -> &'static Member {
    let team: &'static Team = Box::leak(Box::new(Team::new(1)));
    let node: &'static Node = Box::leak(Box::new(Node::implicit(0, 0, true)));
    Box::leak(Box::new(Member::new(team, 0, node, false, None)))
}

/// This thread's [`Local`].
#[inline]
pub(crate) fn local() -> &'static Local {
    // SAFETY: a const-initialised thread-local without a destructor lives as long as its
    // thread, and the reference never leaves it.
    LOCAL.with(|l| unsafe { &*(l as *const Local) })
}

/// This thread's member: of the region it runs in, else of its own team of one.
pub(crate) fn member() -> &'static Member {
    let m = local().member.get();
    if m.is_null() {
        return INITIAL.with(|m| *m);
    }
    // SAFETY: MEMBER points to a member on this thread's stack while its region runs
    // (`with_member` clears it before the member goes away); 'static is a lie told
    // only to callers that use it before returning to the region.
    unsafe { &*m }
}

/// The task running on this thread.
pub(crate) fn current() -> &'static Node {
    local().current()
}

/// Restores the task that ran before.
pub(crate) struct TaskGuard(&'static Local, *const Node);

impl Drop for TaskGuard {
    #[inline]
    fn drop(&mut self) {
        self.0.current.set(self.1);
    }
}

impl Local {
    /// Makes this worker's member of the region its pool runs (the share it runs) its
    /// member until the returned guard drops, for a task taken from the pool: a worker
    /// could take one of that team while it waits inside a nested team of one (or in a
    /// task that opened one), where `member` names the inner team's member; the task
    /// belongs to the outer team and answers as its member. Off a share (never so for
    /// a published task: see [`gather`]) nothing changes.
    #[inline]
    pub(crate) fn as_share(&'static self) -> ShareGuard {
        let share = self.share.get();
        if share.is_null() || std::ptr::eq(share, self.member.get()) {
            return ShareGuard(self, None);
        }
        ShareGuard(self, Some(self.member.replace(share)))
    }
}

/// Restores the member that was this thread's before [`Local::as_share`].
pub(crate) struct ShareGuard(&'static Local, Option<*const Member>);

impl Drop for ShareGuard {
    #[inline]
    fn drop(&mut self) {
        if let Some(m) = self.1 {
            self.0.member.set(m);
        }
    }
}

/// Runs `f` as `member` of its team, in its implicit task.
fn with_member(member: &Member, f: impl FnOnce()) {
    let l = local();
    let saved_member = l.member.replace(member);
    let _task = l.enter_task(member.implicit);
    f();
    l.member.set(saved_member);
}

/// A region's function and data, handed to every member.
struct Region {
    f: OutlinedFn,
    data: *mut c_void,
}
// SAFETY: the program hands the data to every member of its team by design (the
// outlined function reads shared variables through it); the caller waits for them.
unsafe impl Sync for Region {}

impl Region {
    /// Runs the region's function (a method, so closures capture the whole `Region`).
    fn run(&self) {
        // SAFETY: the program's outlined function and data, called as libgomp calls them.
        unsafe { (self.f)(self.data) }
    }
}

/// The size of the team a parallel region asking for `requested` threads (0: the
/// default) gets here: 1 when nested, else the request or nthreads-var, at most
/// locus's largest team and the enclosing `teams` or `target` region's thread limit.
pub(crate) fn region_size(requested: usize) -> usize {
    if !local().member.get().is_null() {
        return 1;
    }
    let size = match requested {
        0 => crate::env::max_threads(),
        n => n.min(locus::MAX_THREADS),
    };
    crate::teams::thread_limit().map_or(size, |limit| size.min(limit))
}

/// `GOMP_parallel`: runs `f(data)` on a team of `requested` threads (0: nthreads-var);
/// `setup` runs first on each member (a combined parallel loop's dealing).
pub(crate) fn parallel(
    f: OutlinedFn,
    data: *mut c_void,
    requested: usize,
    setup: &(dyn Fn(&Member) + Sync),
) {
    parallel_of(f, data, region_size(requested), setup)
}

/// [`parallel`] with a team of `size` threads, which [`region_size`] gave.
pub(crate) fn parallel_of(
    f: OutlinedFn,
    data: *mut c_void,
    size: usize,
    setup: &(dyn Fn(&Member) + Sync),
) {
    let outer = member();
    let fn_id = f as usize as u64;
    if size == 1 {
        let team = Team::new(1);
        let node = Node::implicit(fn_id, 0, true);
        let m = Member::new(&team, 0, &node, outer.active, Some(outer));
        with_member(&m, || {
            setup(&m);
            crate::affinity::display_on_entry();
            // SAFETY: the program's outlined function, called as GCC's libgomp calls it.
            unsafe { f(data) };
            barrier();
        });
        return;
    }
    let team_pool = crate::env::pool_for(Some(size));
    let _one_team = team_pool.region.lock().unwrap_or_else(|e| e.into_inner());
    let team = Team::new(size);
    let region = Region { f, data };
    let starter = Starter(outer);
    team_pool.pool.broadcast(|i| {
        crate::abi::guard("a parallel region", || {
            let node = Node::implicit(fn_id, i as u32, false);
            let m = Member::new(&team, i, &node, true, Some(starter.get()));
            let l = local();
            let saved_share = l.share.replace(&m);
            let saved_worker = l.worker.replace(locus::raw::Worker::current());
            with_member(&m, || {
                gather(&team);
                setup(&m);
                crate::affinity::display_on_entry();
                region.run();
                barrier();
            });
            l.worker.set(saved_worker);
            l.share.set(saved_share);
            team_pool
                .run_at_once
                .fetch_add(l.run_at_once.take(), Ordering::Relaxed);
        })
    });
}

/// A region started by `GOMP_parallel_start` (GCC before 4.9), whose function the
/// caller runs itself before `GOMP_parallel_end`. locus's teams are pools the starting
/// thread is no member of, so such a region runs as a team of one on the caller.
struct Started {
    member: Box<Member>,
    _team: Box<Team>,
    _node: Box<Node>,
    saved_member: *const Member,
    saved_current: *const Node,
}

thread_local! {
    /// The regions `GOMP_parallel_start` opened on this thread, innermost last.
    static STARTED: RefCell<Vec<Started>> = const { RefCell::new(Vec::new()) };
}

/// `GOMP_parallel_start` (and the older combined starts): makes the caller the one
/// member of a new team, for the region's function it calls next; `setup` runs first
/// (a combined loop's or sections' dealing).
pub(crate) fn parallel_start(f: OutlinedFn, setup: &dyn Fn(&Member)) {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    NOTICE.call_once(|| {
        eprintln!(
            "locus: GOMP_parallel_start (code from GCC before 4.9) runs its regions with a \
             team of one thread"
        )
    });
    let outer = member();
    let team = Box::new(Team::new(1));
    let node = Box::new(Node::implicit(f as usize as u64, 0, true));
    let member = Box::new(Member::new(&team, 0, &node, outer.active, Some(outer)));
    let l = local();
    let saved_member = l.member.replace(&*member);
    let saved_current = l.current.replace(member.implicit);
    setup(&member);
    STARTED.with(|s| {
        s.borrow_mut().push(Started {
            member,
            _team: team,
            _node: node,
            saved_member,
            saved_current,
        })
    });
}

/// `GOMP_parallel_end`: the closing barrier of the region `GOMP_parallel_start`
/// opened, then the caller is what it was before.
pub(crate) fn parallel_end() {
    let open = STARTED.with(|s| !s.borrow().is_empty());
    if !open {
        crate::env::fail("GOMP_parallel_end without GOMP_parallel_start");
    }
    barrier();
    let started = STARTED.with(|s| s.borrow_mut().pop());
    if let Some(started) = started {
        debug_assert!(std::ptr::eq(local().member.get(), &*started.member));
        let l = local();
        l.member.set(started.saved_member);
        l.current.set(started.saved_current);
    }
}

/// The member that starts a region, as its members' parent.
struct Starter(*const Member);
// SAFETY: the members read only the starter's fixed fields (`num`, `level`, `parent`,
// its team's `size`), never its cells; it waits for them.
unsafe impl Sync for Starter {}

impl Starter {
    /// A method, so closures capture the whole `Starter`.
    fn get(&self) -> &Member {
        // SAFETY: the starter outlives the region it waits for.
        unsafe { &*self.0 }
    }
}

/// The region's opening: waits until every member has entered it (published its
/// `MEMBER` and `share`). Until then no member runs the region's code, so no task of the
/// team exists: a worker of the pool that takes one (its tasks are published to this
/// pool, which runs no other team) is already the member that runs it, never a worker
/// still on its way to its share, which would answer the `omp_*` queries as a thread
/// outside every region and open a nested region as a real team. (After the closing
/// barrier no task of the team is left either.)
///
/// The wait runs nothing ([`locus::raw::spin_until`]), unlike
/// [`locus::raw::wait_until`], whose worker runs the pool's tasks meanwhile. The first
/// members through may already have made tasks, and a member that ran one before its
/// own region began would count it, say, in a `threadprivate` variable that the
/// region's first statement then resets (`tests/c/threadprivate.c`, 200 short regions:
/// before, it lost counts in both runs tried, under `static` on 2x2 and under `cab` on
/// 3x1). Every member is a started worker on its way here, so the wait is short.
fn gather(team: &Team) {
    team.entered.fetch_add(1, Ordering::SeqCst);
    locus::raw::spin_until(|| team.entered.load(Ordering::SeqCst) == team.size);
}

/// `GOMP_barrier` (and the barrier closing every region and loop).
pub(crate) fn barrier() {
    let m = member();
    let node = m.implicit();
    node.wait_for_descendants();
    let team = m.team();
    if team.size > 1 {
        let generation = team.generation.load(Ordering::SeqCst);
        if team.arrived.fetch_add(1, Ordering::SeqCst) + 1 == team.size {
            team.arrived.store(0, Ordering::SeqCst);
            team.generation.fetch_add(1, Ordering::SeqCst);
            locus::raw::wake_all();
        } else {
            locus::raw::wait_until(|| team.generation.load(Ordering::SeqCst) != generation);
        }
    }
    node.sync_block_ended();
}

/// `GOMP_single_start`: whether this member is the first to reach its next `single`.
/// Members meet the constructs in the same order; the team counts those claimed, and a
/// member at its `k`-th claims it by moving the count from `k` to `k + 1`.
pub(crate) fn single_start() -> bool {
    let m = member();
    let k = m.singles.get();
    m.singles.set(k + 1);
    m.team()
        .singles
        .compare_exchange(k, k + 1, Ordering::SeqCst, Ordering::Relaxed)
        .is_ok()
}
