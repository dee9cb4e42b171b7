//! The integration tests of the engines (runtime and simulator) and the papers' figures
//! that can share a process, built as one binary rather than one per file. Each file
//! below is declared here; `scripts/test.sh` refuses a file of this folder that is not.
//! Tests that need a process to themselves are files of their own directly under
//! `tests/`.

mod conformance;
mod conformance_squads;
mod papers_table;
mod profile_affinity;
mod profile_recorded;
mod sim_engine;
mod sim_papers;
mod sim_tiers;
