//! Teams: parallel regions, barriers, `single`, and the thread's place in its team.
//!
//! # The team model
//! A region of `n > 1` threads is run by the thread that meets it, as thread 0 of its
//! team (so `copyin` and `threadprivate` data are that thread's own), and by a *crew*
//! of `n - 1` locus workers that the team leases whole while the region runs
//! (`crew.rs`): crew worker `i` is thread `i + 1`. Crews are reused by teams of their
//! size and retired when the threads kept would pass the largest team asked for, so a
//! program's thread count stays bounded by its largest team (times the teams running
//! at once), as libgomp's does. Teams met by different threads at once lease different
//! crews and run at once; no lock is held while a team runs. A region met inside an
//! active region runs as a real team too (a crew of its own), up to max-active-levels
//! (`OMP_MAX_ACTIVE_LEVELS`, `OMP_NESTED`, `omp_set_max_active_levels`); past it, and
//! for a team of one, the region runs on the meeting thread alone, every task it makes
//! at once.
//!
//! # Where a team's tasks run
//! Every task of a team runs on a worker of its crew, so the locality policies place
//! them as any locus task: a crew worker spawns into its own pool
//! ([`locus::raw::spawn`]); thread 0, which is no worker of that pool (an outside
//! thread, or a worker of the parent team's crew), hands its tasks to the crew's
//! injector ([`locus::raw::inject`]), and the policy places their descendants. A crew
//! runs no other team's task, since the team holds it whole. A member that is a crew
//! worker (`Local::worker` set: [`Local::pooled`](crate::member::Local::pooled)) waits as a worker does, running its
//! team's tasks ([`locus::raw::wait_until`]); thread 0 waits running only its own
//! team's tasks that no crew worker has taken from the crew's injector, where the
//! crew's policy allows it ([`wait_helping`](crate::member::wait_helping), [`locus::raw::help`]: not under a policy
//! that deals tasks to given workers, whose tasks would escape them; under one that
//! takes task events, only those the policy never placed, in the crew's injector), and
//! otherwise spins, then yields, then naps ([`wait::outside`](crate::wait::outside)); so a nested team's
//! thread 0 never runs its parent team's tasks while its own team runs. Whoever makes a
//! waited-for condition true wakes the crew's workers through the crew ([`wake_all`](crate::member::wake_all)),
//! whichever thread it runs on.
//!
//! # Entering a region
//! A task taken from a crew's pool must find its worker already the member that runs
//! it. So each member first publishes itself (its `MEMBER`, and, for a crew worker,
//! `share`: the member it is of the team its crew serves), then waits until every
//! member has (`gather`), before it runs any of the region's code; it runs no task
//! while it waits, since the first members through may already have made some. Only a
//! crew's first regions need the wait: once every worker is in the crew loop, a worker
//! between regions runs no task (see `gather`). A task taken from the pool runs as the
//! worker's `share` member, even if the worker waits inside a nested team of one.
//!
//! # The barrier
//! A member first waits until its implicit task's references fall to its own (every
//! task descended from it has completed; see `task.rs`), then arrives; the last to
//! arrive resets the count and moves the generation on (`SeqCst`), then wakes every
//! worker of the crew (which fences). The others wait for the generation to move. All
//! members' descendants done, all arrived: no task of the team is left. Every waiting
//! crew worker runs the team's tasks meanwhile.
//!
//! A thread's place in its team, and how members wait, are `member.rs`'s.

use crate::crew::{self, Crew, Lease};
use crate::member::Local;
use crate::member::{current, local, member, wait_until, with_member, Member, Team};
use crate::node::{Node, OutlinedFn};
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

/// A region of more than one thread: what every member needs to run it.
struct Region {
    team: Team,
    f: OutlinedFn,
    data: *mut c_void,
    /// The member that met the region: its members' parent, and its thread 0's.
    starter: *const Member,
    /// Runs first on each member (a combined loop's dealing); live while the region is.
    setup: *const (dyn Fn(&Member) + Sync),
    /// nthreads-var of its implicit tasks ([`inner_nthreads`]).
    nthreads: u32,
    /// The implicit tasks of threads `1..size`, crew worker `i`'s at `i`. Here, not in
    /// [`Region::run_worker`]'s frame: the task that completes a member's last
    /// descendant wakes the member after the count it waits on moved (`release` in
    /// `task.rs`), so it may still read the node's waiter slot after the member has
    /// passed the closing barrier and left its frame. Every such task runs on a member of
    /// this team, inside the region, and the region outlives them all (its maker waits
    /// for the crew to leave: `Lease::wait_left`). As libgomp keeps its team's implicit
    /// tasks in the team.
    implicit: Box<[Node]>,
}

// SAFETY: the program hands the data to every member of its team by design (the
// outlined function reads shared variables through it); the members read the
// starter's fixed fields (`num`, `level`, `active_level`, `parent`, its team's `size`)
// and its `def_allocator`, which nobody writes while the region runs (the starter's
// thread runs as the region's thread 0 meanwhile, a member of its own); the starter
// outlives the region (it waits for the crew).
unsafe impl Sync for Region {}

impl Region {
    fn new(
        team: Team,
        f: OutlinedFn,
        data: *mut c_void,
        starter: &Member,
        setup: &(dyn Fn(&Member) + Sync),
    ) -> Region {
        // SAFETY: only the lifetime is erased; whoever makes the region keeps `setup`
        // live until every member is done (`parallel_of` and `parallel_end` wait for
        // the crew before it goes).
        let setup: &'static (dyn Fn(&Member) + Sync) = unsafe { std::mem::transmute(setup) };
        let nthreads = inner_nthreads(starter);
        let fn_id = f as usize as u64;
        let implicit = (1..team.size)
            .map(|num| Node::implicit(fn_id, num as u32, false, nthreads))
            .collect();
        Region {
            team,
            f,
            data,
            starter,
            setup,
            nthreads,
            implicit,
        }
    }

    fn setup(&self, m: &Member) {
        // SAFETY: live while the region is (see `setup`).
        unsafe { (*self.setup)(m) }
    }

    /// Crew worker `i`'s part: thread `i + 1` of the team, from the region's opening to
    /// its closing barrier.
    fn run_worker(&self, i: usize) {
        crate::guard::guard("a parallel region", || {
            let num = i + 1;
            let node = &self.implicit[i];
            // SAFETY: the starter outlives the region (see `Sync`).
            let m = Member::new(&self.team, num, node, Some(unsafe { &*self.starter }));
            let l = local();
            l.know_stack();
            let saved_share = l.share.replace(&m);
            let saved_worker = l.worker.replace(locus::raw::Worker::current());
            with_member(&m, || {
                gather(&self.team);
                self.setup(&m);
                crate::affinity::display_on_entry();
                // SAFETY: the program's outlined function and data, called as libgomp
                // calls them.
                unsafe { (self.f)(self.data) };
                barrier();
            });
            l.worker.set(saved_worker);
            l.share.set(saved_share);
            if let Some(crew) = self.team.crew() {
                crew.count(l.run_at_once.take(), 0);
            }
        })
    }
}

/// The size of the team a parallel region asking for `requested` threads (0: the
/// default) gets here: 1 where max-active-levels active regions already enclose the
/// thread, else the request or nthreads-var, at most thread-limit-var and the
/// enclosing `teams` or `target` region's thread limit. (The crew may give fewer where
/// the teams running at once use up `OMP_THREAD_LIMIT`: `crew::lease`.)
pub(crate) fn region_size(requested: usize) -> usize {
    if member().active_level >= crate::env::max_active_levels() {
        return 1;
    }
    let size = match requested {
        0 => max_threads(),
        n => n.min(crate::env::thread_limit()),
    };
    crate::teams::thread_limit().map_or(size, |limit| size.min(limit))
}

/// The team size of a region without `num_threads` met by the running task, at most
/// thread-limit-var: the task's nthreads-var, else (never set) one per PU.
pub(crate) fn max_threads() -> usize {
    match current().nthreads.get() {
        0 => crew::default_threads(),
        n => n as usize,
    }
    .min(crate::env::thread_limit())
}

/// nthreads-var of the implicit tasks of a region that the running task, a task of
/// `outer`, meets: `OMP_NUM_THREADS`'s entry for the region's nesting level, if its
/// list is that long, else the running task's (as libgomp's `gomp_team_start`).
fn inner_nthreads(outer: &Member) -> u32 {
    crate::env::nthreads_of_level(outer.level + 1)
        .map_or_else(|| current().nthreads.get(), |n| n as u32)
}

/// `GOMP_parallel`: runs `f(data)` on a team of `requested` threads (0: nthreads-var);
/// `setup` runs first on each member (a combined parallel loop's dealing).
pub(crate) fn parallel(
    f: OutlinedFn,
    data: *mut c_void,
    requested: usize,
    setup: &(dyn Fn(&Member) + Sync),
) {
    parallel_of(f, data, Threads::lease(region_size(requested)), setup)
}

/// The threads of a team about to run: the crew leased for it, if it has more than one.
pub(crate) struct Threads(Option<Lease>);

impl Threads {
    /// Threads for a team of `size` (which [`region_size`] gave): a crew of `size - 1`
    /// workers, or fewer where the teams running at once use up `OMP_THREAD_LIMIT`.
    pub(crate) fn lease(size: usize) -> Threads {
        Threads(if size > 1 {
            crew::lease(size - 1)
        } else {
            None
        })
    }

    /// The team's size.
    pub(crate) fn size(&self) -> usize {
        1 + self.0.as_ref().map_or(0, |c| c.workers())
    }
}

/// [`parallel`] on `threads`, which [`Threads::lease`] gave.
pub(crate) fn parallel_of(
    f: OutlinedFn,
    data: *mut c_void,
    threads: Threads,
    setup: &(dyn Fn(&Member) + Sync),
) {
    let outer = member();
    let fn_id = f as usize as u64;
    let Some(lease) = threads.0 else {
        let team = Team::new(1, None);
        let node = Node::implicit(fn_id, 0, true, inner_nthreads(outer));
        let m = Member::new(&team, 0, &node, Some(outer));
        with_member(&m, || {
            setup(&m);
            crate::affinity::display_on_entry();
            // SAFETY: the program's outlined function, called as GCC's libgomp calls it.
            unsafe { f(data) };
            barrier();
        });
        return;
    };
    let region = Region::new(
        Team::new(1 + lease.workers(), Some(&lease)),
        f,
        data,
        outer,
        setup,
    );
    let job = |i: usize| region.run_worker(i);
    // SAFETY: `job` and the lease live until `wait_left` below returns.
    unsafe { lease.post(&job) };
    let node = Node::implicit(fn_id, 0, false, region.nthreads);
    let m = Member::new(&region.team, 0, &node, Some(outer));
    let l = local();
    // Thread 0 is no worker of the crew: it spawns through the crew's injector and
    // waits running nothing (see the module docs).
    let saved_worker = l.worker.replace(None);
    let saved_counts = thread_0_enters(l);
    with_member(&m, || {
        gather(&region.team);
        setup(&m);
        crate::affinity::display_on_entry();
        // SAFETY: the program's outlined function, called as GCC's libgomp calls it.
        unsafe { f(data) };
        barrier();
    });
    l.worker.set(saved_worker);
    thread_0_leaves(&lease, l, saved_counts);
    lease.wait_left();
}

/// Thread 0's counts for the `LOCUS_STATS` report (`Local::run_at_once`,
/// `Local::helped`) before a region on a crew, set aside: a thread 0 that is a worker of
/// an outer team's crew counts for that crew outside the region.
fn thread_0_enters(l: &Local) -> (u64, u64) {
    (l.run_at_once.take(), l.helped.take())
}

/// Adds to `crew` what thread 0 counted in the region it leaves, and gives it back the
/// counts [`thread_0_enters`] set aside.
fn thread_0_leaves(crew: &Crew, l: &Local, saved: (u64, u64)) {
    crew.count(l.run_at_once.replace(saved.0), l.helped.replace(saved.1));
}

/// A region started by `GOMP_parallel_start` (GCC before 4.9), whose function the
/// caller runs itself, as thread 0, before `GOMP_parallel_end`.
struct Started {
    member: Box<Member>,
    _node: Box<Node>,
    /// The crew's job, while the crew runs it.
    _job: Option<Box<dyn Fn(usize) + Sync>>,
    region: Box<Region>,
    _setup: Box<dyn Fn(&Member) + Sync>,
    lease: Option<Lease>,
    saved_member: *const Member,
    saved_current: *const Node,
    saved_worker: Option<locus::raw::Worker>,
    /// Thread 0's counts before the region ([`thread_0_enters`]).
    saved_counts: (u64, u64),
}

thread_local! {
    /// The regions `GOMP_parallel_start` opened on this thread, innermost last.
    static STARTED: RefCell<Vec<Started>> = const { RefCell::new(Vec::new()) };
}

/// A region's address, for a crew's job that outlives the frame that made it.
struct RegionPtr(*const Region);
// SAFETY: a `Region` is `Sync`; the pointer is live while the crew runs the job
// (`parallel_end` waits for it before the region goes).
unsafe impl Sync for RegionPtr {}
// SAFETY: as above.
unsafe impl Send for RegionPtr {}

impl RegionPtr {
    /// A method, so closures capture the whole `RegionPtr`.
    fn get(&self) -> &Region {
        // SAFETY: see the type.
        unsafe { &*self.0 }
    }
}

/// `GOMP_parallel_start` (and the older combined starts): a team of `requested`
/// threads (0: nthreads-var) for `f(data)`, the caller its thread 0, which calls the
/// region's function next and then `GOMP_parallel_end`; `setup` runs first on each
/// member (a combined loop's or sections' dealing).
pub(crate) fn parallel_start(
    f: OutlinedFn,
    data: *mut c_void,
    requested: usize,
    setup: Box<dyn Fn(&Member) + Sync>,
) {
    let outer = member();
    let threads = Threads::lease(region_size(requested));
    let size = threads.size();
    let lease = threads.0;
    let region = Box::new(Region::new(
        Team::new(size, lease.as_deref()),
        f,
        data,
        outer,
        &*setup,
    ));
    let job = lease.as_ref().map(|lease| {
        let ptr = RegionPtr(&*region);
        let job: Box<dyn Fn(usize) + Sync> = Box::new(move |i| ptr.get().run_worker(i));
        // SAFETY: the job, the region and the lease live in `STARTED` until
        // `parallel_end` has waited for the crew.
        unsafe { lease.post(&*job) };
        job
    });
    let node = Box::new(Node::implicit(
        f as usize as u64,
        0,
        size == 1,
        region.nthreads,
    ));
    let member = Box::new(Member::new(&region.team, 0, &node, Some(outer)));
    let l = local();
    let saved_member = l.member.replace(&*member);
    let saved_current = l.current.replace(member.implicit);
    let saved_worker = if size > 1 {
        l.worker.replace(None)
    } else {
        l.worker.get()
    };
    let saved_counts = if size > 1 { thread_0_enters(l) } else { (0, 0) };
    if size > 1 {
        gather(&region.team);
    }
    setup(&member);
    STARTED.with(|s| {
        s.borrow_mut().push(Started {
            member,
            _node: node,
            _job: job,
            region,
            _setup: setup,
            lease,
            saved_member,
            saved_current,
            saved_worker,
            saved_counts,
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
        if let Some(lease) = &started.lease {
            thread_0_leaves(lease, local(), started.saved_counts);
            lease.wait_left();
        }
        debug_assert!(started.region.team.size >= 1);
        let l = local();
        l.member.set(started.saved_member);
        l.current.set(started.saved_current);
        l.worker.set(started.saved_worker);
    }
}

/// The region's opening: waits until every member has entered it (published its
/// `MEMBER` and `share`). Until then no member runs the region's code, so no task of the
/// team exists: a worker of the crew that takes one (its tasks are published to the
/// crew's pool, which runs no other team) is already the member that runs it, never a
/// worker still on its way to its share, which would answer the `omp_*` queries as a
/// thread outside every region. (After the closing barrier no task of the team is left
/// either.)
///
/// The wait runs nothing ([`locus::raw::spin_until`]), unlike
/// [`locus::raw::wait_until`], whose worker runs the pool's tasks meanwhile. The first
/// members through may already have made tasks, and a member that ran one before its
/// own region began would count it, say, in a `threadprivate` variable that the
/// region's first statement then resets (`tests/c/threadprivate.c`, 200 short regions:
/// before, it lost counts in both runs tried, under `static` on 2x2 and under `cab` on
/// 3x1). Every member is a started thread on its way here, so the wait is short.
fn gather(team: &Team) {
    if !team.gathers {
        return;
    }
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
            if let Some(crew) = team.crew() {
                crew.wake_all();
            }
        } else {
            wait_until(|| team.generation.load(Ordering::SeqCst) != generation);
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
