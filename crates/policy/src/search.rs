//! The search for work as both engines carry it out: the order in which a searching
//! worker tries its victims ([`VictimOrder`]), and what the search counts
//! ([`SearchCounter`]).
//!
//! "One policy, two engines" (docs/design.md): a policy's [`Probe`](crate::Probe)s name the
//! victims ([`Victims`], or other squads' queues); this module turns them into one order,
//! which the runtime walks over concurrent deques and the simulator over simulated
//! queues, so that the same random numbers give the same victims in both. Neither
//! engine spells out an order of its own.
//!
//! # The orders
//! - [`Victims::All`] and [`Victims::Squad`]: the pool's workers from one random start,
//!   the searcher skipped (and, for `Squad`, the workers of other squads).
//! - [`Victims::Remote`]: the other squads' workers nearest first, group by group
//!   ([`WorkerMap::remote_workers`]), from a random start in each group.
//! - [`Victims::Package`]: the own package's workers ([`WorkerMap::package_workers`])
//!   from one random start, unless every other worker of it is idle (the engine's own
//!   count, [`WorkerMap::others_in_package_idle`]); then the other packages' workers as
//!   `Remote` tries them.
//! - [`VictimOrder::squads`]: other squads (for their shared queues or inter-squad pools)
//!   nearest first or all from one random start ([`WorkerMap::squad_search`]).
//!
//! A random number is drawn as each group is entered, and only then: a search that
//! stops in its first group draws one. The order is a cursor that asks for its random
//! numbers ([`VictimOrder::next`]) rather than an iterator holding a generator, so an
//! engine that keeps its generator beside the queues it steals from (the simulator's
//! workers) can lend it step by step. A search allocates nothing.
//!
//! # The counters
//! [`SearchCounter`] names each count a search makes, with one meaning in both engines;
//! the runtime's per-worker atomics (`locus::stats::WorkerStats`) and the simulator's
//! per-worker fields (`locus_sim::engine::WorkerCounts`) have a field of each name, and
//! [`SearchCounter::for_steal`] says which of them a steal from a squad at a given tier
//! bumps.

use crate::decision::{Source, Victims};
use crate::workers::{Groups, SquadId, WorkerId, WorkerMap};
use locus_topo::SquadTier;

/// What a [`VictimOrder`] walks and which of its members it yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Workers, as [`Victims`] says.
    Workers(Victims),
    /// Squads other than the searcher's.
    Squads,
}

/// The victims of one probe, in the order both engines try them (see the module's
/// documentation). Walk it with [`VictimOrder::next`], giving a random number source.
#[derive(Debug, Clone)]
pub struct VictimOrder<'m> {
    map: &'m WorkerMap,
    walk: Walk,
    thief: WorkerId,
    squad: SquadId,
    /// A group tried before `groups` (every worker, or the own package), not yet entered.
    first: Option<&'m [usize]>,
    /// The groups after `first`, nearest first.
    groups: Option<Groups<'m>>,
    /// Where the walk is in its group.
    at: At<'m>,
}

/// The group a [`VictimOrder`] walks, from `start`, of which `pos` members have been
/// passed.
#[derive(Debug, Clone, Copy, Default)]
struct At<'m> {
    group: &'m [usize],
    start: usize,
    pos: usize,
    /// Whether `group` is the own package of a [`Victims::Package`] walk.
    in_own_package: bool,
}

impl<'m> VictimOrder<'m> {
    /// The workers `thief` steals from under a [`crate::Probe::Steal`] of `victims`.
    /// `own_package_idle` is asked only for [`Victims::Package`]: whether every other
    /// worker of the thief's package is idle, by the engine's count
    /// ([`WorkerMap::others_in_package_idle`]), so that the own package is skipped.
    pub fn workers(
        map: &'m WorkerMap,
        thief: WorkerId,
        victims: Victims,
        own_package_idle: impl FnOnce() -> bool,
    ) -> VictimOrder<'m> {
        let squad = map.squad_of(thief);
        let (first, groups) = match victims {
            Victims::All | Victims::Squad => (Some(map.workers()), None),
            Victims::Remote => (None, Some(map.remote_workers(squad))),
            Victims::Package => {
                let own = (!own_package_idle()).then(|| map.package_workers(squad));
                (own, Some(map.remote_workers(squad)))
            }
        };
        VictimOrder::new(map, Walk::Workers(victims), thief, first, groups)
    }

    /// The squads other than `squad` whose queues a bulk steal or a remote inter-squad
    /// pool probe tries: nearest first where `nearest`, else all from one random start
    /// ([`WorkerMap::squad_search`]).
    pub fn squads(map: &'m WorkerMap, squad: SquadId, nearest: bool) -> VictimOrder<'m> {
        let head = map.head(squad);
        let groups = Some(map.squad_search(squad, nearest));
        VictimOrder::new(map, Walk::Squads, head, None, groups)
    }

    /// `thief`'s walk: `first`, then `groups`.
    fn new(
        map: &'m WorkerMap,
        walk: Walk,
        thief: WorkerId,
        first: Option<&'m [usize]>,
        groups: Option<Groups<'m>>,
    ) -> VictimOrder<'m> {
        let squad = map.squad_of(thief);
        let at = At::default();
        VictimOrder {
            map,
            walk,
            thief,
            squad,
            first,
            groups,
            at,
        }
    }

    /// The next victim (a worker, or a squad for [`VictimOrder::squads`]), drawing a
    /// number from `random` as a group is entered; `None` once every victim was given.
    pub fn next(&mut self, mut random: impl FnMut() -> u64) -> Option<usize> {
        loop {
            while self.at.pos < self.at.group.len() {
                let at = &mut self.at;
                // `start + pos` wraps around the group once (no division per victim).
                let mut i = at.start + at.pos;
                if i >= at.group.len() {
                    i -= at.group.len();
                }
                at.pos += 1;
                let member = at.group[i];
                if self.admits(member) {
                    return Some(member);
                }
            }
            let (group, in_own_package) = match self.first.take() {
                Some(first) => (first, self.walk == Walk::Workers(Victims::Package)),
                None => (self.groups.as_mut()?.next()?, false),
            };
            // A number is drawn even for an empty group.
            let r = random();
            let start = if group.is_empty() {
                0
            } else {
                (r % group.len() as u64) as usize
            };
            self.at = At {
                group,
                start,
                pos: 0,
                in_own_package,
            };
        }
    }

    /// Every victim of the order, with `random` giving the starts: what a search would
    /// try, for checks that take nothing (the runtime's look before it sleeps).
    pub fn any(
        mut self,
        mut random: impl FnMut() -> u64,
        mut has: impl FnMut(usize) -> bool,
    ) -> bool {
        while let Some(v) = self.next(&mut random) {
            if has(v) {
                return true;
            }
        }
        false
    }

    /// Whether `member` of the group being walked is a victim.
    fn admits(&self, member: usize) -> bool {
        let map = self.map;
        match self.walk {
            Walk::Squads => member != self.squad,
            Walk::Workers(victims) => {
                member != self.thief
                    && match victims {
                        Victims::All => true,
                        Victims::Squad => map.squad_of(member) == self.squad,
                        Victims::Remote => map.squad_of(member) != self.squad,
                        Victims::Package => {
                            self.at.in_own_package
                                || !map.same_package(map.squad_of(member), self.squad)
                        }
                    }
            }
        }
    }
}

/// What a search counts, per worker, with one meaning in both engines: each engine's
/// per-worker statistics have a field of each [`SearchCounter::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchCounter {
    /// Tasks stolen from the deque of a worker in the thief's own squad.
    StealsSquad,
    /// Steals from another squad: single tasks from a remote worker's deque, bulk steals
    /// from a remote squad's queue (each bulk steal counts once), or inter-squad tasks
    /// from a remote squad's pool. The three counters that follow split them by the
    /// victim squad's tier ([`SquadTier`]).
    StealsRemote,
    /// Of `steals_remote`, those from a squad in the thief's NUMA node.
    StealsSameNode,
    /// Of `steals_remote`, those from a squad in the thief's package, another node.
    StealsSamePackage,
    /// Of `steals_remote`, those from a squad in another package (across the
    /// interconnect).
    StealsOtherPackage,
    /// Steals from a victim whose queue showed work but gave none (another thief or the
    /// owner took it first); the simulator, where nothing happens between the look and
    /// the take, counts none.
    LostSteals,
    /// Stealing probes ([`crate::Probe::Steal`] with at least one victim,
    /// [`crate::Probe::BulkSteal`], [`crate::Probe::RemoteInterPools`]) that came back
    /// with nothing.
    EmptyScans,
    /// Bulk steals (`mts`): one worker taking a batch from a remote squad for its squad.
    BulkSteals,
    /// Tasks moved by bulk steals.
    BulkTasks,
    /// Root tasks taken from the pool's injector (work submitted from outside).
    Injected,
}

impl SearchCounter {
    /// Every counter, in the order the engines' statistics list them.
    pub const ALL: [SearchCounter; 10] = [
        SearchCounter::StealsSquad,
        SearchCounter::StealsRemote,
        SearchCounter::StealsSameNode,
        SearchCounter::StealsSamePackage,
        SearchCounter::StealsOtherPackage,
        SearchCounter::LostSteals,
        SearchCounter::EmptyScans,
        SearchCounter::BulkSteals,
        SearchCounter::BulkTasks,
        SearchCounter::Injected,
    ];

    /// The name of the engines' field for this counter, as reports print it.
    pub const fn name(self) -> &'static str {
        match self {
            SearchCounter::StealsSquad => "steals_squad",
            SearchCounter::StealsRemote => "steals_remote",
            SearchCounter::StealsSameNode => "steals_same_node",
            SearchCounter::StealsSamePackage => "steals_same_package",
            SearchCounter::StealsOtherPackage => "steals_other_package",
            SearchCounter::LostSteals => "lost_steals",
            SearchCounter::EmptyScans => "empty_scans",
            SearchCounter::BulkSteals => "bulk_steals",
            SearchCounter::BulkTasks => "bulk_tasks",
            SearchCounter::Injected => "injected",
        }
    }

    /// The counters a steal (a task, a batch or an inter-squad task) from a squad at
    /// `tier` from the thief's bumps by one, and where the task came from.
    pub fn for_steal(tier: SquadTier) -> (&'static [SearchCounter], Source) {
        use SearchCounter::*;
        match tier {
            SquadTier::SameSquad => (&[StealsSquad], Source::OwnSquad),
            SquadTier::SameNode => (&[StealsSameNode, StealsRemote], Source::OtherSquad),
            SquadTier::SamePackage => (&[StealsSamePackage, StealsRemote], Source::OtherSquad),
            SquadTier::OtherPackage => (&[StealsOtherPackage, StealsRemote], Source::OtherSquad),
        }
    }
}

/// One case of the victim order that both engines' tests run (`VICTIM_CASES`): on two
/// EPYC 7763 packages (`epyc-7763-2s`, 256 workers, 16 squads of 16, 8 per package),
/// worker `thief` steals with `victims` while each of `holders` has one task in its
/// deque, until a steal finds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VictimCase {
    /// What the case shows.
    pub what: &'static str,
    /// The stealing worker.
    pub thief: WorkerId,
    /// Its probe's victims.
    pub victims: Victims,
    /// The workers holding a task, pushed in this order.
    pub holders: &'static [WorkerId],
    /// Whether every other worker of the thief's package is idle (by the engine's own
    /// idle count) before the first steal.
    pub own_package_idle: bool,
    /// The holders the steals reach, in rounds: each round's in any order (the random
    /// start decides), all of one round before any of the next. Holders in no round are
    /// never reached.
    pub rounds: &'static [&'static [WorkerId]],
    /// The thief's counters after the last steal, as `(name, value)` (the others 0).
    pub counts: &'static [(SearchCounter, u64)],
}

/// The cases of the victim order (see [`VictimCase`]): thief 3 is in squad 0 of
/// package 0; 5 shares its squad, 40 (squad 2) its package and NUMA node, 200 is in
/// package 1.
pub const VICTIM_CASES: &[VictimCase] = {
    use SearchCounter::*;
    const STEALS: [(SearchCounter, u64); 4] = [
        (StealsSquad, 1),
        (StealsRemote, 2),
        (StealsSameNode, 1),
        (StealsOtherPackage, 1),
    ];
    &[
        VictimCase {
            what: "the own package first, its squads in one group, then the other package",
            thief: 3,
            victims: Victims::Package,
            holders: &[200, 5, 40],
            own_package_idle: false,
            rounds: &[&[5, 40], &[200]],
            counts: &[STEALS[0], STEALS[1], STEALS[2], STEALS[3], (EmptyScans, 1)],
        },
        VictimCase {
            what: "an idle own package is not looked at",
            thief: 3,
            victims: Victims::Package,
            holders: &[40, 200],
            own_package_idle: true,
            rounds: &[&[200]],
            counts: &[(StealsRemote, 1), (StealsOtherPackage, 1), (EmptyScans, 1)],
        },
        VictimCase {
            what: "other squads nearest first, never the own squad",
            thief: 3,
            victims: Victims::Remote,
            holders: &[200, 5, 40],
            own_package_idle: false,
            rounds: &[&[40], &[200]],
            counts: &[STEALS[1], STEALS[2], STEALS[3], (EmptyScans, 1)],
        },
        VictimCase {
            what: "the own squad only",
            thief: 3,
            victims: Victims::Squad,
            holders: &[200, 5, 40],
            own_package_idle: false,
            rounds: &[&[5]],
            counts: &[STEALS[0], (EmptyScans, 1)],
        },
        VictimCase {
            what: "the whole pool from one random start",
            thief: 3,
            victims: Victims::All,
            holders: &[200, 5, 40, 3],
            own_package_idle: true,
            rounds: &[&[5, 40, 200]],
            counts: &[STEALS[0], STEALS[1], STEALS[2], STEALS[3], (EmptyScans, 1)],
        },
    ]
};

impl VictimCase {
    /// Checks the holders an engine's steals reached, in order (`taken`, the last steal's
    /// `None` left out), and its thief's counter of each [`SearchCounter`] (`count`).
    ///
    /// # Panics
    /// Where the engine disagrees with the case, naming it.
    pub fn check(&self, engine: &str, taken: &[WorkerId], count: impl Fn(SearchCounter) -> u64) {
        let mut at = 0;
        for round in self.rounds {
            let mut got = taken.get(at..at + round.len()).unwrap_or(&[]).to_vec();
            let mut want = round.to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{engine}, {}: steals {taken:?}", self.what);
            at += round.len();
        }
        assert_eq!(taken.len(), at, "{engine}, {}: steals {taken:?}", self.what);
        for c in SearchCounter::ALL {
            let want = self.counts.iter().find(|(n, _)| *n == c).map_or(0, |x| x.1);
            assert_eq!(count(c), want, "{engine}, {}: {}", self.what, c.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_topo::Topology;

    fn order(map: &WorkerMap, thief: WorkerId, victims: Victims, idle: bool, r: u64) -> Vec<usize> {
        let mut order = VictimOrder::workers(map, thief, victims, || idle);
        std::iter::from_fn(|| order.next(|| r)).collect()
    }

    #[test]
    fn each_order_yields_each_victim_once() {
        let map = WorkerMap::new(&Topology::preset("epyc-7763-2s").unwrap(), 256);
        let thief = 130; // squad 8, package 1
        for r in [0, 7, 1 << 40] {
            let sorted = |mut v: Vec<usize>| {
                v.sort_unstable();
                v
            };
            let others: Vec<usize> = (0..256).filter(|&v| v != thief).collect();
            assert_eq!(sorted(order(&map, thief, Victims::All, false, r)), others);
            assert_eq!(
                sorted(order(&map, thief, Victims::Package, false, r)),
                others
            );
            let squad: Vec<usize> = (128..144).filter(|&v| v != thief).collect();
            assert_eq!(sorted(order(&map, thief, Victims::Squad, false, r)), squad);
            let remote = order(&map, thief, Victims::Remote, false, r);
            assert_eq!(remote.len(), 240);
            assert!(remote[..112].iter().all(|&v| v >= 144), "own package first");
            let idle = order(&map, thief, Victims::Package, true, r);
            assert_eq!(sorted(idle), (0..128).collect::<Vec<_>>());
        }
    }

    #[test]
    fn one_random_number_per_group_entered() {
        let map = WorkerMap::new(&Topology::preset("epyc-7763-2s").unwrap(), 256);
        let mut draws = 0;
        let mut order = VictimOrder::workers(&map, 3, Victims::Package, || false);
        let first = order.next(|| {
            draws += 1;
            5
        });
        // The own package from 5 on: worker 5 first, one draw.
        assert_eq!((first, draws), (Some(5), 1));
        let mut squads = VictimOrder::squads(&map, 9, true);
        let all: Vec<usize> = std::iter::from_fn(|| {
            squads.next(|| {
                draws += 1;
                1
            })
        })
        .collect();
        assert_eq!(all, [10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7, 0]);
        assert_eq!(draws, 3, "two groups");
    }
}
