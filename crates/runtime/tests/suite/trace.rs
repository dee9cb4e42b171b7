//! Traces of real runs (`ThreadPoolBuilder::trace`): the file is Chrome trace-event
//! JSON as Perfetto reads it, every task slice is closed and nests on its track, every
//! steal arrow joins two slices, a full buffer drops events and says how many, and a
//! path that cannot be written is a build error naming it.

use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Longer than any of these runs takes on a loaded two-core machine.
const LIMIT: Duration = Duration::from_secs(60);

/// Runs `body` on a thread of its own; fails, naming `what`, if it hangs.
fn within<T: Send + 'static>(what: &str, body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("trace: {what}"))
        .spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(body)));
        })
        .expect("the watchdog's thread starts");
    match rx.recv_timeout(LIMIT) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => resume_unwind(panic),
        Err(_) => panic!("{what}: not done after {LIMIT:?}"),
    }
}

/// A file in the system's temporary folder, unique to this test and process.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("locus-trace-{}-{name}.json", std::process::id()))
}

fn traced(policy: PolicyKind, machine: &str, threads: usize, path: &Path) -> ThreadPoolBuilder {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .policy(policy)
        .topology(Topology::parse_spec(machine).expect("valid machine"))
        .pin(false)
        .trace(path)
}

/// Sum of `lo..hi` by fork-join down to blocks of 8.
fn sum(lo: u64, hi: u64) -> u64 {
    if hi - lo <= 8 {
        return (lo..hi).sum();
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = locus::join(|| sum(lo, mid), || sum(mid, hi));
    a + b
}

fn work(pool: &ThreadPool) {
    for _ in 0..4 {
        assert_eq!(
            pool.install(|| sum(0, 1 << 13)),
            (0..1u64 << 13).sum::<u64>()
        );
        pool.scope(|s| {
            for i in 0..8u64 {
                s.spawn(move |_| assert_eq!(sum(i, i + 100), (i..i + 100).sum::<u64>()));
            }
        });
    }
}

/// A track: (pid, tid).
type Track = (u64, u64);
/// A slice on a track: start and end in nanoseconds, and whether it is a task's.
type Span = (i64, i64, bool);

/// What a check of a trace found.
#[derive(Default)]
struct Found {
    slices: usize,
    flows: usize,
    placements: usize,
    dropped: u64,
}

fn num(event: &Value, key: &str) -> f64 {
    event[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} of {event} is a number"))
}

/// Integer nanoseconds of a `ts` or `dur` written with three decimals.
fn nanos(event: &Value, key: &str) -> i64 {
    (num(event, key) * 1000.0).round() as i64
}

/// Parses `path` and checks the trace-event schema and the slice and flow properties
/// (an arrow's victim side only where no event was dropped).
fn check(path: &Path) -> Found {
    let text = std::fs::read_to_string(path).expect("the trace file exists");
    let root: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let events = root["traceEvents"]
        .as_array()
        .expect("traceEvents is an array");
    assert_eq!(root["displayTimeUnit"], "ns");
    let other = &root["otherData"];
    assert!(other["title"].is_string(), "otherData has a title");
    let mut found = Found {
        dropped: other["dropped_events"].as_u64().expect("dropped_events"),
        ..Found::default()
    };

    let mut named: HashMap<(u64, u64), String> = HashMap::new();
    // Per track, the slices as (start, end) in nanoseconds.
    let mut slices: HashMap<Track, Vec<Span>> = HashMap::new();
    let mut flows: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for e in events {
        let ph = e["ph"].as_str().unwrap_or_else(|| panic!("ph of {e}"));
        assert!(e["name"].is_string(), "name of {e}");
        let pid = e["pid"].as_u64().unwrap_or_else(|| panic!("pid of {e}"));
        let tid = e["tid"].as_u64().unwrap_or_else(|| panic!("tid of {e}"));
        assert!(pid > 0 && tid > 0, "pid and tid 0 are the kernel's: {e}");
        match ph {
            "M" => {
                if e["name"] == "thread_name" {
                    let name = e["args"]["name"].as_str().expect("a thread's name");
                    named.insert((pid, tid), name.to_string());
                }
            }
            "X" => {
                let (ts, dur) = (nanos(e, "ts"), nanos(e, "dur"));
                assert!(ts >= 0 && dur >= 0, "a slice ends after it starts: {e}");
                let is_task = e["cat"] == "task";
                if is_task {
                    found.slices += 1;
                    let id = e["args"]["task"].as_str().expect("a task's id");
                    assert_eq!(id.len(), 16, "{e}");
                    assert!(e["args"]["level"].is_u64(), "{e}");
                }
                slices
                    .entry((pid, tid))
                    .or_default()
                    .push((ts, ts + dur, is_task));
            }
            "i" => {
                assert_eq!(e["s"], "t", "{e}");
                num(e, "ts");
                found.placements += 1;
            }
            "s" | "f" => {
                let id = e["id"].as_u64().unwrap_or_else(|| panic!("id of {e}"));
                flows.entry(id).or_default().push(e);
            }
            other => panic!("unexpected phase {other:?} in {e}"),
        }
    }
    // Every slice is closed (has its end) and slices on one track nest: each one either
    // lies inside the innermost one still open or starts after it ended.
    for (track, list) in &mut slices {
        assert!(named.contains_key(track), "track {track:?} has a name");
        list.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
        let mut open: Vec<i64> = Vec::new();
        for &(start, end, _) in list.iter() {
            while open.last().is_some_and(|&e| e <= start) {
                open.pop();
            }
            if let Some(&outer) = open.last() {
                assert!(
                    end <= outer,
                    "on {track:?}, a slice [{start}, {end}] overlaps one ending at {outer}"
                );
            }
            open.push(end);
        }
    }
    // Every flow is one start and one finish; the finish starts a task slice on the
    // thief's track at its instant, the start lies on the victim's (named) track.
    for (id, pair) in &flows {
        assert_eq!(pair.len(), 2, "flow {id} has a start and a finish");
        let (s, f) = (pair[0], pair[1]);
        assert_eq!((s["ph"].as_str(), f["ph"].as_str()), (Some("s"), Some("f")));
        assert_eq!(f["bp"], "e");
        assert!(s["args"]["tier"].is_string(), "{s}");
        let track = |e: &Value| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        let at = nanos(f, "ts");
        let thief = slices.get(&track(f)).map(Vec::as_slice).unwrap_or(&[]);
        assert!(
            thief.iter().any(|&(start, _, task)| task && start == at),
            "flow {id}: no task slice on the thief's track starts at {at}: {f}"
        );
        let left = nanos(s, "ts");
        assert!(left <= at, "flow {id} finishes before it starts");
        // The victim is a worker's track. It need not have run a slice by then: a
        // policy that places tasks (cab's inter-squad pools, squad queues) puts them
        // where an idle worker is the victim of the steal.
        assert!(
            named.contains_key(&track(s)),
            "flow {id}: its start is on no worker's named track: {s}"
        );
        found.flows += 1;
    }
    found
}

#[test]
fn traced_runs_are_trace_event_json_with_closed_slices_and_joined_steal_arrows() {
    let mut flows = 0;
    let mut placements = 0;
    for policy in ["ws", "mts", "cats", "cab"] {
        let path = temp(&format!("run-{policy}"));
        let p = path.clone();
        let (flushed, found_mid) = within(policy, move || {
            let pool = traced(policy.parse().unwrap(), "2x2", 4, &p)
                .build()
                .expect("a traced pool builds");
            // A flush while the workers run reads their logs as they grow.
            let flushed = std::thread::scope(|s| {
                let flusher = s.spawn(|| {
                    (0..3)
                        .map(|_| pool.flush_trace().expect("flush").expect("traced"))
                        .last()
                        .unwrap()
                });
                work(&pool);
                flusher.join().unwrap()
            });
            let found_mid = check(&p);
            drop(pool);
            (flushed, found_mid)
        });
        assert_eq!(flushed.path, path);
        assert_eq!(flushed.dropped, 0, "{policy}: {flushed}");
        let found = check(&path);
        assert!(
            found.slices >= found_mid.slices,
            "{policy}: the drop wrote it all"
        );
        // A join taken back runs inside its parent's slice; every root (4 installs and 4
        // scopes) and every scope's spawn (32) runs as a job of its own.
        assert!(found.slices >= 40, "{policy}: {} task slices", found.slices);
        assert_eq!(found.dropped, 0);
        flows += found.flows;
        placements += found.placements;
        std::fs::remove_file(&path).ok();
    }
    assert!(flows > 0, "some steal was traced");
    assert!(
        placements > 0,
        "mts and cats place tasks, and the trace says where"
    );
}

#[test]
fn a_full_buffer_drops_events_and_says_how_many() {
    let path = temp("dropped");
    let p = path.clone();
    let report = within("tiny cap", move || {
        let pool = traced(PolicyKind::Ws, "2x1", 2, &p)
            .trace_cap(8)
            .build()
            .expect("a traced pool builds");
        work(&pool);
        pool.flush_trace().expect("flush").expect("traced")
    });
    assert!(report.dropped > 0, "{report}");
    let line = report.to_string();
    assert!(
        line.contains(&format!("{} events dropped", report.dropped))
            && line.contains("holds 8 events")
            && !line.contains('\n'),
        "{line}"
    );
    let found = check(&path);
    assert!(
        found.dropped >= report.dropped as u64,
        "the file counts them too"
    );
    assert!(found.slices <= 16, "two workers keep 8 events each");
    std::fs::remove_file(&path).ok();
}

#[test]
fn an_untraced_pool_has_nothing_to_flush() {
    let pool = within("untraced", || {
        ThreadPoolBuilder::new()
            .num_threads(1)
            .pin(false)
            .build()
            .unwrap()
    });
    assert!(pool.flush_trace().unwrap().is_none());
}

#[test]
fn a_trace_path_that_cannot_be_written_is_a_build_error_naming_it() {
    let path = std::env::temp_dir()
        .join(format!("locus-no-such-folder-{}", std::process::id()))
        .join("t.json");
    let err = ThreadPoolBuilder::new()
        .num_threads(1)
        .pin(false)
        .trace(&path)
        .build()
        .expect_err("the folder does not exist");
    let text = locus::error_chain(&err);
    assert!(
        text.contains(&path.display().to_string()) && text.contains("trace"),
        "{text}"
    );
}
