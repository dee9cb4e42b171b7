//! Bounded fuzzing of latency override files (`--latencies`; see `locus_files::fuzz`):
//! valid files mutated, and made-up text, are applied or refused with a message naming
//! the file; none panics.

use locus_files::fuzz;
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
