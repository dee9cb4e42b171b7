//! Policies that decide before the run which worker runs which task: `static`, the
//! block partition of OpenMP's `schedule(static)`, and `affinity`, a schedule made
//! offline from an affinity graph (Song, Moore and Dongarra, "Feedback-directed thread
//! scheduling with memory considerations", HPDC'07; `locus profile` makes the file).
//!
//! Both deal every parallel loop as a [`LoopPlan`]: each worker gets a lane of chunks
//! that it runs one after the other, in order, as the paper's threads run their
//! `mytasks` lists, and nothing is stolen from a lane (a static schedule balances by
//! construction: the block partition by counting, the affinity partition by the tasks'
//! work). Tasks outside lanes (the halves of joins, the root, the chunks of a loop the
//! schedule does not know) are work stealing's: spawned onto the spawner's deque and
//! stolen by idle workers. `affinity` sends a spawned task the schedule knows to its
//! worker's inbox, and counts the tasks it placed from the schedule and those it left
//! to work stealing (`schedule_placed`, `schedule_unknown`), so that a schedule that
//! does not fit the program shows in the statistics rather than silently running `ws`.

use crate::{
    Layout, LoopPlan, Order, Place, Policy, Probe, TaskId, TaskInfo, Victims, WorkerId, WorkerMap,
    FIRST_SCOPE_SPAWN,
};
use crossbeam_utils::CachePadded;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The statistic [`Affinity`] counts the tasks it placed as its schedule says under.
pub const SCHEDULE_PLACED: &str = "schedule_placed";
/// The statistic [`Affinity`] counts the tasks its schedule did not know under (they
/// ran under work stealing).
pub const SCHEDULE_UNKNOWN: &str = "schedule_unknown";

/// Where a schedule puts one task: its worker, and its rank in that worker's lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The worker that runs the task.
    pub worker: WorkerId,
    /// Its position among that worker's tasks (lower first).
    pub order: u32,
}

/// A task schedule as the `affinity` policy follows it: task id -> worker and order.
/// Made from a schedule file by `locus_profile::schedule`, which validates the file
/// against the machine and input first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSchedule {
    workers: usize,
    slots: HashMap<TaskId, Slot>,
}

/// A schedule that cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskScheduleError {
    /// A task appears twice.
    #[error("task {0} is scheduled twice")]
    Duplicate(TaskId),
    /// A task names a worker the schedule does not have.
    #[error("task {task} is scheduled on worker {worker}, but the schedule has {workers} workers")]
    Worker {
        /// The task.
        task: TaskId,
        /// Its worker.
        worker: WorkerId,
        /// The schedule's workers.
        workers: usize,
    },
}

impl TaskSchedule {
    /// A schedule for `workers` workers from `(task, worker, order)` entries.
    ///
    /// # Errors
    /// If a task appears twice or names a worker `>= workers`.
    pub fn new(
        workers: usize,
        entries: impl IntoIterator<Item = (TaskId, WorkerId, u32)>,
    ) -> Result<TaskSchedule, TaskScheduleError> {
        let mut slots = HashMap::new();
        for (task, worker, order) in entries {
            if worker >= workers {
                return Err(TaskScheduleError::Worker {
                    task,
                    worker,
                    workers,
                });
            }
            if slots.insert(task, Slot { worker, order }).is_some() {
                return Err(TaskScheduleError::Duplicate(task));
            }
        }
        Ok(TaskSchedule { workers, slots })
    }

    /// The workers the schedule was made for.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Tasks scheduled.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no task is scheduled.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Where `task` goes, if the schedule knows it.
    pub fn slot(&self, task: TaskId) -> Option<Slot> {
        self.slots.get(&task).copied()
    }
}

/// Search plan of both policies: the lanes and scheduled tasks in the own inbox, then
/// work stealing for the rest.
fn search_plan(alone: bool, plan: &mut Vec<Probe>) {
    plan.push(Probe::OwnInbox);
    plan.push(Probe::OwnDeque);
    if !alone {
        plan.push(Probe::Steal(Victims::All));
    }
}

fn layout(always_local: bool) -> Layout {
    Layout {
        inbox: Some(Order::Fifo),
        always_local,
        loop_plans: true,
        ..Layout::deques()
    }
}

/// Plans already made, by the loop's parent and chunk count: a loop in an iterative
/// program opens with the same parent every time, and its plan is the same.
type PlanCache<K> = Mutex<HashMap<K, Option<Arc<LoopPlan>>>>;

fn cached<K: std::hash::Hash + Eq>(
    cache: &PlanCache<K>,
    key: K,
    make: impl FnOnce() -> Option<LoopPlan>,
) -> Option<Arc<LoopPlan>> {
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(key)
        .or_insert_with(|| make().map(Arc::new))
        .clone()
}

/// `static`: chunk `i` of a loop of `k` chunks runs on worker `⌊i·P/k⌋`, each worker's
/// chunks in loop order (OpenMP's `schedule(static)` without a chunk size: one block
/// of consecutive chunks per worker). Everything else is work stealing's.
#[derive(Debug)]
pub struct StaticBlocks {
    workers: usize,
    plans: PlanCache<u32>,
}

impl StaticBlocks {
    /// The block partition over the workers of `map`.
    pub fn new(map: &WorkerMap) -> StaticBlocks {
        StaticBlocks {
            workers: map.num_workers(),
            plans: Mutex::default(),
        }
    }

    /// The plan of a loop of `chunks` chunks over `workers` workers.
    fn blocks(workers: usize, chunks: u32) -> LoopPlan {
        let k = u64::from(chunks);
        let p = workers as u64;
        // Worker `w`'s first chunk is the first `i` with `⌊i·P/k⌋ >= w`: `⌈w·k/P⌉`.
        let bound = |w: u64| (w * k).div_ceil(p) as u32;
        LoopPlan {
            lanes: (0..p).map(|w| (bound(w)..bound(w + 1)).collect()).collect(),
            rest: Vec::new(),
        }
    }
}

impl Policy for StaticBlocks {
    fn name(&self) -> &'static str {
        "static"
    }

    fn layout(&self) -> Layout {
        layout(true)
    }

    fn plan_loop(
        &self,
        _spawner: WorkerId,
        _parent: &TaskInfo,
        chunks: u32,
    ) -> Option<Arc<LoopPlan>> {
        cached(&self.plans, chunks, || {
            Some(StaticBlocks::blocks(self.workers, chunks))
        })
    }

    fn search(&self, _worker: WorkerId, plan: &mut Vec<Probe>) {
        search_plan(self.workers == 1, plan);
    }
}

/// `affinity`: follows a [`TaskSchedule`] (see the module documentation).
#[derive(Debug)]
pub struct Affinity {
    schedule: Arc<TaskSchedule>,
    workers: usize,
    plans: PlanCache<(TaskId, u32)>,
    /// Per spawning worker: tasks placed from the schedule, and tasks left to work
    /// stealing. Padded: every spawn counts.
    placed: Box<[CachePadded<AtomicU64>]>,
    unknown: Box<[CachePadded<AtomicU64>]>,
}

impl Affinity {
    /// Follows `schedule` on the workers of `map`. A task scheduled on a worker the pool
    /// does not have (a schedule made for more workers) counts as unknown.
    pub fn new(map: &WorkerMap, schedule: Arc<TaskSchedule>) -> Affinity {
        let n = map.num_workers();
        let counters = || {
            (0..n)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect()
        };
        Affinity {
            schedule,
            workers: n,
            plans: Mutex::default(),
            placed: counters(),
            unknown: counters(),
        }
    }

    fn slot(&self, task: TaskId) -> Option<Slot> {
        self.schedule.slot(task).filter(|s| s.worker < self.workers)
    }

    /// The lanes of a loop of `chunks` chunks opened by `parent`, or `None` if the
    /// schedule knows none of its chunks.
    fn lanes(&self, parent: TaskId, chunks: u32) -> Option<LoopPlan> {
        let mut lanes: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.workers];
        let mut rest = Vec::new();
        for i in 0..chunks {
            match self.slot(parent.child(FIRST_SCOPE_SPAWN + i)) {
                Some(s) => lanes[s.worker].push((s.order, i)),
                None => rest.push(i),
            }
        }
        if rest.len() == chunks as usize {
            return None;
        }
        let lanes = lanes
            .into_iter()
            .map(|mut lane| {
                lane.sort_unstable();
                lane.into_iter().map(|(_, i)| i).collect()
            })
            .collect();
        Some(LoopPlan { lanes, rest })
    }
}

fn count(counters: &[CachePadded<AtomicU64>], worker: WorkerId, n: u64) {
    // Only `worker` writes its counter: no read-modify-write needed.
    let c = &counters[worker];
    c.store(c.load(Ordering::Relaxed) + n, Ordering::Relaxed);
}

fn total(counters: &[CachePadded<AtomicU64>]) -> u64 {
    counters.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}

impl Policy for Affinity {
    fn name(&self) -> &'static str {
        "affinity"
    }

    fn layout(&self) -> Layout {
        layout(false)
    }

    fn place(&self, spawner: WorkerId, _parent: &TaskInfo, task: &TaskInfo) -> Place {
        match self.slot(task.id) {
            Some(s) => {
                count(&self.placed, spawner, 1);
                Place::Worker(s.worker)
            }
            None => {
                count(&self.unknown, spawner, 1);
                Place::Local
            }
        }
    }

    fn plan_loop(
        &self,
        spawner: WorkerId,
        parent: &TaskInfo,
        chunks: u32,
    ) -> Option<Arc<LoopPlan>> {
        let plan = cached(&self.plans, (parent.id, chunks), || {
            self.lanes(parent.id, chunks)
        });
        if let Some(plan) = &plan {
            // The rest is counted as it is placed.
            count(&self.placed, spawner, plan.planned() as u64);
        }
        plan
    }

    fn search(&self, _worker: WorkerId, plan: &mut Vec<Probe>) {
        search_plan(self.workers == 1, plan);
    }

    fn explain(&self) -> String {
        let (placed, unknown) = (total(&self.placed), total(&self.unknown));
        let mut s = format!(
            "affinity: a schedule of {} tasks for {} workers; {placed} tasks placed from it, \
             {unknown} not in it and left to work stealing",
            self.schedule.len(),
            self.schedule.workers()
        );
        if self.schedule.workers() != self.workers {
            s.push_str(&format!(
                "; the pool has {} workers, so tasks scheduled on the others were unknown",
                self.workers
            ));
        }
        s
    }

    fn stats(&self) -> Vec<(String, u64)> {
        vec![
            (SCHEDULE_PLACED.to_string(), total(&self.placed)),
            (SCHEDULE_UNKNOWN.to_string(), total(&self.unknown)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: TaskId, loop_chunks: u32) -> TaskInfo {
        TaskInfo {
            id,
            level: 1,
            loop_chunks,
        }
    }

    fn stat(p: &dyn Policy, name: &str) -> u64 {
        p.stats().into_iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn static_blocks_are_consecutive_and_cover_the_loop() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let p = StaticBlocks::new(&map);
        let root = info(TaskId(7), 0);
        for k in [1u32, 3, 4, 10, 1000] {
            let plan = p.plan_loop(0, &root, k).unwrap();
            assert!(plan.covers(k, 4), "k = {k}");
            assert!(plan.rest.is_empty());
            for (w, lane) in plan.lanes.iter().enumerate() {
                let expect: Vec<u32> = (0..k)
                    .filter(|&i| i as usize * 4 / k as usize == w)
                    .collect();
                assert_eq!(lane, &expect, "k = {k}, worker {w}");
            }
        }
        assert_eq!(
            p.plan_loop(3, &root, 10).unwrap().lanes[0],
            vec![0, 1, 2],
            "worker 0 gets chunks 0, 1 and 2 of 10"
        );
        assert!(p.layout().loop_plans && p.layout().always_local);
    }

    #[test]
    fn affinity_follows_the_schedule_in_its_order_and_counts_what_it_did_not_know() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let parent = TaskId(99);
        let chunk = |i: u32| parent.child(FIRST_SCOPE_SPAWN + i);
        // Chunks 0..6 of a loop of 8: 0, 1, 2 on worker 3 in the order 2, 0, 1; 3 on
        // worker 0; 4 and 5 on worker 1 in reverse; 6 and 7 unknown.
        let entries = [
            (chunk(0), 3, 1),
            (chunk(1), 3, 2),
            (chunk(2), 3, 0),
            (chunk(3), 0, 0),
            (chunk(4), 1, 9),
            (chunk(5), 1, 4),
            (TaskId(5), 2, 0),
        ];
        let schedule = Arc::new(TaskSchedule::new(4, entries).unwrap());
        let p = Affinity::new(&map, Arc::clone(&schedule));
        let plan = p.plan_loop(0, &info(parent, 0), 8).unwrap();
        assert!(plan.covers(8, 4));
        assert_eq!(plan.lanes, vec![vec![3], vec![5, 4], vec![], vec![2, 0, 1]]);
        assert_eq!(plan.rest, vec![6, 7]);
        assert_eq!(stat(&p, "schedule_placed"), 6);

        // The rest, and other spawns: the schedule's worker if known, else local.
        assert_eq!(
            p.place(1, &info(parent, 0), &info(TaskId(5), 0)),
            Place::Worker(2)
        );
        assert_eq!(
            p.place(1, &info(parent, 0), &info(chunk(6), 8)),
            Place::Local
        );
        assert_eq!(
            p.place(2, &info(parent, 0), &info(chunk(7), 8)),
            Place::Local
        );
        assert_eq!(stat(&p, "schedule_placed"), 7);
        assert_eq!(stat(&p, "schedule_unknown"), 2);
        assert!(
            p.explain().contains("7 tasks placed from it, 2 not in it"),
            "{}",
            p.explain()
        );

        // A loop it knows nothing of is spawned as usual.
        assert_eq!(p.plan_loop(0, &info(TaskId(1), 0), 8), None);

        // On fewer workers, tasks of the missing ones are unknown.
        let small = Affinity::new(&WorkerMap::from_squad_sizes(&[2]), schedule);
        let plan = small.plan_loop(0, &info(parent, 0), 8).unwrap();
        assert!(plan.covers(8, 2));
        assert_eq!(plan.rest, vec![0, 1, 2, 6, 7]);
        assert_eq!(
            small.place(0, &info(parent, 0), &info(TaskId(5), 0)),
            Place::Local
        );
        assert!(small.explain().contains("the pool has 2 workers"));
    }

    #[test]
    fn a_schedule_refuses_duplicates_and_missing_workers() {
        let e = TaskSchedule::new(2, [(TaskId(1), 0, 0), (TaskId(1), 1, 0)]).unwrap_err();
        assert_eq!(e, TaskScheduleError::Duplicate(TaskId(1)));
        let e = TaskSchedule::new(2, [(TaskId(1), 2, 0)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("worker 2, but the schedule has 2 workers"),
            "{e}"
        );
    }

    #[test]
    fn plans_that_miss_or_repeat_a_chunk_do_not_cover() {
        let plan = |lanes: Vec<Vec<u32>>, rest: Vec<u32>| LoopPlan { lanes, rest };
        assert!(plan(vec![vec![0, 2], vec![1]], vec![3]).covers(4, 2));
        assert!(
            !plan(vec![vec![0, 2], vec![1]], vec![]).covers(4, 2),
            "3 missing"
        );
        assert!(
            !plan(vec![vec![0, 2], vec![1, 2]], vec![3]).covers(4, 2),
            "2 twice"
        );
        assert!(
            !plan(vec![vec![0, 4], vec![1]], vec![2, 3]).covers(4, 2),
            "4 is no chunk"
        );
        assert!(
            !plan(vec![vec![0, 1, 2, 3]], vec![]).covers(4, 2),
            "one lane short"
        );
    }
}
