//! Bounded fuzzing of latency override files (`--latencies`; see `locus_files::fuzz`):
//! valid files mutated, and made-up text, are applied or refused with a message naming
//! the file; none panics.

use locus_files::fuzz;
use locus_sim::calibration::{self, Calibration};
use locus_sim::latency::Latencies;
use proptest::prelude::*;

/// Valid override files: a few keys, and every key.
const FILES: &[&str] = &[
    r#"{"l3_hit": 40, "remote_dram": 310, "clock_ghz": 2.5}"#,
    r#"{
  "clock_ghz": 2.5,
  "ipc": 1.0,
  "l1_hit": 4,
  "l2_hit": 12,
  "l3_hit": 40,
  "near_cache": 60,
  "remote_cache": 120,
  "local_dram": 200,
  "remote_dram": 310,
  "spawn": 20,
  "probe_local": 10,
  "probe_remote": 40,
  "steal_local": 60,
  "steal_remote": 200,
  "fill_buffers": 10,
  "dram_gbps": 25.6,
  "link_gbps": 12
}
"#,
    "{}",
];

/// What JSON is made of.
const JSON_BYTES: &[u8] = b"{}[]\":,.-+eE0123456789 \ntrufalsn";

const ORIGIN: &str = "fuzz/latencies.json";

proptest! {
    #![proptest_config(fuzz::config(512))]

    #[test]
    fn latency_overrides(input in fuzz::inputs(FILES, JSON_BYTES)) {
        let text = String::from_utf8_lossy(&input);
        let base = Latencies::defaults_for("opteron-8380").latencies;
        match base.with_overrides(&text, ORIGIN) {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.contains(ORIGIN), "{e}");
            }
            Ok((table, _)) => prop_assert!(table.validate().is_ok()),
        }
    }
}

#[test]
fn the_samples_are_valid() {
    for text in FILES {
        let base = Latencies::defaults_for("opteron-8380").latencies;
        base.with_overrides(text, ORIGIN)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// What calibration files are made of.
const CALIBRATION_BYTES: &[u8] = b"=#\" \n.-+eE0123456789abcdefghiklmnopqrstuvw_";

const CALIBRATION_ORIGIN: &str = "fuzz/runtime.toml";

proptest! {
    #![proptest_config(fuzz::config(512))]

    #[test]
    fn calibration_files(input in fuzz::inputs(&[calibration::RUNTIME], CALIBRATION_BYTES)) {
        let text = String::from_utf8_lossy(&input);
        match Calibration::parse(&text, CALIBRATION_ORIGIN) {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.contains(CALIBRATION_ORIGIN), "{e}");
            }
            Ok(c) => {
                let ns = [c.ns.place, c.ns.task_event, c.ns.profiled_task, c.ns.shared_queue];
                prop_assert!(ns.iter().all(|&v| (0.0..=calibration::MAX_NS).contains(&v)));
                c.cycles(10.0);
            }
        }
    }
}

#[test]
fn special_calibration_inputs_are_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("locus-sim-calibration-{}", std::process::id()));
    let cases = fuzz::special_inputs(
        &dir,
        "runtime.toml",
        calibration::MAX_FILE_BYTES,
        "more than the 64 KiB",
    );
    for (path, says) in cases {
        let e = Calibration::load(&path).expect_err("refused").to_string();
        assert!(
            e.contains(&path.display().to_string()) && e.contains(says),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}
