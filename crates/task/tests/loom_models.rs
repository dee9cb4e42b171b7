//! Runs the loom models of locus-task's own synchronisation (`src/tests/loom_*.rs`: the
//! footprint listener's hand-off) as part of the normal test suite, with the runtime's
//! runner.

#[path = "../../runtime/tests/common/loom_runner.rs"]
mod loom_runner;

#[test]
fn loom_models_pass() {
    loom_runner::run_loom_models(env!("CARGO_MANIFEST_DIR"), 3);
}
