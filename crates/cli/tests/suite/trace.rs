//! Traces of real runs, checked headless as Perfetto's viewer would open them: a run of
//! `locus bench heat --policy cats --machine 2x2 --threads 2` (and of two squads), and
//! an OpenMP program under `locus run --trace`. Each file parses as the Chrome
//! trace-event object format; every task slice is complete (`X` with `dur >= 0`, or a
//! `B` matched by an `E`); every steal arrow starts and finishes inside a slice of the
//! track it names; every pid and tid has a metadata name. The checks here read the
//! JSON themselves, apart from `locus trace summarize`, which then must read the same
//! file and count what they count. Also: the dropped-events message under a tiny
//! `LOCUS_TRACE_CAP`, a simulated trace summed up, `--plot`, and broken files refused.

use crate::common::{locus, refused, scratch, text};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What [`viewable`] counted in a trace.
#[derive(Debug, Default)]
struct Found {
    /// Task slices (`cat` "task").
    tasks: usize,
    /// Steal arrows.
    steals: usize,
    /// `otherData.dropped_events`.
    dropped: u64,
}

/// A track: pid, tid.
type Track = (u64, u64);

/// One end of a flow: 's' or 'f', its track, its time in nanoseconds.
type FlowEnd = (char, Track, i64);

/// Times as Perfetto stores them: whole nanoseconds.
fn nanos(v: &Value, field: &str, e: &Value) -> i64 {
    let us = v[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} of {e}"));
    assert!(us.is_finite() && us >= 0.0, "{field} of {e}");
    (us * 1000.0).round() as i64
}

/// Checks the file at `path` as the module doc says; panics naming what is wrong.
fn viewable(path: &Path) -> Found {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let doc: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let events = doc["traceEvents"]
        .as_array()
        .unwrap_or_else(|| panic!("{path:?}: no traceEvents array"));
    let mut processes = HashSet::new();
    let mut threads = HashSet::new();
    let mut slices: HashMap<Track, Vec<(i64, i64)>> = HashMap::new();
    let mut open: HashMap<Track, Vec<i64>> = HashMap::new();
    let mut flows: HashMap<u64, Vec<FlowEnd>> = HashMap::new();
    let mut found = Found::default();
    for e in events {
        let ph = e["ph"].as_str().unwrap_or_else(|| panic!("no ph: {e}"));
        assert!(e["name"].is_string(), "no name: {e}");
        let pid = e["pid"].as_u64().unwrap_or_else(|| panic!("no pid: {e}"));
        let tid = e["tid"].as_u64().unwrap_or_else(|| panic!("no tid: {e}"));
        let track = (pid, tid);
        match ph {
            "M" => {
                let named = e["args"]["name"].is_string();
                match e["name"].as_str() {
                    Some("process_name") if named => drop(processes.insert(pid)),
                    Some("thread_name") if named => drop(threads.insert(track)),
                    Some("process_name" | "thread_name") => panic!("a name without args.name: {e}"),
                    _ => {}
                }
            }
            "X" => {
                let start = nanos(e, "ts", e);
                let dur = nanos(e, "dur", e);
                slices.entry(track).or_default().push((start, start + dur));
                if e["cat"] == "task" && e["name"] != "share" {
                    let task = e["args"]["task"].as_str().unwrap_or_default();
                    assert!(
                        task.len() == 16 && u64::from_str_radix(task, 16).is_ok(),
                        "a task slice without its id: {e}"
                    );
                    found.tasks += 1;
                }
            }
            "B" => open.entry(track).or_default().push(nanos(e, "ts", e)),
            "E" => {
                let start = open
                    .get_mut(&track)
                    .and_then(Vec::pop)
                    .unwrap_or_else(|| panic!("an E without its B: {e}"));
                slices
                    .entry(track)
                    .or_default()
                    .push((start, nanos(e, "ts", e)));
            }
            "s" | "f" => {
                let id = e["id"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("a flow without id: {e}"));
                assert!(
                    e["name"].as_str().unwrap_or_default().starts_with("steal-"),
                    "{e}"
                );
                if ph == "f" {
                    assert_eq!(e["bp"], "e", "a finish binds to its enclosing slice: {e}");
                }
                let end = if ph == "s" { 's' } else { 'f' };
                flows
                    .entry(id)
                    .or_default()
                    .push((end, track, nanos(e, "ts", e)));
            }
            "i" | "I" => {}
            other => panic!("{path:?}: phase {other:?} is not one locus writes: {e}"),
        }
    }
    assert!(
        open.values().all(Vec::is_empty),
        "{path:?}: slices without end: {open:?}"
    );
    for (pid, tid) in slices.keys().chain(flows.values().flatten().map(|f| &f.1)) {
        assert!(processes.contains(pid), "{path:?}: pid {pid} has no name");
        assert!(
            threads.contains(&(*pid, *tid)),
            "{path:?}: pid {pid} tid {tid} has no name"
        );
    }
    for (id, ends) in &flows {
        let kinds: Vec<char> = ends.iter().map(|e| e.0).collect();
        assert!(
            kinds == ['s', 'f'] || kinds == ['f', 's'],
            "{path:?}: flow {id} has ends {kinds:?}"
        );
        for &(end, track, t) in ends {
            let inside = slices
                .get(&track)
                .is_some_and(|v| v.iter().any(|&(a, b)| a <= t && t <= b));
            assert!(
                inside,
                "{path:?}: flow {id}'s {end} at {t} ns on {track:?} binds to no slice there"
            );
        }
        found.steals += 1;
    }
    found.dropped = doc["otherData"]["dropped_events"].as_u64().unwrap_or(0);
    found
}

/// `locus trace summarize --json FILE`, which must succeed; its document.
fn summary(path: &Path) -> Value {
    let out = locus(&["trace", "summarize", "--json", s(path)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the summary is JSON")
}

/// What `summary` counted over its squads: task runs and steals (each once, inward).
fn summed(summary: &Value) -> (u64, u64) {
    let squads = summary["squads"].as_array().expect("squads");
    let tasks = squads.iter().map(|q| q["tasks"].as_u64().unwrap()).sum();
    let steals = squads
        .iter()
        .flat_map(|q| q["steals_in"].as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    (tasks, steals)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}

/// `locus bench heat` under `policy` with `threads` workers on a 2x2 machine, traced
/// to `path`, with `vars` set.
fn traced_heat(policy: &str, threads: &str, path: &Path, vars: &[(&str, &str)]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(["bench", "heat", "--policy", policy, "--machine", "2x2"])
        .args(["--threads", threads, "--size", "512x256,iters=4"])
        .args([
            "--reps",
            "3",
            "--warmup",
            "0",
            "--no-rayon",
            "--trace",
            s(path),
        ])
        .env_remove("LOCUS_NUM_THREADS")
        .env_remove("LOCUS_TRACE_CAP")
        .env_remove("LOCUS_TRACE")
        .envs(vars.iter().copied())
        .output()
        .expect("cannot start the locus binary");
    assert!(out.status.success(), "{}", text(&out.stderr));
    out
}

#[test]
fn a_real_heat_run_s_trace_opens_in_a_viewer_and_is_summed_up() {
    let dir = scratch("trace-heat");
    let mut steals = 0;
    for (policy, threads) in [("cats", "2"), ("cats", "4"), ("mts", "4")] {
        let path = dir.join(format!("{policy}-{threads}.json"));
        traced_heat(policy, threads, &path, &[]);
        let found = viewable(&path);
        assert!(found.tasks > 0, "{policy} {threads}: no task slice");
        assert_eq!(found.dropped, 0);
        let doc = summary(&path);
        assert_eq!(doc["source"], "runtime");
        assert_eq!(doc["workers"].as_u64(), Some(threads.parse().unwrap()));
        assert_eq!(doc["dropped_events"].as_u64(), Some(0));
        assert_eq!(summed(&doc), (found.tasks as u64, found.steals as u64));
        steals += found.steals;
    }
    assert!(steals > 0, "some steal was traced");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_tiny_trace_cap_drops_events_and_both_the_run_and_the_summary_say_so() {
    let dir = scratch("trace-cap");
    let path = dir.join("capped.json");
    let out = traced_heat("cats", "2", &path, &[("LOCUS_TRACE_CAP", "1")]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("events dropped: a worker's buffer holds 1 events")
            && stderr.contains("LOCUS_TRACE_CAP"),
        "{stderr}"
    );
    let found = viewable(&path);
    assert!(found.dropped > 0, "{found:?}");
    let out = locus(&["trace", "summarize", s(&path)]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!(
            "dropped events: {}: a worker's buffer holds 1 events",
            found.dropped
        )),
        "{stdout}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(["bench", "heat", "--no-rayon", "--trace", s(&path)])
        .env("LOCUS_TRACE_CAP", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("LOCUS_TRACE_CAP=\"0\""));
    std::fs::remove_dir_all(&dir).ok();
}

/// The omp crate's fib program, built with `gcc -fopenmp` (which CI has).
fn omp_fib(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../omp/tests/c/fib.c");
    let out = dir.join("fib");
    let gcc = Command::new("gcc")
        .args(["-O2", "-fopenmp", "-o"])
        .arg(&out)
        .arg(src)
        .output();
    match gcc {
        Ok(o) if o.status.success() => out,
        Ok(o) => panic!(
            "gcc -fopenmp failed, and this test needs it (CI has it): {}",
            text(&o.stderr)
        ),
        Err(e) => panic!("gcc is missing, and this test needs gcc -fopenmp (CI has it): {e}"),
    }
}

#[test]
fn an_openmp_program_s_trace_opens_in_a_viewer_and_is_summed_up() {
    let dir = scratch("trace-omp");
    let fib = omp_fib(&dir);
    let path = dir.join("fib.json");
    let out = Command::new(env!("CARGO_BIN_EXE_locus"))
        .args([
            "run",
            "--policy",
            "cats",
            "--machine",
            "2x2",
            "--threads",
            "4",
        ])
        .args(["--trace", s(&path), "--"])
        .arg(&fib)
        .arg("18")
        .env_remove("LOCUS_OMP_LIB")
        .env_remove("LOCUS_TRACE_CAP")
        .output()
        .expect("locus run starts");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("fib(18) cutoff 0 = 2584"));
    // One file per team's pool: FILE, then FILE with .N before its extension.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.contains(&path), "{files:?}");
    let mut tasks = 0;
    for file in &files {
        let found = viewable(file);
        let doc = summary(file);
        assert_eq!(summed(&doc), (found.tasks as u64, found.steals as u64));
        tasks += found.tasks;
    }
    assert!(tasks > 0, "fib's tasks are in the trace");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_simulated_trace_is_summed_up_and_plotted() {
    let dir = scratch("trace-sim");
    let path = dir.join("sim.json");
    let plot = dir.join("busy.svg");
    let out = locus(&[
        "sim",
        "heat",
        "--size",
        "256x128,iters=3",
        "--machine",
        "2x2",
        "--policy",
        "cats",
        "--trace",
        s(&path),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let found = viewable(&path);
    let doc = summary(&path);
    assert_eq!(doc["source"], "simulator");
    assert_eq!(doc["dropped_events"], Value::Null);
    assert_eq!(doc["squads"].as_array().map(Vec::len), Some(2));
    assert_eq!(summed(&doc).1, found.steals as u64);
    let out = locus(&["trace", "summarize", s(&path), "--plot", s(&plot)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("none recorded"));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for label in ["squad 0", "squad 1", "time (ms)", "busy workers"] {
        assert!(svg.contains(label), "{label} missing from the plot");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn broken_trace_files_are_refused_naming_the_file_and_what_is_wrong() {
    let dir = scratch("trace-broken");
    let good = dir.join("good.json");
    let out = locus(&[
        "sim",
        "heat",
        "--size",
        "64x32,iters=1",
        "--machine",
        "2x1",
        "--policy",
        "ws",
        "--trace",
        s(&good),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let whole = std::fs::read_to_string(&good).unwrap();
    let bad = dir.join("bad.json");
    let cases: [(String, &[&str]); 5] = [
        (whole[..whole.len() / 2].to_owned(), &["EOF while parsing"]),
        ("not json".to_owned(), &["not a trace", "line 1 column"]),
        (
            whole.replacen("\"ph\":\"X\"", "\"ph\":7", 1),
            &["invalid type: integer `7`, expected a string"],
        ),
        (
            whole.replacen(",\"dur\":", ",\"lasted\":", 1),
            &["has no dur"],
        ),
        (
            whole.replacen("\"ph\":\"X\"", "\"ph\":\"B\"", 1),
            &["a slice without end"],
        ),
    ];
    for (content, says) in &cases {
        std::fs::write(&bad, content).unwrap();
        let mut names = vec!["trace file", s(&bad)];
        names.extend_from_slice(says);
        refused(&["trace", "summarize", s(&bad)], &names);
    }
    refused(
        &["trace", "summarize", s(&dir.join("missing.json"))],
        &["trace file", "missing.json"],
    );
    refused(&["trace", "summarize", s(&dir)], &["trace file", "folder"]);
    refused(
        &["trace", "summarize", s(&good), "--plot", s(&good)],
        &["--plot", "good.json"],
    );
    refused(&["trace", "summarize", s(&good), "--top", "0"], &["--top"]);
    std::fs::remove_dir_all(&dir).ok();
}
