//! Machine topology for locus.
//!
//! A machine is a tree of domains: machine > NUMA node > package (socket) >
//! cache domain (the cores under one last-level cache) > core > PU (hardware
//! thread), with every cache instance (level, kind, size, line size,
//! associativity, and the PUs that share it). A [`Topology`] is that tree,
//! flattened into tables indexed by logical numbers; its PUs are in tree order,
//! so the first N PUs fill one cache domain before the next. Each cache domain
//! is one *squad* of workers.
//!
//! Where a topology comes from:
//!
//! * [`Topology::discover`]: this machine, from Linux sysfs, limited to the
//!   CPUs of this process's affinity mask ([`allowed_cpus`]);
//! * [`Topology::from_sysfs`]: a directory shaped like `/sys/devices/system`
//!   (see [`sysfs`] for the files read);
//! * [`Topology::from_synthetic`]: an hwloc synthetic string such as
//!   `pack:4 l3:1(size=6MB) core:4 pu:1`, or the shorthand `2x10x2` (see
//!   [`synthetic`] for the grammar and defaults);
//! * [`Topology::from_xml_str`] / [`Topology::from_xml_file`]: hwloc XML from
//!   `lstopo --of xml`, v1 or v2 (see [`xml`] for what is read);
//! * [`Topology::preset`]: the machines of the papers locus reproduces (see
//!   [`presets`] for each one's shape and source);
//! * [`Topology::parse_spec`]: what `LOCUS_TOPOLOGY` and `--machine` accept.
//!
//! This crate starts no threads and keeps no global state; every function may
//! be called from any thread. Nothing here panics on user input: every
//! problem is a [`TopoError`] naming the input, the position, and what was
//! expected.
//!
//! The public modules [`synthetic`], [`xml`], [`sysfs`] and [`presets`] hold
//! only documentation of the formats, and [`distance`] the constants of the
//! distances between squads; everything callable is on [`Topology`].
//!
//! Distances: [`Topology::squad_distance`], [`Topology::squad_tier`] and
//! [`Topology::nearest_squads`] say how far squads are from each other, from
//! the machine's NUMA distances where the source has them (sysfs, hwloc XML,
//! presets) and from the tree otherwise; see [`distance`].

#![deny(missing_docs)]

mod builder;
pub mod distance;
mod error;
mod model;
pub mod presets;
mod render;
pub mod synthetic;
pub mod sysfs;
pub mod xml;

use std::path::Path;

pub use distance::{DistanceSource, SquadTier};
pub use error::TopoError;
pub use model::{Cache, CacheDomain, CacheKind, Core, NumaNode, Package, Pu, Topology, MAX_PUS};
pub use render::{ranges as format_ranges, size as format_size};
pub use synthetic::parse_size;

use error::Kind;

/// The name a discovered topology carries.
const THIS_MACHINE: &str = "this machine";

impl Topology {
    /// This machine, from `/sys/devices/system`, restricted to the CPUs this
    /// process may run on (`sched_getaffinity`). The result is named
    /// `"this machine"`, is not virtual, and its PUs carry their Linux CPU numbers.
    ///
    /// # Errors
    ///
    /// When the affinity mask cannot be read (off Linux, for one), when sysfs
    /// holds malformed files, or when none of the allowed CPUs is online.
    pub fn discover() -> Result<Topology, TopoError> {
        let allowed = allowed_cpus()?;
        sysfs::from_sysfs(&sysfs::system_root(), Some(&allowed), THIS_MACHINE, false)
    }

    /// The machine described by `root`, a directory shaped like
    /// `/sys/devices/system` (with `cpu/` and optionally `node/`), keeping only
    /// the CPUs in `allowed` when given. Meant for tests with fake trees: the
    /// result is virtual (not to be pinned to) and named after `root`, but its
    /// PUs carry the CPU numbers of the tree.
    ///
    /// # Errors
    ///
    /// When a file cannot be read or is malformed (the error names it), when
    /// the tree lists no CPU, or when none of `allowed` is online.
    pub fn from_sysfs(root: &Path, allowed: Option<&[usize]>) -> Result<Topology, TopoError> {
        sysfs::from_sysfs(root, allowed, &root.display().to_string(), true)
    }

    /// An hwloc synthetic string (`pack:4 l3:1(size=6MB) core:4 pu:1`) or the
    /// shorthand `SxC` / `SxCxT` (`2x10x2`). Named by the trimmed string.
    ///
    /// # Errors
    ///
    /// When the string breaks the grammar or rules of [`synthetic`], or would
    /// describe more than [`MAX_PUS`] PUs; the error gives the byte offset.
    pub fn from_synthetic(s: &str) -> Result<Topology, TopoError> {
        synthetic::build(s, s.trim())
    }

    /// An hwloc XML document; `source` names it in errors and in [`Topology::name`].
    ///
    /// # Errors
    ///
    /// When the XML is not well-formed, is not an hwloc topology, has a
    /// malformed attribute, or has no PU; the error gives `line:column`.
    pub fn from_xml_str(xml: &str, source: &str) -> Result<Topology, TopoError> {
        xml::from_str(xml, source)
    }

    /// An hwloc XML file; errors name the path, the topology is named by the file name.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, and as [`Topology::from_xml_str`].
    pub fn from_xml_file(path: &Path) -> Result<Topology, TopoError> {
        xml::from_file(path)
    }

    /// A built-in machine by name (case-insensitive); `None` if there is none.
    pub fn preset(name: &str) -> Option<Topology> {
        presets::preset(name)
    }

    /// The names [`Topology::preset`] accepts.
    pub fn preset_names() -> &'static [&'static str] {
        presets::names()
    }

    /// What `LOCUS_TOPOLOGY` and `--machine` accept, tried in this order:
    ///
    /// 1. a preset name (case-insensitive);
    /// 2. a path ending in `.xml`, or naming an existing file: hwloc XML;
    /// 3. a string starting with a digit: the shorthand `SxC` / `SxCxT`;
    /// 4. a string containing `:` or `[`: an hwloc synthetic string.
    ///
    /// # Errors
    ///
    /// Anything else is an error that lists the presets; the errors of the
    /// chosen reader otherwise.
    pub fn parse_spec(spec: &str) -> Result<Topology, TopoError> {
        let trimmed = spec.trim();
        if let Some(t) = presets::preset(trimmed) {
            return Ok(t);
        }
        let path = Path::new(trimmed);
        let is_xml = Path::new(trimmed)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("xml"));
        if !trimmed.is_empty() && (is_xml || path.is_file()) {
            return Topology::from_xml_file(path);
        }
        if trimmed.starts_with(|c: char| c.is_ascii_digit()) || trimmed.contains([':', '[']) {
            return Topology::from_synthetic(spec);
        }
        Err(Kind::UnknownSpec {
            spec: spec.to_owned(),
            presets: presets::names().join(", "),
        }
        .into())
    }

    /// An indented tree in the manner of `lstopo` (Machine, NUMANode, Package,
    /// caches with their sizes, Core, PU with its OS index when known; NUMA
    /// nodes without PUs marked `memory only`), then one line per cache domain,
    /// starting with `squad`, listing its PUs, then the NUMA distances when the
    /// source gave them.
    pub fn render(&self) -> String {
        render::render(self)
    }

    /// The synthetic string behind a preset, for showing users what a preset is.
    pub fn preset_synthetic(name: &str) -> Option<&'static str> {
        presets::synthetic_of(name)
    }
}

/// The CPUs this process may run on (`sched_getaffinity`), sorted.
///
/// Strictly, this is the mask of the calling thread, which is the process's
/// unless the thread was pinned since; call it before pinning workers.
///
/// # Errors
///
/// When `sched_getaffinity` fails, and always off Linux.
pub fn allowed_cpus() -> Result<Vec<usize>, TopoError> {
    sysfs::allowed_cpus()
}
