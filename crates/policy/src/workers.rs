//! The workers of a pool as a policy sees them: how many, and which squad each is in.
//!
//! A squad is the set of workers under one last-level cache domain (docs/design.md, "The
//! words"); its head is its lowest-numbered worker. Worker `i` runs on PU `i` of the
//! topology in tree order, wrapping around when there are more workers than PUs, so a
//! pool smaller than the machine fills one cache domain before the next (like
//! `OMP_PROC_BIND=close`), and a larger one oversubscribes every PU evenly.
//!
//! # Nearest first
//! The map also knows how far apart its squads are ([`WorkerMap::distance`],
//! [`WorkerMap::tier`], from [`Topology::squad_distance`] and [`Topology::squad_tier`]),
//! and keeps, for each squad, the other squads grouped by distance, nearest group first
//! ([`WorkerMap::remote_squads`], and their workers: [`WorkerMap::remote_workers`]).
//! Both engines search other squads in this order: group by group, and inside a group
//! from a random start ([`crate::VictimOrder`], one random number per group reached), so
//! squads at one distance are still chosen at random. The groups are made once, with
//! the map: a search allocates nothing.
//!
//! Where every other squad is equally far (every machine of the papers, and a pool of
//! one squad) there is one group, and it holds every squad of the pool, the searching
//! squad too, which the engines skip: a random start over the whole pool, as the
//! engines searched before they knew distances, so results on those machines are the
//! same bit for bit. A squad has several groups only where distances differ, and then
//! none holds the squad itself.

use locus_topo::{SquadTier, Topology};

/// Index of a worker in its pool, `0..num_workers`.
pub type WorkerId = usize;
/// Index of a squad in its pool, `0..num_squads`.
pub type SquadId = usize;

/// The workers of a pool, grouped into squads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerMap {
    /// Every worker, `0..num_workers`: the one group of a search over the pool.
    workers: Vec<WorkerId>,
    pu_of: Vec<usize>,
    squad_of: Vec<SquadId>,
    squads: Vec<Vec<WorkerId>>,
    llc_size: Vec<Option<u64>>,
    /// `distance[a * num_squads + b]`: [`Topology::squad_distance`] of their domains.
    distance: Vec<u32>,
    /// `tier[a * num_squads + b]`: [`Topology::squad_tier`] of their domains.
    tier: Vec<SquadTier>,
    /// Per squad, the other squads and their workers, grouped by distance.
    rings: Vec<Rings>,
    /// Per squad, the workers of its package (its own included), in index order.
    package_workers: Vec<Vec<WorkerId>>,
    /// Per squad, its package's index (packages numbered in order of their first squad).
    package_of: Vec<usize>,
}

/// The other squads of one squad, and their workers, in groups of equal distance,
/// nearest group first; each group in index order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rings {
    squads: Vec<SquadId>,
    /// Where each group of `squads` ends (exclusive), nearest group first.
    squad_ends: Vec<usize>,
    /// Where `squads` ends: one group of them all.
    all_end: [usize; 1],
    workers: Vec<WorkerId>,
    /// Where each group of `workers` ends: the workers of the squads of the same group.
    worker_ends: Vec<usize>,
}

/// The groups of a `Rings` list, nearest first.
#[derive(Debug, Clone)]
pub struct Groups<'a> {
    items: &'a [usize],
    ends: std::slice::Iter<'a, usize>,
    start: usize,
}

impl<'a> Iterator for Groups<'a> {
    type Item = &'a [usize];

    fn next(&mut self) -> Option<&'a [usize]> {
        let end = *self.ends.next()?;
        let group = &self.items[self.start..end];
        self.start = end;
        Some(group)
    }
}

impl WorkerMap {
    /// Places `num_workers` workers on `topology` (worker `i` on PU `i mod num_pus`) and
    /// groups them by cache domain. Squads are numbered in order of their head worker;
    /// cache domains with no worker get no squad.
    ///
    /// # Panics
    /// If `num_workers` is zero or the topology has no PU; the pool builder rejects both
    /// before calling this.
    pub fn new(topology: &Topology, num_workers: usize) -> WorkerMap {
        let pus = topology.pus();
        assert!(
            num_workers > 0 && !pus.is_empty(),
            "a pool needs a worker and a PU"
        );
        let domains = topology.cache_domains();
        let mut squad_of_domain: Vec<Option<SquadId>> = vec![None; domains.len()];
        let mut squads: Vec<Vec<WorkerId>> = Vec::new();
        let mut llc_size = Vec::new();
        let mut pu_of = Vec::with_capacity(num_workers);
        let mut squad_of = Vec::with_capacity(num_workers);
        let mut domain_of: Vec<usize> = Vec::new();
        for worker in 0..num_workers {
            let pu = &pus[worker % pus.len()];
            let squad = *squad_of_domain[pu.cache_domain].get_or_insert_with(|| {
                squads.push(Vec::new());
                llc_size.push(domains[pu.cache_domain].llc.as_ref().map(|c| c.size));
                domain_of.push(pu.cache_domain);
                squads.len() - 1
            });
            squads[squad].push(worker);
            pu_of.push(pu.index);
            squad_of.push(squad);
        }
        let pairs = || {
            domain_of
                .iter()
                .flat_map(|&a| domain_of.iter().map(move |&b| (a, b)))
        };
        let distance = pairs()
            .map(|(a, b)| topology.squad_distance(a, b))
            .collect();
        let tier = pairs().map(|(a, b)| topology.squad_tier(a, b)).collect();
        WorkerMap::with_distances(pu_of, squad_of, squads, llc_size, distance, tier)
    }

    /// The map of the given parts, its groups made from `distance`.
    fn with_distances(
        pu_of: Vec<usize>,
        squad_of: Vec<SquadId>,
        squads: Vec<Vec<WorkerId>>,
        llc_size: Vec<Option<u64>>,
        distance: Vec<u32>,
        tier: Vec<SquadTier>,
    ) -> WorkerMap {
        let n = squads.len();
        let rings = (0..n)
            .map(|a| {
                let mut others: Vec<(u32, SquadId)> = (0..n)
                    .filter(|&b| b != a)
                    .map(|b| (distance[a * n + b], b))
                    .collect();
                others.sort_unstable();
                if others.first().map(|o| o.0) == others.last().map(|o| o.0) {
                    // One distance (or no other squad): one group of the whole pool.
                    others = (0..n).map(|b| (0, b)).collect();
                }
                let mut rings = Rings {
                    squads: Vec::with_capacity(others.len()),
                    squad_ends: Vec::new(),
                    all_end: [others.len()],
                    workers: Vec::new(),
                    worker_ends: Vec::new(),
                };
                for (i, &(d, b)) in others.iter().enumerate() {
                    rings.squads.push(b);
                    rings.workers.extend(&squads[b]);
                    if others.get(i + 1).is_none_or(|&(next, _)| next != d) {
                        rings.squad_ends.push(rings.squads.len());
                        // Workers in index order inside a group, as squads are.
                        let from = rings.worker_ends.last().copied().unwrap_or(0);
                        rings.workers[from..].sort_unstable();
                        rings.worker_ends.push(rings.workers.len());
                    }
                }
                rings
            })
            .collect();
        let mut package_of: Vec<usize> = Vec::with_capacity(n);
        for a in 0..n {
            let first = (0..a).find(|&b| tier[a * n + b] != SquadTier::OtherPackage);
            let next = package_of.iter().max().map_or(0, |&p| p + 1);
            package_of.push(first.map_or(next, |b| package_of[b]));
        }
        let package_workers = (0..n)
            .map(|a| {
                let mut workers: Vec<WorkerId> = (0..n)
                    .filter(|&b| tier[a * n + b] != SquadTier::OtherPackage)
                    .flat_map(|b| squads[b].iter().copied())
                    .collect();
                workers.sort_unstable();
                workers
            })
            .collect();
        WorkerMap {
            workers: (0..squad_of.len()).collect(),
            pu_of,
            squad_of,
            squads,
            llc_size,
            distance,
            tier,
            rings,
            package_workers,
            package_of,
        }
    }

    /// A map with the given squad sizes and no topology behind it (tests, simulations of
    /// abstract machines). Workers are numbered squad by squad.
    /// Every squad is a package of its own there, all equally far apart (distance 1):
    /// one group of other squads, as on the papers' machines.
    pub fn from_squad_sizes(sizes: &[usize]) -> WorkerMap {
        let (mut pu_of, mut squad_of, mut squads, mut llc_size) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &size in sizes.iter().filter(|&&s| s > 0) {
            let squad = squads.len();
            let first = squad_of.len();
            squads.push((first..first + size).collect());
            squad_of.extend(std::iter::repeat_n(squad, size));
            pu_of.extend(first..first + size);
            llc_size.push(None);
        }
        let n = squads.len();
        let far = |k: usize| k / n != k % n;
        let distance = (0..n * n).map(|k| u32::from(far(k))).collect();
        let tier = (0..n * n)
            .map(|k| {
                if far(k) {
                    SquadTier::OtherPackage
                } else {
                    SquadTier::SameSquad
                }
            })
            .collect();
        WorkerMap::with_distances(pu_of, squad_of, squads, llc_size, distance, tier)
    }

    /// Number of workers.
    pub fn num_workers(&self) -> usize {
        self.squad_of.len()
    }

    /// Every worker, in index order: the one group a search over the whole pool walks.
    pub fn workers(&self) -> &[WorkerId] {
        &self.workers
    }

    /// Number of squads.
    pub fn num_squads(&self) -> usize {
        self.squads.len()
    }

    /// The squad of `worker`.
    #[inline]
    pub fn squad_of(&self, worker: WorkerId) -> SquadId {
        self.squad_of[worker]
    }

    /// The workers of `squad`, head first.
    pub fn squad(&self, squad: SquadId) -> &[WorkerId] {
        &self.squads[squad]
    }

    /// The head worker of `squad`: its lowest-numbered worker.
    pub fn head(&self, squad: SquadId) -> WorkerId {
        self.squads[squad][0]
    }

    /// The logical PU (in the topology) that `worker` runs on.
    pub fn pu_of(&self, worker: WorkerId) -> usize {
        self.pu_of[worker]
    }

    /// Size in bytes of the last-level cache `squad` shares, if the topology gives one.
    pub fn llc_size(&self, squad: SquadId) -> Option<u64> {
        self.llc_size[squad]
    }

    /// How far squad `b` is from squad `a` ([`Topology::squad_distance`]: 0 for the
    /// squad itself; larger is farther).
    #[inline]
    pub fn distance(&self, a: SquadId, b: SquadId) -> u32 {
        self.distance[a * self.squads.len() + b]
    }

    /// Where squad `b` is from squad `a` in the machine's tree ([`Topology::squad_tier`]):
    /// what engines count steals by.
    #[inline]
    pub fn tier(&self, a: SquadId, b: SquadId) -> SquadTier {
        self.tier[a * self.squads.len() + b]
    }

    /// The squads other than `squad`, in groups of equal [`WorkerMap::distance`] from
    /// it, nearest group first, each group in index order. Where all are equally far,
    /// one group of every squad, `squad` too (see the module's documentation): a search
    /// skips `squad`.
    pub fn remote_squads(&self, squad: SquadId) -> Groups<'_> {
        let rings = &self.rings[squad];
        Groups {
            items: &rings.squads,
            ends: rings.squad_ends.iter(),
            start: 0,
        }
    }

    /// The squads a search from `squad` tries, in groups: nearest first as
    /// [`WorkerMap::remote_squads`] gives them where `nearest`, else one group of them all,
    /// nearest first, which a search scans from one random start (the first squad tried
    /// is then as likely any other, near or far).
    pub fn squad_search(&self, squad: SquadId, nearest: bool) -> Groups<'_> {
        let rings = &self.rings[squad];
        Groups {
            items: &rings.squads,
            ends: if nearest {
                rings.squad_ends.iter()
            } else {
                rings.all_end.iter()
            },
            start: 0,
        }
    }

    /// The workers of `squad`'s package, `squad`'s own among them, in index order:
    /// every squad whose [`WorkerMap::tier`] from it is nearer than
    /// [`SquadTier::OtherPackage`].
    pub fn package_workers(&self, squad: SquadId) -> &[WorkerId] {
        &self.package_workers[squad]
    }

    /// The index of `squad`'s package: packages are numbered from 0 in order of their
    /// first squad.
    #[inline]
    pub fn package_of(&self, squad: SquadId) -> usize {
        self.package_of[squad]
    }

    /// The number of packages the squads lie in.
    pub fn num_packages(&self) -> usize {
        self.package_of.iter().max().map_or(0, |&p| p + 1)
    }

    /// Whether every worker of `squad`'s package but a searching one is idle, given the
    /// package's count of idle workers `idle`, which counts the searcher too where
    /// `searcher_idle`: then none of them has a task to steal, and a
    /// [`crate::Victims::Package`] search skips the package. The rule both engines apply
    /// to their own idle counts.
    #[inline]
    pub fn others_in_package_idle(&self, squad: SquadId, idle: usize, searcher_idle: bool) -> bool {
        idle.saturating_sub(usize::from(searcher_idle)) + 1 >= self.package_workers(squad).len()
    }

    /// Whether squads `a` and `b` are in one package.
    #[inline]
    pub fn same_package(&self, a: SquadId, b: SquadId) -> bool {
        self.tier(a, b) != SquadTier::OtherPackage
    }

    /// The workers of the squads of [`WorkerMap::remote_squads`], in its groups, each
    /// group in index order (where there is one group, every worker: a search skips
    /// `squad`'s).
    pub fn remote_workers(&self, squad: SquadId) -> Groups<'_> {
        let rings = &self.rings[squad];
        Groups {
            items: &rings.workers,
            ends: rings.worker_ends.iter(),
            start: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squads_from_sizes() {
        let map = WorkerMap::from_squad_sizes(&[2, 3]);
        assert_eq!(map.num_workers(), 5);
        assert_eq!(map.num_squads(), 2);
        assert_eq!(map.squad(1), &[2, 3, 4]);
        assert_eq!(map.head(1), 2);
        assert_eq!(map.squad_of(4), 1);
    }

    #[test]
    fn workers_fill_one_cache_domain_first_and_wrap_around() {
        let topo = Topology::preset("opteron-8380").expect("preset");
        let map = WorkerMap::new(&topo, 6);
        assert_eq!(
            map.num_squads(),
            2,
            "4 workers fill socket 0, 2 go to socket 1"
        );
        assert_eq!(map.squad(0), &[0, 1, 2, 3]);
        assert_eq!(map.llc_size(0), Some(6 << 20));
        let over = WorkerMap::new(&topo, 20);
        assert_eq!(over.num_squads(), 4);
        assert_eq!(over.squad(0), &[0, 1, 2, 3, 16, 17, 18, 19]);
        assert_eq!(over.pu_of(17), 1);
    }

    #[test]
    fn other_squads_come_nearest_first_in_groups() {
        let topo = Topology::preset("epyc-7763-2s").expect("preset");
        let map = WorkerMap::new(&topo, 256);
        assert_eq!(map.num_squads(), 16);
        let groups: Vec<&[usize]> = map.remote_squads(9).collect();
        let own_package: Vec<usize> = (8..16).filter(|&s| s != 9).collect();
        assert_eq!(groups, [&own_package[..], &(0..8).collect::<Vec<_>>()[..]]);
        // Not nearest first: one group of them all, in the same order.
        let all: Vec<usize> = own_package.iter().copied().chain(0..8).collect();
        assert_eq!(map.squad_search(9, false).collect::<Vec<_>>(), [&all[..]]);
        assert!(map.squad_search(9, true).eq(map.remote_squads(9)));
        assert_eq!(map.tier(9, 10), SquadTier::SameNode);
        assert_eq!(map.tier(9, 1), SquadTier::OtherPackage);
        assert_eq!(map.tier(9, 9), SquadTier::SameSquad);
        assert_eq!((map.distance(9, 10), map.distance(9, 1)), (10, 32));
        let workers: Vec<&[usize]> = map.remote_workers(9).collect();
        assert_eq!(workers.len(), 2);
        assert!(workers[0]
            .iter()
            .all(|&w| own_package.contains(&map.squad_of(w))));
        assert_eq!(workers[0].len(), 7 * 16);
        assert!(workers[0].windows(2).all(|p| p[0] < p[1]), "index order");
        assert!(workers[1].iter().all(|&w| map.squad_of(w) < 8));
        // The papers' machines: every other squad equally far, one group of the pool.
        let opteron = WorkerMap::new(&Topology::preset("opteron-8380").unwrap(), 16);
        assert_eq!(
            opteron.remote_squads(2).collect::<Vec<_>>(),
            [&[0, 1, 2, 3][..]]
        );
        assert!(opteron.squad_search(2, false).eq(opteron.remote_squads(2)));
        let abstract_map = WorkerMap::from_squad_sizes(&[2, 3, 1]);
        assert_eq!(
            abstract_map.remote_workers(1).collect::<Vec<_>>(),
            [&[0, 1, 2, 3, 4, 5][..]]
        );
        let one = WorkerMap::from_squad_sizes(&[3]);
        assert_eq!(one.remote_squads(0).collect::<Vec<_>>(), [&[0][..]]);
        assert_eq!(abstract_map.tier(0, 2), SquadTier::OtherPackage);
    }

    #[test]
    fn a_package_holds_the_squads_not_in_another_package() {
        let map = WorkerMap::new(&Topology::preset("epyc-7763-2s").unwrap(), 256);
        assert_eq!(map.num_packages(), 2);
        assert_eq!(
            (0..16).map(|s| map.package_of(s)).collect::<Vec<_>>(),
            [[0; 8], [1; 8]].concat()
        );
        let second: Vec<usize> = (128..256).collect();
        assert_eq!(map.package_workers(9), &second[..], "own squad included");
        assert!(map.same_package(9, 15) && !map.same_package(9, 7));
        // A searcher not counted idle, 127 others idle: all of them; one busy: not.
        assert!(map.others_in_package_idle(9, 127, false));
        assert!(!map.others_in_package_idle(9, 126, false));
        // A searcher counted among the idle.
        assert!(map.others_in_package_idle(9, 128, true));
        assert!(!map.others_in_package_idle(9, 127, true));
        // NPS4: four nodes per package, still two packages.
        let nps4 = WorkerMap::new(&Topology::preset("epyc-7763-2s-nps4").unwrap(), 256);
        assert_eq!(nps4.num_packages(), 2);
        assert_eq!(nps4.package_workers(0).len(), 128);
        // Abstract squads are packages of their own; one squad is one package.
        let abstract_map = WorkerMap::from_squad_sizes(&[2, 3, 1]);
        assert_eq!(abstract_map.num_packages(), 3);
        assert_eq!(abstract_map.package_workers(1), &[2, 3, 4]);
        assert_eq!(WorkerMap::from_squad_sizes(&[3]).num_packages(), 1);
    }
}
