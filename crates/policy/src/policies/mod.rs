//! The policies of the Qthreads comparison set (Olivier et al., "Scheduling task
//! parallelism on multi-socket multicore systems"), and how to name them.

mod assigned;
pub(crate) mod bitier;
mod cab;
mod cats;
mod central;
mod deal;
mod iteration;
mod mts;
pub(crate) mod online;
mod rr;
mod ws;

pub use assigned::{
    Affinity, Slot, StaticBlocks, TaskSchedule, TaskScheduleError, SCHEDULE_PLACED,
    SCHEDULE_UNKNOWN,
};
pub use bitier::Tier;
pub use cab::{boundary_level, Cab, CabInputs};
pub use cats::{Cats, DEFAULT_CMPI_THRESHOLD};
pub use central::Central;
pub use iteration::{contiguous_counts, contiguous_squad};
pub use mts::Mts;
pub use online::{classify, is_cpu_bound, soid, FIRST_LOOK};
pub use rr::RoundRobin;
pub use ws::WorkStealing;

use crate::{Order, Policy, WorkerMap};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The two halves of a join of `parent`, as `locus::join` makes them (at one call
/// site, this function's): the tests' shorthand.
#[cfg(test)]
pub(crate) fn join_halves(parent: &crate::TaskInfo) -> (crate::TaskInfo, crate::TaskInfo) {
    let site = locus_task::JoinSite::of(std::panic::Location::caller());
    locus_task::Spawner::of(*parent).join_children(site)
}

/// The task `id` at `level` of its tree, not a loop chunk: the tests' shorthand.
#[cfg(test)]
pub(crate) fn task_at(id: u64, level: u32) -> crate::TaskInfo {
    crate::TaskInfo {
        id: crate::TaskId(id),
        level,
        loop_chunks: 0,
    }
}

/// The policies locus ships, by name.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicyKind {
    /// `ws`: work stealing with pinned workers (Cilk-a).
    Ws,
    /// `ws:near`: `ws` with victims tried nearest first.
    WsNear,
    /// `ws-unpinned`: work stealing with unpinned workers (Cilk).
    WsUnpinned,
    /// `central`: one central LIFO queue (CQ).
    Central,
    /// `rr-fifo`: round robin to per-worker FIFO queues (Q).
    RrFifo,
    /// `rr-lifo`: round robin to per-worker LIFO queues (L).
    RrLifo,
    /// `mts`: a shared queue per squad, its shallow end first, bulk stealing between
    /// squads (MTS).
    Mts {
        /// Tasks moved by one bulk steal; `None` means the thief's squad size.
        batch: Option<usize>,
    },
    /// MTS as published: the squad queue popped newest first.
    MtsPaper {
        /// As for [`PolicyKind::Mts`].
        batch: Option<usize>,
    },
    /// `cab`: cache-aware bi-tier stealing with the boundary level of Eq. 4 (CAB), with
    /// iteration affinity.
    Cab(CabInputs),
    /// `cab-paper`: CAB as published: leaf inter-squad tasks go to whichever head
    /// takes them.
    CabPaper(CabInputs),
    /// `cats`: cache-aware stealing from the first iteration's profile (CATS), with
    /// iteration affinity and a partition that feeds every squad.
    Cats {
        /// CMPI below which the program is CPU-bound; `None` for the default.
        cmpi_threshold: Option<f64>,
    },
    /// `cats-paper`: CATS as published (Fig. 6's partition, no affinity).
    CatsPaper {
        /// CMPI below which the program is CPU-bound; `None` for the default.
        cmpi_threshold: Option<f64>,
    },
    /// `static`: every parallel loop in blocks of consecutive chunks, one per worker
    /// (OpenMP's `schedule(static)`), the rest work stealing.
    Static,
    /// `affinity`: a schedule made offline from an affinity graph (`locus profile`),
    /// the tasks it does not know work stealing's.
    Affinity(Arc<TaskSchedule>),
}

/// One row of [`POLICIES`]: a policy's name, the forms it takes, its parser, and what
/// the help texts and the documentation say of it.
#[derive(Debug, Clone, Copy)]
pub struct PolicyInfo {
    /// The name `--policy`, `LOCUS_POLICY` and reports use (what [`PolicyKind`]'s
    /// `Display` writes for the policy without parameters).
    pub name: &'static str,
    /// Other names accepted for it, in any case (the letters of the Qthreads paper).
    pub aliases: &'static [&'static str],
    /// The forms with parameters it also takes, placeholders in capitals (`mts:BATCH`);
    /// every form starts with `name:`.
    pub forms: &'static [&'static str],
    /// One example of each form, in the order of `forms`.
    pub examples: &'static [&'static str],
    /// What it does, in one line (the CLI's help texts).
    pub help: &'static str,
    /// Where it comes from: the paper or system, and what it is there.
    pub paper: &'static str,
    /// Where a spawned task goes.
    pub spawn: &'static str,
    /// Where an idle worker looks for work.
    pub idle: &'static str,
    /// In [`PolicyKind::ALL`]: what `locus bench --policy all` runs.
    pub in_all: bool,
    /// In what `locus sim --policy all` runs.
    pub in_sim_all: bool,
    /// A locality policy: `locus sim matrix` and a sweep over rows compare it with `ws`
    /// unless told otherwise.
    pub locality: bool,
    /// Why `locus sim` refuses it, where it does (the simulator would run it as another).
    pub not_simulated: Option<&'static str>,
    /// The policy from its name alone (`None`) or from what follows `name:` (only for
    /// rows with `forms`); the error is the reason.
    parse: fn(Option<&str>) -> Result<PolicyKind, String>,
}

impl PolicyInfo {
    /// The policy named without parameters, or `None` where the name alone makes none
    /// (`affinity` needs a schedule).
    pub fn plain(&self) -> Option<PolicyKind> {
        (self.parse)(None).ok()
    }
}

/// Why `affinity` cannot be made from its name.
const AFFINITY_NEEDS_A_SCHEDULE: &str =
    "affinity follows a schedule file: give it with --schedule FILE \
     (`locus profile KERNEL --out DIR` writes DIR/schedule.json)";

/// The policies locus ships, one row each, in the order reports list them. The parser
/// ([`PolicyKind`]'s `FromStr`), [`PolicyKind::NAMES`], the CLI's lists and help texts,
/// the tests that run every policy, `docs/policies.md`'s table and the README's
/// `LOCUS_POLICY` row (held to it by `tests/suite/docs.rs`) all read it: a new policy
/// is its file, its [`PolicyKind`] variant, and a row here.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "ws",
        aliases: &["cilk-a"],
        forms: &["ws:near"],
        examples: &["ws:near"],
        help: "work stealing with pinned workers: own deque first, then a random victim's \
               oldest task (Cilk-a); ws:near deals the top of every tree to squads and \
               steals own package first",
        paper: "Cilk-a in the CATS/CAB papers: pinned randomized work stealing",
        spawn: "own deque (LIFO); `ws:near` on several squads: the halves of the joins at \
                the top of every tree to squads by position, each iteration the same",
        idle: "own deque, then random victims' deques (oldest task); `ws:near`: own deque, \
               its squad's queue (where dealt tasks wait), then the own package's deques \
               from a random start, then other packages' nearest first (by NUMA distance)",
        in_all: true,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: parse_ws,
    },
    PolicyInfo {
        name: "ws-unpinned",
        aliases: &["cilk"],
        forms: &[],
        examples: &[],
        help: "ws with workers not pinned to their PUs (Cilk)",
        paper: "Cilk: the same, workers not pinned",
        spawn: "own deque",
        idle: "as `ws`",
        in_all: true,
        in_sim_all: false,
        locality: false,
        not_simulated: Some(
            "ws-unpinned differs from ws only in pinning, which the simulator does not \
             model (every simulated worker stays on its PU); use ws",
        ),
        parse: |_| Ok(PolicyKind::WsUnpinned),
    },
    PolicyInfo {
        name: "central",
        aliases: &["cq"],
        forms: &[],
        examples: &[],
        help: "one central LIFO queue for every task (Qthreads CQ)",
        paper: "Qthreads CQ (Olivier et al. 2012)",
        spawn: "one central LIFO queue",
        idle: "the central queue",
        in_all: true,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: |_| Ok(PolicyKind::Central),
    },
    PolicyInfo {
        name: "rr-fifo",
        aliases: &["q"],
        forms: &[],
        examples: &[],
        help: "tasks dealt round robin to per-worker FIFO queues, no stealing (Qthreads Q)",
        paper: "Qthreads Q",
        spawn: "per-worker queues, dealt round robin",
        idle: "own queue, oldest first; no stealing",
        in_all: true,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: |_| Ok(PolicyKind::RrFifo),
    },
    PolicyInfo {
        name: "rr-lifo",
        aliases: &["l"],
        forms: &[],
        examples: &[],
        help: "tasks dealt round robin to per-worker LIFO queues, no stealing (Qthreads L)",
        paper: "Qthreads L",
        spawn: "per-worker queues, dealt round robin",
        idle: "own queue, newest first; no stealing",
        in_all: true,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: |_| Ok(PolicyKind::RrLifo),
    },
    PolicyInfo {
        name: "mts",
        aliases: &[],
        forms: &["mts:BATCH"],
        examples: &["mts:3"],
        help: "a shared queue per squad, taken at its shallower end; an idle squad \
               bulk-steals BATCH tasks (default: its size) from a remote squad; a task \
               tree that repeats goes back to the squads that first ran it (Qthreads \
               MTS)",
        paper: "Qthreads MTS",
        spawn: "own squad's shared queue, but the top of the first tree that forks \
                dealt to the squads in turn (down to 8 subtrees a squad; each aligned run \
                of 2^⌈log2 m⌉ neighbouring subtrees covers all m squads); once a task id \
                repeats (a program's next iteration), a task the first iteration ran \
                goes to the shared queue of the squad it was first placed in \
                (iteration affinity)",
        idle: "own squad's queue: a worker waiting in a task its own newest task there, \
               else the oldest task if shallower than the newest (a larger subtree), \
               else the newest; when the queue is empty, one worker of the squad at a \
               time steals a batch (default: the squad's size; `mts:N` for N) of the \
               oldest tasks of a remote squad for the whole squad, from any squad until \
               a task id repeats, then nearest squads first",
        in_all: true,
        in_sim_all: true,
        locality: true,
        not_simulated: None,
        parse: |args| parse_mts(args, false),
    },
    PolicyInfo {
        name: "mts-paper",
        aliases: &[],
        forms: &["mts-paper:BATCH"],
        examples: &["mts-paper:3"],
        help: "MTS as published: the squad's shared queue popped newest first (LIFO)",
        paper: "Qthreads MTS as published",
        spawn: "own squad's shared LIFO queue",
        idle: "as `mts`, but the squad queue's newest task first, and bulk steals from \
               the nearest squads first throughout",
        in_all: false,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: |args| parse_mts(args, true),
    },
    PolicyInfo {
        name: "cab",
        aliases: &[],
        forms: &["cab:B:SIZE", "cab:bl=N"],
        examples: &["cab:2:48MiB", "cab:bl=4"],
        help: "cache-aware bi-tier stealing with iteration affinity, the boundary level \
               from Eq. 4 (B the branching degree and SIZE the input, else learned) or \
               bl=N (CAB)",
        paper: "CAB (Chen, Guo, Huang): cache-aware bi-tier stealing",
        spawn: "inter-squad tasks (DAG levels up to the boundary level `BL` of Eq. 4) go \
                parent-first to the squad's inter-squad pool; the others child-first to \
                the own deque",
        idle: "own deque, squad peers; the head of a squad that runs no leaf inter-squad \
               subtree (`busy_state`): its squad's inter-squad pool, then other squads' \
               (Algorithm I); while it learns its inputs, as `cats` while profiling",
        in_all: false,
        in_sim_all: true,
        locality: true,
        not_simulated: None,
        parse: |args| parse_cab(args, false),
    },
    PolicyInfo {
        name: "cab-paper",
        aliases: &[],
        forms: &["cab-paper:B:SIZE", "cab-paper:bl=N"],
        examples: &["cab-paper:4:1GB", "cab-paper:bl=3"],
        help: "CAB as published, without iteration affinity",
        paper: "CAB as published",
        spawn: "as `cab`, but a leaf inter-squad task waits in its spawner's squad's pool \
                for whichever head takes it",
        idle: "as `cab`, one leaf inter-squad subtree per squad at a time",
        in_all: false,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: |args| parse_cab(args, true),
    },
    PolicyInfo {
        name: "cats",
        aliases: &[],
        forms: &["cats:CMPI"],
        examples: &["cats:0.01"],
        help: "cache-aware stealing from the first iteration's profile, with iteration \
               affinity; as ws where the program is CPU-bound, its CMPI below the \
               threshold (CATS)",
        paper: "CATS (Chen, Guo, Huang): cache-aware stealing from online profiling",
        spawn: "first iteration: own deque, child-first, as `ws`, each task's cost \
                measured; then by each task's SOID (Eq. 1) against the shared cache (Fig. 6), \
                as `cab`",
        idle: "as `ws` while profiling (where packages hold several squads and the \
               profiled tasks touch memory, no more bytes than the squads' caches hold \
               together: the tree's top dealt to squads, stolen inside the own squad \
               until a task completes, then own package first, N-tier); then as `cab`; as \
               `ws` if the program is CPU-bound (CMPI below the threshold)",
        in_all: false,
        in_sim_all: true,
        locality: true,
        not_simulated: None,
        parse: |args| parse_cats(args, false),
    },
    PolicyInfo {
        name: "cats-paper",
        aliases: &[],
        forms: &["cats-paper:CMPI"],
        examples: &["cats-paper:0.5"],
        help: "CATS as published: Fig. 6's partition, without iteration affinity",
        paper: "CATS as published",
        spawn: "as `cats`, but parent-first while profiling (as the paper does), and \
                with Fig. 6's leaf inter-squad tasks",
        idle: "as `cats`, one leaf inter-squad subtree per squad at a time",
        in_all: false,
        in_sim_all: true,
        locality: false,
        not_simulated: None,
        parse: |args| parse_cats(args, true),
    },
    PolicyInfo {
        name: "static",
        aliases: &[],
        forms: &[],
        examples: &[],
        help: "every parallel loop dealt in one block of consecutive chunks per worker, \
               as OpenMP's schedule(static); other tasks as ws",
        paper: "OpenMP `schedule(static)`, the affinity paper's baseline",
        spawn: "a parallel loop: one block of consecutive chunks per worker, a lane that \
                worker runs in loop order; any other task: own deque",
        idle: "own inbox (its lanes), own deque, random victims' deques; nothing is stolen \
               from a lane",
        in_all: false,
        in_sim_all: false,
        locality: false,
        not_simulated: None,
        parse: |_| Ok(PolicyKind::Static),
    },
    PolicyInfo {
        name: "affinity",
        aliases: &[],
        forms: &[],
        examples: &[],
        help: "the schedule of --schedule FILE, made by `locus profile` from an affinity \
               graph; tasks it does not know as ws",
        paper: "feedback-directed affinity scheduling (Song, Moore, Dongarra)",
        spawn: "a parallel loop: per worker a lane of the chunks `--schedule FILE` gives \
                it, in the schedule's order; another task the schedule knows: its \
                worker's inbox; unknown tasks: own deque, counted (`schedule_unknown`)",
        idle: "as `static`",
        in_all: false,
        in_sim_all: false,
        locality: false,
        not_simulated: None,
        parse: |_| Err(AFFINITY_NEEDS_A_SCHEDULE.to_owned()),
    },
];

/// An unknown or malformed policy name.
#[derive(Debug, thiserror::Error)]
#[error("policy '{input}': {reason} (expected one of: {})", PolicyKind::NAMES.join(", "))]
pub struct PolicyError {
    input: String,
    reason: String,
}

impl PolicyKind {
    /// Every policy, in the order reports list them: the rows of [`POLICIES`] marked
    /// `in_all`, as a `const` for the runtime's tests (a test holds the two equal).
    pub const ALL: [PolicyKind; 6] = [
        PolicyKind::Ws,
        PolicyKind::WsUnpinned,
        PolicyKind::Central,
        PolicyKind::RrFifo,
        PolicyKind::RrLifo,
        PolicyKind::Mts { batch: None },
    ];

    /// The names [`FromStr`] accepts, those of [`POLICIES`] (whose rows give the forms
    /// with parameters; `affinity` is named here but made with [`PolicyKind::Affinity`]
    /// from a loaded schedule).
    pub const NAMES: [&'static str; POLICIES.len()] = {
        let mut names = [""; POLICIES.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = POLICIES[i].name;
            i += 1;
        }
        names
    };

    /// The policy's name, as its row in [`POLICIES`] spells it.
    pub fn name(&self) -> &'static str {
        match self {
            PolicyKind::Ws | PolicyKind::WsNear => "ws",
            PolicyKind::WsUnpinned => "ws-unpinned",
            PolicyKind::Central => "central",
            PolicyKind::RrFifo => "rr-fifo",
            PolicyKind::RrLifo => "rr-lifo",
            PolicyKind::Mts { .. } => "mts",
            PolicyKind::MtsPaper { .. } => "mts-paper",
            PolicyKind::Cab(_) => "cab",
            PolicyKind::CabPaper(_) => "cab-paper",
            PolicyKind::Cats { .. } => "cats",
            PolicyKind::CatsPaper { .. } => "cats-paper",
            PolicyKind::Static => "static",
            PolicyKind::Affinity(_) => "affinity",
        }
    }

    /// The policy's row in [`POLICIES`].
    pub fn info(&self) -> &'static PolicyInfo {
        let name = self.name();
        POLICIES
            .iter()
            .find(|row| row.name == name)
            .expect("every policy has a row (tests::every_policy_has_one_row)")
    }

    /// Builds the policy for the workers of `map`.
    pub fn build(&self, map: &WorkerMap) -> Arc<dyn Policy> {
        match self {
            PolicyKind::Ws => Arc::new(WorkStealing::new(map, true)),
            PolicyKind::WsNear => Arc::new(WorkStealing::nearest(map)),
            PolicyKind::WsUnpinned => Arc::new(WorkStealing::new(map, false)),
            PolicyKind::Central => Arc::new(Central),
            PolicyKind::RrFifo => Arc::new(RoundRobin::new(map, Order::Fifo)),
            PolicyKind::RrLifo => Arc::new(RoundRobin::new(map, Order::Lifo)),
            PolicyKind::Mts { batch } => Arc::new(Mts::new(map, *batch, false)),
            PolicyKind::MtsPaper { batch } => Arc::new(Mts::new(map, *batch, true)),
            PolicyKind::Cab(inputs) => Arc::new(Cab::new(map, *inputs, true)),
            PolicyKind::CabPaper(inputs) => Arc::new(Cab::new(map, *inputs, false)),
            PolicyKind::Cats { cmpi_threshold } => Arc::new(Cats::new(
                map,
                cmpi_threshold.unwrap_or(DEFAULT_CMPI_THRESHOLD),
                true,
            )),
            PolicyKind::CatsPaper { cmpi_threshold } => Arc::new(Cats::new(
                map,
                cmpi_threshold.unwrap_or(DEFAULT_CMPI_THRESHOLD),
                false,
            )),
            PolicyKind::Static => Arc::new(StaticBlocks::new(map)),
            PolicyKind::Affinity(schedule) => Arc::new(Affinity::new(map, Arc::clone(schedule))),
        }
    }
}

/// What a pool runs when no policy is named (and `LOCUS_POLICY` is unset): `cats`, the
/// locality policy. Over the simulator's matrix of kernels, sizes and machines it takes
/// at most 1.04 of `ws`'s makespan (docs/results.md, "Against ws everywhere"), and on a
/// machine of one squad it is `ws`'s layout and search; a program whose data its squads'
/// caches cannot hold, or that is CPU-bound, runs as `ws` after its profile.
impl Default for PolicyKind {
    fn default() -> PolicyKind {
        PolicyKind::Cats {
            cmpi_threshold: None,
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyKind::WsNear => f.write_str("ws:near"),
            PolicyKind::Mts { batch: Some(c) } | PolicyKind::MtsPaper { batch: Some(c) } => {
                write!(f, "{}:{c}", self.name())
            }
            PolicyKind::Cab(inputs) | PolicyKind::CabPaper(inputs) => {
                write_cab(f, self.name(), inputs)
            }
            PolicyKind::Cats { cmpi_threshold } | PolicyKind::CatsPaper { cmpi_threshold } => {
                write_cats(f, self.name(), cmpi_threshold)
            }
            _ => f.write_str(self.name()),
        }
    }
}

fn write_cab(f: &mut fmt::Formatter<'_>, name: &str, inputs: &CabInputs) -> fmt::Result {
    match inputs {
        CabInputs::Auto => f.write_str(name),
        CabInputs::Level(bl) => write!(f, "{name}:bl={bl}"),
        CabInputs::Given {
            branching,
            data_bytes,
        } => write!(f, "{name}:{branching}:{data_bytes}"),
    }
}

fn write_cats(f: &mut fmt::Formatter<'_>, name: &str, threshold: &Option<f64>) -> fmt::Result {
    match threshold {
        None => f.write_str(name),
        Some(t) => write!(f, "{name}:{t}"),
    }
}

impl FromStr for PolicyKind {
    type Err = PolicyError;

    /// A name of [`POLICIES`] or one of its aliases, in any case, or one of its forms
    /// (`name:` as written, then the parameters).
    fn from_str(s: &str) -> Result<PolicyKind, PolicyError> {
        let err = |reason: &str| PolicyError {
            input: s.to_string(),
            reason: reason.to_string(),
        };
        let name = s.trim();
        if let Some((head, args)) = name.split_once(':') {
            return match POLICIES
                .iter()
                .find(|row| row.name == head && !row.forms.is_empty())
            {
                Some(row) => (row.parse)(Some(args)).map_err(|r| err(&r)),
                None => Err(err("no policy has this name")),
            };
        }
        if name.is_empty() {
            return Err(err("the name is empty"));
        }
        let lower = name.to_ascii_lowercase();
        match POLICIES
            .iter()
            .find(|row| row.name == lower || row.aliases.contains(&lower.as_str()))
        {
            Some(row) => (row.parse)(None).map_err(|r| err(&r)),
            None => Err(err("no policy has this name")),
        }
    }
}

/// `ws` or `ws:near`.
fn parse_ws(args: Option<&str>) -> Result<PolicyKind, String> {
    match args {
        None => Ok(PolicyKind::Ws),
        Some("near") => Ok(PolicyKind::WsNear),
        Some(_) => Err("ws takes one form, ws:near (victims nearest first)".to_owned()),
    }
}

/// `mts`, `mts:BATCH`, or the same forms of `mts-paper` (`paper`).
fn parse_mts(args: Option<&str>, paper: bool) -> Result<PolicyKind, String> {
    let kind = |batch| {
        if paper {
            PolicyKind::MtsPaper { batch }
        } else {
            PolicyKind::Mts { batch }
        }
    };
    let Some(batch) = args else {
        return Ok(kind(None));
    };
    match batch.parse::<usize>() {
        Ok(0) => Err("the mts batch must be at least 1".to_owned()),
        Ok(c) => Ok(kind(Some(c))),
        Err(_) => Err("the mts batch after ':' must be a positive integer".to_owned()),
    }
}

/// `cab` or `cab-paper` (`paper`), alone or with `:B:SIZE` or `:bl=N`.
fn parse_cab(args: Option<&str>, paper: bool) -> Result<PolicyKind, String> {
    let inputs = match args {
        None => CabInputs::Auto,
        Some(args) => {
            let prefix = if paper { "cab-paper:" } else { "cab:" };
            parse_cab_inputs(prefix, args)?
        }
    };
    Ok(if paper {
        PolicyKind::CabPaper(inputs)
    } else {
        PolicyKind::Cab(inputs)
    })
}

/// `cats` or `cats-paper` (`paper`), alone or with `:CMPI`.
fn parse_cats(args: Option<&str>, paper: bool) -> Result<PolicyKind, String> {
    let cmpi_threshold = match args {
        None => None,
        Some(t) => match t.parse::<f64>() {
            Ok(t) if t.is_finite() && t >= 0.0 => Some(t),
            _ => {
                let prefix = if paper { "cats-paper:" } else { "cats:" };
                return Err(format!(
                    "the CMPI threshold after '{prefix}' must be a non-negative number"
                ));
            }
        },
    };
    Ok(if paper {
        PolicyKind::CatsPaper { cmpi_threshold }
    } else {
        PolicyKind::Cats { cmpi_threshold }
    })
}

/// What follows `cab:` or `cab-paper:` (`prefix`): `B:SIZE` or `bl=N`; the error is
/// the reason.
fn parse_cab_inputs(prefix: &str, args: &str) -> Result<CabInputs, String> {
    if let Some(bl) = args.strip_prefix("bl=") {
        return match bl.parse::<u32>() {
            Ok(bl) if bl <= 64 => Ok(CabInputs::Level(bl)),
            _ => Err(format!(
                "the boundary level after '{prefix}bl=' must be a whole number from 0 to 64"
            )),
        };
    }
    let (b, size) = args.split_once(':').ok_or_else(|| {
        format!(
            "cab takes {prefix}B:SIZE, e.g. {prefix}2:48MiB (B the branching degree, SIZE the input), \
             or {prefix}bl=N (the boundary level itself)"
        )
    })?;
    let branching = match b.parse::<u32>() {
        Ok(b) if b >= 2 => b,
        _ => {
            return Err(format!(
                "the branching degree B after '{prefix}' must be a whole number of at least 2"
            ))
        }
    };
    let data_bytes =
        locus_topo::parse_size(size).map_err(|e| format!("the input size SIZE {e}"))?;
    if data_bytes == 0 {
        return Err(format!(
            "the input size SIZE after '{prefix}{b}:' is 0; it must be at least 1 byte, e.g. {prefix}{b}:48MiB"
        ));
    }
    Ok(CabInputs::Given {
        branching,
        data_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Place, Probe, TaskId, TaskInfo, Victims};

    #[test]
    fn every_policy_has_one_row() {
        for (i, row) in POLICIES.iter().enumerate() {
            let names = || {
                POLICIES
                    .iter()
                    .flat_map(|r| [r.name].into_iter().chain(r.aliases.iter().copied()))
            };
            for name in [row.name].iter().chain(row.aliases) {
                assert_eq!(
                    names().filter(|n| n == name).count(),
                    1,
                    "{name} names one row"
                );
                assert_eq!(
                    *name,
                    name.to_ascii_lowercase(),
                    "names are matched lowercased"
                );
                assert!(!name.contains(':') && !name.contains(','), "{name}");
            }
            match row.plain() {
                Some(kind) => {
                    assert_eq!(kind.name(), row.name);
                    assert_eq!(kind.info().name, row.name);
                    assert_eq!(kind.to_string(), row.name);
                }
                None => {
                    let e = row.name.parse::<PolicyKind>().unwrap_err().to_string();
                    assert!(e.contains(&format!("policy '{}'", row.name)), "{e}");
                    assert!(
                        !row.in_all && !row.in_sim_all && !row.locality,
                        "{}",
                        row.name
                    );
                }
            }
            assert_eq!(
                row.forms.len(),
                row.examples.len(),
                "{}: an example per form",
                row.name
            );
            for (form, example) in row.forms.iter().zip(row.examples) {
                let prefix = format!("{}:", row.name);
                assert!(
                    form.starts_with(&prefix) && example.starts_with(&prefix),
                    "{form}"
                );
                let kind: PolicyKind = example.parse().unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(kind.name(), row.name, "{example}");
                assert_eq!(kind.to_string().parse::<PolicyKind>().unwrap(), kind);
            }
            assert!(
                row.not_simulated.is_none() || !row.in_sim_all,
                "{}",
                row.name
            );
            assert_eq!(PolicyKind::NAMES[i], row.name);
        }
        let affinity = PolicyKind::Affinity(Arc::new(TaskSchedule::new(1, []).unwrap()));
        assert_eq!(affinity.info().name, "affinity");
    }

    #[test]
    fn all_is_the_tables_in_all_rows() {
        let all: Vec<PolicyKind> = POLICIES
            .iter()
            .filter(|row| row.in_all)
            .map(|row| row.plain().unwrap())
            .collect();
        assert_eq!(all, PolicyKind::ALL.to_vec());
    }

    #[test]
    fn names_round_trip() {
        for kind in POLICIES.iter().filter_map(PolicyInfo::plain) {
            assert_eq!(kind.to_string().parse::<PolicyKind>().unwrap(), kind);
        }
        let e = "affinity".parse::<PolicyKind>().unwrap_err().to_string();
        assert!(e.contains("--schedule FILE"), "{e}");
        assert_eq!(
            "ws:near".parse::<PolicyKind>().unwrap().to_string(),
            "ws:near"
        );
        assert_eq!(
            "mts:3".parse::<PolicyKind>().unwrap(),
            PolicyKind::Mts { batch: Some(3) }
        );
        assert_eq!(
            "mts-paper:3".parse::<PolicyKind>().unwrap().to_string(),
            "mts-paper:3"
        );
        for bad in ["mts-paper:0", "mts-paper:x", "mts:-1"] {
            let e = bad.parse::<PolicyKind>().unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("batch"), "{e}");
        }
        assert_eq!("CQ".parse::<PolicyKind>().unwrap(), PolicyKind::Central);
        assert_eq!(
            "cab:2:48MiB".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cab(CabInputs::Given {
                branching: 2,
                data_bytes: 48 << 20
            })
        );
        assert_eq!(
            "cab:bl=4".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cab(CabInputs::Level(4))
        );
        assert_eq!(PolicyKind::Cab(CabInputs::Level(4)).to_string(), "cab:bl=4");
        for name in [
            "cab",
            "cab-paper",
            "cab-paper:bl=3",
            "cab-paper:2:1024",
            "cats",
            "cats-paper",
            "cats-paper:0.5",
        ] {
            assert_eq!(name.parse::<PolicyKind>().unwrap().to_string(), name);
        }
        assert_eq!(
            "cats-paper".parse::<PolicyKind>().unwrap(),
            PolicyKind::CatsPaper {
                cmpi_threshold: None
            }
        );
        assert_eq!(
            "cats:0.01".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cats {
                cmpi_threshold: Some(0.01)
            }
        );
    }

    #[test]
    fn bad_names_are_errors_that_name_the_input() {
        for bad in [
            "",
            "wss",
            "mts:",
            "mts:0",
            "mts:-1",
            "mts:x",
            "ws:far",
            "ws:",
            "rr",
            "ws pinned",
            "cab:bl=",
            "cab:bl=x",
            "cab:bl=-1",
            "cab:bl=65",
            "cab-paper:",
            "cab-paper:bl=x",
            "cab-paper:1:1MiB",
            "cab:2:0",
            "cab-paper:4:0KiB",
            "cats-paper:-1",
            "cats-papers",
        ] {
            let e = bad.parse::<PolicyKind>().unwrap_err().to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
            assert!(e.contains("ws, ws-unpinned"), "lists the names: {e}");
        }
    }

    #[test]
    fn a_cab_input_of_no_bytes_is_refused() {
        // It gave a boundary level from the squad count alone, as if the input fit.
        let e = "cab:2:0".parse::<PolicyKind>().unwrap_err().to_string();
        assert!(
            e.contains("the input size SIZE after 'cab:2:' is 0") && e.contains("at least 1 byte"),
            "{e}"
        );
        assert_eq!(
            "cab:2:1".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cab(CabInputs::Given {
                branching: 2,
                data_bytes: 1
            })
        );
    }

    fn plan(p: &dyn Policy, w: usize) -> Vec<Probe> {
        let mut v = Vec::new();
        p.search(w, &mut v);
        v
    }

    #[test]
    fn each_policy_decides_as_its_paper_says() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let task = TaskInfo {
            id: TaskId(1),
            level: 3,
            loop_chunks: 0,
        };

        let ws = PolicyKind::Ws.build(&map);
        assert!(ws.layout().always_local && ws.layout().pinned);
        assert_eq!(
            plan(&*ws, 1),
            vec![Probe::OwnDeque, Probe::Steal(Victims::All)]
        );
        assert!(!PolicyKind::WsUnpinned.build(&map).layout().pinned);
        let near = PolicyKind::WsNear.build(&map);
        let dealt = near.layout();
        assert!(dealt.squad_queues && dealt.loops_local && !dealt.always_local);
        assert_eq!(
            plan(&*near, 1),
            vec![
                Probe::OwnDeque,
                Probe::SquadQueue(0),
                Probe::Steal(Victims::Package)
            ]
        );
        assert_eq!(near.name(), "ws:near");
        assert_eq!("ws:near".parse::<PolicyKind>().unwrap(), PolicyKind::WsNear);

        let cq = PolicyKind::Central.build(&map);
        assert!(cq.layout().central && !cq.layout().always_local);
        assert_eq!(cq.place(3, &task, &task), Place::Central);
        assert_eq!(plan(&*cq, 0), vec![Probe::Central]);

        let q = PolicyKind::RrFifo.build(&map);
        assert_eq!(q.layout().inbox, Some(Order::Fifo));
        let dealt: Vec<Place> = (0..5).map(|_| q.place(1, &task, &task)).collect();
        assert_eq!(
            dealt,
            [2, 3, 0, 1, 2].map(Place::Worker).to_vec(),
            "worker 1 deals round robin, starting after itself"
        );
        assert_eq!(plan(&*q, 2), vec![Probe::OwnInbox], "no stealing in Q");
        assert_eq!(
            PolicyKind::RrLifo.build(&map).layout().inbox,
            Some(Order::Lifo)
        );

        let mts = PolicyKind::Mts { batch: None }.build(&map);
        assert_eq!(mts.place(3, &task, &task), Place::Squad(1));
        assert_eq!(
            plan(&*mts, 3),
            vec![
                Probe::SquadQueueShallow(1),
                Probe::BulkSteal {
                    batch: 2,
                    nearest: false
                }
            ]
        );
        let mts7 = PolicyKind::Mts { batch: Some(7) }.build(&map);
        assert_eq!(
            plan(&*mts7, 0),
            vec![
                Probe::SquadQueueShallow(0),
                Probe::BulkSteal {
                    batch: 7,
                    nearest: false
                }
            ]
        );
        let paper = PolicyKind::MtsPaper { batch: None }.build(&map);
        assert_eq!(paper.name(), "mts-paper");
        assert_eq!(paper.place(3, &task, &task), Place::Squad(1));
        assert_eq!(
            plan(&*paper, 3),
            vec![
                Probe::SquadQueue(1),
                Probe::BulkSteal {
                    batch: 2,
                    nearest: true
                }
            ],
            "the published MTS pops its squad queue newest first"
        );

        // One squad: nothing to steal from remotely.
        let one = WorkerMap::from_squad_sizes(&[3]);
        assert_eq!(
            plan(&*PolicyKind::Mts { batch: None }.build(&one), 1),
            vec![Probe::SquadQueueShallow(0)]
        );
    }
}
