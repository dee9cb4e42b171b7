//! The integration tests of the simulator that can share a process, built as one binary
//! rather than one per file. Each file below is declared here; `scripts/test.sh`
//! refuses a file of this folder that is not. Tests that need a process to themselves
//! are files of their own directly under `tests/`.

mod parsers;
mod policy_costs;
