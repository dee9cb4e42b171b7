//! The top of a tree dealt to squads by position: the profiled iteration's (N-tier
//! `cats` and `cab`, see `bitier.rs`), every tree's each time it runs (`ws:near`,
//! see `ws.rs`), or the first tree's in turn ([`TopDeal::in_turn`], `mts`, see
//! `mts.rs`).
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
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Under [`TopDeal::in_turn`], the dealt depth gives each squad at least this many
/// subtrees where the tree has them. Chosen by measurement (`locus sim mergesort --size
/// 8388608,cutoff=8192 --machine opteron-8380 --policy ws,mts --seed N`, seeds 1-12):
/// 4 left `mts` at 1.045 of ws's time, 8 at 1.00 (and `sort` at that size on
/// xeon-x7550 at 1.02 and 1.01); 2 left the mergesort at 1.04 over seeds 1-2.
pub(crate) const IN_TURN_PER_SQUAD: usize = 8;

/// Which deal a [`TopDeal`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DealKind {
    /// The first task that forks roots the one dealt tree (one profiled iteration),
    /// dealt contiguously; its dealt tasks are counted while they wait.
    Profiled,
    /// Every root, a task at level 0, each time it runs ([`TopDeal::every_root`]),
    /// dealt contiguously; nothing is counted as waiting.
    EveryRoot,
    /// The first task that forks, dealt in turn ([`TopDeal::in_turn`]); nothing is
    /// counted as waiting.
    InTurn,
}

/// The deal of a tree's top.
#[derive(Debug)]
pub(crate) struct TopDeal {
    squads: usize,
    kind: DealKind,
    /// How many levels below the root are dealt: `⌈log2 m⌉`, the first at which every
    /// squad gets a subtree (deeper under [`TopDeal::in_turn`]).
    depth: u32,
    state: Mutex<DealState>,
    /// Dealt tasks not yet started (read without the lock by every search).
    waiting: AtomicUsize,
    /// Tasks dealt, for the statistics.
    dealt: AtomicU64,
    /// Whether a profiled task has completed: the dealt top has unfolded by then.
    settled: AtomicBool,
    /// The level of the dealt tree's root once it is known (`u32::MAX` before): a
    /// task more than `depth` levels below it is not dealt, known without the lock.
    root_level: AtomicU32,
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
            kind: DealKind::Profiled,
            depth: squads.max(1).next_power_of_two().trailing_zeros(),
            state: Mutex::new(DealState::default()),
            waiting: AtomicUsize::new(0),
            dealt: AtomicU64::new(0),
            settled: AtomicBool::new(false),
            root_level: AtomicU32::new(u32::MAX),
        }
    }

    /// A deal over `squads` squads of the top of the first tree that forks, in turn
    /// (`mts`): down to the depth where the squads get at least [`IN_TURN_PER_SQUAD`]
    /// subtrees each, and at every depth from `k = ⌈log2 m⌉` on, each aligned run of
    /// `2^k` subtrees covers every squad ([`in_turn_squad`]). Each squad's share of the
    /// tree, and so of the pages its tasks first touch, is then many pieces spread over
    /// the whole, as work stealing's thieves spread them, rather than one block,
    /// whatever depth the tree ends at. Dealt tasks are not counted as waiting: the
    /// policy's workers look at their squad's queue in every search, and other squads
    /// may steal them.
    pub(crate) fn in_turn(squads: usize) -> TopDeal {
        let pieces = squads.max(1).saturating_mul(IN_TURN_PER_SQUAD);
        TopDeal {
            kind: DealKind::InTurn,
            depth: if squads > 1 {
                pieces.next_power_of_two().trailing_zeros()
            } else {
                0
            },
            ..TopDeal::new(squads)
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
            kind: DealKind::EveryRoot,
            ..TopDeal::new(squads)
        }
    }

    /// The first level whose tasks [`TopDeal::every_root`] never deals: a root's tree is
    /// dealt down to `depth`, so every task below it is placed where it is spawned.
    pub(crate) fn first_local_level(&self) -> u32 {
        debug_assert_eq!(self.kind, DealKind::EveryRoot);
        self.depth + 1
    }

    /// Whether `task` is surely not dealt: below the dealt depth of a tree whose root is
    /// at level 0, or, for the first tree's deal, below the dealt depth of that root
    /// once it is known (asked before taking the lock; each half of a join is a level
    /// below its parent).
    #[inline]
    fn too_deep(&self, task: &TaskInfo) -> bool {
        if self.kind == DealKind::EveryRoot {
            return task.level > self.depth;
        }
        let root = self.root_level.load(Ordering::Relaxed);
        root != u32::MAX && task.level > root.saturating_add(self.depth)
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
            None if (self.kind == DealKind::EveryRoot && parent.level == 0)
                || (self.kind != DealKind::EveryRoot && st.positions.is_empty()) =>
            {
                st.positions.insert(parent.id, (0, 0));
                if self.kind != DealKind::EveryRoot {
                    self.root_level.store(parent.level, Ordering::Relaxed);
                }
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
        self.dealt.fetch_add(1, Ordering::Relaxed);
        if self.kind == DealKind::InTurn {
            return Some(in_turn_squad(at, depth, self.squads));
        }
        // Only the profiled iteration's deal counts waiting tasks: its policy reports
        // starts ([`TopDeal::started`]), while the others' workers look at their
        // squad's queue in every search.
        if self.kind == DealKind::Profiled && st.waiting.insert(task.id) {
            self.waiting.fetch_add(1, Ordering::Relaxed);
        }
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

/// The squad of the subtree at position `at` of depth `depth` under
/// [`TopDeal::in_turn`] over `m` squads. A join's first half runs where its spawner
/// runs, so a subtree's slot (of `2^k`, `k = ⌈log2 m⌉`) is its parent's for a first
/// half and its parent's with one bit flipped for a second half, the bit taken in
/// turn from depth to depth, highest first: any `k` consecutive depths flip `k`
/// different bits, so the `2^k` subtrees of an aligned run hold every slot. At depth
/// `k` the slot is the position itself, the contiguous deal; the slots fall on the
/// squads as the contiguous deal of `2^k` over `m` puts them.
fn in_turn_squad(at: u64, depth: u32, m: usize) -> SquadId {
    let k = m.max(1).next_power_of_two().trailing_zeros();
    if k == 0 {
        return 0;
    }
    // Bit `i` of the position is the half taken at depth `depth - i`.
    let mut slot = 0usize;
    for i in 0..depth {
        if at >> i & 1 == 1 {
            let d = depth - i;
            slot ^= 1 << ((k - d % k) % k);
        }
    }
    contiguous_squad(slot, 1 << k, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::join_halves as halves;

    fn info(id: TaskId, level: u32) -> TaskInfo {
        TaskInfo {
            id,
            level,
            loop_chunks: 0,
        }
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
    fn the_first_trees_top_is_dealt_in_turn() {
        for (m, covered) in [(4, vec![0, 1, 2, 3]), (3, vec![0, 1, 2])] {
            // At least 8 subtrees a squad: 32 at depth 5 for three squads or four.
            let deal = TopDeal::in_turn(m);
            let root = info(TaskId(11), 2);
            // Each depth's subtrees in order, with the squad each runs in: a second
            // half where it is dealt, a first half where its parent runs.
            let mut level = vec![(root, 0)];
            for depth in 1..=6u32 {
                let mut next = Vec::new();
                for &(parent, squad) in &level {
                    let (a, b) = halves(&parent);
                    match deal.place(&parent, &b) {
                        Some(dealt) => next.extend([(a, squad), (b, dealt)]),
                        None => {
                            assert_eq!(depth, 6, "dealt down to depth 5");
                            break;
                        }
                    }
                }
                if depth == 6 {
                    break;
                }
                let squads: Vec<SquadId> = next.iter().map(|&(_, s)| s).collect();
                if depth == 2 && m == 4 {
                    assert_eq!(squads, vec![0, 1, 2, 3], "the contiguous deal at depth 2");
                }
                if depth >= 2 {
                    // Every aligned run of four subtrees covers every squad.
                    for run in squads.chunks(4) {
                        let mut run = run.to_vec();
                        run.sort_unstable();
                        run.dedup();
                        assert_eq!(run, covered, "{m} squads, depth {depth}: {squads:?}");
                    }
                }
                level = next;
            }
            assert_eq!(deal.dealt(), 31);
            assert!(
                !deal.waiting(),
                "nothing waits: the squads' workers look anyway"
            );
            // A second tree is not dealt.
            let other = info(TaskId(99), 0);
            let (_, b) = halves(&other);
            assert_eq!(deal.place(&other, &b), None);
            // Nor is a task below the dealt depth, known by its level alone.
            assert!(deal.too_deep(&info(TaskId(7), 8)));
            assert!(!deal.too_deep(&info(TaskId(7), 7)));
        }
    }

    #[test]
    fn one_squad_deals_nothing_below_the_root() {
        let deal = TopDeal::new(1);
        let root = info(TaskId(3), 0);
        let (a, _) = halves(&root);
        assert_eq!(deal.place(&root, &a), None);
    }
}
