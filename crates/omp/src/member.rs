//! The thread's place in its team: the team's shared state ([`Team`]), each member's
//! ([`Member`]), what a thread keeps ([`Local`]: its member, its running task, its free
//! task records), and how a member waits and wakes the others. Regions, barriers and
//! `single` are `team.rs`'s (see there for the team model).
//!
//! Threads outside any region act as the one member of their own team (`initial`).

use crate::blocks;
use crate::crew::Crew;
use crate::node::Node;
use crate::workshare::WorkShare;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// The shared state of one team.
pub(crate) struct Team {
    /// Number of members.
    pub(crate) size: usize,
    /// The crew its threads `1..size` are workers of; null for a team of one.
    pub(crate) crew: *const Crew,
    /// Members at the current barrier.
    pub(crate) arrived: AtomicUsize,
    /// Barriers passed.
    pub(crate) generation: AtomicUsize,
    /// Members that have entered the region (see `gather` in `team.rs`).
    pub(crate) entered: AtomicUsize,
    /// Whether the members wait for each other to enter the region (`gather`): only
    /// while some worker of the crew may not be in the crew loop yet.
    pub(crate) gathers: bool,
    /// `single` constructs claimed (see [`single_start`](crate::team::single_start)).
    pub(crate) singles: AtomicU64,
    /// Tasks thread 0 handed to the crew's injector that no worker has started yet
    /// (`task.rs`); a hint, `Relaxed`.
    pub(crate) injected: AtomicUsize,
    /// Worksharing loops in progress, by their number in each member's sequence.
    pub(crate) works: Mutex<HashMap<u64, Arc<WorkShare>>>,
}

impl Team {
    /// A team of `size` threads, those past thread 0 workers of `crew` (`None` for a
    /// team of one), which the team holds for as long as it lives.
    pub(crate) fn new(size: usize, crew: Option<&Crew>) -> Team {
        Team {
            size,
            crew: crew.map_or(std::ptr::null(), |c| c as *const Crew),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            entered: AtomicUsize::new(0),
            gathers: crew.is_some_and(|c| !c.all_serving()),
            singles: AtomicU64::new(0),
            injected: AtomicUsize::new(0),
            works: Mutex::new(HashMap::new()),
        }
    }

    /// The crew of the team's threads past thread 0; `None` for a team of one.
    #[inline]
    pub(crate) fn crew(&self) -> Option<&Crew> {
        // SAFETY: the team's lease keeps the crew live while the team is.
        unsafe { self.crew.as_ref() }
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
    /// Enclosing parallel regions of more than one thread (`omp_get_active_level`).
    pub(crate) active_level: usize,
    /// Enclosing parallel regions (`omp_get_level`): 0 outside every region.
    pub(crate) level: usize,
    /// The member that started this member's region (null at level 0): the thread's
    /// ancestors (`omp_get_ancestor_thread_num`, `omp_get_team_size`). It outlives this
    /// member: a region's starter waits for it.
    pub(crate) parent: *const Member,
    /// `single` constructs met.
    pub(crate) singles: Cell<u64>,
    /// Worksharing loops met.
    pub(crate) loops: Cell<u64>,
    /// The loop being dealt to this member.
    pub(crate) work: RefCell<Option<Arc<WorkShare>>>,
    /// Chunks of a static loop this member has taken.
    pub(crate) static_taken: Cell<u64>,
    /// The `teams` league this member runs a team of: a host `teams` region's at level
    /// 0, or a target region's teams where the member met them (`teams.rs`).
    pub(crate) league: League,
    /// Whether the current loop has an `ordered` clause.
    pub(crate) ordered: Cell<bool>,
    /// The chunk of an ordered loop this member runs, whose turn it passes on when done.
    pub(crate) ordered_chunk: Cell<Option<(u64, u64)>>,
    /// def-allocator-var of its implicit task (`alloc.rs`): inherited from the member
    /// that started the region, as OpenMP has implicit tasks inherit it.
    pub(crate) def_allocator: Cell<usize>,
}

impl Member {
    /// Member `num` of `team`, whose region `parent` started (`None`: a thread outside
    /// every region).
    pub(crate) fn new(team: &Team, num: usize, implicit: &Node, parent: Option<&Member>) -> Member {
        let active_level =
            parent.map_or(0, |p| p.active_level) + usize::from(team.size > 1 && parent.is_some());
        Member {
            team,
            num,
            implicit,
            active: active_level > 0,
            active_level,
            level: parent.map_or(0, |p| p.level + 1),
            parent: parent.map_or(std::ptr::null(), |p| p as *const Member),
            singles: Cell::new(0),
            loops: Cell::new(0),
            work: RefCell::new(None),
            static_taken: Cell::new(0),
            league: Default::default(),
            ordered: Cell::new(false),
            ordered_chunk: Cell::new(None),
            def_allocator: Cell::new(parent.map_or(0, |p| p.def_allocator.get())),
        }
    }

    #[inline]
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

    #[inline]
    pub(crate) fn implicit(&self) -> &Node {
        // SAFETY: the implicit task lives beside the member for the whole region.
        unsafe { &*self.implicit }
    }
}

/// What this thread keeps for locus-omp, in one thread-local so that a task's hot path
/// looks it up once (a thread-local of a shared library costs a `__tls_get_addr` call
/// per lookup).
pub(crate) struct Local {
    pub(crate) member: Cell<*const Member>,
    /// The member this crew worker is of the team its crew serves, while it runs that
    /// team's region; null otherwise. The member that runs a task of that team, whatever
    /// nested team of one it is in when it takes the task.
    pub(crate) share: Cell<*const Member>,
    /// The task running on this thread (an implicit or explicit task); null if none.
    pub(crate) current: Cell<*const Node>,
    /// Free task records (`blocks.rs`).
    pub(crate) blocks: blocks::List,
    /// This thread's locus worker while its member is one of its crew's team (set with
    /// `share`, and unset while the thread is thread 0 of a nested team); `None`
    /// otherwise.
    pub(crate) worker: Cell<Option<locus::raw::Worker>>,
    /// Tasks this thread ran at once in the region it runs, added to its crew's count
    /// as it leaves the region (`team.rs`).
    pub(crate) run_at_once: Cell<u64>,
    /// Tasks of its team's crew's pool this thread ran while it is no worker of that
    /// pool (a team's thread 0 while it waits: `wait_helping`), added to the crew's
    /// count as it leaves the region; the pool counts only its workers' tasks.
    pub(crate) helped: Cell<u64>,
    /// The middle of this thread's stack, for a crew worker (0 elsewhere): below it, the
    /// thread makes every new task run at once ([`Local::deep`]).
    pub(crate) stack_middle: Cell<usize>,
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

    /// Whether this thread's member is a worker of its team's crew, so that it spawns
    /// into its own pool and runs the team's tasks while it waits.
    #[inline]
    pub(crate) fn pooled(&self) -> bool {
        self.worker.get().is_some()
    }

    /// [`locus::raw::offers_enough`] for this thread's worker; `false` unless it is
    /// [`Local::pooled`].
    #[inline]
    pub(crate) fn offers_enough(&self, tasks: usize) -> bool {
        match self.worker.get() {
            // SAFETY: set only while this thread runs a region of its crew's team (cleared
            // as it leaves), inside its broadcast share, so the worker is live; this is
            // its thread (a thread-local).
            Some(worker) => unsafe { worker.offers_enough(tasks) },
            None => false,
        }
    }

    /// For a team's thread 0 (not [`Local::pooled`]): whether as many of its tasks as
    /// its crew has workers wait unstarted in the crew's injector, so that it may run a
    /// new one at once instead (`task.rs`). `false` on a crew worker and without a crew.
    #[inline]
    pub(crate) fn first_offers_enough(&self) -> bool {
        let m = self.member.get();
        if self.pooled() || m.is_null() {
            // A crew worker, or a thread outside every region (a team of one).
            return false;
        }
        // SAFETY: this thread's member, live while its region runs (see `member`).
        let team = unsafe { &*m }.team();
        team.crew()
            .is_some_and(|crew| team.injected.load(Ordering::Relaxed) >= crew.workers())
    }

    /// Whether this thread runs on the deeper half of its stack (a crew worker only;
    /// see [`Local::stack_middle`]). A worker that waits runs other tasks on top of its
    /// wait, so under a policy that gives it the oldest task first (`rr-fifo`) its
    /// waits nested breadth-first and overflowed the stack (fib without a cutoff, from
    /// 22 on a 1 MiB stack, from 25 on the default); past the middle, its new tasks run
    /// at once, as OpenMP allows any task to, and the tasks it then takes while it
    /// waits make none to take: the depth stays bounded.
    #[inline]
    pub(crate) fn deep(&self) -> bool {
        let here = 0u8;
        (std::ptr::addr_of!(here) as usize) < self.stack_middle.get()
    }

    /// Finds this thread's [`Local::stack_middle`], once: called by a crew worker as it
    /// enters a region.
    #[inline]
    pub(crate) fn know_stack(&self) {
        if self.stack_middle.get() == 0 {
            self.stack_middle.set(stack_middle());
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
            blocks: blocks::List::new(),
            worker: Cell::new(None),
            run_at_once: Cell::new(0),
            helped: Cell::new(0),
            stack_middle: Cell::new(0),
        }
    };
    /// The team of one of a thread outside every region, made on first use and leaked
    /// (one per such thread: a few hundred bytes).
    static INITIAL: &'static Member = initial_member();
}

fn initial_member() -> &'static Member {
    let team: &'static Team = Box::leak(Box::new(Team::new(1, None)));
    let node: &'static Node = Box::leak(Box::new(Node::implicit(0, 0, true, initial_nthreads())));
    Box::leak(Box::new(Member::new(team, 0, node, None)))
}

/// nthreads-var of a thread's initial task: `OMP_NUM_THREADS`'s first, else unset.
pub(crate) fn initial_nthreads() -> u32 {
    crate::env::nthreads_of_level(0).map_or(0, |n| n as u32)
}

/// The middle address of the calling thread's stack (`Local::deep`); 0 if the C
/// library does not say.
fn stack_middle() -> usize {
    // SAFETY: a zeroed attribute object is filled by `pthread_getattr_np` for this
    // thread and destroyed after the stack's bounds are read from it.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let mut low: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let rc = libc::pthread_attr_getstack(&attr, &mut low, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        if rc != 0 {
            return 0;
        }
        // The stack grows down, from `low + size`.
        low as usize + size / 2
    }
}

/// This thread's [`Local`]: its address from [`fast_tls`] once it was looked up there.
#[inline]
pub(crate) fn local() -> &'static Local {
    let cached = fast_tls::get();
    if !cached.is_null() {
        // SAFETY: this thread's `LOCAL`, stored by `local_slow` below; it lives as long
        // as the thread (see there).
        return unsafe { &*cached };
    }
    local_slow()
}

/// [`local`] the first time on a thread: the thread-local's own lookup, whose address
/// is then kept where [`local`] reads it.
#[cold]
#[inline(never)]
fn local_slow() -> &'static Local {
    // SAFETY: a const-initialised thread-local without a destructor lives as long as its
    // thread, and the reference never leaves it.
    let l = LOCAL.with(|l| unsafe { &*(l as *const Local) });
    fast_tls::set(l);
    l
}

/// One word per thread that this library reads without a call: a thread-local of a
/// shared library is reached through `__tls_get_addr` (general dynamic), a call of
/// about ten instructions, made on every `GOMP_task` and `GOMP_taskwait` (fib without
/// a cutoff: 17 of 287 instructions a task). On x86-64 Linux the word is a variable of
/// the library's static TLS block, reached at an offset from `%fs` that the dynamic
/// linker writes in the GOT (the initial-exec model, which libgomp's own thread data
/// uses: the library is loaded with the program, or by `dlopen` into the static TLS
/// space the C library keeps for such libraries). Elsewhere, a plain thread-local.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod fast_tls {
    use super::Local;

    std::arch::global_asm!(
        // Global for the other code-generation units' objects, hidden from every
        // other object.
        ".pushsection .tbss,\"awT\",@nobits",
        ".globl locus_omp_local",
        ".hidden locus_omp_local",
        ".p2align 3",
        ".type locus_omp_local, @object",
        ".size locus_omp_local, 8",
        "locus_omp_local:",
        ".zero 8",
        ".popsection",
    );

    /// This thread's word: null until [`set`].
    #[inline]
    pub(super) fn get() -> *const Local {
        let p: *const Local;
        // SAFETY: reads this thread's copy of `locus_omp_local` (8 bytes, 8-aligned, in
        // the library's TLS block, zeroed at thread start) at its `%fs` offset, which
        // the GOT entry holds; touches nothing else, no stack, keeps the flags.
        unsafe {
            std::arch::asm!(
                "mov {p}, qword ptr [rip + locus_omp_local@GOTTPOFF]",
                "mov {p}, qword ptr fs:[{p}]",
                p = out(reg) p,
                options(nostack, preserves_flags, readonly, pure),
            );
        }
        p
    }

    /// Stores this thread's `Local` in its word.
    pub(super) fn set(l: &'static Local) {
        // SAFETY: writes this thread's copy of `locus_omp_local`, as `get` reads it.
        unsafe {
            std::arch::asm!(
                "mov {t}, qword ptr [rip + locus_omp_local@GOTTPOFF]",
                "mov qword ptr fs:[{t}], {p}",
                t = out(reg) _,
                p = in(reg) l as *const Local,
                options(nostack, preserves_flags),
            );
        }
    }
}

/// See the x86-64 Linux `fast_tls`: elsewhere a plain thread-local, through which
/// [`local`] then looks `LOCAL` up twice the first time.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod fast_tls {
    use super::Local;
    use std::cell::Cell;

    thread_local! {
        static WORD: Cell<*const Local> = const { Cell::new(std::ptr::null()) };
    }

    #[inline]
    pub(super) fn get() -> *const Local {
        WORD.with(Cell::get)
    }

    pub(super) fn set(l: &'static Local) {
        WORD.with(|w| w.set(l));
    }
}

/// This thread's member: of the region it runs in, else of its own team of one.
#[inline]
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
#[inline]
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
    /// Makes this worker's member of the team its crew serves (the share it runs) its
    /// member until the returned guard drops, for a task taken from the pool: a worker
    /// could take one of that team while it waits inside a nested team of one (or in a
    /// task that opened one), where `member` names the inner team's member; the task
    /// belongs to the outer team and answers as its member. Off a share (never so for
    /// a published task: see `gather` in `team.rs`) nothing changes.
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
pub(crate) fn with_member(member: &Member, f: impl FnOnce()) {
    let l = local();
    let saved_member = l.member.replace(member);
    let _task = l.enter_task(member.implicit);
    f();
    l.member.set(saved_member);
}

/// [`crate::wait::outside`] for a team's thread 0, which is no worker of its crew's pool:
/// meanwhile it runs the team's tasks that wait in the crew's injector, where the
/// crew's policy allows ([`locus::raw::help`]), as libgomp's primary thread runs its
/// team's tasks while it waits.
pub(crate) fn wait_helping(done: impl Fn() -> bool) {
    match member().team().crew() {
        Some(crew) => crate::wait::outside_running(done, || locus::raw::help(&crew.pool)),
        None => crate::wait::outside(done),
    }
}

/// Waits until `done()` holds as this thread's member waits: a crew worker runs its
/// team's tasks meanwhile ([`locus::raw::wait_until`]: whoever makes `done` true must
/// then call [`wake_all`]); any other thread runs nothing ([`crate::wait::outside`]).
pub(crate) fn wait_until(done: impl Fn() -> bool) {
    if local().pooled() {
        locus::raw::wait_until(done);
    } else {
        wait_helping(done);
    }
}

/// Wakes every sleeping worker of this thread's team's crew, after a fence: called by
/// whoever made a condition true that members wait on with [`wait_until`].
pub(crate) fn wake_all() {
    match member().team().crew() {
        Some(crew) => crew.wake_all(),
        // A team of one: its only member is the caller. A fence all the same, as a
        // wake's.
        None => std::sync::atomic::fence(Ordering::SeqCst),
    }
}

/// A league of teams run in turn: kept in the member that met the `teams` construct
/// (the thread's level-0 member for host teams), where the members of the regions
/// inside find it by walking up their ancestors.
#[derive(Default)]
pub(crate) struct League {
    /// Teams in the league; 0 outside a `teams` region.
    pub(crate) size: AtomicU32,
    /// The team running now.
    pub(crate) num: AtomicU32,
    /// The largest team a parallel region inside makes; 0 for no limit. A target
    /// region's `thread_limit` is kept here too, outside any league.
    pub(crate) thread_limit: AtomicUsize,
    /// The limit before the league started, restored when it ends.
    pub(crate) saved_limit: AtomicUsize,
}

impl League {
    /// Starts a league of `n` teams (at least 1) at team 0; a `limit` of 0 keeps the
    /// thread limit there is.
    pub(crate) fn start(&self, n: u32, limit: usize) {
        let old = self.thread_limit.load(Relaxed);
        self.saved_limit.store(old, Relaxed);
        if limit > 0 {
            self.thread_limit.store(limit, Relaxed);
        }
        self.num.store(0, Relaxed);
        self.size.store(n.max(1), Relaxed);
    }

    /// Moves to the next team; false, with the league ended, after the last.
    pub(crate) fn next(&self) -> bool {
        let next = self.num.load(Relaxed) + 1;
        if next < self.size.load(Relaxed) {
            self.num.store(next, Relaxed);
            return true;
        }
        self.num.store(0, Relaxed);
        self.size.store(0, Relaxed);
        self.thread_limit
            .store(self.saved_limit.load(Relaxed), Relaxed);
        false
    }

    pub(crate) fn active(&self) -> bool {
        self.size.load(Relaxed) > 0 || self.thread_limit.load(Relaxed) > 0
    }
}
