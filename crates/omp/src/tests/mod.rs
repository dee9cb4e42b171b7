//! Loom models of locus-omp's own synchronisation. Run them with
//! `RUSTFLAGS="--cfg loom" cargo test -p locus-omp --release --lib`
//! (`LOOM_MAX_PREEMPTIONS=2` as CI does; 1 for a quick local check), or through
//! `tests/loom_models.rs`.

mod loom_crew;
mod loom_wait;
