//! Bounded fuzzing of policy names (`--policy`, `LOCUS_POLICY`; see `locus_files::fuzz`):
//! every name, with its parameters, mutated or made up, is accepted or refused with a
//! message quoting it; none panics. A name accepted reads back as what it displays.

use locus_files::fuzz;
use locus_policy::PolicyKind;
use proptest::prelude::*;

/// Every name, and every form of parameters.
const NAMES: &[&str] = &[
    "ws",
    "ws-unpinned",
    "central",
    "rr-fifo",
    "rr-lifo",
    "mts",
    "mts:3",
    "cab",
    "cab:2:48MiB",
    "cab:bl=4",
    "cab-paper:4:1GB",
    "cats",
    "cats-paper:0.5",
    "static",
    "cilk-a",
];

/// What policy names are made of.
const NAME_BYTES: &[u8] = b"0123456789:=.-+ eEabclmstwpMiBKG";

proptest! {
    #![proptest_config(fuzz::config(512))]

    #[test]
    fn policy_names(input in fuzz::inputs(NAMES, NAME_BYTES)) {
        let text = String::from_utf8_lossy(&input);
        match text.parse::<PolicyKind>() {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.contains(&format!("policy '{text}'")), "{e}");
            }
            Ok(kind) => {
                let shown = kind.to_string();
                prop_assert_eq!(shown.parse::<PolicyKind>().ok(), Some(kind), "{}", shown);
            }
        }
    }
}

#[test]
fn the_samples_are_valid() {
    for name in NAMES {
        name.parse::<PolicyKind>().unwrap_or_else(|e| panic!("{e}"));
    }
}
