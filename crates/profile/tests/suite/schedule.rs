//! Schedule files: every broken file refused with its own message. (The round trip
//! from a recorded kernel: `crates/engines/tests/suite/profile_recorded.rs`.)

use std::path::PathBuf;

use locus_profile::schedule::{self, reseal};
use locus_profile::synthetic::grid_graph;
use locus_profile::{MachineDesc, Partition, PartitionOptions, Schedule};
use locus_topo::Topology;
use serde_json::{json, Value};

const INPUT: &str = "grid 6x6";

fn altix() -> MachineDesc {
    MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 4).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locus-schedule-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A valid schedule's text: a 6 x 6 grid on the Altix.
fn valid() -> String {
    let m = altix();
    let g = grid_graph(6, 6, |_, _| 1);
    let p = Partition::compute(&g, &m, &PartitionOptions::default()).unwrap();
    Schedule::new(&m, INPUT, &g, &p).unwrap().to_json()
}

/// The message for `text` loaded as a schedule for the Altix and `INPUT`.
fn refusal(text: &str) -> String {
    match Schedule::parse(text, "s.json", &altix(), INPUT) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// `valid()` edited by `edit`, with a checksum fitting the edit.
fn sealed(edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&valid()).unwrap();
    edit(&mut v);
    reseal(&v.to_string()).unwrap()
}

/// `valid()` edited by `edit`, checksum left as it was.
fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&valid()).unwrap();
    edit(&mut v);
    v.to_string()
}

fn assert_says(msg: &str, words: &[&str]) {
    assert!(msg.starts_with("schedule s.json: "), "{msg}");
    for w in words {
        assert!(msg.contains(w), "{w:?} missing from: {msg}");
    }
}

#[test]
fn the_valid_file_loads_and_resealing_it_changes_nothing() {
    let text = valid();
    let s = Schedule::parse(&text, "s.json", &altix(), INPUT).unwrap();
    assert_eq!(s.placements().count(), 36);
    assert_eq!(reseal(&text).unwrap(), text);
    assert!(text.contains("\"format\": \"locus-schedule\""), "{text}");
    assert!(text.contains("\"checksum\": \"fnv1a64:"), "{text}");
}

#[test]
fn a_truncated_file_is_refused() {
    let text = valid();
    let msg = refusal(&text[..text.len() / 2]);
    assert_says(&msg, &["truncated", "line", "re-run locus profile"]);
}

#[test]
fn an_empty_file_is_refused() {
    assert_says(&refusal(""), &["empty"]);
    assert_says(&refusal("  \n"), &["empty"]);
}

#[test]
fn text_that_is_not_json_is_refused() {
    assert_says(&refusal("schedule: yes\n"), &["not a JSON schedule file"]);
    assert_says(
        &refusal("[1, 2, 3]"),
        &["not a JSON schedule file", "not an object"],
    );
    let text = format!("{}garbage", valid());
    assert_says(&refusal(&text), &["not a JSON schedule file", "trailing"]);
}

#[test]
fn another_format_is_refused() {
    let msg = refusal(&edited(|v| v["format"] = json!("locus-profile")));
    assert_says(&msg, &["\"locus-profile\"", "not a locus schedule file"]);
    let msg = refusal(&edited(|v| {
        v.as_object_mut().unwrap().remove("format");
    }));
    assert_says(&msg, &["missing field `format`"]);
}

#[test]
fn a_version_from_the_future_is_refused() {
    let msg = refusal(&edited(|v| v["version"] = json!(2)));
    assert_says(
        &msg,
        &[
            "version 2",
            "made by a newer locus",
            "upgrade or re-run locus profile",
        ],
    );
}

#[test]
fn a_version_from_the_past_is_refused() {
    let msg = refusal(&edited(|v| v["version"] = json!(0)));
    assert_says(&msg, &["version 0", "older locus", "re-run locus profile"]);
    let msg = refusal(&edited(|v| v["version"] = json!("1")));
    assert_says(&msg, &["`version` is \"1\", not a whole number"]);
}

#[test]
fn missing_fields_are_named() {
    for field in [
        "machine", "input", "summary", "entries", "checksum", "version",
    ] {
        let msg = refusal(&edited(|v| {
            v.as_object_mut().unwrap().remove(field);
        }));
        assert_says(&msg, &[&format!("missing field `{field}`")]);
    }
    // Inside an entry, serde names the field and where it is.
    let msg = refusal(&edited(|v| {
        v["entries"][3].as_object_mut().unwrap().remove("worker");
    }));
    assert_says(&msg, &["invalid content", "missing field `worker`", "line"]);
}

#[test]
fn unknown_fields_are_refused_rather_than_ignored() {
    let msg = refusal(&edited(|v| v["priority"] = json!("high")));
    assert_says(&msg, &["unknown field `priority`"]);
}

#[test]
fn a_hand_edit_breaks_the_checksum() {
    let msg = refusal(&edited(|v| {
        let w = v["entries"][0]["order"].as_u64().unwrap();
        v["entries"][0]["order"] = json!(w + 1);
    }));
    assert_says(
        &msg,
        &[
            "checksum mismatch",
            "edited by hand or corrupted",
            "re-run locus profile",
        ],
    );
    let msg = refusal(&edited(|v| v["checksum"] = json!("crc32:1234")));
    assert_says(&msg, &["checksum mismatch", "crc32:1234"]);
}

#[test]
fn a_file_for_another_machine_is_refused_naming_both() {
    let opteron = MachineDesc::new(&Topology::preset("opteron-8380").unwrap(), 16).unwrap();
    let e = Schedule::parse(&valid(), "s.json", &opteron, INPUT)
        .unwrap_err()
        .to_string();
    assert_says(
        &e,
        &[
            "another machine (altix-2x2: 4 workers in 2 squads of 2 over 2 NUMA nodes)",
            "this run is on opteron-8380: 16 workers",
            "re-run locus profile --machine opteron-8380 --threads 16",
        ],
    );
    // The same machine with another pool size is another machine too.
    let three = MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 3).unwrap();
    let e = Schedule::parse(&valid(), "s.json", &three, INPUT)
        .unwrap_err()
        .to_string();
    assert_says(
        &e,
        &["another machine", "altix-2x2: 3 workers", "--threads 3"],
    );
}

#[test]
fn a_file_for_another_input_is_refused() {
    let e = Schedule::parse(&valid(), "s.json", &altix(), "grid 7x7")
        .unwrap_err()
        .to_string();
    assert_says(
        &e,
        &[
            "another input (\"grid 6x6\")",
            "\"grid 7x7\"",
            "re-run locus profile",
        ],
    );
}

#[test]
fn a_worker_out_of_range_is_refused() {
    let msg = refusal(&sealed(|v| v["entries"][5]["worker"] = json!(4)));
    assert_says(&msg, &["out of range", "worker 4", "workers 0..4"]);
}

#[test]
fn a_squad_out_of_range_is_refused() {
    let msg = refusal(&sealed(|v| v["entries"][5]["squad"] = json!(2)));
    assert_says(&msg, &["out of range", "squad 2", "squads 0..2"]);
    let msg = refusal(&sealed(|v| v["entries"][5]["squad"] = json!(u64::MAX)));
    assert_says(&msg, &["out of range"]);
}

#[test]
fn a_worker_outside_the_squad_it_names_is_refused() {
    let msg = refusal(&sealed(|v| {
        let e = &mut v["entries"][7];
        let worker = e["worker"].as_u64().unwrap();
        e["squad"] = json!(1 - worker / 2);
    }));
    assert_says(&msg, &["worker not in its squad", "entry 7"]);
}

#[test]
fn a_task_placed_twice_is_refused() {
    let msg = refusal(&sealed(|v| {
        let task = v["entries"][0]["task"].clone();
        v["entries"][9]["task"] = task;
    }));
    assert_says(&msg, &["duplicate task", "placed twice", "entry 9"]);
}

#[test]
fn orders_that_are_not_a_permutation_are_refused() {
    // Two tasks of one worker at the same position.
    let msg = refusal(&sealed(|v| {
        let entries = v["entries"].as_array_mut().unwrap();
        let w = entries[0]["worker"].clone();
        let other = entries
            .iter()
            .skip(1)
            .position(|e| e["worker"] == w)
            .unwrap()
            + 1;
        let order = entries[0]["order"].clone();
        entries[other]["order"] = order;
    }));
    assert_says(&msg, &["not a permutation per worker", "twice"]);
    // A position past the worker's task count.
    let msg = refusal(&sealed(|v| v["entries"][0]["order"] = json!(1000)));
    assert_says(&msg, &["not a permutation per worker", "order 1000"]);
}

#[test]
fn a_schedule_without_entries_is_refused() {
    let msg = refusal(&sealed(|v| {
        v["entries"] = json!([]);
        v["summary"]["tasks"] = json!(0);
    }));
    assert_says(&msg, &["places no task"]);
}

#[test]
fn a_task_id_that_is_not_16_hex_digits_is_refused() {
    for bad in ["12ab", "zzzzzzzzzzzzzzzz", "00000000000000001"] {
        let msg = refusal(&sealed(|v| v["entries"][2]["task"] = json!(bad)));
        assert_says(&msg, &["entry 2", bad, "not 16 hex digits"]);
    }
}

#[test]
fn a_summary_that_miscounts_is_refused() {
    let msg = refusal(&sealed(|v| v["summary"]["tasks"] = json!(35)));
    assert_says(&msg, &["summary counts 35 tasks", "36 entries"]);
}

#[test]
fn a_missing_file_and_bytes_that_are_not_text_are_refused() {
    let dir = scratch("files");
    let e = schedule::load(&dir.join("none.json"), &altix(), INPUT)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("none.json") && e.contains("cannot read it"),
        "{e}"
    );
    let bin = dir.join("bin.json");
    std::fs::write(&bin, [0x7b, 0xff, 0xfe]).unwrap();
    let e = schedule::load(&bin, &altix(), INPUT)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not UTF-8"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_a_regular_file_under_the_cap_is_read() {
    let dir = scratch("special");
    let special = locus_files::fuzz::special_inputs(
        &dir,
        "schedule.json",
        schedule::MAX_FILE_BYTES,
        "more than the 1 GiB locus reads for a schedule file",
    );
    for (path, says) in &special {
        let e = schedule::load(path, &altix(), INPUT)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("schedule {}: ", path.display())) && e.contains(says),
            "{e}"
        );
        assert!(!e.contains("re-run"), "not a missing file: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    // serde_json's recursion limit (128) holds for both reads of the file.
    for text in [
        "[".repeat(100_000),
        format!("{{\"format\": {}", "[".repeat(100_000)),
        format!("{{\"format\": {}", "{\"a\":".repeat(100_000)),
    ] {
        let msg = refusal(&text);
        assert!(msg.contains("s.json"), "{msg}");
        assert!(msg.contains("recursion limit exceeded"), "{msg}");
    }
    // A key the reader ignores is skipped without recursion (serde_json walks it in a
    // loop), then refused as unknown.
    let deep = valid().replacen(
        '{',
        &format!(
            "{{\"extra\": {}{},",
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
        1,
    );
    let msg = refusal(&deep);
    assert!(msg.contains("unknown field `extra`"), "{msg}");
}

#[test]
fn every_refusal_has_its_own_message() {
    let texts = [
        String::new(),
        valid()[..100].to_owned(),
        "nonsense".to_owned(),
        edited(|v| v["format"] = json!("x")),
        edited(|v| v["version"] = json!(9)),
        edited(|v| v["version"] = json!(0)),
        edited(|v| {
            v.as_object_mut().unwrap().remove("entries");
        }),
        edited(|v| v["input"] = json!("other")),
        sealed(|v| v["entries"][0]["worker"] = json!(99)),
        sealed(|v| {
            let e = &mut v["entries"][0];
            let worker = e["worker"].as_u64().unwrap();
            e["squad"] = json!(1 - worker / 2);
        }),
        sealed(|v| {
            let t = v["entries"][0]["task"].clone();
            v["entries"][1]["task"] = t;
        }),
        sealed(|v| v["entries"][0]["order"] = json!(999)),
        sealed(|v| {
            v["entries"] = json!([]);
            v["summary"]["tasks"] = json!(0);
        }),
    ];
    let mut kinds: Vec<String> = texts
        .iter()
        .map(|t| {
            // The message's kind: the words before its first colon after the file name.
            let m = refusal(t);
            let rest = m.trim_start_matches("schedule s.json: ");
            rest.split([':', '(']).next().unwrap().to_owned()
        })
        .collect();
    let n = kinds.len();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), n, "{kinds:#?}");
}
