//! The machine a profile and a schedule are made for: workers, their squads, and the
//! memory domains the squads sit in.
//!
//! Worker and squad numbers are exactly those of [`locus_policy::WorkerMap`] (worker `i`
//! on PU `i mod PUs` in tree order, one squad per last-level cache domain, numbered in
//! order of their head worker), so a schedule names the workers the runtime and the
//! simulator will run. The description is plain data: it is written into profiles and
//! schedules, and a schedule is followed only on a machine whose description is equal.
//!
//! The partition's top level ([`MachineDesc::top_domains`]) is the NUMA node where the
//! squads sit on several, else the package, else the whole machine (one group).

use std::fmt;

use locus_policy::WorkerMap;
use locus_topo::Topology;
use serde::{Deserialize, Serialize};

use crate::error::{Kind, ProfileError};

/// One squad: its workers (head first) and where it sits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SquadDesc {
    /// Its workers, ascending; the first is the head.
    pub workers: Vec<usize>,
    /// The NUMA node of its head worker's PU.
    pub numa: usize,
    /// The package of its head worker's PU.
    pub package: usize,
}

/// What the partition groups squads by at its top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DomainLevel {
    /// The squads sit on several NUMA nodes.
    Numa,
    /// One NUMA node, several packages.
    Package,
    /// One group: the whole machine.
    Machine,
}

impl DomainLevel {
    /// `"NUMA node"`, `"package"` or `"machine"`.
    pub fn name(self) -> &'static str {
        match self {
            DomainLevel::Numa => "NUMA node",
            DomainLevel::Package => "package",
            DomainLevel::Machine => "machine",
        }
    }
}

/// The workers of a pool on a machine, grouped into squads and memory domains.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineDesc {
    topology: String,
    workers: usize,
    squads: Vec<SquadDesc>,
}

impl MachineDesc {
    /// The pool of `workers` workers on `topology`, grouped as [`WorkerMap::new`] groups
    /// them.
    ///
    /// # Errors
    /// If `workers` is zero.
    pub fn new(topology: &Topology, workers: usize) -> Result<MachineDesc, ProfileError> {
        if workers == 0 {
            return Err(Kind::Machine {
                name: topology.name().to_owned(),
                msg: "a pool needs at least one worker".to_owned(),
            }
            .into());
        }
        Ok(MachineDesc::from_worker_map(
            topology,
            &WorkerMap::new(topology, workers),
        ))
    }

    /// The pool `map` describes on `topology` (`map` must have been made for it).
    pub fn from_worker_map(topology: &Topology, map: &WorkerMap) -> MachineDesc {
        let pus = topology.pus();
        let squads = (0..map.num_squads())
            .map(|s| {
                let pu = &pus[map.pu_of(map.head(s)) % pus.len()];
                SquadDesc {
                    workers: map.squad(s).to_vec(),
                    numa: pu.numa,
                    package: pu.package,
                }
            })
            .collect();
        MachineDesc {
            topology: topology.name().to_owned(),
            workers: map.num_workers(),
            squads,
        }
    }

    /// A description from its parts (tests, abstract machines).
    ///
    /// # Errors
    /// If there is no squad, a squad has no worker or unsorted workers, or the workers
    /// are not exactly `0..n` once each.
    pub fn from_parts(topology: &str, squads: Vec<SquadDesc>) -> Result<MachineDesc, ProfileError> {
        let err = |msg: String| -> ProfileError {
            Kind::Machine {
                name: topology.to_owned(),
                msg,
            }
            .into()
        };
        if squads.is_empty() {
            return Err(err("a machine needs at least one squad".to_owned()));
        }
        let workers: usize = squads.iter().map(|s| s.workers.len()).sum();
        let mut seen = vec![false; workers];
        for (i, s) in squads.iter().enumerate() {
            if s.workers.is_empty() {
                return Err(err(format!("squad {i} has no worker")));
            }
            if s.workers.windows(2).any(|w| w[0] >= w[1]) {
                return Err(err(format!("squad {i}'s workers are not ascending")));
            }
            for &w in &s.workers {
                match seen.get_mut(w) {
                    Some(slot) if !*slot => *slot = true,
                    Some(_) => return Err(err(format!("worker {w} is in two squads"))),
                    None => {
                        return Err(err(format!(
                        "worker {w} is out of range: {workers} workers are numbered 0..{workers}"
                    )))
                    }
                }
            }
        }
        Ok(MachineDesc {
            topology: topology.to_owned(),
            workers,
            squads,
        })
    }

    /// The topology's name (a preset name, `"this machine"`, a synthetic string...).
    pub fn topology(&self) -> &str {
        &self.topology
    }

    /// Number of workers.
    pub fn num_workers(&self) -> usize {
        self.workers
    }

    /// Number of squads.
    pub fn num_squads(&self) -> usize {
        self.squads.len()
    }

    /// Every squad, in squad order.
    pub fn squads(&self) -> &[SquadDesc] {
        &self.squads
    }

    /// The number of workers of each squad.
    pub fn squad_sizes(&self) -> Vec<usize> {
        self.squads.iter().map(|s| s.workers.len()).collect()
    }

    /// The squad `worker` belongs to; `None` if there is no such worker.
    pub fn squad_of(&self, worker: usize) -> Option<usize> {
        self.squads.iter().position(|s| s.workers.contains(&worker))
    }

    /// What the partition's top level groups squads by.
    pub fn top_level(&self) -> DomainLevel {
        let distinct = |f: fn(&SquadDesc) -> usize| {
            let mut v: Vec<usize> = self.squads.iter().map(f).collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        if distinct(|s| s.numa) > 1 {
            DomainLevel::Numa
        } else if distinct(|s| s.package) > 1 {
            DomainLevel::Package
        } else {
            DomainLevel::Machine
        }
    }

    /// The squads of each top-level domain ([`MachineDesc::top_level`]), domains in order
    /// of their first squad, squads ascending.
    pub fn top_domains(&self) -> Vec<Vec<usize>> {
        let key: fn(&SquadDesc) -> usize = match self.top_level() {
            DomainLevel::Numa => |s| s.numa,
            DomainLevel::Package => |s| s.package,
            DomainLevel::Machine => |_| 0,
        };
        let mut keys: Vec<usize> = Vec::new();
        let mut domains: Vec<Vec<usize>> = Vec::new();
        for (i, s) in self.squads.iter().enumerate() {
            let k = key(s);
            match keys.iter().position(|&x| x == k) {
                Some(d) => domains[d].push(i),
                None => {
                    keys.push(k);
                    domains.push(vec![i]);
                }
            }
        }
        domains
    }
}

impl fmt::Display for MachineDesc {
    /// `opteron-8380: 16 workers in 4 squads of 4 over 4 NUMA nodes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let sizes = self.squad_sizes();
        let shape = if sizes.iter().all(|&s| s == sizes[0]) {
            format!("of {}", sizes[0])
        } else {
            format!(
                "of {}",
                sizes
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join("+")
            )
        };
        write!(
            f,
            "{}: {} in {} {shape}",
            self.topology,
            plural(self.workers, "worker"),
            plural(self.squads.len(), "squad"),
        )?;
        let level = self.top_level();
        if level != DomainLevel::Machine {
            write!(
                f,
                " over {}",
                plural(self.top_domains().len(), level.name())
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opteron_has_four_numa_domains_of_one_squad() {
        let t = Topology::preset("opteron-8380").unwrap();
        let m = MachineDesc::new(&t, 16).unwrap();
        assert_eq!(m.squad_sizes(), vec![4, 4, 4, 4]);
        assert_eq!(m.top_level(), DomainLevel::Numa);
        assert_eq!(m.top_domains(), vec![vec![0], vec![1], vec![2], vec![3]]);
        assert_eq!(
            m.to_string(),
            "opteron-8380: 16 workers in 4 squads of 4 over 4 NUMA nodes"
        );
        assert_eq!(m.squad_of(13), Some(3));
        assert_eq!(m.squad_of(16), None);
    }

    #[test]
    fn a_pool_smaller_than_the_machine_fills_one_squad_first() {
        let t = Topology::preset("opteron-8380").unwrap();
        let m = MachineDesc::new(&t, 6).unwrap();
        assert_eq!(m.squad_sizes(), vec![4, 2]);
        assert_eq!(
            m.to_string(),
            "opteron-8380: 6 workers in 2 squads of 4+2 over 2 NUMA nodes"
        );
        assert!(MachineDesc::new(&t, 0).is_err());
    }

    #[test]
    fn one_numa_node_with_two_packages_groups_by_package() {
        let t = Topology::parse_spec("pack:2 l3:1(size=8MiB) core:2 pu:1").unwrap();
        let m = MachineDesc::new(&t, 4).unwrap();
        assert_eq!(m.top_level(), DomainLevel::Package);
        assert_eq!(m.top_domains(), vec![vec![0], vec![1]]);
    }

    #[test]
    fn parts_are_checked() {
        let sq = |w: Vec<usize>| SquadDesc {
            workers: w,
            numa: 0,
            package: 0,
        };
        assert!(MachineDesc::from_parts("m", vec![sq(vec![0, 1]), sq(vec![2])]).is_ok());
        for (bad, what) in [
            (vec![], "at least one squad"),
            (vec![sq(vec![])], "no worker"),
            (vec![sq(vec![1, 0])], "not ascending"),
            (vec![sq(vec![0, 1]), sq(vec![1])], "two squads"),
            (vec![sq(vec![0, 2])], "out of range"),
        ] {
            let e = MachineDesc::from_parts("m", bad).unwrap_err().to_string();
            assert!(e.contains(what), "{e}");
        }
    }
}
