//! `locus bench matrix --quick`: the table's shape, its JSON, and its refusals. Times
//! are never checked (they depend on the machine); the verdict of `--limit` is tested on
//! made-up rows by the module's own tests.

use crate::common::{locus, refused, scratch, text};

/// The rows of the table: lines of `fields` whitespace-separated fields whose last
/// `numbers` parse as numbers.
fn rows(stdout: &str, fields: usize, numbers: usize) -> Vec<Vec<String>> {
    stdout
        .lines()
        .map(|line| {
            line.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|f| {
            f.len() == fields
                && f[fields - numbers..]
                    .iter()
                    .all(|x| x.trim_end_matches('!').parse::<f64>().is_ok())
        })
        .collect()
}

#[test]
fn the_quick_matrix_has_a_row_per_input_and_machine_with_the_noise() {
    let dir = scratch("bench-matrix");
    let json = dir.join("matrix.json");
    let out = locus(&[
        "bench",
        "matrix",
        "--quick",
        "--kernel",
        "fib",
        "--machine",
        "2x1",
        "--limit",
        "1000",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a limit no ratio reaches: {stdout}{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains("machine 2x1: 2 workers in 2 squads\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("squads, oversubscribed (more workers than CPUs)"),
        "the oversubscribed machine: {stdout}"
    );
    // kernel, grain, size, ws ms, noise, then mts, cab and cats.
    let rows = rows(&stdout, 8, 5);
    assert_eq!(rows.len(), 4, "fine and coarse on two machines: {stdout}");
    for row in &rows {
        assert_eq!(row[0], "fib", "{row:?}");
        let noise: f64 = row[4].parse().unwrap();
        assert!(noise >= 1.0, "the noise is the larger ratio: {row:?}");
        assert!(!row.iter().any(|f| f.ends_with('!')), "{row:?}");
    }
    assert_eq!(
        rows.iter().map(|r| r[1].as_str()).collect::<Vec<_>>(),
        ["fine", "coarse", "fine", "coarse"]
    );
    for policy in ["mts", "cab", "cats"] {
        assert!(
            stdout.contains(&format!("\n  {policy} ")),
            "{policy}'s worst ratio: {stdout}"
        );
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for row in rows {
        let policies = row["policies"].as_object().unwrap();
        assert_eq!(policies.len(), 3, "{row}");
        assert!(policies.values().all(|p| p["loses"] == false), "{row}");
        assert!(row["noise"].as_f64().unwrap() >= 1.0, "{row}");
    }
    assert_eq!(doc["machines"][1]["oversubscribed"], true);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_matrix_input_is_refused() {
    refused(
        &["bench", "matrix", "--quick", "--kernel", "nope"],
        &["--kernel", "nope"],
    );
    refused(
        &["bench", "matrix", "--quick", "--machine", "no-such-box"],
        &["--machine", "no-such-box"],
    );
    refused(
        &["bench", "matrix", "--quick", "--policy", "ws"],
        &["--policy", "compare with ws"],
    );
    refused(
        &["bench", "matrix", "--quick", "--kernel", "ge"],
        &["--kernel ge", "--quick matrix has no input"],
    );
    for bad in ["0", "x", "-1"] {
        let flag = format!("--limit={bad}");
        let out = locus(&["bench", "matrix", "--quick", &flag]);
        assert_eq!(out.status.code(), Some(2), "--limit {bad}");
        assert!(text(&out.stderr).contains("--limit"), "--limit {bad}");
    }
}
