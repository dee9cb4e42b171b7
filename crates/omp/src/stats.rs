//! `LOCUS_STATS=1` (or `locus run --stats`): the report of a crew's pool, which
//! `crew.rs` prints on stderr at exit, retired crews' first: tasks, steals by kind, and
//! the policy's own counts (placement stability among them on machines of two squads
//! or more).
//!
//! `locus run --stats` names a file of its private folder in `LOCUS_RUN_LOADED`, which
//! this library creates as it is loaded, so that `locus run` can tell a program that
//! never loaded it (statically linked, or no OpenMP) why no statistics came.

use locus::WorkerStats;

/// Runs [`mark_loaded`] as the library is loaded.
#[used]
#[link_section = ".init_array"]
static MARK_LOADED: extern "C" fn() = mark_loaded;

/// Creates the file `LOCUS_RUN_LOADED` names, if it is set and the file is not there yet.
extern "C" fn mark_loaded() {
    if let Some(path) = std::env::var_os("LOCUS_RUN_LOADED") {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path);
    }
}

/// One pool's report; `run_at_once` counts the teams' tasks that ran at once on the
/// thread that made them, and `helped` the pool's tasks that the teams' threads 0 ran
/// while they waited, neither of which the pool's own `tasks` include.
pub(crate) fn describe(pool: &locus::ThreadPool, run_at_once: u64, helped: u64) -> String {
    let total = pool.stats().total();
    let mut out = format!(
        "locus stats: {} workers, {} squads, policy {}, machine {}\n",
        pool.num_threads(),
        pool.num_squads(),
        pool.policy_name(),
        pool.topology().name()
    );
    for (name, value) in WorkerStats::NAMES.iter().zip(total.values()) {
        out.push_str(&format!("locus stats:   {name} {value}\n"));
    }
    out.push_str(&format!(
        "locus stats:   tasks run at once {run_at_once} (their workers had tasks enough \
         queued for thieves)\n"
    ));
    out.push_str(&format!(
        "locus stats:   tasks run by thread 0 {helped} (taken from the pool while it waited)\n"
    ));
    for (name, value) in pool.policy_stats() {
        out.push_str(&format!("locus stats:   {name} {value}\n"));
    }
    out
}
