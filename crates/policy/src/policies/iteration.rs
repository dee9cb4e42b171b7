//! Iteration affinity for the bi-tier policies, and the placement stability statistic
//! (docs/design.md, "Locality across iterations").
//!
//! CATS and CAB decide which tasks form one squad's subtree, but not which squad runs
//! it: the leaf inter-squad tasks wait in inter-squad pools and the first idle head
//! takes them, so an iterative program's data moves between squads from one iteration
//! to the next and the squad's shared cache starts cold every time. Here each leaf
//! inter-squad task (by id) has a *home* squad:
//!
//! - its first home is given by the policy (subtree `i` of `k` to squad `⌊i·m/k⌋`, see
//!   [`contiguous_squad`]), later the squad that last ran it;
//! - when it is spawned it goes to its home's inter-squad pool;
//! - a head steals from other squads' pools only once its own squad has started every
//!   leaf homed there in this iteration ("load balance first" stays the rule, but a
//!   squad takes foreign work only when it has run out of its own). A stolen leaf moves
//!   home to the thief's squad, so an unbalanced program settles where it balances.
//!
//! Iterations are epochs: the spawn of a leaf already spawned in the current epoch
//! starts the next one. At that point homes not spawned in the epoch that ended are
//! forgotten (a program that changed shape does not keep a squad waiting for work that
//! no longer comes), and each squad's count of leaves still to start is reset to the
//! number homed there.
//!
//! **Placement stability** is counted for every bi-tier policy, paper-faithful ones too:
//! each start of a leaf inter-squad task that ran before is compared with the squad it
//! ran on last time.
//!
//! All bookkeeping is under one lock, taken twice per leaf inter-squad task and loop
//! chunk (spawn and start); its maps hash task ids by one multiply (`crate::id_map::IdMap`):
//! SipHash's rounds were an eighth of what a placed loop chunk cost over `ws`
//! (callgrind, `heat-loop` fine under `cats` on `2x1`). The count
//! of leaves a squad still expects is also kept in an atomic, which the heads' plans read
//! without the lock; a stale read costs one search, never a task.

use crate::id_map::IdMap;
use crate::{SquadId, TaskId};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Subtree `i` of `k` goes to squad `⌊i·m/k⌋`: neighbouring subtrees (neighbouring data)
/// to neighbouring squads, each squad a contiguous run. `i` beyond `k - 1` is taken as
/// `k - 1`; with no subtrees everything is squad 0.
pub fn contiguous_squad(i: usize, k: usize, m: usize) -> SquadId {
    if k == 0 || m == 0 {
        return 0;
    }
    ((i.min(k - 1) as u128 * m as u128) / k as u128) as SquadId
}

/// How many of `k` subtrees [`contiguous_squad`] gives each of `m` squads.
pub fn contiguous_counts(k: usize, m: usize) -> Vec<u32> {
    let mut counts = vec![0u32; m];
    if m > 0 {
        for i in 0..k {
            counts[contiguous_squad(i, k, m)] += 1;
        }
    }
    counts
}

/// "Not in any epoch".
const NEVER: u32 = u32::MAX;

/// What is known of one leaf inter-squad task.
#[derive(Debug, Clone, Copy)]
struct Home {
    /// Where it goes when next spawned: the squad that last ran it, or its first home.
    squad: SquadId,
    /// The epoch of its last spawn, or [`NEVER`].
    spawned: u32,
    /// The epoch of its last start, or [`NEVER`] if it never ran.
    started: u32,
}

#[derive(Debug, Default)]
struct State {
    epoch: u32,
    homes: IdMap<Home>,
    /// The counts still to start were set for this epoch from outside ([`IterationAffinity::expect`]
    /// or [`IterationAffinity::preset`]): a leaf seen for the first time is already counted.
    preset: bool,
    /// Starts of leaves that ran before, and of those the ones on the same squad.
    compared: u64,
    same: u64,
    /// Leaves that started away from their home (with affinity).
    moved_home: u64,
    /// Loop chunks (by id): the squad that last ran each, or its first home.
    chunk_homes: IdMap<SquadId>,
    /// Chunks that started away from their home.
    chunks_moved_home: u64,
}

/// Homes of leaf inter-squad tasks, and placement stability.
#[derive(Debug)]
pub(crate) struct IterationAffinity {
    enabled: bool,
    state: Mutex<State>,
    /// Per squad: leaves homed there not yet started in this epoch.
    remaining: Box<[CachePadded<AtomicU32>]>,
    /// Per squad: leaves homed there. Changed under the state's lock; atomics so that
    /// the plans read them without it ([`IterationAffinity::homeless`]).
    assigned: Box<[AtomicU32]>,
    /// Plans that left remote pools out (read without the lock, so an atomic).
    withheld: AtomicU64,
}

impl IterationAffinity {
    /// Bookkeeping for `squads` squads; `enabled: false` only counts stability (the
    /// paper-faithful policies).
    pub(crate) fn new(squads: usize, enabled: bool) -> IterationAffinity {
        IterationAffinity {
            enabled,
            state: Mutex::new(State::default()),
            remaining: (0..squads)
                .map(|_| CachePadded::new(AtomicU32::new(0)))
                .collect(),
            assigned: (0..squads).map(|_| AtomicU32::new(0)).collect(),
            withheld: AtomicU64::new(0),
        }
    }

    /// Whether leaf inter-squad tasks go to their homes (not paper-faithful).
    #[inline]
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One more leaf homed in `squad` (`by` 1), or one fewer (`by` -1). Under the state's
    /// lock.
    fn home(&self, squad: SquadId, by: i32) {
        let a = &self.assigned[squad];
        a.store(
            a.load(Ordering::Relaxed).saturating_add_signed(by),
            Ordering::Relaxed,
        );
    }

    /// Forgets every squad's homes (then counted again). Under the state's lock.
    fn clear_homes(&self) {
        self.assigned
            .iter()
            .for_each(|a| a.store(0, Ordering::Relaxed));
    }

    /// Every squad's leaves still to start: all those homed there. Under the state's
    /// lock.
    fn expect_all_homed(&self) {
        for (r, a) in self.remaining.iter().zip(self.assigned.iter()) {
            r.store(a.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    /// Whether no leaf inter-squad task is homed in `squad` (always false without
    /// affinity). A hint: read without the lock.
    #[inline]
    pub(crate) fn homeless(&self, squad: SquadId) -> bool {
        self.enabled && self.assigned[squad].load(Ordering::Relaxed) == 0
    }

    /// The current epoch will bring `counts[s]` leaves to squad `s` that are not known
    /// yet (CAB with given inputs: the shape of its first iteration is known in advance).
    pub(crate) fn expect(&self, counts: &[u32]) {
        let mut st = self.state();
        for (r, &c) in self.remaining.iter().zip(counts) {
            r.store(c, Ordering::Relaxed);
        }
        st.preset = true;
    }

    /// Forgets every home and starts from `homes` (the leaves of a partition just made,
    /// with their first homes), expected in the current epoch.
    pub(crate) fn preset(&self, homes: impl IntoIterator<Item = (TaskId, SquadId)>) {
        let mut st = self.state();
        st.homes.clear();
        self.clear_homes();
        for (id, squad) in homes {
            let squad = squad.min(self.remaining.len() - 1);
            if st
                .homes
                .insert(
                    id,
                    Home {
                        squad,
                        spawned: NEVER,
                        started: NEVER,
                    },
                )
                .is_none()
            {
                self.home(squad, 1);
            }
        }
        self.expect_all_homed();
        st.preset = true;
    }

    /// [`IterationAffinity::preset`] with first homes dealt contiguously: `leaves[i]` of `k` to
    /// squad `⌊i·m/k⌋` ([`contiguous_squad`]).
    pub(crate) fn preset_contiguous(&self, leaves: Vec<TaskId>) {
        let (k, m) = (leaves.len(), self.remaining.len());
        self.preset(
            leaves
                .into_iter()
                .enumerate()
                .map(|(i, id)| (id, contiguous_squad(i, k, m))),
        );
    }

    /// [`IterationAffinity::preset`] with first homes dealt level by level (N-tier): each
    /// of `leaves` (in depth-first order) first to a group of squads (a package), where
    /// `bytes[i][g]` says how much of leaf `i`'s data the profiled iteration touched in
    /// group `g`, then inside its group contiguously. Every squad gets as many leaves as
    /// [`IterationAffinity::preset_contiguous`] gives it, and every group as many as its
    /// squads: the leaves whose data is most clearly in one group go there first, the
    /// others fill what room is left, preferring the group that holds more of their
    /// data. A leaf with no data in any group, and a tie, prefers the group that the
    /// contiguous deal would give it, so where the profile says nothing the homes are
    /// the contiguous deal's.
    pub(crate) fn preset_by_group(
        &self,
        leaves: Vec<TaskId>,
        bytes: &[Vec<u64>],
        groups: &[Vec<SquadId>],
    ) {
        let (k, m) = (leaves.len(), self.remaining.len());
        let counts = contiguous_counts(k, m);
        let mut group_of = vec![0usize; m];
        for (g, squads) in groups.iter().enumerate() {
            for &s in squads {
                group_of[s.min(m - 1)] = g;
            }
        }
        let mut room: Vec<u32> = groups
            .iter()
            .map(|squads| squads.iter().map(|&s| counts[s.min(m - 1)]).sum())
            .collect();
        // Per leaf, the groups in order of preference, and how strongly it prefers the
        // first (its lead over the second, as a share of its data).
        let prefs: Vec<(Vec<usize>, f64)> = (0..k)
            .map(|i| {
                let contiguous = group_of[contiguous_squad(i, k, m)];
                let row = bytes.get(i).map(Vec::as_slice).unwrap_or(&[]);
                let of = |g: usize| row.get(g).copied().unwrap_or(0);
                let mut order: Vec<usize> = (0..groups.len()).collect();
                order.sort_by_key(|&g| (std::cmp::Reverse(of(g)), g != contiguous, g));
                let total: u64 = row.iter().fold(0, |a, b| a.saturating_add(*b));
                let lead = match order.as_slice() {
                    [a, b, ..] if total > 0 => (of(*a) - of(*b)) as f64 / total as f64,
                    _ => 0.0,
                };
                (order, lead)
            })
            .collect();
        let mut by_lead: Vec<usize> = (0..k).collect();
        by_lead.sort_by(|&a, &b| prefs[b].1.total_cmp(&prefs[a].1).then(a.cmp(&b)));
        let mut chosen = vec![0usize; k];
        for i in by_lead {
            let g = prefs[i]
                .0
                .iter()
                .copied()
                .find(|&g| room[g] > 0)
                .unwrap_or(prefs[i].0[0]);
            room[g] = room[g].saturating_sub(1);
            chosen[i] = g;
        }
        // Inside each group, its leaves in depth-first order, dealt to its squads in
        // index order, each squad its count.
        let mut homes = Vec::with_capacity(k);
        for (g, squads) in groups.iter().enumerate() {
            let mut squads = squads.iter().map(|&s| s.min(m - 1)).collect::<Vec<_>>();
            squads.sort_unstable();
            let mut slots = squads
                .iter()
                .flat_map(|&s| std::iter::repeat_n(s, counts[s] as usize));
            let last = squads.last().copied().unwrap_or(0);
            for (_, id) in leaves.iter().enumerate().filter(|(i, _)| chosen[*i] == g) {
                homes.push((*id, slots.next().unwrap_or(last)));
            }
        }
        self.preset(homes);
    }

    /// A leaf inter-squad task is spawned: its home, `first()` if it has none yet.
    pub(crate) fn spawn(&self, id: TaskId, first: impl FnOnce() -> SquadId) -> SquadId {
        let mut st = self.state();
        if st.homes.get(&id).is_some_and(|h| h.spawned == st.epoch) {
            self.next_epoch(&mut st);
        }
        let epoch = st.epoch;
        if let Some(home) = st.homes.get_mut(&id) {
            home.spawned = epoch;
            return home.squad;
        }
        let squad = first().min(self.remaining.len() - 1);
        st.homes.insert(
            id,
            Home {
                squad,
                spawned: epoch,
                started: NEVER,
            },
        );
        self.home(squad, 1);
        if !st.preset {
            self.remaining[squad].fetch_add(1, Ordering::Relaxed);
        }
        squad
    }

    /// A new iteration: forget homes the last one did not spawn, expect all the others.
    fn next_epoch(&self, st: &mut State) {
        let ended = st.epoch;
        st.homes.retain(|_, h| h.spawned == ended);
        self.clear_homes();
        for h in st.homes.values() {
            self.home(h.squad, 1);
        }
        self.expect_all_homed();
        st.epoch = ended.wrapping_add(1) % NEVER;
        st.preset = false;
    }

    /// A leaf inter-squad task starts in `squad`.
    pub(crate) fn started(&self, id: TaskId, squad: SquadId) {
        let mut st = self.state();
        let epoch = st.epoch;
        let (home, new) = match st.homes.get(&id) {
            Some(h) => (*h, false),
            None => (
                Home {
                    squad,
                    spawned: NEVER,
                    started: NEVER,
                },
                true,
            ),
        };
        if home.started != NEVER {
            st.compared += 1;
            st.same += u64::from(home.squad == squad);
        }
        if self.enabled && home.spawned == epoch && home.started != epoch {
            let _ = self.remaining[home.squad].fetch_update(
                Ordering::Relaxed,
                Ordering::Relaxed,
                |r| r.checked_sub(1),
            );
        }
        if new {
            self.home(squad, 1);
        } else if home.squad != squad {
            self.home(home.squad, -1);
            self.home(squad, 1);
            if self.enabled {
                st.moved_home += 1;
            }
        }
        st.homes.insert(
            id,
            Home {
                squad,
                started: epoch,
                ..home
            },
        );
    }

    /// A loop chunk is spawned: its home, `first()` if it has none yet. A chunk is not
    /// a leaf: if a partition made it one (a flat loop's chunks are the leaves of its
    /// tree), it is taken out of the leaves, so no squad waits for it as a leaf.
    pub(crate) fn chunk_home(&self, id: TaskId, first: impl FnOnce() -> SquadId) -> SquadId {
        let mut st = self.state();
        if let Some(&squad) = st.chunk_homes.get(&id) {
            return squad;
        }
        if let Some(leaf) = st.homes.remove(&id) {
            self.home(leaf.squad, -1);
            if leaf.started != st.epoch {
                let _ = self.remaining[leaf.squad].fetch_update(
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                    |r| r.checked_sub(1),
                );
            }
        }
        let squad = first().min(self.remaining.len() - 1);
        st.chunk_homes.insert(id, squad);
        squad
    }

    /// A loop chunk starts in `squad`, which becomes its home.
    pub(crate) fn chunk_started(&self, id: TaskId, squad: SquadId) {
        let mut st = self.state();
        if let Some(home) = st.chunk_homes.insert(id, squad) {
            st.chunks_moved_home += u64::from(home != squad);
        }
    }

    /// Whether every leaf placed in `squad` this iteration has started (always, without
    /// affinity): nothing of the squad's own is still to come.
    #[inline]
    pub(crate) fn own_leaves_started(&self, squad: SquadId) -> bool {
        !self.enabled || self.remaining[squad].load(Ordering::Relaxed) == 0
    }

    /// Whether a worker of `squad` may take leaf inter-squad tasks from other squads'
    /// pools: once its own squad has started every leaf homed there in this iteration
    /// (always when paper-faithful). A refusal is counted.
    #[inline]
    pub(crate) fn may_steal_remote(&self, squad: SquadId) -> bool {
        if self.own_leaves_started(squad) {
            return true;
        }
        self.withheld.fetch_add(1, Ordering::Relaxed);
        false
    }

    /// `placement_same_squad` of `placement_compared` starts (the stability is their
    /// ratio); with affinity also the searches that did not steal remotely because the
    /// squad's own leaves were still to come, and the leaves and loop chunks that moved
    /// home.
    pub(crate) fn stats(&self, out: &mut Vec<(String, u64)>) {
        let st = self.state();
        out.push(("placement_same_squad".to_string(), st.same));
        out.push(("placement_compared".to_string(), st.compared));
        if self.enabled {
            out.push((
                "remote_steals_withheld".to_string(),
                self.withheld.load(Ordering::Relaxed),
            ));
            out.push(("leaves_moved_home".to_string(), st.moved_home));
            out.push(("chunks_moved_home".to_string(), st.chunks_moved_home));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(a: &IterationAffinity, name: &str) -> u64 {
        let mut v = Vec::new();
        a.stats(&mut v);
        v.into_iter().find(|(n, _)| n == name).map_or(0, |(_, x)| x)
    }

    #[test]
    fn contiguous_dealing_follows_the_formula() {
        let squads: Vec<usize> = (0..8).map(|i| contiguous_squad(i, 8, 4)).collect();
        assert_eq!(squads, [0, 0, 1, 1, 2, 2, 3, 3]);
        let squads: Vec<usize> = (0..3).map(|i| contiguous_squad(i, 3, 4)).collect();
        assert_eq!(squads, [0, 1, 2], "fewer subtrees than squads");
        let squads: Vec<usize> = (0..5).map(|i| contiguous_squad(i, 5, 2)).collect();
        assert_eq!(squads, [0, 0, 0, 1, 1]);
        assert_eq!(contiguous_squad(9, 4, 4), 3, "past the end: the last squad");
        assert_eq!(contiguous_squad(0, 0, 4), 0);
        assert_eq!(contiguous_counts(8, 3), [3, 3, 2]);
        assert_eq!(
            contiguous_counts(2, 4),
            [1, 0, 1, 0],
            "spread over the machine"
        );
    }

    #[test]
    fn leaves_go_home_and_stability_counts_returns() {
        let a = IterationAffinity::new(2, true);
        let (x, y) = (TaskId(10), TaskId(11));
        // Iteration 1: first homes 0 and 1; y is stolen by squad 0.
        assert_eq!(a.spawn(x, || 0), 0);
        assert_eq!(a.spawn(y, || 1), 1);
        assert!(!a.may_steal_remote(0) && !a.may_steal_remote(1));
        a.started(x, 0);
        assert!(a.may_steal_remote(0), "squad 0 started all its own");
        a.started(y, 0);
        assert!(
            a.may_steal_remote(1),
            "y was taken: nothing left for squad 1"
        );
        assert_eq!(stat(&a, "placement_compared"), 0, "nothing ran before");
        // Iteration 2: y now lives in squad 0; the first() of a known leaf is not asked.
        assert_eq!(a.spawn(x, || unreachable!()), 0);
        assert_eq!(a.spawn(y, || unreachable!()), 0);
        assert!(!a.may_steal_remote(0));
        assert!(a.may_steal_remote(1), "squad 1 has no home now");
        a.started(x, 0);
        a.started(y, 0);
        assert_eq!(stat(&a, "placement_compared"), 2);
        assert_eq!(stat(&a, "placement_same_squad"), 2);
        assert_eq!(stat(&a, "leaves_moved_home"), 1);
        assert!(stat(&a, "remote_steals_withheld") >= 3);
    }

    #[test]
    fn leaves_that_stop_coming_are_forgotten() {
        let a = IterationAffinity::new(2, true);
        let (x, gone) = (TaskId(1), TaskId(2));
        a.spawn(x, || 0);
        a.spawn(gone, || 1);
        a.started(x, 0);
        a.started(gone, 1);
        // Iteration 2 spawns only x.
        a.spawn(x, || 0);
        assert!(!a.may_steal_remote(1), "squad 1 still expects `gone`");
        a.started(x, 0);
        // Iteration 3: `gone` was not spawned in iteration 2, so squad 1 expects nothing.
        a.spawn(x, || 0);
        assert!(a.may_steal_remote(1));
        assert!(!a.may_steal_remote(0));
    }

    #[test]
    fn presets_count_leaves_before_they_are_spawned() {
        let a = IterationAffinity::new(2, true);
        a.preset([(TaskId(1), 0), (TaskId(2), 1), (TaskId(3), 1)]);
        assert!(!a.may_steal_remote(0) && !a.may_steal_remote(1));
        assert_eq!(a.spawn(TaskId(3), || unreachable!()), 1);
        a.started(TaskId(3), 1);
        a.spawn(TaskId(2), || unreachable!());
        a.started(TaskId(2), 1);
        assert!(a.may_steal_remote(1));
        assert!(!a.may_steal_remote(0), "TaskId(1) is not spawned yet");

        let b = IterationAffinity::new(3, true);
        b.expect(&[1, 1, 0]);
        assert!(!b.may_steal_remote(0) && b.may_steal_remote(2));
        b.spawn(TaskId(7), || 0);
        b.started(TaskId(7), 0);
        assert!(b.may_steal_remote(0), "the expected leaf came and started");
    }

    /// The homes `a` gives `leaves` (each spawned once, in the current epoch).
    fn homes(a: &IterationAffinity, leaves: &[TaskId]) -> Vec<SquadId> {
        leaves
            .iter()
            .map(|id| a.spawn(*id, || unreachable!("preset")))
            .collect()
    }

    #[test]
    fn grouped_homes_without_data_are_the_contiguous_deal() {
        let leaves: Vec<TaskId> = (1..=10).map(TaskId).collect();
        let groups = [vec![0, 1], vec![2, 3]];
        for bytes in [vec![], vec![vec![0, 0]; 10]] {
            let a = IterationAffinity::new(4, true);
            a.preset_by_group(leaves.clone(), &bytes, &groups);
            let b = IterationAffinity::new(4, true);
            b.preset_contiguous(leaves.clone());
            assert_eq!(homes(&a, &leaves), homes(&b, &leaves), "{bytes:?}");
        }
    }

    #[test]
    fn grouped_homes_follow_the_data_and_keep_every_squads_share() {
        // Eight leaves over two packages of two squads: the data of leaves 0-3 is
        // mostly in package 1, of leaves 4-7 in package 0 (the contiguous deal would
        // move all of it).
        let leaves: Vec<TaskId> = (1..=8).map(TaskId).collect();
        let bytes: Vec<Vec<u64>> = (0..8)
            .map(|i| if i < 4 { vec![1, 9] } else { vec![8, 2] })
            .collect();
        let a = IterationAffinity::new(4, true);
        a.preset_by_group(leaves.clone(), &bytes, &[vec![0, 1], vec![2, 3]]);
        assert_eq!(
            homes(&a, &leaves),
            [2, 2, 3, 3, 0, 0, 1, 1],
            "each package's leaves dealt over its squads in depth-first order"
        );
        // Six leaves want package 0, which has room for four: the two that want it
        // least go to package 1, however they are ordered.
        let bytes: Vec<Vec<u64>> = [
            [9, 1],
            [6, 4],
            [10, 0],
            [5, 5],
            [7, 3],
            [10, 0],
            [0, 8],
            [1, 9],
        ]
        .iter()
        .map(|r| r.to_vec())
        .collect();
        let a = IterationAffinity::new(4, true);
        a.preset_by_group(leaves.clone(), &bytes, &[vec![0, 1], vec![2, 3]]);
        let got = homes(&a, &leaves);
        assert_eq!(got, [0, 2, 0, 2, 1, 1, 3, 3]);
        for squad in 0..4 {
            assert_eq!(got.iter().filter(|&&s| s == squad).count(), 2, "{got:?}");
        }
        // Groups need not be numbered in index order of their squads.
        let a = IterationAffinity::new(4, true);
        a.preset_by_group(leaves.clone(), &bytes, &[vec![3, 1], vec![2, 0]]);
        assert_eq!(homes(&a, &leaves), [1, 0, 1, 0, 3, 3, 2, 2]);
    }

    #[test]
    fn paper_faithful_only_counts() {
        let a = IterationAffinity::new(2, false);
        assert!(a.may_steal_remote(0));
        a.started(TaskId(5), 0);
        a.started(TaskId(5), 1);
        a.started(TaskId(5), 1);
        assert_eq!(stat(&a, "placement_compared"), 2);
        assert_eq!(stat(&a, "placement_same_squad"), 1);
        let mut v = Vec::new();
        a.stats(&mut v);
        assert_eq!(v.len(), 2, "no affinity counters: {v:?}");
    }
}
