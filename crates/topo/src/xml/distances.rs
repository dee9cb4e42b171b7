//! Distance matrices of hwloc XML: v2 `<distances2>` and v1 `<distances>`
//! (the rules are in the [parent module](super)'s documentation).

use std::collections::HashMap;

use roxmltree::Node;

use super::{is_object, Walk};
use crate::distance::{check_matrix, DistanceSource, RawDistances};
use crate::error::TopoError;

/// hwloc's `HWLOC_DISTANCES_KIND_MEANS_LATENCY`.
const KIND_MEANS_LATENCY: u64 = 4;

/// A matrix read from the file: the builder's NUMA key of each of its objects
/// (`None` for an object the machine does not keep), and its values.
struct Matrix {
    keys: Vec<Option<usize>>,
    values: Vec<u32>,
}

/// Reads every NUMA-node latency matrix under `root`, checks each, and gives
/// the builder the first that covers every NUMA node kept.
pub(super) fn read(walk: &mut Walk<'_, '_>, root: Node<'_, '_>) -> Result<(), TopoError> {
    let mut by_os: HashMap<u64, usize> = HashMap::new();
    let mut by_gp: HashMap<u64, usize> = HashMap::new();
    for node in root.descendants().filter(is_object) {
        if let Some(&key) = walk.numa_keys.get(&node.range().start) {
            if let Some(os) = walk.number::<u64>(node, "os_index", "a node number")? {
                by_os.insert(os, key);
            }
            if let Some(gp) = walk.number::<u64>(node, "gp_index", "an object number")? {
                by_gp.insert(gp, key);
            }
        }
    }
    let mut found: Option<Matrix> = None;
    for el in root.descendants().filter(|n| n.is_element()) {
        let matrix = match el.tag_name().name() {
            "distances2" if walk.v2 => v2_matrix(walk, el, &by_os, &by_gp)?,
            "distances" if !walk.v2 => v1_matrix(walk, el)?,
            _ => None,
        };
        if let Some(m) = matrix {
            if found.is_none() && covers_all(walk, &m) {
                found = Some(m);
            }
        }
    }
    if let Some(m) = found {
        let nodes = walk.b.num_numa();
        let n = m.keys.len();
        let mut values = vec![0; nodes * nodes];
        for (i, a) in m.keys.iter().enumerate() {
            for (j, b) in m.keys.iter().enumerate() {
                if let (Some(a), Some(b)) = (a, b) {
                    values[a * nodes + b] = m.values[i * n + j];
                }
            }
        }
        walk.b.set_distances(RawDistances {
            nodes,
            values,
            source: DistanceSource::HwlocXml,
        });
    }
    Ok(())
}

/// Whether every NUMA node kept is an object of the matrix.
fn covers_all(walk: &Walk<'_, '_>, m: &Matrix) -> bool {
    !walk.numa_keys.is_empty() && walk.numa_keys.values().all(|k| m.keys.contains(&Some(*k)))
}

/// The numbers in the text of every child element named `name`.
fn numbers(walk: &Walk<'_, '_>, el: Node<'_, '_>, name: &str) -> Result<Vec<u64>, TopoError> {
    let mut out = Vec::new();
    for child in el.children().filter(|c| c.has_tag_name(name)) {
        for word in child.text().unwrap_or("").split_ascii_whitespace() {
            let v = word.parse::<u64>().map_err(|_| {
                walk.err(
                    child.range().start,
                    format_args!("<{name}> holds {word:?}, which is not a whole number"),
                )
            })?;
            out.push(v);
        }
    }
    Ok(out)
}

/// A required positive count attribute.
fn count(walk: &Walk<'_, '_>, el: Node<'_, '_>, name: &str) -> Result<usize, TopoError> {
    match walk.number::<usize>(el, name, "a number of objects")? {
        Some(n) if n > 0 => Ok(n),
        _ => Err(walk.err(
            el.range().start,
            format_args!(
                "expected a {name} attribute of at least 1 on <{}>",
                el.tag_name().name()
            ),
        )),
    }
}

/// A v2 `<distances2>`: `None` unless it is a latency matrix between NUMA nodes.
fn v2_matrix(
    walk: &Walk<'_, '_>,
    el: Node<'_, '_>,
    by_os: &HashMap<u64, usize>,
    by_gp: &HashMap<u64, usize>,
) -> Result<Option<Matrix>, TopoError> {
    let pos = el.range().start;
    if !el
        .attribute("type")
        .is_some_and(|t| t.eq_ignore_ascii_case("NUMANode"))
    {
        return Ok(None);
    }
    let kind = walk
        .number::<u64>(el, "kind", "a kind of distance (a number)")?
        .unwrap_or(KIND_MEANS_LATENCY);
    if kind & KIND_MEANS_LATENCY == 0 {
        return Ok(None);
    }
    let n = count(walk, el, "nbobjs")?;
    let by = match el.attribute("indexing").unwrap_or("os") {
        "os" => by_os,
        "gp" => by_gp,
        other => {
            return Err(walk.err(
                pos,
                format_args!("indexing=\"{other}\" is not \"os\" or \"gp\""),
            ))
        }
    };
    let indexes = numbers(walk, el, "indexes")?;
    if indexes.len() != n {
        return Err(walk.err(
            pos,
            format_args!(
                "nbobjs=\"{n}\" but <indexes> lists {} objects",
                indexes.len()
            ),
        ));
    }
    let raw = numbers(walk, el, "u64values")?;
    let mut values = Vec::with_capacity(raw.len());
    for v in raw {
        values.push(u32::try_from(v).map_err(|_| {
            walk.err(
                pos,
                format_args!("distance {v} is larger than the supported {}", u32::MAX),
            )
        })?);
    }
    check(walk, el, &values, n)?;
    let keys = indexes.iter().map(|i| by.get(i).copied()).collect();
    Ok(Some(Matrix { keys, values }))
}

/// A v1 `<distances>`: `None` unless its objects are NUMA nodes.
fn v1_matrix(walk: &Walk<'_, '_>, el: Node<'_, '_>) -> Result<Option<Matrix>, TopoError> {
    let pos = el.range().start;
    let Some(owner) = el.parent().filter(is_object) else {
        return Ok(None);
    };
    let n = count(walk, el, "nbobjs")?;
    let relative = walk
        .number::<usize>(el, "relative_depth", "a depth")?
        .ok_or_else(|| walk.err(pos, "expected a relative_depth attribute on <distances>"))?;
    // v1 levels are uniform: the objects at one nesting depth are of one type.
    let mut targets = Vec::new();
    let mut other = false;
    let mut stack = vec![(owner, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        for child in node.children().filter(is_object) {
            if depth + 1 == relative {
                match child
                    .attribute("type")
                    .map(str::to_ascii_lowercase)
                    .as_deref()
                {
                    Some("numanode") => targets.push(child),
                    Some("bridge" | "pcidev" | "osdev" | "misc") => {}
                    _ => other = true,
                }
            } else if depth + 1 < relative {
                stack.push((child, depth + 1));
            }
        }
    }
    if other || targets.is_empty() {
        return Ok(None);
    }
    targets.sort_by_key(|t| t.range().start);
    if targets.len() != n {
        return Err(walk.err(
            pos,
            format_args!(
                "nbobjs=\"{n}\" but the object holding it has {} NUMA nodes at relative depth {relative}",
                targets.len()
            ),
        ));
    }
    let base = match walk.number::<f64>(el, "latency_base", "a number")? {
        None => 1.0,
        Some(b) if b.is_finite() && b > 0.0 => b,
        Some(b) => {
            return Err(walk.err(
                pos,
                format_args!("latency_base=\"{b}\" is not a positive number"),
            ))
        }
    };
    let mut latencies = Vec::new();
    for child in el.children().filter(|c| c.has_tag_name("latency")) {
        let v = walk
            .number::<f64>(child, "value", "a number")?
            .ok_or_else(|| {
                walk.err(
                    child.range().start,
                    "expected a value attribute on <latency>",
                )
            })?;
        if !(v.is_finite() && v > 0.0) {
            return Err(walk.err(
                child.range().start,
                format_args!("latency value=\"{v}\" is not a positive number"),
            ));
        }
        latencies.push(v * base);
    }
    if latencies.len() != n * n {
        return Err(walk.err(
            pos,
            format_args!(
                "expected {} <latency> values ({n} nodes x {n}), found {}",
                n * n,
                latencies.len()
            ),
        ));
    }
    let min = latencies.iter().copied().fold(f64::INFINITY, f64::min);
    let mut values = Vec::with_capacity(latencies.len());
    for v in latencies {
        let scaled = (v * 10.0 / min).round();
        if scaled > f64::from(u32::MAX) {
            return Err(walk.err(
                pos,
                format_args!(
                    "latency {v} is more than {} times the smallest",
                    u32::MAX / 10
                ),
            ));
        }
        // In range and whole: checked just above.
        values.push(scaled as u32);
    }
    check(walk, el, &values, n)?;
    let keys = targets
        .iter()
        .map(|t| walk.numa_keys.get(&t.range().start).copied())
        .collect();
    Ok(Some(Matrix { keys, values }))
}

fn check(walk: &Walk<'_, '_>, el: Node<'_, '_>, values: &[u32], n: usize) -> Result<(), TopoError> {
    check_matrix(values, n).map_err(|msg| {
        walk.err(
            el.range().start,
            format_args!("<{}>: {msg}", el.tag_name().name()),
        )
    })
}
