//! Runs the loom models of locus-omp's own synchronisation (`src/tests/loom_*.rs`: the
//! waiter handshake behind `taskwait`, `taskgroup` and barriers, a detached task's two
//! ends, and the hand-off between a team and its crew) as part of the normal test
//! suite, with the runtime's runner.

#[path = "../../runtime/tests/common/loom_runner.rs"]
mod loom_runner;

#[test]
fn loom_models_pass() {
    loom_runner::run_loom_models(env!("CARGO_MANIFEST_DIR"), 7);
}
