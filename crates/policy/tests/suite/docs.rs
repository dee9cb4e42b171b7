//! The documentation's lists of policies are [`POLICIES`]: the policy table of
//! `docs/policies.md`, the README's `LOCUS_POLICY` row, and the table in this crate's
//! docs (`src/lib.rs`), are made from the table here and must be what it makes now. After changing a row, rewrite
//! them with `LOCUS_BLESS=1 cargo test -p locus-policy --test suite docs::`.

use locus_policy::{PolicyInfo, PolicyKind, POLICIES};
use std::path::PathBuf;

/// The policy table, one line per row of [`POLICIES`].
fn table() -> Vec<String> {
    let mut lines = vec![
        "| name | from | spawned task goes to | an idle worker looks at |".to_owned(),
        "| --- | --- | --- | --- |".to_owned(),
    ];
    lines.extend(POLICIES.iter().map(|row| {
        format!(
            "| `{}` | {} | {} | {} |",
            row.name, row.paper, row.spawn, row.idle
        )
    }));
    lines
}

/// The `LOCUS_POLICY` row of the README's table of variables: every name and form the
/// variable takes.
fn locus_policy_row() -> String {
    let named: Vec<String> = POLICIES
        .iter()
        .filter(|row| row.plain().is_some())
        .flat_map(|row| std::iter::once(row.name).chain(row.forms.iter().copied()))
        .map(|name| format!("`{name}`"))
        .collect();
    let unnamed: Vec<String> = POLICIES
        .iter()
        .filter(|row| row.plain().is_none())
        .map(|row: &PolicyInfo| format!("`{}`", row.name))
        .collect();
    format!(
        "| `LOCUS_POLICY` | a policy of [the policy table](docs/policies.md#the-policies): {} \
         (not {}, which follows a schedule file) | `{}` |",
        named.join(", "),
        unnamed.join(", "),
        PolicyKind::default()
    )
}

/// `text` with the block of lines that starts with the one line beginning `first` (and
/// runs while lines begin with `prefix`) replaced by `block`, each line after `lead`.
fn replace_block(text: &str, first: &str, prefix: &str, lead: &str, block: &[String]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with(first))
        .collect();
    assert_eq!(starts.len(), 1, "one line starts with {first:?}");
    let start = starts[0];
    let end = (start..lines.len())
        .find(|&i| !lines[i].starts_with(prefix))
        .unwrap_or(lines.len());
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.extend(block.iter().map(|l| format!("{lead}{l}")));
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Checks that `file` (from this crate's folder) is `made` from its current text; with
/// `LOCUS_BLESS` set, writes `made` instead.
fn check(file: &str, make: impl Fn(&str) -> String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let made = make(&text);
    if made == text {
        return;
    }
    if std::env::var_os("LOCUS_BLESS").is_some() {
        std::fs::write(&path, made).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        return;
    }
    let changed: Vec<&str> = made
        .lines()
        .filter(|line| !text.lines().any(|l| l == *line))
        .collect();
    panic!(
        "{path:?} does not say what the table of policies says; rewrite it with \
         `LOCUS_BLESS=1 cargo test -p locus-policy --test suite docs::`. Lines it should have:\n{}",
        changed.join("\n")
    );
}

#[test]
fn the_guide_lists_the_policies_of_the_table() {
    check("../../docs/policies.md", |text| {
        replace_block(text, "| name | from |", "|", "", &table())
    });
}

#[test]
fn the_readme_names_the_policies_of_the_table() {
    check("../../README.md", |text| {
        replace_block(
            text,
            "| `LOCUS_POLICY` |",
            "| `LOCUS_POLICY`",
            "",
            &[locus_policy_row()],
        )
    });
}

#[test]
fn the_crate_docs_list_the_policies_of_the_table() {
    check("src/lib.rs", |text| {
        replace_block(text, "//! | name | from |", "//! |", "//! ", &table())
    });
}

#[test]
fn a_changed_row_is_seen() {
    let readme = "# x\n\n| name | from |\n| --- |\n| `ws` | old |\n\nafter\n";
    let made = replace_block(readme, "| name | from |", "|", "", &table());
    assert_ne!(made, readme);
    assert!(made.starts_with("# x\n\n| name | from | spawned"), "{made}");
    assert!(made.ends_with("|\n\nafter\n"), "{made}");
    assert_eq!(made.lines().count(), 2 + table().len() + 2);
    assert!(locus_policy_row().contains("`mts:BATCH`, `mts-paper`, `mts-paper:BATCH`, `cab`"));
    assert!(locus_policy_row().contains("(not `affinity`"));
}
