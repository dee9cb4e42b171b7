//! What the runtime pays for a policy's own work, charged by the simulator: a
//! calibration file measured on a real machine, in nanoseconds, turned into the
//! simulated machine's cycles at its clock ([`Calibration::cycles`]).
//!
//! The simulator runs the policies' own code, so it knows every decision a policy makes
//! and every task event it asks for; what it cannot know is what each costs the runtime
//! (a lock on a profile, a clock read, a locked queue in place of a worker's own deque).
//! `crates/runtime/benches/hot_path.rs` measures those (its `policy` group), and
//! [`RUNTIME`] holds the figures, with the command that measured them and the machine
//! it ran on. The engine charges ([`crate::engine`], [`PolicyCosts`]):
//! - `place`: each `Policy::place` call the runtime makes (a spawn of a policy that
//!   does not keep its spawns local);
//! - `task_event`: each task whose start and finish the runtime reports to the policy
//!   without measuring it, and each queued start of a policy that asks for those;
//! - `profiled_task`: each task whose start and finish are reported with its cost
//!   measured (in place of `task_event`);
//! - `shared_queue`: each task pushed to a shared, locked queue (a squad's queue, an
//!   inter-squad pool, an inbox, the central queue) rather than the worker's own
//!   deque, for its push and its pop.
//!
//! # The file
//! Lines of `key = value`; `#` starts a comment, blank lines are skipped. `command`,
//! `machine` and `measured` take a string in double quotes (no escapes); the four costs
//! take a number of nanoseconds from 0 to [`MAX_NS`]. Every key must be there, once.
//! Every problem is a [`CalibrationError`] naming the file and the key (or the line):
//! a missing key, an unknown or repeated one, a line that is not `key = value`, a cost
//! that is not a number, negative, or too large.
//!
//! Plain data; any thread may call anything.

use std::fmt::Write as _;
use std::path::Path;

/// The calibration of the runtime's policy costs that the simulator uses by default.
pub const RUNTIME: &str = include_str!("../calibration/runtime.toml");

/// Where [`RUNTIME`] lives in the repository, for messages.
pub const RUNTIME_PATH: &str = "crates/sim/calibration/runtime.toml";

/// Largest cost a calibration may give, in nanoseconds (a policy call that costs more
/// than 100 µs is a measurement gone wrong, and the simulated time would overflow).
pub const MAX_NS: f64 = 100_000.0;

/// Largest calibration file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The string keys, in the order the file lists them.
const TEXT_KEYS: [&str; 3] = ["command", "machine", "measured"];

/// The cost keys, in the order of [`Costs`]'s fields.
const COST_KEYS: [&str; 4] = ["place", "task_event", "profiled_task", "shared_queue"];

/// The runtime's cost of each policy operation ([`crate::calibration`] lists them), in
/// the unit of its context: nanoseconds in a [`Calibration`], cycles in [`PolicyCosts`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Costs<T> {
    /// A `Policy::place` call.
    pub place: T,
    /// A task's start and finish reported, unmeasured; a queued start.
    pub task_event: T,
    /// A task's start and finish reported with its cost measured.
    pub profiled_task: T,
    /// A push to a shared queue and its pop, beyond a push and pop on the own deque.
    pub shared_queue: T,
}

/// The costs the engine charges, in cycles of the simulated machine; all zero (the
/// default) charges nothing.
pub type PolicyCosts = Costs<u32>;

/// A calibration file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The command that measured it.
    pub command: String,
    /// The machine it was measured on.
    pub machine: String,
    /// When.
    pub measured: String,
    /// The costs, in nanoseconds.
    pub ns: Costs<f64>,
}

impl Calibration {
    /// The calibration the repository ships ([`RUNTIME`]).
    pub fn runtime() -> Calibration {
        Calibration::parse(RUNTIME, RUNTIME_PATH).expect("the shipped calibration parses (tested)")
    }

    /// Reads the calibration file at `path`.
    ///
    /// # Errors
    /// When the file cannot be read or is not a calibration; the message names `path`.
    pub fn load(path: &Path) -> Result<Calibration, CalibrationError> {
        let origin = path.display().to_string();
        let text = locus_files::read_input_string(
            "calibration",
            path,
            MAX_FILE_BYTES,
            "a calibration file",
        )
        .map_err(|e| CalibrationError::new(&origin, format!("cannot read it: {}", e.reason())))?;
        Calibration::parse(&text, &origin)
    }

    /// Parses a calibration's `text`; `origin` names it in errors.
    ///
    /// # Errors
    /// As the module documentation lists.
    pub fn parse(text: &str, origin: &str) -> Result<Calibration, CalibrationError> {
        let err = |what: String| CalibrationError::new(origin, what);
        let mut texts: [Option<String>; 3] = Default::default();
        let mut costs: [Option<f64>; 4] = [None; 4];
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(err(format!(
                    "line {}: expected `key = value`, found {line:?}",
                    n + 1
                )));
            };
            let (key, value) = (key.trim(), value.trim());
            let seen = if let Some(i) = TEXT_KEYS.iter().position(|&k| k == key) {
                let parsed = quoted(value).ok_or_else(|| {
                    err(format!(
                        "key {key:?} must be a string in double quotes, found {value:?}"
                    ))
                })?;
                texts[i].replace(parsed).is_some()
            } else if let Some(i) = COST_KEYS.iter().position(|&k| k == key) {
                let value = value.split_once('#').map_or(value, |(v, _)| v).trim();
                let ns = nanoseconds(value).ok_or_else(|| {
                    err(format!(
                        "key {key:?} must be a number of nanoseconds from 0 to {MAX_NS}, \
                         found {value:?}"
                    ))
                })?;
                costs[i].replace(ns).is_some()
            } else {
                return Err(err(format!(
                    "line {}: unknown key {key:?}; expected one of {}, {}",
                    n + 1,
                    TEXT_KEYS.join(", "),
                    COST_KEYS.join(", ")
                )));
            };
            if seen {
                return Err(err(format!("key {key:?} appears more than once")));
            }
        }
        let missing = |key: &str| err(format!("key {key:?} is missing"));
        let [command, machine, measured] = texts;
        let mut ns = [0.0; 4];
        for (i, cost) in costs.iter().enumerate() {
            ns[i] = cost.ok_or_else(|| missing(COST_KEYS[i]))?;
        }
        let [place, task_event, profiled_task, shared_queue] = ns;
        Ok(Calibration {
            command: command.ok_or_else(|| missing("command"))?,
            machine: machine.ok_or_else(|| missing("machine"))?,
            measured: measured.ok_or_else(|| missing("measured"))?,
            ns: Costs {
                place,
                task_event,
                profiled_task,
                shared_queue,
            },
        })
    }

    /// The costs in cycles of a core clocked at `clock_ghz`, rounded to the nearest.
    pub fn cycles(&self, clock_ghz: f64) -> PolicyCosts {
        let c = |ns: f64| (ns * clock_ghz).round() as u32;
        Costs {
            place: c(self.ns.place),
            task_event: c(self.ns.task_event),
            profiled_task: c(self.ns.profiled_task),
            shared_queue: c(self.ns.shared_queue),
        }
    }

    /// One line for reports: the costs and where they came from.
    pub fn describe(&self, origin: &str) -> String {
        let mut out = String::new();
        let values = [
            self.ns.place,
            self.ns.task_event,
            self.ns.profiled_task,
            self.ns.shared_queue,
        ];
        for (key, ns) in COST_KEYS.iter().zip(values) {
            let _ = write!(out, "{key} {ns} ns, ");
        }
        let _ = write!(out, "from {origin}, measured on {}", self.machine);
        out
    }
}

/// The bench ids of `crates/runtime/benches/hot_path.rs`'s `policy` group that
/// [`Calibration::derive`] reads, as criterion names their folders
/// (`target/criterion/policy/NAME/new/estimates.json`).
pub const BENCH_IDS: [&str; 13] = [
    "place_cats",
    "place_cab",
    "place_mts",
    "events_cats",
    "events_cab",
    "events_plain_cats",
    "events_plain_cab",
    "first_tree_ws",
    "first_tree_cats",
    "first_tree_cab",
    "first_tree_mts",
    "tree_ws",
    "tree_mts",
];

/// Calls per figure of the bench's batches (`place`, `events`, `events_plain`).
const BENCH_BATCH: f64 = 1024.0;

/// Joins of the bench's one-shot tree, `fib(20)` with a join at every call (21,891
/// tasks).
const FIRST_TREE_JOINS: f64 = 10945.0;

/// Tasks of that tree that cats and cab profile: its tasks touch no data, so the profile
/// gives up after its first look ([`locus_policy::FIRST_LOOK`]), and the tree's cost
/// beyond ws is theirs.
const FIRST_TREE_PROFILED: f64 = locus_policy::FIRST_LOOK as f64;

impl Calibration {
    /// The costs from the medians of the bench's `policy` group, in nanoseconds per
    /// figure as criterion reports them (`median(id)` for each of [`BENCH_IDS`]; `None`
    /// where one is missing):
    /// - `place`: the mean over cats, cab and mts of a `place` call on a policy that
    ///   is profiling or noting (`place_P`);
    /// - `task_event`: the mean over cats and cab of a task's events reported without
    ///   its cost (`events_plain_P - place_P`);
    /// - `profiled_task`: the mean over cats and cab of what a profiled task of a
    ///   one-shot tree costs beyond ws, less its `place` (`first_tree_P -
    ///   first_tree_ws`, per task the profile recorded, [`locus_policy::FIRST_LOOK`]): the
    ///   profile's lock as the pool's two workers contend for it, the clock reads, and
    ///   the profile's start (its counters, its maps) spread over its tasks;
    /// - `shared_queue`: what a join of that tree costs mts beyond ws, less its `place`:
    ///   mts places one half of each join in its squad's queue, where the runtime runs
    ///   most of them at once, unqueued (`WorkerThread::push_half` in the runtime; the
    ///   simulator queues every half), so this is the queue's push and pop averaged over
    ///   every join, queued or not.
    ///
    /// A figure that comes out negative (noise larger than the cost) is 0.
    pub fn derive(
        median: impl Fn(&str) -> Option<f64>,
        command: &str,
        machine: &str,
        measured: &str,
    ) -> Option<Calibration> {
        let per_call = |id: &str| Some(median(id)? / BENCH_BATCH);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let places = [
            per_call("place_cats")?,
            per_call("place_cab")?,
            per_call("place_mts")?,
        ];
        let place = mean(&places);
        let ws = median("first_tree_ws")?;
        let task_event = mean(&[
            per_call("events_plain_cats")? - places[0],
            per_call("events_plain_cab")? - places[1],
        ]);
        let profiled = |id: &str| Some((median(id)? - ws) / FIRST_TREE_PROFILED);
        let profiled_task =
            mean(&[profiled("first_tree_cats")?, profiled("first_tree_cab")?]) - place;
        let mts = (median("first_tree_mts")? - ws) / FIRST_TREE_JOINS;
        let shared_queue = mts - place;
        let round = |ns: f64| (ns.max(0.0) * 10.0).round() / 10.0;
        Some(Calibration {
            command: command.to_string(),
            machine: machine.to_string(),
            measured: measured.to_string(),
            ns: Costs {
                place: round(place),
                task_event: round(task_event),
                profiled_task: round(profiled_task),
                shared_queue: round(shared_queue),
            },
        })
    }

    /// The calibration as a file [`Calibration::parse`] reads back, with a header
    /// saying where its figures come from.
    pub fn to_file(&self) -> String {
        let mut out = String::from(HEADER);
        for (key, value) in TEXT_KEYS
            .iter()
            .zip([&self.command, &self.machine, &self.measured])
        {
            let _ = writeln!(out, "{key} = \"{value}\"");
        }
        out.push('\n');
        let ns = self.ns;
        for (key, value) in
            COST_KEYS
                .iter()
                .zip([ns.place, ns.task_event, ns.profiled_task, ns.shared_queue])
        {
            let _ = writeln!(out, "{key} = {value}");
        }
        out
    }
}

/// The comment at the top of a calibration file that [`Calibration::to_file`] writes.
const HEADER: &str = "\
# What locus's runtime pays for a policy's own work, in nanoseconds, measured on the
# machine below; `locus sim matrix` charges each at the simulated machine's clock
# (crates/sim/src/calibration.rs says where the engine charges what, and
# `Calibration::derive` how each figure comes from the medians of the bench's `policy`
# group). To measure again: the command, then
# `cargo run -p locus-sim --example calibrate -- MACHINE DATE > crates/sim/calibration/runtime.toml`.
";

/// `value` without its double quotes, if it is one quoted string with no quote inside
/// (a comment may follow).
fn quoted(value: &str) -> Option<String> {
    let inner = value.strip_prefix('"')?;
    let (text, rest) = inner.split_once('"')?;
    let rest = rest.trim();
    (rest.is_empty() || rest.starts_with('#')).then(|| text.to_string())
}

/// A cost from its text, if it is a number from 0 to [`MAX_NS`].
fn nanoseconds(value: &str) -> Option<f64> {
    let ns: f64 = value.parse().ok()?;
    (ns.is_finite() && (0.0..=MAX_NS).contains(&ns)).then_some(ns)
}

/// A calibration file that cannot be used: its message names the file and the key or
/// line at fault.
#[derive(Debug, thiserror::Error)]
#[error("calibration {origin:?}: {what}")]
pub struct CalibrationError {
    origin: String,
    what: String,
}

impl CalibrationError {
    fn new(origin: &str, what: String) -> CalibrationError {
        CalibrationError {
            origin: origin.to_string(),
            what,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "command = \"cargo bench\"\nmachine = \"here\" # a comment\n\
        measured = \"today\"\n\n# costs\nplace = 10\ntask_event = 2.5\n\
        profiled_task = 40 # ns\nshared_queue = 0\n";

    fn error(text: &str) -> String {
        Calibration::parse(text, "cal.toml")
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn a_calibration_parses_and_converts_at_the_clock() {
        let c = Calibration::parse(GOOD, "cal.toml").unwrap();
        assert_eq!(c.machine, "here");
        assert_eq!(c.ns.task_event, 2.5);
        let cycles = c.cycles(2.0);
        assert_eq!(
            cycles,
            Costs {
                place: 20,
                task_event: 5,
                profiled_task: 80,
                shared_queue: 0
            }
        );
    }

    #[test]
    fn the_shipped_calibration_parses() {
        let c = Calibration::runtime();
        assert!(c.command.contains("hot_path"), "{}", c.command);
        assert!(!c.machine.is_empty());
    }

    #[test]
    fn broken_files_name_the_file_and_the_key() {
        // (what is replaced in GOOD, by what, what the message says)
        let broken = [
            ("place = 10\n", "", "\"place\" is missing"),
            ("machine = \"here\"", "", "\"machine\" is missing"),
            ("place = 10", "place = -1", "\"place\" must be"),
            (
                "task_event = 2.5",
                "task_event = fast",
                "\"task_event\" must be",
            ),
            (
                "shared_queue = 0",
                "shared_queue = inf",
                "\"shared_queue\" must be",
            ),
            (
                "shared_queue = 0",
                "shared_queue = 1e9",
                "\"shared_queue\" must be",
            ),
            (
                "measured = \"today\"",
                "measured = today",
                "\"measured\" must be a string",
            ),
            (
                "place = 10",
                "place = 10\nplace = 3",
                "\"place\" appears more than once",
            ),
            ("place = 10", "spawn = 3", "unknown key \"spawn\""),
            ("place = 10", "just words", "line 6"),
        ];
        for (from, to, says) in broken {
            let e = error(&GOOD.replace(from, to));
            assert!(e.contains("cal.toml") && e.contains(says), "{says}: {e}");
        }
    }

    /// Tasks of the bench's one-shot tree.
    const FIRST_TREE_TASKS: f64 = 21891.0;

    #[test]
    fn derived_figures_follow_their_rules_and_read_back() {
        let median = |id: &str| {
            Some(match id {
                "place_cats" | "place_cab" => 10.0 * BENCH_BATCH,
                "place_mts" => 40.0 * BENCH_BATCH,
                "events_plain_cats" => 25.0 * BENCH_BATCH,
                "events_plain_cab" => 15.0 * BENCH_BATCH,
                "first_tree_ws" => 5.0 * FIRST_TREE_TASKS,
                "first_tree_cats" => 5.0 * FIRST_TREE_TASKS + 300.0 * FIRST_TREE_PROFILED,
                "first_tree_cab" => 5.0 * FIRST_TREE_TASKS + 100.0 * FIRST_TREE_PROFILED,
                "first_tree_mts" => 5.0 * FIRST_TREE_TASKS + 30.0 * FIRST_TREE_JOINS,
                _ => return None,
            })
        };
        let c = Calibration::derive(median, "cmd", "m", "d").unwrap();
        let want = Costs {
            place: 20.0,
            task_event: 10.0,
            profiled_task: 180.0,
            shared_queue: 10.0,
        };
        assert_eq!(c.ns, want);
        assert_eq!(Calibration::parse(&c.to_file(), "derived").unwrap(), c);
        let missing = |id: &str| (id != "place_cab").then(|| median(id)).flatten();
        assert!(Calibration::derive(missing, "cmd", "m", "d").is_none());
    }

    #[test]
    fn an_unreadable_file_is_named() {
        let e = Calibration::load(Path::new("/nonexistent/cal.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/cal.toml"), "{e}");
    }
}
