//! The workers of a pool as a policy sees them: how many, and which squad each is in.
//!
//! A squad is the set of workers under one last-level cache domain (DESIGN.md, "The
//! words"); its head is its lowest-numbered worker. Worker `i` runs on PU `i` of the
//! topology in tree order, wrapping around when there are more workers than PUs, so a
//! pool smaller than the machine fills one cache domain before the next (like
//! `OMP_PROC_BIND=close`), and a larger one oversubscribes every PU evenly.

use locus_topo::Topology;

/// Index of a worker in its pool, `0..num_workers`.
pub type WorkerId = usize;
/// Index of a squad in its pool, `0..num_squads`.
pub type SquadId = usize;

/// The workers of a pool, grouped into squads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerMap {
    pu_of: Vec<usize>,
    squad_of: Vec<SquadId>,
    squads: Vec<Vec<WorkerId>>,
    llc_size: Vec<Option<u64>>,
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
        for worker in 0..num_workers {
            let pu = &pus[worker % pus.len()];
            let squad = *squad_of_domain[pu.cache_domain].get_or_insert_with(|| {
                squads.push(Vec::new());
                llc_size.push(domains[pu.cache_domain].llc.as_ref().map(|c| c.size));
                squads.len() - 1
            });
            squads[squad].push(worker);
            pu_of.push(pu.index);
            squad_of.push(squad);
        }
        WorkerMap {
            pu_of,
            squad_of,
            squads,
            llc_size,
        }
    }

    /// A map with the given squad sizes and no topology behind it (tests, simulations of
    /// abstract machines). Workers are numbered squad by squad.
    pub fn from_squad_sizes(sizes: &[usize]) -> WorkerMap {
        let mut map = WorkerMap {
            pu_of: Vec::new(),
            squad_of: Vec::new(),
            squads: Vec::new(),
            llc_size: Vec::new(),
        };
        for &size in sizes.iter().filter(|&&s| s > 0) {
            let squad = map.squads.len();
            let first = map.squad_of.len();
            map.squads.push((first..first + size).collect());
            map.squad_of.extend(std::iter::repeat_n(squad, size));
            map.pu_of.extend(first..first + size);
            map.llc_size.push(None);
        }
        map
    }

    /// Number of workers.
    pub fn num_workers(&self) -> usize {
        self.squad_of.len()
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
}
