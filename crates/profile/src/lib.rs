//! locus-profile: feedback-directed affinity scheduling (docs/design.md, "profile"), after
//! Song, Moore and Dongarra, "Feedback-Directed Thread Scheduling with Memory
//! Considerations" (HPDC'07, `papers/affinity-graph-feedback-scheduling.txt`).
//!
//! A profile run records which cache lines each task touches; tasks that share lines
//! are linked in an affinity graph; a hierarchical partition of that graph (top-level
//! memory domains, then cache domains, then cores) assigns the tasks to workers, each
//! worker's tasks ordered by a breadth-first walk of its part; the result is a schedule
//! file that later runs follow. The pieces, in the order a profile run uses them:
//!
//! - [`machine`]: [`MachineDesc`], the workers and squads a profile is made for.
//! - [`profile`]: [`Profile`], per leaf task the sorted, range-compressed runs of
//!   64-byte lines it touches and its work, built from a recorded
//!   [`locus_task::workload::Workload`] (the kernels' recorder makes one from a kernel;
//!   this crate knows nothing of the kernels, the runtime or the simulator).
//! - [`graph`]: [`AffinityGraph`], the paper's inverted-index construction with
//!   DenseRatio, in CSR form, with Graphviz DOT and METIS graph-file writers.
//! - [`partition`]: [`Partition`], the hierarchical METIS partition and the
//!   breadth-first order inside each worker.
//! - [`schedule`]: [`Schedule`], the checksummed schedule file, and
//!   [`schedule::load`], which refuses every file it cannot trust.
//! - [`synthetic`]: generated profiles and graphs for tests and benchmarks.
//!
//! ```
//! use locus_policy::{TaskId, TaskInfo};
//! use locus_profile::{
//!     AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile, Schedule,
//! };
//! use locus_task::workload::{Step, Workload};
//! use locus_topo::Topology;
//!
//! // A loop of 8 chunks over 4 KiB rows, as a stencil: chunk i writes row i and reads
//! // its neighbours, so neighbouring chunks share lines.
//! let root = TaskInfo { id: TaskId(7), level: 0, loop_chunks: 0 };
//! let row = 4096;
//! let mut tasks = vec![(root, None, (1..=8).map(Step::Spawn).chain([Step::Sync]).collect())];
//! for i in 0..8u64 {
//!     let chunk = TaskInfo { id: root.id.child(2 + i as u32), level: 1, loop_chunks: 8 };
//!     let lo = i.saturating_sub(1) * row;
//!     let read = Step::Read { addr: lo, len: (i + 2).min(8) * row - lo };
//!     let write = Step::Write { addr: i * row, len: row };
//!     tasks.push((chunk, Some(0), vec![read, write, Step::Work(10_000)]));
//! }
//! let workload = Workload::from_parts("stencil", tasks, vec![0]).unwrap();
//! let topology = Topology::preset("altix-2x2").unwrap();
//! let machine = MachineDesc::new(&topology, 4).unwrap();
//! let input = locus_profile::input_identity("stencil", "8 rows", &[]).unwrap();
//! let profile = Profile::from_workload(&workload, machine.clone(), &input, 4096).unwrap();
//! let graph = AffinityGraph::build(&profile, &GraphOptions::default()).unwrap();
//! let partition = Partition::compute(&graph, &machine, &PartitionOptions::default()).unwrap();
//! let schedule = Schedule::new(&machine, &input, &graph, &partition).unwrap();
//! let text = schedule.to_json();
//! let again = Schedule::parse(&text, "in memory", &machine, &input).unwrap();
//! assert_eq!(again.placements().count(), graph.num_vertices());
//! ```

#![deny(missing_docs)]

mod error;
pub mod graph;
mod hash;
pub mod machine;
pub mod partition;
pub mod profile;
pub mod schedule;
pub mod synthetic;

pub use error::ProfileError;
pub use graph::{AffinityGraph, GraphOptions, GraphStats};
pub use hash::input_identity;
pub use machine::{DomainLevel, MachineDesc, SquadDesc};
pub use partition::{Partition, PartitionOptions, PartitionStats};
pub use profile::{LineRun, Profile, ProfileBuilder, ProfileSummary, TaskProfile};
pub use schedule::{Placement, Schedule, ScheduleError, ScheduleSummary};

/// Bytes per cache line: the unit profiles, graph weights and schedules count in.
pub const LINE_SIZE: u64 = 64;
