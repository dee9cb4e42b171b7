//! The integration tests of the thread mapper that can share a process, built as one
//! binary rather than one per file. Each file below is declared here; `scripts/test.sh`
//! refuses a file of this folder that is not. Tests that need a process to themselves
//! are files of their own directly under `tests/`.

mod decide;
#[path = "../os_common/mod.rs"]
mod os_common;
mod os_daemon;
mod os_events;
mod os_procs;
mod workload;
