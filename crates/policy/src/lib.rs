//! Scheduling policies for locus: decisions only, no threads.
//!
//! "One policy, two engines" (docs/design.md): a [`Policy`] is told what happens (a task is
//! spawned on a worker, a worker is idle, a task starts or finishes) and answers with
//! decisions: where the new task goes ([`Place`]) and where an idle worker looks, in
//! order ([`Probe`]). It owns its state (round-robin cursors here; busy states and
//! profiles in the bi-tier policies) and knows nothing about threads or time, so the
//! runtime and the simulator carry out the same code.
//!
//! # Who calls what
//! Every method takes `&self` and may be called from any worker thread at once; a policy
//! keeps its mutable state in atomics indexed by worker or squad. Methods that name a
//! worker are only called by (or on behalf of) that worker, so per-worker state needs
//! no ordering stronger than `Relaxed`.
//!
//! # The policies
//! One row per entry of [`POLICIES`], written out (`tests/suite/docs.rs` holds it so):
//!
//! | name | from | spawned task goes to | an idle worker looks at |
//! | --- | --- | --- | --- |
//! | `ws` | Cilk-a in the CATS/CAB papers: pinned randomized work stealing | own deque (LIFO); `ws:near` on several squads: the halves of the joins at the top of every tree to squads by position, each iteration the same | own deque, then random victims' deques (oldest task); `ws:near`: own deque, its squad's queue (where dealt tasks wait), then the own package's deques from a random start, then other packages' nearest first (by NUMA distance) |
//! | `ws-unpinned` | Cilk: the same, workers not pinned | own deque | as `ws` |
//! | `central` | Qthreads CQ (Olivier et al. 2012) | one central LIFO queue | the central queue |
//! | `rr-fifo` | Qthreads Q | per-worker queues, dealt round robin | own queue, oldest first; no stealing |
//! | `rr-lifo` | Qthreads L | per-worker queues, dealt round robin | own queue, newest first; no stealing |
//! | `mts` | Qthreads MTS | own squad's shared queue, but the top of the first tree that forks dealt to the squads in turn (down to 8 subtrees a squad; each aligned run of 2^⌈log2 m⌉ neighbouring subtrees covers all m squads); once a task id repeats (a program's next iteration), a task the first iteration ran goes to the shared queue of the squad it was first placed in (iteration affinity) | own squad's queue: a worker waiting in a task its own newest task there, else the oldest task if shallower than the newest (a larger subtree), else the newest; when the queue is empty, one worker of the squad at a time steals a batch (default: the squad's size; `mts:N` for N) of the oldest tasks of a remote squad for the whole squad, from any squad until a task id repeats, then nearest squads first |
//! | `mts-paper` | Qthreads MTS as published | own squad's shared LIFO queue | as `mts`, but the squad queue's newest task first, and bulk steals from the nearest squads first throughout |
//! | `cab` | CAB (Chen, Guo, Huang): cache-aware bi-tier stealing | inter-squad tasks (DAG levels up to the boundary level `BL` of Eq. 4) go parent-first to the squad's inter-squad pool; the others child-first to the own deque | own deque, squad peers; the head of a squad that runs no leaf inter-squad subtree (`busy_state`): its squad's inter-squad pool, then other squads' (Algorithm I); while it learns its inputs, as `cats` while profiling |
//! | `cab-paper` | CAB as published | as `cab`, but a leaf inter-squad task waits in its spawner's squad's pool for whichever head takes it | as `cab`, one leaf inter-squad subtree per squad at a time |
//! | `cats` | CATS (Chen, Guo, Huang): cache-aware stealing from online profiling | first iteration: own deque, child-first, as `ws`, each task's cost measured; then by each task's SOID (Eq. 1) against the shared cache (Fig. 6), as `cab` | as `ws` while profiling (where packages hold several squads and the profiled tasks touch memory, no more bytes than the squads' caches hold together: the tree's top dealt to squads, stolen inside the own squad until a task completes, then own package first, N-tier); then as `cab`; as `ws` if the program is CPU-bound (CMPI below the threshold) |
//! | `cats-paper` | CATS as published | as `cats`, but parent-first while profiling (as the paper does), and with Fig. 6's leaf inter-squad tasks | as `cats`, one leaf inter-squad subtree per squad at a time |
//! | `static` | OpenMP `schedule(static)`, the affinity paper's baseline | a parallel loop: one block of consecutive chunks per worker, a lane that worker runs in loop order; any other task: own deque | own inbox (its lanes), own deque, random victims' deques; nothing is stolen from a lane |
//! | `affinity` | feedback-directed affinity scheduling (Song, Moore, Dongarra) | a parallel loop: per worker a lane of the chunks `--schedule FILE` gives it, in the schedule's order; another task the schedule knows: its worker's inbox; unknown tasks: own deque, counted (`schedule_unknown`) | as `static` |
//!
//! `cab` and `cats` add iteration affinity: a leaf inter-squad task goes to the pool of
//! the squad that ran it in the previous iteration (first: subtree `i` of `k` to squad
//! `⌊i·m/k⌋`), and a head steals from other squads' pools only once its squad has
//! started all its own; `cats` also splits Fig. 6's leaves until every squad has one.
//! They place the chunks of parallel loops ([`TaskInfo::loop_chunks`]) the same way,
//! outside the tiers: chunk `i` of `k` first to squad `⌊i·m/k⌋`'s shared queue, then
//! back to the squad that ran it last, where any worker of the squad takes it; a worker
//! whose squad has nothing left steals one chunk at a time from another squad (`cats`
//! not once it has found the program CPU-bound). `cab-paper` and `cats-paper` are the
//! published algorithms. Every bi-tier policy counts placement stability of its leaf
//! inter-squad tasks (`placement_same_squad` of `placement_compared`); the engines count
//! it for loop chunks under every policy ([`ChunkPlacement`]). `mts` has iteration
//! affinity of its own, for every task of a tree that repeats: the squad a task was
//! first placed in gets it back each time round ([`Mts`]; `mts-paper` is the published
//! algorithm).
//!
//! # Words
//! One meaning each, across the crates, as docs/design.md ("The words") uses them:
//! - **squad**: the workers under one last-level cache domain; its **head** is its
//!   lowest worker. A socket holds one squad on the papers' machines, several on a
//!   chiplet CPU.
//! - **inter-squad** and **intra-squad**: the two tiers of the bi-tier policies. The
//!   papers say inter-socket and intra-socket because their squads are sockets. An
//!   **inter-squad pool** is a squad's pool of inter-squad tasks ([`Place::InterPool`]);
//!   a **leaf inter-squad task** roots a subtree that one squad runs.
//! - **affinity**: the `affinity` policy ([`Affinity`]), which follows a schedule file
//!   made by `locus profile` from an **affinity graph**. **Iteration affinity** is the
//!   bi-tier policies' memory of which squad ran a leaf last; the mapper's binding of a
//!   thread to CPUs is a **CPU binding** (`locus_mapper::act::CpuBinding`), and the CPUs
//!   a process may use its **CPU mask**.
//! - **chunk**: a piece of a parallel loop's range, one task ([`TaskInfo::loop_chunks`]);
//!   what an MTS bulk steal moves is a **batch** ([`Probe::BulkSteal`]).
//! - **profile**: the file `locus profile` writes (`locus_profile::Profile`); what CATS
//!   learns in its first iteration is its **online profile**, and the tiers that follow
//!   from it its **learned tiers**. A **partition** is METIS's split of an affinity graph
//!   (`locus_profile::Partition`).
//! - **counter source**: where the runtime reads a task's counters
//!   (`locus::counters::CounterSource`: `perf`, `declared`); the mapper reads threads'
//!   counters from a **sample source** (`locus_mapper::SampleSource`).
//! - [`Place`] says where a new task goes: [`Place::Local`] is the spawning worker's own
//!   deque. [`Source`] says where a starting task came from: its own squad
//!   ([`Source::OwnSquad`]) or another ([`Source::OtherSquad`]).

#![deny(missing_docs)]

mod decision;
mod factory;
mod grain;
mod id_map;
mod logged;
mod policies;
mod search;
mod stability;
mod workers;

pub use decision::{
    own_task_scan, pick_shallow, Layout, LoopPlan, Order, Place, Probe, Source, Victims,
    OWN_TASK_SCAN_PER_WORKER,
};
pub use factory::PolicyFactory;
pub use grain::{
    block_chunks, block_split, loop_blocks, SpawnOrder, BLOCKS, FLAT_LIMIT, PLACED_PER_WORKER,
};
pub use locus_task::{TaskCost, TaskId, TaskInfo, FIRST_SCOPE_SPAWN, MAX_SPAWN_INDEX};
pub use logged::{Logged, PolicyCall};
pub use policies::{
    boundary_level, classify, contiguous_counts, contiguous_squad, is_cpu_bound, soid, Affinity,
    Cab, CabInputs, Cats, Central, Mts, PolicyError, PolicyInfo, PolicyKind, RoundRobin, Slot,
    StaticBlocks, TaskSchedule, TaskScheduleError, Tier, WorkStealing, DEFAULT_CMPI_THRESHOLD,
    FIRST_LOOK, POLICIES, SCHEDULE_PLACED, SCHEDULE_UNKNOWN,
};
pub use search::{SearchCounter, VictimCase, VictimOrder, VICTIM_CASES};
pub use stability::{ChunkPlacement, CHUNK_COMPARED, CHUNK_SAME_SQUAD};
pub use workers::{Groups, SquadId, WorkerId, WorkerMap};

/// A scheduling policy: decisions only (see the crate documentation).
pub trait Policy: Send + Sync + std::fmt::Debug {
    /// The policy's name as the CLI and reports spell it.
    fn name(&self) -> &'static str;

    /// The queues the engine must build and the calls the policy wants.
    fn layout(&self) -> Layout;

    /// Where `task`, spawned by `parent` running on `spawner`, goes. Engines skip this
    /// call when [`Layout::always_local`] is set.
    fn place(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        let _ = (spawner, parent, task);
        Place::Local
    }

    /// Whether `task`, the first half of a `join` made by `parent`, is generated
    /// parent-first: placed like the second half (see [`Policy::place`]) while the
    /// joining worker waits, instead of run at once by the joining worker (child-first,
    /// the default). Not asked when [`Layout::always_local`] is set.
    fn parent_first(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> bool {
        let _ = (spawner, parent, task);
        false
    }

    /// How the `chunks` chunks of a parallel loop opened by `parent` on `spawner` are
    /// dealt to workers (see [`LoopPlan`]), or `None` to spawn each and place it with
    /// [`Policy::place`]. Asked once per loop, only with [`Layout::loop_plans`]. Chunk
    /// `i`'s id is `parent.id.child(FIRST_SCOPE_SPAWN + i)`.
    fn plan_loop(
        &self,
        spawner: WorkerId,
        parent: &TaskInfo,
        chunks: u32,
    ) -> Option<std::sync::Arc<LoopPlan>> {
        let _ = (spawner, parent, chunks);
        None
    }

    /// Fills `plan` (cleared by the caller) with the places `worker` looks for work, in
    /// order. Engines call it once per search, not per task, and always try the pool's
    /// injector (tasks submitted from outside) after the plan.
    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>);

    /// Whether [`Policy::task_finished`] wants the task's cost now (the engine then
    /// reads its counters around every task, which costs time). Once this says no it
    /// must keep saying no: the runtime then closes its counters for good, also while
    /// the policy still wants task events (`cats` and `cab` want costs only while they
    /// profile).
    fn wants_cost(&self) -> bool {
        false
    }

    /// With [`Layout::task_events`]: whether the policy still wants them. Once this says
    /// no it must keep saying no, and the policy must do without any further start and
    /// finish, while bearing those still reported: an engine may stop reporting them,
    /// worker by worker (the runtime does after a worker's next task end, and from then
    /// on reports that worker's queued starts where the layout asks for
    /// [`Layout::queued_starts`]), so that the runtime's joins take their fast path again.
    /// `cats` and `cab` say no once they run as plain work stealing for good.
    fn wants_task_events(&self) -> bool {
        true
    }

    /// Whether every task spawned from now on that is not a loop chunk
    /// ([`TaskInfo::is_loop_chunk`]) goes to its spawner's own deque: [`Policy::place`]
    /// would say [`Place::Local`] for it. Once this says yes it must keep saying so. The
    /// runtime asks where it asks [`Policy::wants_task_events`], after a worker's task
    /// end, and from then on pushes that worker's `join` halves without asking
    /// [`Policy::place`], as under `ws`; the simulator checks the promise. `cats` and `cab`
    /// say yes once they run as plain work stealing for good (their loops' chunks may
    /// still go home).
    fn spawns_stay_local(&self) -> bool {
        false
    }

    /// `worker` starts `task`, found at `source`. Only with [`Layout::task_events`].
    fn task_started(&self, worker: WorkerId, task: &TaskInfo, source: Source) {
        let _ = (worker, task, source);
    }

    /// `worker` finished `task`; `cost` is what the task itself did (its nested tasks
    /// excluded) when [`Policy::wants_cost`] said so. Only with [`Layout::task_events`].
    fn task_finished(&self, worker: WorkerId, task: &TaskInfo, cost: Option<&TaskCost>) {
        let _ = (worker, task, cost);
    }

    /// What the policy decided and from what, for `--explain` (empty if nothing).
    fn explain(&self) -> String {
        String::new()
    }

    /// The policy's own statistics, by name (for example busy refusals), cumulative.
    fn stats(&self) -> Vec<(String, u64)> {
        Vec::new()
    }
}

/// Placement stability from a run's statistics (a policy's [`Policy::stats`] and the
/// engine's [`ChunkPlacement::stats`]): the fraction of starts of leaf inter-squad tasks
/// and loop chunks that ran on the same squad as the time before, or `None` where
/// nothing was compared (neither kind of task, one squad, one iteration).
pub fn placement_stability(stats: &[(String, u64)]) -> Option<f64> {
    let get = |name: &str| {
        stats
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .sum::<u64>()
    };
    let same = get("placement_same_squad") + get(stability::CHUNK_SAME_SQUAD);
    let compared = get("placement_compared") + get(stability::CHUNK_COMPARED);
    (compared > 0).then(|| same as f64 / compared as f64)
}
