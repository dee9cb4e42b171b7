//! Scheduling policies for locus: decisions only, no threads.
//!
//! "One policy, two engines" (DESIGN.md): a [`Policy`] is told what happens (a task is
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
//! | name | paper | spawn goes to | an idle worker looks at |
//! | --- | --- | --- | --- |
//! | `ws` | Cilk-a (pinned), CATS/CAB baseline | own deque | own deque, then a random victim's deque |
//! | `ws-unpinned` | Cilk | own deque | as `ws`, workers not pinned |
//! | `central` | Qthreads CQ | the central LIFO | the central LIFO |
//! | `rr-fifo` | Qthreads Q | inboxes dealt round robin | own inbox, oldest first; no stealing |
//! | `rr-lifo` | Qthreads L | inboxes dealt round robin | own inbox, newest first; no stealing |
//! | `mts` | Qthreads MTS | own squad's shared LIFO | own squad's LIFO, then a bulk steal of a squad-sized chunk from a remote squad, one worker per squad at a time |

#![deny(missing_docs)]

mod decision;
mod policies;
mod task;
mod workers;

pub use decision::{Layout, Order, Place, Probe, Victims};
pub use policies::{Central, Mts, PolicyError, PolicyKind, RoundRobin, WorkStealing};
pub use task::{TaskId, TaskInfo};
pub use workers::{SquadId, WorkerId, WorkerMap};

/// A scheduling policy: decisions only (see the crate documentation).
pub trait Policy: Send + Sync + std::fmt::Debug {
    /// The policy's name as the CLI and reports spell it.
    fn name(&self) -> &'static str;

    /// The queues the engine must build and the calls the policy wants.
    fn layout(&self) -> Layout;

    /// Where a task spawned by `spawner` goes. Engines skip this call when
    /// [`Layout::always_local`] is set.
    fn place(&self, spawner: WorkerId, task: &TaskInfo) -> Place {
        let _ = (spawner, task);
        Place::Local
    }

    /// Fills `plan` (cleared by the caller) with the places `worker` looks for work, in
    /// order. Engines call it once per search, not per task, and always try the pool's
    /// injector (tasks submitted from outside) after the plan.
    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>);
}
