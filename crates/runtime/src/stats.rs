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

use locus_policy::SearchCounter;
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
    /// Tasks run: both halves of every `join`, every spawn, every injected root (the
    /// simulator's `tasks`, which counts each as it starts).
    tasks,
    /// [`SearchCounter::StealsSquad`]: tasks stolen from the deque of a worker in the
    /// thief's own squad.
    steals_squad,
    /// [`SearchCounter::StealsRemote`]: steals from another squad (deques, bulk steals,
    /// inter-squad pools; one each), split by tier in the three fields that follow.
    steals_remote,
    /// [`SearchCounter::StealsSameNode`].
    steals_same_node,
    /// [`SearchCounter::StealsSamePackage`].
    steals_same_package,
    /// [`SearchCounter::StealsOtherPackage`].
    steals_other_package,
    /// [`SearchCounter::LostSteals`]: a victim showed work, the steal got none.
    lost_steals,
    /// [`SearchCounter::EmptyScans`]: stealing probes that came back with nothing.
    empty_scans,
    /// [`SearchCounter::BulkSteals`].
    bulk_steals,
    /// [`SearchCounter::BulkTasks`].
    bulk_tasks,
    /// Tasks a worker took back from a shared queue at a `join` because nobody had
    /// started them yet (policies that place spawns outside the worker's own deque).
    taken_back,
    /// Second halves of joins (and of loops' splits) that the worker ran itself without
    /// queueing them: the policy placed them in its own squad's shared queue (`mts`),
    /// which already held a task for each of the squad's workers (`raw::BACKLOG` at
    /// least) more than the pool had idle workers.
    run_at_once,
    /// [`SearchCounter::Injected`]: root tasks taken from the pool's injector.
    injected,
    /// Times the worker went to sleep.
    sleeps,
    /// Nanoseconds spent looking for work without finding any (spinning or asleep).
    idle_ns,
}

impl Counters {
    /// The counter of `counter`, a field of the same name.
    #[inline]
    pub(crate) fn search(&self, counter: SearchCounter) -> &AtomicU64 {
        match counter {
            SearchCounter::StealsSquad => &self.steals_squad,
            SearchCounter::StealsRemote => &self.steals_remote,
            SearchCounter::StealsSameNode => &self.steals_same_node,
            SearchCounter::StealsSamePackage => &self.steals_same_package,
            SearchCounter::StealsOtherPackage => &self.steals_other_package,
            SearchCounter::LostSteals => &self.lost_steals,
            SearchCounter::EmptyScans => &self.empty_scans,
            SearchCounter::BulkSteals => &self.bulk_steals,
            SearchCounter::BulkTasks => &self.bulk_tasks,
            SearchCounter::Injected => &self.injected,
        }
    }
}

impl WorkerStats {
    /// The value of the search's `counter`.
    pub fn search_count(&self, counter: SearchCounter) -> u64 {
        let at = Self::NAMES.iter().position(|&n| n == counter.name());
        at.map_or(0, |at| self.values()[at])
    }
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
    fn each_search_counter_is_the_field_of_its_name() {
        for counter in SearchCounter::ALL {
            let c = Counters::default();
            bump(c.search(counter), 1);
            let s = c.snapshot(0);
            let set: Vec<&str> = WorkerStats::NAMES
                .iter()
                .zip(s.values())
                .filter(|(_, v)| *v == 1)
                .map(|(n, _)| *n)
                .collect();
            assert_eq!(set, [counter.name()]);
            assert_eq!(s.search_count(counter), 1);
        }
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
