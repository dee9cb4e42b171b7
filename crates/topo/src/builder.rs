//! The tree builder shared by synthetic strings, presets and XML.
//!
//! A source walks its tree depth-first and calls `open_*` when it enters an
//! object, [`Builder::close`] when it leaves it, and [`Builder::pu`] for each PU.
//! The builder records, for each PU, its nearest enclosing NUMA node, package
//! and core and every enclosing cache, and produces a [`RawMachine`] for
//! [`normalize`](crate::model::normalize). A PU with no enclosing package gets
//! the one implicit package of the machine; a PU with no enclosing NUMA node
//! gets the machine's first NUMA node, or the one implicit node when the walk
//! opened none; a PU with no enclosing core is a core of its own.

use crate::distance::RawDistances;
use crate::model::{CacheAttrs, RawMachine, RawNuma, RawPu, MAX_PUS};

/// An object the walk is inside of.
#[derive(Clone, Copy, Debug)]
enum Open {
    /// An object that only groups others (Machine, Group, Die, unknown types).
    Pass,
    Numa(usize),
    Package(usize),
    Cache(usize),
    Core(usize),
}

/// Collects a depth-first walk into a [`RawMachine`].
#[derive(Debug, Default)]
pub(crate) struct Builder {
    raw: RawMachine,
    stack: Vec<Open>,
    implicit_numa: Option<usize>,
    implicit_package: Option<usize>,
}

/// The walk described more PUs than [`MAX_PUS`].
#[derive(Debug)]
pub(crate) struct TooManyPus;

impl Builder {
    /// A builder for a machine with this name.
    pub(crate) fn new(name: &str, is_virtual: bool) -> Self {
        Builder {
            raw: RawMachine {
                name: name.to_owned(),
                is_virtual,
                ..RawMachine::default()
            },
            ..Builder::default()
        }
    }

    /// Enters an object that only groups others.
    pub(crate) fn open_group(&mut self) {
        self.stack.push(Open::Pass);
    }

    /// Enters a NUMA node; returns its key. `keep_without_pus`: the node stays
    /// in the machine even if no PU ends up in it (a source's memory-only node).
    pub(crate) fn open_numa(&mut self, memory: Option<u64>, keep_without_pus: bool) -> usize {
        let key = self.memory_node(memory, keep_without_pus);
        self.stack.push(Open::Numa(key));
        key
    }

    /// Adds a NUMA node that no PU is under (a second memory of the PUs of
    /// another node, or memory with no CPU); returns its key.
    pub(crate) fn memory_node(&mut self, memory: Option<u64>, keep_without_pus: bool) -> usize {
        self.raw.numa.push(RawNuma {
            os_index: None,
            memory,
            keep_without_pus,
        });
        self.raw.numa.len() - 1
    }

    /// Number of NUMA nodes so far (the next node's key).
    pub(crate) fn num_numa(&self) -> usize {
        self.raw.numa.len()
    }

    /// Sets the distances between the NUMA nodes, by key.
    pub(crate) fn set_distances(&mut self, distances: RawDistances) {
        self.raw.distances = Some(distances);
    }

    /// Enters a package.
    pub(crate) fn open_package(&mut self) {
        self.raw.packages.push(None);
        self.stack.push(Open::Package(self.raw.packages.len() - 1));
    }

    /// Enters a cache.
    pub(crate) fn open_cache(&mut self, attrs: CacheAttrs) {
        self.raw.caches.push(attrs);
        self.stack.push(Open::Cache(self.raw.caches.len() - 1));
    }

    /// Enters a core.
    pub(crate) fn open_core(&mut self) {
        let core = self.new_core();
        self.stack.push(Open::Core(core));
    }

    /// Leaves the innermost open object.
    pub(crate) fn close(&mut self) {
        self.stack.pop();
    }

    /// Number of PUs so far.
    pub(crate) fn num_pus(&self) -> usize {
        self.raw.pus.len()
    }

    fn new_core(&mut self) -> usize {
        self.raw.num_cores += 1;
        self.raw.num_cores - 1
    }

    /// Adds a PU under the open objects.
    pub(crate) fn pu(&mut self) -> Result<(), TooManyPus> {
        if self.raw.pus.len() >= MAX_PUS {
            return Err(TooManyPus);
        }
        let mut numa = None;
        let mut package = None;
        let mut core = None;
        let mut caches = Vec::new();
        for open in self.stack.iter().rev() {
            match *open {
                Open::Pass => {}
                Open::Numa(n) => {
                    numa.get_or_insert(n);
                }
                Open::Package(p) => {
                    package.get_or_insert(p);
                }
                Open::Core(c) => {
                    core.get_or_insert(c);
                }
                Open::Cache(c) => caches.push(c),
            }
        }
        caches.reverse(); // outermost first
        let numa = match numa {
            Some(n) => n,
            None => *self.implicit_numa.get_or_insert_with(|| {
                self.raw.numa.push(RawNuma::default());
                self.raw.numa.len() - 1
            }),
        };
        let package = match package {
            Some(p) => p,
            None => *self.implicit_package.get_or_insert_with(|| {
                self.raw.packages.push(None);
                self.raw.packages.len() - 1
            }),
        };
        let core = match core {
            Some(c) => c,
            None => self.new_core(),
        };
        self.raw.pus.push(RawPu {
            os_index: None,
            numa,
            package,
            core,
            caches,
        });
        Ok(())
    }

    /// The collected machine.
    pub(crate) fn finish(mut self) -> RawMachine {
        // PUs outside every NUMA node of a machine that has some (their node
        // was left out, as hwloc XML of a restricted process does) join the
        // first node rather than a node of their own that the source lacks.
        if let Some(implicit) = self.implicit_numa {
            let first = (0..self.raw.numa.len()).find(|&k| k != implicit);
            if let Some(first) = first {
                for pu in &mut self.raw.pus {
                    if pu.numa == implicit {
                        pu.numa = first;
                    }
                }
            }
        }
        self.raw
    }
}
