//! A simulated run's timeline as a Chrome trace-event JSON file, for Perfetto
//! (ui.perfetto.dev) and chrome://tracing.
//!
//! This module owns the [`Timeline`] a simulation hands over at the end of a run and its
//! one output format. It keeps no state between calls; a `Timeline` is plain data and
//! may be written from any thread.
//!
//! # What the file holds
//! The JSON object format: `{"traceEvents": [...], "displayTimeUnit": "ns",
//! "otherData": {"title": ..., "clock_ghz": ...}}`, with events in this order:
//! 1. metadata: one process named by [`Timeline::title`], then for each [`Track`] a
//!    `thread_name` ("worker W (squad S, PU P)") and a `thread_sort_index` (W);
//! 2. each [`Slice`] as a complete event (`"ph": "X"`) on its worker's thread, named
//!    "squad S" when the slice belongs to squad S's subtree (Perfetto colours slices by
//!    name, so one squad's subtrees share a colour) and "task" otherwise, with a `cname`
//!    from a fixed palette of Chrome's reserved colour names (same squad, same colour),
//!    and `args` `{task: 16 hex digits, level, iteration}`;
//! 3. each [`Flow`] (a steal) as a flow start (`"ph": "s"`) on the victim's thread at
//!    [`Flow::time`] and a flow finish (`"ph": "f"`, `"bp": "e"`) on the thief's thread
//!    at [`Flow::start`], sharing an `id` (the flow's index) and a `cat`/`name` by kind.
//!
//! # Invariants and choices
//! - Times are simulated cycles turned into microseconds (`cycles / (clock_ghz *
//!   1000)`), first rounded to whole nanoseconds. Perfetto stores nanoseconds as
//!   integers (`llround(ts * 1000)`), so `ts` and `dur` rounded apart could make a slice
//!   end 1 ns after its successor starts and nest one inside the other; rounding each
//!   instant once makes `ts + dur` of one slice equal the `ts` of a slice that starts
//!   at its end cycle. Sub-nanosecond detail (one cycle is 0.4 ns at 2.5 GHz) is lost.
//! - Slices come before flows in the file. Both viewers sort by time, and Perfetto
//!   keeps file order among equal times, so the thief's slice is open when the flow
//!   finish at the same instant binds to it ("bp": "e", the enclosing slice). A flow
//!   start binds to the victim's most recent slice; if the victim ran none by then, a
//!   viewer may drop that arrow.
//! - Perfetto treats pid 0 and tid 0 as the kernel's swapper (its maintainers advise
//!   synthetic traces to start at 1), so the process is pid 1 and worker W's thread is
//!   tid W + 1; the thread's name and sort index carry W itself.
//! - The output is streamed one event at a time through a `BufWriter` this function
//!   adds, so memory does not grow with the trace; pass a plain `File`. Every string
//!   goes through `serde_json`, so titles with quotes or newlines stay valid JSON.
//! - The timeline is checked before the first byte is written: a clock that is not a
//!   positive finite number, a slice that ends before it starts, or a flow that starts
//!   before it left the victim is an [`std::io::ErrorKind::InvalidInput`] error.
//!   Slices of zero length are allowed. Slices or flows naming a worker without a
//!   [`Track`] are written all the same; viewers show that thread unnamed.

use std::io::{self, BufWriter, Write};

use serde::Serialize;

/// The trace's only process id (see the module doc for why not 0).
const PID: u32 = 1;

/// Colour names reserved by Chrome's trace viewer (catapult `color_scheme.html`), in
/// the order squads take them: distinct hues first, wrapping after the last. Guess:
/// chosen by eye for contrast on a white background.
const SQUAD_COLOURS: [&str; 12] = [
    "thread_state_runnable",        // vista blue
    "thread_state_iowait",          // orange
    "thread_state_running",         // seafoam green
    "detailed_memory_dump",         // magenta
    "background_memory_dump",       // teal
    "bad",                          // dark goldenrod
    "terrible",                     // dark red
    "thread_state_uninterruptible", // mauve
    "good",                         // dark green
    "light_memory_dump",            // navy
    "olive",                        // olive
    "thread_state_unknown",         // tan
];

/// The colour of slices outside any squad's subtree.
const UNGROUPED_COLOUR: &str = "generic_work";

/// One simulated worker's track.
#[derive(Debug, Clone)]
pub struct Track {
    /// The worker's index; slices and flows name it.
    pub worker: usize,
    /// The squad (socket) the worker belongs to.
    pub squad: usize,
    /// The processing unit the worker is pinned to.
    pub pu: usize,
}

/// A task (or part of one) run by a worker, in simulated cycles.
#[derive(Debug, Clone)]
pub struct Slice {
    /// The worker that ran it.
    pub worker: usize,
    /// The cycle it started.
    pub start: u64,
    /// The cycle it ended; equal to `start` for a zero-length slice.
    pub end: u64,
    /// The task's id, shown as 16 hex digits.
    pub task: u64,
    /// The task's depth in its tree (the root is level 0).
    pub level: u32,
    /// The squad that runs the task's subtree (bi-tier policies), `None` if none.
    pub group: Option<usize>,
    /// The iteration of the kernel's outer loop the task belongs to.
    pub iteration: u32,
}

/// How a task was stolen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StealKind {
    /// From a peer in the thief's own squad.
    Squad,
    /// From a worker or pool in another squad.
    Remote,
    /// As part of a bulk steal of several tasks from another squad.
    Bulk,
}

impl StealKind {
    /// The flow events' `cat` and `name`.
    fn name(self) -> &'static str {
        match self {
            StealKind::Squad => "steal-squad",
            StealKind::Remote => "steal-remote",
            StealKind::Bulk => "steal-bulk",
        }
    }
}

/// A steal: the task left `from_worker`'s queue at `time` and started on `to_worker` at
/// `start`.
#[derive(Debug, Clone)]
pub struct Flow {
    /// The stolen task's id.
    pub task: u64,
    /// The victim.
    pub from_worker: usize,
    /// The thief.
    pub to_worker: usize,
    /// The cycle the task left the victim's queue.
    pub time: u64,
    /// The cycle the task started on the thief; at least `time`.
    pub start: u64,
    /// How it was stolen.
    pub kind: StealKind,
}

/// A simulated run, ready to be written as a trace.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// The process name the viewer shows (policy, kernel, machine...).
    pub title: String,
    /// The simulated clock, turning cycles into time.
    pub clock_ghz: f64,
    /// One per worker.
    pub tracks: Vec<Track>,
    /// What the workers ran, in any order.
    pub slices: Vec<Slice>,
    /// The steals, in any order.
    pub flows: Vec<Flow>,
}

impl Timeline {
    /// Writes the timeline to `out` as Chrome trace-event JSON (see the module doc for
    /// the layout).
    ///
    /// `out` is wrapped in a `BufWriter` and flushed before returning.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] if the clock is not positive and finite, a slice
    /// ends before it starts, or a flow starts before it left the victim (nothing is
    /// written then); otherwise any error `out` returns.
    pub fn write_chrome_trace<W: Write>(&self, out: W) -> io::Result<()> {
        self.check()?;
        let clock = Clock::new(self.clock_ghz);
        let mut out = BufWriter::new(out);
        out.write_all(b"{\"traceEvents\":[\n")?;
        let mut events = Events {
            out: &mut out,
            first: true,
        };

        events.write(&Metadata {
            name: "process_name",
            ph: "M",
            pid: PID,
            // The process's main thread, by the usual convention (tid == pid).
            tid: PID as usize,
            args: NameArgs { name: &self.title },
        })?;
        for track in &self.tracks {
            let name = format!(
                "worker {} (squad {}, PU {})",
                track.worker, track.squad, track.pu
            );
            events.write(&Metadata {
                name: "thread_name",
                ph: "M",
                pid: PID,
                tid: tid(track.worker),
                args: NameArgs { name: &name },
            })?;
            events.write(&Metadata {
                name: "thread_sort_index",
                ph: "M",
                pid: PID,
                tid: tid(track.worker),
                args: SortArgs {
                    sort_index: track.worker,
                },
            })?;
        }

        // Reused across slices so the slice loop does not allocate.
        let mut name = String::new();
        for slice in &self.slices {
            name.clear();
            let cname = match slice.group {
                Some(squad) => {
                    use std::fmt::Write as _;
                    // Writing to a String cannot fail.
                    let _ = write!(name, "squad {squad}");
                    SQUAD_COLOURS[squad % SQUAD_COLOURS.len()]
                }
                None => {
                    name.push_str("task");
                    UNGROUPED_COLOUR
                }
            };
            let start = clock.nanos(slice.start);
            let hex = hex16(slice.task);
            events.write(&Complete {
                name: &name,
                cat: "task",
                ph: "X",
                pid: PID,
                tid: tid(slice.worker),
                ts: micros(start),
                dur: micros(clock.nanos(slice.end) - start),
                cname,
                args: SliceArgs {
                    // `hex16` yields ASCII hex digits only.
                    task: std::str::from_utf8(&hex).unwrap_or_default(),
                    level: slice.level,
                    iteration: slice.iteration,
                },
            })?;
        }

        for (id, flow) in self.flows.iter().enumerate() {
            let kind = flow.kind.name();
            events.write(&FlowEvent {
                name: kind,
                cat: kind,
                ph: "s",
                id,
                pid: PID,
                tid: tid(flow.from_worker),
                ts: micros(clock.nanos(flow.time)),
                bp: None,
            })?;
            events.write(&FlowEvent {
                name: kind,
                cat: kind,
                ph: "f",
                id,
                pid: PID,
                tid: tid(flow.to_worker),
                ts: micros(clock.nanos(flow.start)),
                bp: Some("e"),
            })?;
        }

        out.write_all(b"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":")?;
        serde_json::to_writer(
            &mut out,
            &OtherData {
                title: &self.title,
                clock_ghz: self.clock_ghz,
            },
        )?;
        out.write_all(b"}\n")?;
        out.flush()
    }

    /// Rejects timelines no viewer would draw correctly, before anything is written.
    fn check(&self) -> io::Result<()> {
        if !(self.clock_ghz.is_finite() && self.clock_ghz > 0.0) {
            return Err(invalid(format!(
                "trace clock must be a positive number of GHz, got {}",
                self.clock_ghz
            )));
        }
        if let Some(s) = self.slices.iter().find(|s| s.end < s.start) {
            return Err(invalid(format!(
                "slice of task {:016x} on worker {} ends at cycle {} before it starts at {}",
                s.task, s.worker, s.end, s.start
            )));
        }
        if let Some(f) = self.flows.iter().find(|f| f.start < f.time) {
            return Err(invalid(format!(
                "steal of task {:016x} from worker {} starts at cycle {} before it left at {}",
                f.task, f.from_worker, f.start, f.time
            )));
        }
        Ok(())
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Worker `worker`'s thread id (see the module doc for why not `worker`).
fn tid(worker: usize) -> usize {
    worker + 1
}

/// `value` as 16 lowercase hex digits, without allocating.
fn hex16(value: u64) -> [u8; 16] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = DIGITS[((value >> (60 - 4 * i)) & 0xf) as usize];
    }
    out
}

/// Turns simulated cycles into whole nanoseconds.
struct Clock {
    ns_per_cycle: f64,
}

impl Clock {
    fn new(clock_ghz: f64) -> Self {
        Clock {
            ns_per_cycle: 1.0 / clock_ghz,
        }
    }

    fn nanos(&self, cycles: u64) -> u64 {
        // `as` saturates; 2^64 ns is 584 years.
        (cycles as f64 * self.ns_per_cycle).round() as u64
    }
}

/// Whole nanoseconds as the format's microseconds. `llround(micros(n) * 1000) == n`
/// below 2^52 ns (52 days), since the division and the product each round once.
fn micros(nanos: u64) -> f64 {
    nanos as f64 / 1000.0
}

/// Writes comma-separated events, one a line.
struct Events<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<W: Write> Events<'_, W> {
    fn write<E: Serialize>(&mut self, event: &E) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",\n")?;
        }
        self.first = false;
        serde_json::to_writer(&mut *self.out, event)?;
        Ok(())
    }
}

#[derive(Serialize)]
struct Metadata<A> {
    name: &'static str,
    ph: &'static str,
    pid: u32,
    tid: usize,
    args: A,
}

#[derive(Serialize)]
struct NameArgs<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct SortArgs {
    sort_index: usize,
}

#[derive(Serialize)]
struct Complete<'a> {
    name: &'a str,
    cat: &'static str,
    ph: &'static str,
    pid: u32,
    tid: usize,
    ts: f64,
    dur: f64,
    cname: &'static str,
    args: SliceArgs<'a>,
}

#[derive(Serialize)]
struct SliceArgs<'a> {
    task: &'a str,
    level: u32,
    iteration: u32,
}

#[derive(Serialize)]
struct FlowEvent {
    name: &'static str,
    cat: &'static str,
    ph: &'static str,
    id: usize,
    pid: u32,
    tid: usize,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
}

#[derive(Serialize)]
struct OtherData<'a> {
    title: &'a str,
    clock_ghz: f64,
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::Value;

    use super::*;

    fn slice(worker: usize, start: u64, end: u64, group: Option<usize>) -> Slice {
        Slice {
            worker,
            start,
            end,
            task: 0xab + start,
            level: 2,
            group,
            iteration: 1,
        }
    }

    fn small() -> Timeline {
        Timeline {
            title: "cats on 2x2".into(),
            clock_ghz: 2.0,
            tracks: (0..4)
                .map(|w| Track {
                    worker: w,
                    squad: w / 2,
                    pu: 10 + w,
                })
                .collect(),
            slices: vec![
                slice(0, 0, 2000, Some(0)),
                slice(1, 500, 1500, Some(0)),
                slice(2, 600, 3000, Some(1)),
                slice(3, 700, 700, None),
                slice(0, 2000, 4000, None),
            ],
            flows: vec![
                Flow {
                    task: 0x1f4,
                    from_worker: 0,
                    to_worker: 1,
                    time: 400,
                    start: 500,
                    kind: StealKind::Squad,
                },
                Flow {
                    task: 0x258,
                    from_worker: 0,
                    to_worker: 2,
                    time: 550,
                    start: 600,
                    kind: StealKind::Remote,
                },
                Flow {
                    task: 0x2bc,
                    from_worker: 1,
                    to_worker: 3,
                    time: 700,
                    start: 700,
                    kind: StealKind::Bulk,
                },
            ],
        }
    }

    fn render(timeline: &Timeline) -> Value {
        let mut out = Vec::new();
        timeline.write_chrome_trace(&mut out).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    fn with_ph<'a>(trace: &'a Value, ph: &str) -> Vec<&'a Value> {
        trace["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == ph)
            .collect()
    }

    #[test]
    fn counts_and_top_level() {
        let trace = render(&small());
        assert_eq!(trace["displayTimeUnit"], "ns");
        assert_eq!(trace["otherData"]["title"], "cats on 2x2");
        assert_eq!(trace["otherData"]["clock_ghz"], 2.0);
        assert_eq!(with_ph(&trace, "M").len(), 1 + 2 * 4);
        assert_eq!(with_ph(&trace, "X").len(), 5);
        assert_eq!(with_ph(&trace, "s").len(), 3);
        assert_eq!(with_ph(&trace, "f").len(), 3);
        assert_eq!(trace["traceEvents"].as_array().unwrap().len(), 9 + 5 + 6);
    }

    #[test]
    fn metadata_names_process_and_threads() {
        let trace = render(&small());
        let meta = with_ph(&trace, "M");
        let process: Vec<_> = meta
            .iter()
            .filter(|e| e["name"] == "process_name")
            .collect();
        assert_eq!(process.len(), 1);
        assert_eq!(process[0]["pid"], PID);
        assert_eq!(process[0]["args"]["name"], "cats on 2x2");

        let names: HashMap<u64, &str> = meta
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| {
                (
                    e["tid"].as_u64().unwrap(),
                    e["args"]["name"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(names.len(), 4);
        assert_eq!(names[&(tid(3) as u64)], "worker 3 (squad 1, PU 13)");
        let sorts: HashMap<u64, u64> = meta
            .iter()
            .filter(|e| e["name"] == "thread_sort_index")
            .map(|e| {
                let index = e["args"]["sort_index"].as_u64().unwrap();
                (e["tid"].as_u64().unwrap(), index)
            })
            .collect();
        assert_eq!(sorts.len(), 4);
        for worker in 0..4 {
            assert_eq!(sorts[&(tid(worker) as u64)], worker as u64);
        }
        assert!(meta.iter().all(|e| e["pid"] == PID));
    }

    #[test]
    fn slices_in_microseconds() {
        let trace = render(&small());
        let slices = with_ph(&trace, "X");
        // 2 GHz: 2000 cycles are 1 µs.
        assert_eq!(slices[0]["ts"], 0.0);
        assert_eq!(slices[0]["dur"], 1.0);
        assert_eq!(slices[1]["ts"], 0.25);
        assert_eq!(slices[1]["dur"], 0.5);
        assert_eq!(slices[2]["tid"], tid(2));
        assert_eq!(slices[2]["ts"], 0.3);
        assert_eq!(slices[2]["dur"], 1.2);
        // Zero-length slices stay.
        assert_eq!(slices[3]["dur"], 0.0);
        assert_eq!(slices[4]["ts"], 1.0);
        assert_eq!(slices[4]["dur"], 1.0);
        let args = &slices[1]["args"];
        assert_eq!(args["task"], format!("{:016x}", 0xab + 500));
        assert_eq!(args["task"].as_str().unwrap().len(), 16);
        assert_eq!(args["level"], 2);
        assert_eq!(args["iteration"], 1);
    }

    #[test]
    fn odd_clock_rounds_to_whole_nanoseconds_without_overlap() {
        // At 2.5 GHz a cycle is 0.4 ns: rounding ts and dur apart would make the
        // first slice end (2 + 2 ns) after the second starts (3 ns).
        let mut timeline = small();
        timeline.clock_ghz = 2.5;
        timeline.slices = vec![
            slice(0, 4, 8, None),
            slice(0, 8, 9, None),
            slice(0, 9, 1_000_003, None),
        ];
        let trace = render(&timeline);
        let ns = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as i64;
        let slices = with_ph(&trace, "X");
        for pair in slices.windows(2) {
            assert_eq!(ns(&pair[0]["ts"]) + ns(&pair[0]["dur"]), ns(&pair[1]["ts"]));
        }
        let last = slices[2];
        let exact = 1_000_003.0 / 2500.0;
        let end = last["ts"].as_f64().unwrap() + last["dur"].as_f64().unwrap();
        assert!((end - exact).abs() <= 0.0005, "{end} vs {exact}");
    }

    #[test]
    fn names_and_colours_follow_groups() {
        let trace = render(&small());
        let slices = with_ph(&trace, "X");
        assert_eq!(slices[0]["name"], "squad 0");
        assert_eq!(slices[1]["name"], "squad 0");
        assert_eq!(slices[2]["name"], "squad 1");
        assert_eq!(slices[3]["name"], "task");
        assert_eq!(slices[0]["cname"], slices[1]["cname"]);
        assert_ne!(slices[0]["cname"], slices[2]["cname"]);
        assert_eq!(slices[3]["cname"], UNGROUPED_COLOUR);
        assert_eq!(slices[0]["cname"], SQUAD_COLOURS[0]);
        assert!(slices.iter().all(|s| s["cat"] == "task"));

        // The palette wraps deterministically and never hands out the ungrouped colour.
        let mut timeline = small();
        let n = SQUAD_COLOURS.len();
        timeline.slices = vec![slice(0, 0, 1, Some(n + 1)), slice(0, 1, 2, Some(1))];
        let trace = render(&timeline);
        let slices = with_ph(&trace, "X");
        assert_eq!(slices[0]["cname"], slices[1]["cname"]);
        assert!(!SQUAD_COLOURS.contains(&UNGROUPED_COLOUR));
    }

    #[test]
    fn flows_pair_by_id() {
        let timeline = small();
        let trace = render(&timeline);
        let starts = with_ph(&trace, "s");
        let finishes = with_ph(&trace, "f");
        let mut ids = std::collections::HashSet::new();
        for (flow, (s, f)) in timeline.flows.iter().zip(starts.iter().zip(&finishes)) {
            assert_eq!(s["id"], f["id"]);
            assert!(ids.insert(s["id"].as_u64().unwrap()), "ids are unique");
            assert_eq!(s["tid"], tid(flow.from_worker));
            assert_eq!(f["tid"], tid(flow.to_worker));
            assert_eq!(s["ts"], flow.time as f64 / 2000.0);
            assert_eq!(f["ts"], flow.start as f64 / 2000.0);
            assert_eq!(s["cat"], s["name"]);
            assert_eq!(f["cat"], s["cat"]);
            assert_eq!(f["name"], s["name"]);
            assert_eq!(f["bp"], "e");
            assert!(s.get("bp").is_none());
        }
        let kinds: Vec<_> = starts.iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["steal-squad", "steal-remote", "steal-bulk"]);
        // The thief's slice precedes the finish it binds to.
        let events = trace["traceEvents"].as_array().unwrap();
        let last_slice = events.iter().rposition(|e| e["ph"] == "X").unwrap();
        let first_flow = events.iter().position(|e| e["ph"] == "s").unwrap();
        assert!(last_slice < first_flow);
    }

    #[test]
    fn awkward_title_round_trips() {
        let mut timeline = small();
        timeline.title = "\"quoted\"\nnew line\t\\ </script> ünï".into();
        let trace = render(&timeline);
        assert_eq!(trace["otherData"]["title"], timeline.title.as_str());
        let process = with_ph(&trace, "M")
            .into_iter()
            .find(|e| e["name"] == "process_name")
            .unwrap();
        assert_eq!(process["args"]["name"], timeline.title.as_str());
    }

    #[test]
    fn empty_timeline_is_valid() {
        let timeline = Timeline {
            title: String::new(),
            clock_ghz: 1.0,
            tracks: vec![],
            slices: vec![],
            flows: vec![],
        };
        let trace = render(&timeline);
        assert_eq!(trace["traceEvents"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn bad_input_is_rejected_before_writing() {
        let cases: [fn(&mut Timeline); 5] = [
            |t| t.clock_ghz = 0.0,
            |t| t.clock_ghz = f64::NAN,
            |t| t.clock_ghz = f64::INFINITY,
            |t| t.slices[1].end = t.slices[1].start - 1,
            |t| t.flows[0].start = t.flows[0].time - 1,
        ];
        for break_it in cases {
            let mut timeline = small();
            break_it(&mut timeline);
            let mut out = Vec::new();
            let err = timeline.write_chrome_trace(&mut out).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
            assert!(out.is_empty());
        }
    }

    #[test]
    fn hex_is_sixteen_digits() {
        assert_eq!(&hex16(0), b"0000000000000000");
        assert_eq!(&hex16(0xdead_beef), b"00000000deadbeef");
        assert_eq!(&hex16(u64::MAX), b"ffffffffffffffff");
    }
}
