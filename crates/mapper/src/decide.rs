//! The decision round: samples of one interval in, moves out (SAM-MPH, Section 4).
//!
//! [`Mapper::decide`] runs once per interval (the paper: every 100 ms):
//!
//! 1. **Classify** each thread's interval ([`crate::classify`]) and shift the
//!    classes into its history ([`crate::history`]); the classes that *hold*
//!    are those seen in at least `occurrence` of the last `history` intervals.
//!    Threads seen for the first time start with an empty history; threads
//!    missing from the samples are forgotten; a thread listed twice counts once
//!    (the first sample).
//! 2. **Aggregate** per application (threads grouped by `pid`): its coherence
//!    class is that of its thread with the most coherence activity. Its SPC and
//!    IPC are cumulative since its class last changed; an interval adds to them
//!    only when its own cross-socket coherence supports the class (not while
//!    the class holds by retention after colocation), so that the values measured
//!    across sockets are kept for prioritisation, as the paper prescribes.
//! 3. **Order**: applications with high coherence first, by SPC descending
//!    (unknown SPC last); then those with medium coherence, by IPC ascending
//!    (the least latency-tolerant first). Without latency awareness (SAM), both
//!    tiers are ordered by this interval's cross-socket coherence rate instead.
//! 4. **Place** (the private `place` module): each sharing application on a
//!    socket of its own where one is free, else the fewest sockets; its threads
//!    paired on the hyperthreads of one core when its SPC exceeds `spc_high`
//!    (and the thread's IPC is low); high-IPC threads on cores of their own
//!    while cores last;
//!    memory-bound threads of non-sharing applications spread evenly over the
//!    sockets, next to their memory (the socket whose DRAM served most of their
//!    reads); everything else stays where it is while there is room.
//! 5. **Move** only threads whose PU differs from where they run. A move pins
//!    the thread to one PU; `Move::reason` names its classes and role.
//!
//! On a machine with fewer than two sockets there is nothing to decide (the
//! mapper places threads *across* sockets; within one, the kernel's SMT-aware
//! balancing is left alone): classes and histories are kept, no move is made.
//! Idle threads (zero cycles in the interval) keep their history (an empty
//! interval) but are neither placed nor moved.
//!
//! # The SAM variant
//!
//! [`Config::sam`] gives the predecessor, for comparison: no history (the
//! current interval alone), no latency tolerance (no SPC or IPC ordering), no
//! hyperthread roles (every PU is as good as another). Its classification and
//! placement are otherwise the same code.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::BuildHasherDefault;

use crate::classify::{classify, IntervalClass, Level};
use crate::history::{ThreadHistory, MAX_HISTORY};
use crate::model::{Counts, MachineShape, Move, ThreadSample};
use crate::place::{self, Group, Item, Layout, Request, Role};

/// The mapper's thresholds and switches. [`Config::default`] is SAM-MPH with the
/// paper's values; [`Config::sam`] is the SAM variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Cross-socket coherence events per cycle above which coherence activity is
    /// *medium* (the low/medium cut). The SAM-MPH paper takes this cut from SAM
    /// without stating it; 0.2 × 10⁻³ (about a quarter of the medium/high cut) is
    /// a guess.
    pub coherence_medium: f64,
    /// Cross-socket coherence events per cycle above which coherence activity is
    /// *high*: 0.78 × 10⁻³ (the paper, Section 3).
    pub coherence_high: f64,
    /// Instructions per cycle above which a thread's IPC is *high*: 0.9 (the paper).
    pub ipc_high: f64,
    /// Stall cycles per cross-socket coherence event above which an application
    /// with high coherence is paired on hyperthreads: 550 (the paper).
    pub spc_high: f64,
    /// Memory reads (64-byte lines) per cycle from which a thread is memory-bound.
    /// Neither paper gives a number; 0.01 (1.4 GB/s at 2.2 GHz, a few percent of
    /// a socket's bandwidth) is a guess.
    pub bandwidth_high: f64,
    /// Intervals of history, n (1 to 64): 10 (the paper).
    pub history: u32,
    /// Occurrences in the last `history` intervals for a class to hold (1 to
    /// `history`): 6 (the paper).
    pub occurrence: u32,
    /// Order applications by latency tolerance (SPC, then IPC): the paper's SAM-M.
    pub latency_aware: bool,
    /// Tell hyperthreads from cores (pairs, solo high-IPC threads): the paper's SAM-H.
    pub hyperthreads: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            coherence_medium: 0.2e-3,
            coherence_high: 0.78e-3,
            ipc_high: 0.9,
            spc_high: 550.0,
            bandwidth_high: 0.01,
            history: 10,
            occurrence: 6,
            latency_aware: true,
            hyperthreads: true,
        }
    }
}

impl Config {
    /// SAM-MPH: the paper's mapper (the default).
    pub fn sam_mph() -> Config {
        Config::default()
    }

    /// The SAM variant: the current interval alone (history 1, occurrence 1), no
    /// latency-tolerance ordering, no hyperthread roles; the same thresholds.
    pub fn sam() -> Config {
        Config {
            history: 1,
            occurrence: 1,
            latency_aware: false,
            hyperthreads: false,
            ..Config::default()
        }
    }

    /// Checks every field.
    ///
    /// # Errors
    ///
    /// A threshold that is not a finite positive number, a low/medium coherence
    /// cut above the medium/high cut, a history outside 1 to 64 intervals, or an
    /// occurrence threshold outside 1 to `history`.
    pub fn validate(&self) -> Result<(), MapperError> {
        let positive = [
            ("coherence_medium", self.coherence_medium),
            ("coherence_high", self.coherence_high),
            ("ipc_high", self.ipc_high),
            ("spc_high", self.spc_high),
            ("bandwidth_high", self.bandwidth_high),
        ];
        for (field, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(MapperError::Config {
                    field,
                    value: value.to_string(),
                    expected: "a finite number above 0".to_owned(),
                });
            }
        }
        if self.coherence_medium > self.coherence_high {
            return Err(MapperError::Config {
                field: "coherence_medium",
                value: self.coherence_medium.to_string(),
                expected: format!("at most coherence_high ({})", self.coherence_high),
            });
        }
        if !(1..=MAX_HISTORY).contains(&self.history) {
            return Err(MapperError::Config {
                field: "history",
                value: self.history.to_string(),
                expected: format!("1 to {MAX_HISTORY} intervals"),
            });
        }
        if !(1..=self.history).contains(&self.occurrence) {
            return Err(MapperError::Config {
                field: "occurrence",
                value: self.occurrence.to_string(),
                expected: format!("1 to history ({})", self.history),
            });
        }
        Ok(())
    }

    /// This config with every invalid field replaced: thresholds by their
    /// defaults, history clamped to 1 to 64, occurrence to 1 to history.
    fn sanitized(&self) -> Config {
        let d = Config::default();
        let fix = |v: f64, default: f64| if v.is_finite() && v > 0.0 { v } else { default };
        let mut c = Config {
            coherence_medium: fix(self.coherence_medium, d.coherence_medium),
            coherence_high: fix(self.coherence_high, d.coherence_high),
            ipc_high: fix(self.ipc_high, d.ipc_high),
            spc_high: fix(self.spc_high, d.spc_high),
            bandwidth_high: fix(self.bandwidth_high, d.bandwidth_high),
            history: self.history.clamp(1, MAX_HISTORY),
            occurrence: 0,
            ..self.clone()
        };
        c.occurrence = self.occurrence.clamp(1, c.history);
        if c.coherence_medium > c.coherence_high {
            c.coherence_medium = c.coherence_high;
        }
        c
    }
}

/// A mapper that cannot be built as asked.
#[derive(Debug, thiserror::Error)]
pub enum MapperError {
    /// A [`Config`] field is out of range.
    #[error("mapper config: {field} = {value} is invalid; expected {expected}")]
    Config {
        /// The field's name.
        field: &'static str,
        /// Its value as given.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// The [`MachineShape`] is unusable.
    #[error("mapper machine shape: {reason}")]
    Machine {
        /// What is wrong with it.
        reason: String,
    },
}

/// The classes that hold for one thread (over its history).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadClass {
    /// Cross-socket coherence activity (with retention after colocation).
    pub coherence: Level,
    /// High IPC holds.
    pub ipc_high: bool,
    /// High memory bandwidth holds.
    pub bandwidth_high: bool,
    /// Intervals recorded so far.
    pub intervals: u32,
}

/// The classes of one application (its threads grouped by pid).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AppClass {
    /// The coherence class of its thread with the most coherence activity.
    pub coherence: Level,
    /// Stall cycles per cross-socket coherence event since its class last
    /// changed; `None` when unknown.
    pub spc: Option<f64>,
    /// Instructions per cycle over the same intervals; `None` before any.
    pub ipc: Option<f64>,
    /// Threads seen in the last round.
    pub threads: usize,
}

/// What the mapper remembers of one thread.
#[derive(Debug, Clone)]
struct ThreadState {
    comm: String,
    history: ThreadHistory,
    /// The socket whose DRAM served most of its reads, where known.
    home: Option<usize>,
    /// The PU the mapper last chose for it as a thread of a sharing application.
    pinned: Option<usize>,
    /// The round it was last seen in.
    seen: u64,
    /// This round: where it runs (on this machine) and its interval's classes.
    current: Option<usize>,
    class: Option<IntervalClass>,
    counts: Counts,
}

/// Cumulative counts of one application since its class last changed.
#[derive(Debug, Clone, Default)]
struct AppState {
    level: Level,
    stalls: f64,
    events: f64,
    stalls_known: bool,
    instructions: f64,
    cycles: f64,
    threads: usize,
    seen: u64,
}

impl AppState {
    fn spc(&self) -> Option<f64> {
        (self.stalls_known && self.events > 0.0).then(|| self.stalls / self.events)
    }

    fn ipc(&self) -> Option<f64> {
        (self.cycles > 0.0).then(|| self.instructions / self.cycles)
    }
}

/// The sharing-aware thread mapper: keeps per-thread histories between rounds and
/// decides moves from each interval's samples. Makes no system call.
#[derive(Debug, Clone)]
pub struct Mapper {
    machine: MachineShape,
    config: Config,
    layout: Layout,
    threads: HashMap<(u32, u32), ThreadState, FastHash>,
    apps: HashMap<u32, AppState, FastHash>,
    round: u64,
}

/// One application of a round, for ordering and reasons.
struct AppRound {
    pid: u32,
    /// Indices into the round's items, in thread-id order.
    items: Vec<usize>,
    level: Level,
    spc: Option<f64>,
    ipc: Option<f64>,
    rate: f64,
}

impl Mapper {
    /// A mapper for `machine`. An invalid `config` is repaired rather than refused
    /// (thresholds that are not finite positive numbers take their defaults, the
    /// history is clamped to 1 to 64 intervals and the occurrence threshold to 1
    /// to the history); use [`Mapper::try_new`] to be told instead. A PU listed
    /// twice in `machine` counts where it is listed first.
    pub fn new(machine: MachineShape, config: Config) -> Mapper {
        let config = config.sanitized();
        let layout = Layout::new(&machine);
        Mapper {
            machine,
            config,
            layout,
            threads: HashMap::default(),
            apps: HashMap::default(),
            round: 0,
        }
    }

    /// A mapper for `machine`, refusing an invalid config or machine.
    ///
    /// # Errors
    ///
    /// [`MapperError::Config`] as [`Config::validate`]; [`MapperError::Machine`]
    /// when the machine has no PU or lists a PU twice.
    pub fn try_new(machine: MachineShape, config: Config) -> Result<Mapper, MapperError> {
        config.validate()?;
        if machine.num_pus() == 0 {
            return Err(MapperError::Machine {
                reason: "it has no PU".to_owned(),
            });
        }
        let mut seen = std::collections::HashSet::new();
        for (s, socket) in machine.sockets.iter().enumerate() {
            for (c, core) in socket.iter().enumerate() {
                for &pu in core {
                    if !seen.insert(pu) {
                        return Err(MapperError::Machine {
                            reason: format!(
                                "PU {pu} is listed twice (again in socket {s}, core {c})"
                            ),
                        });
                    }
                }
            }
        }
        Ok(Mapper::new(machine, config))
    }

    /// The machine decided for.
    pub fn machine(&self) -> &MachineShape {
        &self.machine
    }

    /// The config in use (after repair, see [`Mapper::new`]).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The classes that hold for a thread seen in the last round.
    pub fn thread_class(&self, pid: u32, tid: u32) -> Option<ThreadClass> {
        let t = self.threads.get(&(pid, tid))?;
        let (n, k) = (self.config.history, self.config.occurrence);
        Some(ThreadClass {
            coherence: t.history.coherence(n, k),
            ipc_high: t.history.ipc_high(n, k),
            bandwidth_high: t.history.bandwidth_high(n, k),
            intervals: t.history.intervals(),
        })
    }

    /// The classes of an application seen in the last round.
    pub fn app_class(&self, pid: u32) -> Option<AppClass> {
        let a = self.apps.get(&pid)?;
        Some(AppClass {
            coherence: a.level,
            spc: a.spc(),
            ipc: a.ipc(),
            threads: a.threads,
        })
    }

    /// One decision round over this interval's samples; returns the moves to apply now
    /// (threads already where they should be are not listed). Threads that appear or
    /// vanish between rounds are normal.
    pub fn decide(&mut self, samples: &[ThreadSample]) -> Vec<Move> {
        self.round += 1;
        let keys = self.ingest(samples);
        let apps = self.aggregate(&keys);
        if self.layout.usable_sockets() < 2 {
            return Vec::new();
        }
        self.place(&keys, &apps)
    }

    /// Step 1: classify and record; returns the keys of this round's threads, sorted.
    fn ingest(&mut self, samples: &[ThreadSample]) -> Vec<(u32, u32)> {
        let round = self.round;
        let mut keys = Vec::with_capacity(samples.len());
        for s in samples {
            let key = (s.pid, s.tid);
            let t = self.threads.entry(key).or_insert_with(|| ThreadState {
                comm: s.comm.clone(),
                history: ThreadHistory::new(),
                home: None,
                pinned: None,
                seen: 0,
                current: None,
                class: None,
                counts: Counts::default(),
            });
            if t.seen == round {
                continue;
            }
            t.seen = round;
            let current = s.cpu.filter(|&pu| self.layout.loc(pu).is_some());
            let class = classify(&s.counts, &self.config);
            match &class {
                Some(c) => {
                    let at_pinned = current.is_some() && current == t.pinned;
                    t.history.record(c, at_pinned);
                }
                None => t.history.record_idle(),
            }
            t.current = current;
            t.class = class;
            t.counts = s.counts;
            if let Some(home) = home_of(&s.counts, current, &self.layout) {
                t.home = Some(home);
            }
            keys.push(key);
        }
        self.threads.retain(|_, t| t.seen == round);
        keys.sort_unstable();
        keys
    }

    /// Step 2: per-application classes and cumulative SPC and IPC.
    fn aggregate(&mut self, keys: &[(u32, u32)]) -> Vec<(u32, Level, f64)> {
        let round = self.round;
        let (n, k) = (self.config.history, self.config.occurrence);
        let mut out = Vec::new();
        for app_keys in keys.chunk_by(|a, b| a.0 == b.0) {
            let pid = app_keys[0].0;
            let mut level = Level::Low;
            let mut raw = Level::Low;
            let (mut stalls, mut events, mut stalls_known) = (0.0, 0.0, false);
            let (mut instructions, mut cycles) = (0.0, 0.0);
            let mut rate_sum = 0.0;
            let mut active = 0usize;
            for key in app_keys {
                let t = &self.threads[key];
                let Some(c) = &t.class else { continue };
                active += 1;
                level = level.max(t.history.coherence(n, k));
                raw = raw.max(c.coherence);
                rate_sum += c.coherence_rate.unwrap_or(0.0);
                instructions += t.counts.instructions as f64;
                cycles += t.counts.cycles as f64;
                if c.coherence == Level::High {
                    if let (Some(st), Some(ev)) = (t.counts.stall_cycles, t.counts.hitm_remote) {
                        stalls += st as f64;
                        events += ev as f64;
                        stalls_known = true;
                    }
                }
            }
            let a = self.apps.entry(pid).or_default();
            let fresh = a.seen == 0;
            a.seen = round;
            a.threads = app_keys.len();
            if fresh || a.level != level {
                *a = AppState {
                    level,
                    stalls,
                    events,
                    stalls_known,
                    instructions,
                    cycles,
                    threads: app_keys.len(),
                    seen: round,
                };
            } else if !(raw == Level::Low && level > Level::Low) {
                a.stalls += stalls;
                a.events += events;
                a.stalls_known |= stalls_known;
                a.instructions += instructions;
                a.cycles += cycles;
            }
            let rate = if active > 0 {
                rate_sum / active as f64
            } else {
                0.0
            };
            out.push((pid, level, rate));
        }
        self.apps.retain(|_, a| a.seen == round);
        out
    }

    /// Steps 3 to 5.
    fn place(&mut self, keys: &[(u32, u32)], apps: &[(u32, Level, f64)]) -> Vec<Move> {
        let (n, k) = (self.config.history, self.config.occurrence);
        let mut req = Request {
            items: Vec::with_capacity(keys.len()),
            groups: Vec::new(),
            rest: Vec::new(),
            hyperthreads: self.config.hyperthreads,
        };
        let mut item_keys: Vec<(u32, u32)> = Vec::with_capacity(keys.len());
        let mut rounds: Vec<AppRound> = Vec::with_capacity(apps.len());
        let mut key_iter = keys.chunk_by(|a, b| a.0 == b.0);
        for &(pid, level, rate) in apps {
            let app_keys = key_iter.next().unwrap_or(&[]);
            let state = self.apps.get(&pid);
            let mut items = Vec::with_capacity(app_keys.len());
            for key in app_keys {
                let t = &self.threads[key];
                if t.class.is_none() {
                    continue;
                }
                items.push(req.items.len());
                item_keys.push(*key);
                req.items.push(Item {
                    current: t.current,
                    ipc_high: t.history.ipc_high(n, k),
                    memory: level == Level::Low && t.history.bandwidth_high(n, k),
                    home: t.home,
                });
            }
            rounds.push(AppRound {
                pid,
                items,
                level,
                spc: state.and_then(AppState::spc),
                ipc: state.and_then(AppState::ipc),
                rate,
            });
        }
        // Priority order of the sharing applications.
        let mut sharing: Vec<usize> = (0..rounds.len())
            .filter(|&a| rounds[a].level > Level::Low && !rounds[a].items.is_empty())
            .collect();
        let latency = self.config.latency_aware;
        sharing.sort_by(|&a, &b| {
            let (x, y) = (&rounds[a], &rounds[b]);
            y.level.cmp(&x.level).then_with(|| {
                let by_value = if !latency {
                    y.rate.total_cmp(&x.rate)
                } else if x.level == Level::High {
                    // SPC descending, unknown last.
                    known_first(x.spc, y.spc, |a, b| b.total_cmp(&a))
                } else {
                    // IPC ascending, unknown last.
                    known_first(x.ipc, y.ipc, |a, b| a.total_cmp(&b))
                };
                by_value.then(x.pid.cmp(&y.pid))
            })
        });
        let mut rank = vec![0usize; rounds.len()];
        for (r, &a) in sharing.iter().enumerate() {
            rank[a] = r + 1;
            let app = &rounds[a];
            req.groups.push(Group {
                items: app.items.clone(),
                pair: app.level == Level::High && app.spc.is_some_and(|s| s > self.config.spc_high),
            });
        }
        for (a, app) in rounds.iter().enumerate() {
            if rank[a] == 0 {
                req.rest.extend(&app.items);
            }
        }
        let placed = place::place(&self.layout, &req);

        let mut moves = Vec::new();
        let mut app_of = vec![0usize; req.items.len()];
        for (a, app) in rounds.iter().enumerate() {
            for &i in &app.items {
                app_of[i] = a;
            }
        }
        for (i, p) in placed.iter().enumerate() {
            let Some(p) = p else { continue };
            let key = item_keys[i];
            let Some(t) = self.threads.get_mut(&key) else {
                continue;
            };
            let a = app_of[i];
            t.pinned = (rank[a] > 0).then_some(p.pu);
            if t.current == Some(p.pu) {
                continue;
            }
            let reason = reason(
                &self.config,
                &t.comm,
                &rounds[a],
                rank[a],
                sharing.len(),
                &req.items[i],
                p,
            );
            moves.push(Move {
                pid: key.0,
                tid: key.1,
                cpus: vec![p.pu],
                reason,
            });
        }
        moves
    }
}

/// The maps of threads and applications hash a few small integers per lookup,
/// several times per thread and round; SipHash's protection against chosen keys
/// buys nothing there (the keys are the kernel's pids and tids), and its cost is
/// a good part of a round. This is the multiply-rotate hash of rustc's `FxHasher`.
type FastHash = BuildHasherDefault<locus_task::rng::FxHasher>;

/// Orders known values by `by`, unknown values after them.
fn known_first(
    a: Option<f64>,
    b: Option<f64>,
    by: impl Fn(f64, f64) -> std::cmp::Ordering,
) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Some(a), Some(b)) => by(a, b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The socket whose memory served most of a thread's DRAM reads this interval:
/// its own socket when local reads dominate; the other one on a two-socket
/// machine when remote reads dominate; unknown otherwise.
fn home_of(counts: &Counts, current: Option<usize>, layout: &Layout) -> Option<usize> {
    let socket = layout.loc(current?)?.socket;
    let (local, remote) = (counts.dram_local?, counts.dram_remote?);
    if local > remote {
        Some(socket)
    } else if remote > local && layout.num_sockets() == 2 {
        Some(1 - socket)
    } else {
        None
    }
}

/// One line: the application's and the thread's classes, and where it goes.
fn reason(
    config: &Config,
    comm: &str,
    app: &AppRound,
    rank: usize,
    ranked: usize,
    item: &Item,
    placed: &place::Placed,
) -> String {
    let mut r = String::with_capacity(128);
    let _ = write!(r, "{comm} (pid {}): coherence {}", app.pid, app.level);
    if let Some(spc) = app.spc.filter(|_| app.level == Level::High) {
        let _ = write!(r, ", SPC {spc:.0}");
    }
    if let Some(ipc) = app.ipc {
        let _ = write!(r, ", IPC {ipc:.2}");
    }
    if rank > 0 {
        let by = if !config.latency_aware {
            "coherence rate"
        } else if app.level == Level::High {
            "SPC"
        } else {
            "IPC"
        };
        let _ = write!(r, ", priority {rank} of {ranked} by {by}");
    }
    let _ = write!(
        r,
        "; thread IPC {}",
        if item.ipc_high { "high" } else { "low" }
    );
    if item.memory {
        let _ = write!(r, ", memory-bound");
        if let Some(h) = item.home {
            let _ = write!(r, " (memory on socket {h})");
        }
    }
    let what = match (placed.role, rank > 0, item.memory) {
        (Role::Pair, _, _) => "paired on the hyperthreads of one core",
        (Role::Solo, _, _) => "on a core of its own",
        (Role::Plain, true, _) => "consolidated",
        (Role::Plain, false, true) => "spread for bandwidth",
        (Role::Plain, false, false) => "placed",
    };
    let _ = write!(r, "; {what} on socket {}", placed.socket);
    r
}
