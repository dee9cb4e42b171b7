//! `mts` (Qthreads multi-threaded shepherds): the workers of a squad share one queue,
//! which keeps them near serial order on their shared cache. When the squad queue runs
//! dry, the first worker to notice steals a batch of the oldest tasks of a remote
//! squad's queue on behalf of the whole squad (batch = squad size by default, the
//! paper's best setting in its Figure 10); the others wait for the stolen work to appear
//! in their queue instead of stealing too.
//!
//! `mts-paper` is the published algorithm: the squad queue popped newest first, bulk
//! steals from the nearest squads first. `mts` differs in four ways, each measured in
//! `docs/results.md` ("Why mts is what it is"):
//! - an idle worker takes the queue's shallow end ([`Probe::SquadQueueShallow`]): the
//!   oldest task when it roots a larger subtree than the newest, as a work-stealing
//!   thief does, so a fine-grained tree is not shared piece by piece;
//! - bulk steals try the squads from one random start, near and far alike, until the
//!   program's tree repeats, and nearest squads first once its tasks go home, so that
//!   the top of a one-shot tree does not stay in the root's package;
//! - iteration affinity (below);
//! - the first tree's top dealt in turn (below).
//!
//! # Iteration affinity
//!
//! A program that repeats its task tree spawns the same task ids each time round. `mts`
//! notes the squad each task is first placed in (its spawner's), corrected to the squad
//! that starts it where a bulk steal took it elsewhere ([`Layout::queued_starts`]: the
//! engines report the starts of queued tasks only, so the runtime's joins keep their
//! fast path). From the first placement of an id it has noted on, it places every
//! noted task in that squad's queue, wherever it was spawned; tasks it has not noted go
//! to their spawner's squad. The first time round, a squad's tasks first-touched their
//! pages on its NUMA node, so running the same tasks there keeps a squad's rows in its
//! L3 where they fit and its misses on its own node where they do not. Bulk steals
//! still balance the squads; a stolen task runs in the thief's squad that time and goes
//! home the next. A program that never repeats an id is unaffected, and notes stop at
//! [`AFFINITY_BUDGET`] tasks without a repeat, after which nothing more is asked.
//!
//! # The first tree's top dealt in turn
//!
//! A bulk steal takes the oldest tasks of one squad, neighbours in the tree, so each
//! squad would first-touch its pages in long runs on its node, and later passes over
//! data that outgrows the caches would queue at a few memory nodes. So while `mts` notes
//! (before any id repeats), the top of the first tree that forks is dealt to the squads
//! in turn, down to [`IN_TURN_PER_SQUAD`](crate::policies::deal::IN_TURN_PER_SQUAD)
//! subtrees a squad: every aligned run of as many subtrees as there are squads (rounded
//! up to a power of two) lies in every squad, at every depth, so each squad's share is
//! many pieces spread over the whole (`deal.rs`, [`TopDeal::in_turn`]). The pieces still
//! move by bulk steals where squads run dry, and a repeating tree's tasks then go home
//! where they first ran, as above.

use crate::policies::deal::TopDeal;
use crate::policies::online::PROFILE_BUDGET;
use crate::{Layout, Place, Policy, Probe, Source, SquadId, TaskId, TaskInfo, WorkerId, WorkerMap};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// Tasks `mts` notes at most before an id repeats; past it, it stops noting and places
/// every task in its spawner's squad, as `mts-paper` does. CATS's profile budget: a
/// tree this large per iteration is fine-grained enough that where its tasks run
/// matters little, and the notes cost a lock per spawn and per start from a queue.
pub(crate) const AFFINITY_BUDGET: usize = PROFILE_BUDGET;

/// States of iteration affinity.
const NOTING: u8 = 0;
/// An id repeated: noted tasks go to the squad noted for them.
const AFFINE: u8 = 1;
/// No affinity: `mts-paper`, one squad, or no repeat within the budget.
const OFF: u8 = 2;

/// Shared queue per squad with bulk stealing between squads.
#[derive(Debug)]
pub struct Mts {
    squad_of: Vec<SquadId>,
    batch_of: Vec<usize>,
    single_squad: bool,
    paper: bool,
    state: AtomicU8,
    /// The squad each task was first placed in, or started in if elsewhere, while
    /// noting.
    noted: Mutex<HashMap<TaskId, SquadId>>,
    /// The notes, once an id has repeated.
    homes: OnceLock<HashMap<TaskId, SquadId>>,
    /// The first tree's top, dealt to the squads in turn while noting.
    deal: TopDeal,
}

impl Mts {
    /// MTS over the squads of `map`; `batch` overrides the squad-size batch; `paper`:
    /// the squad queue popped newest first and no iteration affinity, as published.
    pub fn new(map: &WorkerMap, batch: Option<usize>, paper: bool) -> Mts {
        let squad_of: Vec<SquadId> = (0..map.num_workers()).map(|w| map.squad_of(w)).collect();
        let batch_of = squad_of
            .iter()
            .map(|&s| batch.unwrap_or(map.squad(s).len()).max(1))
            .collect();
        let single_squad = map.num_squads() == 1;
        Mts {
            squad_of,
            batch_of,
            single_squad,
            paper,
            state: AtomicU8::new(if paper || single_squad { OFF } else { NOTING }),
            noted: Mutex::new(HashMap::new()),
            homes: OnceLock::new(),
            deal: TopDeal::in_turn(map.num_squads()),
        }
    }

    /// Where noted task `id` goes, once an id has repeated.
    fn home(&self, id: TaskId) -> Option<SquadId> {
        self.homes.get()?.get(&id).copied()
    }

    /// Notes that task `id` is placed in `squad`'s queue, or, if it was placed before,
    /// ends the noting: the tree repeats.
    fn note(&self, id: TaskId, squad: SquadId) {
        let mut noted = self.noted.lock().unwrap_or_else(PoisonError::into_inner);
        // Another worker may have ended the noting while this one waited for the lock.
        if self.state.load(Ordering::Acquire) != NOTING {
            return;
        }
        if noted.contains_key(&id) {
            // The tree repeats: the notes become the homes. (A program that reuses an
            // id within one run, as fft's combine does its split's, ends its noting
            // there; its later tasks go home where noted and to their spawner's squad
            // otherwise.)
            let _ = self.homes.set(std::mem::take(&mut *noted));
            self.state.store(AFFINE, Ordering::Release);
        } else if noted.len() >= AFFINITY_BUDGET {
            *noted = HashMap::new();
            self.state.store(OFF, Ordering::Release);
        } else {
            noted.insert(id, squad);
        }
    }
}

impl Policy for Mts {
    fn name(&self) -> &'static str {
        if self.paper {
            "mts-paper"
        } else {
            "mts"
        }
    }

    fn layout(&self) -> Layout {
        Layout {
            squad_queues: true,
            always_local: false,
            // Where a queued task starts corrects where it was noted.
            queued_starts: !self.paper && !self.single_squad,
            ..Layout::deques()
        }
    }

    fn place(&self, spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        let mut squad = self.squad_of[spawner];
        if self.state.load(Ordering::Acquire) == NOTING {
            if let Some(dealt) = self.deal.place(parent, task) {
                squad = dealt;
            }
            self.note(task.id, squad);
        }
        if self.state.load(Ordering::Acquire) == AFFINE {
            return Place::Squad(self.home(task.id).unwrap_or(squad));
        }
        Place::Squad(squad)
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        let squad = self.squad_of[worker];
        plan.push(if self.paper {
            Probe::SquadQueue(squad)
        } else {
            Probe::SquadQueueShallow(squad)
        });
        if !self.single_squad {
            plan.push(Probe::BulkSteal {
                batch: self.batch_of[worker],
                // Nearest squads first where tasks go home (what a steal moves comes
                // back next time); else from any squad, as likely far as near.
                nearest: self.paper || self.state.load(Ordering::Acquire) == AFFINE,
            });
        }
    }

    fn task_started(&self, worker: WorkerId, task: &TaskInfo, _source: Source) {
        if self.state.load(Ordering::Acquire) != NOTING {
            return;
        }
        let mut noted = self.noted.lock().unwrap_or_else(PoisonError::into_inner);
        // A queued task may start in another squad than the one it was placed in (a bulk
        // steal took it there): it first touches its data there, so that is its home.
        if let Some(home) = noted.get_mut(&task.id) {
            *home = self.squad_of[worker];
        }
    }

    fn explain(&self) -> String {
        match self.state.load(Ordering::Acquire) {
            AFFINE => format!(
                "{}: iteration affinity: the squads {} tasks were first placed in noted; \
                 from the first repeated task id on, those tasks go to their squad\n",
                self.name(),
                self.homes.get().map_or(0, HashMap::len)
            ),
            NOTING => format!(
                "{}: no task id has repeated: the first tree's top dealt to the squads in \
                 turn ({} tasks), every other task to its spawner's squad\n",
                self.name(),
                self.deal.dealt()
            ),
            _ if !self.paper && !self.single_squad => format!(
                "{}: no task id repeated within the first {AFFINITY_BUDGET} tasks: every \
                 task goes to its spawner's squad\n",
                self.name()
            ),
            _ => String::new(),
        }
    }

    fn stats(&self) -> Vec<(String, u64)> {
        let homes = self.homes.get().map_or(0, HashMap::len);
        vec![
            ("mts_homes".to_owned(), homes as u64),
            ("mts_dealt".to_owned(), self.deal.dealt()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::join_halves as halves;
    use crate::policies::task_at as task;

    /// Squads of two: workers 0-1 in squad 0, 2-3 in squad 1, 4-5 in squad 2.
    fn three_squads() -> WorkerMap {
        WorkerMap::from_squad_sizes(&[2, 2, 2])
    }

    #[test]
    fn a_repeated_tree_goes_to_the_squads_that_first_queued_its_tasks() {
        let mts = Mts::new(&three_squads(), None, false);
        let root = task(1, 0);
        let (a, b, c) = (task(2, 1), task(3, 2), task(4, 2));
        // First time round: each task goes to its spawner's squad, which is noted.
        assert_eq!(mts.place(0, &root, &a), Place::Squad(0));
        assert_eq!(mts.place(2, &a, &b), Place::Squad(1));
        assert_eq!(mts.place(5, &a, &c), Place::Squad(2));
        // `a` is placed again: the tree repeats, and from now on each noted task goes
        // to the squad it was first placed in, wherever it is spawned.
        assert_eq!(mts.place(3, &root, &a), Place::Squad(0));
        for spawner in 0..6 {
            assert_eq!(mts.place(spawner, &a, &b), Place::Squad(1));
            assert_eq!(mts.place(spawner, &a, &c), Place::Squad(2));
        }
        // A task never noted goes to its spawner's squad.
        assert_eq!(mts.place(4, &root, &task(99, 1)), Place::Squad(2));
        assert_eq!(
            mts.stats(),
            vec![("mts_homes".to_owned(), 3), ("mts_dealt".to_owned(), 0)]
        );
        assert!(mts.explain().contains("3 tasks"), "{}", mts.explain());
    }

    #[test]
    fn the_first_trees_top_is_dealt_to_the_squads_in_turn() {
        let mts = Mts::new(&three_squads(), None, false);
        // Three squads: dealt down to depth 5 (32 subtrees), and from depth 2 on every
        // aligned run of four subtrees lies in all three squads, whoever spawns them.
        let mut level = vec![(task(1, 0), 0)];
        for depth in 1..=5 {
            let mut next = Vec::new();
            for &(parent, squad) in &level {
                let (a, b) = halves(&parent);
                let Place::Squad(dealt) = mts.place(5, &parent, &b) else {
                    panic!("a squad's queue");
                };
                next.extend([(a, squad), (b, dealt)]);
            }
            if depth >= 2 {
                for run in next.chunks(4) {
                    let mut squads: Vec<SquadId> = run.iter().map(|&(_, s)| s).collect();
                    squads.sort_unstable();
                    squads.dedup();
                    assert_eq!(squads, vec![0, 1, 2], "depth {depth}");
                }
            }
            level = next;
        }
        // Below the dealt depth, the spawner's squad.
        let (_, b) = halves(&level[4].0);
        assert_eq!(mts.place(0, &level[4].0, &b), Place::Squad(0));
        assert!(
            mts.explain().contains("in turn (31 tasks)"),
            "{}",
            mts.explain()
        );
        // The published form deals nothing.
        let paper = Mts::new(&three_squads(), None, true);
        let root = task(1, 0);
        let (_, b) = halves(&root);
        assert_eq!(paper.place(5, &root, &b), Place::Squad(2));
    }

    #[test]
    fn a_tree_that_never_repeats_within_the_budget_is_left_to_its_spawners() {
        let mts = Mts::new(&three_squads(), None, false);
        // (Not task 0, whose join halves are tasks 1 and 2.)
        let root = task(7, 0);
        for id in 1..=AFFINITY_BUDGET as u64 + 1 {
            assert_eq!(mts.place(2, &root, &task(id, 1)), Place::Squad(1));
        }
        assert_eq!(mts.state.load(Ordering::Relaxed), OFF);
        // Repeats after the budget change nothing.
        assert_eq!(mts.place(0, &root, &task(5, 1)), Place::Squad(0));
        assert_eq!(mts.place(0, &root, &task(5, 1)), Place::Squad(0));
        assert_eq!(
            mts.stats(),
            vec![("mts_homes".to_owned(), 0), ("mts_dealt".to_owned(), 0)]
        );
        assert!(
            mts.explain().contains("no task id repeated"),
            "{}",
            mts.explain()
        );
    }

    #[test]
    fn the_published_form_and_one_squad_note_nothing() {
        let paper = Mts::new(&three_squads(), None, true);
        let one = Mts::new(&WorkerMap::from_squad_sizes(&[4]), None, false);
        for (mts, other) in [(&paper, 1), (&one, 0)] {
            let root = task(1, 0);
            assert_eq!(mts.place(0, &root, &task(2, 1)), Place::Squad(0));
            assert_eq!(mts.place(2, &root, &task(2, 1)), Place::Squad(other));
            assert_eq!(mts.place(2, &root, &task(2, 1)), Place::Squad(other));
            assert_eq!(mts.explain(), "");
            assert_eq!(
                mts.stats(),
                vec![("mts_homes".to_owned(), 0), ("mts_dealt".to_owned(), 0)]
            );
        }
    }

    /// Idle workers look in their squad's queue, then steal in bulk: from any squad at
    /// first, from the nearest first once the tree repeats and its tasks go home.
    #[test]
    fn idle_workers_look_in_their_squad_then_bulk_steal() {
        let mts = Mts::new(&three_squads(), Some(3), false);
        let plan = |mts: &Mts| {
            let mut plan = Vec::new();
            mts.search(3, &mut plan);
            plan
        };
        let steal = |nearest| Probe::BulkSteal { batch: 3, nearest };
        assert_eq!(plan(&mts), vec![Probe::SquadQueueShallow(1), steal(false)]);
        let root = task(1, 0);
        mts.place(0, &root, &task(2, 1));
        mts.place(0, &root, &task(2, 1));
        assert_eq!(plan(&mts), vec![Probe::SquadQueueShallow(1), steal(true)]);
        let paper = Mts::new(&three_squads(), Some(3), true);
        assert_eq!(plan(&paper), vec![Probe::SquadQueue(1), steal(true)]);
    }
}
