//! The machine model: [`Topology`] and the objects it is made of.
//!
//! A `Topology` is immutable once built and is always *normalised*:
//!
//! * it has at least one PU;
//! * PUs are numbered `0..num_pus()` in tree order — sorted by package, then by
//!   cache domain, then by core (ties keep the order of the source), so taking
//!   the first N PUs fills one cache domain before the next;
//! * packages, cores, caches and cache domains are numbered densely in order of
//!   their first PU, and every one of them has at least one PU;
//! * NUMA nodes with PUs are numbered likewise, and are followed by the NUMA
//!   nodes without PUs (memory-only nodes: HBM, NVDIMM, CXL memory) in the
//!   source's order;
//! * every `pus` list is sorted ascending;
//! * a NUMA distance matrix, when there is one, covers every NUMA node, is
//!   symmetric, and its values are positive (see [`crate::distance`]).
//!
//! All sources (sysfs, synthetic strings, XML, presets, [`Topology::restrict`])
//! feed one flat description ([`RawMachine`]) into [`normalize`], which is the
//! only place where these invariants are established.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::Hash;

use serde::Serialize;

use crate::distance::{DistanceSource, RawDistances};
use crate::error::{Kind, TopoError};

/// The largest number of PUs a described machine may have. Larger descriptions
/// are rejected with an error instead of being allocated.
pub const MAX_PUS: usize = 1 << 16;

/// A processing unit (hardware thread): where one worker runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pu {
    /// Logical index, `0..num_pus()`, in tree order.
    pub index: usize,
    /// The operating system's CPU number (Linux CPU number) for machines read
    /// from sysfs; `None` for described machines (synthetic strings, XML, presets).
    pub os_index: Option<usize>,
    /// Logical index of the core this PU belongs to.
    pub core: usize,
    /// Logical index of the package (socket).
    pub package: usize,
    /// Logical index of the NUMA node.
    pub numa: usize,
    /// Logical index of the cache domain (the squad).
    pub cache_domain: usize,
}

/// What a cache holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CacheKind {
    /// Data only (an L1d).
    Data,
    /// Instructions only (an L1i).
    Instruction,
    /// Data and instructions.
    Unified,
}

impl CacheKind {
    /// The suffix lstopo prints after the level: `d`, `i` or nothing.
    fn suffix(self) -> &'static str {
        match self {
            CacheKind::Data => "d",
            CacheKind::Instruction => "i",
            CacheKind::Unified => "",
        }
    }
}

/// One cache instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cache {
    /// 1 for L1, 2 for L2, ...
    pub level: u8,
    /// Data, instruction or unified.
    pub kind: CacheKind,
    /// Capacity in bytes; 0 when the source did not say.
    pub size: u64,
    /// Line size in bytes; 0 when the source did not say.
    pub line_size: u32,
    /// Number of ways. 0 means fully associative *or* unknown: hwloc XML writes
    /// -1 for fully associative and sysfs writes 0 for both, so the two cannot be
    /// told apart; a simulator should treat 0 as fully associative.
    pub associativity: u32,
    /// Logical indices of the PUs that share this cache, ascending.
    pub pus: Vec<usize>,
}

impl Cache {
    /// lstopo's name for the cache: `L3`, `L2`, `L1d`, `L1i`.
    pub fn label(&self) -> String {
        format!("L{}{}", self.level, self.kind.suffix())
    }
}

/// The PUs under one last-level cache instance: one squad of workers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CacheDomain {
    /// Logical index, in order of the domain's first PU.
    pub index: usize,
    /// Logical indices of its PUs, ascending (and contiguous).
    pub pus: Vec<usize>,
    /// The shared last-level cache; `None` if the machine describes no cache for
    /// these PUs, in which case the domain is the whole package.
    pub llc: Option<Cache>,
    /// The package of the domain's first PU (a last-level cache never spans
    /// packages on real machines; XML that says otherwise is accepted as is).
    pub package: usize,
}

/// A core: the PUs that share one core's execution units.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Core {
    /// Logical index.
    pub index: usize,
    /// The package of the core's first PU.
    pub package: usize,
    /// Logical indices of its PUs (its hardware threads).
    pub pus: Vec<usize>,
}

/// A package (socket).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Package {
    /// Logical index.
    pub index: usize,
    /// `physical_package_id` for machines read from sysfs; `None` otherwise.
    pub os_index: Option<usize>,
    /// Logical indices of its PUs.
    pub pus: Vec<usize>,
}

/// A NUMA node: the PUs closest to one memory.
///
/// A node may have no PU: memory attached to no CPU of its own (HBM beside a
/// package, NVDIMM, CXL memory), or the second memory of PUs whose first
/// (local) node is another one. Such nodes come last in
/// [`Topology::numa_nodes`] and no PU names them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NumaNode {
    /// Logical index.
    pub index: usize,
    /// The Linux node number for machines read from sysfs; `None` otherwise.
    pub os_index: Option<usize>,
    /// Local memory in bytes, when the source says (`memory=` in synthetic
    /// strings, `local_memory` in XML).
    pub memory: Option<u64>,
    /// Logical indices of its PUs; empty for a memory-only node.
    pub pus: Vec<usize>,
}

/// A machine: NUMA nodes, packages, cache domains, cores and PUs, with every cache.
///
/// Build one with [`Topology::discover`], [`Topology::from_sysfs`],
/// [`Topology::from_synthetic`], [`Topology::from_xml_str`],
/// [`Topology::from_xml_file`], [`Topology::preset`] or [`Topology::parse_spec`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Topology {
    pub(crate) name: String,
    pub(crate) is_virtual: bool,
    pub(crate) pus: Vec<Pu>,
    pub(crate) cores: Vec<Core>,
    pub(crate) packages: Vec<Package>,
    pub(crate) numa_nodes: Vec<NumaNode>,
    pub(crate) caches: Vec<Cache>,
    pub(crate) cache_domains: Vec<CacheDomain>,
    /// Distances between NUMA nodes, row-major over `numa_nodes`, when the
    /// source gave them.
    pub(crate) numa_distances: Option<Vec<u32>>,
    /// Where `numa_distances` came from ([`DistanceSource::Tree`] when `None`).
    pub(crate) distance_source: DistanceSource,
}

impl Topology {
    /// The preset name, `"this machine"`, the synthetic string, or the file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `true` unless the machine was discovered with [`Topology::discover`]: a
    /// virtual machine's PUs are not CPUs of this process to pin to.
    pub fn is_virtual(&self) -> bool {
        self.is_virtual
    }

    /// Every PU, in tree order; `pus()[i].index == i`.
    pub fn pus(&self) -> &[Pu] {
        &self.pus
    }

    /// Every core, in tree order.
    pub fn cores(&self) -> &[Core] {
        &self.cores
    }

    /// Every package, in tree order.
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// Every NUMA node: those with PUs in order of their first PU, then the
    /// memory-only ones (no PU) in the source's order.
    pub fn numa_nodes(&self) -> &[NumaNode] {
        &self.numa_nodes
    }

    /// Number of PUs (at least 1).
    pub fn num_pus(&self) -> usize {
        self.pus.len()
    }

    /// Number of cores.
    pub fn num_cores(&self) -> usize {
        self.cores.len()
    }

    /// Number of packages (sockets).
    pub fn num_packages(&self) -> usize {
        self.packages.len()
    }

    /// Number of NUMA nodes, memory-only ones included (as hwloc counts them).
    pub fn num_numa_nodes(&self) -> usize {
        self.numa_nodes.len()
    }

    /// Every cache instance, outermost first within each subtree (an L3, then
    /// the L2s, L1ds and L1is under it, in PU order).
    pub fn caches(&self) -> &[Cache] {
        &self.caches
    }

    /// One domain per last-level cache instance (squads come from these). A
    /// PU's last-level cache is its highest-level data or unified cache; PUs
    /// with no cache described form one domain per package.
    pub fn cache_domains(&self) -> &[CacheDomain] {
        &self.cache_domains
    }

    /// Keeps only the PUs with these logical indices (in any order; duplicates
    /// are ignored), renumbered densely in tree order. Domains, cores, caches
    /// and NUMA nodes left without PUs are dropped (memory-only nodes, which
    /// had none, stay); NUMA distances follow the nodes kept; the name is kept.
    ///
    /// # Errors
    ///
    /// When `pus` is empty or names a PU that does not exist.
    pub fn restrict(&self, pus: &[usize]) -> Result<Topology, TopoError> {
        if pus.is_empty() {
            return Err(TopoError::restrict(
                &self.name,
                "the list of PUs to keep is empty",
            ));
        }
        let mut keep = vec![false; self.pus.len()];
        for &p in pus {
            match keep.get_mut(p) {
                Some(k) => *k = true,
                None => {
                    return Err(TopoError::restrict(
                        &self.name,
                        format_args!(
                            "PU index {p} is out of range (expected 0..{}, the machine has {} PUs)",
                            self.pus.len(),
                            self.pus.len()
                        ),
                    ))
                }
            }
        }
        let mut raw = self.to_raw();
        raw.pus = raw
            .pus
            .into_iter()
            .zip(keep)
            .filter_map(|(p, k)| k.then_some(p))
            .collect();
        normalize(raw)
    }

    /// This machine as a flat description, keys being the current indices.
    fn to_raw(&self) -> RawMachine {
        let mut cache_of_pu: Vec<Vec<usize>> = vec![Vec::new(); self.pus.len()];
        for (ci, c) in self.caches.iter().enumerate() {
            for &p in &c.pus {
                if let Some(list) = cache_of_pu.get_mut(p) {
                    list.push(ci);
                }
            }
        }
        RawMachine {
            name: self.name.clone(),
            is_virtual: self.is_virtual,
            numa: self
                .numa_nodes
                .iter()
                .map(|n| RawNuma {
                    os_index: n.os_index,
                    memory: n.memory,
                    keep_without_pus: n.pus.is_empty(),
                })
                .collect(),
            distances: self.numa_distances.as_ref().map(|values| RawDistances {
                nodes: self.numa_nodes.len(),
                values: values.clone(),
                source: self.distance_source,
            }),
            packages: self.packages.iter().map(|p| p.os_index).collect(),
            num_cores: self.cores.len(),
            caches: self
                .caches
                .iter()
                .map(|c| CacheAttrs {
                    level: c.level,
                    kind: c.kind,
                    size: c.size,
                    line_size: c.line_size,
                    associativity: c.associativity,
                })
                .collect(),
            pus: self
                .pus
                .iter()
                .zip(cache_of_pu)
                .map(|(p, caches)| RawPu {
                    os_index: p.os_index,
                    numa: p.numa,
                    package: p.package,
                    core: p.core,
                    caches,
                })
                .collect(),
        }
    }
}

/// The attributes of one cache instance, without its PUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CacheAttrs {
    pub(crate) level: u8,
    pub(crate) kind: CacheKind,
    pub(crate) size: u64,
    pub(crate) line_size: u32,
    pub(crate) associativity: u32,
}

/// A NUMA node of a [`RawMachine`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RawNuma {
    pub(crate) os_index: Option<usize>,
    pub(crate) memory: Option<u64>,
    /// Keep the node when no PU names it (a memory-only node of the source);
    /// otherwise a node without PUs is dropped (all its CPUs were left out).
    pub(crate) keep_without_pus: bool,
}

/// One PU of a [`RawMachine`]; every field is a key into the machine's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawPu {
    pub(crate) os_index: Option<usize>,
    pub(crate) numa: usize,
    pub(crate) package: usize,
    pub(crate) core: usize,
    /// Keys into `RawMachine::caches`, outermost first.
    pub(crate) caches: Vec<usize>,
}

/// A flat, unnormalised machine: what every source produces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RawMachine {
    pub(crate) name: String,
    pub(crate) is_virtual: bool,
    pub(crate) numa: Vec<RawNuma>,
    /// `os_index` of each package.
    pub(crate) packages: Vec<Option<usize>>,
    pub(crate) num_cores: usize,
    pub(crate) caches: Vec<CacheAttrs>,
    pub(crate) pus: Vec<RawPu>,
    /// Distances between the first `nodes` entries of `numa`.
    pub(crate) distances: Option<RawDistances>,
}

/// Which domain a PU belongs to, before numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum DomainKey {
    Cache(usize),
    Package(usize),
}

/// Gives each distinct key a dense number in order of first appearance.
struct Numbering<K> {
    map: HashMap<K, usize>,
}

impl<K: Hash + Eq> Numbering<K> {
    fn new() -> Self {
        Numbering {
            map: HashMap::new(),
        }
    }

    /// Returns `(number, is_new)`.
    fn number(&mut self, key: K) -> (usize, bool) {
        let next = self.map.len();
        match self.map.entry(key) {
            Entry::Occupied(e) => (*e.get(), false),
            Entry::Vacant(e) => {
                e.insert(next);
                (next, true)
            }
        }
    }
}

/// Turns a flat description into a [`Topology`] with the invariants of this
/// module. Keys in `raw.pus` that point outside `raw`'s tables are treated as
/// anonymous objects (no os index, no attributes) rather than panicking.
pub(crate) fn normalize(raw: RawMachine) -> Result<Topology, TopoError> {
    if raw.pus.is_empty() {
        return Err(Kind::NoPu { name: raw.name }.into());
    }
    if raw.pus.len() > MAX_PUS {
        return Err(TopoError::restrict(
            &raw.name,
            format_args!("{} PUs is more than the supported {MAX_PUS}", raw.pus.len()),
        ));
    }
    // The last-level cache of each PU: its highest-level data or unified
    // cache; the outermost one listed wins a tie.
    let domain_key = |pu: &RawPu| -> DomainKey {
        let mut best: Option<(u8, usize)> = None;
        for &c in &pu.caches {
            if let Some(attrs) = raw.caches.get(c) {
                if attrs.kind != CacheKind::Instruction && best.is_none_or(|(l, _)| attrs.level > l)
                {
                    best = Some((attrs.level, c));
                }
            }
        }
        match best {
            Some((_, c)) => DomainKey::Cache(c),
            None => DomainKey::Package(pu.package),
        }
    };
    let domains: Vec<DomainKey> = raw.pus.iter().map(domain_key).collect();

    // Rank packages, domains and cores by first appearance, then sort.
    let mut pkg_rank = Numbering::new();
    let mut dom_rank = Numbering::new();
    let mut core_rank = Numbering::new();
    let mut order: Vec<(usize, usize, usize, usize)> = Vec::with_capacity(raw.pus.len());
    for (i, (pu, dom)) in raw.pus.iter().zip(&domains).enumerate() {
        let p = pkg_rank.number(pu.package).0;
        let d = dom_rank.number(*dom).0;
        let c = core_rank.number(pu.core).0;
        order.push((p, d, c, i));
    }
    order.sort_unstable();

    // Number everything in the new order.
    let mut numa_n = Numbering::new();
    let mut pkg_n = Numbering::new();
    let mut core_n = Numbering::new();
    let mut cache_n = Numbering::new();
    let mut dom_n = Numbering::new();
    let mut dom_llc: Vec<Option<usize>> = Vec::new();
    let mut topo = Topology {
        name: raw.name.clone(),
        is_virtual: raw.is_virtual,
        pus: Vec::with_capacity(raw.pus.len()),
        cores: Vec::new(),
        packages: Vec::new(),
        numa_nodes: Vec::new(),
        caches: Vec::new(),
        cache_domains: Vec::new(),
        numa_distances: None,
        distance_source: DistanceSource::Tree,
    };
    for (new_index, &(_, _, _, old)) in order.iter().enumerate() {
        let (Some(pu), Some(dom)) = (raw.pus.get(old), domains.get(old)) else {
            continue; // unreachable: `old` came from enumerating `raw.pus`
        };
        let (numa, new_numa) = numa_n.number(pu.numa);
        if new_numa {
            let attrs = raw.numa.get(pu.numa).copied().unwrap_or_default();
            topo.numa_nodes.push(NumaNode {
                index: numa,
                os_index: attrs.os_index,
                memory: attrs.memory,
                pus: Vec::new(),
            });
        }
        let (package, new_pkg) = pkg_n.number(pu.package);
        if new_pkg {
            topo.packages.push(Package {
                index: package,
                os_index: raw.packages.get(pu.package).copied().flatten(),
                pus: Vec::new(),
            });
        }
        let (core, new_core) = core_n.number(pu.core);
        if new_core {
            topo.cores.push(Core {
                index: core,
                package,
                pus: Vec::new(),
            });
        }
        for &c in &pu.caches {
            let Some(attrs) = raw.caches.get(c) else {
                continue;
            };
            let (ci, new_cache) = cache_n.number(c);
            if new_cache {
                topo.caches.push(Cache {
                    level: attrs.level,
                    kind: attrs.kind,
                    size: attrs.size,
                    line_size: attrs.line_size,
                    associativity: attrs.associativity,
                    pus: Vec::new(),
                });
            }
            if let Some(cache) = topo.caches.get_mut(ci) {
                cache.pus.push(new_index);
            }
        }
        let (cache_domain, new_dom) = dom_n.number(*dom);
        if new_dom {
            dom_llc.push(match dom {
                DomainKey::Cache(c) => cache_n.map.get(c).copied(),
                DomainKey::Package(_) => None,
            });
            topo.cache_domains.push(CacheDomain {
                index: cache_domain,
                pus: Vec::new(),
                llc: None, // filled in below, once the cache's PU list is complete
                package,
            });
        }
        for list in [
            topo.numa_nodes.get_mut(numa).map(|n| &mut n.pus),
            topo.packages.get_mut(package).map(|n| &mut n.pus),
            topo.cores.get_mut(core).map(|n| &mut n.pus),
            topo.cache_domains.get_mut(cache_domain).map(|n| &mut n.pus),
        ]
        .into_iter()
        .flatten()
        {
            list.push(new_index);
        }
        topo.pus.push(Pu {
            index: new_index,
            os_index: pu.os_index,
            core,
            package,
            numa,
            cache_domain,
        });
    }
    for (d, llc) in topo.cache_domains.iter_mut().zip(dom_llc) {
        d.llc = llc.and_then(|ci| topo.caches.get(ci)).cloned();
    }
    // Memory-only nodes after the others, in the source's order.
    for (key, attrs) in raw.numa.iter().enumerate() {
        if attrs.keep_without_pus {
            let (index, new) = numa_n.number(key);
            if new {
                topo.numa_nodes.push(NumaNode {
                    index,
                    os_index: attrs.os_index,
                    memory: attrs.memory,
                    pus: Vec::new(),
                });
            }
        }
    }
    if let Some(d) = &raw.distances {
        let mut key_of = vec![usize::MAX; topo.numa_nodes.len()];
        for (&key, &index) in &numa_n.map {
            if let Some(k) = key_of.get_mut(index) {
                *k = key;
            }
        }
        topo.numa_distances = d.select(&key_of);
        if topo.numa_distances.is_some() {
            topo.distance_source = d.source;
        }
    }
    Ok(topo)
}
