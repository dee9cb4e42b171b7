//! Runs the loom models of the runtime's own synchronisation (`src/tests/loom_*.rs`:
//! the sleep handshake, the latches, waits across pools, the MTS bulk-steal
//! hand-off) as part of the normal test suite (see `common/loom_runner.rs`).

#[path = "common/loom_runner.rs"]
mod loom_runner;

#[test]
fn loom_models_pass() {
    loom_runner::run_loom_models(env!("CARGO_MANIFEST_DIR"), 8);
}
