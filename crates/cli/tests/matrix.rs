//! `locus sim matrix --quick`: the locality policies against ws over every kernel, on a
//! machine scaled down with the inputs, where the published rules' losing cases show.

mod common;

use common::{locus, refused, text};

/// Each policy's ratio to ws per case: (kernel and size, ratios in column order).
fn rows(stdout: &str, columns: usize) -> Vec<(String, Vec<f64>)> {
    stdout
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != columns + 2 {
                return None;
            }
            let ratios: Option<Vec<f64>> = fields[2..].iter().map(|f| f.parse().ok()).collect();
            Some((format!("{} {}", fields[0], fields[1]), ratios?))
        })
        .collect()
}

#[test]
fn the_quick_matrix_keeps_the_gains_and_loses_little() {
    let out = locus(&[
        "sim",
        "matrix",
        "--quick",
        "--policy",
        "cab,cats,cab-paper,cats-paper",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let rows = rows(&stdout, 4);
    assert!(rows.len() >= 20, "a row per input: {stdout}");
    let ratio = |case: &str, column: usize| {
        rows.iter()
            .find(|(c, _)| c == case)
            .unwrap_or_else(|| panic!("no row {case}: {stdout}"))
            .1[column]
    };
    // The published rules run one leaf subtree per squad; here each is one leaf wide.
    let narrow = "heat 768x512,leaf=24,iters=10";
    assert!(ratio(narrow, 2) > 2.0 && ratio(narrow, 3) > 2.0, "{stdout}");
    assert!(
        ratio(narrow, 0) <= 1.02 && ratio(narrow, 1) <= 1.02,
        "{stdout}"
    );
    // The papers' gain, at a sixteenth of the size: 0.75 under the overlapping clock
    // (paper 0.60; the serial clock gave 0.39, charging each of ws's extra misses its
    // whole latency one after another, where a core overlaps 8 with its work).
    let heat = "heat 256x128,leaf=8,iters=10";
    assert!(ratio(heat, 0) <= 0.8 && ratio(heat, 1) <= 0.8, "{stdout}");
    for (case, r) in &rows {
        // cab and cats lose at most this much anywhere in the quick matrix (the
        // remaining losses are listed in docs/results.md, "Against ws everywhere").
        // The worst is irreg small: 1.07 (as before cab and cats ran the tasks of data
        // beyond every cache as ws). heat-moving 512x256 took 1.05 before that rule
        // (its 2 MiB outgrow the scaled machine's 1.5 MiB of L3) and 1.00 now.
        assert!(r[0] <= 1.08 && r[1] <= 1.08, "{case}: {r:?}\n{stdout}");
    }
}

#[test]
fn a_limit_below_the_worst_ratio_exits_1_after_the_table() {
    let out = locus(&[
        "sim",
        "matrix",
        "--quick",
        "--kernel",
        "heat",
        "--policy",
        "cab-paper",
        "--limit",
        "1.5",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("above --limit"), "{stdout}");
    assert!(text(&out.stderr).contains("--limit"));
}

#[test]
fn bad_matrix_flags_are_refused() {
    refused(&["sim", "matrix", "--limit", "0"], &["--limit"]);
    refused(
        &["sim", "matrix", "--kernel", "nope"],
        &["--kernel", "nope"],
    );
    refused(&["sim", "matrix", "--policy", "ws"], &["--policy"]);
    refused(
        &["sim", "matrix", "--policy", "bogus"],
        &["--policy", "bogus"],
    );
    refused(&["sim", "matrix", "--machine", "pack:0"], &["--machine"]);
}
