//! The settings read at start (`OMP_*` and `LOCUS_*`) and the pools that run teams.
//!
//! Read once, on the first OpenMP call that needs them. What locus honours:
//! `OMP_NUM_THREADS` (the first number of its list: the team size), `OMP_STACKSIZE`
//! (the workers' stacks), `OMP_SCHEDULE` (`schedule(runtime)` loops, until
//! `omp_set_schedule`), `OMP_PROC_BIND=false` (workers unpinned), `OMP_ALLOCATOR`
//! (`alloc.rs`), `OMP_NUM_TEAMS` and `OMP_TEAMS_THREAD_LIMIT` (`teams.rs`) and
//! `OMP_TARGET_OFFLOAD` (`target.rs`), `OMP_AFFINITY_FORMAT` and `OMP_DISPLAY_AFFINITY`
//! (`affinity.rs`), and `OMP_DISPLAY_ENV` ([`display`]). What it does not,
//! it says once on stderr and what it does instead: other `OMP_PROC_BIND` values and
//! `OMP_PLACES` (workers are placed by the locus policy on the `LOCUS_TOPOLOGY`
//! machine), nested parallelism (`OMP_NESTED`, `OMP_MAX_ACTIVE_LEVELS`: inner regions
//! run with a team of one), and `OMP_CANCELLATION=true` (cancel constructs are ignored,
//! as they are by default). A value that cannot be read is an error naming the
//! variable; the program exits with status 2.

use crate::loops::{Kind, Schedule};
use locus::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The settings of this process.
#[derive(Debug)]
pub(crate) struct Settings {
    /// `OMP_NUM_THREADS`, if set.
    pub(crate) threads: Option<usize>,
    /// `OMP_STACKSIZE` in bytes, if set.
    pub(crate) stack: Option<usize>,
    /// `OMP_PROC_BIND=false`.
    pub(crate) unpinned: bool,
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
    /// `OMP_DISPLAY_ENV`: 0 (false), 1 (true) or 2 (verbose).
    pub(crate) display_env: u8,
    /// `OMP_AFFINITY_FORMAT` (checked), if set.
    pub(crate) affinity_format: Option<String>,
    /// `OMP_DISPLAY_AFFINITY=true`.
    pub(crate) display_affinity: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// The settings, read on first use; a bad value ends the program (see the module docs).
pub(crate) fn settings() -> &'static Settings {
    let mut first = false;
    let s = SETTINGS.get_or_init(|| {
        first = true;
        match read_settings(&|name| std::env::var(name).ok()) {
            Ok(s) => s,
            Err(message) => fail(&message),
        }
    });
    if first && s.display_env > 0 {
        eprint!("{}", display(s.display_env > 1));
    }
    s
}

/// `omp_display_env`'s text: the settings locus runs with, as OpenMP names them (and,
/// `verbose`, locus's own), between OpenMP's first and last lines. It builds no pool
/// and takes no lock (it also runs as the settings are first read, which a pool's
/// making may do).
pub(crate) fn display(verbose: bool) -> String {
    let s = settings();
    let threads = match NUM_THREADS.load(Ordering::Relaxed) {
        0 => s
            .threads
            .map_or("(unset: one per CPU of the machine)".to_string(), |n| {
                n.to_string()
            }),
        n => n.to_string(),
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
    let lines = [
        ("_OPENMP", "201511".to_string()),
        ("OMP_DYNAMIC", "FALSE".to_string()),
        ("OMP_NESTED", "FALSE".to_string()),
        ("OMP_NUM_THREADS", threads),
        ("OMP_SCHEDULE", schedule),
        (
            "OMP_PROC_BIND",
            if s.unpinned {
                "FALSE"
            } else {
                "TRUE (locus policy)"
            }
            .to_string(),
        ),
        ("OMP_PLACES", String::new()),
        ("OMP_STACKSIZE", stack),
        ("OMP_THREAD_LIMIT", locus::MAX_THREADS.to_string()),
        ("OMP_MAX_ACTIVE_LEVELS", "1".to_string()),
        ("OMP_NUM_TEAMS", crate::teams::max_teams().to_string()),
        (
            "OMP_TEAMS_THREAD_LIMIT",
            crate::teams::teams_thread_limit().to_string(),
        ),
        ("OMP_CANCELLATION", "FALSE".to_string()),
        ("OMP_DEFAULT_DEVICE", "0".to_string()),
        ("OMP_MAX_TASK_PRIORITY", "0".to_string()),
        (
            "OMP_DISPLAY_AFFINITY",
            if s.display_affinity { "TRUE" } else { "FALSE" }.into(),
        ),
        ("OMP_AFFINITY_FORMAT", crate::affinity::format()),
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

/// Prints `message` as locus's and exits with status 2.
pub(crate) fn fail(message: &str) -> ! {
    eprintln!("locus: {message}");
    std::process::exit(2)
}

fn read_settings(var: &dyn Fn(&str) -> Option<String>) -> Result<Settings, String> {
    let get = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    let threads = match get("OMP_NUM_THREADS") {
        None => None,
        Some(v) => Some(parse_threads(&v)?),
    };
    let stack = match get("OMP_STACKSIZE") {
        None => None,
        Some(v) => Some(parse_stack(&v)?),
    };
    let mut unpinned = false;
    if let Some(v) = get("OMP_PROC_BIND") {
        match v.trim().to_ascii_lowercase().as_str() {
            "false" => unpinned = true,
            "true" | "master" | "primary" | "close" | "spread" => eprintln!(
                "locus: OMP_PROC_BIND={v} is not followed: workers are placed by the locus \
                 policy (LOCUS_POLICY) on the machine LOCUS_TOPOLOGY describes"
            ),
            _ => {
                return Err(format!(
                    "OMP_PROC_BIND={v:?}: expected true, false, primary, master, close or spread"
                ))
            }
        }
    }
    if let Some(v) = get("OMP_PLACES") {
        eprintln!(
            "locus: OMP_PLACES={v} is not followed: worker i runs on PU i of the machine \
             LOCUS_TOPOLOGY describes (round robin over the allowed CPUs)"
        );
    }
    let nested = get("OMP_NESTED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || get("OMP_MAX_ACTIVE_LEVELS")
            .is_some_and(|v| v.trim().parse::<u32>().is_ok_and(|n| n > 1));
    if nested {
        eprintln!("locus: nested parallel regions run with a team of one thread");
    }
    if let Some(v) = get("OMP_CANCELLATION") {
        match v.trim().to_ascii_lowercase().as_str() {
            "false" => {}
            "true" => eprintln!(
                "locus: OMP_CANCELLATION=true is not followed: cancel constructs are ignored, \
                 as with OMP_CANCELLATION=false (the default)"
            ),
            _ => return Err(format!("OMP_CANCELLATION={v:?}: expected true or false")),
        }
    }
    let schedule = match get("OMP_SCHEDULE") {
        None => Schedule::default_runtime(),
        Some(v) => Schedule::parse(&v).map_err(|e| format!("OMP_SCHEDULE={v:?}: {e}"))?,
    };
    let stats = get("LOCUS_STATS").is_some_and(|v| v.trim() != "0");
    let allocator = get("OMP_ALLOCATOR");
    if let Some(v) = &allocator {
        crate::alloc::check_environment(v).map_err(|e| format!("OMP_ALLOCATOR={v:?}: {e}"))?;
    }
    let positive = |name: &str| match get(name) {
        None => Ok(None),
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => Err(format!("{name}={v:?}: expected a positive number")),
        },
    };
    let offload_mandatory = match get("OMP_TARGET_OFFLOAD") {
        None => false,
        Some(v) => match v.trim().to_ascii_lowercase().as_str() {
            "mandatory" => true,
            "disabled" | "default" => false,
            _ => {
                return Err(format!(
                    "OMP_TARGET_OFFLOAD={v:?}: expected mandatory, disabled or default"
                ))
            }
        },
    };
    let display_env = match get("OMP_DISPLAY_ENV") {
        None => 0,
        Some(v) => match v.trim().to_ascii_lowercase().as_str() {
            "false" => 0,
            "true" => 1,
            "verbose" => 2,
            _ => {
                return Err(format!(
                    "OMP_DISPLAY_ENV={v:?}: expected true, false or verbose"
                ))
            }
        },
    };
    let affinity_format = get("OMP_AFFINITY_FORMAT");
    if let Some(v) = &affinity_format {
        crate::affinity::check(v).map_err(|e| format!("OMP_AFFINITY_FORMAT={v:?}: {e}"))?;
    }
    let display_affinity = match get("OMP_DISPLAY_AFFINITY") {
        None => false,
        Some(v) => match v.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(format!(
                    "OMP_DISPLAY_AFFINITY={v:?}: expected true or false"
                ))
            }
        },
    };
    Ok(Settings {
        threads,
        stack,
        unpinned,
        schedule,
        stats,
        allocator,
        num_teams: positive("OMP_NUM_TEAMS")?,
        teams_thread_limit: positive("OMP_TEAMS_THREAD_LIMIT")?,
        offload_mandatory,
        display_env,
        affinity_format,
        display_affinity,
    })
}

fn parse_threads(v: &str) -> Result<usize, String> {
    let first = v.split(',').next().unwrap_or("").trim();
    match first.parse::<usize>() {
        Ok(n) if (1..=locus::MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "OMP_NUM_THREADS={v:?}: expected a number of threads in 1..={}",
            locus::MAX_THREADS
        )),
    }
}

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
            return Err(format!(
                "OMP_STACKSIZE={v:?}: expected a size such as 512K, 8M or 1G"
            ))
        }
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n >= 64 << 10)
        .ok_or_else(|| format!("OMP_STACKSIZE={v:?}: expected a size of at least 64K"))
}

/// A pool that runs teams of its size, one team at a time.
pub(crate) struct TeamPool {
    pub(crate) pool: ThreadPool,
    /// Held while a team runs on the pool (teams from different threads take turns).
    pub(crate) region: Mutex<()>,
    /// Tasks its teams ran at once rather than spawned (`task.rs`, `run_at_once`): each
    /// member adds its own count as it leaves a region.
    pub(crate) run_at_once: AtomicU64,
}

static POOLS: Mutex<Vec<&'static TeamPool>> = Mutex::new(Vec::new());

/// nthreads-var as `omp_set_num_threads` set it; 0 if never set.
static NUM_THREADS: AtomicUsize = AtomicUsize::new(0);

/// `omp_set_num_threads`.
pub(crate) fn set_num_threads(n: usize) {
    NUM_THREADS.store(n.clamp(1, locus::MAX_THREADS), Ordering::Relaxed);
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

/// nthreads-var: the team size of a region without `num_threads`.
pub(crate) fn max_threads() -> usize {
    match NUM_THREADS.load(Ordering::Relaxed) {
        0 => settings()
            .threads
            .unwrap_or_else(|| pool_for(None).pool.num_threads()),
        n => n,
    }
}

/// The pool for teams of `threads` workers (the environment's default size if `None`),
/// built on first use. Pools live until the process ends.
pub(crate) fn pool_for(threads: Option<usize>) -> &'static TeamPool {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    let wanted = threads.or(settings().threads);
    if let Some(p) = pools
        .iter()
        .find(|p| wanted.is_none_or(|n| p.pool.num_threads() == n))
    {
        return p;
    }
    let s = settings();
    let mut builder = match ThreadPoolBuilder::from_env() {
        Ok(b) => b,
        Err(e) => fail(&locus::error_chain(&e)),
    };
    if let Some(n) = wanted {
        builder = builder.num_threads(n);
    }
    if let Some(stack) = s.stack {
        builder = builder.stack_size(stack);
    }
    if s.unpinned {
        builder = builder.pin(false);
    }
    let pool = match builder.build() {
        Ok(p) => p,
        Err(e) => fail(&format!(
            "cannot start the OpenMP team's workers: {}",
            locus::error_chain(&e)
        )),
    };
    let team_pool: &'static TeamPool = Box::leak(Box::new(TeamPool {
        pool,
        region: Mutex::new(()),
        run_at_once: AtomicU64::new(0),
    }));
    if pools.is_empty() && s.stats {
        crate::stats::print_at_exit();
    }
    pools.push(team_pool);
    team_pool
}

/// Every pool built so far.
pub(crate) fn pools() -> Vec<&'static TeamPool> {
    POOLS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings_of(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        read_settings(&move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
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
        assert_eq!(s.threads, Some(3));
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
        for (var, value) in [
            ("OMP_NUM_THREADS", "0"),
            ("OMP_NUM_THREADS", "lots"),
            ("OMP_STACKSIZE", "12Q"),
            ("OMP_STACKSIZE", "1B"),
            ("OMP_PROC_BIND", "sideways"),
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
            ("OMP_DISPLAY_AFFINITY", "yes"),
        ] {
            let e = settings_of(&[(var, value)]).unwrap_err();
            assert!(e.starts_with(var) && e.contains(value), "{e}");
        }
    }
}
