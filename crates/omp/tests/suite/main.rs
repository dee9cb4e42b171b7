//! The integration tests of locus-omp (OpenMP programs in C) that can share a process,
//! built as one binary rather than one per file. Each file below is declared here;
//! `scripts/test.sh` refuses a file of this folder that is not. Tests that need a
//! process to themselves are files of their own directly under `tests/`.

mod modules;
mod programs;
mod teams;
