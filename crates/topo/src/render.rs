//! Text rendering of a [`Topology`], in the manner of `lstopo`'s text output.
//!
//! Each PU's enclosing objects (NUMA node, package, caches, core) are ordered
//! from the largest to the smallest (ties: NUMA node, package, caches from the
//! highest level down, L1d before L1i, core), and the tree is printed with two
//! spaces of indentation per level; an object is printed once, before its
//! first PU; NUMA nodes without PUs follow, marked `memory only`. After the
//! tree comes one `squad` line per cache domain, then, when the source gave
//! them, the NUMA distances, one row per node.

use std::cmp::Reverse;
use std::fmt::Write as _;

use crate::distance::DistanceSource;
use crate::model::{CacheKind, Topology};

/// An object enclosing a PU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    Numa(usize),
    Package(usize),
    Cache(usize),
    Core(usize),
}

/// A size in the largest unit that divides it exactly: `6 MiB`, `6 MB`, `1001 B`
/// (hwloc's meaning of the units: `MB` is 10^6 bytes, `MiB` 2^20).
pub fn size(bytes: u64) -> String {
    // Largest unit first, binary and decimal interleaved.
    const UNITS: [(u64, &str); 8] = [
        (1 << 40, "TiB"),
        (1_000_000_000_000, "TB"),
        (1 << 30, "GiB"),
        (1_000_000_000, "GB"),
        (1 << 20, "MiB"),
        (1_000_000, "MB"),
        (1 << 10, "KiB"),
        (1_000, "kB"),
    ];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} B")
}

/// A sorted list of indices as ranges: `0-3,8,10-11`.
pub fn ranges(list: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while let Some(&start) = list.get(i) {
        let mut end = start;
        let mut j = i + 1;
        while let Some(&next) = list.get(j) {
            if Some(next) != end.checked_add(1) {
                break;
            }
            end = next;
            j += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if end == start {
            let _ = write!(out, "{start}");
        } else {
            let _ = write!(out, "{start}-{end}");
        }
        i = j;
    }
    out
}

pub(crate) fn render(t: &Topology) -> String {
    let mut out = String::new();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let _ = writeln!(
        out,
        "Machine {:?} ({}): {}, {}, {}, {}, {}",
        t.name(),
        if t.is_virtual() {
            "virtual"
        } else {
            "discovered"
        },
        plural(t.num_numa_nodes(), "NUMA node"),
        plural(t.num_packages(), "package"),
        plural(t.cache_domains().len(), "cache domain"),
        plural(t.num_cores(), "core"),
        plural(t.num_pus(), "PU"),
    );

    // lstopo-style logical numbers per cache label (L3 L#0, L2 L#0, ...).
    let mut label_counts: Vec<(String, usize)> = Vec::new();
    let cache_names: Vec<String> = t
        .caches()
        .iter()
        .map(|c| {
            let label = c.label();
            let n = match label_counts.iter_mut().find(|(l, _)| *l == label) {
                Some((_, n)) => {
                    *n += 1;
                    *n - 1
                }
                None => {
                    label_counts.push((label.clone(), 1));
                    0
                }
            };
            format!("{label} L#{n} ({})", size(c.size))
        })
        .collect();
    let mut caches_of_pu: Vec<Vec<usize>> = vec![Vec::new(); t.num_pus()];
    for (ci, c) in t.caches().iter().enumerate() {
        for &p in &c.pus {
            if let Some(l) = caches_of_pu.get_mut(p) {
                l.push(ci);
            }
        }
    }

    let set_len = |e: Elem| -> usize {
        match e {
            Elem::Numa(i) => t.numa_nodes().get(i).map_or(0, |n| n.pus.len()),
            Elem::Package(i) => t.packages().get(i).map_or(0, |n| n.pus.len()),
            Elem::Cache(i) => t.caches().get(i).map_or(0, |n| n.pus.len()),
            Elem::Core(i) => t.cores().get(i).map_or(0, |n| n.pus.len()),
        }
    };
    let precedence = |e: Elem| -> u32 {
        match e {
            Elem::Numa(_) => 0,
            Elem::Package(_) => 1,
            Elem::Cache(i) => t.caches().get(i).map_or(50, |c| {
                10 + 2 * (20 - u32::from(c.level.min(20)))
                    + u32::from(c.kind == CacheKind::Instruction)
            }),
            Elem::Core(_) => 100,
        }
    };
    let label = |e: Elem| -> String {
        match e {
            Elem::Numa(i) => {
                let n = t.numa_nodes().get(i);
                let mut extra = Vec::new();
                if let Some(os) = n.and_then(|n| n.os_index) {
                    extra.push(format!("P#{os}"));
                }
                if let Some(m) = n.and_then(|n| n.memory) {
                    extra.push(size(m));
                }
                if extra.is_empty() {
                    format!("NUMANode L#{i}")
                } else {
                    format!("NUMANode L#{i} ({})", extra.join(", "))
                }
            }
            Elem::Package(i) => match t.packages().get(i).and_then(|p| p.os_index) {
                Some(os) => format!("Package L#{i} (P#{os})"),
                None => format!("Package L#{i}"),
            },
            Elem::Cache(i) => cache_names.get(i).cloned().unwrap_or_default(),
            Elem::Core(i) => format!("Core L#{i}"),
        }
    };

    let mut prev: Vec<Elem> = Vec::new();
    for (pu, caches) in t.pus().iter().zip(&caches_of_pu) {
        let mut chain = vec![Elem::Numa(pu.numa), Elem::Package(pu.package)];
        chain.extend(caches.iter().map(|&c| Elem::Cache(c)));
        chain.push(Elem::Core(pu.core));
        chain.sort_by_key(|&e| (Reverse(set_len(e)), precedence(e)));
        let common = chain.iter().zip(&prev).take_while(|(a, b)| a == b).count();
        for (depth, &e) in chain.iter().enumerate().skip(common) {
            let _ = writeln!(out, "{:indent$}{}", "", label(e), indent = 2 * (depth + 1));
        }
        let indent = 2 * (chain.len() + 1);
        match pu.os_index {
            Some(os) => {
                let _ = writeln!(out, "{:indent$}PU L#{} (P#{os})", "", pu.index);
            }
            None => {
                let _ = writeln!(out, "{:indent$}PU L#{}", "", pu.index);
            }
        }
        prev = chain;
    }
    for n in t.numa_nodes().iter().filter(|n| n.pus.is_empty()) {
        let _ = writeln!(out, "  {} (memory only)", label(Elem::Numa(n.index)));
    }

    for d in t.cache_domains() {
        let llc = match &d.llc {
            Some(c) => format!("{} ({})", c.label(), size(c.size)),
            None => "no cache described".into(),
        };
        let _ = write!(
            out,
            "squad {}: package {}, {llc}, PUs {}",
            d.index,
            d.package,
            ranges(&d.pus)
        );
        let mut os: Vec<usize> = d
            .pus
            .iter()
            .filter_map(|&p| t.pus().get(p).and_then(|p| p.os_index))
            .collect();
        if !os.is_empty() {
            os.sort_unstable();
            let _ = write!(out, " (P#{})", ranges(&os));
        }
        out.push('\n');
    }
    if t.distance_source() != DistanceSource::Tree {
        let source = match t.distance_source() {
            DistanceSource::Sysfs => "sysfs",
            DistanceSource::HwlocXml => "hwloc XML",
            DistanceSource::Preset => "preset",
            DistanceSource::Tree => "tree",
        };
        let _ = writeln!(out, "NUMA distances ({source}):");
        let n = t.num_numa_nodes();
        for a in 0..n {
            let row: Vec<String> = (0..n)
                .map(|b| t.numa_distance(a, b).map_or("-".into(), |d| d.to_string()))
                .collect();
            let _ = writeln!(out, "  NUMANode L#{a}: {}", row.join(" "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges() {
        assert_eq!(size(6_291_456), "6 MiB");
        assert_eq!(size(6_000_000), "6 MB");
        assert_eq!(size(1000), "1 kB");
        assert_eq!(size(1001), "1001 B");
        assert_eq!(size(0), "0 B");
        assert_eq!(size(2_000_000_000), "2 GB");
        assert_eq!(size(33_554_432_000), "32000 MiB");
        assert_eq!(ranges(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[usize::MAX]), format!("{}", usize::MAX));
    }
}
