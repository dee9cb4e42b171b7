//! Discovery from Linux sysfs, limited to the CPUs this process may run on.
//!
//! Reads, under a root shaped like `/sys/devices/system`:
//!
//! * `cpu/online` (a cpulist such as `0-3,8,10-11`); without it, every
//!   `cpu/cpuN` directory whose `cpu/cpuN/online` does not say `0`;
//! * `cpu/cpuN/topology/physical_package_id` (the package's OS index; missing
//!   or negative means package 0). A package is identified by
//!   `package_cpus_list` or `core_siblings_list` (the CPUs of the package),
//!   else by `physical_package_id`: some machines built of several boards
//!   number the packages of each board from 0 again, as hwloc's IBM x3950 M2
//!   shows;
//! * `core_cpus_list` or else `thread_siblings_list`, and `core_id`: a core is
//!   identified by its lowest sibling and its `core_id` (AMD Bulldozer's
//!   kernels list the two cores of a compute unit as siblings, with different
//!   ids); without either the CPU is a core of its own. A `cpuN/online` that
//!   is empty counts as online;
//! * `cpu/cpuN/cache/indexK/{level,type,size,coherency_line_size,
//!   ways_of_associativity,shared_cpu_list}`; an index without `level`, `type`
//!   or `shared_cpu_list`, or of a type other than Data/Instruction/Unified, is
//!   skipped; a missing size, line size or associativity is 0 (unknown). A
//!   cache instance is identified by its level, type and `shared_cpu_list`;
//!   an empty list (old ia64 kernels) means the CPU's core.
//! * `node/nodeN/cpulist`. CPUs in no node join the first node; when there is
//!   no node (no `node` directory, as in many containers), all CPUs share one
//!   NUMA node with no OS index. A node whose list is empty has memory and no CPU (HBM, NVDIMM,
//!   CXL memory): it is kept as a NUMA node without PUs.
//! * `node/nodeN/distance`: the node's distance to every node, in the order of
//!   the node numbers, in the ACPI SLIT's units (10 for the node itself); see
//!   [`Topology::numa_distance`](crate::Topology::numa_distance). Read only
//!   when every node has one and there are at least two nodes (a lone node's
//!   distance says nothing, and old ia64 kernels write 0 there).
//!
//! Every `..._list` file has an older form, a hexadecimal mask, read when the
//! list is missing (kernels before 2.6.26 write only masks): `cpumap` for
//! `cpulist`, `package_cpus`, `core_siblings`, `core_cpus`, `thread_siblings`
//! and `shared_cpu_map`. A mask is comma-separated 32-bit words, most
//! significant first (`00000000,0000ff0f`).
//!
//! Missing files are normal; files with malformed content are errors naming
//! the file and the byte offset. Only this module calls `sched_getaffinity`.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::distance::{check_matrix, DistanceSource, RawDistances};
use crate::error::{Kind, TopoError};
use crate::model::{
    normalize, CacheAttrs, CacheKind, RawMachine, RawNuma, RawPu, Topology, MAX_PUS,
};
use crate::render::ranges;

/// Largest CPU number accepted in a cpulist (Linux's `NR_CPUS` tops out at 8192;
/// this leaves room).
pub(crate) const MAX_CPU: usize = MAX_PUS - 1;

/// Parses a Linux cpulist (`0-3,8,10-11`, possibly empty) into sorted,
/// deduplicated CPU numbers. The error is `(byte offset, message)`.
pub(crate) fn parse_cpulist(text: &str) -> Result<Vec<usize>, (usize, String)> {
    let mut cpus = Vec::new();
    let trimmed = text.trim_end();
    if trimmed.trim().is_empty() {
        return Ok(cpus);
    }
    let mut offset = 0;
    for part in trimmed.split(',') {
        let part_offset = offset;
        offset += part.len() + 1;
        let number = |s: &str, at: usize| -> Result<usize, (usize, String)> {
            let t = s.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err((at, format!("expected a CPU number, found {s:?}")));
            }
            match t.parse::<usize>() {
                Ok(n) if n <= MAX_CPU => Ok(n),
                _ => Err((
                    at,
                    format!("CPU number {t} is larger than the supported {MAX_CPU}"),
                )),
            }
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let lo = number(a, part_offset)?;
                let hi = number(b, part_offset + a.len() + 1)?;
                if hi < lo {
                    return Err((part_offset, format!("range {part:?} ends before it starts")));
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(number(part, part_offset)?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Parses a Linux CPU mask (`00000000,0000ff0f`: comma-separated hexadecimal
/// words of 32 bits, most significant first; the first word may be shorter)
/// into sorted CPU numbers. The error is `(byte offset, message)`.
pub(crate) fn parse_cpumask(text: &str) -> Result<Vec<usize>, (usize, String)> {
    let trimmed = text.trim_end();
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    let words: Vec<&str> = trimmed.split(',').collect();
    let mut cpus = Vec::new();
    let mut offset = 0;
    for (k, word) in words.iter().enumerate() {
        let at = offset;
        offset += word.len() + 1;
        if word.is_empty() || word.len() > 8 || !word.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err((
                at,
                format!("expected a hexadecimal word of at most 8 digits, found {word:?}"),
            ));
        }
        let bits = u32::from_str_radix(word, 16).map_err(|e| (at, e.to_string()))?;
        if bits == 0 {
            continue;
        }
        // Word k of n holds CPUs 32 * (n - 1 - k) and up.
        let base = (words.len() - 1 - k).saturating_mul(32);
        for b in 0..32 {
            if bits & (1 << b) != 0 {
                let cpu = base.saturating_add(b);
                if cpu > MAX_CPU {
                    return Err((
                        at,
                        format!("CPU number {cpu} is larger than the supported {MAX_CPU}"),
                    ));
                }
                cpus.push(cpu);
            }
        }
    }
    cpus.sort_unstable();
    Ok(cpus)
}

fn sorted(list: &[usize]) -> Vec<usize> {
    let mut v = list.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Reads a file if it exists; `Ok(None)` when it does not. Trailing NUL
/// bytes are dropped (copies of sysfs made by some tools end with them).
fn read_optional(path: &Path) -> Result<Option<String>, TopoError> {
    match fs::read_to_string(path) {
        Ok(mut s) => {
            while s.ends_with('\0') {
                s.pop();
            }
            Ok(Some(s))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(TopoError::io("sysfs file", path, e)),
    }
}

fn read_cpulist(path: &Path) -> Result<Option<Vec<usize>>, TopoError> {
    match read_optional(path)? {
        None => Ok(None),
        Some(text) => parse_cpulist(&text)
            .map(Some)
            .map_err(|(at, msg)| TopoError::sysfs_content(path, at, msg)),
    }
}

fn read_cpumask(path: &Path) -> Result<Option<Vec<usize>>, TopoError> {
    match read_optional(path)? {
        None => Ok(None),
        Some(text) => parse_cpumask(&text)
            .map(Some)
            .map_err(|(at, msg)| TopoError::sysfs_content(path, at, msg)),
    }
}

/// A set of CPUs from `dir/list` (a cpulist) or else `dir/mask` (a mask, the
/// older form); `None` when neither exists.
fn read_cpus(dir: &Path, list: &str, mask: &str) -> Result<Option<Vec<usize>>, TopoError> {
    match read_cpulist(&dir.join(list))? {
        Some(cpus) => Ok(Some(cpus)),
        None => read_cpumask(&dir.join(mask)),
    }
}

fn read_number<T: std::str::FromStr>(path: &Path, what: &str) -> Result<Option<T>, TopoError> {
    match read_optional(path)? {
        None => Ok(None),
        Some(text) => text.trim().parse().map(Some).map_err(|_| {
            TopoError::sysfs_content(
                path,
                0,
                format_args!("expected {what}, found {:?}", text.trim()),
            )
        }),
    }
}

/// A size as sysfs writes it: `32K`, `1024K`, `8M`, or plain bytes.
fn read_size(path: &Path) -> Result<Option<u64>, TopoError> {
    let Some(text) = read_optional(path)? else {
        return Ok(None);
    };
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(digits_end);
    let bad = |msg: &str| TopoError::sysfs_content(path, 0, format_args!("{msg}, found {t:?}"));
    let n: u64 = digits
        .parse()
        .map_err(|_| bad("expected a size such as 32K or 8M"))?;
    let mult: u64 = match unit {
        "" => 1,
        "K" | "k" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(bad("expected a size such as 32K or 8M")),
    };
    n.checked_mul(mult)
        .map(Some)
        .ok_or_else(|| bad("size too large"))
}

/// Names in `dir` of the form `<prefix><number>`, as numbers, sorted.
fn numbered_entries(dir: &Path, prefix: &str) -> Result<Vec<usize>, TopoError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(TopoError::io("sysfs directory", dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| TopoError::io("sysfs directory", dir, e))?;
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = rest.parse::<usize>() {
                if n <= MAX_CPU {
                    out.push(n);
                }
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Identity of a package across CPUs: its lowest CPU where sysfs lists the
/// package's CPUs, else its `physical_package_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PackageKey {
    FirstCpu(usize),
    Id(i64),
}

/// Reads `nodeN/distance` of every node in `nodes` (ascending node numbers):
/// each file holds one distance per node, in that order. The matrix covers
/// the raw NUMA keys `0..nodes.len()`, which are the nodes in that order.
fn read_distances(node_dir: &Path, nodes: &[usize]) -> Result<Option<RawDistances>, TopoError> {
    let n = nodes.len();
    let mut values = Vec::with_capacity(n * n);
    for &node in nodes {
        let path = node_dir.join(format!("node{node}")).join("distance");
        let Some(text) = read_optional(&path)? else {
            return Ok(None);
        };
        let mut count = 0;
        let mut offset = 0;
        for word in text.split(|c: char| c.is_ascii_whitespace()) {
            let at = offset;
            offset += word.len() + 1;
            if word.is_empty() {
                continue;
            }
            count += 1;
            let d = word.parse::<u32>().map_err(|_| {
                TopoError::sysfs_content(
                    &path,
                    at,
                    format_args!("expected a distance (a whole number), found {word:?}"),
                )
            })?;
            values.push(d);
        }
        if count != n {
            return Err(TopoError::sysfs_content(
                &path,
                0,
                format_args!(
                    "expected {n} distances, one per node ({}), found {count}",
                    ranges(nodes)
                ),
            ));
        }
    }
    check_matrix(&values, n).map_err(|msg| {
        let names: Vec<String> = nodes.iter().map(|k| format!("node{k}")).collect();
        TopoError::sysfs(
            node_dir,
            format_args!(
                "the distance files of {}: {}",
                names.join(", "),
                number_nodes(&msg, nodes)
            ),
        )
    })?;
    Ok(Some(RawDistances {
        nodes: n,
        values,
        source: DistanceSource::Sysfs,
    }))
}

/// Rewrites "node i" in a matrix message as the i-th node number.
fn number_nodes(msg: &str, nodes: &[usize]) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(at) = rest.find("node ") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|i| nodes.get(i))
        {
            Some(n) => out.push_str(&n.to_string()),
            None => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// Identity of a cache instance across CPUs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    level: u8,
    kind: CacheKind,
    shared: Vec<usize>,
}

/// Reads the machine under `root` (shaped like `/sys/devices/system`),
/// keeping only the CPUs in `allowed` when given.
pub(crate) fn from_sysfs(
    root: &Path,
    allowed: Option<&[usize]>,
    name: &str,
    is_virtual: bool,
) -> Result<Topology, TopoError> {
    let cpu_dir = root.join("cpu");
    let online_path = cpu_dir.join("online");
    let mut cpus = match read_cpulist(&online_path)? {
        Some(list) => list,
        None => {
            let mut online = Vec::new();
            for cpu in numbered_entries(&cpu_dir, "cpu")? {
                let path = cpu_dir.join(format!("cpu{cpu}")).join("online");
                let offline = match read_optional(&path)? {
                    Some(text) if !text.trim().is_empty() => {
                        read_number::<u8>(&path, "0 or 1")? == Some(0)
                    }
                    _ => false,
                };
                if !offline {
                    online.push(cpu);
                }
            }
            online
        }
    };
    if cpus.is_empty() {
        return Err(TopoError::sysfs(
            root,
            format_args!(
                "expected online CPUs in {online_path:?} or cpu/cpuN directories, found none"
            ),
        ));
    }
    if let Some(allowed) = allowed {
        let all = cpus.clone();
        let set: std::collections::HashSet<usize> = allowed.iter().copied().collect();
        cpus.retain(|c| set.contains(c));
        if cpus.is_empty() {
            return Err(TopoError::sysfs(
                root,
                format_args!(
                    "none of the allowed CPUs ({}) is online (online: {})",
                    ranges(&sorted(allowed)),
                    ranges(&all)
                ),
            ));
        }
    }

    // NUMA nodes.
    let node_dir = root.join("node");
    let mut raw = RawMachine {
        name: name.to_owned(),
        is_virtual,
        ..RawMachine::default()
    };
    let mut numa_of: HashMap<usize, usize> = HashMap::new();
    let node_numbers = numbered_entries(&node_dir, "node")?;
    let mut listed = 0;
    for &n in &node_numbers {
        let Some(list) = read_cpus(&node_dir.join(format!("node{n}")), "cpulist", "cpumap")? else {
            continue;
        };
        listed += 1;
        raw.numa.push(RawNuma {
            os_index: Some(n),
            memory: None,
            keep_without_pus: list.is_empty(),
        });
        let key = raw.numa.len() - 1;
        for c in list {
            numa_of.entry(c).or_insert(key);
        }
    }
    if listed == node_numbers.len() && listed >= 2 {
        raw.distances = read_distances(&node_dir, &node_numbers)?;
    }
    let mut implicit_numa: Option<usize> = None;

    let mut package_key: HashMap<PackageKey, usize> = HashMap::new();
    let mut core_key: HashMap<(usize, Option<usize>, Option<usize>), usize> = HashMap::new();
    let mut cache_key: HashMap<CacheKey, usize> = HashMap::new();

    for &cpu in &cpus {
        let dir = cpu_dir.join(format!("cpu{cpu}"));
        let topo_dir = dir.join("topology");
        let pkg_id: i64 = read_number(&topo_dir.join("physical_package_id"), "a package number")?
            .unwrap_or(0)
            .max(0);
        let mut pkg_cpus = read_cpus(&topo_dir, "package_cpus_list", "package_cpus")?;
        if pkg_cpus.is_none() {
            pkg_cpus = read_cpus(&topo_dir, "core_siblings_list", "core_siblings")?;
        }
        let pkg = match pkg_cpus.as_ref().and_then(|s| s.first()) {
            Some(&first) => PackageKey::FirstCpu(first),
            None => PackageKey::Id(pkg_id),
        };
        let next = raw.packages.len();
        let package = *package_key.entry(pkg).or_insert(next);
        if package == next {
            raw.packages.push(usize::try_from(pkg_id).ok());
        }
        // A core is named by its lowest sibling and its core_id: the two cores
        // of an AMD Bulldozer compute unit are siblings with different ids.
        let mut siblings = read_cpus(&topo_dir, "core_cpus_list", "core_cpus")?;
        if siblings.is_none() {
            siblings = read_cpus(&topo_dir, "thread_siblings_list", "thread_siblings")?;
        }
        let core_id = read_number::<usize>(&topo_dir.join("core_id"), "a core number")?;
        let ck = match (siblings.as_ref().and_then(|s| s.first()), core_id) {
            (Some(&first), id) => (package, Some(first), id),
            (None, Some(id)) => (package, None, Some(id)),
            (None, None) => (package, Some(cpu), None),
        };
        let next = raw.num_cores;
        let core = *core_key.entry(ck).or_insert(next);
        if core == next {
            raw.num_cores += 1;
        }
        let numa = match numa_of.get(&cpu) {
            Some(&n) => n,
            // CPUs in no node join the first node of a tree that has nodes.
            None if !raw.numa.is_empty() && implicit_numa.is_none() => 0,
            None => *implicit_numa.get_or_insert_with(|| {
                raw.numa.push(RawNuma::default());
                raw.numa.len() - 1
            }),
        };
        // Caches.
        let cache_dir = dir.join("cache");
        let mut mine: Vec<(u8, CacheKind, usize)> = Vec::new();
        for k in numbered_entries(&cache_dir, "index")? {
            let idx = cache_dir.join(format!("index{k}"));
            let Some(level) = read_number::<u8>(&idx.join("level"), "a cache level")? else {
                continue;
            };
            let Some(ty) = read_optional(&idx.join("type"))? else {
                continue;
            };
            let kind = match ty.trim() {
                "Data" => CacheKind::Data,
                "Instruction" => CacheKind::Instruction,
                "Unified" => CacheKind::Unified,
                _ => continue,
            };
            let Some(mut shared) = read_cpus(&idx, "shared_cpu_list", "shared_cpu_map")? else {
                continue;
            };
            if shared.is_empty() {
                // Old ia64 kernels write an empty map for a core's caches.
                shared = siblings.clone().unwrap_or_else(|| vec![cpu]);
            }
            let key = CacheKey {
                level,
                kind,
                shared,
            };
            let next = raw.caches.len();
            let ci = *cache_key.entry(key).or_insert(next);
            if ci == next {
                raw.caches.push(CacheAttrs {
                    level,
                    kind,
                    size: read_size(&idx.join("size"))?.unwrap_or(0),
                    line_size: read_number(&idx.join("coherency_line_size"), "a line size")?
                        .unwrap_or(0),
                    associativity: read_number(
                        &idx.join("ways_of_associativity"),
                        "a number of ways",
                    )?
                    .unwrap_or(0),
                });
            }
            mine.push((level, kind, ci));
        }
        // Outermost first: higher level first, data/unified before instruction.
        mine.sort_by_key(|&(level, kind, _)| {
            (std::cmp::Reverse(level), kind == CacheKind::Instruction)
        });
        raw.pus.push(RawPu {
            os_index: Some(cpu),
            numa,
            package,
            core,
            caches: mine.into_iter().map(|(_, _, c)| c).collect(),
        });
    }
    normalize(raw)
}

/// The CPUs this process may run on (`sched_getaffinity`), sorted.
#[cfg(target_os = "linux")]
pub(crate) fn allowed_cpus() -> Result<Vec<usize>, TopoError> {
    // Start with glibc's 1024-bit set and grow on EINVAL (machines with more
    // CPUs than the set holds).
    let word_bits = usize::try_from(libc::c_ulong::BITS).unwrap_or(64);
    let mut words: usize = 1024 / word_bits;
    loop {
        let mut mask: Vec<libc::c_ulong> = vec![0; words];
        let bytes = words * std::mem::size_of::<libc::c_ulong>();
        // SAFETY: `mask` is a live, writable buffer of exactly `bytes` bytes,
        // suitably aligned for `cpu_set_t` (an array of `c_ulong`); the kernel
        // writes at most `bytes` bytes into it. Pid 0 is this thread.
        let rc = unsafe {
            libc::sched_getaffinity(0, bytes, mask.as_mut_ptr().cast::<libc::cpu_set_t>())
        };
        if rc == 0 {
            let mut cpus = Vec::new();
            for (w, &bits) in mask.iter().enumerate() {
                for b in 0..word_bits {
                    if bits & (1 << b) != 0 {
                        cpus.push(w * word_bits + b);
                    }
                }
            }
            return Ok(cpus);
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EINVAL) && words * word_bits < (1 << 20) {
            words *= 2;
            continue;
        }
        return Err(Kind::CpuMask { err }.into());
    }
}

/// The CPUs this process may run on: unsupported off Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) fn allowed_cpus() -> Result<Vec<usize>, TopoError> {
    Err(Kind::CpuMask {
        err: io::Error::new(
            io::ErrorKind::Unsupported,
            "sched_getaffinity is Linux-only",
        ),
    }
    .into())
}

/// The sysfs root of this machine.
pub(crate) fn system_root() -> PathBuf {
    PathBuf::from("/sys/devices/system")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpulists() {
        assert_eq!(
            parse_cpulist("0-3,8,10-11\n"),
            Ok(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_cpulist("5"), Ok(vec![5]));
        assert_eq!(parse_cpulist("\n"), Ok(vec![]));
        assert_eq!(parse_cpulist("3,1-2,2"), Ok(vec![1, 2, 3]));
        assert!(parse_cpulist("3-1").is_err());
        assert!(parse_cpulist("a").is_err());
        assert!(parse_cpulist("0-").is_err());
        assert!(parse_cpulist("0-99999999999999999999").is_err());
        assert_eq!(parse_cpulist("0,x").unwrap_err().0, 2);
    }

    #[test]
    fn cpumasks() {
        assert_eq!(parse_cpumask("0000000f\n"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpumask("00000001,00000100"), Ok(vec![8, 32]));
        assert_eq!(parse_cpumask("f"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpumask("00000000,00000000\n"), Ok(vec![]));
        assert_eq!(parse_cpumask(""), Ok(vec![]));
        assert_eq!(parse_cpumask("0,x").unwrap_err().0, 2);
        assert!(parse_cpumask("123456789").is_err());
        assert!(parse_cpumask("1,,0").is_err());
        let mut huge = String::from("1");
        huge.push_str(&",00000000".repeat(4096));
        assert!(parse_cpumask(&huge)
            .unwrap_err()
            .1
            .contains("larger than the supported"));
        let zeros = ",00000000".repeat(100_000);
        assert_eq!(parse_cpumask(&format!("0{zeros}")), Ok(vec![]));
    }

    #[test]
    fn node_numbers_in_messages() {
        assert_eq!(
            number_nodes("node 0 to node 1 is 0", &[3, 7]),
            "node 3 to node 7 is 0"
        );
    }
}
