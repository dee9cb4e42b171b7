//! `discover()` under `taskset -c 1`: the test re-runs its own executable
//! pinned to CPU 1, and the child checks that discovery sees exactly that CPU.
//! Skipped (with a note) when `taskset` or CPU 1 is missing. Its own test binary, so
//! that the child runs this one test and nothing else.

use std::process::Command;

use locus_topo::{allowed_cpus, Topology};

/// Set in the child's environment.
const CHILD: &str = "LOCUS_TOPO_TASKSET_CHILD";

#[test]
fn discover_under_taskset() {
    if std::env::var_os(CHILD).is_some() {
        let t = Topology::discover().unwrap();
        assert_eq!(t.num_pus(), 1, "{}", t.render());
        assert_eq!(t.pus()[0].os_index, Some(1));
        assert_eq!(t.cache_domains().len(), 1);
        return;
    }
    if !allowed_cpus().unwrap().contains(&1) {
        eprintln!("note: CPU 1 is not available to this process; skipping the taskset test");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let status = Command::new("taskset")
        .args(["-c", "1"])
        .arg(&exe)
        .args([
            "--exact",
            "discover_under_taskset",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .status();
    match status {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("note: `taskset` is not installed; skipping the taskset test");
        }
        Err(e) => panic!("cannot run taskset: {e}"),
        Ok(s) => assert!(s.success(), "the child under `taskset -c 1` failed: {s}"),
    }
}
