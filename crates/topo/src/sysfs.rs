//! Discovery from Linux sysfs, limited to the CPUs this process may run on.
//!
//! Reads, under a root shaped like `/sys/devices/system`:
//!
//! * `cpu/online` (a cpulist such as `0-3,8,10-11`); without it, every
//!   `cpu/cpuN` directory;
//! * `cpu/cpuN/topology/physical_package_id` (package; missing or negative
//!   means package 0), `core_cpus_list` or else `thread_siblings_list` (the
//!   core is identified by its lowest CPU), else `core_id`, else the CPU is a
//!   core of its own;
//! * `cpu/cpuN/cache/indexK/{level,type,size,coherency_line_size,
//!   ways_of_associativity,shared_cpu_list}`; an index without `level`, `type`
//!   or `shared_cpu_list`, or of a type other than Data/Instruction/Unified, is
//!   skipped; a missing size, line size or associativity is 0 (unknown). A
//!   cache instance is identified by its level, type and `shared_cpu_list`.
//! * `node/nodeN/cpulist`. CPUs in no node (or all CPUs, when there is no
//!   `node` directory, as in many containers) share one NUMA node with no OS
//!   index.
//!
//! Missing files are normal; files with malformed content are errors naming
//! the file and the byte offset. Only this module calls `sched_getaffinity`.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

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

fn sorted(list: &[usize]) -> Vec<usize> {
    let mut v = list.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Reads a file if it exists; `Ok(None)` when it does not.
fn read_optional(path: &Path) -> Result<Option<String>, TopoError> {
    match fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
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
        None => numbered_entries(&cpu_dir, "cpu")?,
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
    for n in numbered_entries(&node_dir, "node")? {
        let path = node_dir.join(format!("node{n}")).join("cpulist");
        let Some(list) = read_cpulist(&path)? else {
            continue;
        };
        raw.numa.push(RawNuma {
            os_index: Some(n),
            memory: None,
        });
        let key = raw.numa.len() - 1;
        for c in list {
            numa_of.entry(c).or_insert(key);
        }
    }
    let mut implicit_numa: Option<usize> = None;

    let mut package_key: HashMap<i64, usize> = HashMap::new();
    let mut core_key: HashMap<(usize, usize, bool), usize> = HashMap::new();
    let mut cache_key: HashMap<CacheKey, usize> = HashMap::new();

    for &cpu in &cpus {
        let dir = cpu_dir.join(format!("cpu{cpu}"));
        let topo_dir = dir.join("topology");
        let pkg_id: i64 = read_number(&topo_dir.join("physical_package_id"), "a package number")?
            .unwrap_or(0)
            .max(0);
        let next = raw.packages.len();
        let package = *package_key.entry(pkg_id).or_insert(next);
        if package == next {
            raw.packages.push(usize::try_from(pkg_id).ok());
        }
        // A core is named by its lowest sibling (true) or its core_id (false).
        let mut siblings = read_cpulist(&topo_dir.join("core_cpus_list"))?;
        if siblings.is_none() {
            siblings = read_cpulist(&topo_dir.join("thread_siblings_list"))?;
        }
        let ck = match siblings.as_ref().and_then(|s| s.first()) {
            Some(&first) => (package, first, true),
            None => match read_number::<usize>(&topo_dir.join("core_id"), "a core number")? {
                Some(id) => (package, id, false),
                None => (package, cpu, true),
            },
        };
        let next = raw.num_cores;
        let core = *core_key.entry(ck).or_insert(next);
        if core == next {
            raw.num_cores += 1;
        }
        let numa = match numa_of.get(&cpu) {
            Some(&n) => n,
            None => *implicit_numa.get_or_insert_with(|| {
                raw.numa.push(RawNuma {
                    os_index: None,
                    memory: None,
                });
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
            let Some(shared) = read_cpulist(&idx.join("shared_cpu_list"))? else {
                continue;
            };
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
}
