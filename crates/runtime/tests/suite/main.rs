//! The integration tests of the runtime that can share a process, built as one binary
//! rather than one per file. Each file below is declared here; `scripts/test.sh`
//! refuses a file of this folder that is not. Tests that need a process to themselves
//! are files of their own directly under `tests/`.

mod any;
mod api;
mod bitier;
mod clone;
mod common;
mod counted;
mod cross;
mod debug;
mod domains;
mod events;
mod iter;
mod iter_collect;
mod iter_more;
mod iter_pieces;
mod iter_rayon;
mod iter_rayon_drain;
mod iter_stop;
mod iter_walk;
mod multizip;
mod panics;
mod plans;
mod plumbing;
mod raw;
mod spawn;
mod stress;
mod tiers;
mod trace;
