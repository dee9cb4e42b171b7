//! `cats`: Cache Aware Task Stealing based on online profiling (Chen, Guo, Huang: CATS).
//! No user-provided information:
//!
//! 1. The first iteration is profiled: tasks are generated parent-first and stolen at
//!    random across squads (plain work stealing), and every task's own cost is measured
//!    by the engine's counter source; each task's SOID (Eq. 1) is its own bytes plus its
//!    children's SOIDs, passed up as children complete. Where the first tasks
//!    measured touch no data (under a line each), the profile gives up at once and the
//!    program runs as `ws` (`FIRST_LOOK` in `online.rs`): no partition could pay back
//!    what recording them costs.
//! 2. The first spawn of a task id that already completed starts the second iteration:
//!    the DAG is partitioned by Fig. 6 (leaf inter-squad task iff its SOID fits the
//!    squad's shared cache and its parent's does not), which handles unbalanced trees
//!    where no single level is the boundary.
//! 3. If the program's cache misses per instruction fall below the threshold (CMPI,
//!    Section 3.5) it is CPU-bound and runs as `ws` from then on.
//!
//! CATS says "if most tasks are CPU-bound"; locus weighs tasks by their work (misses
//! and instructions summed over the profiled tasks), because a binary tree has as many
//! internal tasks, which touch almost no data, as leaves. Tasks the profile does not
//! know (a new phase of the program) run child-first in the squad that spawns them.
//!
//! # Iteration affinity (`cats`; `cats-paper` is the published algorithm)
//! With affinity the partition is made to feed every squad (Fig. 6's leaves are split,
//! the largest first, until there is one per squad, and [`LEAVES_PER_SQUAD`] per squad
//! where the squads' shares of the profiled work are uneven ([`UNEVEN_SHARES`]), so that
//! squads can balance by leaves: see `bitier.rs`), its leaves get first
//! homes in depth-first order, subtree `i` of `k` in squad `⌊i·m/k⌋`, and from then on
//! each leaf goes back to the squad that ran it last (see `iteration.rs`). A program
//! whose profiled data outgrows the squads' caches together (`S_d > M · S_c`, as CAB
//! learns `S_d`) runs its tasks as `ws` from its second iteration on, as a CPU-bound
//! one does, since no partition keeps a squad's share cached between iterations; its
//! loops' chunks keep their homes (see `bitier.rs`).
//! Where packages hold several squads, first homes go a level at a time, to the
//! package that holds most of a leaf's data after the profile, then to a squad of it
//! (N-tier, see `bitier.rs`).

use crate::policies::bitier::{BiTier, Tier, LEAVES_PER_SQUAD, UNEVEN_SHARES};
use crate::policies::online::{
    leaf_order, share_imbalance, subtree_work, widths, Entry, LearnedTiers, OnlineProfile, Spawned,
    FIRST_LOOK, LINE_BYTES, PROFILE_BUDGET,
};
use crate::{
    Layout, Place, Policy, Probe, Source, TaskCost, TaskId, TaskInfo, WorkerId, WorkerMap,
};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// The default CMPI threshold: misses per instruction (or per ns, see
/// [`crate::policies::online::is_cpu_bound`]). Guess: a five-point stencil streams
/// about one line per 10-100 instructions (0.01-0.1), a recursive search almost none.
pub const DEFAULT_CMPI_THRESHOLD: f64 = 0.001;

/// States of a CATS run.
const PROFILING: u8 = 0;
const PARTITIONED: u8 = 1;
const CPU_BOUND: u8 = 2;
/// One squad: nothing to partition, plain work stealing from the start.
const SINGLE_SQUAD: u8 = 3;
/// With affinity: the profiled data outgrows the squads' caches together; its tasks
/// run as plain work stealing from the second iteration on, its loop chunks go home.
const OUTGROWN: u8 = 4;
/// The first iteration outgrew the profile's budget (a program that does not iterate,
/// or a very fine-grained one): plain work stealing from then on, its loop chunks home.
const UNPROFILED: u8 = 5;
/// The profile's first tasks touched no data (`online::FIRST_LOOK`): plain work
/// stealing from then on, as [`UNPROFILED`].
const NO_DATA: u8 = 6;

/// Cache Aware Task Stealing.
#[derive(Debug)]
pub struct Cats {
    core: BiTier,
    shared_cache: u64,
    threshold: f64,
    state: AtomicU8,
    profile: OnlineProfile,
    partition: OnceLock<LearnedTiers>,
}

impl Cats {
    /// CATS over the squads of `map`, with a CMPI threshold; `affinity: false` is the
    /// published algorithm (`cats-paper`).
    pub fn new(map: &WorkerMap, threshold: f64, affinity: bool) -> Cats {
        let core = BiTier::new(map, affinity);
        let state = if core.num_squads() <= 1 {
            SINGLE_SQUAD
        } else {
            PROFILING
        };
        let shared_cache = core.shared_cache().unwrap_or(8 << 20);
        Cats {
            core,
            shared_cache,
            threshold,
            state: AtomicU8::new(state),
            profile: OnlineProfile::default(),
            partition: OnceLock::new(),
        }
    }

    /// The partition, once the first iteration is over.
    fn tier(&self, task: &TaskInfo) -> Option<Tier> {
        if self.state.load(Ordering::Acquire) != PARTITIONED {
            return None;
        }
        let partition = self.partition.get()?;
        Some(
            partition
                .tiers
                .get(&task.id)
                .copied()
                .unwrap_or(Tier::Intra),
        )
    }

    /// Whether loop chunks go home: not once the program is found CPU-bound (it then
    /// runs as plain work stealing, its loops too). A program whose data outgrows the
    /// caches keeps its chunks' homes, which its first iteration placed and so
    /// first-touched (see `bitier.rs`). The state changes only when a task
    /// id repeats, after the loop that spawned it first has finished, so no chunk is
    /// placed in one state and started in the other.
    fn places_chunks(&self) -> bool {
        self.state.load(Ordering::Acquire) != CPU_BOUND
    }

    /// Whether `cats` runs the partition `part` as `ws` because its data outgrows the
    /// squads' caches together (with affinity only; `cats-paper` partitions it).
    fn outgrown(&self, part: &LearnedTiers) -> bool {
        self.core.affinity.enabled()
            && !part.cpu_bound
            && self
                .core
                .outgrows_caches(part.data_bytes, self.shared_cache)
    }

    fn spawned(&self, parent: &TaskInfo, task: &TaskInfo) {
        if self.state.load(Ordering::Acquire) != PROFILING {
            return;
        }
        let spawned = self.profile.spawned(parent, task);
        if spawned == Spawned::OverBudget {
            let _ = self.state.compare_exchange(
                PROFILING,
                UNPROFILED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        } else if spawned == Spawned::Repeat {
            let partition = self.partition.get_or_init(|| {
                let entries = self.profile.snapshot();
                let mut part = LearnedTiers::new(&entries, self.shared_cache, self.threshold);
                if self.core.affinity.enabled() && !part.cpu_bound && !self.outgrown(&part) {
                    let m = self.core.num_squads();
                    part.feed(&entries, m, 1);
                    let leaves = |part: &LearnedTiers| {
                        leaf_order(&entries, |id, _| part.tiers.get(id) == Some(&Tier::LeafInter))
                    };
                    let imbalance = share_imbalance(&subtree_work(&entries, &leaves(&part)), m);
                    let uneven = imbalance > UNEVEN_SHARES;
                    let _ = writeln!(
                        part.report,
                        "the squads' shares of the profiled work: the largest {imbalance:.2}x the mean{}",
                        if uneven { ", uneven: cut finer" } else { "" }
                    );
                    if uneven {
                        part.feed(&entries, m, LEAVES_PER_SQUAD);
                    }
                    let is_leaf =
                        |id: &TaskId, _: &Entry| part.tiers.get(id) == Some(&Tier::LeafInter);
                    self.core
                        .preset_homes(&entries, leaf_order(&entries, is_leaf));
                    self.core.set_widths(widths(&entries, is_leaf));
                }
                part
            });
            let next = if partition.cpu_bound {
                CPU_BOUND
            } else if self.outgrown(partition) {
                OUTGROWN
            } else {
                PARTITIONED
            };
            let _ =
                self.state
                    .compare_exchange(PROFILING, next, Ordering::AcqRel, Ordering::Acquire);
        }
    }
}

impl Policy for Cats {
    fn name(&self) -> &'static str {
        if self.core.affinity.enabled() {
            "cats"
        } else {
            "cats-paper"
        }
    }

    fn layout(&self) -> Layout {
        if self.state.load(Ordering::Acquire) == SINGLE_SQUAD {
            return Layout::deques();
        }
        self.core.layout()
    }

    fn place(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        self.spawned(parent, task);
        if self.state.load(Ordering::Acquire) == PROFILING {
            if let Some(place) = self.core.profile_place(parent, task) {
                return place;
            }
        }
        if self.places_chunks() {
            if let Some(place) = self.core.place_chunk(spawner, parent, task) {
                return place;
            }
        }
        match self.tier(task) {
            Some(tier) => self
                .core
                .place(spawner, task, tier, || self.core.squad_of(spawner)),
            None => Place::Local,
        }
    }

    fn parent_first(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> bool {
        let _ = spawner;
        self.spawned(parent, task);
        match self.state.load(Ordering::Acquire) {
            // "For the convenience of collecting SOID", the paper profiles parent-first;
            // the profile here is the same either way (ids and costs do not depend on
            // the order), so `cats` profiles child-first, as ws runs: a program that
            // never repeats (one sort) then costs nothing against ws.
            PROFILING => !self.core.affinity.enabled(),
            _ => self.tier(task).is_some_and(|t| self.core.parent_first(t)),
        }
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        if self.state.load(Ordering::Acquire) == PARTITIONED {
            self.core.plan(worker, plan);
        } else {
            self.core.ws_plan(worker, plan);
        }
    }

    fn wants_cost(&self) -> bool {
        self.state.load(Ordering::Relaxed) == PROFILING
    }

    fn wants_task_events(&self) -> bool {
        // Profiling, or partitioned; the other states run as ws for good (a placed loop
        // chunk's start comes from its queue then, `Layout::queued_starts`).
        matches!(self.state.load(Ordering::Acquire), PROFILING | PARTITIONED)
    }

    fn spawns_stay_local(&self) -> bool {
        // The states without events are those without a profile or tiers (`tier` is
        // `None`): only loop chunks are placed there.
        !self.wants_task_events()
    }

    fn task_started(&self, worker: WorkerId, task: &TaskInfo, source: Source) {
        self.core.task_begins(worker, task);
        if self.places_chunks() && self.core.is_placed_chunk(task) {
            self.core.chunk_started(worker, task, source);
        } else if let Some(tier) = self.tier(task) {
            self.core.started(worker, task, tier);
        }
    }

    fn task_finished(&self, worker: WorkerId, task: &TaskInfo, cost: Option<&TaskCost>) {
        self.core.task_ends();
        let tier = self
            .tier(task)
            .filter(|_| !(self.places_chunks() && self.core.is_placed_chunk(task)));
        if let Some(tier) = tier {
            self.core.finished(worker, task, tier);
        } else if let (PROFILING, Some(cost)) = (self.state.load(Ordering::Acquire), cost) {
            if self.core.profiled(&self.profile, worker, task, cost) {
                let _ = self.state.compare_exchange(
                    PROFILING,
                    NO_DATA,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
            }
        }
    }

    fn explain(&self) -> String {
        match (self.state.load(Ordering::Acquire), self.partition.get()) {
            (SINGLE_SQUAD, _) => format!(
                "{}: one squad, nothing to partition: plain ws, no profiling\n",
                self.name()
            ),
            (PROFILING, _) => format!(
                "{}: still in the first (profiling) iteration: no task id has repeated\n",
                self.name()
            ),
            (UNPROFILED, _) => format!(
                "{}: no iteration within the profile's first {PROFILE_BUDGET} tasks, or its whole tree \
                 run again from outside: plain ws, no profiling\n",
                self.name()
            ),
            (NO_DATA, _) => format!(
                "{}: the profile's first {FIRST_LOOK} tasks touched under {LINE_BYTES} bytes each on \
                 average, no data to place: plain ws, no profiling\n",
                self.name()
            ),
            (CPU_BOUND, Some(p)) => format!("{}: {}", self.name(), p.report),
            (OUTGROWN, Some(p)) => format!(
                "{}: {}S_d = {} bytes (summed over the top tasks): {}",
                self.name(),
                p.report,
                p.data_bytes,
                self.core.outgrown_line(self.shared_cache)
            ),
            (_, Some(p)) => format!("{}: {}{}", self.name(), p.report, self.core.affinity_line()),
            _ => String::new(),
        }
    }

    fn stats(&self) -> Vec<(String, u64)> {
        let mut out = self.core.stats();
        out.push((
            "profile_iterations".to_string(),
            u64::from(self.partition.get().is_some()),
        ));
        out.push((
            "profile_abandoned".to_string(),
            u64::from(matches!(
                self.state.load(Ordering::Acquire),
                UNPROFILED | NO_DATA
            )),
        ));
        if let Some(p) = self.partition.get() {
            out.push(("cpu_bound".to_string(), u64::from(p.cpu_bound)));
            out.push(("outgrown".to_string(), u64::from(self.outgrown(p))));
            for (level, n) in &p.leaves_by_level {
                out.push((format!("leaf_inter_tasks_level{level}"), *n));
            }
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Victims;

    /// Spawns a chain of joins through `policy` (each first half spawns the next pair)
    /// until `done` says so, at most `limit` joins.
    pub(crate) fn spawn_chain(policy: &dyn Policy, limit: usize, done: impl Fn() -> bool) {
        let mut parent = TaskInfo {
            id: TaskId(1),
            level: 0,
            loop_chunks: 0,
        };
        let site = std::panic::Location::caller();
        for _ in 0..limit {
            let (a, b) =
                locus_task::Spawner::of(parent).join_children(locus_task::JoinSite::of(site));
            policy.place(0, &parent, &b);
            policy.parent_first(0, &parent, &a);
            if done() {
                return;
            }
            parent = a;
        }
        panic!("still not done after {limit} joins");
    }

    /// Reports `FIRST_LOOK` profiled completions of `bytes` each to `policy` (tasks it
    /// was not told of spawning: the profile takes them as new positions).
    pub(crate) fn finish_first_look(policy: &dyn Policy, bytes: u64) {
        let cost = TaskCost {
            bytes,
            nanos: 100,
            ..TaskCost::default()
        };
        for i in 0..FIRST_LOOK {
            let task = TaskInfo {
                id: TaskId(1000 + i),
                level: 1,
                loop_chunks: 0,
            };
            policy.task_started(0, &task, Source::Inline);
            policy.task_finished(0, &task, Some(&cost));
        }
    }

    #[test]
    fn a_first_look_at_tasks_without_data_ends_the_profile() {
        for (bytes, ends) in [(0, true), (LINE_BYTES - 1, true), (LINE_BYTES, false)] {
            let cats = Cats::new(&WorkerMap::from_squad_sizes(&[2, 2]), 0.001, true);
            finish_first_look(&cats, bytes);
            assert_eq!(cats.wants_cost(), !ends, "{bytes} bytes a task");
            assert_eq!(cats.wants_task_events(), !ends, "{bytes} bytes a task");
            let abandoned = ("profile_abandoned".to_string(), u64::from(ends));
            assert!(cats.stats().contains(&abandoned), "{bytes} bytes a task");
            if ends {
                assert!(
                    cats.explain().contains("no data to place"),
                    "{}",
                    cats.explain()
                );
            }
        }
    }

    #[test]
    fn a_program_that_never_iterates_stops_being_profiled() {
        let cats = Cats::new(&WorkerMap::from_squad_sizes(&[2, 2]), 0.001, true);
        assert!(cats.wants_cost(), "the first iteration is profiled");
        spawn_chain(&cats, PROFILE_BUDGET, || !cats.wants_cost());
        let stats = cats.stats();
        assert!(stats.contains(&("profile_abandoned".to_string(), 1)));
        let mut plan = Vec::new();
        cats.search(0, &mut plan);
        assert_eq!(
            plan,
            [Probe::OwnDeque, Probe::Steal(Victims::All)],
            "plain ws"
        );
        assert!(
            cats.explain().contains("no iteration within"),
            "{}",
            cats.explain()
        );
    }
}
