//! What locus's two engines share about tasks, with no threads and no policy in it.
//!
//! - [`TaskId`] and [`TaskInfo`]: a task's identity (its spawn path hashed to 64 bits)
//!   and its level; [`Spawner`]: the one implementation of spawn numbering, which the
//!   runtime's `join`, `scope` and `for_range` and the kernels' recorder all use, so a
//!   task has the same id whichever engine runs it.
//! - [`footprint`]: declarations of the memory a task reads and writes and the work it
//!   does, and the sinks that listen to them (the `declared` counter source, the
//!   recorder, the affinity-graph profiler).
//! - [`workload`]: a recorded task tree as plain data (tasks, their steps, compacted
//!   addresses), which the simulator runs and the profiler reads; the kernels' recorder
//!   makes it.
//! - [`rng`]: the seeded generators the workspace uses, one copy each.
//!
//! # Layering
//! Dependencies point down; the two engines are siblings.
//! ```text
//! cli      -> every crate below
//! kernels  -> runtime, task        (the executors, the recorder among them)
//! runtime  -> policy, task, topo   (engine 1: threads)
//! sim      -> policy, task, topo   (engine 2: simulated time)
//! profile  -> policy, task, topo
//! mapper   -> topo
//! policy   -> task, topo           (decisions only)
//! task, topo, files                (nothing of locus)
//! ```
//! `locus-task` sits at the bottom beside `locus-topo`. `locus-policy` re-exports its
//! ids (a policy is told about tasks), and the runtime re-exports [`footprint`] as
//! `locus::footprint`, where kernels and users find it. The kernels crate holds the
//! recorder (an executor, beside the other executors) that turns a kernel into a
//! [`workload::Workload`]; the simulator and the profiler take that data and know
//! nothing of the runtime or the kernels. Whoever wants a kernel simulated (the CLI, the
//! engines' tests in `crates/engines`) records it and hands the workload over.

#![deny(missing_docs)]

// Under `--cfg loom` (this crate's own tests) only the listener's hand-off of
// `footprint` is built, for its models: the rest stands on a `static` that loom's
// primitives cannot make (`sync.rs`).
#[cfg(not(all(loom, test)))]
pub mod footprint;
mod id;
#[cfg(all(loom, test))]
#[path = "footprint/listener.rs"]
mod listener;
pub mod rng;
mod spawn;
mod sync;
#[cfg(all(loom, test))]
mod tests;
pub mod workload;

pub use id::{Fork, TaskCost, TaskId, TaskInfo, FIRST_SCOPE_SPAWN, MAX_SPAWN_INDEX};
pub use spawn::{JoinSite, Spawner};
