//! locus's libgomp: a shared library that takes the place of GCC's `libgomp.so.1`, so a
//! program built with `gcc -fopenmp` runs its OpenMP tasks on locus's schedulers with
//! no change and no recompilation (`locus run -- PROGRAM`, or `LD_LIBRARY_PATH` to a
//! folder where this library is named `libgomp.so.1`).
//!
//! # How OpenMP maps onto locus
//! - **Team = the meeting thread and a crew** (`team.rs`, `member.rs`, `crew.rs`). A parallel
//!   region of `n` threads runs on the thread that meets it, as thread 0 (so its
//!   `threadprivate` data and `copyin` are its own), and on a crew: a locus pool of
//!   `n - 1` workers (with the `LOCUS_*` policy and topology) that the team leases
//!   whole while the region runs, so barriers and `single` work, and the team's tasks
//!   run only on its members. Crews are reused across regions and retired as team sizes
//!   change, so the threads kept stay bounded by the largest team; regions met by
//!   different threads at once run at once on different crews; nested regions get
//!   crews of their own up to max-active-levels. `GOMP_parallel_start` (GCC before 4.9)
//!   opens a real team too, whose thread 0 is its caller.
//! - **Tasks = raw locus tasks** (`task.rs`). `GOMP_task` copies the task's data into a
//!   record it allocates (`arg_size` bytes at `arg_align`, or through `cpyfn`), names it
//!   (the outlined function's address and the spawn path) and publishes it with
//!   [`locus::raw::spawn`], where the policy places it. Each record counts its
//!   incomplete children and its live references; `taskwait`, `taskgroup` and barriers
//!   wait on those counts with [`locus::raw::wait_until`], running the team's other
//!   tasks meanwhile.
//! - **Taskloops** (`taskloop.rs`) split the loop as GCC's libgomp does and make each
//!   part an explicit task, its bounds written into its copy of the data.
//! - **Task reductions** (`reduction.rs`): GCC's reduction blocks get one private copy
//!   per team member, found through the running task's innermost taskgroup.
//! - **Worksharing loops** (`loops.rs`) are dealt from a record shared by the team's
//!   members, keyed by how many worksharing constructs each member has met.
//! - **Locks** (`lock.rs`): `critical`, `atomic` and the `omp_*_lock` family are futex
//!   mutexes in the program's own lock words.
//! - **Host teams** (`teams.rs`) run one team after another on the encountering thread,
//!   as libgomp runs them; **memory allocators** (`alloc.rs`) serve host memory with
//!   the traits' alignment, pool size and fallback; **target regions** (`target.rs`)
//!   run on the host, as OpenMP's host fallback, there being no offload device.
//!
//! # Safety at the boundary
//! Every entry point is `extern "C"`, so a Rust panic cannot unwind into C: the entry
//! points catch it, print it, naming themselves, and abort (`guard.rs`), but for the
//! hottest two (`GOMP_task`, `GOMP_taskwait`, a task's fixed cost), which leave it to
//! the boundary itself: a panic reaching an `extern "C"` function's end aborts the
//! process after the panic's message. Bad settings (`OMP_*`, `LOCUS_*`)
//! are reported by name and the program exits with status 2 (`env.rs`).

#![deny(missing_docs)]
// The entry points' tables (`abi.rs`) are built by a recursive macro, one level per
// entry point.
#![recursion_limit = "512"]

pub mod abi;
mod affinity;
mod affinity_format;
mod alloc;
mod allocator;
mod blocks;
mod cpus;
mod crew;
mod env;
mod footprint;
mod guard;
mod lock;
mod loops;
mod member;
mod node;
mod reduction;
mod schedule;
mod stats;
mod sync;
mod target;
mod task;
mod taskloop;
mod team;
mod teams;
mod wait;
mod workshare;

/// A task record fits a pooled block with room for data (see `blocks.rs`).
const _: () = assert!(std::mem::size_of::<node::Node>() + 64 <= blocks::SIZE);

#[cfg(all(test, loom))]
mod tests;
