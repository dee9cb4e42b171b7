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

use crate::env::{max_teams, teams_thread_limit};
use crate::member;
use crate::member::League;
use crate::node::OutlinedFn;
use std::ffi::c_void;
use std::sync::atomic::Ordering::Relaxed;

/// The innermost league (or target thread limit) around the running thread, if any.
fn league() -> Option<&'static League> {
    let m = member::member();
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
    let m = member::member();
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
