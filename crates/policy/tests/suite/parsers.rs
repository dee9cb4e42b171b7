//! Bounded fuzzing of policy names (`--policy`, `LOCUS_POLICY`; see `locus_files::fuzz`):
//! every name, with its parameters, mutated or made up, is accepted or refused with a
//! message quoting it; none panics. A name accepted reads back as what it displays.

use locus_files::fuzz;
use locus_policy::{PolicyKind, POLICIES};
use proptest::prelude::*;

/// Every name, alias and example of a form of [`POLICIES`].
fn samples() -> &'static [&'static str] {
    let samples: Vec<&'static str> = POLICIES
        .iter()
        .flat_map(|row| {
            std::iter::once(row.name)
                .chain(row.aliases.iter().copied())
                .chain(row.examples.iter().copied())
        })
        .collect();
    samples.leak()
}

/// What policy names are made of.
const NAME_BYTES: &[u8] = b"0123456789:=.-+ eEabclmstwpMiBKG";

proptest! {
    #![proptest_config(fuzz::config(512))]

    #[test]
    fn policy_names(input in fuzz::inputs(samples(), NAME_BYTES)) {
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
    for row in POLICIES {
        let named = row.name.parse::<PolicyKind>();
        match row.plain() {
            Some(kind) => assert_eq!(named.unwrap(), kind),
            None => assert!(named.is_err(), "{} needs more than its name", row.name),
        }
        for alias in row.aliases {
            let upper = alias.to_ascii_uppercase();
            assert_eq!(
                upper.parse::<PolicyKind>().unwrap().name(),
                row.name,
                "{alias}"
            );
        }
        for example in row.examples {
            let kind = example
                .parse::<PolicyKind>()
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(kind.name(), row.name, "{example}");
        }
    }
    assert!(
        samples().len() > POLICIES.len(),
        "aliases and forms are samples too"
    );
}
