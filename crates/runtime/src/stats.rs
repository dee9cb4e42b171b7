//! Scheduling statistics, per worker and per pool.
//!
//! Each worker counts in its own cache-padded block of atomics that only it writes
//! (`Relaxed` load and store, no read-modify-write), so counting costs a plain add on
//! the hot path and readers never contend with each other. A reader sees every event
//! that happened-before its read (for example everything inside an `install` that has
//! returned). Idle time is added when an idle spell ends, and a worker publishes when
//! its current spell began, so a snapshot also counts the part of a spell still running:
//! the difference of two snapshots ([`PoolStats::since`]) is the idle time between them,
//! not time slept before the first.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

macro_rules! stats {
    ($( $(#[$doc:meta])* $field:ident ),* $(,)?) => {
        /// What one worker did. Counts, except `idle_ns`.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
        pub struct WorkerStats {
            $( $(#[$doc])* pub $field: u64, )*
        }

        /// The live counters of one worker; only that worker writes them.
        #[derive(Debug, Default)]
        pub(crate) struct Counters {
            $( pub(crate) $field: AtomicU64, )*
            /// When the idle spell in progress began, in nanoseconds since the pool's
            /// epoch, plus one; zero while the worker is busy.
            pub(crate) idle_since: AtomicU64,
        }

        impl Counters {
            /// The counters as of `now_ns` (nanoseconds since the pool's epoch).
            pub(crate) fn snapshot(&self, now_ns: u64) -> WorkerStats {
                loop {
                    // Acquire pairs with the Release store that ends a spell, which comes
                    // after that spell was added to `idle_ns`; reading `idle_since` on both
                    // sides detects a spell that began or ended in between.
                    let since = self.idle_since.load(Ordering::Acquire);
                    let mut stats = WorkerStats { $( $field: self.$field.load(Ordering::Acquire), )* };
                    if self.idle_since.load(Ordering::Acquire) != since {
                        continue;
                    }
                    if since != 0 {
                        stats.idle_ns += now_ns.saturating_sub(since - 1);
                    }
                    return stats;
                }
            }
        }

        impl WorkerStats {
            /// The names of the fields, in order, as reports print them.
            pub const NAMES: &'static [&'static str] = &[$( stringify!($field), )*];

            /// The fields' values, in the order of [`WorkerStats::NAMES`].
            pub fn values(&self) -> Vec<u64> {
                vec![$( self.$field, )*]
            }

            /// What happened since `before` (a snapshot of the same worker).
            pub fn since(&self, before: &WorkerStats) -> WorkerStats {
                WorkerStats { $( $field: self.$field.saturating_sub(before.$field), )* }
            }

            /// Field-wise sum.
            pub fn add(&self, other: &WorkerStats) -> WorkerStats {
                WorkerStats { $( $field: self.$field + other.$field, )* }
            }
        }
    };
}

stats! {
    /// Tasks run (both halves of every `join`, every spawn, every injected root).
    tasks,
    /// Tasks stolen from the deque of a worker in the thief's own squad.
    steals_squad,
    /// Steals from another squad: single tasks from a remote worker's deque, bulk
    /// steals from a remote squad's queue (each bulk steal counts once), or inter-squad
    /// tasks from a remote squad's pool. The three fields that follow split them by the
    /// victim squad's tier (`locus_topo::SquadTier`).
    steals_remote,
    /// Of `steals_remote`, those from a squad in the thief's NUMA node.
    steals_same_node,
    /// Of `steals_remote`, those from a squad in the thief's package, another node.
    steals_same_package,
    /// Of `steals_remote`, those from a squad in another package (across the interconnect).
    steals_other_package,
    /// Steals where a probe saw work but the steal found none (another thief or the
    /// owner got there first).
    failed_steals,
    /// Bulk steals (`mts`): one worker taking a batch from a remote squad for its squad.
    bulk_steals,
    /// Tasks moved by bulk steals.
    bulk_tasks,
    /// Tasks a worker took back from a shared queue at a `join` because nobody had
    /// started them yet (policies that place spawns outside the worker's own deque).
    taken_back,
    /// Second halves of joins (and of loops' splits) that the worker ran itself without
    /// queueing them: the policy placed them in its own squad's shared queue (`mts`),
    /// which already held a task for each of the squad's workers (`raw::BACKLOG` at
    /// least) more than the pool had idle workers.
    run_at_once,
    /// Root tasks taken from the pool's injector (work submitted from outside).
    injected,
    /// Times the worker went to sleep.
    sleeps,
    /// Nanoseconds spent looking for work without finding any (spinning or asleep).
    idle_ns,
}

/// Increments one of the calling worker's own counters.
#[inline]
pub(crate) fn bump(counter: &AtomicU64, by: u64) {
    counter.store(counter.load(Ordering::Relaxed) + by, Ordering::Relaxed);
}

/// The statistics of a pool: one entry per worker.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PoolStats {
    /// Per worker, by worker index.
    pub workers: Vec<WorkerStats>,
}

impl PoolStats {
    /// The sum over all workers.
    pub fn total(&self) -> WorkerStats {
        self.workers
            .iter()
            .fold(WorkerStats::default(), |acc, w| acc.add(w))
    }

    /// Worker-wise sum of two runs of the same pool.
    pub fn add(&self, other: &PoolStats) -> PoolStats {
        let workers = self
            .workers
            .iter()
            .zip(&other.workers)
            .map(|(a, b)| a.add(b))
            .collect();
        PoolStats { workers }
    }

    /// What happened since `before`, a snapshot of the same pool.
    pub fn since(&self, before: &PoolStats) -> PoolStats {
        let workers = self
            .workers
            .iter()
            .zip(&before.workers)
            .map(|(now, then)| now.since(then))
            .collect();
        PoolStats { workers }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_subtract_and_sum() {
        let c = Counters::default();
        bump(&c.tasks, 3);
        let before = PoolStats {
            workers: vec![c.snapshot(0)],
        };
        bump(&c.tasks, 2);
        bump(&c.steals_remote, 1);
        let after = PoolStats {
            workers: vec![c.snapshot(0)],
        };
        let run = after.since(&before);
        assert_eq!(run.total().tasks, 2);
        assert_eq!(run.total().steals_remote, 1);
        assert_eq!(WorkerStats::NAMES.len(), run.workers[0].values().len());
    }

    #[test]
    fn a_spell_in_progress_counts_up_to_the_snapshot() {
        let c = Counters::default();
        bump(&c.idle_ns, 100);
        c.idle_since.store(1_000 + 1, Ordering::Release); // idle since t = 1000 ns
        assert_eq!(c.snapshot(1_500).idle_ns, 600);
        assert_eq!(c.snapshot(2_000).since(&c.snapshot(1_500)).idle_ns, 500);
        // The spell ends at 2500: added to the total, no longer in progress.
        bump(&c.idle_ns, 1_500);
        c.idle_since.store(0, Ordering::Release);
        assert_eq!(c.snapshot(9_999).idle_ns, 1_600);
    }
}
