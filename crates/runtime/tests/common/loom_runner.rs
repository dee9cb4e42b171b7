//! Runs a crate's loom models (`src/tests/loom_*.rs`) as part of the normal test suite.
//! Loom needs the whole crate compiled with `--cfg loom`, so this invokes cargo for that
//! build, in its own target directory (`target/loom`, shared by the crates that use
//! it) so it neither waits on nor invalidates the build running it. Preemptions are
//! bounded to 2, as CI runs them; set `LOOM_MAX_PREEMPTIONS=1` for a quicker local run.
//! The build is unoptimized and without debug information: the models run in under a
//! second either way (0.4 s against 0.1 s optimized), and the optimized build of the
//! crate and its dependencies took 200 s of CPU against 75 s, most of the suite's loom
//! cost on a fresh clone.
//! Shared by the runtime's and locus-omp's `tests/loom_models.rs` (the latter includes
//! this file by path).

use std::path::Path;
use std::process::Command;

/// Runs the loom models of the crate at `manifest_dir` and checks that they pass and
/// that at least `at_least` of them ran.
pub(crate) fn run_loom_models(manifest_dir: &str, at_least: usize) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = Path::new(manifest_dir).join("Cargo.toml");
    let workspace = Path::new(manifest_dir).join("../..");
    let preemptions = std::env::var("LOOM_MAX_PREEMPTIONS").unwrap_or_else(|_| "2".to_string());
    let output = Command::new(cargo)
        .args(["test", "--lib", "--manifest-path"])
        .arg(&manifest)
        .args(["--", "loom"])
        .env("RUSTFLAGS", "--cfg loom")
        .env("CARGO_PROFILE_TEST_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_TEST_DEBUG", "false")
        .env("LOOM_MAX_PREEMPTIONS", &preemptions)
        .env("CARGO_TARGET_DIR", workspace.join("target/loom"))
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "loom models failed:\n{stdout}\n{stderr}"
    );
    let passed = stdout
        .lines()
        .filter(|l| l.starts_with("test tests::loom_") && l.ends_with(" ok"))
        .count();
    assert!(
        passed >= at_least,
        "expected the loom models to run, saw {passed}:\n{stdout}"
    );
}
