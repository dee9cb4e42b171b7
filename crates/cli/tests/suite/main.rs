//! The integration tests of the `locus` binary that can share a process, built as one
//! binary rather than one per file. Each file below is declared here; `scripts/test.sh`
//! refuses a file of this folder that is not. Tests that need a process to themselves
//! are files of their own directly under `tests/`.

mod bench_matrix;
mod cli;
mod common;
mod files;
mod help;
mod limits;
mod map;
mod matrix;
mod modules;
mod parsers;
mod profile;
mod run;
mod schedule;
mod trace;
