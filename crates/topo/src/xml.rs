//! hwloc XML, as written by `lstopo --of xml` (hwloc 1.x and 2.x).
//!
//! Objects are `<object type="...">` elements nested as in the machine. Types:
//!
//! * `Package` (v1 also `Socket`): a package.
//! * `NUMANode`: in v2 a *memory child* (a leaf `NUMANode`, possibly under a
//!   `MemCache`) of the object whose PUs use it; in v1 a normal parent. Either
//!   way the PUs under its parent (v2) or under it (v1) belong to it. An object
//!   with several memory children (fast and slow memory) uses the first.
//!   `local_memory` is kept as [`NumaNode::memory`](crate::NumaNode::memory).
//! * caches: v2 `L1Cache` .. `L5Cache`, `L1iCache` .. `L3iCache`; v1 `Cache` with a
//!   `depth` attribute (the level). `cache_type` (0 unified, 1 data,
//!   2 instruction) is read when present; otherwise a v2 `L<N>Cache` is data
//!   for L1 and unified above. `cache_size` (bytes) is required;
//!   `cache_linesize` and `cache_associativity` default to 0 (unknown), and an
//!   associativity of -1 (fully associative) becomes 0.
//! * `Core`, `PU`.
//! * everything else (`Machine`, `System`, `Group`, `Die`, `Misc`, `Bridge`,
//!   `PCIDev`, `OSDev`, `MemCache`, types of later hwloc versions) only groups
//!   its children; I/O objects hold no PUs and so add nothing.
//!
//! `os_index` attributes are read for nothing: a machine from XML is described,
//! not this one, so its PUs have no OS index. Other elements (`info`,
//! `distances`, `page_type`, `support`, ...) are ignored. Errors give the
//! source name and the `line:column` of the offending element or attribute.

use std::path::Path;

use roxmltree::{Document, Node, ParsingOptions};

use crate::builder::Builder;
use crate::error::{Kind, TopoError};
use crate::model::{normalize, CacheAttrs, CacheKind, Topology, MAX_PUS};

/// Deepest object nesting accepted (real machines need about 12).
const MAX_DEPTH: usize = 256;

/// Parses an hwloc XML document; `source` names it in errors and becomes the
/// topology's name.
pub(crate) fn from_str(xml: &str, source: &str) -> Result<Topology, TopoError> {
    let opts = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(xml, opts).map_err(|err| {
        let pos = err.pos();
        TopoError::from(Kind::XmlSyntax {
            source_name: source.to_owned(),
            line: pos.row,
            column: pos.col,
            err,
        })
    })?;
    let root = doc.root_element();
    let err = |node_pos: usize, msg: &dyn std::fmt::Display| {
        TopoError::xml(source, doc.text_pos_at(node_pos), msg)
    };
    if root.tag_name().name() != "topology" {
        return Err(err(
            root.range().start,
            &format_args!(
                "expected a <topology> root element, found <{}>",
                root.tag_name().name()
            ),
        ));
    }
    let v2 = root
        .attribute("version")
        .is_some_and(|v| !v.starts_with("1."));
    let mut walk = Walk {
        doc: &doc,
        source,
        b: Builder::new(source, true),
        v2,
    };
    let mut found_object = false;
    for child in root.children().filter(is_object) {
        found_object = true;
        walk.object(child, 0)?;
    }
    if !found_object {
        return Err(err(
            root.range().start,
            &"expected an <object type=\"Machine\"> inside <topology>, found none",
        ));
    }
    if walk.b.num_pus() == 0 {
        return Err(err(
            root.range().start,
            &"expected at least one <object type=\"PU\">, found none",
        ));
    }
    normalize(walk.b.finish())
}

/// Reads and parses an hwloc XML file; the topology is named by the file name.
pub(crate) fn from_file(path: &Path) -> Result<Topology, TopoError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| TopoError::io("hwloc XML file", path, e))?;
    let mut topo = from_str(&text, &path.display().to_string())?;
    if let Some(file_name) = path.file_name() {
        topo.name = file_name.to_string_lossy().into_owned();
    }
    Ok(topo)
}

fn is_object(n: &Node<'_, '_>) -> bool {
    n.is_element() && n.tag_name().name() == "object"
}

struct Walk<'d, 'i> {
    doc: &'d Document<'i>,
    source: &'d str,
    b: Builder,
    v2: bool,
}

impl<'d, 'i> Walk<'d, 'i> {
    fn err(&self, pos: usize, msg: impl std::fmt::Display) -> TopoError {
        TopoError::xml(self.source, self.doc.text_pos_at(pos), msg)
    }

    /// An attribute parsed as a number, with errors at the attribute.
    fn number<T: std::str::FromStr>(
        &self,
        node: Node<'_, '_>,
        name: &str,
        what: &str,
    ) -> Result<Option<T>, TopoError> {
        let Some(attr) = node.attribute_node(name) else {
            return Ok(None);
        };
        attr.value().trim().parse::<T>().map(Some).map_err(|_| {
            self.err(
                attr.range_value().start,
                format_args!("attribute {name}=\"{}\" is not {what}", attr.value()),
            )
        })
    }

    /// The first NUMA node among the memory children of `node` (v2).
    fn memory_numa<'a>(&self, node: Node<'a, 'i>) -> Option<Node<'a, 'i>> {
        for child in node.children().filter(is_object) {
            match child.attribute("type") {
                Some(t)
                    if t.eq_ignore_ascii_case("NUMANode")
                        && !child.children().any(|c| is_object(&c)) =>
                {
                    return Some(child)
                }
                Some(t) if t.eq_ignore_ascii_case("MemCache") => {
                    if let Some(n) = self.memory_numa(child) {
                        return Some(n);
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn numa_memory(&self, node: Node<'_, '_>) -> Result<Option<u64>, TopoError> {
        self.number::<u64>(node, "local_memory", "a number of bytes")
    }

    fn object(&mut self, node: Node<'_, 'i>, depth: usize) -> Result<(), TopoError> {
        let pos = node.range().start;
        if depth > MAX_DEPTH {
            return Err(self.err(
                pos,
                format_args!("objects are nested more than {MAX_DEPTH} deep"),
            ));
        }
        let Some(ty) = node.attribute("type") else {
            return Err(self.err(pos, "expected a type attribute on <object>"));
        };
        let lower = ty.to_ascii_lowercase();
        let opened = match lower.as_str() {
            "package" | "socket" => {
                self.b.open_package();
                true
            }
            "core" => {
                self.b.open_core();
                true
            }
            "pu" => {
                if self.b.pu().is_err() {
                    return Err(self.err(pos, format_args!("more than {MAX_PUS} PUs")));
                }
                false
            }
            "numanode" => {
                // A v2 memory child is handled by its parent; a v1 NUMA node
                // (or any NUMA node with children) is a parent.
                if self.v2 && !node.children().any(|c| is_object(&c)) {
                    return Ok(());
                }
                let memory = self.numa_memory(node)?;
                self.b.open_numa(memory);
                true
            }
            "cache" | "l1cache" | "l2cache" | "l3cache" | "l4cache" | "l5cache" | "l1icache"
            | "l2icache" | "l3icache" => {
                let attrs = self.cache(node, &lower)?;
                self.b.open_cache(attrs);
                true
            }
            "memcache" => return Ok(()), // only holds memory children
            _ => {
                self.b.open_group();
                true
            }
        };
        // v2: NUMA nodes attached as memory children cover this object's PUs.
        let numa = if self.v2 {
            self.memory_numa(node)
        } else {
            None
        };
        if let Some(n) = numa {
            let memory = self.numa_memory(n)?;
            self.b.open_numa(memory);
        }
        for child in node.children().filter(is_object) {
            self.object(child, depth + 1)?;
        }
        if numa.is_some() {
            self.b.close();
        }
        if opened {
            self.b.close();
        }
        Ok(())
    }

    fn cache(&self, node: Node<'_, '_>, lower: &str) -> Result<CacheAttrs, TopoError> {
        let pos = node.range().start;
        let level: u8 = if lower == "cache" {
            match self.number::<u8>(node, "depth", "a cache level from 1 to 5")? {
                Some(d @ 1..=5) => d,
                Some(d) => {
                    return Err(self.err(
                        pos,
                        format_args!("cache depth {d} is out of range (expected 1 to 5)"),
                    ))
                }
                None => {
                    return Err(self.err(pos, "expected a depth attribute on a v1 Cache object"))
                }
            }
        } else {
            // "l<N>cache" / "l<N>icache": the digit is the second byte.
            match lower.as_bytes().get(1) {
                Some(d @ b'1'..=b'5') => d - b'0',
                _ => return Err(self.err(pos, format_args!("unknown cache type '{lower}'"))),
            }
        };
        let kind = match self.number::<i64>(node, "cache_type", "a cache type (0, 1 or 2)")? {
            Some(0) => CacheKind::Unified,
            Some(1) => CacheKind::Data,
            Some(2) => CacheKind::Instruction,
            Some(t) => {
                return Err(self.err(
                    pos,
                    format_args!("cache_type {t} is not 0 (unified), 1 (data) or 2 (instruction)"),
                ))
            }
            None if lower.contains("icache") => CacheKind::Instruction,
            None if level == 1 => CacheKind::Data,
            None => CacheKind::Unified,
        };
        let size = match self.number::<u64>(node, "cache_size", "a number of bytes (0 or more)")? {
            Some(s) => s,
            None => return Err(self.err(pos, "expected a cache_size attribute on a cache object")),
        };
        let line_size = self
            .number::<u32>(node, "cache_linesize", "a line size in bytes")?
            .unwrap_or(0);
        let associativity = match self.number::<i64>(
            node,
            "cache_associativity",
            "a number of ways (-1 for fully associative)",
        )? {
            None | Some(-1) => 0,
            Some(a) => match u32::try_from(a) {
                Ok(a) => a,
                Err(_) => {
                    return Err(self.err(
                        pos,
                        format_args!(
                            "cache_associativity {a} is out of range (expected -1 or 0 to {})",
                            u32::MAX
                        ),
                    ))
                }
            },
        };
        Ok(CacheAttrs {
            level,
            kind,
            size,
            line_size,
            associativity,
        })
    }
}
