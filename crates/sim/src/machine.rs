//! The simulated machine's memory system: private caches per core, a shared last-level
//! cache per cache domain, NUMA memory with first-touch (or interleaved) placement, and
//! the coherence that keeps them consistent.
//!
//! # The model
//! - Each core has its private data caches (L1d, and L2 where the topology has one),
//!   each set-associative LRU ([`crate::cache`]); the PUs of a core share them. Each
//!   cache domain has its last-level cache. Cache shapes come from the topology;
//!   a cache with no size there is left out, and one with no line size uses 64 bytes.
//! - Organisation: a private level holds a subset of the level below it (an eviction
//!   below removes the line above). The last-level cache is one of two kinds, by
//!   [`Latencies::l3_victim`] (each preset's kind and its source are in
//!   [`crate::latency`]):
//!   - **inclusive** (Intel's up to Haswell): a superset of its domain's private
//!     caches. A miss fills it; its eviction removes the line from every private
//!     cache of the domain (back-invalidation).
//!   - **victim** (AMD's, Skylake Server's): "mostly exclusive". A miss does not fill
//!     it; a line enters when a core's last private level evicts it (after the access
//!     that caused the eviction has looked in it). A hit moves the line up to the
//!     core and out of the cache, unless the line looks shared (another core of the
//!     domain holds it, or another core's eviction put it there), when the cache
//!     keeps a copy, as AMD describes its L3 keeping lines "likely accessed by
//!     multiple cores". A line only another core of the domain holds comes from that
//!     core on chip, at the last-level latency, counted as a last-level miss (and in
//!     [`CoreCounts::peer_cache`]), and the cache keeps a copy. That is how the
//!     Opteron's own counter counts it: Family 10h's "L3 Cache Misses" event (4E1h,
//!     BKDG for AMD Family 10h Processors, pub. 31116, rev. 3.20) counts each core's
//!     read requests (read block, shared, modify) that miss the L3, which keeps no
//!     record of its cores' lines; the northbridge then probes, and the sibling's L2
//!     answers the probe (event ECh, "probe hit"), after the miss is counted. Its evictions remove nothing from the cores (no
//!     back-invalidation); the domain holds a line while its cache or one of its
//!     cores does, and writes a modified line back when neither does. So the domain
//!     holds its L2s plus its L3 (8 MiB on the Opteron 8380, not 6).
//! - Prefetch: each core has a stream prefetcher ([`Latencies::prefetch_degree`],
//!   [`Latencies::prefetch_distance`]; degree 0 switches it off) that watches the
//!   accesses missing its L1. A page's second access to a neighbouring line trains a
//!   stream ([`STREAMS`] pages a core, the least recently trained replaced), and every
//!   later access of the stream in its direction requests the lines `distance -
//!   degree + 1` to `distance` ahead that the core does not hold, never past the 4 KiB
//!   page (AMD's prefetcher: "line l, then l + 1: prefetch l + 3"; Intel's L2 streamer:
//!   two lines an access, up to 20 ahead). A prefetched line is fetched as a read miss
//!   is (last-level cache, another domain, DRAM: counted there, and in
//!   [`CoreCounts::prefetches`], not as an access) into the core's last private level;
//!   [`Machine::prefetched`] lists them for [`crate::clock`], which times them and
//!   makes an access wait for a line still on its way. Not modelled: strides other
//!   than one line, prefetches into the L1 (the next access to the line misses the
//!   L1 and hits the L2), and AMD's DRAM prefetcher in the memory controller.
//! - Coherence by a directory per line: which cores' private caches and which domains'
//!   last-level caches hold it, and which domain holds it modified. A write removes
//!   every other copy; a read of a line modified elsewhere cleans it. A line a domain
//!   misses is fetched from another domain's cache when one holds it (`near_cache`
//!   within the package, `remote_cache` across packages), else from DRAM.
//! - Memory: 4 KiB pages, placed on the NUMA node of the first core that touches them
//!   (first touch, Linux's default policy), or, with [`Placement::Interleave`], page
//!   `p` on node `p mod nodes` (`numactl --interleave=all`). A DRAM access is local or
//!   remote by the page's node. Every line that crosses a package boundary (a DRAM
//!   access to another package's node, or a fetch from another package's cache) adds
//!   its size to the interconnect bytes; a line from another node of the core's own
//!   package (several nodes per socket, EPYC's NPS4) is a remote DRAM access that stays
//!   in the package, at the `near_dram` latency.
//! - Time: an access costs the latency of the level that serves it
//!   ([`crate::latency::Latencies`]); a write that must remove copies elsewhere pays
//!   one more round to the farthest of them. Each access also says which shared
//!   servers its line crossed ([`Route`]: a node's memory controllers, a link between
//!   packages) and which dirty line it pushed out to DRAM; [`crate::clock`] turns that
//!   into time, with overlapping misses and shared bandwidth.
//!
//! Addresses are those of a [`locus_task::workload::Workload`]: compact, so the directory
//! and the page table are dense vectors indexed by line and page.

use crate::cache::{Cache, Geometry, GeometryError, Lookup};
use crate::latency::{Latencies, MAX_PREFETCH};
use locus_task::workload::PAGE_SIZE;
use locus_topo::{CacheKind, Topology};

/// No NUMA node yet: the page has not been touched.
const UNTOUCHED: u16 = u16::MAX;
/// No domain holds the line modified.
const CLEAN: u16 = u16::MAX;
/// Lines per directory bitmask word.
const WORD: usize = 64;

/// Where a page's memory is placed when it is first touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// On the NUMA node of the core that touches it first (Linux's default).
    #[default]
    FirstTouch,
    /// Page `p` on node `p mod nodes`, every node in turn (`numactl --interleave=all`):
    /// a program's pages spread evenly over the nodes whoever touches them.
    Interleave,
}

impl Placement {
    /// The name `--memory` takes.
    pub fn name(self) -> &'static str {
        match self {
            Placement::FirstTouch => "first-touch",
            Placement::Interleave => "interleave",
        }
    }

    /// The placement named `name` (`first-touch` or `interleave`).
    pub fn parse(name: &str) -> Option<Placement> {
        match name.trim().to_ascii_lowercase().as_str() {
            "first-touch" => Some(Placement::FirstTouch),
            "interleave" => Some(Placement::Interleave),
            _ => None,
        }
    }
}

/// What went wrong building the model of a machine.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    /// A cache of the topology has a shape the cache model cannot take.
    #[error("machine '{machine}': its {label} cannot be simulated: {source}")]
    Cache {
        /// The topology's name.
        machine: String,
        /// Which cache (`L2`, `L3`...).
        label: String,
        /// Why.
        source: GeometryError,
    },
    /// Caches of different line sizes.
    #[error(
        "machine '{machine}': caches with {a} B and {b} B lines; the simulator needs one line size"
    )]
    LineSizes {
        /// The topology's name.
        machine: String,
        /// One size.
        a: u32,
        /// Another.
        b: u32,
    },
    /// More than 64 cache domains or 65,534 NUMA nodes.
    #[error("machine '{machine}': {what}")]
    TooLarge {
        /// The topology's name.
        machine: String,
        /// What.
        what: String,
    },
}

/// Counters of one core's accesses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CoreCounts {
    /// Line accesses.
    pub accesses: u64,
    /// Hits at L1, L2, L3 (indices 0..3: level - 1; levels above 3 count as 3).
    pub hits: [u64; 3],
    /// Misses at L1, L2, L3, as `hits`.
    pub misses: [u64; 3],
    /// Lines served by another cache domain of the same package.
    pub near_cache: u64,
    /// Lines served by a cache of another package.
    pub remote_cache: u64,
    /// Lines another core of the same cache domain supplied from its private caches
    /// after the victim last-level cache missed them (each also counted in
    /// `misses[2]`, as AMD's L3 miss event counts them; see the module's model).
    pub peer_cache: u64,
    /// Lines served by the DRAM of the core's own NUMA node.
    pub dram_local: u64,
    /// Lines served by another node's DRAM.
    pub dram_remote: u64,
    /// Copies removed from other caches by this core's writes.
    pub invalidations: u64,
    /// Bytes this core's accesses moved across package boundaries.
    pub interconnect_bytes: u64,
    /// Lines the core's stream prefetcher brought into its private caches (each
    /// also counted where it was served from: L3 hit or miss, another cache, DRAM).
    pub prefetches: u64,
}

impl CoreCounts {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &CoreCounts) {
        self.accesses += other.accesses;
        for l in 0..3 {
            self.hits[l] += other.hits[l];
            self.misses[l] += other.misses[l];
        }
        self.near_cache += other.near_cache;
        self.remote_cache += other.remote_cache;
        self.peer_cache += other.peer_cache;
        self.dram_local += other.dram_local;
        self.dram_remote += other.dram_remote;
        self.invalidations += other.invalidations;
        self.interconnect_bytes += other.interconnect_bytes;
        self.prefetches += other.prefetches;
    }
}

/// No write-back: see [`Served::writeback`].
pub const NO_WRITEBACK: u16 = u16::MAX;

/// Where a line that missed the core's private caches came from, for the bandwidth
/// servers of [`crate::clock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// From inside the package (its own last-level cache, another cache domain of the
    /// package), or a private hit: no shared server on the way.
    OnChip,
    /// From the DRAM of NUMA node `node`.
    Dram {
        /// The page's node.
        node: u16,
    },
    /// From a cache of another package, over the link from `package`.
    Cache {
        /// The supplying package.
        package: u16,
    },
}

/// The cost, the private last-level outcome and the route of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// Cycles: the latency of the level that served the line, plus one round to the
    /// farthest copy a write removes.
    pub cycles: u64,
    /// Whether the access missed the core's last private cache (what the `perf`
    /// counter source counts as a private last-level miss).
    pub private_miss: bool,
    /// Where the line came from.
    pub route: Route,
    /// The NUMA node of a modified line that the access pushed out of the last-level
    /// cache (written back to that node's DRAM), or [`NO_WRITEBACK`].
    pub writeback: u16,
}

/// A line the stream prefetcher requested during the last [`Machine::access`]: the
/// line, and how it was served (its `private_miss` is always true), for
/// [`crate::clock`] to time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefetched {
    /// The line number.
    pub line: u64,
    /// Where it came from and what it cost.
    pub served: Served,
}

/// Streams the prefetcher of one core follows at once, the least recently trained
/// one replaced by a new page's (Intel's L2 streamer keeps 32, a forward and a
/// backward one per page; a kernel's leaf sweeps a handful of rows at a time, so 16
/// pages is plenty: guess).
pub const STREAMS: usize = 16;

/// One stream of the prefetcher: the page it follows, the last line it saw there,
/// and its direction once two neighbouring lines trained it.
#[derive(Debug, Clone, Copy)]
struct Stream {
    /// The page, or `u64::MAX` for an empty entry.
    page: u64,
    /// The last line accessed in the page.
    last: u64,
    /// +1 ascending, -1 descending, 0 not yet trained.
    dir: i8,
    /// When the stream was last trained, for replacement.
    used: u64,
}

const NO_STREAM: Stream = Stream {
    page: u64::MAX,
    last: 0,
    dir: 0,
    used: 0,
};

/// One private or shared cache with its level's latency.
#[derive(Debug, Clone)]
struct Level {
    cache: Cache,
    level: u8,
    latency: u64,
}

/// The memory system of a simulated machine.
#[derive(Debug, Clone)]
pub struct Machine {
    name: String,
    line_shift: u32,
    /// Private levels per core, nearest first.
    private: Vec<Vec<Level>>,
    /// The last-level cache per cache domain.
    shared: Vec<Option<Level>>,
    domain_of_core: Vec<usize>,
    package_of_core: Vec<usize>,
    node_of_core: Vec<u16>,
    package_of_domain: Vec<usize>,
    /// The cores of each domain as a mask over the directory's bitmask words, `words`
    /// words a domain.
    core_masks: Vec<u64>,
    lat: Latencies,
    line_bytes: u64,
    /// Bitmask words per line of the cores holding the line privately.
    words: usize,
    /// The directory, `words + 2` words per line, contiguous so that one lookup touches
    /// one host cache line: the bitmask words of the cores holding the line privately,
    /// the bitmask of the domains whose last-level cache holds it, and the domain
    /// holding it modified, or [`CLEAN`].
    directory: Vec<u64>,
    /// NUMA node of each page, or [`UNTOUCHED`].
    page_node: Vec<u16>,
    /// Where untouched pages go.
    placement: Placement,
    /// Package of each NUMA node (0 for a node without cores).
    package_of_node: Vec<u16>,
    /// The route of the access being made.
    route: Route,
    /// The write-back of the access being made, or [`NO_WRITEBACK`].
    writeback: u16,
    counts: Vec<CoreCounts>,
    /// Whether the last-level caches are victim caches of the private ones.
    victim: bool,
    /// Lines the access being made pushed out of a core's last private level, for
    /// the victim last-level cache to take once the access is served.
    spill: Vec<u64>,
    /// Lines the prefetcher requests per trigger (0: no prefetcher).
    degree: u32,
    /// How far ahead of the access it runs, in lines.
    distance: u32,
    /// log2 of the lines in a page (streams stop at page ends).
    page_lines_shift: u32,
    /// [`STREAMS`] streams per core.
    streams: Vec<Stream>,
    /// Trainings so far, the streams' recency clock.
    trained: u64,
    /// What the prefetcher requested during the last access.
    prefetched: Vec<Prefetched>,
}

impl Machine {
    /// The memory system of `topology` with `lat`'s latencies, for a workload whose
    /// compact addresses span `pages` pages.
    ///
    /// # Errors
    /// If a cache's shape cannot be simulated, line sizes differ, or the machine has
    /// more than 64 cache domains.
    pub fn new(topology: &Topology, lat: Latencies, pages: u64) -> Result<Machine, MachineError> {
        let name = topology.name().to_string();
        let domains_n = topology.cache_domains().len();
        if domains_n > 64 {
            return Err(MachineError::TooLarge {
                machine: name,
                what: format!("{domains_n} cache domains; the simulator takes at most 64"),
            });
        }
        if topology.num_numa_nodes() >= usize::from(UNTOUCHED) {
            return Err(MachineError::TooLarge {
                machine: name,
                what: format!("{} NUMA nodes", topology.num_numa_nodes()),
            });
        }
        let mut line = None::<u32>;
        let mut check_line = |size: u32| -> Result<(), MachineError> {
            let size = if size == 0 { 64 } else { size };
            match line {
                Some(l) if l != size => Err(MachineError::LineSizes {
                    machine: topology.name().to_string(),
                    a: l,
                    b: size,
                }),
                _ => {
                    line = Some(size);
                    Ok(())
                }
            }
        };
        let level_of = |c: &locus_topo::Cache| -> Result<Level, MachineError> {
            let geometry = Geometry {
                size: c.size,
                line_size: if c.line_size == 0 { 64 } else { c.line_size },
                ways: c.associativity,
            };
            let cache = Cache::new(geometry).map_err(|source| MachineError::Cache {
                machine: topology.name().to_string(),
                label: c.label(),
                source,
            })?;
            Ok(Level {
                cache,
                level: c.level,
                latency: u64::from(hit_latency(&lat, c.level)),
            })
        };

        let cores = topology.cores();
        let pus = topology.pus();
        let mut private = Vec::with_capacity(cores.len());
        let mut domain_of_core = Vec::with_capacity(cores.len());
        let mut node_of_core = Vec::with_capacity(cores.len());
        let mut package_of_core = Vec::with_capacity(cores.len());
        for core in cores {
            let first = &pus[core.pus[0]];
            let domain = &topology.cache_domains()[first.cache_domain];
            let llc_level = domain.llc.as_ref().map_or(u8::MAX, |c| c.level);
            let mut levels: Vec<&locus_topo::Cache> = topology
                .caches()
                .iter()
                .filter(|c| {
                    c.kind != CacheKind::Instruction
                        && c.size > 0
                        && c.level < llc_level
                        && c.pus.iter().all(|p| core.pus.contains(p))
                        && c.pus.contains(&core.pus[0])
                })
                .collect();
            levels.sort_by_key(|c| c.level);
            let mut mine = Vec::with_capacity(levels.len());
            for c in levels {
                check_line(c.line_size)?;
                mine.push(level_of(c)?);
            }
            private.push(mine);
            domain_of_core.push(first.cache_domain);
            node_of_core.push(first.numa as u16);
            package_of_core.push(first.package);
        }
        let mut shared = Vec::with_capacity(domains_n);
        let mut package_of_domain = Vec::with_capacity(domains_n);
        for domain in topology.cache_domains() {
            shared.push(match &domain.llc {
                Some(c) if c.size > 0 => {
                    check_line(c.line_size)?;
                    Some(level_of(c)?)
                }
                _ => None,
            });
            package_of_domain.push(domain.package);
        }
        let mut package_of_node = vec![0u16; topology.num_numa_nodes()];
        for (core, &node) in node_of_core.iter().enumerate() {
            if let Some(p) = package_of_node.get_mut(usize::from(node)) {
                *p = package_of_core[core] as u16;
            }
        }
        let private_all = private.iter().all(|p: &Vec<Level>| !p.is_empty());
        let line_bytes = u64::from(line.unwrap_or(64));
        let lines = pages * (PAGE_SIZE / line_bytes.min(PAGE_SIZE)).max(1);
        let words = cores.len().div_ceil(WORD);
        let mut core_masks = vec![0; domains_n * words];
        for (core, &d) in domain_of_core.iter().enumerate() {
            core_masks[d * words + core / WORD] |= 1u64 << (core % WORD);
        }
        let mut directory = vec![0; lines as usize * (words + 2)];
        for entry in directory.chunks_exact_mut(words + 2) {
            entry[words + 1] = u64::from(CLEAN);
        }
        Ok(Machine {
            name,
            line_shift: line_bytes.trailing_zeros(),
            private,
            shared,
            domain_of_core,
            package_of_core,
            node_of_core,
            package_of_domain,
            core_masks,
            lat,
            line_bytes,
            words,
            directory,
            page_node: vec![UNTOUCHED; pages as usize],
            placement: Placement::default(),
            package_of_node,
            route: Route::OnChip,
            writeback: NO_WRITEBACK,
            counts: vec![CoreCounts::default(); cores.len()],
            // A victim cache needs private caches to take victims from.
            victim: lat.l3_victim && private_all,
            spill: Vec::with_capacity(4),
            degree: lat.prefetch_degree,
            distance: lat.prefetch_distance,
            page_lines_shift: (PAGE_SIZE / line_bytes.min(PAGE_SIZE))
                .max(1)
                .trailing_zeros(),
            streams: vec![NO_STREAM; cores.len() * STREAMS],
            trained: 0,
            prefetched: Vec::with_capacity(MAX_PREFETCH as usize),
        })
    }

    /// Whether the last-level caches are victim caches ([`Latencies::l3_victim`] on a
    /// machine whose cores have private caches).
    pub fn victim_l3(&self) -> bool {
        self.victim
    }

    /// The lines the stream prefetcher requested during the last [`Machine::access`],
    /// in the order requested.
    pub fn prefetched(&self) -> &[Prefetched] {
        &self.prefetched
    }

    /// The machine's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes per cache line.
    pub fn line_bytes(&self) -> u64 {
        self.line_bytes
    }

    /// Counters per core.
    pub fn counts(&self) -> &[CoreCounts] {
        &self.counts
    }

    /// The cache domain of `core`.
    pub fn domain_of(&self, core: usize) -> usize {
        self.domain_of_core[core]
    }

    /// The package of `core`.
    pub fn package_of(&self, core: usize) -> usize {
        self.package_of_core[core]
    }

    /// The package of each NUMA node.
    pub fn package_of_node(&self) -> &[u16] {
        &self.package_of_node
    }

    /// Places the pages touched from now on by `placement` (first touch until set).
    pub fn set_placement(&mut self, placement: Placement) {
        self.placement = placement;
    }

    /// The NUMA node a page was placed on, if it has been touched.
    pub fn node_of_page(&self, page: u64) -> Option<usize> {
        match self.page_node.get(page as usize) {
            Some(&n) if n != UNTOUCHED => Some(usize::from(n)),
            _ => None,
        }
    }

    /// One access by `core` to line number `line`.
    pub fn access(&mut self, core: usize, line: u64, write: bool) -> Served {
        let l = line as usize;
        let mut cycles = 0;
        // The counters leave `self` for the walk (a move of the vector, not a copy of
        // the core's counters), so that the walk's methods can borrow both.
        let mut all = std::mem::take(&mut self.counts);
        let counts = &mut all[core];
        self.route = Route::OnChip;
        self.writeback = NO_WRITEBACK;
        counts.accesses += 1;
        let private_levels = self.private[core].len();
        let mut hit_at = None;
        if private_levels > 0 && !self.holds(core, l) {
            // The directory says that no private level holds the line (the last one
            // holds it exactly when the core does, and each level holds a subset of
            // the next): every level misses, and none needs searching.
            for i in 0..private_levels {
                let level = &mut self.private[core][i];
                counts.misses[level_index(level.level)] += 1;
                if let Some(victim) = level.cache.fill_absent(line) {
                    self.evict_private(core, i, victim);
                }
            }
        } else {
            for i in 0..private_levels {
                let level = &mut self.private[core][i];
                let idx = level_index(level.level);
                match level.cache.access(line) {
                    Lookup::Hit => {
                        counts.hits[idx] += 1;
                        cycles = level.latency;
                        hit_at = Some(i);
                        break;
                    }
                    Lookup::Miss { evicted } => {
                        counts.misses[idx] += 1;
                        if let Some(victim) = evicted {
                            self.evict_private(core, i, victim);
                        }
                    }
                }
            }
        }
        let private_miss = hit_at.is_none();
        if private_miss {
            self.set_holder(core, l);
            cycles = self.fetch_for_domain(core, line, counts);
        }
        if write {
            cycles += self.write_ownership(core, l, counts);
        }
        if !self.spill.is_empty() {
            self.spill_victims(core);
        }
        let served = Served {
            cycles,
            private_miss,
            route: self.route,
            writeback: self.writeback,
        };
        self.prefetched.clear();
        if self.degree > 0 && hit_at != Some(0) && private_levels > 0 {
            self.train(core, line, counts);
        }
        self.counts = all;
        served
    }

    /// The lines the access pushed out of `core`'s last private level go into its
    /// domain's victim cache, now that the access has looked there; what that pushes
    /// out leaves the domain unless one of its cores holds it.
    #[cold]
    fn spill_victims(&mut self, core: usize) {
        let domain = self.domain_of_core[core];
        while let Some(v) = self.spill.pop() {
            // A line the access itself invalidated everywhere (a write by another
            // domain cannot happen within one access) is still the domain's: spill it.
            let Some(level) = self.shared[domain].as_mut() else {
                continue;
            };
            if let Some(out) = level.cache.fill(v) {
                self.leave_victim_cache(domain, out);
            }
            self.set_spiller(v as usize, core);
        }
    }

    /// The stream prefetcher of `core` sees an access to `line` that missed the L1:
    /// a second access to a neighbouring line of a page trains its stream, and each
    /// access of a trained stream requests the lines `distance - degree + 1` to
    /// `distance` ahead of it in the stream's direction, within the page, that the
    /// core does not hold (AMD's "line l, then l + 1: prefetch l + 3" at degree 1 and
    /// distance 2). Prefetched lines go into the core's last private level, served
    /// as a read miss would be; [`Machine::prefetched`] lists them.
    fn train(&mut self, core: usize, line: u64, counts: &mut CoreCounts) {
        let page = line >> self.page_lines_shift;
        self.trained += 1;
        let streams = &mut self.streams[core * STREAMS..(core + 1) * STREAMS];
        let at = match streams.iter().position(|s| s.page == page) {
            Some(at) => at,
            None => {
                let lru = (0..STREAMS).min_by_key(|&i| streams[i].used).unwrap_or(0);
                streams[lru] = Stream {
                    page,
                    last: line,
                    dir: 0,
                    used: self.trained,
                };
                return;
            }
        };
        let stream = &mut streams[at];
        stream.used = self.trained;
        let step = line as i64 - stream.last as i64;
        stream.last = line;
        let dir = match step {
            1 => 1i8,
            -1 => -1,
            0 => return,
            _ => {
                stream.dir = 0;
                return;
            }
        };
        if stream.dir != 0 && stream.dir != dir {
            stream.dir = 0;
            return;
        }
        stream.dir = dir;
        let (route, writeback) = (self.route, self.writeback);
        let first = u64::from(self.distance - self.degree + 1);
        for k in first..=u64::from(self.distance) {
            let target = if dir > 0 {
                line.checked_add(k)
            } else {
                line.checked_sub(k)
            };
            let Some(target) = target else { break };
            if target >> self.page_lines_shift != page {
                break;
            }
            let t = target as usize;
            if t * (self.words + 2) >= self.directory.len() || self.holds(core, t) {
                continue;
            }
            self.route = Route::OnChip;
            self.writeback = NO_WRITEBACK;
            let last = self.private[core].len() - 1;
            if let Some(victim) = self.private[core][last].cache.fill_absent(target) {
                self.evict_private(core, last, victim);
            }
            self.set_holder(core, t);
            let cycles = self.fetch_for_domain(core, target, counts);
            if !self.spill.is_empty() {
                self.spill_victims(core);
            }
            counts.prefetches += 1;
            self.prefetched.push(Prefetched {
                line: target,
                served: Served {
                    cycles,
                    private_miss: true,
                    route: self.route,
                    writeback: self.writeback,
                },
            });
        }
        (self.route, self.writeback) = (route, writeback);
    }

    /// `core` missed its private caches on `line`: the domain's last-level cache, else
    /// another domain's cache, else DRAM. Returns the cycles.
    fn fetch_for_domain(&mut self, core: usize, line: u64, counts: &mut CoreCounts) -> u64 {
        let l = line as usize;
        let domain = self.domain_of_core[core];
        let bit = 1u64 << domain;
        let held = self.domains(l) & bit != 0;
        if self.victim {
            if let Some(cycles) = self.fetch_from_victim_cache(core, l, counts) {
                return cycles;
            }
        } else if let Some(level) = self.shared[domain].as_mut() {
            let idx = level_index(level.level);
            let latency = level.latency;
            if !held {
                // The directory says the cache lacks the line: no need to search it.
                counts.misses[idx] += 1;
                if let Some(victim) = level.cache.fill_absent(line) {
                    self.evict_shared(domain, victim);
                }
            } else {
                match level.cache.access(line) {
                    Lookup::Hit => {
                        counts.hits[idx] += 1;
                        return latency;
                    }
                    Lookup::Miss { evicted } => {
                        counts.misses[idx] += 1;
                        if let Some(victim) = evicted {
                            self.evict_shared(domain, victim);
                        }
                    }
                }
            }
        } else if held {
            // No shared cache: the domain "holds" the line while a core of it does.
            return self.lat.l1_hit.into();
        }
        let others = self.domains(l) & !bit;
        *self.domains_mut(l) |= bit;
        let package = self.package_of_core[core];
        if others != 0 {
            // Another domain's cache supplies the line; a modified copy is cleaned.
            let dirty = self.dirty(l);
            if dirty != CLEAN && dirty as usize != domain {
                self.set_dirty(l, CLEAN);
            }
            let same_package = bits(others).any(|d| self.package_of_domain[d] == package);
            if same_package {
                counts.near_cache += 1;
                u64::from(self.lat.near_cache)
            } else {
                let from = bits(others).next().map_or(0, |d| self.package_of_domain[d]);
                self.route = Route::Cache {
                    package: from as u16,
                };
                counts.remote_cache += 1;
                counts.interconnect_bytes += self.line_bytes;
                u64::from(self.lat.remote_cache)
            }
        } else {
            let page = (line << self.line_shift) / PAGE_SIZE;
            let here = self.node_of_core[core];
            let node = &mut self.page_node[page as usize];
            if *node == UNTOUCHED {
                *node = match self.placement {
                    Placement::FirstTouch => here,
                    // Fewer nodes than `UNTOUCHED` (checked in `new`), so this fits.
                    Placement::Interleave => {
                        (page % self.package_of_node.len().max(1) as u64) as u16
                    }
                };
            }
            self.route = Route::Dram { node: *node };
            if *node == here {
                counts.dram_local += 1;
                u64::from(self.lat.local_dram)
            } else {
                counts.dram_remote += 1;
                if usize::from(self.package_of_node[usize::from(*node)])
                    != self.package_of_core[core]
                {
                    counts.interconnect_bytes += self.line_bytes;
                    u64::from(self.lat.remote_dram)
                } else {
                    u64::from(self.lat.near_dram)
                }
            }
        }
    }

    /// The victim organisation's look in `core`'s domain for line `l`, which the core
    /// missed. A hit moves the line up to the core and out of the last-level cache,
    /// unless the line looks shared (another core of the domain holds it, or another
    /// core's eviction put it there), when the cache keeps a copy ("mostly
    /// exclusive"). A line another core of the domain holds comes from that core, on
    /// chip, at the last-level latency (a last-level miss, as the cache itself
    /// missed), and the cache keeps a copy of it, now shared. Else `None`, and nothing
    /// is filled: the cache takes lines only from its cores' evictions.
    fn fetch_from_victim_cache(
        &mut self,
        core: usize,
        l: usize,
        counts: &mut CoreCounts,
    ) -> Option<u64> {
        let domain = self.domain_of_core[core];
        let held = self.domains(l) & (1u64 << domain) != 0;
        let level = self.shared[domain].as_mut()?;
        let idx = level_index(level.level);
        let latency = level.latency;
        if !held {
            counts.misses[idx] += 1;
            return None;
        }
        let peers = (0..self.words).any(|w| {
            let mut held =
                self.directory[self.entry(l) + w] & self.core_masks[domain * self.words + w];
            if w == core / WORD {
                held &= !(1u64 << (core % WORD));
            }
            held != 0
        });
        let shared = peers || self.spiller(l) != core as u64 + 1;
        let level = self.shared[domain].as_mut()?;
        if level.cache.contains(l as u64) {
            counts.hits[idx] += 1;
            if shared {
                level.cache.access(l as u64);
            } else {
                level.cache.invalidate(l as u64);
            }
            return Some(latency);
        }
        counts.misses[idx] += 1;
        if !peers {
            return None;
        }
        // From a peer; the cache keeps a copy of a line that cores share.
        counts.peer_cache += 1;
        if let Some(out) = level.cache.fill_absent(l as u64) {
            self.leave_victim_cache(domain, out);
        }
        Some(latency)
    }

    /// Line `out` left `domain`'s victim cache: the domain loses it unless one of its
    /// cores holds it; a modified line no core holds is written back.
    fn leave_victim_cache(&mut self, domain: usize, out: u64) {
        let v = out as usize;
        let entry = self.entry(v);
        let held = (0..self.words)
            .any(|w| self.directory[entry + w] & self.core_masks[domain * self.words + w] != 0);
        if !held {
            *self.domains_mut(v) &= !(1u64 << domain);
            self.write_back_if_dirty(domain, out);
        }
    }

    /// `core` writes `line`, which it now holds: every other copy goes. Returns the
    /// extra cycles of removing copies (one round to the farthest holder).
    fn write_ownership(&mut self, core: usize, l: usize, counts: &mut CoreCounts) -> u64 {
        let domain = self.domain_of_core[core];
        let package = self.package_of_core[core];
        let mut extra = 0;
        let others = self.domains(l) & !(1u64 << domain);
        for d in bits(others) {
            if let Some(level) = self.shared[d].as_mut() {
                level.cache.invalidate(l as u64);
            }
            self.drop_private_in(d, l, None);
            counts.invalidations += 1;
            extra = extra.max(if self.package_of_domain[d] == package {
                u64::from(self.lat.near_cache)
            } else {
                u64::from(self.lat.remote_cache)
            });
        }
        *self.domains_mut(l) &= 1u64 << domain;
        if self.victim && self.dirty(l) as usize != domain {
            // The first write since the domain took the line: a copy its victim
            // cache kept (another core's eviction) is stale now.
            if let Some(level) = self.shared[domain].as_mut() {
                level.cache.invalidate(l as u64);
            }
        }
        let dropped = self.drop_private_in(domain, l, Some(core));
        if dropped > 0 {
            counts.invalidations += dropped;
            extra = extra.max(u64::from(self.lat.l3_hit));
        }
        self.set_dirty(l, domain as u16);
        extra
    }

    /// Private level `i` of `core` evicted `victim`: the levels above lose it too
    /// (inclusion), and if it was the last private level the core no longer holds it.
    ///
    /// Inlined: most evictions are an L1's, where there is nothing to do.
    #[inline(always)]
    fn evict_private(&mut self, core: usize, i: usize, victim: u64) {
        if i > 0 {
            for above in &mut self.private[core][..i] {
                above.cache.invalidate(victim);
            }
        }
        if i + 1 == self.private[core].len() {
            self.clear_holder(core, victim as usize);
            if self.victim {
                self.spill.push(victim);
            }
        }
    }

    /// The last-level cache of `domain` evicted `victim`: its cores lose it too.
    fn evict_shared(&mut self, domain: usize, victim: u64) {
        let v = victim as usize;
        self.drop_private_in(domain, v, None);
        *self.domains_mut(v) &= !(1u64 << domain);
        self.write_back_if_dirty(domain, victim);
    }

    /// `domain` no longer holds `line`: if it held it modified, the line is written
    /// back to its page's node ([`Served::writeback`]).
    fn write_back_if_dirty(&mut self, domain: usize, line: u64) {
        let v = line as usize;
        if self.dirty(v) as usize == domain {
            self.set_dirty(v, CLEAN); // written back
            let page = (line << self.line_shift) / PAGE_SIZE;
            if let Some(&node) = self.page_node.get(page as usize) {
                if node != UNTOUCHED {
                    self.writeback = node;
                }
            }
        }
    }

    /// Removes line `l` from the private caches of every core of `domain` that holds
    /// it, `except` one; returns how many cores lost it. The directory's holders
    /// masked by the domain's cores: no look at a core that does not hold the line.
    ///
    /// Inlined, with the drops out of line: mostly no other core holds the line.
    #[inline(always)]
    fn drop_private_in(&mut self, domain: usize, l: usize, except: Option<usize>) -> u64 {
        let (except_word, except_bit) = except.map_or((usize::MAX, 0), |c| (c / WORD, c % WORD));
        let mut dropped = 0;
        for w in 0..self.words {
            let mut held =
                self.directory[self.entry(l) + w] & self.core_masks[domain * self.words + w];
            if w == except_word {
                held &= !(1u64 << except_bit);
            }
            if held != 0 {
                dropped += self.drop_holders(w, held, l);
            }
        }
        dropped
    }

    /// Removes line `l` from the private caches of the cores in `held`, a mask over
    /// the directory's bitmask word `w`; returns how many.
    #[inline(never)]
    fn drop_holders(&mut self, w: usize, held: u64, l: usize) -> u64 {
        for bit in bits(held) {
            self.drop_private(w * WORD + bit, l);
        }
        u64::from(held.count_ones())
    }

    /// Removes line `l` from every private cache of `core`.
    fn drop_private(&mut self, core: usize, l: usize) {
        for level in &mut self.private[core] {
            level.cache.invalidate(l as u64);
        }
        self.clear_holder(core, l);
    }

    /// Where line `l`'s directory entry starts.
    #[inline]
    fn entry(&self, l: usize) -> usize {
        l * (self.words + 2)
    }

    /// The domains whose last-level cache holds line `l`.
    #[inline]
    fn domains(&self, l: usize) -> u64 {
        self.directory[self.entry(l) + self.words]
    }

    #[inline]
    fn domains_mut(&mut self, l: usize) -> &mut u64 {
        let at = self.entry(l) + self.words;
        &mut self.directory[at]
    }

    /// The domain holding line `l` modified, or [`CLEAN`].
    #[inline]
    fn dirty(&self, l: usize) -> u16 {
        self.directory[self.entry(l) + self.words + 1] as u16
    }

    #[inline]
    fn set_dirty(&mut self, l: usize, domain: u16) {
        let at = self.entry(l) + self.words + 1;
        self.directory[at] = (self.directory[at] & !0xFFFF) | u64::from(domain);
    }

    /// The core whose eviction last put line `l` into a victim cache, plus one (0:
    /// none), kept in bits 16 to 31 of the dirty word.
    #[inline]
    fn spiller(&self, l: usize) -> u64 {
        self.directory[self.entry(l) + self.words + 1] >> 16 & 0xFFFF
    }

    #[inline]
    fn set_spiller(&mut self, l: usize, core: usize) {
        let at = self.entry(l) + self.words + 1;
        self.directory[at] =
            (self.directory[at] & !0xFFFF_0000) | ((core as u64 + 1) & 0xFFFF) << 16;
    }

    fn holds(&self, core: usize, l: usize) -> bool {
        self.directory[self.entry(l) + core / WORD] & (1u64 << (core % WORD)) != 0
    }

    fn set_holder(&mut self, core: usize, l: usize) {
        if !self.private[core].is_empty() {
            let at = self.entry(l) + core / WORD;
            self.directory[at] |= 1u64 << (core % WORD);
        }
    }

    fn clear_holder(&mut self, core: usize, l: usize) {
        let at = self.entry(l) + core / WORD;
        self.directory[at] &= !(1u64 << (core % WORD));
    }
}

/// The positions of the set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let bit = mask.trailing_zeros();
        mask &= mask.wrapping_sub(1);
        (bit < 64).then_some(bit as usize)
    })
}

/// The hit latency of a cache of `level` (levels past 3 take L3's).
fn hit_latency(lat: &Latencies, level: u8) -> u32 {
    match level {
        0 | 1 => lat.l1_hit,
        2 => lat.l2_hit,
        _ => lat.l3_hit,
    }
}

/// Index of a cache level in [`CoreCounts`]' arrays.
fn level_index(level: u8) -> usize {
    usize::from(level.clamp(1, 3)) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat() -> Latencies {
        Latencies::generic()
    }

    /// Two packages, each one cache domain of two cores: L1d 4 lines direct-mapped,
    /// L2 8 lines 2-way, shared L3 16 lines 4-way (4 sets each), one NUMA node each.
    fn tiny() -> Topology {
        Topology::from_synthetic(
            "pack:2 numa:1 l3:1(size=1KiB linesize=64 ways=4) l2:2(size=512 linesize=64 ways=2) \
             l1d:1(size=256 linesize=64 ways=1) core:1 pu:1",
        )
        .expect("topology")
    }

    #[test]
    fn another_node_of_the_own_package_is_remote_dram_that_stays_in_the_package() {
        // One package of two nodes (as EPYC's NPS2), one cache domain each, then a
        // second package.
        let topo = Topology::from_synthetic(
            "pack:2 numa:2 l3:1(size=1KiB linesize=64 ways=4) l2:1(size=512 linesize=64 \
             ways=2) l1d:1(size=256 linesize=64 ways=1) core:1 pu:1",
        )
        .expect("topology");
        let mut m = Machine::new(&topo, lat(), 4).unwrap();
        m.access(1, 0, false); // core 1: package 0, node 1
        assert_eq!(m.node_of_page(0), Some(1));
        // Core 0 (package 0, node 0) misses another line of that page in its L3, and no
        // cache holds it: remote DRAM, inside the package, at the near latency.
        let s = m.access(0, 1, false);
        assert_eq!(s.cycles, u64::from(lat().near_dram));
        assert_eq!(m.counts()[0].dram_remote, 1);
        assert_eq!(m.counts()[0].interconnect_bytes, 0);
        // Core 2 (package 1) reads a third line of it: across packages.
        let s = m.access(2, 2, false);
        assert_eq!(s.cycles, u64::from(lat().remote_dram));
        assert_eq!(m.counts()[2].dram_remote, 1);
        assert_eq!(m.counts()[2].interconnect_bytes, 64);
    }

    #[test]
    fn interleave_places_page_p_on_node_p_mod_nodes_whoever_touches_it() {
        let mut m = Machine::new(&tiny(), lat(), 4).unwrap();
        m.set_placement(Placement::Interleave);
        // Core 2 (node 1) touches pages 0-3 first (64 lines a page).
        for page in 0..4 {
            m.access(2, page * 64, false);
        }
        let nodes: Vec<_> = (0..4).map(|p| m.node_of_page(p)).collect();
        assert_eq!(nodes, [Some(0), Some(1), Some(0), Some(1)]);
        assert_eq!(
            (m.counts()[2].dram_local, m.counts()[2].dram_remote),
            (2, 2)
        );
        // Pages touched before the placement changed keep their node.
        let mut m = Machine::new(&tiny(), lat(), 4).unwrap();
        m.access(2, 0, false);
        m.set_placement(Placement::Interleave);
        m.access(2, 64, false);
        assert_eq!((m.node_of_page(0), m.node_of_page(1)), (Some(1), Some(1)));
    }

    #[test]
    fn placements_parse_by_name() {
        for p in [Placement::FirstTouch, Placement::Interleave] {
            assert_eq!(Placement::parse(p.name()), Some(p));
        }
        assert_eq!(
            Placement::parse(" Interleave "),
            Some(Placement::Interleave)
        );
        for bad in ["", "first_touch", "interleaved", "local"] {
            assert_eq!(Placement::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn first_touch_places_pages_on_the_toucher_s_node() {
        let mut m = Machine::new(&tiny(), lat(), 4).unwrap();
        assert_eq!(m.node_of_page(0), None);
        let s = m.access(2, 0, false); // core 2: package 1, node 1
        assert_eq!(m.node_of_page(0), Some(1));
        assert_eq!(s.cycles, u64::from(lat().local_dram));
        assert!(s.private_miss);
        // Core 0 (node 0) reads another line of the same page: remote DRAM.
        let s = m.access(0, 1, false);
        assert_eq!(s.cycles, u64::from(lat().remote_dram));
        assert_eq!(m.counts()[0].dram_remote, 1);
        assert_eq!(m.counts()[0].interconnect_bytes, 64);
        // Line 64 is on page 1: first touched by core 0, local to it.
        m.access(0, 64, false);
        assert_eq!(m.node_of_page(1), Some(0));
        assert_eq!(m.counts()[0].dram_local, 1);
    }

    #[test]
    fn hits_walk_down_the_levels() {
        let mut m = Machine::new(&tiny(), lat(), 1).unwrap();
        m.access(0, 0, false); // miss everywhere, DRAM
        assert_eq!(m.access(0, 0, false).cycles, u64::from(lat().l1_hit));
        // Line 4 maps to L1 set 0 too (4 sets): evicts line 0 from L1, not from L2.
        m.access(0, 4, false);
        let s = m.access(0, 0, false);
        assert_eq!(s.cycles, u64::from(lat().l2_hit));
        assert!(!s.private_miss);
        // Core 1 (same domain) finds line 0 in the shared L3.
        let s = m.access(1, 0, false);
        assert_eq!(s.cycles, u64::from(lat().l3_hit));
        assert!(s.private_miss);
        let c = m.counts()[0];
        assert_eq!(c.hits, [1, 1, 0]);
        assert_eq!(c.misses, [3, 2, 2]);
    }

    #[test]
    fn a_write_removes_every_other_copy() {
        let mut m = Machine::new(&tiny(), lat(), 1).unwrap();
        m.access(0, 7, false);
        m.access(1, 7, false);
        m.access(2, 7, false); // other package: fetched from package 0's cache
        assert_eq!(m.counts()[2].remote_cache, 1);
        assert_eq!(m.counts()[2].interconnect_bytes, 64);
        // Core 3 writes: cores 0, 1 (other package) and 2 (own domain) lose the line.
        let s = m.access(3, 7, true);
        assert_eq!(
            s.cycles,
            u64::from(lat().l3_hit) + u64::from(lat().remote_cache)
        );
        assert_eq!(m.counts()[3].invalidations, 2, "one other domain, one peer");
        // Core 0 misses everything now and gets the line from package 1's cache.
        let s = m.access(0, 7, false);
        assert!(s.private_miss);
        assert_eq!(s.cycles, u64::from(lat().remote_cache));
        assert_eq!(m.counts()[0].misses[2], 2, "its L3 lost the line too");
    }

    /// The generic latencies with the L3 organisation and prefetcher given.
    fn lat_with(l3_victim: bool, prefetch_degree: u32, prefetch_distance: u32) -> Latencies {
        Latencies {
            l3_victim,
            prefetch_degree,
            prefetch_distance,
            ..Latencies::generic()
        }
    }

    /// Set 0 of domain 0's last-level cache, most recently used first.
    fn l3_set0(m: &Machine) -> Vec<u64> {
        m.shared[0].as_ref().expect("an L3").cache.set_contents(0)
    }

    /// The hand-computed trace of both organisations on `tiny()` (L1 4 sets of 1 way,
    /// L2 4 sets of 2, L3 4 sets of 4: lines 0, 4, 8, ... all map to set 0 of each).
    /// Returns the machine and the cycles of core 1's last read of line 0.
    fn organisation_trace(l3_victim: bool) -> (Machine, u64) {
        let mut m = Machine::new(&tiny(), lat_with(l3_victim, 0, 1), 1).unwrap();
        assert_eq!(m.victim_l3(), l3_victim);
        m.access(1, 0, false); // from DRAM
        let s = m.access(0, 0, false);
        if l3_victim {
            // Not in the L3 (a miss fills nothing there): core 1's copy, on chip.
            assert_eq!(s.cycles, u64::from(lat().l3_hit));
            assert_eq!(m.counts()[0].misses[2], 1, "the L3 itself missed");
            assert_eq!(m.counts()[0].dram_local, 0);
            assert_eq!(l3_set0(&m), [0], "two cores share it: the L3 keeps a copy");
        } else {
            assert_eq!(s.cycles, u64::from(lat().l3_hit));
            assert_eq!(m.counts()[0].hits[2], 1);
            assert_eq!(l3_set0(&m), [0]);
        }
        // Core 0 reads 4 and 8: its L2's set 0 overflows and evicts 0, then 12, 16, 20
        // and 24 evict 4, 8, 12 and 16.
        m.access(0, 4, false);
        m.access(0, 8, false);
        if l3_victim {
            assert_eq!(l3_set0(&m), [0], "the L2's victim refreshes the L3's copy");
        }
        for line in [12, 16, 20, 24] {
            m.access(0, line, false);
        }
        if l3_victim {
            // The victims 0, 4, 8, 12, 16 entered in that order; 16 pushed 0 out.
            assert_eq!(l3_set0(&m), [16, 12, 8, 4]);
        } else {
            // Every miss filled the L3: 12 to 24 pushed 0, 4 and 8 out, and each took
            // the private copies with it.
            assert_eq!(l3_set0(&m), [24, 20, 16, 12]);
        }
        let s = m.access(1, 0, false);
        (m, s.cycles)
    }

    #[test]
    fn a_victim_l3_takes_l2_evictions_and_gives_lines_up() {
        let (mut m, cycles) = organisation_trace(true);
        // No back-invalidation: line 0 left the L3, and core 1 still holds it.
        assert_eq!(cycles, u64::from(lat().l1_hit));
        // A hit moves the line up to the core and out of the L3; core 0's L2 evicts
        // 20 for it, which the L3 takes in its place.
        let s = m.access(0, 4, false);
        assert_eq!(s.cycles, u64::from(lat().l3_hit));
        assert!(s.private_miss);
        assert_eq!(l3_set0(&m), [20, 16, 12, 8]);
        // A line no core of the domain holds and the L3 lost comes from DRAM again.
        let before = m.counts()[0].dram_local;
        m.access(0, 28, false); // evicts 24 from the L2 into the L3, 8 out of it
        assert_eq!(l3_set0(&m), [24, 20, 16, 12]);
        let s = m.access(0, 8, false);
        assert_eq!(s.cycles, u64::from(lat().local_dram));
        assert_eq!(m.counts()[0].dram_local, before + 2);
        // (That pushed 4 out of core 0's L2 into the L3, and 12 out of the L3.)
        assert_eq!(l3_set0(&m), [4, 24, 20, 16]);
        // Core 1 reads 16, which core 0's eviction put there: a line two cores use,
        // so the L3 keeps it.
        let s = m.access(1, 16, false);
        assert_eq!(s.cycles, u64::from(lat().l3_hit));
        assert_eq!(m.counts()[1].hits[2], 1);
        assert_eq!(l3_set0(&m), [16, 4, 24, 20]);
    }

    #[test]
    fn an_inclusive_l3_fills_on_a_miss_and_evicts_private_copies() {
        let (_, cycles) = organisation_trace(false);
        // The L3 pushed line 0 out, so core 1 lost it: DRAM again.
        assert_eq!(cycles, u64::from(lat().local_dram));
    }

    #[test]
    fn a_modified_line_leaving_a_victim_l3_is_written_back() {
        let mut m = Machine::new(&tiny(), lat_with(true, 0, 1), 1).unwrap();
        m.access(0, 0, true);
        // 4 and 8 push 0 out of core 0's L2 into the L3: still the domain's, no write-back.
        for line in [4, 8] {
            assert_eq!(m.access(0, line, false).writeback, NO_WRITEBACK);
        }
        assert_eq!(l3_set0(&m), [0]);
        // Four more victims push 0 out of the L3, and no core holds it: written back.
        let wrote: Vec<u16> = [12, 16, 20, 24, 28]
            .into_iter()
            .map(|line| m.access(0, line, false).writeback)
            .collect();
        // (12 spills 4, 16 spills 8, 20 spills 12, 24 spills 16, which pushes 0 out.)
        assert_eq!(
            wrote,
            [NO_WRITEBACK, NO_WRITEBACK, NO_WRITEBACK, 0, NO_WRITEBACK]
        );
    }

    /// What the last-level miss count holds, by hand on `tiny()` (cores 0 and 1 share
    /// domain 0): a line core 1 holds, clean or modified, and the victim L3 lacks is an
    /// L3 miss of core 0's, which core 1 supplies (`peer_cache`), as the Opteron's
    /// event 4E1h counts it; the inclusive L3 holds both lines, and hits.
    #[test]
    fn a_line_from_a_sibling_core_is_a_miss_of_the_victim_l3() {
        for victim in [true, false] {
            let mut m = Machine::new(&tiny(), lat_with(victim, 0, 1), 1).unwrap();
            m.access(1, 0, false); // from DRAM
            m.access(1, 4, true); // from DRAM, then modified
            let s = m.access(0, 0, false);
            assert_eq!(s.cycles, u64::from(lat().l3_hit), "on chip either way");
            m.access(0, 4, false);
            let (c0, c1) = (m.counts()[0], m.counts()[1]);
            assert_eq!((c1.misses[2], c1.dram_local, c1.peer_cache), (2, 2, 0));
            assert_eq!(c0.dram_local + c0.dram_remote + c0.near_cache, 0);
            if victim {
                assert_eq!((c0.misses[2], c0.hits[2], c0.peer_cache), (2, 0, 2));
                assert_eq!(l3_set0(&m), [4, 0], "lines two cores share: copies kept");
            } else {
                assert_eq!((c0.misses[2], c0.hits[2], c0.peer_cache), (0, 2, 0));
            }
        }
    }

    /// One core, one page of 64 lines at a time: L1d 32 lines, L2 256, L3 1024.
    fn one_core() -> Topology {
        Topology::from_synthetic(
            "pack:1 numa:1 l3:1(size=64KiB linesize=64 ways=16) l2:1(size=16KiB linesize=64 \
             ways=8) l1d:1(size=2KiB linesize=64 ways=2) core:1 pu:1",
        )
        .expect("topology")
    }

    /// Reads `lines` on core 0 of `one_core()`; returns its counts and the most lines
    /// one access prefetched.
    fn read_all(lat: Latencies, lines: impl Iterator<Item = u64>) -> (CoreCounts, usize) {
        let mut m = Machine::new(&one_core(), lat, 64).unwrap();
        let mut most = 0;
        for line in lines {
            m.access(0, line, false);
            most = most.max(m.prefetched().len());
            for p in m.prefetched() {
                assert!(p.served.private_miss);
                assert_eq!(p.line >> 6, line >> 6, "a stream stays in its page");
            }
        }
        (m.counts()[0], most)
    }

    #[test]
    fn the_stream_prefetcher_runs_ahead_of_a_sequential_sweep() {
        // 4 pages, line by line. At degree 1 and distance 2, in each page: the first
        // line starts a stream, the second trains it and asks for the fourth, the
        // third asks for the fifth; from the fourth on every line was prefetched.
        let (c, most) = read_all(lat_with(false, 1, 2), 0..256);
        assert_eq!(c.misses[1], 3 * 4, "three demand misses a page");
        assert_eq!(c.prefetches, 61 * 4);
        assert_eq!(c.hits[1], 61 * 4, "the rest hit the L2");
        assert_eq!(most, 1);
        // Descending works the same way.
        let (c, _) = read_all(lat_with(false, 1, 2), (0..256).rev());
        assert_eq!((c.misses[1], c.prefetches), (12, 244));
        // Degree 2, distance 20: lines 19 and 20 ahead from the second line of a page
        // on, two an access while the stream is new, then one.
        let (c, most) = read_all(lat_with(false, 2, 20), 0..64);
        assert_eq!(most, 2);
        assert_eq!(c.prefetches, 63 - 19);
        // Off: every line a miss.
        let (c, _) = read_all(lat_with(false, 0, 2), 0..256);
        assert_eq!((c.misses[1], c.prefetches), (256, 0));
    }

    #[test]
    fn the_stream_prefetcher_stays_quiet_on_a_random_walk() {
        let walk = |seed| {
            let mut rng = locus_task::rng::XorShift64Star::new(seed);
            (0..20_000).map(move |_| rng.next_u64() % 4096)
        };
        let (on, _) = read_all(lat_with(false, 2, 20), walk(0x5EED_F00D));
        let (off, _) = read_all(lat_with(false, 0, 1), walk(0x5EED_F00D));
        // A random line has a neighbour of the last one in its page 1 time in 32.
        assert!(on.prefetches * 10 < on.accesses, "{on:?}");
        let (a, b) = (on.misses[2] as f64, off.misses[2] as f64);
        assert!((a / b - 1.0).abs() < 0.1, "L3 misses {a} with, {b} without");
    }

    #[test]
    fn last_level_evictions_remove_private_copies() {
        let mut m = Machine::new(&tiny(), lat(), 1).unwrap();
        m.access(0, 0, false);
        assert_eq!(m.access(0, 0, false).cycles, u64::from(lat().l1_hit));
        // L3: 16 lines, 4 ways, 4 sets. Core 1 fills set 0 with lines 4, 8, 12, 16,
        // which pushes line 0 (the least recently used) out of the shared L3.
        for line in [4, 8, 12, 16] {
            m.access(1, line, false);
        }
        // So core 0's private copies went too.
        let s = m.access(0, 0, false);
        assert!(s.private_miss);
        assert_eq!(s.cycles, u64::from(lat().local_dram));
    }
}
