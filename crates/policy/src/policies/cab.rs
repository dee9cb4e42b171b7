//! `cab`: Cache Aware Bi-tier task stealing (Chen, Guo, Huang: CAB). Tasks at DAG levels
//! up to the boundary level are inter-squad tasks, the others intra-squad tasks; the
//! boundary level follows Eq. 4 from the number of squads `M`, the squad's shared cache
//! `S_c`, the branching degree `B` and the input size `S_d`:
//!
//! `BL = max(ceil(log_B M + 1), ceil(log_B(S_d / S_c) + 1))`, and `BL = 0` when `M = 1`.
//!
//! CAB numbers levels from `main` (level 0), which spawns the recursive procedure
//! (level 1), so level `BL` holds the `B^(BL-1)` leaf inter-squad tasks. A locus root
//! runs the procedure itself, so CAB's level `l` is locus level `l - 1`: the leaf
//! inter-squad tasks are the tasks at locus level `BL - 1`.
//!
//! `B` and `S_d` come from the caller (`cab:B:SIZE`, as the paper takes them from the
//! command line); `cab` alone learns them from the first iteration, as CATS profiles:
//! `B` is the mean number of children of the tasks that spawned, `S_d` the bytes the
//! iteration's top tasks declared (or missed, with hardware counters). Until then it runs
//! as `ws`.
//!
//! # Iteration affinity (`cab`; `cab-paper` is the published algorithm)
//! With affinity each leaf inter-squad task has a home squad (see `iteration.rs`): first
//! subtree `i` of the `k` leaves in squad `⌊i·m/k⌋`, later the squad that last ran it.
//! In auto mode the leaves and their order come from the profile (and, where packages
//! hold several squads, the package each leaf's data is in: N-tier, see `bitier.rs`);
//! with given inputs, from the leaf's position in a complete `B`-ary tree
//! (`k = B^(BL-1)`). In auto mode,
//! where the squads' shares of the profiled work at Eq. 4's level are uneven
//! ([`UNEVEN_SHARES`]), the leaves are cut below it, to at least [`LEAVES_PER_SQUAD`] per
//! squad, so that squads can balance by leaves (see `bitier.rs`); given inputs and a
//! given level are taken as they are.
//!
//! With affinity, data that outgrows the squads' caches together (`S_d > M · S_c`,
//! given or learned) is not partitioned: `cab` then runs its tasks as `ws` (`BL = 0`),
//! as no placement keeps a squad's share cached between iterations, and its loops'
//! chunks keep the homes they have had since the first iteration (see `bitier.rs`).
//! `cab-paper`, and a boundary level given as such, partition it as Eq. 4 says.

use crate::policies::bitier::{BiTier, Tier, LEAVES_PER_SQUAD, UNEVEN_SHARES};
use crate::policies::iteration::{contiguous_counts, contiguous_squad};
use crate::policies::online::{
    leaf_order, share_imbalance, subtree_work, widths, Entry, LearnedTiers, OnlineProfile, Spawned,
    FIRST_LOOK, LINE_BYTES, PROFILE_BUDGET,
};
use crate::{
    Layout, Place, Policy, Probe, Source, SquadId, TaskCost, TaskId, TaskInfo, WorkerId, WorkerMap,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

/// CAB Eq. 4 in integers: the smallest `BL` with `B^(BL-1) >= M` and
/// `B^(BL-1) * S_c >= S_d`, or 0 when there is one squad. `B` below 2 is taken as 2.
pub fn boundary_level(squads: usize, shared_cache: u64, branching: u32, data_bytes: u64) -> u32 {
    if squads <= 1 {
        return 0;
    }
    let b = u128::from(branching.max(2));
    let mut k = 0u32;
    let mut power = 1u128; // B^k
    while power < squads as u128 || power * u128::from(shared_cache.max(1)) < u128::from(data_bytes)
    {
        power *= b;
        k += 1;
    }
    k + 1
}

/// With iteration affinity: the first level at or below Eq. 4's `leaf` level whose
/// profiled tasks number at least [`LEAVES_PER_SQUAD`] per squad, or the level where the
/// tree stops growing (the next holds no more tasks).
fn deepened_leaf_level(entries: &HashMap<TaskId, Entry>, leaf: u32, squads: usize) -> u32 {
    let mut per_level: HashMap<u32, usize> = HashMap::new();
    for e in entries.values() {
        *per_level.entry(e.level).or_default() += 1;
    }
    let count = |level: u32| per_level.get(&level).copied().unwrap_or(0);
    let wanted = squads.saturating_mul(LEAVES_PER_SQUAD);
    let mut leaf = leaf;
    while count(leaf) < wanted && count(leaf + 1) > count(leaf) {
        leaf += 1;
    }
    leaf
}

/// `leaf`, or the deepest level of the profiled tree where that is shallower. Eq. 4
/// counts levels of a full tree of branching `B`: with fewer tasks than squads (8 leaves
/// on 24 squads) it names a level the tree does not reach, which leaves it without leaf
/// inter-squad tasks, and every leaf without a home, stolen at random each iteration
/// with its data (`locus sim heat --size 1024x512,leaf=128,iters=10 --policy ws,cab
/// --machine epyc-9654-2s`, seeds 1-8: 0.73-1.13 of ws's time; 0.56-0.74 cut at the
/// tree's leaves, with `BiTier::leaves_wait_elsewhere`).
fn within_tree(entries: &HashMap<TaskId, Entry>, leaf: u32) -> u32 {
    entries
        .values()
        .map(|e| e.level)
        .max()
        .map_or(leaf, |deepest| leaf.min(deepest))
}

/// How CAB gets `B` and `S_d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CabInputs {
    /// Given: branching degree and input size in bytes.
    Given {
        /// `B`.
        branching: u32,
        /// `S_d`.
        data_bytes: u64,
    },
    /// Learned from the first iteration.
    Auto,
    /// The boundary level itself, in CAB's numbering (0: no inter-squad tier), for
    /// sweeps over every level as CAB's Fig. 5 does.
    Level(u32),
}

/// Not yet partitioned (auto mode's first iteration).
const LEVEL_UNKNOWN: u32 = u32::MAX;
/// No inter-squad tier: plain work stealing (one squad).
const NO_TIER: u32 = u32::MAX - 1;
/// Auto mode: the first iteration outgrew the profile's budget; plain work stealing.
const UNPROFILED: u32 = u32::MAX - 2;
/// Auto mode: the profile's first tasks touched no data (`online::FIRST_LOOK`); plain
/// work stealing, as [`UNPROFILED`].
const NO_DATA: u32 = u32::MAX - 3;

/// Positions of the inter-squad tasks in a complete `B`-ary tree, for first homes
/// when no profile says where the leaves are: the root is at 0, and child `j` of the
/// task at `p` is at `p·B + j` (`j` the half of a join, or the spawn's order in a scope).
#[derive(Debug)]
struct Positions {
    branching: u64,
    /// Positions of the tasks above the leaves.
    of: Mutex<HashMap<TaskId, u64>>,
}

impl Positions {
    fn new(branching: u32) -> Positions {
        Positions {
            branching: u64::from(branching.max(2)),
            of: Mutex::new(HashMap::new()),
        }
    }

    /// The position of `task`, spawned by `parent`; kept if `keep` (it has children that
    /// will ask).
    fn of(&self, parent: &TaskInfo, task: &TaskInfo, keep: bool) -> u64 {
        let mut of = self.of.lock().unwrap_or_else(|e| e.into_inner());
        let base = of.get(&parent.id).copied().unwrap_or(0);
        let j = match task.id.index_in(parent.id) {
            Some(i) if i >= 2 => u64::from(i - 2),
            Some(i) => u64::from(i),
            None => 0,
        };
        let pos = base
            .saturating_mul(self.branching)
            .saturating_add(j.min(self.branching - 1));
        if keep {
            of.insert(task.id, pos);
        }
        pos
    }

    /// The number of leaves at `level`: `B^level`, saturated.
    fn leaves(&self, level: u32) -> u64 {
        self.branching.saturating_pow(level)
    }
}

/// What auto mode learned from its first iteration.
#[derive(Debug)]
struct Learned {
    part: LearnedTiers,
    /// Eq. 4's boundary level (0 when the data outgrows the caches).
    eq4: u32,
    /// With affinity, the squads' shares of the profiled work at Eq. 4's level: the
    /// largest over the mean.
    shares: Option<f64>,
}

/// Cache Aware Bi-tier task stealing.
#[derive(Debug)]
pub struct Cab {
    core: BiTier,
    inputs: CabInputs,
    shared_cache: u64,
    /// Locus level of the leaf inter-squad tasks, or one of the sentinels above.
    leaf_level: AtomicU32,
    /// Auto mode: the first iteration's profile, and what was learned.
    profile: OnlineProfile,
    learned: OnceLock<Learned>,
    /// With affinity and given inputs: positions for the leaves' first homes.
    positions: Option<Positions>,
}

impl Cab {
    /// CAB over the squads of `map`; `affinity: false` is the published algorithm
    /// (`cab-paper`).
    pub fn new(map: &WorkerMap, inputs: CabInputs, affinity: bool) -> Cab {
        let core = BiTier::new(map, affinity);
        let shared_cache = core.shared_cache().unwrap_or(8 << 20);
        // Given data too large for every cache: the tasks run as ws, the loop chunks
        // still go home (as they do when `cab` learns it).
        let outgrown = matches!(inputs, CabInputs::Given { data_bytes, .. }
            if affinity && core.outgrows_caches(data_bytes, shared_cache));
        let leaf_level = match inputs {
            _ if core.num_squads() <= 1 => NO_TIER,
            _ if outgrown => NO_TIER,
            CabInputs::Given {
                branching,
                data_bytes,
            } => boundary_level(core.num_squads(), shared_cache, branching, data_bytes) - 1,
            CabInputs::Level(0) => NO_TIER,
            CabInputs::Level(bl) => (bl - 1).min(NO_DATA - 1),
            CabInputs::Auto => LEVEL_UNKNOWN,
        };
        let core = if leaf_level == NO_TIER && !outgrown {
            core.without_chunks()
        } else {
            core
        };
        let positions = match inputs {
            _ if !affinity || leaf_level >= NO_DATA => None,
            CabInputs::Given { branching, .. } => Some(Positions::new(branching)),
            CabInputs::Level(_) => Some(Positions::new(2)),
            CabInputs::Auto => None,
        };
        if let Some(pos) = &positions {
            // The first iteration's leaves are known in advance: a squad waits for its own.
            let k = pos.leaves(leaf_level);
            if k <= 1 << 16 {
                core.affinity
                    .expect(&contiguous_counts(k as usize, core.num_squads()));
            }
        }
        Cab {
            core,
            inputs,
            shared_cache,
            leaf_level: AtomicU32::new(leaf_level),
            profile: OnlineProfile::default(),
            learned: OnceLock::new(),
            positions,
        }
    }

    /// Whether `cab` runs data of `data_bytes` as `ws` because it outgrows the squads'
    /// caches together (with affinity only; `cab-paper` partitions every input).
    fn outgrown(&self, data_bytes: u64) -> bool {
        self.core.affinity.enabled() && self.core.outgrows_caches(data_bytes, self.shared_cache)
    }

    /// The boundary level in CAB's numbering (0: no inter-squad tier), once known: Eq. 4's,
    /// or with iteration affinity in auto mode the level below it that gives each squad
    /// several leaves (see the module documentation).
    pub fn boundary(&self) -> Option<u32> {
        match self.leaf_level.load(Ordering::Acquire) {
            LEVEL_UNKNOWN => None,
            NO_TIER | UNPROFILED | NO_DATA => Some(0),
            leaf => Some(leaf + 1),
        }
    }

    fn tier(&self, level: u32) -> Option<Tier> {
        match self.leaf_level.load(Ordering::Acquire) {
            LEVEL_UNKNOWN | NO_TIER | UNPROFILED | NO_DATA => None,
            leaf if level < leaf => Some(Tier::Inter),
            leaf if level == leaf => Some(Tier::LeafInter),
            _ => Some(Tier::Intra),
        }
    }

    fn spawned(&self, parent: &TaskInfo, task: &TaskInfo) {
        if self.leaf_level.load(Ordering::Acquire) != LEVEL_UNKNOWN {
            return;
        }
        let spawned = self.profile.spawned(parent, task);
        if spawned == Spawned::OverBudget {
            let _ = self.leaf_level.compare_exchange(
                LEVEL_UNKNOWN,
                UNPROFILED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        } else if spawned == Spawned::Repeat {
            self.learned.get_or_init(|| {
                let entries = self.profile.snapshot();
                let part = LearnedTiers::new(&entries, self.shared_cache, 0.0);
                let b = part.branching.round().max(2.0) as u32;
                let m = self.core.num_squads();
                if self.outgrown(part.data_bytes) {
                    self.leaf_level.store(NO_TIER, Ordering::Release);
                    return Learned {
                        part,
                        eq4: 0,
                        shares: None,
                    };
                }
                let bl = boundary_level(m, self.shared_cache, b, part.data_bytes);
                let mut leaf = bl - 1;
                let mut shares = None;
                if self.core.affinity.enabled() {
                    leaf = within_tree(&entries, leaf);
                    let at = |level: u32| leaf_order(&entries, |_, e: &Entry| e.level == level);
                    let imbalance = share_imbalance(&subtree_work(&entries, &at(leaf)), m);
                    if imbalance > UNEVEN_SHARES {
                        leaf = deepened_leaf_level(&entries, leaf, m);
                    }
                    shares = Some(imbalance);
                    let is_leaf = |_: &TaskId, e: &Entry| e.level == leaf;
                    self.core
                        .preset_homes(&entries, leaf_order(&entries, is_leaf));
                    self.core.set_widths(widths(&entries, is_leaf));
                }
                self.leaf_level.store(leaf, Ordering::Release);
                Learned {
                    part,
                    eq4: bl,
                    shares,
                }
            });
        }
    }

    /// The first home of `task`, a leaf inter-squad task spawned by `parent` on
    /// `spawner`: by its position where inputs were given, else the spawner's squad (a
    /// leaf the profile did not see).
    fn first_home(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> SquadId {
        match &self.positions {
            Some(pos) => {
                let k = pos.leaves(task.level);
                let i = pos.of(parent, task, false);
                contiguous_squad(i as usize, k as usize, self.core.num_squads())
            }
            None => self.core.squad_of(spawner),
        }
    }

    /// Keeps the position of an inter-squad task above the leaves.
    fn note_position(&self, parent: &TaskInfo, task: &TaskInfo, tier: Option<Tier>) {
        if let (Some(pos), Some(Tier::Inter)) = (&self.positions, tier) {
            pos.of(parent, task, true);
        }
    }
}

impl Policy for Cab {
    fn name(&self) -> &'static str {
        if self.core.affinity.enabled() {
            "cab"
        } else {
            "cab-paper"
        }
    }

    fn layout(&self) -> Layout {
        if self.leaf_level.load(Ordering::Acquire) == NO_TIER && !self.core.has_chunks() {
            return Layout::deques();
        }
        self.core.layout()
    }

    fn place(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        self.spawned(parent, task);
        if self.leaf_level.load(Ordering::Acquire) == LEVEL_UNKNOWN {
            if let Some(place) = self.core.profile_place(parent, task) {
                return place;
            }
        }
        if let Some(place) = self.core.place_chunk(spawner, parent, task) {
            return place;
        }
        let tier = self.tier(task.level);
        self.note_position(parent, task, tier);
        match tier {
            Some(tier) => self.core.place(spawner, task, tier, || {
                self.first_home(spawner, parent, task)
            }),
            None => Place::Local,
        }
    }

    fn parent_first(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> bool {
        let _ = spawner;
        self.spawned(parent, task);
        let tier = self.tier(task.level);
        self.note_position(parent, task, tier);
        tier.is_some_and(|t| self.core.parent_first(t))
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        match self.tier(0) {
            Some(_) => self.core.plan(worker, plan),
            None => self.core.ws_plan(worker, plan),
        }
    }

    fn wants_cost(&self) -> bool {
        self.leaf_level.load(Ordering::Relaxed) == LEVEL_UNKNOWN
    }

    fn wants_task_events(&self) -> bool {
        // Not once it runs as ws for good: its data outgrows the caches (or BL = 0), or
        // its first iteration outgrew the profile (a placed loop chunk's start comes
        // from its queue then, `Layout::queued_starts`).
        !matches!(
            self.leaf_level.load(Ordering::Acquire),
            NO_TIER | UNPROFILED | NO_DATA
        )
    }

    fn spawns_stay_local(&self) -> bool {
        // The states without events are those without a profile or tiers (`tier` is
        // `None`): only loop chunks are placed there.
        !self.wants_task_events()
    }

    fn task_started(&self, worker: WorkerId, task: &TaskInfo, source: Source) {
        self.core.task_begins(worker, task);
        if self.core.is_placed_chunk(task) {
            self.core.chunk_started(worker, task, source);
        } else if let Some(tier) = self.tier(task.level) {
            self.core.started(worker, task, tier);
        }
    }

    fn task_finished(&self, worker: WorkerId, task: &TaskInfo, cost: Option<&TaskCost>) {
        self.core.task_ends();
        let tier = self
            .tier(task.level)
            .filter(|_| !self.core.is_placed_chunk(task));
        match (tier, cost) {
            (Some(tier), _) => self.core.finished(worker, task, tier),
            (None, Some(cost)) => {
                if self.core.profiled(&self.profile, worker, task, cost) {
                    let _ = self.leaf_level.compare_exchange(
                        LEVEL_UNKNOWN,
                        NO_DATA,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    );
                }
            }
            (None, None) => {}
        }
    }

    fn explain(&self) -> String {
        let m = self.core.num_squads();
        let sc = self.shared_cache;
        let name = self.name();
        let data = match (self.inputs, self.learned.get()) {
            (CabInputs::Given { data_bytes, .. }, _) => Some((data_bytes, "given")),
            (CabInputs::Auto, Some(learned)) => Some((learned.part.data_bytes, "learned")),
            _ => None,
        };
        if let Some((d, how)) =
            data.filter(|(d, _)| self.boundary() == Some(0) && self.outgrown(*d))
        {
            return format!(
                "{name}: M = {m} squads, S_c = {sc} bytes, S_d = {d} bytes ({how}), BL = 0: {}",
                self.core.outgrown_line(sc)
            );
        }
        if self.leaf_level.load(Ordering::Acquire) == UNPROFILED {
            return format!(
                "{name}: M = {m} squads: no iteration within the profile's first {PROFILE_BUDGET} tasks, \
                 or its whole tree run again from outside: BL = 0, plain ws, no profiling\n"
            );
        }
        if self.leaf_level.load(Ordering::Acquire) == NO_DATA {
            return format!(
                "{name}: M = {m} squads: the profile's first {FIRST_LOOK} tasks touched under {LINE_BYTES} \
                 bytes each on average, no data to place: BL = 0, plain ws, no profiling\n"
            );
        }
        let mut text = match (self.inputs, self.boundary(), self.learned.get()) {
            (_, Some(0), _) => format!("{name}: M = {m} squad(s): BL = 0, every task intra-squad (plain ws)\n"),
            (CabInputs::Level(_), Some(bl), _) => format!(
                "{name}: M = {m} squads, S_c = {sc} bytes: BL = {bl} (given), leaf inter-squad tasks at locus level {}\n",
                bl - 1
            ),
            (CabInputs::Given { branching, data_bytes }, Some(bl), _) => format!(
                "{name}: M = {m} squads, S_c = {sc} bytes, B = {branching}, S_d = {data_bytes} bytes (given): \
                 BL = {bl} (Eq. 4), leaf inter-squad tasks at locus level {}\n",
                bl - 1
            ),
            (CabInputs::Auto, Some(level), Some(Learned { part, eq4, shares })) => format!(
                "{name}: M = {m} squads, S_c = {sc} bytes, B = {:.2} and S_d = {} bytes learned from {} tasks of the \
                 first iteration: BL = {eq4} (Eq. 4), leaf inter-squad tasks at locus level {}{}\n",
                part.branching,
                part.data_bytes,
                part.tasks,
                level - 1,
                match shares {
                    Some(r) if level > *eq4 => format!(
                        " (the squads' shares of the profiled work at Eq. 4's level {} were uneven, the largest {r:.2}x \
                         the mean, so cut finer for {LEAVES_PER_SQUAD} leaves per squad)",
                        eq4 - 1
                    ),
                    Some(r) => format!(" (the squads' shares of the profiled work: the largest {r:.2}x the mean)"),
                    None => String::new(),
                }
            ),
            _ => format!("{name}: M = {m} squads, S_c = {sc} bytes: B and S_d not learned yet (first iteration runs as ws)\n"),
        };
        if self.boundary().is_some_and(|bl| bl > 0) {
            text.push_str(self.core.affinity_line());
        }
        text
    }

    fn stats(&self) -> Vec<(String, u64)> {
        let mut out = self.core.stats();
        out.push((
            "profile_iterations".to_string(),
            u64::from(self.learned.get().is_some()),
        ));
        out.push((
            "profile_abandoned".to_string(),
            u64::from(matches!(
                self.leaf_level.load(Ordering::Acquire),
                UNPROFILED | NO_DATA
            )),
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_first_look_at_tasks_without_data_ends_the_profile() {
        for (bytes, ends) in [(0, true), (LINE_BYTES, false)] {
            let cab = Cab::new(&WorkerMap::from_squad_sizes(&[2, 2]), CabInputs::Auto, true);
            crate::policies::cats::tests::finish_first_look(&cab, bytes);
            assert_eq!(cab.wants_cost(), !ends, "{bytes} bytes a task");
            if ends {
                assert_eq!(cab.boundary(), Some(0));
                assert!(
                    cab.explain().contains("no data to place"),
                    "{}",
                    cab.explain()
                );
            }
        }
    }

    #[test]
    fn a_program_that_never_iterates_stops_being_profiled() {
        let cab = Cab::new(&WorkerMap::from_squad_sizes(&[2, 2]), CabInputs::Auto, true);
        assert!(cab.wants_cost(), "the first iteration is profiled");
        crate::policies::cats::tests::spawn_chain(&cab, PROFILE_BUDGET, || !cab.wants_cost());
        assert_eq!(cab.boundary(), Some(0));
        assert!(cab.stats().contains(&("profile_abandoned".to_string(), 1)));
        let mut plan = Vec::new();
        cab.search(0, &mut plan);
        assert_eq!(plan, [Probe::OwnDeque, Probe::Steal(crate::Victims::All)]);
        assert!(
            cab.explain().contains("no iteration within"),
            "{}",
            cab.explain()
        );
    }

    #[test]
    fn leaves_are_cut_finer_until_each_squad_has_several() {
        // A binary tree of levels 0-4 (1, 2, 4, 8, 16 tasks) and a chain below one leaf.
        let mut entries = HashMap::new();
        let mut id = 0u64;
        for level in 0..=4u32 {
            for _ in 0..1u32 << level {
                id += 1;
                let e = Entry {
                    level,
                    ..Entry::default()
                };
                entries.insert(TaskId(id), e);
            }
        }
        assert_eq!(LEAVES_PER_SQUAD, 4, "the cases below assume 4 per squad");
        assert_eq!(
            deepened_leaf_level(&entries, 1, 2),
            3,
            "8 leaves for 2 squads"
        );
        assert_eq!(
            deepened_leaf_level(&entries, 3, 1),
            3,
            "Eq. 4's level has enough"
        );
        assert_eq!(
            deepened_leaf_level(&entries, 1, 8),
            4,
            "32 wanted: the deepest level, where the tree stops growing"
        );
        id += 1;
        entries.insert(
            TaskId(id),
            Entry {
                level: 5,
                ..Entry::default()
            },
        );
        assert_eq!(
            deepened_leaf_level(&entries, 1, 8),
            4,
            "one task below is no more"
        );
    }

    #[test]
    fn the_leaf_level_stays_within_the_tree() {
        let entries: HashMap<TaskId, Entry> = (0..=3u32)
            .map(|level| {
                let e = Entry {
                    level,
                    ..Entry::default()
                };
                (TaskId(u64::from(level)), e)
            })
            .collect();
        assert_eq!(within_tree(&entries, 5), 3, "below the deepest task");
        assert_eq!(within_tree(&entries, 2), 2);
        assert_eq!(within_tree(&HashMap::new(), 5), 5, "nothing profiled");
    }

    #[test]
    fn the_papers_example_gives_bl_4() {
        // CAB Section V: Heat 3072 x 2048 doubles = 48 MiB, 4 squads of 6 MiB, B = 2.
        assert_eq!(boundary_level(4, 6 * MIB, 2, 3072 * 2048 * 8), 4);
    }

    #[test]
    fn one_squad_gives_bl_0() {
        assert_eq!(boundary_level(1, 6 * MIB, 2, 1 << 40), 0);
        let cab = Cab::new(
            &WorkerMap::from_squad_sizes(&[4]),
            CabInputs::Given {
                branching: 2,
                data_bytes: 48 * MIB,
            },
            false,
        );
        assert_eq!(cab.boundary(), Some(0));
        assert!(cab.layout().always_local, "one squad: plain ws");
    }

    #[test]
    fn with_affinity_data_beyond_every_squads_cache_runs_as_ws() {
        // Two squads of 8 MiB (the default where the map knows no cache): 16 MiB hold
        // the data or not.
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let given = |data_bytes| CabInputs::Given {
            branching: 2,
            data_bytes,
        };
        let cab = Cab::new(&map, given(48 * MIB), true);
        assert_eq!(cab.boundary(), Some(0));
        let mut plan = Vec::new();
        cab.search(0, &mut plan);
        assert_eq!(
            plan,
            [Probe::OwnDeque, Probe::Steal(crate::Victims::All)],
            "plain ws while no chunk waits"
        );
        assert!(
            cab.layout().squad_queues,
            "loop chunks still wait in their home squads' queues"
        );
        let text = cab.explain();
        assert!(text.contains("outgrows the squads' caches"), "{text}");
        assert!(text.contains("S_d = 50331648 bytes (given)"), "{text}");
        let paper = Cab::new(&map, given(48 * MIB), false);
        assert_eq!(
            paper.boundary(),
            Some(boundary_level(2, 8 * MIB, 2, 48 * MIB)),
            "cab-paper keeps Eq. 4"
        );
        assert!(!paper.explain().contains("outgrows"));
        for data in [MIB, 16 * MIB] {
            let cab = Cab::new(&map, given(data), true);
            assert_eq!(
                cab.boundary(),
                Some(boundary_level(2, 8 * MIB, 2, data)),
                "{data} bytes fit"
            );
        }
        let level = Cab::new(&map, CabInputs::Level(3), true);
        assert_eq!(level.boundary(), Some(3), "a given level is taken as is");
    }

    #[test]
    fn eq4_takes_the_larger_of_its_two_bounds() {
        assert_eq!(
            boundary_level(4, 6 * MIB, 2, MIB),
            3,
            "small data: enough subtrees for 4 squads"
        );
        assert_eq!(
            boundary_level(2, 6 * MIB, 2, 96 * MIB),
            5,
            "large data: 16 subtrees of 6 MiB"
        );
        assert_eq!(
            boundary_level(8, 6 * MIB, 4, 6 * MIB),
            3,
            "B = 4: 16 leaves >= 8 squads"
        );
        assert_eq!(boundary_level(2, 6 * MIB, 2, 6 * MIB), 2);
    }

    #[test]
    fn a_given_level_is_taken_as_is() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let cab = Cab::new(&map, CabInputs::Level(3), false);
        assert_eq!(cab.boundary(), Some(3));
        let t = |level: u32| TaskInfo {
            id: crate::TaskId(level.into()),
            level,
            loop_chunks: 0,
        };
        assert!(cab.parent_first(0, &t(1), &t(2)), "locus level 2 = BL 3");
        assert!(!cab.parent_first(0, &t(2), &t(3)));
        let flat = Cab::new(&map, CabInputs::Level(0), true);
        assert_eq!(flat.boundary(), Some(0));
        assert!(flat.layout().always_local);
    }

    #[test]
    fn levels_at_and_above_the_boundary_are_inter_socket() {
        // 4 squads, no cache in the map: S_c defaults to 8 MiB; 48 MiB -> BL = 4.
        let map = WorkerMap::from_squad_sizes(&[2, 2, 2, 2]);
        let cab = Cab::new(
            &map,
            CabInputs::Given {
                branching: 2,
                data_bytes: 48 * MIB,
            },
            false,
        );
        assert_eq!(cab.boundary(), Some(4));
        let t = |level: u32| TaskInfo {
            id: crate::TaskId(level.into()),
            level,
            loop_chunks: 0,
        };
        let root = t(0);
        assert_eq!(cab.place(2, &root, &t(2)), Place::InterPool(1));
        assert!(
            cab.parent_first(2, &root, &t(3)),
            "leaf inter-squad tasks too"
        );
        assert_eq!(cab.place(2, &root, &t(4)), Place::Local);
        assert!(!cab.parent_first(2, &root, &t(4)));
    }

    #[test]
    fn with_given_inputs_the_first_homes_follow_the_tree() {
        // 4 squads, BL = 3: the 4 tasks of locus level 2 are the leaves, dealt in order.
        let map = WorkerMap::from_squad_sizes(&[1, 1, 1, 1]);
        let cab = Cab::new(&map, CabInputs::Level(3), true);
        let root = TaskInfo {
            id: TaskId(5),
            level: 0,
            loop_chunks: 0,
        };
        let kids = |p: &TaskInfo| {
            [0, 1].map(|i| TaskInfo {
                id: p.id.child(i),
                level: p.level + 1,
                loop_chunks: 0,
            })
        };
        let [a, b] = kids(&root);
        // Above the leaves: child-first, placed locally.
        assert!(!cab.parent_first(3, &root, &a));
        assert_eq!(cab.place(3, &root, &b), Place::Local);
        let mut homes = Vec::new();
        for half in [a, b] {
            let [x, y] = kids(&half);
            assert!(cab.parent_first(3, &half, &x), "leaves are parent-first");
            for leaf in [x, y] {
                match cab.place(3, &half, &leaf) {
                    Place::InterPool(s) => homes.push(s),
                    other => panic!("a leaf went to {other:?}"),
                }
            }
        }
        assert_eq!(homes, [0, 1, 2, 3], "subtree i of 4 to squad i");
        let mut paper = Vec::new();
        let faithful = Cab::new(&map, CabInputs::Level(3), false);
        assert!(faithful.parent_first(3, &root, &a));
        for leaf in kids(&a) {
            paper.push(faithful.place(3, &a, &leaf));
        }
        assert_eq!(paper, [Place::InterPool(3); 2], "the spawner's squad");
        assert_eq!(faithful.name(), "cab-paper");
    }
}
