//! Writes the simulator's calibration of the policies' runtime costs from the medians
//! that `cargo bench -p locus --bench hot_path -- policy/` left in `target/criterion`
//! (`locus_sim::calibration::Calibration::derive` says how):
//!
//! ```text
//! cargo run -p locus-sim --example calibrate -- MACHINE DATE [CRITERION_DIR] \
//!     > crates/sim/calibration/runtime.toml
//! ```
//!
//! MACHINE describes the machine the bench ran on (its CPU, its load), DATE when;
//! CRITERION_DIR defaults to the workspace's `target/criterion`.

use locus_sim::calibration::{Calibration, BENCH_IDS};
use std::path::PathBuf;
use std::process::ExitCode;

/// The command the figures come from.
const COMMAND: &str =
    "cargo bench -p locus --bench hot_path -- policy/ --warm-up-time 1 --measurement-time 3";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(machine), Some(date)) = (args.first(), args.get(1)) else {
        eprintln!("usage: calibrate MACHINE DATE [CRITERION_DIR]");
        return ExitCode::from(2);
    };
    let dir = args.get(2).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion"),
        PathBuf::from,
    );
    let median = |id: &str| -> Option<f64> {
        let path = dir.join("policy").join(id).join("new/estimates.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| eprintln!("cannot read {}: {e}", path.display()))
            .ok()?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| eprintln!("{}: {e}", path.display()))
            .ok()?;
        let median = json["median"]["point_estimate"].as_f64();
        if median.is_none() {
            eprintln!("{}: no median.point_estimate", path.display());
        }
        median
    };
    match Calibration::derive(median, COMMAND, machine, date) {
        Some(c) => {
            print!("{}", c.to_file());
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "run the bench first ({COMMAND}); it measures {}",
                BENCH_IDS.join(", ")
            );
            ExitCode::FAILURE
        }
    }
}
