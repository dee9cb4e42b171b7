//! The top of a tree dealt to squads by position: the profiled iteration's (N-tier
//! `cats` and `cab`, see `bitier.rs`), or every tree's each time it runs (`ws:near`,
//! see `ws.rs`).
//!
//! Work stealing spreads a tree's top over the machine at random: the profiled
//! iteration then leaves each part of the data in whichever package's caches and memory
//! its thieves happened to be, and the partition's first homes move about half of it
//! between packages in the second iteration. Dealing the top instead puts subtree `i` of
//! the `2^d` at depth `d` in squad `⌊i·m/2^d⌋` (the contiguous deal the partition's first
//! homes use), down to the depth where every squad has one, so each squad starts on the
//! part of the tree, and of the data, that it is likely to be given for good.
//!
//! Only the halves of `join`s are dealt (a task's position is its parent's times two,
//! plus its half), from the first task that forks (the iteration's root, for the
//! programs this is for) or from every root ([`TopDeal::every_root`]); a scope's spawns
//! and everything below the dealt depth are left where the spawner puts them. A dealt
//! task waits in its squad's shared queue, which that squad's workers look at (while
//! any dealt task waits, [`TopDeal::waiting`], for the profiled iteration; always under
//! `ws:near`), and which the joiner takes it back from, as from its deque.

use crate::policies::iteration::contiguous_squad;
use crate::{SquadId, TaskId, TaskInfo};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The deal of a tree's top.
#[derive(Debug)]
pub(crate) struct TopDeal {
    squads: usize,
    /// Which tasks root a dealt tree: the first task that forks (`false`: one profiled
    /// iteration), or every root, a task at level 0, each time it runs (`true`: the
    /// deal of [`TopDeal::every_root`], which also counts no waiting tasks).
    every_root: bool,
    /// How many levels below the root are dealt: `⌈log2 m⌉`, the first at which every
    /// squad gets a subtree.
    depth: u32,
    state: Mutex<DealState>,
    /// Dealt tasks not yet started (read without the lock by every search).
    waiting: AtomicUsize,
    /// Tasks dealt, for the statistics.
    dealt: AtomicU64,
    /// Whether a profiled task has completed: the dealt top has unfolded by then.
    settled: AtomicBool,
}

#[derive(Debug, Default)]
struct DealState {
    /// The position and depth of the root and of every dealt task above the last dealt
    /// level (whose children ask for it).
    positions: HashMap<TaskId, (u64, u32)>,
    /// Dealt tasks not yet started.
    waiting: HashSet<TaskId>,
}

impl TopDeal {
    /// A deal over `squads` squads.
    pub(crate) fn new(squads: usize) -> TopDeal {
        TopDeal {
            squads,
            every_root: false,
            depth: squads.max(1).next_power_of_two().trailing_zeros(),
            state: Mutex::new(DealState::default()),
            waiting: AtomicUsize::new(0),
            dealt: AtomicU64::new(0),
            settled: AtomicBool::new(false),
        }
    }

    /// A deal over `squads` squads of the top of every tree a root (a task at level 0)
    /// forks, each time it runs. Task ids repeat from one iteration to the next, so the
    /// positions found once hold for every later iteration, and a task too deep to be
    /// dealt is known by its level without the lock. Dealt tasks are not counted until
    /// they start: the policy's workers look at their squad's queue in every search,
    /// and need no task events.
    pub(crate) fn every_root(squads: usize) -> TopDeal {
        TopDeal {
            every_root: true,
            ..TopDeal::new(squads)
        }
    }

    /// The first level whose tasks [`TopDeal::every_root`] never deals: a root's tree is
    /// dealt down to `depth`, so every task below it is placed where it is spawned.
    pub(crate) fn first_local_level(&self) -> u32 {
        debug_assert!(self.every_root);
        self.depth + 1
    }

    /// Whether `task` is surely not dealt: below the dealt depth of a tree whose root is
    /// at level 0 (asked before taking the lock).
    #[inline]
    fn too_deep(&self, task: &TaskInfo) -> bool {
        self.every_root && task.level > self.depth
    }

    fn state(&self) -> std::sync::MutexGuard<'_, DealState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The position and depth of `task`, a half of a join of `parent` in the dealt top of
    /// the tree, kept for its own children's if it has them there.
    fn position(
        &self,
        st: &mut DealState,
        parent: &TaskInfo,
        task: &TaskInfo,
    ) -> Option<(u64, u32)> {
        let half = task.id.index_in(parent.id).filter(|&i| i < 2)?;
        let (at, depth) = match st.positions.get(&parent.id) {
            Some(&known) => known,
            None if (self.every_root && parent.level == 0)
                || (!self.every_root && st.positions.is_empty()) =>
            {
                st.positions.insert(parent.id, (0, 0));
                (0, 0)
            }
            None => return None,
        };
        let depth = depth + 1;
        if depth > self.depth {
            return None;
        }
        let at = at * 2 + u64::from(half);
        if depth < self.depth {
            st.positions.insert(task.id, (at, depth));
            if half == 1 {
                // The first half's id is the second's less one (`Spawner::join_children`),
                // and the engines place the second before the first runs: its position is
                // known here, whether or not the engine asks about it.
                st.positions
                    .insert(TaskId(task.id.0.wrapping_sub(1)), (at - 1, depth));
            }
        }
        Some((at, depth))
    }

    /// The squad `task`, spawned by `parent`, is dealt to, if it is a half of a join in
    /// the dealt top of the tree. Inline for the test of a task too deep to be dealt,
    /// which is what almost every spawn under [`TopDeal::every_root`] gets.
    #[inline]
    pub(crate) fn place(&self, parent: &TaskInfo, task: &TaskInfo) -> Option<SquadId> {
        if self.too_deep(task) {
            return None;
        }
        self.place_locked(parent, task)
    }

    #[inline(never)]
    fn place_locked(&self, parent: &TaskInfo, task: &TaskInfo) -> Option<SquadId> {
        let mut st = self.state();
        let (at, depth) = self.position(&mut st, parent, task)?;
        // Only the profiled iteration's deal counts waiting tasks: its policy reports
        // starts ([`TopDeal::started`]), while `every_root`'s workers look at their
        // squad's queue in every search.
        if !self.every_root && st.waiting.insert(task.id) {
            self.waiting.fetch_add(1, Ordering::Relaxed);
        }
        self.dealt.fetch_add(1, Ordering::Relaxed);
        Some(contiguous_squad(at as usize, 1 << depth, self.squads))
    }

    /// `task` starts (from its squad's queue, or taken back by its joiner): it no longer
    /// waits.
    #[inline]
    pub(crate) fn started(&self, task: &TaskInfo) {
        if self.waiting.load(Ordering::Relaxed) == 0 {
            return;
        }
        if self.state().waiting.remove(&task.id) {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// A task completes, measured or not: the dealt top has unfolded by then (its tasks
    /// only fork), and [`TopDeal::unfolding`] ends for good.
    #[inline]
    pub(crate) fn settle(&self) {
        if !self.settled.load(Ordering::Relaxed) {
            self.settled.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the profiled iteration's top is being dealt: a task has been dealt and no
    /// task has completed yet. Until then the policy's workers steal inside
    /// their own squad only: every squad's part of the top reaches it within a few
    /// forks, and a thief from another package that took a piece of the first squads'
    /// part in the meantime would first-touch that piece's data in its own package,
    /// away from where the partition will put it. A program whose first fork is not a
    /// join is dealt nothing and never waits; one whose top is a join of a leaf and a
    /// subtree leaves the squads under the leaf's positions waiting for one leaf's time.
    #[inline]
    pub(crate) fn unfolding(&self) -> bool {
        self.dealt() > 0 && !self.settled.load(Ordering::Relaxed)
    }

    /// How many tasks were dealt.
    pub(crate) fn dealt(&self) -> u64 {
        self.dealt.load(Ordering::Relaxed)
    }

    /// Whether a dealt task may still wait in a squad's queue.
    #[inline]
    pub(crate) fn waiting(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: TaskId, level: u32) -> TaskInfo {
        TaskInfo {
            id,
            level,
            loop_chunks: 0,
        }
    }

    /// The halves of a join of `parent` (at a call site, as `locus::join` makes them).
    fn halves(parent: &TaskInfo) -> (TaskInfo, TaskInfo) {
        let site = locus_task::JoinSite::of(std::panic::Location::caller());
        locus_task::Spawner::of(*parent).join_children(site)
    }

    #[test]
    fn the_top_is_dealt_contiguously_until_every_squad_has_a_subtree() {
        let deal = TopDeal::new(4);
        let root = info(TaskId(7), 0);
        // The engines place second halves; a first half runs where its spawner runs,
        // its position known from its sibling's id.
        let (a, b) = halves(&root);
        assert_eq!(deal.place(&root, &b), Some(2));
        let (aa, ab) = halves(&a);
        let (ba, bb) = halves(&b);
        assert_eq!(
            (deal.place(&a, &ab), deal.place(&b, &bb)),
            (Some(1), Some(3))
        );
        // Placed, a first half goes where its position says.
        assert_eq!(deal.place(&b, &ba), Some(2));
        // Below the dealt depth, and under a task that was not dealt, nothing.
        let (aaa, _) = halves(&aa);
        assert_eq!(deal.place(&aa, &aaa), None);
        let stranger = info(TaskId(99), 3);
        let (s, _) = halves(&stranger);
        assert_eq!(deal.place(&stranger, &s), None);
        // Four dealt tasks wait until they start.
        assert!(deal.waiting());
        for t in [a, b, aa, ab, ba] {
            deal.started(&t);
        }
        assert!(deal.waiting());
        deal.started(&bb);
        deal.started(&bb);
        assert!(!deal.waiting(), "each dealt task counted once");
        assert_eq!(deal.dealt(), 4);
    }

    #[test]
    fn the_top_unfolds_from_the_first_deal_to_the_first_completion() {
        let deal = TopDeal::new(4);
        let root = info(TaskId(7), 0);
        assert!(!deal.unfolding(), "nothing dealt yet");
        let spawn = info(root.id.child(crate::FIRST_SCOPE_SPAWN), 1);
        assert_eq!(deal.place(&root, &spawn), None);
        assert!(!deal.unfolding(), "a scope's spawn deals nothing");
        let (_, b) = halves(&root);
        assert_eq!(deal.place(&root, &b), Some(2));
        assert!(deal.unfolding());
        deal.settle();
        assert!(!deal.unfolding());
        let (_, bb) = halves(&b);
        assert_eq!(deal.place(&b, &bb), Some(3), "the deal itself goes on");
        assert!(!deal.unfolding(), "settled for good");
    }

    #[test]
    fn a_scopes_spawns_are_not_dealt() {
        let deal = TopDeal::new(8);
        let root = info(TaskId(3), 0);
        let spawn = info(root.id.child(crate::FIRST_SCOPE_SPAWN), 1);
        assert_eq!(deal.place(&root, &spawn), None);
        assert!(!deal.waiting());
    }

    #[test]
    fn one_squad_deals_nothing_below_the_root() {
        let deal = TopDeal::new(1);
        let root = info(TaskId(3), 0);
        let (a, _) = halves(&root);
        assert_eq!(deal.place(&root, &a), None);
    }
}
