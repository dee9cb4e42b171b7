//! The settings read at start (`OMP_*`, and `LOCUS_STATS`) and the internal control
//! variables (ICVs) they set; the crews that run teams read them (`crew.rs`).
//!
//! Read once, on the first OpenMP call that needs them, from one thread; the ICVs a
//! program may change (`omp_set_*`) are atomics any thread may read and set, relaxed:
//! each is one word, read as a whole, ordering nothing else.
//!
//! # The rule for `OMP_*` variables
//! Every `OMP_*` variable is either honoured or answered on stderr, in one line naming
//! it; garbage is never silently accepted:
//! - a value that cannot be read (a word that is none of the variable's words, a number
//!   out of its range, an absurd size) is an error naming the variable, its value and
//!   what is wrong, and the program exits with status 2 (bad input, as `locus run`
//!   numbers its exits) before any region runs (libgomp warns and ignores such a
//!   value);
//! - a value that is read but that locus cannot follow as asked gets one line saying
//!   what locus does instead, and the program runs;
//! - an `OMP_*` name locus does not know (a misspelling, or a newer OpenMP's) gets one
//!   line saying it is ignored, and the program runs.
//!
//! An empty value counts as unset. A variable named `NAME_ALL` (OpenMP 5.2) serves for
//! `NAME` where `NAME` is unset; `NAME_DEV` and `NAME_DEV_<n>` name offload devices, of
//! which locus has none, and are answered as not followed.
//!
//! # What locus honours
//! `OMP_NUM_THREADS` (a list: the team size per nesting level), `OMP_THREAD_LIMIT` (no
//! team is larger), `OMP_DYNAMIC` (dyn-var: locus never shrinks a team, which both
//! values allow), `OMP_NESTED` and `OMP_MAX_ACTIVE_LEVELS` (max-active-levels-var: 0
//! makes every region inactive, a team of one), `OMP_STACKSIZE` (the workers' stacks,
//! [`MIN_STACK`] to [`MAX_STACK`]), `OMP_SCHEDULE` (`schedule(runtime)` loops, until
//! `omp_set_schedule`), `OMP_PROC_BIND` and `OMP_PLACES` (as locus's pinning can; see
//! [`binding`]), `OMP_WAIT_POLICY` (`passive`: idle workers sleep; `active` is answered
//! as not followed), `OMP_DEFAULT_DEVICE` and `OMP_MAX_TASK_PRIORITY` (their ICVs;
//! `target.rs` runs every device number on the host, and task priorities are hints
//! locus's policies do not take), `OMP_ALLOCATOR` (`alloc.rs`), `OMP_NUM_TEAMS` and
//! `OMP_TEAMS_THREAD_LIMIT` (`teams.rs`), `OMP_TARGET_OFFLOAD` (`target.rs`),
//! `OMP_AFFINITY_FORMAT` and `OMP_DISPLAY_AFFINITY` (`affinity.rs`), and
//! `OMP_DISPLAY_ENV` ([`display`]), `OMP_CANCELLATION=true` for taskgroups only
//! (`task.rs`; the other cancel constructs stay ignored, said on stderr, and
//! `omp_get_cancellation` answers false). Answered as not followed: `OMP_TOOL=enabled` and
//! `OMP_TOOL_LIBRARIES` (locus has no tool interface), `OMP_DEBUG=enabled`.

use crate::schedule::{Kind, Schedule};
use locus::Pinning;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The largest `OMP_STACKSIZE`: a worker's stack is reserved address space, but a
/// request past this is taken for a mistake (a unit typed twice, a missing one) and
/// refused, naming it. A guess, above any stack a program asks for in practice.
pub(crate) const MAX_STACK: usize = 16 << 30;

/// The smallest `OMP_STACKSIZE`: below it a worker cannot run locus's own frames.
pub(crate) const MIN_STACK: usize = 64 << 10;

/// The active levels locus supports (libgomp's number): a region nested in fewer
/// active regions than max-active-levels-var gets a team of its own (`team.rs`).
pub(crate) const SUPPORTED_ACTIVE_LEVELS: usize = u8::MAX as usize;

/// Every `OMP_*` variable locus reads (the rest are answered as unknown).
const KNOWN: [&str; 25] = [
    "OMP_NUM_THREADS",
    "OMP_THREAD_LIMIT",
    "OMP_DYNAMIC",
    "OMP_NESTED",
    "OMP_MAX_ACTIVE_LEVELS",
    "OMP_STACKSIZE",
    "OMP_SCHEDULE",
    "OMP_PROC_BIND",
    "OMP_PLACES",
    "OMP_WAIT_POLICY",
    "OMP_DEFAULT_DEVICE",
    "OMP_MAX_TASK_PRIORITY",
    "OMP_CANCELLATION",
    "OMP_ALLOCATOR",
    "OMP_NUM_TEAMS",
    "OMP_TEAMS_THREAD_LIMIT",
    "OMP_TARGET_OFFLOAD",
    "OMP_DISPLAY_ENV",
    "OMP_AFFINITY_FORMAT",
    "OMP_DISPLAY_AFFINITY",
    "OMP_TOOL",
    "OMP_TOOL_LIBRARIES",
    "OMP_TOOL_VERBOSE_INIT",
    "OMP_DEBUG",
    "OMP_AVAILABLE_DEVICES",
];

/// One level of `OMP_PROC_BIND`, numbered as `omp_proc_bind_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bind {
    /// `false`: threads are not bound.
    False = 0,
    /// `true`: bound, the placement the implementation's.
    True = 1,
    /// `primary` (`master`): every thread on its primary thread's place.
    Primary = 2,
    /// `close`: threads on places next to their primary's.
    Close = 3,
    /// `spread`: threads spread over the places.
    Spread = 4,
}

/// `OMP_PLACES`: an abstract name with its optional count, or an explicit list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Places {
    /// `threads`, `cores`, `ll_caches`, `numa_domains` or `sockets`, and `(n)` if given.
    Abstract(&'static str, Option<usize>),
    /// An explicit list of places (`{0,1},{2:4}:2:4`, checked), as written.
    List(String),
}

/// The settings of this process.
#[derive(Debug)]
pub(crate) struct Settings {
    /// `OMP_NUM_THREADS` whole: the team size per nesting level.
    pub(crate) threads_list: Vec<usize>,
    /// `OMP_THREAD_LIMIT`, if set: no team is larger.
    pub(crate) thread_limit: Option<usize>,
    /// `OMP_DYNAMIC=true`.
    pub(crate) dynamic: bool,
    /// `OMP_MAX_ACTIVE_LEVELS`, else what `OMP_NESTED` and the lists imply.
    pub(crate) max_active_levels: usize,
    /// `OMP_STACKSIZE` in bytes, if set.
    pub(crate) stack: Option<usize>,
    /// `OMP_PROC_BIND=false`: workers unpinned.
    pub(crate) unpinned: bool,
    /// `OMP_PROC_BIND`, one entry per nesting level (empty if unset).
    pub(crate) proc_bind: Vec<Bind>,
    /// `OMP_PLACES`, if set.
    pub(crate) places: Option<Places>,
    /// The pinning `OMP_PROC_BIND` and `OMP_PLACES` ask locus for, if they ask.
    pub(crate) pinning: Option<Pinning>,
    /// `OMP_WAIT_POLICY=active`.
    pub(crate) wait_active: Option<bool>,
    /// `OMP_DEFAULT_DEVICE`, else 0.
    pub(crate) default_device: i32,
    /// `OMP_MAX_TASK_PRIORITY`, else 0.
    pub(crate) max_task_priority: i32,
    /// `OMP_SCHEDULE`, else dynamic with chunks of 1 (libgomp's default).
    pub(crate) schedule: Schedule,
    /// `LOCUS_STATS=1`.
    pub(crate) stats: bool,
    /// `OMP_ALLOCATOR` (checked; `alloc.rs` makes it on first use), if set.
    pub(crate) allocator: Option<String>,
    /// `OMP_NUM_TEAMS`, if set: the teams a `teams` construct without `num_teams` makes.
    pub(crate) num_teams: Option<usize>,
    /// `OMP_TEAMS_THREAD_LIMIT`, if set: the largest team a `teams` region's parallel
    /// regions make, without a `thread_limit` clause.
    pub(crate) teams_thread_limit: Option<usize>,
    /// `OMP_TARGET_OFFLOAD=mandatory`: a target construct, with no device, is an error.
    pub(crate) offload_mandatory: bool,
    /// `OMP_CANCELLATION=true`: `cancel taskgroup` cancels (`task.rs`); the other
    /// cancel constructs stay ignored.
    pub(crate) cancel_taskgroups: bool,
    /// `OMP_DISPLAY_ENV`: 0 (false), 1 (true) or 2 (verbose).
    pub(crate) display_env: u8,
    /// `OMP_AFFINITY_FORMAT` (checked), if set.
    pub(crate) affinity_format: Option<String>,
    /// `OMP_DISPLAY_AFFINITY=true`.
    pub(crate) display_affinity: bool,
    /// What locus answers about settings it reads but does not follow as asked, one
    /// line each, printed once as the settings are read.
    pub(crate) notes: Vec<String>,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// The settings, read on first use; a bad value ends the program (see the module docs).
pub(crate) fn settings() -> &'static Settings {
    let mut first = false;
    let s = SETTINGS.get_or_init(|| {
        first = true;
        let names: Vec<String> = std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| k.starts_with("OMP_"))
            .collect();
        match read_settings(&|name| std::env::var(name).ok(), &names) {
            Ok(s) => s,
            Err(message) => fail(&message),
        }
    });
    if first {
        for note in &s.notes {
            eprintln!("locus: {note}");
        }
        if s.display_env > 0 {
            eprint!("{}", display(s.display_env > 1));
        }
    }
    s
}

/// `omp_display_env`'s text: the settings locus runs with, as OpenMP names them (and,
/// `verbose`, locus's own), between OpenMP's first and last lines. It builds no pool
/// and takes no lock (it also runs as the settings are first read, which a pool's
/// making may do).
pub(crate) fn display(verbose: bool) -> String {
    let s = settings();
    let threads = match s.threads_list.is_empty() {
        true => "(unset: one per CPU of the machine)".to_string(),
        false => join(&s.threads_list),
    };
    let schedule = run_schedule();
    let kind = match schedule.kind {
        Kind::Static => "STATIC",
        Kind::Dynamic => "DYNAMIC",
        Kind::Guided => "GUIDED",
    };
    let schedule = match schedule.chunk {
        0 => kind.to_string(),
        c => format!("{kind},{c}"),
    };
    let stack = s
        .stack
        .map_or("the system's".to_string(), |b| format!("{b}B"));
    let proc_bind = if s.proc_bind.is_empty() {
        if s.unpinned {
            "FALSE"
        } else {
            "TRUE (locus policy)"
        }
        .to_string()
    } else {
        s.proc_bind
            .iter()
            .map(|b| bind_name(*b).to_ascii_uppercase())
            .collect::<Vec<_>>()
            .join(",")
    };
    let places = match &s.places {
        None => String::new(),
        Some(Places::Abstract(name, None)) => name.to_string(),
        Some(Places::Abstract(name, Some(n))) => format!("{name}({n})"),
        Some(Places::List(list)) => list.clone(),
    };
    let yes = |b: bool| if b { "TRUE" } else { "FALSE" }.to_string();
    let lines = [
        ("_OPENMP", "201511".to_string()),
        ("OMP_DYNAMIC", yes(dynamic())),
        ("OMP_NESTED", yes(max_active_levels() > 1)),
        ("OMP_NUM_THREADS", threads),
        ("OMP_SCHEDULE", schedule),
        ("OMP_PROC_BIND", proc_bind),
        ("OMP_PLACES", places),
        ("OMP_STACKSIZE", stack),
        (
            "OMP_WAIT_POLICY",
            if s.wait_active == Some(true) {
                "ACTIVE"
            } else {
                "PASSIVE"
            }
            .to_string(),
        ),
        ("OMP_THREAD_LIMIT", thread_limit().to_string()),
        ("OMP_MAX_ACTIVE_LEVELS", max_active_levels().to_string()),
        ("OMP_NUM_TEAMS", max_teams().to_string()),
        ("OMP_TEAMS_THREAD_LIMIT", teams_thread_limit().to_string()),
        ("OMP_CANCELLATION", "FALSE".to_string()),
        ("OMP_DEFAULT_DEVICE", default_device().to_string()),
        ("OMP_MAX_TASK_PRIORITY", s.max_task_priority.to_string()),
        ("OMP_DISPLAY_AFFINITY", yes(s.display_affinity)),
        ("OMP_AFFINITY_FORMAT", affinity_format()),
        (
            "OMP_ALLOCATOR",
            s.allocator
                .clone()
                .unwrap_or("omp_default_mem_alloc".into()),
        ),
        (
            "OMP_TARGET_OFFLOAD",
            if s.offload_mandatory {
                "MANDATORY"
            } else {
                "DEFAULT"
            }
            .into(),
        ),
    ];
    let mut out = String::from("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
    for (name, value) in lines {
        out.push_str(&format!("  {name} = '{value}'\n"));
    }
    if verbose {
        for name in ["LOCUS_POLICY", "LOCUS_TOPOLOGY"] {
            let value = std::env::var(name).unwrap_or_else(|_| "(unset: the default)".into());
            out.push_str(&format!("  {name} = '{value}'\n"));
        }
        out.push_str(&format!("  LOCUS_STATS = '{}'\n", u8::from(s.stats)));
    }
    out.push_str("OPENMP DISPLAY ENVIRONMENT END\n");
    out
}

fn join(list: &[usize]) -> String {
    list.iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn bind_name(b: Bind) -> &'static str {
    match b {
        Bind::False => "false",
        Bind::True => "true",
        Bind::Primary => "primary",
        Bind::Close => "close",
        Bind::Spread => "spread",
    }
}

/// Prints `message` as locus's and exits with status 2.
pub(crate) fn fail(message: &str) -> ! {
    eprintln!("locus: {message}");
    std::process::exit(2)
}

/// Reads the settings through `var` (a variable's value, if set); `names` are the
/// `OMP_*` variables set, for those locus does not know.
fn read_settings(
    var: &dyn Fn(&str) -> Option<String>,
    names: &[String],
) -> Result<Settings, String> {
    let mut notes = Vec::new();
    // `NAME`, else `NAME_ALL` (OpenMP 5.2's value for every device, the host included).
    let get = |name: &str| -> Option<(String, String)> {
        let set = |n: String| var(&n).filter(|v| !v.trim().is_empty()).map(|v| (n, v));
        set(name.to_string()).or_else(|| set(format!("{name}_ALL")))
    };
    for name in names {
        let base = name
            .strip_suffix("_ALL")
            .or_else(|| name.strip_suffix("_DEV"))
            .or_else(|| {
                let (base, n) = name.rsplit_once("_DEV_")?;
                n.parse::<u32>().is_ok().then_some(base)
            })
            .unwrap_or(name);
        if !KNOWN.contains(&base) {
            notes.push(format!(
                "{name} is not an OpenMP setting locus knows: ignored"
            ));
        } else if base != name && !name.ends_with("_ALL") {
            notes.push(format!(
                "{name} is not followed: it sets offload devices, and locus has none"
            ));
        }
    }
    let word = |name: &str, words: &[&str]| -> Result<Option<(String, usize)>, String> {
        let Some((n, v)) = get(name) else {
            return Ok(None);
        };
        let w = v.trim().to_ascii_lowercase();
        match words.iter().position(|x| *x == w) {
            Some(i) => Ok(Some((v, i))),
            None => Err(format!("{n}={v:?}: expected {}", or_list(words))),
        }
    };
    let number = |name: &str, min: usize, max: usize| -> Result<Option<usize>, String> {
        let Some((n, v)) = get(name) else {
            return Ok(None);
        };
        match v.trim().parse::<usize>() {
            Ok(x) if (min..=max).contains(&x) => Ok(Some(x)),
            _ => Err(format!(
                "{n}={v:?}: expected a whole number in {min}..={max}"
            )),
        }
    };
    let boolean = |name: &str| -> Result<Option<bool>, String> {
        Ok(word(name, &["false", "true"])?.map(|(_, i)| i == 1))
    };

    let threads_list = match get("OMP_NUM_THREADS") {
        None => Vec::new(),
        Some((n, v)) => parse_threads(&v).map_err(|e| format!("{n}={v:?}: {e}"))?,
    };
    let thread_limit = number("OMP_THREAD_LIMIT", 1, locus::MAX_THREADS)?;
    let dynamic = boolean("OMP_DYNAMIC")?.unwrap_or(false);
    let nested = boolean("OMP_NESTED")?;
    let levels = number("OMP_MAX_ACTIVE_LEVELS", 0, i32::MAX as usize)?;
    let stack = match get("OMP_STACKSIZE") {
        None => None,
        Some((n, v)) => Some(parse_stack(&v).map_err(|e| format!("{n}={v:?}: {e}"))?),
    };
    let proc_bind = match get("OMP_PROC_BIND") {
        None => Vec::new(),
        Some((n, v)) => parse_proc_bind(&v).map_err(|e| format!("{n}={v:?}: {e}"))?,
    };
    let places = match get("OMP_PLACES") {
        None => None,
        Some((n, v)) => Some(parse_places(&v).map_err(|e| format!("{n}={v:?}: {e}"))?),
    };
    let (pinning, binding_notes) = binding(&proc_bind, places.as_ref());
    notes.extend(binding_notes);
    let nesting_asked = nested == Some(true) || proc_bind.len() > 1 || threads_list.len() > 1;
    let max_active_levels = match levels {
        Some(l) => l,
        // libgomp's default: as many as it supports when nesting is asked for, else 1.
        None if nesting_asked => u8::MAX.into(),
        None => 1,
    };
    let wait_active = word("OMP_WAIT_POLICY", &["passive", "active"])?.map(|(_, i)| i == 1);
    if wait_active == Some(true) {
        notes.push(
            "OMP_WAIT_POLICY=active is not followed: idle workers spin briefly, then sleep \
             (as with passive)"
                .into(),
        );
    }
    let default_device = number("OMP_DEFAULT_DEVICE", 0, i32::MAX as usize)?.unwrap_or(0) as i32;
    let max_task_priority =
        number("OMP_MAX_TASK_PRIORITY", 0, i32::MAX as usize)?.unwrap_or(0) as i32;
    let cancel_taskgroups = boolean("OMP_CANCELLATION")? == Some(true);
    if cancel_taskgroups {
        notes.push(
            "OMP_CANCELLATION=true is followed for taskgroups only: cancel parallel, for \
             and sections are ignored, and omp_get_cancellation answers false"
                .into(),
        );
    }
    if word("OMP_TOOL", &["disabled", "enabled"])?.is_some_and(|(_, i)| i == 1) {
        notes.push("OMP_TOOL=enabled is not followed: locus has no tool interface".into());
    }
    if let Some((n, v)) = get("OMP_TOOL_LIBRARIES") {
        notes.push(format!(
            "{n}={v} is not followed: locus has no tool interface and loads no tool"
        ));
    }
    if let Some((n, v)) = get("OMP_TOOL_VERBOSE_INIT") {
        notes.push(format!(
            "{n}={v} is not followed: locus has no tool interface"
        ));
    }
    if word("OMP_DEBUG", &["disabled", "enabled"])?.is_some_and(|(_, i)| i == 1) {
        notes.push("OMP_DEBUG=enabled is not followed: locus has no debugger interface".into());
    }
    if let Some((n, v)) = get("OMP_AVAILABLE_DEVICES") {
        notes.push(format!(
            "{n}={v} is not followed: locus has no offload device"
        ));
    }
    let schedule = match get("OMP_SCHEDULE") {
        None => Schedule::default_runtime(),
        Some((n, v)) => Schedule::parse(&v).map_err(|e| format!("{n}={v:?}: {e}"))?,
    };
    let stats = var("LOCUS_STATS").is_some_and(|v| !v.trim().is_empty() && v.trim() != "0");
    let allocator = match get("OMP_ALLOCATOR") {
        None => None,
        Some((n, v)) => {
            crate::allocator::check_environment(&v).map_err(|e| format!("{n}={v:?}: {e}"))?;
            Some(v)
        }
    };
    let offload_mandatory = word("OMP_TARGET_OFFLOAD", &["mandatory", "disabled", "default"])?
        .is_some_and(|(_, i)| i == 0);
    let display_env =
        word("OMP_DISPLAY_ENV", &["false", "true", "verbose"])?.map_or(0, |(_, i)| i as u8);
    let affinity_format = match get("OMP_AFFINITY_FORMAT") {
        None => None,
        Some((n, v)) => {
            crate::affinity_format::check(&v).map_err(|e| format!("{n}={v:?}: {e}"))?;
            Some(v)
        }
    };
    let display_affinity = boolean("OMP_DISPLAY_AFFINITY")?.unwrap_or(false);
    Ok(Settings {
        cancel_taskgroups,
        threads_list,
        thread_limit,
        dynamic,
        max_active_levels,
        stack,
        unpinned: pinning == Some(Pinning::None),
        proc_bind,
        places,
        pinning,
        wait_active,
        default_device,
        max_task_priority,
        schedule,
        stats,
        allocator,
        num_teams: number("OMP_NUM_TEAMS", 1, i32::MAX as usize)?,
        teams_thread_limit: number("OMP_TEAMS_THREAD_LIMIT", 1, i32::MAX as usize)?,
        offload_mandatory,
        display_env,
        affinity_format,
        display_affinity,
        notes,
    })
}

/// `a, b or c`.
fn or_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// `OMP_NUM_THREADS`: a comma-separated list of team sizes, one per nesting level.
fn parse_threads(v: &str) -> Result<Vec<usize>, String> {
    v.split(',')
        .map(|n| match n.trim().parse::<usize>() {
            Ok(n) if (1..=locus::MAX_THREADS).contains(&n) => Ok(n),
            _ => Err(format!(
                "{:?} is not a number of threads in 1..={}",
                n.trim(),
                locus::MAX_THREADS
            )),
        })
        .collect()
}

/// `OMP_STACKSIZE`: a number and an optional unit, `B`, `K` (the default), `M` or `G`,
/// between [`MIN_STACK`] and [`MAX_STACK`] bytes.
fn parse_stack(v: &str) -> Result<usize, String> {
    let t = v.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => (&t[..at], t[at..].trim()),
        None => (t, "K"),
    };
    let shift = match unit.to_ascii_uppercase().as_str() {
        "B" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => {
            return Err(
                "expected a size such as 512K, 8M or 1G (a number, then B, K, M or G)".into(),
            )
        }
    };
    if digits.is_empty() {
        return Err("expected a number before the unit, such as 8M".into());
    }
    let too_large = || {
        format!(
            "more than the {}G locus allows for a worker's stack",
            MAX_STACK >> 30
        )
    };
    let n = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(too_large)?;
    if n > MAX_STACK {
        return Err(too_large());
    }
    if n < MIN_STACK {
        return Err(format!(
            "{n} bytes, less than the {}K a worker's stack needs",
            MIN_STACK >> 10
        ));
    }
    Ok(n)
}

/// `OMP_PROC_BIND`: `false`, `true`, or a list of `primary` (`master`), `close` and
/// `spread`, one per nesting level.
fn parse_proc_bind(v: &str) -> Result<Vec<Bind>, String> {
    let words: Vec<String> = v
        .split(',')
        .map(|w| w.trim().to_ascii_lowercase())
        .collect();
    if let [one] = words.as_slice() {
        match one.as_str() {
            "false" => return Ok(vec![Bind::False]),
            "true" => return Ok(vec![Bind::True]),
            _ => {}
        }
    }
    words
        .iter()
        .map(|w| match w.as_str() {
            "primary" | "master" => Ok(Bind::Primary),
            "close" => Ok(Bind::Close),
            "spread" => Ok(Bind::Spread),
            "true" | "false" => Err(format!(
                "{w:?} stands alone; a list holds primary, close and spread"
            )),
            _ => Err(format!(
                "{w:?} is not a binding: expected true, false, or a list of primary, \
                 master, close and spread"
            )),
        })
        .collect()
}

/// The largest number `OMP_PLACES` may name (a CPU, a count, a length or a stride).
const MAX_PLACE_NUMBER: i64 = 1 << 20;

/// `OMP_PLACES`: an abstract name with an optional count (`cores(4)`), or an explicit
/// list of places, each `{res,res,...}` or `{res:len[:stride]}` with an optional
/// `:count[:stride]` after it and an optional `!` before (exclusion).
fn parse_places(v: &str) -> Result<Places, String> {
    let t = v.trim();
    let lower = t.to_ascii_lowercase();
    for name in ["threads", "cores", "ll_caches", "numa_domains", "sockets"] {
        let Some(rest) = lower.strip_prefix(name) else {
            continue;
        };
        let rest = rest.trim();
        if rest.is_empty() {
            return Ok(Places::Abstract(name, None));
        }
        let count = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or(format!("expected {name} or {name}(COUNT)"))?;
        return match count.trim().parse::<i64>() {
            Ok(n) if (1..=MAX_PLACE_NUMBER).contains(&n) => {
                Ok(Places::Abstract(name, Some(n as usize)))
            }
            _ => Err(format!(
                "{count:?} is no count of places (1..={MAX_PLACE_NUMBER})"
            )),
        };
    }
    if !t.starts_with('{') && !t.starts_with('!') {
        return Err(
            "expected threads, cores, ll_caches, numa_domains or sockets, or a list of \
             places such as {0,1},{2,3}"
                .into(),
        );
    }
    // An explicit list: places separated by commas outside braces.
    let mut rest = t;
    loop {
        rest = parse_place(rest)?;
        // An interval of places: `:count[:stride]`.
        if let Some(r) = rest.strip_prefix(':') {
            let (count, r) = place_number(r, "a count of places")?;
            if count < 1 {
                return Err(format!("{count} places: a count is at least 1"));
            }
            rest = r;
            if let Some(r) = rest.strip_prefix(':') {
                rest = place_number(r, "a stride")?.1;
            }
        }
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(Places::List(t.to_string()));
        }
        rest = rest
            .strip_prefix(',')
            .ok_or(format!("expected ',' between places, at {rest:?}"))?
            .trim_start();
    }
}

/// One place (`!`? `{...}`); the text after it.
fn parse_place(t: &str) -> Result<&str, String> {
    let t = t.trim_start();
    let t = t.strip_prefix('!').unwrap_or(t).trim_start();
    let body_end = t.find('}').ok_or(format!("an unclosed place at {t:?}"))?;
    let body = t
        .strip_prefix('{')
        .ok_or(format!("expected a place {{...}} at {t:?}"))?;
    let body = &body[..body_end - 1];
    if body.trim().is_empty() {
        return Err("an empty place {}".into());
    }
    for res in body.split(',') {
        // `!`? cpu, or cpu:len[:stride]
        let res = res.trim();
        let res = res.strip_prefix('!').unwrap_or(res);
        let (cpu, r) = place_number(res, "a CPU number")?;
        if cpu < 0 {
            return Err(format!("CPU {cpu}: CPUs are numbered from 0"));
        }
        let mut r = r;
        if let Some(x) = r.strip_prefix(':') {
            let (len, x) = place_number(x, "a length")?;
            if len < 1 {
                return Err(format!("a length of {len}: at least 1"));
            }
            r = x;
            if let Some(x) = r.strip_prefix(':') {
                r = place_number(x, "a stride")?.1;
            }
        }
        if !r.trim().is_empty() {
            return Err(format!("{:?} after {res:?}", r.trim()));
        }
    }
    Ok(&t[body_end + 1..])
}

/// A (possibly negative) number at the start of `t`, within [`MAX_PLACE_NUMBER`]; the
/// text after it.
fn place_number<'a>(t: &'a str, what: &str) -> Result<(i64, &'a str), String> {
    let t = t.trim_start();
    let digits_from = usize::from(t.starts_with('-') || t.starts_with('+'));
    let end = t[digits_from..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(t.len(), |e| e + digits_from);
    match t[..end].parse::<i64>() {
        Ok(n) if n.abs() <= MAX_PLACE_NUMBER => Ok((n, &t[end..])),
        _ => Err(format!(
            "expected {what} (at most {MAX_PLACE_NUMBER}) at {:?}",
            t
        )),
    }
}

/// What `OMP_PROC_BIND` and `OMP_PLACES` ask of locus's pinning, and a line for each part
/// it cannot follow. locus binds the workers of a team, as its `Pinning` allows: each to
/// one PU of the `LOCUS_TOPOLOGY` machine (worker `i` to the `i`-th PU, in the machine's
/// order, as `close` over `threads` places does), each to its squad's PUs (`ll_caches`
/// places), or none (`false`). `true` and `close` are followed; `primary` and `spread`
/// are bound as `close` is, and said so; a list's later levels are bound as its first
/// (every team's workers come from pools built alike). `cores`, `sockets` and
/// `numa_domains` places, counts and explicit lists are bound as `threads`, and said so.
pub(crate) fn binding(binds: &[Bind], places: Option<&Places>) -> (Option<Pinning>, Vec<String>) {
    let mut notes = Vec::new();
    let first = binds.first().copied();
    if first == Some(Bind::False) {
        if places.is_some() {
            notes.push(
                "OMP_PLACES is not followed under OMP_PROC_BIND=false: workers are not bound"
                    .into(),
            );
        }
        return (Some(Pinning::None), notes);
    }
    if binds.len() > 1 {
        notes.push(format!(
            "OMP_PROC_BIND={}: only its first level is followed; nested teams' workers are \
             bound as the first level asks",
            binds
                .iter()
                .map(|b| bind_name(*b))
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    if let Some(b @ (Bind::Primary | Bind::Spread)) = first {
        notes.push(format!(
            "OMP_PROC_BIND={} is not followed: locus binds worker i next to worker i - 1 \
             (close)",
            bind_name(b)
        ));
    }
    let pinning = match places {
        None => first.map(|_| Pinning::Pu),
        Some(Places::Abstract(name, count)) => {
            if let Some(n) = count {
                notes.push(format!(
                    "OMP_PLACES={name}({n}): the count is not followed: locus's workers use \
                     every PU of the machine LOCUS_TOPOLOGY describes"
                ));
            }
            match *name {
                "threads" => Some(Pinning::Pu),
                "ll_caches" => Some(Pinning::Squad),
                other => {
                    notes.push(format!(
                        "OMP_PLACES={other} is not followed: each worker is bound to one PU \
                         (as with threads); locus binds to a PU or to a squad's last-level \
                         cache (ll_caches)"
                    ));
                    Some(Pinning::Pu)
                }
            }
        }
        Some(Places::List(list)) => {
            notes.push(format!(
                "OMP_PLACES={list} is not followed: locus binds to no explicit place; \
                 each worker is bound to one PU of the machine LOCUS_TOPOLOGY describes (as \
                 with threads)"
            ));
            Some(Pinning::Pu)
        }
    };
    (pinning, notes)
}

/// run-sched-var as `omp_set_schedule` set it: the kind (1 static, 2 dynamic, 3 guided)
/// in the top byte, the chunk below; 0 if never set.
static RUN_SCHEDULE: AtomicU64 = AtomicU64::new(0);

/// `omp_set_schedule`.
pub(crate) fn set_schedule(schedule: Schedule) {
    let kind = match schedule.kind {
        Kind::Static => 1,
        Kind::Dynamic => 2,
        Kind::Guided => 3,
    };
    let chunk = schedule.chunk.min((1 << 56) - 1);
    RUN_SCHEDULE.store(kind << 56 | chunk, Ordering::Relaxed);
}

/// run-sched-var: the schedule of `schedule(runtime)` loops.
pub(crate) fn run_schedule() -> Schedule {
    let v = RUN_SCHEDULE.load(Ordering::Relaxed);
    let kind = match v >> 56 {
        0 => return settings().schedule,
        1 => Kind::Static,
        2 => Kind::Dynamic,
        _ => Kind::Guided,
    };
    Schedule {
        kind,
        chunk: v & ((1 << 56) - 1),
    }
}

/// The nthreads-var `OMP_NUM_THREADS` gives the implicit tasks of a region at nesting
/// level `level` (0: the initial task), if its list is that long; else a region's
/// implicit tasks take their encountering task's (`team.rs`).
pub(crate) fn nthreads_of_level(level: usize) -> Option<usize> {
    settings().threads_list.get(level).copied()
}

/// thread-limit-var: the most threads a team may have (`OMP_THREAD_LIMIT`, else
/// locus's largest team).
pub(crate) fn thread_limit() -> usize {
    settings()
        .thread_limit
        .map_or(locus::MAX_THREADS, |n| n.min(locus::MAX_THREADS))
}

/// An ICV a program may set, until it does: `UNSET`, and the setting's value is read.
const UNSET: i32 = i32::MIN;

/// dyn-var as `omp_set_dynamic` set it (0 or 1), else [`UNSET`].
static DYNAMIC: AtomicI32 = AtomicI32::new(UNSET);
/// max-active-levels-var as `omp_set_max_active_levels` set it, else [`UNSET`].
static MAX_ACTIVE_LEVELS: AtomicI32 = AtomicI32::new(UNSET);
/// default-device-var as `omp_set_default_device` set it, else [`UNSET`].
static DEFAULT_DEVICE: AtomicI32 = AtomicI32::new(UNSET);

/// dyn-var (`OMP_DYNAMIC`, `omp_set_dynamic`): whether locus may give a region fewer
/// threads than asked. It never does, which both values allow.
pub(crate) fn dynamic() -> bool {
    match DYNAMIC.load(Ordering::Relaxed) {
        UNSET => settings().dynamic,
        v => v != 0,
    }
}

/// `omp_set_dynamic`.
pub(crate) fn set_dynamic(on: bool) {
    DYNAMIC.store(i32::from(on), Ordering::Relaxed);
}

/// max-active-levels-var (`OMP_MAX_ACTIVE_LEVELS`, `OMP_NESTED`,
/// `omp_set_max_active_levels`), as OpenMP has it read: at most the levels locus
/// supports ([`SUPPORTED_ACTIVE_LEVELS`]). At 0 no region is active: every team has
/// one thread.
pub(crate) fn max_active_levels() -> usize {
    let v = match MAX_ACTIVE_LEVELS.load(Ordering::Relaxed) {
        UNSET => settings().max_active_levels,
        v => v as usize,
    };
    v.min(SUPPORTED_ACTIVE_LEVELS)
}

/// `omp_set_max_active_levels`: negative values are ignored, as OpenMP says; more
/// levels than locus supports read as the supported ones.
pub(crate) fn set_max_active_levels(levels: i32) {
    if levels >= 0 {
        MAX_ACTIVE_LEVELS.store(levels, Ordering::Relaxed);
    }
}

/// default-device-var (`OMP_DEFAULT_DEVICE`, `omp_set_default_device`).
pub(crate) fn default_device() -> i32 {
    match DEFAULT_DEVICE.load(Ordering::Relaxed) {
        UNSET => settings().default_device,
        v => v,
    }
}

/// `omp_set_default_device`: negative numbers other than OpenMP's named ones are kept
/// too; `target.rs` checks a device number where it is used.
pub(crate) fn set_default_device(device: i32) {
    DEFAULT_DEVICE.store(device.max(UNSET + 1), Ordering::Relaxed);
}

/// max-task-priority-var (`OMP_MAX_TASK_PRIORITY`).
pub(crate) fn max_task_priority() -> i32 {
    settings().max_task_priority
}

/// bind-var's first level, as `omp_proc_bind_t`: `OMP_PROC_BIND`'s; else `true` if
/// `OMP_PLACES` is set, else `false` (libgomp's answers; locus's policies pin their
/// workers all the same).
pub(crate) fn proc_bind() -> i32 {
    let s = settings();
    match s.proc_bind.first() {
        Some(b) => *b as i32,
        None if s.places.is_some() => Bind::True as i32,
        None => Bind::False as i32,
    }
}

/// nteams-var as `omp_set_num_teams` set it; 0 if never set.
static NUM_TEAMS: AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// teams-thread-limit-var as `omp_set_teams_thread_limit` set it (0: no limit);
/// `usize::MAX` if never set.
static THREAD_LIMIT: AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);

/// `omp_set_num_teams`: negative values are ignored, as libgomp ignores them.
pub(crate) fn set_num_teams(n: i32) {
    if let Ok(n) = usize::try_from(n) {
        NUM_TEAMS.store(n, Ordering::Relaxed);
    }
}

/// `omp_get_max_teams`: nteams-var, 0 if neither set nor in the environment.
pub(crate) fn max_teams() -> usize {
    match NUM_TEAMS.load(Ordering::Relaxed) {
        0 => settings().num_teams.unwrap_or(0),
        n => n,
    }
}

/// `omp_set_teams_thread_limit`: negative values are ignored.
pub(crate) fn set_teams_thread_limit(n: i32) {
    if let Ok(n) = usize::try_from(n) {
        THREAD_LIMIT.store(n, Ordering::Relaxed);
    }
}

/// `omp_get_teams_thread_limit`: 0 for no limit.
pub(crate) fn teams_thread_limit() -> usize {
    match THREAD_LIMIT.load(Ordering::Relaxed) {
        usize::MAX => settings().teams_thread_limit.unwrap_or(0),
        n => n,
    }
}

/// affinity-format-var, once set; `None`: `OMP_AFFINITY_FORMAT`, else the default.
static FORMAT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// affinity-format-var.
pub(crate) fn affinity_format() -> String {
    let set = FORMAT.lock().unwrap_or_else(|e| e.into_inner()).clone();
    set.or_else(|| settings().affinity_format.clone())
        .unwrap_or_else(|| crate::affinity_format::DEFAULT_FORMAT.to_string())
}

/// `omp_set_affinity_format`: a bad format is reported when a line is made from it.
pub(crate) fn set_affinity_format(format: &str) {
    *FORMAT.lock().unwrap_or_else(|e| e.into_inner()) = Some(format.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings_of(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let names: Vec<String> = pairs.iter().map(|(k, _)| k.clone()).collect();
        read_settings(
            &move |name| {
                pairs
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            },
            &names,
        )
    }

    /// The notes of settings that are read, joined.
    fn notes_of(pairs: &[(&str, &str)]) -> String {
        settings_of(pairs).unwrap().notes.join("\n")
    }

    #[test]
    fn settings_are_read_and_bad_ones_named() {
        let s = settings_of(&[
            ("OMP_NUM_THREADS", "3,2"),
            ("OMP_STACKSIZE", "4M"),
            ("OMP_NUM_TEAMS", "5"),
            ("OMP_TEAMS_THREAD_LIMIT", " 2 "),
            ("OMP_ALLOCATOR", "omp_large_cap_mem_space:alignment=128"),
        ])
        .unwrap();
        assert_eq!(s.threads_list, [3, 2]);
        assert_eq!((s.num_teams, s.teams_thread_limit), (Some(5), Some(2)));
        assert!(!s.offload_mandatory);
        assert!(
            settings_of(&[("OMP_TARGET_OFFLOAD", "MANDATORY")])
                .unwrap()
                .offload_mandatory
        );
        assert_eq!(s.stack, Some(4 << 20));
        assert_eq!(
            settings_of(&[("OMP_STACKSIZE", "512")]).unwrap().stack,
            Some(512 << 10)
        );
        assert!(settings_of(&[("OMP_PROC_BIND", "false")]).unwrap().unpinned);
        for value in ["true", "FALSE"] {
            assert!(settings_of(&[("OMP_CANCELLATION", value)]).is_ok());
        }
        let s = settings_of(&[
            ("OMP_THREAD_LIMIT", "1"),
            ("OMP_DYNAMIC", "TRUE"),
            ("OMP_MAX_ACTIVE_LEVELS", "0"),
            ("OMP_WAIT_POLICY", "passive"),
            ("OMP_DEFAULT_DEVICE", "3"),
            ("OMP_MAX_TASK_PRIORITY", "7"),
        ])
        .unwrap();
        assert_eq!(s.thread_limit, Some(1));
        assert!(s.dynamic);
        assert_eq!(s.max_active_levels, 0);
        assert_eq!(s.wait_active, Some(false));
        assert_eq!((s.default_device, s.max_task_priority), (3, 7));
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        // `_ALL` stands in for the plain name, which wins where both are set.
        let s = settings_of(&[("OMP_NUM_THREADS_ALL", "5"), ("OMP_DYNAMIC_ALL", "true")]).unwrap();
        assert_eq!((s.threads_list.clone(), s.dynamic), (vec![5], true));
        let s = settings_of(&[("OMP_NUM_THREADS_ALL", "5"), ("OMP_NUM_THREADS", "2")]).unwrap();
        assert_eq!(s.threads_list, [2]);
        for (var, value) in [
            ("OMP_NUM_THREADS", "0"),
            ("OMP_NUM_THREADS", "lots"),
            ("OMP_NUM_THREADS", "4,,2"),
            ("OMP_NUM_THREADS", "4,x"),
            ("OMP_NUM_THREADS_ALL", "-3"),
            ("OMP_STACKSIZE", "12Q"),
            ("OMP_STACKSIZE", "1B"),
            ("OMP_STACKSIZE", "M"),
            ("OMP_STACKSIZE", "-4M"),
            ("OMP_STACKSIZE", "99999999999999G"),
            ("OMP_STACKSIZE", "99999999999999999999999999"),
            ("OMP_STACKSIZE", "17G"),
            ("OMP_PROC_BIND", "sideways"),
            ("OMP_PROC_BIND", "spread,true"),
            ("OMP_PROC_BIND", "close,"),
            ("OMP_PLACES", "everywhere"),
            ("OMP_PLACES", "cores(0)"),
            ("OMP_PLACES", "cores(many)"),
            ("OMP_PLACES", "threads(4"),
            ("OMP_PLACES", "{0,1"),
            ("OMP_PLACES", "{}"),
            ("OMP_PLACES", "{0:0}"),
            ("OMP_PLACES", "{-1}"),
            ("OMP_PLACES", "{0,1}{2,3}"),
            ("OMP_PLACES", "{0}:0"),
            ("OMP_PLACES", "{99999999999999}"),
            ("OMP_THREAD_LIMIT", "0"),
            ("OMP_THREAD_LIMIT", "unlimited"),
            ("OMP_DYNAMIC", "maybe"),
            ("OMP_NESTED", "1"),
            ("OMP_WAIT_POLICY", "busy"),
            ("OMP_MAX_ACTIVE_LEVELS", "abc"),
            ("OMP_MAX_ACTIVE_LEVELS", "-1"),
            ("OMP_DEFAULT_DEVICE", "abc"),
            ("OMP_DEFAULT_DEVICE", "4294967296"),
            ("OMP_MAX_TASK_PRIORITY", "-1"),
            ("OMP_SCHEDULE", "fastest"),
            ("OMP_SCHEDULE", "dynamic,0"),
            ("OMP_CANCELLATION", "sometimes"),
            ("OMP_ALLOCATOR", "omp_quick_mem_alloc"),
            ("OMP_ALLOCATOR", "omp_default_mem_space:pinned=true"),
            ("OMP_NUM_TEAMS", "0"),
            ("OMP_TEAMS_THREAD_LIMIT", "many"),
            ("OMP_TARGET_OFFLOAD", "sometimes"),
            ("OMP_DISPLAY_ENV", "loud"),
            ("OMP_AFFINITY_FORMAT", "thread %Q"),
            ("OMP_AFFINITY_FORMAT", "%99999999999n"),
            ("OMP_DISPLAY_AFFINITY", "yes"),
            ("OMP_TOOL", "on"),
            ("OMP_DEBUG", "yes"),
        ] {
            let e = settings_of(&[(var, value)]).unwrap_err();
            assert!(e.starts_with(var) && e.contains(value), "{e}");
        }
    }

    #[test]
    fn stack_sizes_say_what_is_wrong() {
        let e = parse_stack("99999999999999G").unwrap_err();
        assert!(e.contains("more than the 16G"), "{e}");
        let e = parse_stack("12").unwrap_err();
        assert!(e.contains("less than the 64K"), "{e}");
        let e = parse_stack("4X").unwrap_err();
        assert!(e.contains("B, K, M or G"), "{e}");
        assert_eq!(parse_stack(" 16g ").unwrap(), MAX_STACK);
        assert_eq!(parse_stack("65536B").unwrap(), MIN_STACK);
        assert_eq!(parse_stack("2 M").unwrap(), 2 << 20);
    }

    #[test]
    fn binding_lists_and_places_are_read_and_followed_as_pinning_can() {
        let s = settings_of(&[("OMP_PROC_BIND", "spread, close")]).unwrap();
        assert_eq!(s.proc_bind, [Bind::Spread, Bind::Close]);
        assert_eq!(s.pinning, Some(Pinning::Pu));
        let notes = s.notes.join("\n");
        assert!(
            notes.contains("only its first level is followed"),
            "{notes}"
        );
        assert!(
            notes.contains("OMP_PROC_BIND=spread is not followed"),
            "{notes}"
        );
        assert_eq!(
            settings_of(&[("OMP_PROC_BIND", "master")])
                .unwrap()
                .proc_bind,
            [Bind::Primary]
        );
        // close over threads, and ll_caches places, are followed without a word.
        let s = settings_of(&[("OMP_PROC_BIND", "close"), ("OMP_PLACES", "threads")]).unwrap();
        assert_eq!((s.pinning, s.notes.len()), (Some(Pinning::Pu), 0));
        let s = settings_of(&[("OMP_PLACES", "LL_CACHES")]).unwrap();
        assert_eq!((s.pinning, s.notes.len()), (Some(Pinning::Squad), 0));
        assert_eq!(s.places, Some(Places::Abstract("ll_caches", None)));
        assert_eq!(settings_of(&[]).unwrap().pinning, None);
        let s = settings_of(&[("OMP_PROC_BIND", "false"), ("OMP_PLACES", "cores")]).unwrap();
        assert_eq!(s.pinning, Some(Pinning::None));
        assert!(s.unpinned);
        assert!(notes_of(&[("OMP_PLACES", "sockets(2)")]).contains("count is not followed"));
        assert!(notes_of(&[("OMP_PLACES", "cores")]).contains("OMP_PLACES=cores is not followed"));
        for list in ["{0,1},{2,3}", "{0:4}:2:4", "!{0}, {1:2:2}", "{0,!1}"] {
            let s = settings_of(&[("OMP_PLACES", list)]).unwrap();
            assert_eq!(s.places, Some(Places::List(list.into())));
            assert!(s.notes[0].contains("no explicit place"), "{:?}", s.notes);
        }
    }

    #[test]
    fn unknown_and_device_names_are_answered() {
        let notes = notes_of(&[("OMP_NUM_THREAD", "4"), ("OMP_NUM_THREADS_DEV_1", "8")]);
        assert!(
            notes.contains("OMP_NUM_THREAD is not an OpenMP setting"),
            "{notes}"
        );
        assert!(
            notes.contains("OMP_NUM_THREADS_DEV_1 is not followed"),
            "{notes}"
        );
        let notes = notes_of(&[
            ("OMP_WAIT_POLICY", "ACTIVE"),
            ("OMP_NESTED", "true"),
            ("OMP_TOOL_LIBRARIES", "libtool.so"),
        ]);
        assert!(
            notes.contains("OMP_WAIT_POLICY=active is not followed"),
            "{notes}"
        );
        assert!(notes.contains("OMP_TOOL_LIBRARIES=libtool.so"), "{notes}");
        assert_eq!(
            settings_of(&[("OMP_NESTED", "true")])
                .unwrap()
                .max_active_levels,
            255
        );
        assert!(notes_of(&[("OMP_MAX_ACTIVE_LEVELS", "4"), ("OMP_NESTED", "false")]).is_empty());
        assert!(notes_of(&[("OMP_NUM_THREADS", "4,2,1")]).is_empty());
    }
}
