//! The trace reader on written samples of both engines' traces, on broken ones (each
//! refused with what is wrong and where), and fuzzed as the project's parsers are
//! (`locus_files::fuzz`): mutated samples and random text are read or refused, never
//! a panic.

use super::read::{parse, Kind, Source, TIERS};
use super::summary::{busy_over_time, summarize};
use locus_files::fuzz;
use proptest::prelude::*;

/// A runtime trace: two squads of one worker; worker 1 steals a task from worker 0
/// over the package tier, idles, sleeps; a placement.
const RUNTIME: &str = r#"{"traceEvents":[
{"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"squad 0 (package 0) - t"}},
{"name":"process_name","ph":"M","pid":2,"tid":2,"args":{"name":"squad 1 (package 1) - t"}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"worker 0 (squad 0, PU 0)"}},
{"name":"thread_name","ph":"M","pid":2,"tid":2,"args":{"name":"worker 1 (squad 1, PU 4)"}},
{"name":"squad 0","cat":"task","ph":"X","pid":1,"tid":1,"ts":0.000,"dur":10.000,"args":{"task":"00000000000000aa","level":0}},
{"name":"squad 0","cat":"task","ph":"X","pid":1,"tid":1,"ts":1.000,"dur":2.000,"args":{"task":"00000000000000bb","level":1}},
{"name":"idle","cat":"idle","ph":"X","pid":1,"tid":1,"ts":3.000,"dur":2.000},
{"name":"placed: squad 1","cat":"policy","ph":"i","s":"t","pid":1,"tid":1,"ts":0.500,"args":{"task":"00000000000000cc"}},
{"name":"squad 1","cat":"task","ph":"X","pid":2,"tid":2,"ts":2.000,"dur":4.000,"args":{"task":"00000000000000cc","level":1}},
{"name":"idle","cat":"idle","ph":"X","pid":2,"tid":2,"ts":6.000,"dur":4.000},
{"name":"sleep","cat":"idle","ph":"X","pid":2,"tid":2,"ts":7.000,"dur":3.000},
{"name":"steal-remote","cat":"steal-remote","ph":"s","id":0,"pid":1,"tid":1,"ts":1.500,"args":{"task":"00000000000000cc","tier":"other package"}},
{"name":"steal-remote","cat":"steal-remote","ph":"f","bp":"e","id":0,"pid":2,"tid":2,"ts":2.000,"args":{"task":"00000000000000cc","tier":"other package"}}
],
"displayTimeUnit":"ns",
"otherData":{"title":"locus cats on t, 2 workers","events":9,"dropped_events":3,"cap_per_worker":64,"steals_not_drawn":2}}
"#;

/// A simulated trace: one process, a task in two parts around its child, two
/// iterations of one task id on two squads, a steal without args, B/E slices.
const SIMULATED: &str = r#"{"traceEvents":[
{"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"heat on 2x1 under cats"}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"worker 0 (squad 0, PU 0)"}},
{"name":"thread_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":0}},
{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"worker 1 (squad 1, PU 1)"}},
{"name":"squad 0","cat":"task","ph":"X","pid":1,"tid":1,"ts":0.0,"dur":1.0,"args":{"task":"0000000000000001","level":0,"iteration":0}},
{"name":"squad 0","cat":"task","ph":"X","pid":1,"tid":1,"ts":1.0,"dur":1.0,"args":{"task":"0000000000000002","level":1,"iteration":0}},
{"name":"squad 0","cat":"task","ph":"X","pid":1,"tid":1,"ts":2.0,"dur":1.0,"args":{"task":"0000000000000001","level":0,"iteration":0}},
{"name":"squad 1","cat":"task","ph":"B","pid":1,"tid":2,"ts":4.0,"args":{"task":"0000000000000002","level":1,"iteration":1}},
{"name":"squad 1","ph":"E","pid":1,"tid":2,"ts":5.0},
{"name":"steal-bulk","cat":"steal-bulk","ph":"s","id":0,"pid":1,"tid":1,"ts":2.5},
{"name":"steal-bulk","cat":"steal-bulk","ph":"f","bp":"e","id":0,"pid":1,"tid":2,"ts":4.0}
],
"displayTimeUnit":"ns",
"otherData":{"title":"heat on 2x1 under cats","clock_ghz":2.5}}
"#;

#[test]
fn a_runtime_trace_is_read_and_summed_up() {
    let trace = parse(RUNTIME.as_bytes()).unwrap();
    assert_eq!(
        trace.source,
        Source::Runtime {
            dropped: 3,
            cap_per_worker: 64,
            not_drawn: 2
        }
    );
    assert_eq!(trace.title, "locus cats on t, 2 workers");
    assert_eq!(trace.workers.len(), 2);
    assert_eq!(trace.slices.len(), 6);
    assert_eq!(trace.placements, 1);
    assert_eq!(trace.steals.len(), 1);
    assert_eq!(TIERS[trace.steals[0].tier], "remote");
    assert_eq!(trace.steals[0].task, Some(0xcc));

    let s = summarize(&trace, 10);
    assert_eq!(s.dropped_events, Some(3));
    assert_eq!(s.steals_not_drawn, 2);
    assert_eq!(s.span_ms, 10e-3);
    let (q0, q1) = (&s.squads[0], &s.squads[1]);
    assert_eq!((q0.tasks, q1.tasks), (2, 1));
    // Worker 0: a task over 0..10 with an idle spell 3..5 inside: busy 8 of 10.
    assert!((q0.busy - 0.8).abs() < 1e-9, "{q0:?}");
    assert!((q0.idle - 0.2).abs() < 1e-9, "{q0:?}");
    // Worker 1: busy 2..6, idle 6..7 and asleep 7..10, nothing 0..2.
    assert!((q1.busy - 0.4).abs() < 1e-9, "{q1:?}");
    assert!((q1.sleep - 0.3).abs() < 1e-9, "{q1:?}");
    assert!((q1.idle - 0.3).abs() < 1e-9, "{q1:?}");
    assert_eq!(q0.steals_out.0, [0, 0, 0, 1, 0]);
    assert_eq!(q1.steals_in.0, [0, 0, 0, 1, 0]);
    assert_eq!(q0.steals_in.0, [0; 5]);
    assert!(s.moved.is_empty());
}

#[test]
fn a_simulated_trace_is_read_and_its_task_parts_are_one_run() {
    let trace = parse(SIMULATED.as_bytes()).unwrap();
    assert_eq!(trace.source, Source::Simulator);
    assert_eq!(trace.slices.len(), 4);
    assert_eq!(
        trace.slices[3].kind,
        Kind::Task {
            id: 2,
            iteration: Some(1)
        }
    );
    // The steal's task is the thief's slice that starts where the flow finishes.
    assert_eq!(trace.steals[0].task, Some(2));
    let s = summarize(&trace, 10);
    assert_eq!(s.dropped_events, None);
    assert_eq!((s.squads[0].tasks, s.squads[1].tasks), (2, 1));
    assert_eq!(s.squads[0].steals_out.0, [0, 0, 0, 0, 1]);
    // Task 2 ran on squad 0 in iteration 0, on squad 1 in iteration 1.
    assert_eq!(s.moved.len(), 1);
    assert_eq!(s.moved[0].task, "0000000000000002");
    assert_eq!((s.moved[0].moves, s.moved[0].runs), (1, 2));
    assert_eq!(s.moved[0].squads, [0, 1]);
    assert!(summarize(&trace, 1).moved.len() <= 1);
}

#[test]
fn busy_workers_over_time_add_up_to_the_busy_time() {
    let trace = parse(RUNTIME.as_bytes()).unwrap();
    let series = busy_over_time(&trace, 10);
    assert_eq!(series.len(), 2);
    // Ten bins of 1 us: the mean busy workers of a bin, summed, is the busy time in us.
    let total: Vec<f64> = series
        .iter()
        .map(|(_, p)| p.iter().map(|(_, y)| y).sum())
        .collect();
    assert!((total[0] - 8.0).abs() < 1e-9, "{series:?}");
    assert!((total[1] - 4.0).abs() < 1e-9, "{series:?}");
    assert!(series[0].1.iter().all(|&(_, y)| (0.0..=1.0).contains(&y)));
    assert!(
        (series[0].1[0].0 - 0.0005).abs() < 1e-12,
        "bin centres in ms"
    );
}

/// `text` is refused, the message holding each of `says`.
fn refused(text: &str, says: &[&str]) {
    let err = parse(text.as_bytes()).expect_err(text);
    for s in says {
        assert!(err.contains(s), "{s:?} not in: {err}");
    }
}

#[test]
fn broken_traces_are_refused_with_what_and_where() {
    // Not JSON, truncated, the array format, wrong types, missing fields.
    refused("hello", &["not a trace", "line 1"]);
    refused(&RUNTIME[..RUNTIME.len() / 2], &["EOF", "line"]);
    refused("[]", &["traceEvents"]);
    refused(r#"{"traceEvents": 5}"#, &["invalid type"]);
    refused(
        &RUNTIME.replace(r#""dur":2.000"#, r#""dur":"2""#),
        &["invalid type: string", "line 7"],
    );
    refused(
        &RUNTIME.replace(r#""ph":"X","#, ""),
        &["missing field `ph`"],
    );
    refused(
        &RUNTIME.replace(r#","dur":10.000"#, ""),
        &["event 4 (X \"squad 0\")", "has no dur"],
    );
    refused(
        &RUNTIME.replace(r#""dur":10.000"#, r#""dur":-1"#),
        &["event 4", "dur is -1"],
    );
    refused(
        &RUNTIME.replace(r#""task":"00000000000000aa""#, r#""task":"aa""#),
        &["event 4", "not 16 hex digits"],
    );
    refused(
        &RUNTIME.replace(r#","args":{"task":"00000000000000aa","level":0}"#, ""),
        &["event 4", "needs args.task"],
    );
    refused(
        &RUNTIME.replace(r#""ph":"i""#, r#""ph":"Q""#),
        &["event 7", "phase"],
    );
    // Tracks without names, named otherwise, or a process without a name.
    refused(
        &RUNTIME.replace(
            r#""pid":2,"tid":2,"ts":2.000"#,
            r#""pid":2,"tid":9,"ts":2.000"#,
        ),
        &["event 8", "pid 2 tid 9", "no thread_name"],
    );
    refused(
        &RUNTIME.replace("worker 1 (squad 1, PU 4)", "main"),
        &["event 3", "\"main\"", "worker W (squad S, PU P)"],
    );
    refused(
        &RUNTIME.replace(
            r#""pid":2,"tid":2,"args":{"name":"squad 1"#,
            r#""pid":7,"tid":2,"args":{"name":"squad 1"#,
        ),
        &["pid 2", "process_name"],
    );
    // A slice without end, an end without a slice.
    refused(
        &SIMULATED.replace(
            r#"{"name":"squad 1","ph":"E","pid":1,"tid":2,"ts":5.0},"#,
            "",
        ),
        &["event 7", "without end"],
    );
    refused(
        &SIMULATED.replace(r#""ph":"B""#, r#""ph":"i""#),
        &["event 8", "none is open"],
    );
    // Flows to nowhere: one end missing, an end on no slice, not a steal.
    refused(
        &RUNTIME.replace(r#""ph":"f","bp":"e","id":0"#, r#""ph":"f","bp":"e","id":1"#),
        &["event 11", "flow id 0", "to nowhere", "finish"],
    );
    refused(
        &RUNTIME.replace(
            r#""ph":"s","id":0,"pid":1,"tid":1,"ts":1.500"#,
            r#""ph":"s","id":0,"pid":1,"tid":1,"ts":11.5"#,
        ),
        &["event 11", "where no slice is"],
    );
    refused(
        &RUNTIME.replace(
            r#""bp":"e","id":0,"pid":2,"tid":2,"ts":2.000"#,
            r#""bp":"e","id":0,"pid":2,"tid":2,"ts":1.000"#,
        ),
        &["event 12", "finishes at 1000 ns on worker 1"],
    );
    refused(
        &RUNTIME.replace("steal-remote", "hop"),
        &["event 11", "not a steal"],
    );
    refused(
        &SIMULATED.replace(
            r#"{"name":"steal-bulk","cat":"steal-bulk","ph":"s","id":0"#,
            r#"{"name":"steal-bulk","cat":"steal-bulk","ph":"f","id":0"#,
        ),
        &["second finish"],
    );
}

/// The punctuation and digits of a trace, and the letters of its phases.
const TRACE_BYTES: &[u8] = b"{}[]\":,.-0123456789 \nXBEMsfiptsdurhbe";

proptest! {
    #![proptest_config(fuzz::config(256))]

    #[test]
    fn mutated_traces_are_read_or_refused_never_a_panic(
        input in fuzz::inputs(&[RUNTIME, SIMULATED], TRACE_BYTES)
    ) {
        match parse(&input) {
            Ok(trace) => {
                let s = summarize(&trace, 3);
                prop_assert!(s.moved.len() <= 3);
                for q in &s.squads {
                    prop_assert!(q.busy >= 0.0 && q.busy <= 1.0 + 1e-9, "{q:?}");
                    prop_assert!(q.sleep >= 0.0 && q.idle >= 0.0, "{q:?}");
                }
                for (_, points) in busy_over_time(&trace, 7) {
                    prop_assert!(points.iter().all(|(x, y)| x.is_finite() && y.is_finite()));
                }
            }
            Err(e) => prop_assert!(!e.is_empty()),
        }
    }
}
