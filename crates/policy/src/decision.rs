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
    /// The shared LIFO queue of the given squad.
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
    /// Pop the newest task of a squad's shared queue.
    SquadQueue(SquadId),
    /// Take up to `batch` of the oldest tasks of one remote squad's queue into the
    /// worker's own squad queue, trying squads nearest first
    /// ([`crate::WorkerMap::remote_squads`]: group by group, a random start in each). At most one worker of a squad does this at a time; the
    /// others go on looking in their squad queue, where the stolen work will appear.
    BulkSteal {
        /// The most tasks moved by one steal.
        batch: usize,
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
    /// Every other worker, nearest first: the thief's own squad from a random start,
    /// then the other squads as [`Victims::Remote`] tries them (`ws:near`).
    Nearest,
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
    /// One shared LIFO queue per squad.
    pub squad_queues: bool,
    /// One central LIFO queue.
    pub central: bool,
    /// [`crate::Policy::place`] always answers [`Place::Local`]: the engine may push
    /// without asking (the hot path stays free of policy calls).
    pub always_local: bool,
    /// Whether workers are pinned to their PUs by default under this policy.
    pub pinned: bool,
    /// One inter-squad pool per squad (bi-tier policies).
    pub inter_pools: bool,
    /// The engine reports every task's start and finish ([`crate::Policy::task_started`],
    /// [`crate::Policy::task_finished`]), with its cost where the policy asks for it.
    pub task_events: bool,
    /// The engine asks [`crate::Policy::plan_loop`] at every parallel loop and runs the
    /// lanes of the plan it gets (static schedules). Needs an [`Layout::inbox`]: a lane
    /// waits in its worker's inbox.
    pub loop_plans: bool,
}

impl Layout {
    /// Per-worker deques only, every spawn local: plain work stealing.
    pub const fn deques() -> Layout {
        Layout {
            inbox: None,
            squad_queues: false,
            central: false,
            always_local: true,
            pinned: true,
            inter_pools: false,
            task_events: false,
            loop_plans: false,
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
