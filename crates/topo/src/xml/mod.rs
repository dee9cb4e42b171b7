//! hwloc XML, as written by `lstopo --of xml` (hwloc 1.x and 2.x).
//!
//! Objects are `<object type="...">` elements nested as in the machine. Types:
//!
//! * `Package` (v1 also `Socket`): a package.
//! * `NUMANode`: in v2 a *memory child* (a leaf `NUMANode`, possibly under a
//!   `MemCache`) of the object whose PUs use it; in v1 a normal parent. Either
//!   way the PUs under its parent (v2) or under it (v1) belong to it. An object
//!   with several memory children (DDR and HBM, or DRAM and NVDIMM) gives its
//!   PUs the first; the others are NUMA nodes without PUs, as are nodes under
//!   an object with no PU (CXL memory, a node whose CPUs are all disallowed).
//!   `local_memory` is kept as [`NumaNode::memory`](crate::NumaNode::memory).
//!   A PU under no allowed NUMA node joins the machine's first node.
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
//! A file describes what the process that wrote it was allowed to use, with
//! hwloc's meaning: the first object's `allowed_cpuset` and `allowed_nodeset`
//! (and, in v1, `online_cpuset`) are the PUs (by `os_index`) and NUMA nodes
//! kept; the others are left out as if absent. v2 files written with
//! `--disallowed` hold the whole machine and say so by these sets.
//!
//! `os_index` attributes serve only to apply those sets and to match distance
//! matrices: a machine from XML is described, not this one, so its PUs and
//! nodes have no OS index in the [`Topology`].
//!
//! Distances: a v2 `<distances2 type="NUMANode">` element whose `kind` means
//! latency (bit 4; the first such, `NUMALatency` as hwloc names the one from
//! the OS) gives [`Topology::numa_distance`](crate::Topology::numa_distance):
//! `<indexes>` lists the nodes (by `os_index`, or `gp_index` when
//! `indexing="gp"`), `<u64values>` the `nbobjs * nbobjs` values row by row. A
//! v1 `<distances nbobjs relative_depth latency_base>` inside an object, whose
//! objects at that depth are NUMA nodes, gives it too: its `<latency value>`s
//! times `latency_base`, scaled so that the smallest is 10. A matrix that
//! leaves out a node the machine keeps is not used (the tree gives the
//! distances); one with a wrong count, a value that is not a positive number,
//! or asymmetric values is an error.
//!
//! Other elements (`info`, `page_type`, `support`, ...) are ignored. Errors
//! give the source name and the `line:column` of the offending element or
//! attribute.
//!
//! # Bounds
//!
//! A file is read only if it is a regular file of at most [`MAX_FILE_BYTES`]
//! (a link to `/dev/zero` or a FIFO is refused, never read). Elements are
//! nested at most [`MAX_DEPTH`] deep, which a scan of the text checks *before*
//! the XML parser runs: the parser descends one call per level, so 20,000
//! nested `<object>`s would overflow the stack rather than fail. For the same
//! reason a document may declare no entities (`<!ENTITY`), whose expansion could
//! nest elements the scan does not see; hwloc writes none. A cache of size 0
//! describes no machine and is refused.

mod distances;

use std::collections::HashMap;
use std::path::Path;

use roxmltree::{Document, Node, ParsingOptions};

use crate::builder::Builder;
use crate::error::{Kind, TopoError};
use crate::model::{normalize, CacheAttrs, CacheKind, Topology, MAX_PUS};

/// Deepest element nesting accepted, `<topology>` and `<info>` included. Real
/// machines need about 14 (`topology`, `Machine`, `Package`, `Die`, caches L3 to L1i,
/// `Core`, `PU`, an `info`); the XML parser recurses once per level, and 256 levels
/// stay far inside a 2 MiB thread stack.
pub const MAX_DEPTH: usize = 256;

/// Largest hwloc XML file read, in bytes. `lstopo --of xml` of a two-socket 256-PU
/// server is about 300 KB, and each object's cpuset strings grow with the PU count,
/// so a machine of [`MAX_PUS`] PUs is tens of MB at most (a guess from that growth);
/// 128 MiB is above any real machine and still parses in about a second.
pub const MAX_FILE_BYTES: u64 = 128 << 20;

/// What an hwloc XML file is called in messages.
const WHAT: &str = "an hwloc XML file";

/// Parses an hwloc XML document; `source` names it in errors and becomes the
/// topology's name.
pub(crate) fn from_str(xml: &str, source: &str) -> Result<Topology, TopoError> {
    nesting(xml, source)?;
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
    let Some(first) = root.children().find(is_object) else {
        return Err(err(
            root.range().start,
            &"expected an <object type=\"Machine\"> inside <topology>, found none",
        ));
    };
    let mut walk = Walk {
        doc: &doc,
        source,
        b: Builder::new(source, true),
        v2,
        allowed_cpus: None,
        online_cpus: None,
        allowed_nodes: None,
        numa_keys: HashMap::new(),
    };
    walk.allowed_cpus = walk.bitmap(first, "allowed_cpuset")?;
    walk.allowed_nodes = walk.bitmap(first, "allowed_nodeset")?;
    if !v2 {
        walk.online_cpus = walk.bitmap(first, "online_cpuset")?;
    }
    for child in root.children().filter(is_object) {
        walk.object(child)?;
    }
    distances::read(&mut walk, root)?;
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
    let text = locus_files::read_input_string("hwloc XML file", path, MAX_FILE_BYTES, WHAT)?;
    let mut topo = from_str(&text, &path.display().to_string())?;
    if let Some(file_name) = path.file_name() {
        topo.name = file_name.to_string_lossy().into_owned();
    }
    Ok(topo)
}

/// Checks, without recursion, that elements nest at most [`MAX_DEPTH`] deep and that
/// no entity is declared, so that the recursive XML parser stays within the stack.
///
/// The scan follows XML's lexical structure only as far as nesting needs: comments,
/// CDATA sections and processing instructions are skipped, a start tag is read to its
/// `>` past quoted attribute values, and `/>` or an end tag closes a level. It does not
/// check well-formedness (the parser does); text it cannot follow ends the scan and is
/// left to the parser's error. A stray `<` in a DTD literal can only make it count one
/// level too many.
fn nesting(xml: &str, source: &str) -> Result<(), TopoError> {
    let bytes = xml.as_bytes();
    let find = |from: usize, pat: &[u8]| {
        bytes
            .get(from..)
            .and_then(|rest| rest.windows(pat.len()).position(|w| w == pat))
            .map(|at| from + at + pat.len())
    };
    let refuse = |at: usize, msg: &dyn std::fmt::Display| {
        let doc_pos = text_pos(xml, at);
        TopoError::xml(source, doc_pos, msg)
    };
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(lt) = bytes
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'<'))
    {
        let at = i + lt;
        let rest = &bytes[at..];
        let next = if rest.starts_with(b"<!--") {
            find(at + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            find(at + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            find(at + 2, b"?>")
        } else if rest.starts_with(b"<!ENTITY") {
            return Err(refuse(
                at,
                &"declares an entity; hwloc XML declares none, and locus does not expand them",
            ));
        } else if rest.starts_with(b"<!") {
            // DOCTYPE and its declarations: scan on inside them.
            Some(at + 2)
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(at + 2, b">")
        } else if rest
            .get(1)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80)
        {
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(refuse(
                    at,
                    &format_args!("elements are nested more than {MAX_DEPTH} deep"),
                ));
            }
            let end = start_tag_end(bytes, at + 1);
            if end.is_some_and(|e| bytes[e - 2] == b'/') {
                depth -= 1;
            }
            end
        } else {
            Some(at + 1)
        };
        match next {
            Some(n) => i = n,
            // Unclosed: the parser will say where.
            None => return Ok(()),
        }
    }
    Ok(())
}

/// The index just past the `>` that ends the start tag whose name begins at `from`,
/// skipping quoted attribute values; `None` if the tag never ends.
fn start_tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    for (k, &b) in bytes.get(from..)?.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some(from + k + 1),
            (None, _) => {}
        }
    }
    None
}

/// The 1-based line and column of byte `at` in `text`, as roxmltree counts them
/// (columns in characters).
fn text_pos(text: &str, at: usize) -> roxmltree::TextPos {
    let before = text.get(..at).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    let column = before[line_start..].chars().count() + 1;
    roxmltree::TextPos::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

fn is_object(n: &Node<'_, '_>) -> bool {
    n.is_element() && n.tag_name().name() == "object"
}

/// An hwloc bitmap attribute (`0x0000f06f`, `0xffffffff,0x00000001`, `0x0`,
/// `0xf...f` for all the rest): comma-separated words of 32 bits, most
/// significant first, each `0x`-prefixed, an empty word for zero; a leading
/// `0xf...f` sets every bit above the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bitmap {
    /// Least significant word first.
    words: Vec<u32>,
    /// Every bit above `words` is set.
    infinite: bool,
}

impl Bitmap {
    pub(crate) fn parse(text: &str) -> Result<Bitmap, String> {
        let mut words = Vec::new();
        let mut infinite = false;
        let parts: Vec<&str> = text.trim().split(',').collect();
        for (k, part) in parts.iter().enumerate() {
            let digits = part
                .strip_prefix("0x")
                .or_else(|| part.strip_prefix("0X"))
                .unwrap_or(part);
            if k == 0 && digits.eq_ignore_ascii_case("f...f") {
                infinite = true;
                continue;
            }
            if part.is_empty() {
                // hwloc writes a word of zeros as nothing: `0x3,,0x1`.
                words.push(0);
                continue;
            }
            if digits.is_empty()
                || digits.len() > 8
                || !digits.bytes().all(|b| b.is_ascii_hexdigit())
            {
                return Err(format!(
                    "expected words such as 0x0000f06f separated by commas, found {part:?}"
                ));
            }
            words.push(u32::from_str_radix(digits, 16).map_err(|e| e.to_string())?);
        }
        words.reverse();
        Ok(Bitmap { words, infinite })
    }

    pub(crate) fn contains(&self, i: u64) -> bool {
        match usize::try_from(i / 32).ok().and_then(|w| self.words.get(w)) {
            Some(word) => word & (1 << (i % 32)) != 0,
            None => self.infinite,
        }
    }
}

struct Walk<'d, 'i> {
    doc: &'d Document<'i>,
    source: &'d str,
    b: Builder,
    v2: bool,
    /// The PUs the writer was allowed to use, by `os_index`; `None`: all.
    allowed_cpus: Option<Bitmap>,
    /// v1 only: the PUs that were online; `None`: all.
    online_cpus: Option<Bitmap>,
    /// The NUMA nodes the writer was allowed to use, by `os_index`.
    allowed_nodes: Option<Bitmap>,
    /// The builder's key of each NUMA node kept, by the start of its element.
    numa_keys: HashMap<usize, usize>,
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

    /// A bitmap attribute, with errors at the attribute; `None` when absent.
    fn bitmap(&self, node: Node<'_, '_>, name: &str) -> Result<Option<Bitmap>, TopoError> {
        let Some(attr) = node.attribute_node(name) else {
            return Ok(None);
        };
        Bitmap::parse(attr.value()).map(Some).map_err(|msg| {
            self.err(
                attr.range_value().start,
                format_args!("attribute {name}=\"{}\": {msg}", attr.value()),
            )
        })
    }

    /// Whether an object's `os_index` is in `set` (true without either).
    fn allowed(
        &self,
        node: Node<'_, '_>,
        set: Option<&Bitmap>,
        what: &str,
    ) -> Result<bool, TopoError> {
        let Some(set) = set else {
            return Ok(true);
        };
        Ok(match self.number::<u64>(node, "os_index", what)? {
            Some(i) => set.contains(i),
            None => true,
        })
    }

    /// The allowed NUMA nodes among the memory children of `node` (v2), in
    /// order, looking inside `MemCache` objects.
    fn memory_children<'a>(
        &self,
        node: Node<'a, 'i>,
        out: &mut Vec<Node<'a, 'i>>,
    ) -> Result<(), TopoError> {
        for child in node.children().filter(is_object) {
            let ty = child.attribute("type").unwrap_or("");
            if ty.eq_ignore_ascii_case("MemCache") {
                self.memory_children(child, out)?;
            } else if ty.eq_ignore_ascii_case("NUMANode")
                && !child.children().any(|c| is_object(&c))
                && self.allowed(child, self.allowed_nodes.as_ref(), "a node number")?
            {
                out.push(child);
            }
        }
        Ok(())
    }

    /// Adds a NUMA node for `node`; `open`: PUs below it belong to it.
    fn numa(&mut self, node: Node<'_, '_>, open: bool) -> Result<(), TopoError> {
        let memory = self.numa_memory(node)?;
        let key = if open {
            self.b.open_numa(memory, true)
        } else {
            self.b.memory_node(memory, true)
        };
        self.numa_keys.insert(node.range().start, key);
        Ok(())
    }

    fn numa_memory(&self, node: Node<'_, '_>) -> Result<Option<u64>, TopoError> {
        self.number::<u64>(node, "local_memory", "a number of bytes")
    }

    /// Reads `node` and its children; the recursion is bounded by [`MAX_DEPTH`], which
    /// [`nesting`] has checked.
    fn object(&mut self, node: Node<'_, 'i>) -> Result<(), TopoError> {
        let pos = node.range().start;
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
                let allowed = self.allowed(node, self.allowed_cpus.as_ref(), "a CPU number")?
                    && self.allowed(node, self.online_cpus.as_ref(), "a CPU number")?;
                if allowed && self.b.pu().is_err() {
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
                if self.allowed(node, self.allowed_nodes.as_ref(), "a node number")? {
                    self.numa(node, true)?;
                } else {
                    self.b.open_group();
                }
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
        // v2: NUMA nodes attached as memory children; the first covers this
        // object's PUs, the others are nodes without PUs.
        let mut memory = Vec::new();
        if self.v2 {
            self.memory_children(node, &mut memory)?;
        }
        for (k, &n) in memory.iter().enumerate() {
            self.numa(n, k == 0)?;
        }
        for child in node.children().filter(is_object) {
            self.object(child)?;
        }
        if !memory.is_empty() {
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
        let size = match self.number::<u64>(node, "cache_size", "a number of bytes")? {
            Some(0) => {
                let at = node
                    .attribute_node("cache_size")
                    .map_or(pos, |a| a.range_value().start);
                return Err(self.err(
                    at,
                    "cache_size=\"0\": a cache holds at least one byte (remove the cache object or give its size)",
                ));
            }
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
