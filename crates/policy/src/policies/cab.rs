//! `cab`: Cache Aware Bi-tier task stealing (Chen, Guo, Huang: CAB). Tasks at DAG levels
//! up to the boundary level are inter-socket tasks, the others intra-socket tasks; the
//! boundary level follows Eq. 4 from the number of squads `M`, the squad's shared cache
//! `S_c`, the branching degree `B` and the input size `S_d`:
//!
//! `BL = max(ceil(log_B M + 1), ceil(log_B(S_d / S_c) + 1))`, and `BL = 0` when `M = 1`.
//!
//! CAB numbers levels from `main` (level 0), which spawns the recursive procedure
//! (level 1), so level `BL` holds the `B^(BL-1)` leaf inter-socket tasks. A locus root
//! runs the procedure itself, so CAB's level `l` is locus level `l - 1`: the leaf
//! inter-socket tasks are the tasks at locus level `BL - 1`.
//!
//! `B` and `S_d` come from the caller (`cab:B:SIZE`, as the paper takes them from the
//! command line); `cab` alone learns them from the first iteration, as CATS profiles:
//! `B` is the mean number of children of the tasks that spawned, `S_d` the bytes the
//! iteration's top tasks declared (or missed, with hardware counters). Until then it runs
//! as `ws`.

use crate::policies::bitier::{BiTier, Tier};
use crate::policies::profile::{Partition, Profile, Spawned};
use crate::{Layout, Place, Policy, Probe, Source, TaskCost, TaskInfo, WorkerId, WorkerMap};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

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
    /// The boundary level itself, in CAB's numbering (0: no inter-socket tier), for
    /// sweeps over every level as CAB's Fig. 5 does.
    Level(u32),
}

/// Not yet partitioned (auto mode's first iteration).
const LEVEL_UNKNOWN: u32 = u32::MAX;
/// No inter-socket tier: plain work stealing (one squad).
const NO_TIER: u32 = u32::MAX - 1;

/// Cache Aware Bi-tier task stealing.
#[derive(Debug)]
pub struct Cab {
    core: BiTier,
    inputs: CabInputs,
    shared_cache: u64,
    /// Locus level of the leaf inter-socket tasks, or one of the sentinels above.
    leaf_level: AtomicU32,
    /// Auto mode: the first iteration's profile, and what was learned.
    profile: Profile,
    learned: OnceLock<(Partition, u32)>,
}

impl Cab {
    /// CAB over the squads of `map`.
    pub fn new(map: &WorkerMap, inputs: CabInputs) -> Cab {
        let core = BiTier::new(map);
        let shared_cache = core.shared_cache().unwrap_or(8 << 20);
        let leaf_level = match inputs {
            _ if core.num_squads() <= 1 => NO_TIER,
            CabInputs::Given {
                branching,
                data_bytes,
            } => boundary_level(core.num_squads(), shared_cache, branching, data_bytes) - 1,
            CabInputs::Level(0) => NO_TIER,
            CabInputs::Level(bl) => (bl - 1).min(NO_TIER - 1),
            CabInputs::Auto => LEVEL_UNKNOWN,
        };
        Cab {
            core,
            inputs,
            shared_cache,
            leaf_level: AtomicU32::new(leaf_level),
            profile: Profile::default(),
            learned: OnceLock::new(),
        }
    }

    /// The boundary level in CAB's numbering (0: no inter-socket tier), once known.
    pub fn boundary(&self) -> Option<u32> {
        match self.leaf_level.load(Ordering::Acquire) {
            LEVEL_UNKNOWN => None,
            NO_TIER => Some(0),
            leaf => Some(leaf + 1),
        }
    }

    fn tier(&self, level: u32) -> Option<Tier> {
        match self.leaf_level.load(Ordering::Acquire) {
            LEVEL_UNKNOWN | NO_TIER => None,
            leaf if level < leaf => Some(Tier::Inter),
            leaf if level == leaf => Some(Tier::LeafInter),
            _ => Some(Tier::Intra),
        }
    }

    fn spawned(&self, parent: &TaskInfo, task: &TaskInfo) {
        if self.leaf_level.load(Ordering::Acquire) != LEVEL_UNKNOWN {
            return;
        }
        if self.profile.spawned(parent, task) == Spawned::Repeat {
            self.learned.get_or_init(|| {
                let part = Partition::new(&self.profile.snapshot(), self.shared_cache, 0.0);
                let b = part.branching.round().max(2.0) as u32;
                let bl = boundary_level(
                    self.core.num_squads(),
                    self.shared_cache,
                    b,
                    part.data_bytes,
                );
                self.leaf_level.store(bl - 1, Ordering::Release);
                (part, bl)
            });
        }
    }
}

impl Policy for Cab {
    fn name(&self) -> &'static str {
        "cab"
    }

    fn layout(&self) -> Layout {
        if self.leaf_level.load(Ordering::Acquire) == NO_TIER {
            return Layout::deques();
        }
        BiTier::layout()
    }

    fn place(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        self.spawned(parent, task);
        match self.tier(task.level) {
            Some(tier) => self.core.place(spawner, tier),
            None => Place::Local,
        }
    }

    fn parent_first(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> bool {
        let _ = spawner;
        self.spawned(parent, task);
        self.tier(task.level).is_some_and(Tier::is_inter)
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        match self.tier(0) {
            Some(_) => self.core.plan(worker, plan),
            None => self.core.ws_plan(plan),
        }
    }

    fn wants_cost(&self) -> bool {
        self.leaf_level.load(Ordering::Relaxed) == LEVEL_UNKNOWN
    }

    fn task_started(&self, worker: WorkerId, task: &TaskInfo, _source: Source) {
        if let Some(tier) = self.tier(task.level) {
            self.core.started(worker, tier);
        }
    }

    fn task_finished(&self, worker: WorkerId, task: &TaskInfo, cost: Option<&TaskCost>) {
        match (self.tier(task.level), cost) {
            (Some(tier), _) => self.core.finished(worker, tier),
            (None, Some(cost)) => self.profile.finished(task, cost),
            (None, None) => {}
        }
    }

    fn explain(&self) -> String {
        let m = self.core.num_squads();
        let sc = self.shared_cache;
        match (self.inputs, self.boundary(), self.learned.get()) {
            (_, Some(0), _) => format!("cab: M = {m} squad(s): BL = 0, every task intra-socket (plain ws)\n"),
            (CabInputs::Level(_), Some(bl), _) => format!(
                "cab: M = {m} squads, S_c = {sc} bytes: BL = {bl} (given), leaf inter-socket tasks at locus level {}\n",
                bl - 1
            ),
            (CabInputs::Given { branching, data_bytes }, Some(bl), _) => format!(
                "cab: M = {m} squads, S_c = {sc} bytes, B = {branching}, S_d = {data_bytes} bytes (given): \
                 BL = {bl} (Eq. 4), leaf inter-socket tasks at locus level {}\n",
                bl - 1
            ),
            (CabInputs::Auto, Some(bl), Some((part, _))) => format!(
                "cab: M = {m} squads, S_c = {sc} bytes, B = {:.2} and S_d = {} bytes learned from {} tasks of the \
                 first iteration: BL = {bl} (Eq. 4), leaf inter-socket tasks at locus level {}\n",
                part.branching,
                part.data_bytes,
                part.tasks,
                bl - 1
            ),
            _ => format!("cab: M = {m} squads, S_c = {sc} bytes: B and S_d not learned yet (first iteration runs as ws)\n"),
        }
    }

    fn stats(&self) -> Vec<(String, u64)> {
        let mut out = self.core.stats();
        out.push((
            "profile_iterations".to_string(),
            u64::from(self.learned.get().is_some()),
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

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
        );
        assert_eq!(cab.boundary(), Some(0));
        assert!(cab.layout().always_local, "one squad: plain ws");
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
        let cab = Cab::new(&map, CabInputs::Level(3));
        assert_eq!(cab.boundary(), Some(3));
        let t = |level: u32| TaskInfo {
            id: crate::TaskId(level.into()),
            level,
        };
        assert!(cab.parent_first(0, &t(1), &t(2)), "locus level 2 = BL 3");
        assert!(!cab.parent_first(0, &t(2), &t(3)));
        let flat = Cab::new(&map, CabInputs::Level(0));
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
        );
        assert_eq!(cab.boundary(), Some(4));
        let t = |level: u32| TaskInfo {
            id: crate::TaskId(level.into()),
            level,
        };
        let root = t(0);
        assert_eq!(cab.place(2, &root, &t(2)), Place::InterPool(1));
        assert!(
            cab.parent_first(2, &root, &t(3)),
            "leaf inter-socket tasks too"
        );
        assert_eq!(cab.place(2, &root, &t(4)), Place::Local);
        assert!(!cab.parent_first(2, &root, &t(4)));
    }
}
