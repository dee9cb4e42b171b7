//! locus-sim: a deterministic discrete-event simulator of a multi-socket machine's
//! caches and memory that runs locus's own scheduling policies over task trees
//! recorded from the real kernels (DESIGN.md, "One policy, two engines").
//!
//! The pieces, in the order a simulation uses them:
//! - [`record`]: run a kernel once under a recording executor and keep its task tree,
//!   with each task's declared accesses and work ([`record::Workload`]).
//! - [`latency`]: the machine's costs in cycles, per preset, overridable from a file.
//! - [`cache`] and [`machine`]: set-associative LRU caches, private per core and
//!   shared per cache domain, with coherence and first-touch NUMA memory.
//! - [`engine`]: simulated workers carrying out a policy's decisions
//!   ([`engine::simulate`]).
//! - [`trace`] and [`plot`]: a Perfetto timeline of a run, SVG plots of sweeps.
//!
//! ```
//! use locus_kernels::Kernel;
//! use locus_policy::PolicyKind;
//! use locus_topo::Topology;
//!
//! let params = Kernel::Heat.parse_size("130x64,leaf=8,iters=2").unwrap();
//! let workload = locus_sim::record::record(&params).unwrap();
//! let machine = Topology::preset("opteron-8380").unwrap();
//! let config = locus_sim::engine::SimConfig::for_machine(&machine);
//! let ws = locus_sim::engine::simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
//! assert!(ws.makespan > 0);
//! ```

#![deny(missing_docs)]

pub mod cache;
pub mod engine;
pub mod latency;
pub mod machine;
pub mod plot;
pub mod record;
pub mod trace;
