//! The host `teams` construct (`GOMP_teams_reg`, OpenMP 5.0) and its settings.
//!
//! A league of `n` teams runs one team after another on the thread that meets the
//! construct, as libgomp runs host teams: each team's initial thread is that thread, with
//! `omp_get_team_num` telling which team it is, and a parallel region inside a team
//! runs on a locus pool as any region does (at most `thread_limit` threads). Teams
//! cannot synchronise with one another, so running them in turn is a schedule the
//! standard allows; it gives a `teams distribute parallel for` one parallel loop at a
//! time, spread over the whole pool.
//!
//! `n` is the `num_teams` clause, else nteams-var (`omp_set_num_teams`, else
//! `OMP_NUM_TEAMS`), else 1: teams in turn gain nothing from being more. The thread
//! limit is the `thread_limit` clause, else teams-thread-limit-var
//! (`omp_set_teams_thread_limit`, else `OMP_TEAMS_THREAD_LIMIT`), else none.

use crate::team::{self, OutlinedFn};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

/// A league of teams run in turn: kept in the member that met the `teams` construct
/// (the thread's level-0 member for host teams), where the members of the regions
/// inside find it by walking up their ancestors.
#[derive(Default)]
pub(crate) struct League {
    /// Teams in the league; 0 outside a `teams` region.
    size: AtomicU32,
    /// The team running now.
    num: AtomicU32,
    /// The largest team a parallel region inside makes; 0 for no limit. A target
    /// region's `thread_limit` is kept here too, outside any league.
    pub(crate) thread_limit: AtomicUsize,
    /// The limit before the league started, restored when it ends.
    saved_limit: AtomicUsize,
}

impl League {
    /// Starts a league of `n` teams (at least 1) at team 0; a `limit` of 0 keeps the
    /// thread limit there is.
    pub(crate) fn start(&self, n: u32, limit: usize) {
        let old = self.thread_limit.load(Relaxed);
        self.saved_limit.store(old, Relaxed);
        if limit > 0 {
            self.thread_limit.store(limit, Relaxed);
        }
        self.num.store(0, Relaxed);
        self.size.store(n.max(1), Relaxed);
    }

    /// Moves to the next team; false, with the league ended, after the last.
    pub(crate) fn next(&self) -> bool {
        let next = self.num.load(Relaxed) + 1;
        if next < self.size.load(Relaxed) {
            self.num.store(next, Relaxed);
            return true;
        }
        self.num.store(0, Relaxed);
        self.size.store(0, Relaxed);
        self.thread_limit
            .store(self.saved_limit.load(Relaxed), Relaxed);
        false
    }

    fn active(&self) -> bool {
        self.size.load(Relaxed) > 0 || self.thread_limit.load(Relaxed) > 0
    }
}

/// nteams-var as `omp_set_num_teams` set it; 0 if never set.
static NUM_TEAMS: AtomicUsize = AtomicUsize::new(0);
/// teams-thread-limit-var as `omp_set_teams_thread_limit` set it (0: no limit);
/// `usize::MAX` if never set.
static THREAD_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// `omp_set_num_teams`: negative values are ignored, as libgomp ignores them.
pub(crate) fn set_num_teams(n: i32) {
    if let Ok(n) = usize::try_from(n) {
        NUM_TEAMS.store(n, Relaxed);
    }
}

/// `omp_get_max_teams`: nteams-var, 0 if neither set nor in the environment.
pub(crate) fn max_teams() -> usize {
    match NUM_TEAMS.load(Relaxed) {
        0 => crate::env::settings().num_teams.unwrap_or(0),
        n => n,
    }
}

/// `omp_set_teams_thread_limit`: negative values are ignored.
pub(crate) fn set_teams_thread_limit(n: i32) {
    if let Ok(n) = usize::try_from(n) {
        THREAD_LIMIT.store(n, Relaxed);
    }
}

/// `omp_get_teams_thread_limit`: 0 for no limit.
pub(crate) fn teams_thread_limit() -> usize {
    match THREAD_LIMIT.load(Relaxed) {
        usize::MAX => crate::env::settings().teams_thread_limit.unwrap_or(0),
        n => n,
    }
}

/// The innermost league (or target thread limit) around the running thread, if any.
fn league() -> Option<&'static League> {
    let m = team::member();
    (0..=m.level)
        .rev()
        .filter_map(|l| m.ancestor(l))
        .map(|a| &a.league)
        .find(|l| l.active())
}

/// `omp_get_num_teams`: 1 outside a `teams` region.
pub(crate) fn num_teams() -> u32 {
    league().map_or(1, |l| l.size.load(Relaxed).max(1))
}

/// `omp_get_team_num`: 0 outside a `teams` region.
pub(crate) fn team_num() -> u32 {
    league().map_or(0, |l| l.num.load(Relaxed))
}

/// The thread limit of the enclosing `teams` region, if it has one.
pub(crate) fn thread_limit() -> Option<usize> {
    league()
        .map(|l| l.thread_limit.load(Relaxed))
        .filter(|&n| n > 0)
}

/// `GOMP_teams_reg`: runs `f(data)` once per team, in turn.
///
/// # Safety
/// `f` and `data` are GCC's outlined teams region and its data.
pub(crate) unsafe fn teams(f: OutlinedFn, data: *mut c_void, num_teams: u32, limit: u32) {
    let m = team::member();
    if m.level != 0 {
        crate::env::fail(
            "a teams construct inside a parallel region (OpenMP allows teams only \
             outermost or in a target region)",
        );
    }
    let league = &m.league;
    if league.size.load(Relaxed) != 0 {
        crate::env::fail("a teams construct inside a teams region");
    }
    let n = match num_teams {
        0 => max_teams().max(1),
        n => n as usize,
    };
    let limit = match limit {
        0 => teams_thread_limit(),
        l => l as usize,
    };
    league.start(u32::try_from(n).unwrap_or(u32::MAX), limit);
    loop {
        // SAFETY: the program's outlined function, called as GCC's libgomp calls it.
        unsafe { f(data) };
        if !league.next() {
            break;
        }
    }
}
