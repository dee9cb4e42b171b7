//! [`Logged`]: a decorator around any [`Policy`] that writes down every call an engine
//! makes to it, with the arguments and the decision returned.
//!
//! The decision contract ("one policy, two engines", docs/design.md) says the runtime and the
//! simulator ask the same questions at the same points of a program; a log of each
//! engine's calls makes that testable (`crates/engines/tests/suite/conformance.rs`). The log
//! is a `Mutex<Vec<_>>`: a test seam, not for measured runs (every call takes the lock).
//! Calls from several workers at once are logged in the order they take the lock.

use std::sync::{Arc, Mutex};

use crate::{Layout, LoopPlan, Place, Policy, Probe, Source, TaskCost, TaskInfo, WorkerId};

/// One call to a policy, with its arguments and what the policy answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyCall {
    /// [`Policy::layout`].
    Layout(Layout),
    /// [`Policy::place`].
    Place {
        /// The spawning worker.
        spawner: WorkerId,
        /// The spawning task.
        parent: TaskInfo,
        /// The spawned task.
        task: TaskInfo,
        /// The decision.
        place: Place,
    },
    /// [`Policy::parent_first`].
    ParentFirst {
        /// The joining worker.
        spawner: WorkerId,
        /// The joining task.
        parent: TaskInfo,
        /// The join's first half.
        task: TaskInfo,
        /// The decision.
        parent_first: bool,
    },
    /// [`Policy::plan_loop`].
    PlanLoop {
        /// The worker opening the loop.
        spawner: WorkerId,
        /// The task opening the loop.
        parent: TaskInfo,
        /// The loop's chunks.
        chunks: u32,
        /// The plan, if any.
        plan: Option<LoopPlan>,
    },
    /// [`Policy::search`].
    Search {
        /// The searching worker.
        worker: WorkerId,
        /// The plan the policy filled.
        plan: Vec<Probe>,
    },
    /// [`Policy::wants_cost`].
    WantsCost(bool),
    /// [`Policy::task_started`].
    TaskStarted {
        /// The worker.
        worker: WorkerId,
        /// The task.
        task: TaskInfo,
        /// Where the worker found it.
        source: Source,
    },
    /// [`Policy::task_finished`].
    TaskFinished {
        /// The worker.
        worker: WorkerId,
        /// The task.
        task: TaskInfo,
        /// The task's own cost, if the engine measured it.
        cost: Option<TaskCost>,
    },
}

/// A policy that forwards every call to `inner` and logs it ([`PolicyCall`]).
/// [`Policy::name`], [`Policy::explain`] and [`Policy::stats`] are forwarded unlogged:
/// they report, they decide nothing.
#[derive(Debug)]
pub struct Logged {
    inner: Arc<dyn Policy>,
    calls: Mutex<Vec<PolicyCall>>,
}

impl Logged {
    /// Wraps `inner`, with an empty log.
    pub fn new(inner: Arc<dyn Policy>) -> Logged {
        Logged {
            inner,
            calls: Mutex::new(Vec::new()),
        }
    }

    /// The calls so far, in order, leaving the log empty.
    pub fn take_calls(&self) -> Vec<PolicyCall> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PolicyCall>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn log(&self, call: PolicyCall) {
        self.lock().push(call);
    }
}

impl Policy for Logged {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn layout(&self) -> Layout {
        let layout = self.inner.layout();
        self.log(PolicyCall::Layout(layout));
        layout
    }

    fn place(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        let place = self.inner.place(spawner, parent, task);
        self.log(PolicyCall::Place {
            spawner,
            parent: *parent,
            task: *task,
            place,
        });
        place
    }

    fn parent_first(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> bool {
        let parent_first = self.inner.parent_first(spawner, parent, task);
        self.log(PolicyCall::ParentFirst {
            spawner,
            parent: *parent,
            task: *task,
            parent_first,
        });
        parent_first
    }

    fn plan_loop(
        &self,
        spawner: WorkerId,
        parent: &TaskInfo,
        chunks: u32,
    ) -> Option<Arc<LoopPlan>> {
        let plan = self.inner.plan_loop(spawner, parent, chunks);
        self.log(PolicyCall::PlanLoop {
            spawner,
            parent: *parent,
            chunks,
            plan: plan.as_deref().cloned(),
        });
        plan
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        self.inner.search(worker, plan);
        self.log(PolicyCall::Search {
            worker,
            plan: plan.clone(),
        });
    }

    fn wants_cost(&self) -> bool {
        let wants = self.inner.wants_cost();
        self.log(PolicyCall::WantsCost(wants));
        wants
    }

    fn task_started(&self, worker: WorkerId, task: &TaskInfo, source: Source) {
        self.inner.task_started(worker, task, source);
        self.log(PolicyCall::TaskStarted {
            worker,
            task: *task,
            source,
        });
    }

    fn task_finished(&self, worker: WorkerId, task: &TaskInfo, cost: Option<&TaskCost>) {
        self.inner.task_finished(worker, task, cost);
        self.log(PolicyCall::TaskFinished {
            worker,
            task: *task,
            cost: cost.copied(),
        });
    }

    fn explain(&self) -> String {
        self.inner.explain()
    }

    fn stats(&self) -> Vec<(String, u64)> {
        self.inner.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PolicyKind, WorkerMap};
    use locus_topo::Topology;

    #[test]
    fn every_deciding_call_is_logged_with_its_answer() {
        let topology = Topology::parse_spec("2x2").unwrap();
        let map = WorkerMap::new(&topology, 4);
        let inner = PolicyKind::Ws.build(&map);
        let logged = Logged::new(Arc::clone(&inner));
        let task = |id, level| TaskInfo {
            id: crate::TaskId(id),
            level,
            loop_chunks: 0,
        };
        let layout = logged.layout();
        let place = logged.place(1, &task(1, 0), &task(2, 1));
        let mut plan = Vec::new();
        logged.search(3, &mut plan);
        logged.task_started(3, &task(2, 1), Source::OwnSquad);
        assert_eq!(logged.name(), inner.name());
        assert_eq!(
            logged.take_calls(),
            vec![
                PolicyCall::Layout(layout),
                PolicyCall::Place {
                    spawner: 1,
                    parent: task(1, 0),
                    task: task(2, 1),
                    place,
                },
                PolicyCall::Search { worker: 3, plan },
                PolicyCall::TaskStarted {
                    worker: 3,
                    task: task(2, 1),
                    source: Source::OwnSquad,
                },
            ]
        );
        assert!(logged.take_calls().is_empty(), "taking empties the log");
    }
}
