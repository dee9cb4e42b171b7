//! The runtime's half of the search for work: an idle or waiting worker walks its
//! policy's plan ([`Probe`]s), then the injector.
//!
//! The victims of each stealing probe come in the order `locus_policy::VictimOrder`
//! gives, the one the simulator walks too (docs/design.md, "One policy, two
//! engines"); this file only carries each step out on the concurrent queues, and counts
//! what it did in the worker's own counters, by the names and meanings of
//! `locus_policy::SearchCounter`.
//!
//! # Who calls what
//! Only the worker itself, on its own thread: [`WorkerThread::find_work`] from its wait
//! and main loops, [`WorkerThread::has_work`] from the sleep protocol after its fence
//! (looks only, takes nothing). A steal takes the oldest pending join half of a victim
//! (its frames, `frames.rs`), else the oldest task of its deque (crossbeam's `Stealer`); a shared queue is popped under its lock; an empty queue is passed over
//! without taking its lock, and the sleep protocol looks again before sleeping.

use super::WorkerThread;
use crate::job::JobRef;
use crate::queue::{self, BulkSteal};
use crate::stats::bump;
use crossbeam_deque::Steal;
use locus_policy::{
    own_task_scan, pick_shallow, Order, Probe, SearchCounter, Source, VictimOrder, Victims,
};
use std::sync::atomic::Ordering;

impl WorkerThread {
    /// Whether every other worker of this worker's package is in an idle spell (a
    /// relaxed read: a hint, as the pool's idle count is), so that none of them has a
    /// task to steal.
    fn package_idles(&self) -> bool {
        let Some(count) = self.package_idle() else {
            return false;
        };
        self.registry.map.others_in_package_idle(
            self.squad,
            count.load(Ordering::Relaxed),
            self.idle.get(),
        )
    }

    #[inline]
    fn next_random(&self) -> u64 {
        // xorshift64*: the victim order needs speed, not quality.
        let mut rng = self.rng.get();
        let x = rng.next_u64();
        self.rng.set(rng);
        x
    }

    /// Adds `by` to this worker's `counter`.
    #[inline]
    fn count(&self, counter: SearchCounter, by: u64) {
        bump(self.counters().search(counter), by);
    }

    /// One search for work: the policy's plan, then the injector. `waiting`: the worker
    /// waits inside a task.
    pub(super) fn find_work(&self, waiting: bool) -> Option<(JobRef, Source)> {
        let mut plan = self.plan.take();
        plan.clear();
        self.registry.policy.search(self.index, &mut plan);
        let found = plan
            .iter()
            .find_map(|&probe| self.try_probe(probe, waiting));
        self.plan.set(plan);
        found.or_else(|| self.steal_injected().map(|job| (job, Source::OwnSquad)))
    }

    fn try_probe(&self, probe: Probe, waiting: bool) -> Option<(JobRef, Source)> {
        let registry = &*self.registry;
        let local = |job: Option<JobRef>| job.map(|j| (j, Source::OwnSquad));
        match probe {
            Probe::OwnDeque => local(self.deque.pop()),
            Probe::OwnInbox => local(match registry.layout.inbox {
                Some(Order::Fifo) => registry.inboxes[self.index].pop_oldest(),
                Some(Order::Lifo) => registry.inboxes[self.index].pop_newest(),
                None => None,
            }),
            Probe::Steal(victims) => self.steal_one(victims),
            Probe::SquadQueue(squad) => {
                // An empty queue is passed without taking its lock (`ws:near` looks at
                // its squad's queue in every search); the sleep protocol looks again.
                let queue = &registry.squad_queues[squad];
                let found = if queue.is_empty() {
                    None
                } else {
                    queue.pop_newest()
                };
                local(found.map(|q| q.job))
            }
            Probe::SquadQueueShallow(squad) => {
                let scan = own_task_scan(registry.map.squad(squad).len());
                let me = self.index;
                let below = self.search_wait(waiting);
                let picked = registry.squad_queues[squad].pop_picked(|queue| match below {
                    Some(level) => pick_below(queue, level, |q| q.level),
                    None => pick_shallow(queue, waiting, scan, |q| q.by == me, |q| q.level),
                });
                local(picked.map(|q| q.job))
            }
            Probe::BulkSteal { batch, nearest } => self
                .bulk_steal(batch, nearest, self.search_wait(waiting))
                .map(|j| (j, Source::OtherSquad)),
            Probe::Central => local(registry.central.pop_newest()),
            Probe::InterPool(squad) => local(registry.inter_pools[squad].pop_newest()),
            Probe::RemoteInterPools => self.steal_inter_remote().map(|j| (j, Source::OtherSquad)),
        }
    }

    /// The level of the task this worker waits in, if it waits inside a leaf of a
    /// search (a terminal that stops: `find_any`, `any`, ...), for the squad queues'
    /// probes and bulk steals: such a wait starts only tasks below that task, never a
    /// leaf of the search (whose level is the waiting leaf's or less); a bulk steal
    /// still moves its batch, so that tasks the wait needs from another squad come back.
    /// A search's leaf without a hit may end only by the search's stop, and a wait that
    /// started one on top of its own leaf would not return to that leaf until it ended:
    /// with every worker of `mts`'s squads so stacked, a search whose only hit lay in a
    /// waiting leaf never ended (`octillion_flat().any(|x| x == 12_345)`, its leaves
    /// gathering the inner iterators' windows in nested loops). The tasks below are the
    /// waited-for loop's own and other leaves' nested ones, which end, so the wait ends:
    /// what it waits for lies below it, in its squad's queue or brought there by a bulk
    /// steal (a policy may place a nested loop's chunks in another squad). Other probes
    /// are unchanged: a thief of `ws` takes the oldest half of a victim, as rayon's
    /// does, with the same (rarer) hazard.
    #[inline]
    fn search_wait(&self, waiting: bool) -> Option<u32> {
        (waiting && crate::iter::Stop::in_search()).then(|| self.ctx.get().info().level)
    }

    /// Counts a steal (a task, a batch or an inter-squad task) from `victim_squad` by
    /// its tier, and says where the task came from ([`SearchCounter::for_steal`]).
    fn count_steal(&self, victim_squad: usize) -> Source {
        let tier = self.registry.map.tier(self.squad, victim_squad);
        let (counters, source) = SearchCounter::for_steal(tier);
        for &c in counters {
            self.count(c, 1);
        }
        source
    }

    /// A head steals the oldest inter-squad task of another squad, nearest squads first.
    fn steal_inter_remote(&self) -> Option<JobRef> {
        let registry = &*self.registry;
        let pools = &registry.inter_pools;
        let mut squads = VictimOrder::squads(&registry.map, self.squad, true);
        while let Some(victim) = squads.next(|| self.next_random()) {
            if pools[victim].is_empty() {
                continue;
            }
            if let Some(job) = pools[victim].pop_oldest() {
                self.count_steal(victim);
                self.note_steal(registry.map.head(victim), false);
                return Some(job);
            }
            self.count(SearchCounter::LostSteals, 1);
        }
        self.count(SearchCounter::EmptyScans, 1);
        None
    }

    /// Steals one job from the first victim of the [`VictimOrder`] of `victims` that has
    /// one.
    pub(crate) fn steal_one(&self, victims: Victims) -> Option<(JobRef, Source)> {
        let registry = &*self.registry;
        let map = &registry.map;
        let mut order = VictimOrder::workers(map, self.index, victims, || self.package_idles());
        let mut probed = false;
        while let Some(victim) = order.next(|| self.next_random()) {
            probed = true;
            // The victim's pending join halves first: the oldest is its outermost join,
            // the most work one steal can bring.
            let frames = &registry.frames[victim];
            let stealer = &registry.stealers[victim];
            let found = match (frames.is_empty(), stealer.is_empty()) {
                (true, true) => continue,
                (false, _) => frames.steal().or_else(|| stealer.steal().success()),
                (true, false) => stealer.steal().success(),
            };
            match found {
                Some(job) => {
                    self.note_steal(victim, false);
                    return Some((job, self.count_steal(map.squad_of(victim))));
                }
                None => self.count(SearchCounter::LostSteals, 1),
            }
        }
        if probed {
            self.count(SearchCounter::EmptyScans, 1);
        }
        None
    }

    /// MTS: steal a batch from one remote squad for the squad, in the order of
    /// [`VictimOrder::squads`]; nothing while another worker of the squad steals for it.
    /// `below`: a wait inside a search ([`WorkerThread::search_wait`]), which starts
    /// only a task deeper than that.
    fn bulk_steal(&self, batch: usize, nearest: bool, below: Option<u32>) -> Option<JobRef> {
        let registry = &*self.registry;
        let own = &registry.squad_queues[self.squad];
        let flag = &registry.squad_stealing[self.squad];
        let mut scratch = self.scratch.take();
        let mut result = None;
        let mut squads = VictimOrder::squads(&registry.map, self.squad, nearest);
        while let Some(victim) = squads.next(|| self.next_random()) {
            let from = &registry.squad_queues[victim];
            match queue::bulk_steal(flag, from, own, batch, &mut scratch) {
                BulkSteal::Empty => continue,
                BulkSteal::Busy => break,
                BulkSteal::Failed => self.count(SearchCounter::LostSteals, 1),
                BulkSteal::Took { first, moved } => {
                    self.count_steal(victim);
                    self.note_steal(first.by, true);
                    self.count(SearchCounter::BulkSteals, 1);
                    self.count(SearchCounter::BulkTasks, moved as u64);
                    if moved > 1 {
                        registry.sleep.new_work(registry.map.squad(self.squad));
                    }
                    result = match below {
                        // The batch is the oldest tasks of a squad, for a wait inside a
                        // search likely the search's own leaves: they stay in this
                        // squad's queue for its idle workers, and the wait takes a task
                        // below it, if the batch brought one.
                        Some(level) if first.level <= level => {
                            own.push(first);
                            own.pop_picked(|q| pick_below(q, level, |e| e.level))
                                .map(|e| e.job)
                        }
                        _ => Some(first.job),
                    };
                    break;
                }
            }
        }
        self.scratch.set(scratch);
        if result.is_none() {
            self.count(SearchCounter::EmptyScans, 1);
        }
        result
    }

    fn steal_injected(&self) -> Option<JobRef> {
        loop {
            match self.registry.injector.steal() {
                Steal::Success(job) => {
                    self.count(SearchCounter::Injected, 1);
                    return Some(job);
                }
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }

    /// Whether the policy's plan would find work now (probes only; takes nothing): the
    /// victims of each probe, in its order from a fixed start (every victim is looked
    /// at), the own package of a package-first search included.
    pub(super) fn has_work(&self) -> bool {
        let registry = &*self.registry;
        let map = &registry.map;
        let mut plan = Vec::with_capacity(4);
        registry.policy.search(self.index, &mut plan);
        let nonempty_squad_queue = |s: usize| !registry.squad_queues[s].is_empty();
        let any = plan.iter().any(|&probe| match probe {
            Probe::OwnDeque => !self.deque.is_empty(),
            Probe::OwnInbox => registry
                .inboxes
                .get(self.index)
                .is_some_and(|q| !q.is_empty()),
            Probe::Steal(victims) => VictimOrder::workers(map, self.index, victims, || false).any(
                || 0,
                |v| !registry.stealers[v].is_empty() || !registry.frames[v].is_empty(),
            ),
            Probe::SquadQueue(squad) | Probe::SquadQueueShallow(squad) => {
                nonempty_squad_queue(squad)
            }
            Probe::BulkSteal { nearest, .. } => {
                VictimOrder::squads(map, self.squad, nearest).any(|| 0, nonempty_squad_queue)
            }
            Probe::Central => !registry.central.is_empty(),
            Probe::InterPool(squad) => !registry.inter_pools[squad].is_empty(),
            Probe::RemoteInterPools => VictimOrder::squads(map, self.squad, true)
                .any(|| 0, |s| !registry.inter_pools[s].is_empty()),
        });
        any || !registry.injector.is_empty() || !registry.broadcasts[self.index].is_empty()
    }
}

/// The entry of a squad's shared queue (oldest first) that a wait inside a search takes
/// ([`WorkerThread::search_wait`]): the newest entry deeper than `below`, or `None` (the
/// wait goes on without starting a task). The whole queue is looked through, newest
/// first: the search's blocks split while workers look for work, so halves of its
/// leaves' blocks are queued above the nested loops' tasks that the waits need (a scan
/// of the newest few left every worker of a squad waiting for tasks below them).
fn pick_below<E>(
    queue: &std::collections::VecDeque<E>,
    below: u32,
    level: impl Fn(&E) -> u32,
) -> Option<usize> {
    queue.iter().rposition(|e| level(e) > below)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::Registry;
    use super::*;
    use crate::job::StackJob;
    use crate::latch::LockLatch;
    use crossbeam_deque::Worker;
    use locus_policy::{PolicyKind, TaskId, TaskInfo, WorkerMap, VICTIM_CASES};
    use locus_topo::Topology;
    use std::sync::Arc;

    type IdleJob = StackJob<LockLatch, fn(), ()>;

    /// Workers of a `ws` pool over two EPYC 7763 packages (16 squads of 16 workers, 8
    /// per package), with no threads: each of `workers`, in order.
    fn workers(workers: &[usize]) -> Vec<WorkerThread> {
        let topology = Topology::preset("epyc-7763-2s").expect("preset");
        let map = WorkerMap::new(&topology, 256);
        let policy = PolicyKind::Ws.build(&map);
        let (registry, deques) = Registry::new(policy, map, topology, None);
        let mut deques: Vec<Option<Worker<JobRef>>> = deques.into_iter().map(Some).collect();
        workers
            .iter()
            .map(|&w| WorkerThread::new(Arc::clone(&registry), w, deques[w].take().unwrap()))
            .collect()
    }

    /// The victim order's cases, shared with the simulator's tests
    /// ([`locus_policy::VICTIM_CASES`]), on threadless workers.
    #[test]
    fn steals_follow_the_shared_victim_order() {
        for case in VICTIM_CASES {
            let holders: Vec<usize> = case
                .holders
                .iter()
                .copied()
                .filter(|&h| h != case.thief)
                .collect();
            let w = workers(&[&[case.thief][..], &holders].concat());
            let thief = &w[0];
            let info = TaskInfo {
                id: TaskId(1),
                level: 0,
                loop_chunks: 0,
            };
            let jobs: Vec<Box<IdleJob>> = case
                .holders
                .iter()
                .map(|_| Box::new(StackJob::new(info, (|| {}) as fn(), LockLatch::new())))
                .collect();
            // SAFETY: the jobs outlive the workers (dropped after them, below) and are
            // never run: each is stolen unrun and told apart by identity.
            let refs: Vec<JobRef> = jobs.iter().map(|j| unsafe { j.as_job_ref() }).collect();
            for (&holder, job) in case.holders.iter().zip(&refs) {
                let at = if holder == case.thief {
                    0
                } else {
                    1 + holders.iter().position(|&h| h == holder).unwrap()
                };
                w[at].deque.push(*job);
            }
            if case.own_package_idle {
                let others = thief.registry.map.package_workers(thief.squad).len() - 1;
                thief
                    .package_idle()
                    .expect("two packages")
                    .store(others, Ordering::Relaxed);
                assert!(thief.package_idles());
            }
            let taken: Vec<usize> = std::iter::from_fn(|| thief.steal_one(case.victims))
                .map(|(job, _)| {
                    let i = refs
                        .iter()
                        .position(|r| r.same(&job))
                        .expect("a job of the case");
                    case.holders[i]
                })
                .collect();
            let stats = thief.registry.stats();
            case.check("runtime", &taken, |c| {
                stats.workers[case.thief].search_count(c)
            });
            drop(w);
            drop(jobs);
        }
    }

    #[test]
    fn a_worker_in_its_own_idle_spell_counts_itself_among_the_idle() {
        let w = workers(&[3]);
        let thief = &w[0];
        let idle = thief.package_idle().expect("two packages");
        thief.idle.set(true);
        idle.store(127, Ordering::Relaxed);
        assert!(!thief.package_idles(), "one other worker is not idle");
        idle.store(128, Ordering::Relaxed);
        assert!(thief.package_idles());
    }

    #[test]
    fn a_wait_inside_a_search_takes_the_newest_task_below_it_wherever_it_lies() {
        use std::collections::VecDeque;
        // Levels, oldest first: the search's leaves (2) with nested tasks (3, 4) queued
        // between halves of leaves split off later.
        let queue: VecDeque<u32> = [2, 3, 4, 2, 3, 2, 2].into_iter().collect();
        assert_eq!(pick_below(&queue, 2, |&l| l), Some(4));
        assert_eq!(pick_below(&queue, 3, |&l| l), Some(2));
        assert_eq!(pick_below(&queue, 4, |&l| l), None);
        assert_eq!(pick_below(&VecDeque::<u32>::new(), 0, |&l| l), None);
    }
}
