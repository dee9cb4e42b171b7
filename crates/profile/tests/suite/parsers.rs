//! Bounded fuzzing of schedule files (`--schedule`; see `locus_files::fuzz`): a valid
//! schedule mutated (as it is, and resealed with a fresh checksum, so the checks past
//! the checksum run too), and made-up text, are loaded or refused with a message naming
//! the file; none panics.

use std::sync::OnceLock;

use locus_files::fuzz;
use locus_profile::schedule::reseal;
use locus_profile::synthetic::grid_graph;
use locus_profile::{MachineDesc, Partition, PartitionOptions, Schedule};
use locus_topo::Topology;
use proptest::prelude::*;

const INPUT: &str = "grid 4x4";
const NAME: &str = "fuzz/schedule.json";

fn altix() -> MachineDesc {
    MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 4).unwrap()
}

/// A valid schedule of a 4 x 4 grid on the Altix, as written and pretty-printed (one
/// entry a line, so line duplication copies entries).
fn samples() -> &'static [&'static str] {
    static SAMPLES: OnceLock<Vec<&'static str>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let m = altix();
        let g = grid_graph(4, 4, |_, _| 1);
        let p = Partition::compute(&g, &m, &PartitionOptions::default()).unwrap();
        let text = Schedule::new(&m, INPUT, &g, &p).unwrap().to_json();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        vec![text.leak(), pretty.leak()]
    })
}

/// What schedule files are made of.
const JSON_BYTES: &[u8] = b"{}[]\":,.-0123456789abcdef \n";

/// Loads `text`, asserting that an error names the file.
fn check(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = Schedule::parse(text, NAME, &altix(), INPUT) {
        let e = e.to_string();
        prop_assert!(e.starts_with(&format!("schedule {NAME}: ")), "{e}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(fuzz::config(128))]

    #[test]
    fn schedule_files(input in fuzz::inputs(samples(), JSON_BYTES)) {
        let text = String::from_utf8_lossy(&input);
        check(&text)?;
        if let Ok(resealed) = reseal(&text) {
            check(&resealed)?;
        }
    }
}

#[test]
fn the_samples_are_valid() {
    for text in samples() {
        Schedule::parse(text, NAME, &altix(), INPUT).unwrap_or_else(|e| panic!("{e}"));
    }
}
