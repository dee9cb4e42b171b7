//! Loom models of the runtime's own synchronisation. Run them with
//! `RUSTFLAGS="--cfg loom" cargo test -p locus --release --lib`
//! (`LOOM_MAX_PREEMPTIONS=2` as CI does; 1 for a quick local check).

mod loom_cross;
mod loom_detached;
mod loom_frames;
mod loom_queue;
mod loom_sleep;
mod loom_trace;
