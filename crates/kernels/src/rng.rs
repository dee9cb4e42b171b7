//! The seeded generator of the kernels' inputs: SplitMix64, whose one copy lives in
//! `locus_task::rng`.
//!
//! Not for statistics or cryptography: it only has to give every run, on every machine,
//! the same input for the same seed. No footprint is declared (input generation runs
//! outside the timed region).

pub use locus_task::rng::SplitMix64;
