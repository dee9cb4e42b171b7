//! Loom models of this crate's own synchronisation: the footprint listener's hand-off.
//! `cargo test -p locus-task` runs them through `tests/loom_models.rs`; by hand:
//! `RUSTFLAGS="--cfg loom" cargo test -p locus-task --lib -- loom`
//! (`LOOM_MAX_PREEMPTIONS=2` as CI does; 1 for a quick local check).

mod loom_listener;
