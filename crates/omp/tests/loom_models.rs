//! Runs the loom models of locus-omp's own synchronisation (`src/tests/loom_*.rs`: the
//! waiter handshake behind `taskwait`, `taskgroup` and barriers) as part of the normal
//! test suite. Loom needs the whole crate compiled with `--cfg loom`, so this test
//! invokes cargo for that build, in its own target directory (`target/loom`, shared
//! with the runtime's models) so it neither waits on nor invalidates the build running
//! it. Preemptions are bounded to 2, as CI runs them; set `LOOM_MAX_PREEMPTIONS=1` for a
//! quicker local run.

use std::path::Path;
use std::process::Command;

#[test]
fn loom_models_pass() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let preemptions = std::env::var("LOOM_MAX_PREEMPTIONS").unwrap_or_else(|_| "2".to_string());
    let output = Command::new(cargo)
        .args(["test", "--release", "--lib", "--manifest-path"])
        .arg(&manifest)
        .args(["--", "loom"])
        .env("RUSTFLAGS", "--cfg loom")
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
        passed >= 3,
        "expected the loom models to run, saw {passed}:\n{stdout}"
    );
}
