//! Distances between squads, for searches that go nearest first.
//!
//! A squad is the workers under one last-level cache domain
//! ([`Topology::cache_domains`]). How far one squad is from another comes from
//! the NUMA nodes of their heads (the node of a domain's first PU, which the
//! head worker runs on) and, where the source gives them, the distances between
//! those nodes:
//!
//! | source | where | units |
//! | --- | --- | --- |
//! | [`DistanceSource::Sysfs`] | `node/nodeN/distance` (see [`crate::sysfs`]) | the ACPI SLIT's: 10 for a node to itself |
//! | [`DistanceSource::HwlocXml`] | a `<distances2 type="NUMANode">` latency matrix (v2), or a `<distances>` matrix over the NUMA nodes (v1) (see [`crate::xml`]) | the file's; v1 matrices are scaled so that the smallest value is 10 |
//! | [`DistanceSource::Preset`] | the table in [`crate::presets`] | SLIT units; each preset says whether its values are a real machine's SLIT or estimates |
//! | [`DistanceSource::Tree`] | no matrix: the tree alone | [`TREE_SAME_NODE`], [`TREE_SAME_PACKAGE`], [`TREE_OTHER_PACKAGE`] |
//!
//! Every pair of squads also has a [`SquadTier`], read from the tree only:
//! same squad, same NUMA node (and package), same package, other package. The
//! tier is what statistics count steals by; the distance refines the order
//! inside and across tiers where the machine says more (an EPYC in NPS4 mode
//! has four nodes per package, each at its own distance).
//!
//! [`Topology::nearest_squads`] orders the other squads by distance, then by
//! tier (two squads at one node's distance, one in the own package, come
//! package first), then by index: the same machine always gives the same order.
//!
//! A matrix is checked where it is read: it has one value per pair of nodes,
//! every value is a positive whole number, and it is symmetric. A matrix that
//! breaks one of these is an error naming the file and the pair, never a
//! silent fallback to the tree.

use serde::Serialize;

use crate::model::Topology;

/// A squad's distance to itself.
pub const SAME_SQUAD: u32 = 0;
/// Without a distance matrix: two squads in one NUMA node and one package
/// (the SLIT's distance of a node to itself).
pub const TREE_SAME_NODE: u32 = 10;
/// Without a distance matrix: two squads in one package but different NUMA
/// nodes. A guess between the two others; real SLITs give 11 or 12 (EPYC in
/// NPS4) up to 20.
pub const TREE_SAME_PACKAGE: u32 = 15;
/// Without a distance matrix: two squads in different packages (Linux's
/// `REMOTE_DISTANCE`, what it assumes when the firmware gives no SLIT).
pub const TREE_OTHER_PACKAGE: u32 = 20;

/// Where a topology's NUMA distances come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum DistanceSource {
    /// `node/nodeN/distance` files of a sysfs tree (the firmware's SLIT).
    Sysfs,
    /// A distance matrix of an hwloc XML file.
    HwlocXml,
    /// The table of a built-in preset.
    Preset,
    /// No matrix: distances follow the tree (same node, same package, other package).
    Tree,
}

/// How far apart two squads are in the machine's tree, nearest first.
///
/// Tiers compare: `SameSquad < SameNode < SamePackage < OtherPackage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum SquadTier {
    /// The squad itself.
    SameSquad,
    /// Another squad whose head is in the same NUMA node and the same package.
    SameNode,
    /// Another squad of the same package, in another NUMA node.
    SamePackage,
    /// A squad of another package (also when one NUMA node spans packages).
    OtherPackage,
}

impl SquadTier {
    /// Every tier, nearest first.
    pub const ALL: [SquadTier; 4] = [
        SquadTier::SameSquad,
        SquadTier::SameNode,
        SquadTier::SamePackage,
        SquadTier::OtherPackage,
    ];

    /// A short name: `squad`, `node`, `package`, `remote`.
    pub fn name(self) -> &'static str {
        match self {
            SquadTier::SameSquad => "squad",
            SquadTier::SameNode => "node",
            SquadTier::SamePackage => "package",
            SquadTier::OtherPackage => "remote",
        }
    }
}

/// A distance matrix over the first `nodes` NUMA nodes of a raw machine, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawDistances {
    pub(crate) nodes: usize,
    /// Row-major, `nodes * nodes` values.
    pub(crate) values: Vec<u32>,
    pub(crate) source: DistanceSource,
}

impl RawDistances {
    /// The matrix over new node indices, `key_of[new] = raw key`; `None` when a
    /// node has no row (a node the source added without a distance, such as
    /// the implicit node of CPUs in no node).
    pub(crate) fn select(&self, key_of: &[usize]) -> Option<Vec<u32>> {
        if key_of.iter().any(|&k| k >= self.nodes) || self.values.len() != self.nodes * self.nodes {
            return None;
        }
        let mut out = Vec::with_capacity(key_of.len() * key_of.len());
        for &a in key_of {
            for &b in key_of {
                out.push(*self.values.get(a * self.nodes + b)?);
            }
        }
        Some(out)
    }
}

/// Checks a square matrix of `n` nodes, row-major; the message says what is
/// wrong and where, for the caller to wrap with the input's name.
pub(crate) fn check_matrix(values: &[u32], n: usize) -> Result<(), String> {
    if values.len() != n * n {
        return Err(format!(
            "expected {} distances ({n} nodes x {n}), found {}",
            n * n,
            values.len()
        ));
    }
    for i in 0..n {
        for j in 0..n {
            let d = values[i * n + j];
            if d == 0 {
                return Err(format!(
                    "the distance from node {i} to node {j} is 0 (distances are positive)"
                ));
            }
            let back = values[j * n + i];
            if j > i && d != back {
                return Err(format!(
                    "the matrix is not symmetric: node {i} to node {j} is {d}, node {j} to node {i} is {back}"
                ));
            }
        }
    }
    Ok(())
}

impl Topology {
    /// Where the NUMA distances of this machine come from.
    pub fn distance_source(&self) -> DistanceSource {
        self.distance_source
    }

    /// The distance between NUMA nodes `a` and `b` (indices into
    /// [`Topology::numa_nodes`]) from the source's matrix, in its units (the
    /// SLIT's for sysfs and presets: 10 for a node to itself); `None` when the
    /// machine has no matrix or an index is out of range.
    pub fn numa_distance(&self, a: usize, b: usize) -> Option<u32> {
        let n = self.numa_nodes.len();
        if a >= n || b >= n {
            return None;
        }
        self.numa_distances.as_ref()?.get(a * n + b).copied()
    }

    /// The NUMA node of squad `squad` (the node of its first PU, where its head
    /// worker runs).
    ///
    /// # Panics
    ///
    /// If `squad` is not an index into [`Topology::cache_domains`].
    pub fn squad_numa(&self, squad: usize) -> usize {
        self.pus[self.cache_domains[squad].pus[0]].numa
    }

    /// How far apart squads `a` and `b` are in the tree (see [`SquadTier`]).
    ///
    /// # Panics
    ///
    /// If `a` or `b` is not an index into [`Topology::cache_domains`].
    pub fn squad_tier(&self, a: usize, b: usize) -> SquadTier {
        if a == b {
            return SquadTier::SameSquad;
        }
        let (da, db) = (&self.cache_domains[a], &self.cache_domains[b]);
        if da.package != db.package {
            SquadTier::OtherPackage
        } else if self.squad_numa(a) == self.squad_numa(b) {
            SquadTier::SameNode
        } else {
            SquadTier::SamePackage
        }
    }

    /// The distance from squad `a` to squad `b`: [`SAME_SQUAD`] (0) when they
    /// are one; otherwise the distance between their heads' NUMA nodes from
    /// the machine's matrix, or without one [`TREE_SAME_NODE`],
    /// [`TREE_SAME_PACKAGE`] or [`TREE_OTHER_PACKAGE`] by their tier. Larger is
    /// farther; values compare only within one machine.
    ///
    /// # Panics
    ///
    /// If `a` or `b` is not an index into [`Topology::cache_domains`].
    pub fn squad_distance(&self, a: usize, b: usize) -> u32 {
        let tier = self.squad_tier(a, b);
        if tier == SquadTier::SameSquad {
            return SAME_SQUAD;
        }
        if let Some(d) = self.numa_distance(self.squad_numa(a), self.squad_numa(b)) {
            return d;
        }
        match tier {
            SquadTier::SameSquad => SAME_SQUAD,
            SquadTier::SameNode => TREE_SAME_NODE,
            SquadTier::SamePackage => TREE_SAME_PACKAGE,
            SquadTier::OtherPackage => TREE_OTHER_PACKAGE,
        }
    }

    /// Every squad but `a`, nearest first: by [`Topology::squad_distance`],
    /// then by [`Topology::squad_tier`], then by index. This is the order a
    /// remote search from squad `a` should try victims in.
    ///
    /// # Panics
    ///
    /// If `a` is not an index into [`Topology::cache_domains`].
    pub fn nearest_squads(&self, a: usize) -> Vec<usize> {
        assert!(a < self.cache_domains.len(), "squad {a} does not exist");
        let mut others: Vec<(u32, SquadTier, usize)> = (0..self.cache_domains.len())
            .filter(|&b| b != a)
            .map(|b| (self.squad_distance(a, b), self.squad_tier(a, b), b))
            .collect();
        others.sort_unstable();
        others.into_iter().map(|(_, _, b)| b).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_checks() {
        assert_eq!(check_matrix(&[10, 20, 20, 10], 2), Ok(()));
        assert!(check_matrix(&[10, 20, 20], 2)
            .unwrap_err()
            .contains("expected 4 distances"));
        assert!(check_matrix(&[10, 0, 0, 10], 2)
            .unwrap_err()
            .contains("node 0 to node 1 is 0"));
        assert!(check_matrix(&[10, 20, 21, 10], 2)
            .unwrap_err()
            .contains("not symmetric"));
    }

    #[test]
    fn select_reorders_and_refuses_missing_rows() {
        let d = RawDistances {
            nodes: 2,
            values: vec![10, 20, 20, 11],
            source: DistanceSource::Sysfs,
        };
        assert_eq!(d.select(&[1, 0]), Some(vec![11, 20, 20, 10]));
        assert_eq!(d.select(&[1]), Some(vec![11]));
        assert_eq!(d.select(&[0, 2]), None);
    }
}
