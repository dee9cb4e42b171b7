//! The bi-tier machinery shared by CAB and CATS (Chen et al.): the DAG is split into an
//! inter-squad tier, whose tasks move between squads, and an intra-squad tier, whose
//! tasks stay in the squad that runs their leaf inter-squad task.
//!
//! - Inter-squad tasks (at and above the leaf inter-squad tasks) are generated
//!   parent-first into the spawning squad's inter-squad pool, so that other squads'
//!   heads can take them; intra-squad tasks child-first onto the worker's own deque.
//! - The stealing protocol of CAB's Algorithm I: a worker looks at its own deque, then
//!   (while its squad is busy) its squad peers' deques; the head of a squad that is not
//!   busy looks at its squad's inter-squad pool, then steals from the inter-squad
//!   pools of other squads, from a random start.
//! - `busy_state`: a squad is busy from the start of a leaf inter-squad task to its end,
//!   and a busy squad takes no inter-squad task, so it runs at most one leaf
//!   inter-squad subtree at a time. A head that waits inside a `join` searches with the
//!   same plan, so a busy squad's waiting head does not start a second subtree.
//! - With iteration affinity ([`IterationAffinity`]), a leaf inter-squad task goes to the
//!   pool of its home squad instead of the spawner's, and the tasks above it are
//!   unfolded child-first by whoever runs them (they only spawn), so the pools hold
//!   leaves only; a head steals from remote pools once its squad has started all its
//!   own leaves.
//!
//! The published forms (`cab-paper`, `cats-paper`) are exactly the above. The forms with
//! iteration affinity add the rules below, each of which removes a case where the
//! published rules lose to work stealing; the measurements behind each are in
//! `docs/results.md` ("Why the bi-tier rules are what they are").
//!
//! # Never idle while work waits (with iteration affinity)
//!
//! - **A narrow subtree.** A squad is *full* when the widths of its running leaf
//!   subtrees add up to its workers; until then any of its workers whose search of the
//!   squad found nothing may start another leaf (its own squad's first, then other
//!   squads' once its own have all started). A leaf's width is the number of tasks
//!   without children in its subtree, from the first iteration's profile; a leaf of
//!   unknown width counts as the whole squad, which is `busy_state` exactly. A squad
//!   already running a leaf starts no second one of its own while a squad with no leaf
//!   homed there idles, and takes no other squad's leaf while any squad idles. A squad
//!   with no leaf of its own takes other squads' leaves only from a squad that runs a
//!   leaf while leaves homed there wait ([`BiTier::leaves_wait_elsewhere`]).
//! - **Work stuck in another squad.** A squad that runs no leaf subtree and whose own
//!   leaves of this iteration have all started steals, as the last place of every
//!   search, from any worker's deque, as `ws` does; a squad still waiting for a leaf of
//!   its own does not. A squad whose leaf subtree still runs while every one of its
//!   workers searches counts as idle too (each worker's searches and task starts say
//!   whether it searches).
//! - **Waiting inside a subtree.** A worker that searches while it waits inside a task
//!   of a leaf subtree steals from no other squad's deque: what it found would run on
//!   top of the waiting task and hold up the whole subtree. Waiting in a task above the
//!   leaves does steal.
//!
//! # Several leaves per squad (with iteration affinity)
//!
//! Where the first iteration's profile shows the squads' shares of the work uneven (the
//! largest over [`UNEVEN_SHARES`] times the mean; the work is the tasks' instructions
//! where the counters count them, else their time), the cut goes deeper, to at least
//! [`LEAVES_PER_SQUAD`] leaves per squad where the tree has them (`cab`: the first level
//! below Eq. 4's that has so many tasks; `cats`: Fig. 6's leaves split, the largest
//! first). Even shares keep the papers' cut. The leaves are dealt contiguously, so each
//! squad still owns one contiguous share of the data. A squad's idle workers start its
//! own leaves whatever the squad runs already (the `busy_state` rule stays for other
//! squads' leaves), and a squad done with its own takes the unstarted leaves of a late
//! one, which then move home to it.
//!
//! # Data that outgrows every cache (with iteration affinity)
//!
//! When the data the profile measured (`S_d`) is larger than the squads' L3s together
//! (`M · S_c`), no placement keeps a squad's share in its cache from one iteration to
//! the next, and a partition only binds each squad to its share, its pages' nodes and
//! its leaves' granularity. So `cab` and `cats` run the tasks of such a program as `ws`
//! after its profile ([`BiTier::outgrows_caches`]); the published forms partition it as
//! the papers do. Loop chunks keep their homes: each squad's chunks first-touched their
//! pages on its own node. `S_d` sums each task's bytes, so data two tasks share (a
//! stencil's halo rows) counts twice, and the test errs towards `ws`.
//!
//! # N-tier: packages of several squads (with iteration affinity, learned partitions)
//!
//! On a machine whose packages hold several squads, the profiled iteration is run where
//! the partition will put things, a level at a time, so that the move to the
//! partition's placement does not pull the data across packages:
//! - the joins at the tree's top are dealt to squads by position: subtree `i` of the
//!   `2^d` at depth `d` goes to squad `⌊i·m/2^d⌋`, until every squad has one (the
//!   second half of each join waits in its squad's queue; the first runs where its
//!   spawner runs, which is where its position puts it; `deal.rs`);
//! - until a profiled task completes, the top unfolds inside each squad: its workers
//!   steal from their squad only ([`TopDeal::unfolding`]);
//! - then work is stolen own package first ([`Victims::Package`]), so that a package's
//!   part of the tree and of the data stays in it (a package whose other workers are
//!   all idle is skipped);
//! - the profile records which squad ran each task, and each leaf's first home is the
//!   package where its subtree touched most bytes, as far as every package's share of
//!   the leaves allows (the leaves that lean hardest go first), then contiguously a
//!   squad of it.
//!
//! Dealing and clustering last while the profiled tasks touch memory (a cache line per
//! completed task on average) and have touched no more bytes than the squads' caches
//! hold together: a program whose tasks touch nothing (fib, nqueens) is stolen at
//! random from its first completed task on. Later homes, stealing between squads and
//! the rules above are the same at every level; remote searches go nearest first
//! (`WorkerMap::remote_squads`). Where every package holds one squad (the papers'
//! machines), or there is one package, and for `cab-paper` and `cats-paper`, nothing
//! changes. CAB with given inputs (no profile) deals its leaves by position.
//!
//! # Who may touch what
//!
//! A squad's load (the busy state, counted in workers) is added to and taken from by
//! the workers that start and finish its leaf inter-squad tasks, with read-modify-writes
//! so that two of them cannot lose an update; `Relaxed` suffices, since plans read it
//! with `Relaxed` loads and may be one search late, which costs a search, not a task.
//! Paper-faithful, only the head starts leaves for its squad, so the published invariant
//! (one leaf subtree per squad) holds exactly, and `leaf_subtree_overlaps` stays 0. With
//! affinity a full squad starts its own leaves, and two workers of a squad that both
//! read room before either started its leaf both start one; `leaf_subtrees_stacked`
//! counts both, and the squad runs over its size until one of them finishes.

use crate::policies::deal::TopDeal;
use crate::policies::iteration::{contiguous_squad, IterationAffinity};
use crate::policies::online::{bytes_by_group, Entry, OnlineProfile};
use crate::Source;
use crate::{
    Layout, Place, Probe, SquadId, TaskCost, TaskId, TaskInfo, Victims, WorkerId, WorkerMap,
};
use crossbeam_utils::CachePadded;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

/// With iteration affinity, the partition gives each squad at least this many leaf
/// inter-squad tasks where the tree has them (see "Several leaves per squad" in the
/// module documentation). Chosen by measurement between balance and the subtrees'
/// size; 1 is the papers' cut.
pub(crate) const LEAVES_PER_SQUAD: usize = 4;

/// With iteration affinity, the partition is cut finer (to [`LEAVES_PER_SQUAD`] leaves
/// per squad) when the squads' shares of the profiled work are this uneven: the largest
/// share over the mean. A guess: a quarter more than the mean; a stencil's shares differ
/// by its boundary rows only (about 1.0), a moving hot band's by its factor.
pub(crate) const UNEVEN_SHARES: f64 = 1.25;

/// The tier of a task in a partitioned DAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Above the leaf inter-squad tasks: generated parent-first, may move between squads.
    Inter,
    /// A leaf inter-squad task: the root of a subtree that runs in one squad.
    LeafInter,
    /// Below a leaf inter-squad task: generated child-first, stays in its squad.
    Intra,
}

impl Tier {
    /// Whether tasks of this tier go to an inter-squad pool.
    pub fn is_inter(self) -> bool {
        !matches!(self, Tier::Intra)
    }
}

/// What a worker is doing, as its own calls tell: written by that worker only (plain
/// loads and stores, on its own cache line), read by its squad mates' searches.
#[derive(Debug, Default)]
struct Activity {
    /// Searching for work since its last task start (idle, or waiting inside a task).
    searching: AtomicBool,
    /// Tasks of a leaf subtree (a leaf inter-squad task and the tasks below it) started
    /// and not finished: when positive, a search is a wait inside the squad's subtree.
    depth: AtomicU32,
}

/// Squads, heads and busy states of a bi-tier policy, with its statistics.
#[derive(Debug)]
pub(crate) struct BiTier {
    squad_of: Vec<SquadId>,
    heads: Vec<WorkerId>,
    llc: Vec<Option<u64>>,
    single_worker: bool,
    /// The workers of each squad.
    members: Vec<Vec<WorkerId>>,
    /// Per worker, what its own searches, starts and finishes say of it.
    workers: Box<[CachePadded<Activity>]>,
    /// Plans that let a worker steal from any worker while its squad's leaf subtree
    /// still ran (every worker of the squad searching: the rest of it was in other
    /// squads' hands).
    stalled_searches: AtomicU64,
    /// Per squad, the widths (capped at the squad's size) of its running leaf
    /// subtrees, summed: the squad is full when this reaches its size.
    load: Box<[CachePadded<AtomicU32>]>,
    /// Leaf inter-squad tasks' widths, once a profile gives them (otherwise every leaf
    /// counts as wide as its squad).
    widths: OnceLock<HashMap<TaskId, u32>>,
    /// Leaf inter-squad tasks running per squad: instrumentation of the invariant.
    running_leaves: Box<[CachePadded<AtomicU32>]>,
    /// Paper-faithful: leaf subtrees started in a squad past what its free workers allow.
    violations: AtomicU64,
    /// Leaf subtrees started beside narrow ones that left workers free.
    side_by_side: AtomicU64,
    /// With affinity: leaf subtrees started in a squad already full (its own leaves, or
    /// two workers that both saw room), which the rules allow.
    stacked: AtomicU64,
    inter_taken: Box<[AtomicU64]>,
    busy_refusals: Box<[AtomicU64]>,
    pub(crate) affinity: IterationAffinity,
    /// Loop chunks are placed by home in squad queues: with affinity, two squads or
    /// more, and a policy that does not run as plain work stealing for good.
    chunks: bool,
    /// Loop chunks placed and not started yet. Plans look at squad queues only while
    /// there are some, so a program without loops searches exactly as before (a stale
    /// read costs a search, not a task: the wake-up on push finds the chunk).
    pending_chunks: CachePadded<AtomicU64>,
    /// The squads of each package, where packages hold several squads and there are
    /// several packages (N-tier first homes); empty elsewhere.
    packages: Vec<Vec<SquadId>>,
    /// Per squad, the index of its package in `packages`.
    package_of: Vec<usize>,
    /// Where `packages` is not empty: whether the profiled iteration's top is dealt and
    /// stolen own package first ([`BiTier::ws_victims`]).
    cluster: AtomicBool,
    /// The profiled iteration's top, dealt to squads (N-tier).
    deal: TopDeal,
}

/// The squads of `map` grouped by package ([`WorkerMap::package_of`]), when there are
/// several packages and fewer than squads: a machine with a level between squad and
/// machine. Empty otherwise.
fn package_groups(map: &WorkerMap) -> Vec<Vec<SquadId>> {
    let packages = map.num_packages();
    if packages < 2 || packages >= map.num_squads() {
        return Vec::new();
    }
    let mut groups = vec![Vec::new(); packages];
    for s in 0..map.num_squads() {
        groups[map.package_of(s)].push(s);
    }
    groups
}

impl BiTier {
    /// The bi-tier state for the squads of `map`, with iteration affinity or
    /// paper-faithful.
    pub(crate) fn new(map: &WorkerMap, affinity: bool) -> BiTier {
        let squads = map.num_squads();
        let packages = if affinity {
            package_groups(map)
        } else {
            Vec::new()
        };
        BiTier {
            squad_of: (0..map.num_workers()).map(|w| map.squad_of(w)).collect(),
            heads: (0..squads).map(|s| map.head(s)).collect(),
            llc: (0..squads).map(|s| map.llc_size(s)).collect(),
            single_worker: map.num_workers() == 1,
            members: (0..squads).map(|s| map.squad(s).to_vec()).collect(),
            workers: (0..map.num_workers())
                .map(|_| CachePadded::new(Activity::default()))
                .collect(),
            stalled_searches: AtomicU64::new(0),
            load: (0..squads)
                .map(|_| CachePadded::new(AtomicU32::new(0)))
                .collect(),
            widths: OnceLock::new(),
            running_leaves: (0..squads)
                .map(|_| CachePadded::new(AtomicU32::new(0)))
                .collect(),
            violations: AtomicU64::new(0),
            side_by_side: AtomicU64::new(0),
            stacked: AtomicU64::new(0),
            inter_taken: (0..squads).map(|_| AtomicU64::new(0)).collect(),
            busy_refusals: (0..squads).map(|_| AtomicU64::new(0)).collect(),
            affinity: IterationAffinity::new(squads, affinity),
            chunks: affinity && squads > 1,
            pending_chunks: CachePadded::new(AtomicU64::new(0)),
            cluster: AtomicBool::new(!packages.is_empty()),
            package_of: (0..squads).map(|s| map.package_of(s)).collect(),
            deal: TopDeal::new(squads),
            packages,
        }
    }

    /// Gives the leaf inter-squad tasks of a partition just made (`leaves`, in
    /// depth-first order, from the profile `entries`) their first homes. On a machine
    /// with one level of squads per package, or one package, subtree `i` of `k` goes to
    /// squad `⌊i·m/k⌋`. Where packages hold several squads, level by level: a leaf goes
    /// first to the package where the profiled iteration touched most of its data (as
    /// far as the packages' shares allow), then to a squad of it, contiguously: data the
    /// profiling iteration brought into one package's caches and first-touched on its
    /// memory stays there, and only moves between that package's squads.
    pub(crate) fn preset_homes(&self, entries: &HashMap<TaskId, Entry>, leaves: Vec<TaskId>) {
        if self.packages.is_empty() {
            self.affinity.preset_contiguous(leaves);
            return;
        }
        let bytes = bytes_by_group(entries, &leaves, &self.package_of, self.packages.len());
        self.affinity
            .preset_by_group(leaves, &bytes, &self.packages);
    }

    /// The policy runs as plain work stealing for good (CAB with BL = 0): its layout is
    /// [`Layout::deques`], so loop chunks are not placed either.
    pub(crate) fn without_chunks(mut self) -> BiTier {
        self.chunks = false;
        self
    }

    /// Whether loop chunks go to their home squads' queues (with affinity, on several
    /// squads, unless [`BiTier::without_chunks`]).
    pub(crate) fn has_chunks(&self) -> bool {
        self.chunks
    }

    /// The queues and calls a bi-tier policy needs: inter-squad pools, every spawn
    /// placed by the policy, task events; with affinity also squad queues, where loop
    /// chunks wait for the workers of their home squad.
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            always_local: false,
            inter_pools: true,
            squad_queues: self.chunks,
            task_events: true,
            // Once the policy runs as ws for good and wants no more task events
            // (`Policy::wants_task_events`), its placed loop chunks still report their
            // starts from the squad queues.
            queued_starts: true,
            // Paper-faithful, every chunk is placed by itself (see `loop_blocks`).
            loop_blocks: self.affinity.enabled(),
            ..Layout::deques()
        }
    }

    /// Workers in `squad`.
    #[inline]
    fn squad_size(&self, squad: SquadId) -> u32 {
        self.members[squad].len() as u32
    }

    pub(crate) fn num_squads(&self) -> usize {
        self.heads.len()
    }

    /// Whether `data_bytes` of data outgrow the last-level caches of all squads together
    /// (`S_d > M · S_c`, `S_c` the squads' shared cache): then no partition keeps a
    /// squad's share cached between iterations, and the locality policies with iteration
    /// affinity run its tasks as `ws` (see the module's documentation). The private
    /// caches do not count: the simulator's, and inclusive L3s (Intel's before
    /// Skylake-SP, the papers' Xeon X7550 among them), keep a copy of every L2 line, and
    /// where they do not (AMD's victim L3) the test errs towards `ws`. One squad never
    /// outgrows: there is nothing to partition.
    pub(crate) fn outgrows_caches(&self, data_bytes: u64, shared_cache: u64) -> bool {
        self.num_squads() > 1 && data_bytes > self.caches_together(shared_cache)
    }

    /// What the squads' last-level caches hold together, `M · S_c`.
    pub(crate) fn caches_together(&self, shared_cache: u64) -> u64 {
        (self.num_squads() as u64).saturating_mul(shared_cache)
    }

    /// The end of `--explain`'s line for a program whose data outgrows the caches
    /// ([`BiTier::outgrows_caches`]), after the policy has said how large the data is.
    pub(crate) fn outgrown_line(&self, shared_cache: u64) -> String {
        format!(
            "the data outgrows the squads' caches together (M * S_c = {} bytes), so no \
             partition keeps it cached between iterations: tasks run as ws, loop chunks \
             keep their homes\n",
            self.caches_together(shared_cache)
        )
    }

    /// The shared cache size of the squads: the smallest last-level cache any squad
    /// has, or `None` if the topology describes none.
    pub(crate) fn shared_cache(&self) -> Option<u64> {
        self.llc.iter().flatten().copied().min()
    }

    /// Plain work stealing: before a partition exists, or where there is one squad.
    /// With affinity, loop chunks are taken from the worker's squad queue before
    /// stealing, and from other squads' queues (a squad's worth at a time) after.
    pub(crate) fn ws_plan(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        plan.push(Probe::OwnDeque);
        let chunks = self.chunks_waiting();
        if chunks || self.deal.waiting() {
            plan.push(Probe::SquadQueue(self.squad_of[worker]));
        }
        if !self.single_worker {
            let victims = match self.ws_victims() {
                Victims::Package if self.deal.unfolding() => Victims::Squad,
                victims => victims,
            };
            plan.push(Probe::Steal(victims));
        }
        if chunks {
            plan.push(Probe::BulkSteal {
                batch: 1,
                nearest: true,
            });
        }
    }

    /// Where the profiled iteration's `task`, spawned by `parent`, goes, if not where
    /// the spawner would put it: where packages hold several squads, while the profiled
    /// tasks touch memory, the halves of the joins at the tree's top are dealt to
    /// squads ([`TopDeal`]).
    pub(crate) fn profile_place(&self, parent: &TaskInfo, task: &TaskInfo) -> Option<Place> {
        if !self.cluster.load(Ordering::Relaxed) {
            return None;
        }
        self.deal.place(parent, task).map(Place::Squad)
    }

    /// Whom plain work stealing steals from (while profiling, where a program is
    /// CPU-bound, and as the last place of a partitioned search): at random, as the
    /// papers' Cilk-a (results on their machines unchanged), except where packages hold
    /// several squads and the profiled tasks touch memory. There the own package first
    /// ([`Victims::Package`]), so that the profiled iteration keeps each part of the
    /// data, dealt to a squad with the tree's top, in that squad's package, where the
    /// N-tier first homes ([`BiTier::preset_homes`]) then leave it. Not the own squad
    /// first: that splits a tree's top inside one squad before other squads get a
    /// piece, and fine-grained trees pay for it in steals (`ws:near` searched so when it
    /// took 2.87x ws's time in `locus sim fib --size 30,cutoff=0 --policy ws,ws:near
    /// --machine epyc-7763-2s`).
    ///
    /// Only while the profiled tasks touch memory ([`BiTier::profiled`]): where they do
    /// not, there is no data to keep together, and a program that runs as its profile
    /// runs (fib) is stolen at random from its first completed task on.
    fn ws_victims(&self) -> Victims {
        if self.cluster.load(Ordering::Relaxed) {
            Victims::Package
        } else {
            Victims::All
        }
    }

    /// `task`, profiled, completed on `worker` having cost `cost` itself: recorded in
    /// `profile`, with the squad that ran it, and the profile's search follows whether
    /// the tasks so far touch memory (see [`BiTier::ws_victims`]). Returns whether the
    /// profile should give up, its first tasks touching no data (see
    /// [`crate::policies::online::FIRST_LOOK`]).
    #[must_use]
    pub(crate) fn profiled(
        &self,
        profile: &OnlineProfile,
        worker: WorkerId,
        task: &TaskInfo,
        cost: &TaskCost,
    ) -> bool {
        let touched = profile.finished(task, cost, self.squad_of(worker));
        let fits = self
            .shared_cache()
            .is_none_or(|llc| touched.bytes <= self.caches_together(llc));
        let cluster = touched.memory && fits && !self.packages.is_empty();
        if self.cluster.load(Ordering::Relaxed) != cluster {
            self.cluster.store(cluster, Ordering::Relaxed);
        }
        touched.no_data
    }

    /// CAB's Algorithm I for `worker`. With affinity, every worker also takes loop
    /// chunks from its squad's queue once its squad has no other work it could steal,
    /// and steals a squad's worth of chunks from another squad's queue; any worker of a
    /// squad that is not full starts leaves as the head of an idle squad does; and
    /// stealing from any worker comes last of all (see the module documentation).
    pub(crate) fn plan(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        let squad = self.squad_of[worker];
        self.set_searching(worker, true);
        plan.push(Probe::OwnDeque);
        plan.push(Probe::Steal(Victims::Squad));
        let chunks = self.chunks_waiting();
        if chunks {
            plan.push(Probe::SquadQueue(squad));
        }
        let load = self.load[squad].load(Ordering::Relaxed);
        let takes_leaves = self.heads[squad] == worker || self.affinity.enabled();
        if self.affinity.enabled()
            && load >= self.squad_size(squad)
            && !self.affinity.own_leaves_started(squad)
        {
            // The squad's own leaves, whatever it runs: they hold its share of the data.
            plan.push(Probe::InterPool(squad));
        } else if takes_leaves
            && load < self.squad_size(squad)
            && (load == 0 || !self.other_squad_idle(squad, true))
        {
            plan.push(Probe::InterPool(squad));
            if self.num_squads() > 1
                && (load == 0 || !self.other_squad_idle(squad, false))
                && self.affinity.may_steal_remote(squad)
                && (!self.affinity.homeless(squad) || self.leaves_wait_elsewhere(squad))
            {
                plan.push(Probe::RemoteInterPools);
            }
        } else if self.heads[squad] == worker {
            self.busy_refusals[squad].fetch_add(1, Ordering::Relaxed);
        }
        if chunks {
            plan.push(Probe::BulkSteal {
                batch: 1,
                nearest: true,
            });
        }
        // An idle squad whose leaves have all started this iteration waits for nothing
        // of its own: the rest of the iteration is other squads' work. So does a squad
        // whose leaf subtree still runs while every one of its workers searches: what
        // is left of the subtree is in other squads' hands (see the module documentation).
        if self.affinity.enabled()
            && !self.single_worker
            && !self.waits_in_subtree(worker)
            && self.affinity.own_leaves_started(squad)
        {
            if load == 0 {
                plan.push(Probe::Steal(self.ws_victims()));
            } else if self.squad_searching(squad) {
                self.stalled_searches.fetch_add(1, Ordering::Relaxed);
                plan.push(Probe::Steal(self.ws_victims()));
            }
        }
    }

    /// Whether a squad other than `squad` runs no leaf subtree (and, if `homeless`, has
    /// no leaf homed there either: it will have nothing to do this iteration unless it
    /// takes another squad's leaf).
    fn other_squad_idle(&self, squad: SquadId, homeless: bool) -> bool {
        self.load.iter().enumerate().any(|(s, l)| {
            s != squad && (!homeless || self.affinity.homeless(s)) && l.load(Ordering::Relaxed) == 0
        })
    }

    /// Whether a squad other than `squad` runs a leaf subtree while leaves homed there
    /// have still to start: only such a squad leaves a leaf of its own waiting (it is
    /// full, or holds the leaf back for an idle squad). An idle squad starts its waiting
    /// leaves itself, so a squad with no leaf of its own leaves them to it: with fewer
    /// leaves than squads, the squads without one took them from their idle homes at
    /// random, and each iteration's data went with them (`locus sim heat --size
    /// 1024x512,leaf=128,iters=10 --policy ws,cats --machine epyc-9654-2s`, 8 leaves on
    /// 24 squads, seeds 1-8: 0.70-1.37 of ws's time, 0.56-0.74 with the rule). Squads
    /// with leaves of their own steal others' once their own have started, as before:
    /// holding them to the rule too cost the papers' inputs 2-5% (heat 1024x512 on
    /// opteron-8380 0.69 -> 0.71 of ws's time).
    fn leaves_wait_elsewhere(&self, squad: SquadId) -> bool {
        self.load.iter().enumerate().any(|(s, l)| {
            s != squad && l.load(Ordering::Relaxed) > 0 && !self.affinity.own_leaves_started(s)
        })
    }

    /// A task ends, whatever its tier, measured or not: the dealt top has unfolded
    /// ([`TopDeal::settle`]; without a counter source no task's cost is measured, and
    /// the squads must not wait for one).
    #[inline]
    pub(crate) fn task_ends(&self) {
        self.deal.settle();
    }

    /// `worker` starts a task, whatever its tier: it no longer searches.
    #[inline]
    pub(crate) fn task_begins(&self, worker: WorkerId, task: &TaskInfo) {
        self.set_searching(worker, false);
        self.deal.started(task);
    }

    /// Counts `worker` one task deeper into a leaf subtree (`by` 1) or one out (`by`
    /// -1).
    #[inline]
    fn subtree_depth(&self, worker: WorkerId, tier: Tier, by: i32) {
        if tier != Tier::Inter {
            let depth = &self.workers[worker].depth;
            let d = depth.load(Ordering::Relaxed).saturating_add_signed(by);
            depth.store(d, Ordering::Relaxed);
        }
    }

    /// Whether `worker` searches from inside a leaf subtree's task, for its children.
    fn waits_in_subtree(&self, worker: WorkerId) -> bool {
        self.workers[worker].depth.load(Ordering::Relaxed) > 0
    }

    /// Records whether `worker` searches, writing its flag only when that changes (the
    /// flag is on the worker's own cache line; others read it only in
    /// [`BiTier::squad_searching`]).
    #[inline]
    fn set_searching(&self, worker: WorkerId, searching: bool) {
        let flag = &self.workers[worker].searching;
        if flag.load(Ordering::Relaxed) != searching {
            flag.store(searching, Ordering::Relaxed);
        }
    }

    /// Whether every worker of `squad` is searching. A stale flag costs one search or
    /// one early steal, never a task.
    fn squad_searching(&self, squad: SquadId) -> bool {
        self.members[squad]
            .iter()
            .all(|&w| self.workers[w].searching.load(Ordering::Relaxed))
    }

    /// Gives the width of each leaf inter-squad task (see the module documentation);
    /// the first call wins.
    pub(crate) fn set_widths(&self, widths: HashMap<TaskId, u32>) {
        let _ = self.widths.set(widths);
    }

    /// How much of `squad` a leaf subtree rooted at `task` occupies: its width, at most
    /// the squad's size, and the whole squad when unknown or when paper-faithful.
    fn occupancy(&self, squad: SquadId, task: &TaskInfo) -> u32 {
        let size = self.squad_size(squad);
        if !self.affinity.enabled() {
            return size;
        }
        match self.widths.get().and_then(|w| w.get(&task.id)) {
            Some(&width) => width.clamp(1, size),
            None => size,
        }
    }

    /// Whether plans should look for loop chunks: placed ones wait in squad queues. They
    /// are stolen from other squads one at a time: a stolen chunk moves home to the
    /// thief, so a squad that ran out takes no more than it needs now. (For a balanced
    /// loop the step hardly matters: on `heat-loop`, `opteron-8380`, squad-sized steals
    /// as MTS makes them keep the same share of chunks in place, 0.89-0.90 over seeds 1
    /// and 2, `locus sim heat-loop --seed S --policy ws,cab`.)
    fn chunks_waiting(&self) -> bool {
        self.chunks && self.pending_chunks.load(Ordering::Relaxed) > 0
    }

    /// With affinity, where loop chunk `task`, spawned by `parent` on `spawner`, goes:
    /// its home squad's queue (first home: chunk `i` of `k` to squad `⌊i·m/k⌋`).
    /// `None` for any other task, or paper-faithful.
    pub(crate) fn place_chunk(
        &self,
        spawner: WorkerId,
        parent: &TaskInfo,
        task: &TaskInfo,
    ) -> Option<Place> {
        if !self.chunks || !task.is_loop_chunk() {
            return None;
        }
        let m = self.num_squads();
        let squad = self
            .affinity
            .chunk_home(task.id, || match task.chunk_index(parent) {
                Some(i) => contiguous_squad(i as usize, task.loop_chunks as usize, m),
                None => self.squad_of[spawner],
            });
        self.pending_chunks.fetch_add(1, Ordering::Relaxed);
        Some(Place::Squad(squad))
    }

    /// Whether `task` is a loop chunk placed by [`BiTier::place_chunk`]: outside the
    /// tiers, so its start and finish are not the tiers' business.
    pub(crate) fn is_placed_chunk(&self, task: &TaskInfo) -> bool {
        self.chunks && task.is_loop_chunk()
    }

    /// A loop chunk starts on `worker`, taken from `source`: its home becomes
    /// `worker`'s squad. One run inline was never placed (a chunk a block of a long
    /// loop or a lane of a plan runs after its first), so no queue holds one less.
    pub(crate) fn chunk_started(&self, worker: WorkerId, task: &TaskInfo, source: Source) {
        if source != Source::Inline {
            let _ = self
                .pending_chunks
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        }
        self.affinity.chunk_started(task.id, self.squad_of[worker]);
    }

    /// The squad of `worker`.
    pub(crate) fn squad_of(&self, worker: WorkerId) -> SquadId {
        self.squad_of[worker]
    }

    /// Where `task`, of `tier` and spawned on `spawner`, goes. With affinity a leaf
    /// inter-squad task goes home (`first` gives the home of a leaf never seen), the
    /// tasks above it stay with the spawner; paper-faithful, both go to the spawner's
    /// squad's pool.
    pub(crate) fn place(
        &self,
        spawner: WorkerId,
        task: &TaskInfo,
        tier: Tier,
        first: impl FnOnce() -> SquadId,
    ) -> Place {
        match tier {
            Tier::Intra => Place::Local,
            Tier::LeafInter if self.affinity.enabled() => {
                Place::InterPool(self.affinity.spawn(task.id, first))
            }
            Tier::Inter if self.affinity.enabled() => Place::Local,
            Tier::LeafInter | Tier::Inter => Place::InterPool(self.squad_of[spawner]),
        }
    }

    /// Whether a join whose first half is of `tier` is generated parent-first: always
    /// for leaf inter-squad tasks (both halves go to pools), for the inter-squad tasks
    /// above them only when paper-faithful.
    pub(crate) fn parent_first(&self, tier: Tier) -> bool {
        match tier {
            Tier::LeafInter => true,
            Tier::Inter => !self.affinity.enabled(),
            Tier::Intra => false,
        }
    }

    /// `task`, of `tier`, starts on `worker`.
    pub(crate) fn started(&self, worker: WorkerId, task: &TaskInfo, tier: Tier) {
        let squad = self.squad_of[worker];
        self.task_begins(worker, task);
        self.subtree_depth(worker, tier, 1);
        if tier.is_inter() {
            self.inter_taken[squad].fetch_add(1, Ordering::Relaxed);
        }
        if tier == Tier::LeafInter {
            self.affinity.started(task.id, squad);
            let occupancy = self.occupancy(squad, task);
            let before = self.load[squad].fetch_add(occupancy, Ordering::Relaxed);
            if before > 0 {
                // Allowed beside narrow subtrees, and with affinity in a full squad; a
                // second subtree in a squad it fills breaks the published protocol.
                let counter = if before + occupancy <= self.squad_size(squad) {
                    &self.side_by_side
                } else if self.affinity.enabled() {
                    &self.stacked
                } else {
                    &self.violations
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            self.running_leaves[squad].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// `task`, of `tier`, finished on `worker`.
    pub(crate) fn finished(&self, worker: WorkerId, task: &TaskInfo, tier: Tier) {
        self.subtree_depth(worker, tier, -1);
        if tier == Tier::LeafInter {
            let squad = self.squad_of[worker];
            self.running_leaves[squad].fetch_sub(1, Ordering::Relaxed);
            let occupancy = self.occupancy(squad, task);
            let _ = self.load[squad].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(occupancy))
            });
        }
    }

    /// A line for `--explain` on where leaf inter-squad tasks go.
    pub(crate) fn affinity_line(&self) -> &'static str {
        if self.affinity.enabled() && !self.packages.is_empty() {
            "iteration affinity, N-tier: the profiled iteration's top dealt to squads, \
             stolen inside the own squad until a task completes, then own package first, \
             while its tasks touch memory and no more bytes than the caches hold; a leaf \
             inter-squad task goes back to the squad that ran it last (first: to the \
             package where the profiled iteration touched most of its data, as far as \
             each package's share allows, then contiguously to a squad of it); heads \
             steal other squads' leaves once their own have started, nearest first\n"
        } else if self.affinity.enabled() {
            "iteration affinity: a leaf inter-squad task goes back to the squad that ran it last \
             (first: subtree i of k to squad floor(i*m/k)); heads steal other squads' leaves \
             once their own have started\n"
        } else {
            "paper-faithful: leaf inter-squad tasks wait in the spawner's squad's pool for \
             whichever head takes them first\n"
        }
    }

    /// Statistics by name: inter-squad tasks taken and busy refusals per squad, and
    /// the published invariant's violations (always 0 unless the protocol is broken;
    /// with affinity a full squad may start more, counted as stacked).
    pub(crate) fn stats(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for (s, n) in self.inter_taken.iter().enumerate() {
            out.push((format!("inter_tasks_squad{s}"), n.load(Ordering::Relaxed)));
        }
        for (s, n) in self.busy_refusals.iter().enumerate() {
            out.push((format!("busy_refusals_squad{s}"), n.load(Ordering::Relaxed)));
        }
        out.push((
            "leaf_subtree_overlaps".to_string(),
            self.violations.load(Ordering::Relaxed),
        ));
        if self.affinity.enabled() {
            out.push((
                "leaf_subtrees_side_by_side".to_string(),
                self.side_by_side.load(Ordering::Relaxed),
            ));
            out.push((
                "leaf_subtrees_stacked".to_string(),
                self.stacked.load(Ordering::Relaxed),
            ));
            out.push((
                "stalled_squad_searches".to_string(),
                self.stalled_searches.load(Ordering::Relaxed),
            ));
        }
        if !self.packages.is_empty() {
            out.push(("profile_tasks_dealt".to_string(), self.deal.dealt()));
        }
        self.affinity.stats(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_outgrows_the_caches_only_past_all_squads_together() {
        const MIB: u64 = 1 << 20;
        // opteron-8380: four squads of a 6 MiB L3.
        let bt = BiTier::new(&WorkerMap::from_squad_sizes(&[4, 4, 4, 4]), true);
        assert_eq!(bt.caches_together(6 * MIB), 24 * MIB);
        assert!(
            !bt.outgrows_caches(24 * MIB, 6 * MIB),
            "exactly M * S_c fits"
        );
        assert!(bt.outgrows_caches(24 * MIB + 1, 6 * MIB));
        assert!(
            !bt.outgrows_caches(8 * MIB, 6 * MIB),
            "the papers' heat 1024x512"
        );
        assert!(
            bt.outgrows_caches(96 * MIB, 6 * MIB),
            "heat 3072x2048, two grids"
        );
        assert!(!bt.outgrows_caches(u64::MAX, u64::MAX), "no overflow");
        let one = BiTier::new(&WorkerMap::from_squad_sizes(&[4]), true);
        assert!(
            !one.outgrows_caches(u64::MAX, 1),
            "one squad: nothing to partition"
        );
    }

    #[test]
    fn packages_of_several_squads_get_first_homes_and_profiles_level_by_level() {
        use crate::policies::online::OnlineProfile;
        use crate::TaskCost;
        use locus_topo::Topology;
        // The papers' machines (one squad per package) and a pool of one package
        // keep the flat rules.
        for (preset, workers) in [("opteron-8380", 16), ("epyc-7763-2s", 128)] {
            let map = WorkerMap::new(&Topology::preset(preset).unwrap(), workers);
            let bt = BiTier::new(&map, true);
            assert!(bt.packages.is_empty(), "{preset} with {workers} workers");
            let mut plan = Vec::new();
            bt.ws_plan(1, &mut plan);
            assert_eq!(plan, [Probe::OwnDeque, Probe::Steal(Victims::All)]);
        }
        // Two packages of eight squads each; the published algorithms (no affinity)
        // keep the flat rules there too.
        let map = WorkerMap::new(&Topology::preset("epyc-7763-2s").unwrap(), 256);
        assert!(BiTier::new(&map, false).packages.is_empty());
        let bt = BiTier::new(&map, true);
        assert_eq!(bt.packages.len(), 2);
        assert!(bt.packages.iter().all(|p| p.len() == 8));
        let mut plan = Vec::new();
        bt.ws_plan(1, &mut plan);
        assert_eq!(plan, [Probe::OwnDeque, Probe::Steal(Victims::Package)]);
        // A profile whose first 16 leaves ran in package 1 and last 16 in package 0:
        // each package keeps the leaves it ran, dealt over its squads in order.
        let root = TaskInfo {
            id: crate::TaskId(1),
            level: 0,
            loop_chunks: 0,
        };
        let profile = OnlineProfile::default();
        let leaves: Vec<TaskInfo> = (0..32)
            .map(|i| TaskInfo {
                id: root.id.child(crate::FIRST_SCOPE_SPAWN + i),
                level: 1,
                loop_chunks: 0,
            })
            .collect();
        for (i, leaf) in leaves.iter().enumerate() {
            profile.spawned(&root, leaf);
            let ran_on = if i < 16 { 8 + i / 2 } else { (i - 16) / 2 };
            profile.finished(
                leaf,
                &TaskCost {
                    bytes: 1 << 20,
                    ..TaskCost::default()
                },
                ran_on,
            );
        }
        let ids: Vec<TaskId> = leaves.iter().map(|l| l.id).collect();
        bt.preset_homes(&profile.snapshot(), ids.clone());
        let homes: Vec<SquadId> = ids
            .iter()
            .map(|id| bt.affinity.spawn(*id, || unreachable!()))
            .collect();
        let want: Vec<SquadId> = (0..32)
            .map(|i| if i < 16 { 8 + i / 2 } else { (i - 16) / 2 })
            .collect();
        assert_eq!(homes, want);
    }

    #[test]
    fn the_profile_clusters_by_package_only_while_its_tasks_touch_memory() {
        use crate::policies::online::OnlineProfile;
        use crate::TaskCost;
        use locus_topo::Topology;
        let map = WorkerMap::new(&Topology::preset("epyc-7763-2s").unwrap(), 256);
        let plan_of = |bt: &BiTier| {
            let mut plan = Vec::new();
            bt.ws_plan(3, &mut plan);
            plan
        };
        let root = TaskInfo {
            id: TaskId(5),
            level: 0,
            loop_chunks: 0,
        };
        let half = |i| TaskInfo {
            id: root.id.child(i),
            level: 1,
            loop_chunks: 0,
        };
        let cost = |bytes| TaskCost {
            bytes,
            ..TaskCost::default()
        };
        // Before anything is dealt, stealing goes own package first.
        let bt = BiTier::new(&map, true);
        let profile = OnlineProfile::default();
        assert_eq!(
            plan_of(&bt),
            [Probe::OwnDeque, Probe::Steal(Victims::Package)]
        );
        // The top is dealt: the dealt task waits in squad 8's queue (the second half of
        // 16 squads' first split), which the plan looks at, and until a task completes
        // the top unfolds, stolen inside the own squad only.
        assert_eq!(bt.profile_place(&root, &half(1)), Some(Place::Squad(8)));
        assert_eq!(
            plan_of(&bt),
            [
                Probe::OwnDeque,
                Probe::SquadQueue(0),
                Probe::Steal(Victims::Squad)
            ]
        );
        bt.task_begins(130, &half(1));
        assert_eq!(
            plan_of(&bt),
            [Probe::OwnDeque, Probe::Steal(Victims::Squad)],
            "no dealt task waits"
        );
        // Tasks that touch a line or more on average keep the clustering, own package
        // first once a task has completed.
        profile.spawned(&root, &half(0));
        bt.task_ends();
        assert!(
            !bt.profiled(&profile, 3, &half(0), &cost(4096)),
            "no look after one task"
        );
        assert_eq!(bt.profile_place(&root, &half(0)), Some(Place::Squad(0)));
        bt.task_begins(3, &half(0));
        assert_eq!(
            plan_of(&bt),
            [Probe::OwnDeque, Probe::Steal(Victims::Package)]
        );
        // Once the profiled tasks have touched more bytes than the squads' caches hold
        // together, the data outgrows them: at random, and nothing more is dealt.
        let llc = bt.shared_cache().expect("the preset describes its L3s");
        let big = half(1);
        profile.spawned(&root, &big);
        assert!(!bt.profiled(&profile, 3, &big, &cost(bt.caches_together(llc))));
        assert_eq!(plan_of(&bt), [Probe::OwnDeque, Probe::Steal(Victims::All)]);
        assert_eq!(bt.profile_place(&root, &half(1)), None);
        // A program whose tasks touch nothing (fib): at random from its first
        // completed task on, and nothing more is dealt.
        let fib = BiTier::new(&map, true);
        let profile = OnlineProfile::default();
        profile.spawned(&root, &half(0));
        assert!(!fib.profiled(&profile, 3, &half(0), &cost(0)));
        assert_eq!(plan_of(&fib), [Probe::OwnDeque, Probe::Steal(Victims::All)]);
        assert_eq!(fib.profile_place(&root, &half(1)), None);
        // One squad per package (the papers' machines): nothing dealt, nothing changed.
        let opteron = WorkerMap::new(&Topology::preset("opteron-8380").unwrap(), 16);
        let flat = BiTier::new(&opteron, true);
        assert_eq!(flat.profile_place(&root, &half(1)), None);
        assert_eq!(
            plan_of(&flat),
            [Probe::OwnDeque, Probe::Steal(Victims::All)]
        );
    }

    #[test]
    fn only_an_idle_squads_head_looks_at_inter_pools() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map, false);
        let plan = |w| {
            let mut v = Vec::new();
            bt.plan(w, &mut v);
            v
        };
        assert_eq!(
            plan(2),
            vec![
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::InterPool(1),
                Probe::RemoteInterPools
            ]
        );
        assert_eq!(
            plan(3),
            vec![Probe::OwnDeque, Probe::Steal(Victims::Squad)],
            "not the head"
        );
        let leaf = TaskInfo {
            id: crate::TaskId(9),
            level: 2,
            loop_chunks: 0,
        };
        bt.started(2, &leaf, Tier::LeafInter);
        assert_eq!(
            plan(2),
            vec![Probe::OwnDeque, Probe::Steal(Victims::Squad)],
            "busy: no second subtree"
        );
        assert_eq!(
            bt.place(3, &leaf, Tier::LeafInter, || 0),
            Place::InterPool(1),
            "paper-faithful: the spawner's squad"
        );
        assert_eq!(bt.place(3, &leaf, Tier::Intra, || 0), Place::Local);
        bt.finished(2, &leaf, Tier::LeafInter);
        assert_eq!(plan(2).len(), 4, "idle again");
        let stats = bt.stats();
        assert!(stats.contains(&("busy_refusals_squad1".to_string(), 1)));
        assert!(stats.contains(&("inter_tasks_squad1".to_string(), 1)));
        assert!(stats.contains(&("leaf_subtree_overlaps".to_string(), 0)));
        // Two leaf subtrees at once in one squad are counted.
        bt.started(0, &leaf, Tier::LeafInter);
        bt.started(1, &leaf, Tier::LeafInter);
        assert!(bt
            .stats()
            .contains(&("leaf_subtree_overlaps".to_string(), 1)));
    }

    #[test]
    fn with_affinity_leaves_go_home_and_remote_steals_wait() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map, true);
        let leaf = |id| TaskInfo {
            id: crate::TaskId(id),
            level: 1,
            loop_chunks: 0,
        };
        let inter = leaf(1);
        assert_eq!(bt.place(0, &inter, Tier::Inter, || 1), Place::Local);
        assert!(!bt.parent_first(Tier::Inter) && bt.parent_first(Tier::LeafInter));
        assert_eq!(
            bt.place(0, &leaf(2), Tier::LeafInter, || 1),
            Place::InterPool(1),
            "the first home, not the spawner's squad"
        );
        let mut plan = Vec::new();
        bt.plan(2, &mut plan);
        assert_eq!(
            plan,
            vec![
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::InterPool(1)
            ],
            "squad 1's leaf is still to start: no remote steals; no loop chunks waiting"
        );
        plan.clear();
        bt.plan(0, &mut plan);
        assert_eq!(
            plan[2..],
            [Probe::InterPool(0), Probe::Steal(Victims::All)],
            "squad 0 has no leaf of its own, and squad 1, idle, starts its own: any deque"
        );
        // A second leaf goes home to squad 1 too. The first, of unknown width, fills its
        // squad: the other worker looks in its squad, the squad's own waiting leaf
        // included, and squad 0, idle, may take that leaf too.
        assert_eq!(
            bt.place(0, &leaf(3), Tier::LeafInter, || 1),
            Place::InterPool(1)
        );
        bt.started(2, &leaf(2), Tier::LeafInter);
        plan.clear();
        bt.plan(3, &mut plan);
        assert_eq!(
            plan,
            [
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::InterPool(1)
            ]
        );
        plan.clear();
        bt.plan(0, &mut plan);
        assert_eq!(
            plan[2..],
            [
                Probe::InterPool(0),
                Probe::RemoteInterPools,
                Probe::Steal(Victims::All)
            ],
            "squad 1's second leaf waits while it is full"
        );
        bt.started(0, &leaf(3), Tier::LeafInter);
        bt.finished(0, &leaf(3), Tier::LeafInter);
        bt.finished(2, &leaf(2), Tier::LeafInter);
        // Squad 1, with leaves of its own all started, steals others' as before.
        plan.clear();
        bt.plan(2, &mut plan);
        assert_eq!(
            plan[2..],
            [
                Probe::InterPool(1),
                Probe::RemoteInterPools,
                Probe::Steal(Victims::All)
            ]
        );
    }

    #[test]
    fn a_worker_waiting_inside_its_subtree_steals_from_no_other_squad() {
        let map = WorkerMap::from_squad_sizes(&[3, 2]);
        let bt = BiTier::new(&map, true);
        let task = |id, level| TaskInfo {
            id: crate::TaskId(id),
            level,
            loop_chunks: 0,
        };
        let mut plan = Vec::new();
        let mut steals_anywhere = |worker| {
            plan.clear();
            bt.plan(worker, &mut plan);
            plan.contains(&Probe::Steal(Victims::All))
        };
        // Worker 0 runs a leaf subtree of squad 0 (unknown width: the squad is full)
        // and waits inside an intra-squad task of it; worker 2 runs a task of it.
        bt.started(0, &task(2, 1), Tier::LeafInter);
        bt.started(0, &task(3, 2), Tier::Intra);
        bt.task_begins(2, &task(4, 3));
        assert!(!steals_anywhere(0), "waiting inside its subtree");
        assert!(!steals_anywhere(1), "the subtree still runs in the squad");
        // Worker 2 searches too: nothing of the subtree runs in the squad, so the idle
        // workers take work anywhere; the waiting one still does not.
        assert!(steals_anywhere(2));
        assert!(steals_anywhere(1));
        assert!(
            !steals_anywhere(0),
            "what a waiting worker takes runs on top of its subtree's task"
        );
        // The subtree done, worker 0 is idle and its squad runs nothing: any deque.
        bt.finished(0, &task(3, 2), Tier::Intra);
        bt.finished(0, &task(2, 1), Tier::LeafInter);
        assert!(steals_anywhere(0));
        let stats = bt.stats();
        assert!(stats.contains(&("stalled_squad_searches".to_string(), 2)));
    }

    /// A leaf inter-squad task at level 1.
    fn leaf(id: u64) -> TaskInfo {
        TaskInfo {
            id: crate::TaskId(id),
            level: 1,
            loop_chunks: 0,
        }
    }

    /// Two squads of two with affinity; leaves `in_squad_0` homed in squad 0, every
    /// leaf of `widths` that wide.
    fn two_squads(widths: &[(u64, u32)], in_squad_0: &[u64]) -> BiTier {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map, true);
        bt.set_widths(widths.iter().map(|&(id, w)| (leaf(id).id, w)).collect());
        for &id in in_squad_0 {
            assert_eq!(
                bt.place(0, &leaf(id), Tier::LeafInter, || 0),
                Place::InterPool(0)
            );
        }
        bt
    }

    /// `worker`'s plan for its next search.
    fn plan_of(bt: &BiTier, worker: WorkerId) -> Vec<Probe> {
        let mut plan = Vec::new();
        bt.plan(worker, &mut plan);
        plan
    }

    #[test]
    fn with_affinity_narrow_leaves_run_side_by_side() {
        let bt = two_squads(&[(2, 1), (3, 1), (4, 5), (9, 2)], &[2, 3, 4]);
        // Squad 1 is busy with a leaf of its own (an idle squad would take squad 0's
        // second leaf instead: see the next test).
        assert_eq!(
            bt.place(2, &leaf(9), Tier::LeafInter, || 1),
            Place::InterPool(1)
        );
        bt.started(2, &leaf(9), Tier::LeafInter);
        bt.started(0, &leaf(2), Tier::LeafInter);
        assert_eq!(
            plan_of(&bt, 1)[2..],
            [Probe::InterPool(0)],
            "one worker's worth of work in a squad of two: the other starts a leaf too"
        );
        bt.started(1, &leaf(3), Tier::LeafInter);
        let own_only = [
            Probe::OwnDeque,
            Probe::Steal(Victims::Squad),
            Probe::InterPool(0),
        ];
        assert_eq!(
            plan_of(&bt, 1),
            own_only,
            "full, with a leaf of its own still to start: that leaf only"
        );
        bt.finished(0, &leaf(2), Tier::LeafInter);
        bt.finished(1, &leaf(3), Tier::LeafInter);
        bt.started(0, &leaf(4), Tier::LeafInter);
        assert_eq!(
            plan_of(&bt, 1).len(),
            2,
            "a wide leaf fills its squad alone"
        );
        assert_eq!(bt.stacked.load(Ordering::Relaxed), 0);
        bt.finished(0, &leaf(4), Tier::LeafInter);
        let stats = bt.stats();
        assert!(stats.contains(&("leaf_subtrees_side_by_side".to_string(), 1)));
        assert!(stats.contains(&("leaf_subtree_overlaps".to_string(), 0)));
    }

    #[test]
    fn a_squad_running_a_leaf_leaves_the_next_to_an_idle_squad() {
        let bt = two_squads(&[(2, 1), (3, 1)], &[2, 3]);
        bt.started(0, &leaf(2), Tier::LeafInter);
        // Squad 0 has room beside its narrow leaf, but squad 1 has no leaf and runs
        // none: the second leaf is left to it, not stacked on the socket already at work.
        assert!(
            !plan_of(&bt, 1).contains(&Probe::InterPool(0)),
            "{:?}",
            plan_of(&bt, 1)
        );
        assert!(plan_of(&bt, 2).contains(&Probe::RemoteInterPools));
        bt.started(2, &leaf(3), Tier::LeafInter);
        bt.finished(2, &leaf(3), Tier::LeafInter);
        bt.finished(0, &leaf(2), Tier::LeafInter);
        let stats = bt.stats();
        assert!(stats.contains(&("leaf_subtrees_side_by_side".to_string(), 0)));
    }

    #[test]
    fn the_top_stops_unfolding_at_the_first_end_measured_or_not() {
        use locus_topo::Topology;
        let map = WorkerMap::new(&Topology::preset("epyc-7763-2s").unwrap(), 256);
        let bt = BiTier::new(&map, true);
        let root = crate::policies::task_at(5, 0);
        let second = crate::policies::task_at(root.id.child(1).0, 1);
        assert_eq!(bt.profile_place(&root, &second), Some(Place::Squad(8)));
        bt.task_begins(130, &second);
        let plan_of = || {
            let mut plan = Vec::new();
            bt.ws_plan(3, &mut plan);
            plan
        };
        assert_eq!(plan_of(), [Probe::OwnDeque, Probe::Steal(Victims::Squad)]);
        // An end without a cost (no counter source): the squads wait no longer.
        bt.task_ends();
        assert_eq!(plan_of(), [Probe::OwnDeque, Probe::Steal(Victims::Package)]);
    }

    #[test]
    fn a_leaf_waiting_for_its_idle_home_is_left_to_it() {
        // Squads 0 and 1 have one leaf each, squad 2 none.
        let map = WorkerMap::from_squad_sizes(&[2, 2, 2]);
        let bt = BiTier::new(&map, true);
        for (id, squad) in [(2, 0), (3, 1)] {
            assert_eq!(
                bt.place(0, &leaf(id), Tier::LeafInter, || squad),
                Place::InterPool(squad)
            );
        }
        assert!(
            !plan_of(&bt, 4).contains(&Probe::RemoteInterPools),
            "all idle"
        );
        // Squad 0 runs its only leaf; squad 1's still waits, for squad 1 to start it.
        bt.started(0, &leaf(2), Tier::LeafInter);
        assert!(!plan_of(&bt, 4).contains(&Probe::RemoteInterPools));
        bt.started(2, &leaf(3), Tier::LeafInter);
        // A second leaf of squad 1's waits while squad 1 runs its first: squad 2 may
        // take it.
        assert_eq!(
            bt.place(2, &leaf(4), Tier::LeafInter, || 1),
            Place::InterPool(1)
        );
        assert!(plan_of(&bt, 4).contains(&Probe::RemoteInterPools));
    }

    #[test]
    fn a_busy_squad_takes_no_other_squads_leaf_while_a_squad_idles() {
        let map = WorkerMap::from_squad_sizes(&[2, 2, 2]);
        let bt = BiTier::new(&map, true);
        bt.set_widths([2, 3, 4, 5].iter().map(|&id| (leaf(id).id, 1)).collect());
        for (id, squad) in [(2, 0), (3, 1), (5, 1), (4, 2)] {
            assert_eq!(
                bt.place(0, &leaf(id), Tier::LeafInter, || squad),
                Place::InterPool(squad)
            );
        }
        bt.started(0, &leaf(2), Tier::LeafInter);
        // Squad 0 has started its own and has room, but squads 1 and 2 run nothing:
        // their leaves are theirs to take.
        assert!(!plan_of(&bt, 1).contains(&Probe::RemoteInterPools));
        bt.started(2, &leaf(3), Tier::LeafInter);
        bt.started(4, &leaf(4), Tier::LeafInter);
        // Every squad at work: squad 0's idle worker may take squad 1's second leaf.
        assert!(plan_of(&bt, 1).contains(&Probe::RemoteInterPools));
    }

    #[test]
    fn with_affinity_loop_chunks_are_dealt_contiguously_and_go_home() {
        let map = WorkerMap::from_squad_sizes(&[2, 2, 2]);
        let bt = BiTier::new(&map, true);
        assert!(bt.layout().squad_queues);
        let parent = TaskInfo {
            id: crate::TaskId(7),
            level: 0,
            loop_chunks: 0,
        };
        let chunk = |i: u32| TaskInfo {
            id: parent.id.child(crate::FIRST_SCOPE_SPAWN + i),
            level: 1,
            loop_chunks: 6,
        };
        let homes: Vec<Option<Place>> = (0..6)
            .map(|i| bt.place_chunk(4, &parent, &chunk(i)))
            .collect();
        let squads: Vec<Option<Place>> = [0, 0, 1, 1, 2, 2].map(|s| Some(Place::Squad(s))).into();
        assert_eq!(
            homes, squads,
            "chunk i of 6 to squad floor(i*3/6), whoever spawns"
        );
        // Chunk 5 runs on squad 0 (stolen): next time it goes there.
        assert!(bt.is_placed_chunk(&chunk(5)));
        bt.chunk_started(1, &chunk(5), Source::OwnSquad);
        assert_eq!(bt.place_chunk(4, &parent, &chunk(5)), Some(Place::Squad(0)));
        assert!(bt.stats().contains(&("chunks_moved_home".to_string(), 1)));
        // While chunks wait, every worker, head or not, looks in its squad's queue and
        // steals chunks last (no squad runs a leaf, so no leaf waits in another's pool);
        // once all have started, plans are as without loops.
        let mut plan = Vec::new();
        bt.plan(3, &mut plan);
        assert_eq!(
            plan,
            vec![
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::SquadQueue(1),
                Probe::InterPool(1),
                Probe::BulkSteal {
                    batch: 1,
                    nearest: true,
                },
                Probe::Steal(Victims::All),
            ]
        );
        plan.clear();
        bt.ws_plan(3, &mut plan);
        assert_eq!(
            plan,
            vec![
                Probe::OwnDeque,
                Probe::SquadQueue(1),
                Probe::Steal(Victims::All),
                Probe::BulkSteal {
                    batch: 1,
                    nearest: true,
                },
            ]
        );
        // A task that is not a loop chunk is not the chunks' business.
        assert_eq!(bt.place_chunk(4, &parent, &parent), None);
        for i in 0..5 {
            bt.chunk_started(0, &chunk(i), Source::OwnSquad);
        }
        // A chunk run inline (by a block of a long loop) was never placed: one placed
        // chunk still waits.
        bt.chunk_started(0, &chunk(5), Source::Inline);
        plan.clear();
        bt.plan(3, &mut plan);
        assert!(plan.contains(&Probe::SquadQueue(1)), "{plan:?}");
        bt.chunk_started(0, &chunk(5), Source::OwnSquad);
        plan.clear();
        bt.plan(3, &mut plan);
        assert_eq!(
            plan,
            vec![
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::InterPool(1),
                Probe::Steal(Victims::All),
            ]
        );
    }

    #[test]
    fn paper_faithful_policies_leave_loop_chunks_to_the_tiers() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map, false);
        let parent = TaskInfo {
            id: crate::TaskId(7),
            level: 0,
            loop_chunks: 0,
        };
        let chunk = TaskInfo {
            id: parent.id.child(crate::FIRST_SCOPE_SPAWN),
            level: 1,
            loop_chunks: 2,
        };
        assert_eq!(bt.place_chunk(0, &parent, &chunk), None);
        assert!(!bt.is_placed_chunk(&chunk));
        assert!(!bt.layout().squad_queues);
        let mut plan = Vec::new();
        bt.plan(1, &mut plan);
        assert_eq!(plan, vec![Probe::OwnDeque, Probe::Steal(Victims::Squad)]);
    }
}
