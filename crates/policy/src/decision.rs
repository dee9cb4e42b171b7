//! The vocabulary of decisions a policy gives an engine.
//!
//! A policy never touches a queue. It says where a new task goes ([`Place`]), what
//! queues the engine must build ([`Layout`]), and in which order an idle worker looks
//! for work ([`Probe`]). The runtime carries these out with concurrent queues and
//! threads, the simulator with simulated queues in simulated time.

use crate::workers::{SquadId, WorkerId};

/// Where a newly spawned task goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The spawning worker's own deque, newest end (work stealing's hot path).
    Local,
    /// The inbox of the given worker (round-robin dealing).
    Worker(WorkerId),
    /// The shared queue of the given squad (popped as the policy's probes say).
    Squad(SquadId),
    /// The one central LIFO queue.
    Central,
    /// The inter-squad pool of the given squad (bi-tier policies): inter-squad tasks
    /// wait there for the squad's head, or for the head of another squad to steal them.
    /// Engines never take a task back from here at a `join`; such tasks start only
    /// through [`Probe::InterPool`] and [`Probe::RemoteInterPools`], so the policy's
    /// plans alone decide who may start them.
    InterPool(SquadId),
}

/// One step of an idle worker's search for work, tried in the order the policy lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Pop the newest task of the worker's own deque.
    OwnDeque,
    /// Pop the worker's own inbox (which end is given by [`Layout::inbox`]).
    OwnInbox,
    /// Steal the oldest task from the deque of one other worker, trying victims from a
    /// random start until one succeeds (nearest first where [`Victims`] says so).
    Steal(Victims),
    /// Pop the newest task of a squad's shared queue (Qthreads MTS).
    SquadQueue(SquadId),
    /// Pop a squad's shared queue at the end [`pick_shallow`] chooses: a worker waiting
    /// inside a task takes the newest task it queued itself, if one is still there
    /// (depth-first, as from an own deque); otherwise the oldest task when it is
    /// shallower in the task tree than the newest (a larger subtree, as a thief takes
    /// from a deque), else the newest (siblings of one depth, such as a loop's chunks,
    /// newest first as MTS takes them).
    SquadQueueShallow(SquadId),
    /// Take up to `batch` of the oldest tasks of one remote squad's queue into the
    /// worker's own squad queue, trying squads nearest first where `nearest`
    /// ([`crate::WorkerMap::remote_squads`]: group by group, a random start in each),
    /// else all of them from one random start ([`crate::WorkerMap::squad_search`]).
    /// At most one worker of a squad does this at a time; the others go on looking in
    /// their squad queue, where the stolen work will appear.
    BulkSteal {
        /// The most tasks moved by one steal.
        batch: usize,
        /// Nearest squads first.
        nearest: bool,
    },
    /// Pop the newest task of the central queue.
    Central,
    /// Pop the newest task of the given squad's inter-squad pool (its head only).
    InterPool(SquadId),
    /// Steal the oldest task of the inter-squad pool of another squad, trying squads
    /// nearest first, as [`Probe::BulkSteal`] does (a head on behalf of its squad).
    RemoteInterPools,
}

/// Where a worker found the task it is starting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Run inline at a `join` (the first half, or the second taken back).
    Inline,
    /// Taken from a queue of the worker's own squad (its deque, a peer's, an inbox, the
    /// squad queue, the squad's inter-squad pool, the central queue, the injector).
    OwnSquad,
    /// Stolen from another squad (a remote deque, queue or inter-squad pool).
    OtherSquad,
}

/// Which deques a [`Probe::Steal`] may take from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Victims {
    /// Every other worker of the pool (flat work stealing).
    All,
    /// The other workers of the thief's squad.
    Squad,
    /// The workers of other squads, nearest first: the groups of
    /// [`crate::WorkerMap::remote_workers`] in order, from a random start in each.
    Remote,
    /// Every other worker, the own package first: the workers of the thief's package
    /// ([`crate::WorkerMap::package_workers`], its own squad's among them) from one
    /// random start, unless every other worker of the package is idle (the engines'
    /// per-package idle counts), then the other packages' workers as
    /// [`Victims::Remote`] tries them. Keeps a tree's pieces in their package without
    /// splitting them inside a squad first, which costs fine-grained trees their speed
    /// (`ws:near`, and the N-tier profile of `cats` and `cab`).
    Package,
}

/// How far from the newest end [`pick_shallow`] looks for the searching worker's own
/// tasks: as many entries as the squad has workers, times this (a guess: beyond it, the
/// worker's own tasks are older than most of its squad's and the search goes on as an
/// idle worker's would, so that the scan under the queue's lock stays short).
pub const OWN_TASK_SCAN_PER_WORKER: usize = 4;

/// The `scan` both engines pass to [`pick_shallow`] for a squad of `squad_size` workers:
/// its size times [`OWN_TASK_SCAN_PER_WORKER`].
pub fn own_task_scan(squad_size: usize) -> usize {
    squad_size.saturating_mul(OWN_TASK_SCAN_PER_WORKER)
}

/// Which entry of a squad's shared queue (`queue`, oldest first) a
/// [`Probe::SquadQueueShallow`] takes, or `None` for an empty queue. `waiting`: the
/// searching worker waits inside a task (at a join, a scope's end, a taskwait), and
/// `own(e)` says whether it queued entry `e` itself; `level(e)` is the entry's depth in
/// its task tree; `scan` is how many of the newest entries to look through for an own
/// task ([`own_task_scan`] of the squad's size).
///
/// Why: MTS's workers all pop the newest task, so an idle worker takes the smallest,
/// the last one spawned, and fine-grained trees are split into pieces that cost more to
/// share than to run (fib 30 without cutoff took 1.67x ws's simulated time on
/// xeon-x7550). A thief in work stealing takes the oldest task, the largest. Taking the
/// oldest from a queue that others spawn into would, for a waiting worker, run the
/// squad's tasks breadth first, each on top of the waiting one: the stack would grow
/// with the number of tasks queued (a program that spawns two tasks and waits, as
/// OpenMP's fib does, on a squad of one worker). So a waiting worker takes its own
/// newest first, as a worker with a deque pops its own end first.
pub fn pick_shallow<E>(
    queue: &std::collections::VecDeque<E>,
    waiting: bool,
    scan: usize,
    own: impl Fn(&E) -> bool,
    level: impl Fn(&E) -> u32,
) -> Option<usize> {
    let newest = queue.len().checked_sub(1)?;
    if waiting {
        let start = queue.len().saturating_sub(scan.max(1));
        if let Some(i) = queue.range(start..).rposition(&own) {
            return Some(start + i);
        }
    }
    if level(&queue[0]) < level(&queue[newest]) {
        Some(0)
    } else {
        Some(newest)
    }
}

/// Which end of a per-worker inbox the owner pops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Oldest first (Qthreads `Q`).
    Fifo,
    /// Newest first (Qthreads `L`).
    Lifo,
}

/// The queues a policy needs the engine to build, and which engine calls it wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Per-worker inboxes that any worker may push into, popped by their owner.
    pub inbox: Option<Order>,
    /// One shared queue per squad.
    pub squad_queues: bool,
    /// One central LIFO queue.
    pub central: bool,
    /// [`crate::Policy::place`] always answers [`Place::Local`]: the engine may push
    /// without asking (the hot path stays free of policy calls).
    pub always_local: bool,
    /// [`crate::Policy::place`] answers [`Place::Local`] for every chunk of a parallel
    /// loop, whatever it answers for other tasks (`ws:near`, which deals only the halves
    /// of joins): the engine may split loops as a tree without asking about their
    /// chunks, as under [`Layout::always_local`].
    pub loops_local: bool,
    /// [`crate::Policy::place`] answers [`Place::Local`] for every task at this level of
    /// its tree or deeper (`ws:near`, which deals only the top of trees): the engine may
    /// push those without asking, as under [`Layout::always_local`].
    pub local_from_level: Option<u32>,
    /// Whether workers are pinned to their PUs by default under this policy.
    pub pinned: bool,
    /// One inter-squad pool per squad (bi-tier policies).
    pub inter_pools: bool,
    /// The engine reports every task's start and finish ([`crate::Policy::task_started`],
    /// [`crate::Policy::task_finished`]), with its cost where the policy asks for it.
    pub task_events: bool,
    /// Without [`Layout::task_events`] (or, with them, in the runtime once the policy no
    /// longer wants them, [`crate::Policy::wants_task_events`]): the engines report the
    /// start of every task a worker's search finds in a queue
    /// ([`crate::Policy::task_started`], never with [`Source::Inline`]), and nothing else: not the halves a joiner runs itself, nor
    /// the tasks a join pops from its own deque ([`Place::Local`]), no finishes, no
    /// costs (`mts`, which places every task in a shared queue and notes where the
    /// tasks of a repeating tree run). Cheaper than task events: the runtime's joins
    /// keep their fast path.
    pub queued_starts: bool,
    /// The engine asks [`crate::Policy::plan_loop`] at every parallel loop and runs the
    /// lanes of the plan it gets (static schedules). Needs an [`Layout::inbox`]: a lane
    /// waits in its worker's inbox.
    pub loop_plans: bool,
    /// The engine may spawn a long flat loop in blocks of consecutive chunks, each placed
    /// as its first chunk, rather than place every chunk by itself
    /// ([`crate::loop_blocks`]; loops beyond [`crate::FLAT_LIMIT`] chunks are spawned in
    /// blocks whatever this says). False for the paper-faithful bi-tier forms: a
    /// block's later chunks start while its first is still running, which their
    /// published busy state would count as a second leaf subtree in the squad.
    pub loop_blocks: bool,
}

impl Layout {
    /// Per-worker deques only, every spawn local: plain work stealing.
    pub const fn deques() -> Layout {
        Layout {
            inbox: None,
            squad_queues: false,
            central: false,
            always_local: true,
            loops_local: false,
            local_from_level: None,
            pinned: true,
            inter_pools: false,
            task_events: false,
            queued_starts: false,
            loop_plans: false,
            loop_blocks: true,
        }
    }
}

/// How a policy deals the chunks of one parallel loop itself, as a static schedule does
/// ([`crate::Policy::plan_loop`]): each worker gets a lane, the chunks it runs one after
/// the other in the lane's order (as an OpenMP thread runs its share of a
/// `schedule(static)` loop, or the affinity paper's threads run their `mytasks` list),
/// and the chunks no lane holds are spawned and placed one by one as usual.
///
/// A lane waits in its worker's inbox, and only that worker runs it: nothing is stolen
/// from a lane. Every chunk of the loop is in exactly one lane or in `rest`
/// ([`LoopPlan::covers`]); the engines check this and refuse a plan that does not.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoopPlan {
    /// `lanes[w]`: the indices of the chunks worker `w` runs, in the order it runs them
    /// (empty for a worker without any; as many lanes as workers).
    pub lanes: Vec<Vec<u32>>,
    /// The chunks no lane holds, spawned and placed as [`crate::Policy::place`] says.
    pub rest: Vec<u32>,
}

impl LoopPlan {
    /// Whether the plan holds each of the `chunks` chunks exactly once, in lanes for
    /// `workers` workers.
    pub fn covers(&self, chunks: u32, workers: usize) -> bool {
        if self.lanes.len() != workers {
            return false;
        }
        let mut seen = vec![false; chunks as usize];
        let all = self.lanes.iter().flatten().chain(&self.rest);
        for &i in all {
            match seen.get_mut(i as usize) {
                Some(s) if !*s => *s = true,
                _ => return false,
            }
        }
        seen.into_iter().all(|s| s)
    }

    /// Panics unless the plan [`covers`](LoopPlan::covers) a loop of `chunks` chunks
    /// for `workers` workers: a plan that misses or repeats a chunk would lose or repeat
    /// a task, so the engines refuse to carry it out. `policy` names the culprit.
    pub fn assert_covers(&self, chunks: u32, workers: usize, policy: &str) {
        assert!(
            self.covers(chunks, workers),
            "{policy}: a loop plan must hold each of the loop's {chunks} chunks once"
        );
    }

    /// Chunks in lanes.
    pub fn planned(&self) -> usize {
        self.lanes.iter().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::pick_shallow;
    use std::collections::VecDeque;

    /// Entries are (worker that queued it, level).
    fn pick(queue: &[(usize, u32)], waiting: bool, me: usize, scan: usize) -> Option<usize> {
        let queue: VecDeque<(usize, u32)> = queue.iter().copied().collect();
        pick_shallow(&queue, waiting, scan, |e| e.0 == me, |e| e.1)
    }

    #[test]
    fn an_empty_queue_gives_nothing() {
        assert_eq!(pick(&[], false, 0, 8), None);
        assert_eq!(pick(&[], true, 0, 8), None);
    }

    #[test]
    fn an_idle_worker_takes_the_oldest_when_it_is_shallower() {
        // A recursive tree: the oldest entry is the largest subtree left.
        assert_eq!(pick(&[(1, 2), (1, 5), (2, 7)], false, 0, 8), Some(0));
        // Whose they are does not matter to an idle worker.
        assert_eq!(pick(&[(0, 2), (0, 5), (0, 7)], false, 0, 8), Some(0));
    }

    #[test]
    fn siblings_of_one_depth_go_newest_first() {
        // A loop's chunks: one level, so MTS's newest first.
        assert_eq!(pick(&[(1, 3), (1, 3), (1, 3)], false, 0, 8), Some(2));
        // An older entry deeper than the newest: still the newest.
        assert_eq!(pick(&[(1, 6), (1, 3)], false, 0, 8), Some(1));
        assert_eq!(pick(&[(1, 4)], false, 0, 8), Some(0));
    }

    #[test]
    fn a_waiting_worker_takes_its_own_newest_first() {
        let q = [(0, 2), (1, 3), (0, 5), (2, 6), (1, 6)];
        assert_eq!(pick(&q, true, 0, 8), Some(2));
        assert_eq!(pick(&q, true, 2, 8), Some(3));
        // Nothing of its own: as an idle worker.
        assert_eq!(pick(&q, true, 3, 8), Some(0));
        // Not waiting: its own entries are not preferred.
        assert_eq!(pick(&q, false, 2, 8), Some(0));
    }

    #[test]
    fn the_own_task_scan_stops_at_its_bound() {
        let q = [(0, 1), (1, 4), (1, 4), (1, 4)];
        // Worker 0's only entry is the fourth from the newest end.
        assert_eq!(pick(&q, true, 0, 4), Some(0));
        assert_eq!(
            pick(&q, true, 0, 3),
            Some(0),
            "found as the shallow end instead"
        );
        let q = [(1, 1), (0, 4), (1, 4), (1, 4)];
        assert_eq!(pick(&q, true, 0, 3), Some(1));
        assert_eq!(
            pick(&q, true, 0, 2),
            Some(0),
            "beyond the scan: the shallow end"
        );
        // A zero bound still looks at the newest entry.
        assert_eq!(pick(&[(1, 1), (0, 4)], true, 0, 0), Some(1));
    }
}
