//! locus-sim: a deterministic discrete-event simulator of a multi-socket machine's
//! caches and memory that runs locus's own scheduling policies over task trees
//! recorded from the real kernels (docs/design.md, "One policy, two engines").
//!
//! The simulator is the runtime's sibling, not its user: it depends on the policies,
//! the topology and `locus-task`, never on the runtime or the kernels. It runs a
//! [`Workload`](locus_task::workload::Workload), plain data that the kernels' recorder
//! (`locus_kernels::record`) makes from a real kernel, or a test makes by hand.
//!
//! The pieces, in the order a simulation uses them:
//! - [`latency`]: the machine's costs in cycles, per preset, overridable from a file.
//! - [`cache`] and [`machine`]: set-associative LRU caches, private per core and
//!   shared per cache domain, with coherence and first-touch (or interleaved) NUMA
//!   memory.
//! - [`clock`]: when a missed line arrives: fill buffers per core, bandwidth per
//!   memory node and per link between packages, with queueing.
//! - [`calibration`]: what the runtime pays for a policy's own work, charged by the
//!   engine where a run asks for it.
//! - [`engine`]: simulated workers carrying out a policy's decisions
//!   ([`engine::simulate`]).
//! - [`trace`] and [`plot`]: a Perfetto timeline of a run, SVG plots of sweeps.
//!
//! ```
//! use locus_policy::{PolicyKind, TaskId, TaskInfo};
//! use locus_task::workload::{Step, Workload};
//! use locus_topo::Topology;
//!
//! // A root that joins two leaves, each writing its own page.
//! let task = |id, level| TaskInfo { id: TaskId(id), level, loop_chunks: 0 };
//! let leaf = |addr| vec![Step::Write { addr, len: 4096 }, Step::Work(1000)];
//! let workload = Workload::from_parts(
//!     "two leaves",
//!     vec![
//!         (task(1, 0), None, vec![Step::Join(1, 2)]),
//!         (task(2, 1), Some(0), leaf(0)),
//!         (task(3, 1), Some(0), leaf(4096)),
//!     ],
//!     vec![0],
//! )
//! .unwrap();
//! let machine = Topology::preset("opteron-8380").unwrap();
//! let config = locus_sim::engine::SimConfig::for_machine(&machine);
//! let ws = locus_sim::engine::simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
//! assert!(ws.makespan > 0);
//! ```

#![deny(missing_docs)]

pub mod cache;
pub mod calibration;
pub mod clock;
pub mod engine;
pub mod latency;
pub mod machine;
pub mod plot;
pub mod trace;
