//! How much more memory this process may take, as the files Linux keeps about the
//! process say, besides the machine's own figure (`MemAvailable` of `/proc/meminfo`,
//! which the kernels' estimate reads): an allocation past any of these fails or meets
//! the OOM killer however much the machine has free.
//!
//! - **resource limits** (`/proc/self/limits`): `RLIMIT_AS` (`ulimit -v`) bounds the
//!   address space, less what the process maps already (`VmSize` of
//!   `/proc/self/status`); `RLIMIT_DATA` (`ulimit -d`) its data segments, less
//!   `VmData`;
//! - **the memory controller of its cgroup**: cgroup v2's `memory.max` (found from the
//!   `0::PATH` line of `/proc/self/cgroup`, under `/sys/fs/cgroup`, or
//!   `/sys/fs/cgroup/unified` on a hybrid machine), or v1's `memory.limit_in_bytes`
//!   (the `memory` line), at every level from the process's cgroup up to the mount's
//!   root (a parent's limit holds its children too; in a container the path may name
//!   the host's hierarchy, whose levels then are not there and are skipped), each less
//!   what the cgroup uses (`memory.current` or `memory.usage_in_bytes`) without its page
//!   cache (`file` or `total_cache` of `memory.stat`), which the kernel reclaims first.
//!
//! [`process_limit`] is the smallest of these, read once per process; the parsers are
//! public and pure so that their arithmetic is tested on given text. Nothing here
//! fails: a file that is missing or unreadable bounds nothing.

use std::path::{Path, PathBuf};

/// Memory this process may still take, and the bound it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from, for messages: "RLIMIT_AS (ulimit -v) less the
    /// address space in use".
    pub source: &'static str,
}

/// The smaller of two bounds, either possibly absent.
fn smaller(a: Option<Limit>, b: Option<Limit>) -> Option<Limit> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.bytes < a.bytes { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The smallest bound on this process's further allocations: its resource limits and
/// its cgroup's memory limits (see the module documentation); `None` where none is set.
/// Read once per process.
pub fn process_limit() -> Option<Limit> {
    static LIMIT: std::sync::OnceLock<Option<Limit>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        let rlimits = match (
            read(Path::new("/proc/self/limits")),
            read(Path::new("/proc/self/status")),
        ) {
            (Some(limits), Some(status)) => rlimit_room(&limits, &status),
            _ => None,
        };
        let cgroups = read(Path::new("/proc/self/cgroup"))
            .and_then(|text| cgroup_room(&text, Path::new("/sys/fs/cgroup"), read));
        smaller(rlimits, cgroups)
    })
}

/// The room the resource limits leave, from the text of `/proc/self/limits` and of
/// `/proc/self/status`: `RLIMIT_AS` less `VmSize`, `RLIMIT_DATA` less `VmData`, the
/// smaller; `None` where both are unlimited (or unreadable).
pub fn rlimit_room(limits: &str, status: &str) -> Option<Limit> {
    let address = soft_limit(limits, "Max address space").map(|cap| Limit {
        bytes: cap.saturating_sub(status_kib(status, "VmSize").unwrap_or(0)),
        source: "RLIMIT_AS (ulimit -v) less the address space in use",
    });
    let data = soft_limit(limits, "Max data size").map(|cap| Limit {
        bytes: cap.saturating_sub(status_kib(status, "VmData").unwrap_or(0)),
        source: "RLIMIT_DATA (ulimit -d) less the data in use",
    });
    smaller(address, data)
}

/// The soft limit of the row `name` of `/proc/self/limits` in bytes; `None` when
/// unlimited or not found. A row is `NAME  SOFT  HARD  UNITS`, NAME itself in words.
fn soft_limit(limits: &str, name: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with(name))?;
    let soft = line[name.len()..].split_whitespace().next()?;
    soft.parse().ok()
}

/// A `NAME:  N kB` field of `/proc/self/status`, in bytes.
fn status_kib(status: &str, name: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?.strip_prefix(':')?;
        let kib: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
        Some(kib.saturating_mul(1024))
    })
}

/// A limit this large is no limit (cgroup v1 writes "unlimited" as the largest page
/// multiple below 2^63).
const UNLIMITED: u64 = 1 << 62;

/// The room the memory controller leaves, from the text of `/proc/self/cgroup`, the
/// cgroup mount `root` (`/sys/fs/cgroup`) and `read`, which gives a file's text (`None`
/// where it is not there): the smallest room over the levels from the process's cgroup
/// up to the root, for cgroup v2 and v1 alike.
pub fn cgroup_room(
    cgroup: &str,
    root: &Path,
    read: impl Fn(&Path) -> Option<String>,
) -> Option<Limit> {
    let mut best = None;
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            // cgroup v2: the unified hierarchy, at the root or beside v1's.
            for mount in [root.to_owned(), root.join("unified")] {
                if read(&mount.join("cgroup.controllers")).is_none() {
                    continue;
                }
                let room = levels(&mount, path).into_iter().filter_map(|dir| {
                    let max = number(read(&dir.join("memory.max"))?.trim())?;
                    let used = number(read(&dir.join("memory.current"))?.trim()).unwrap_or(0);
                    let cache = read(&dir.join("memory.stat"))
                        .and_then(|s| stat_field(&s, "file"))
                        .unwrap_or(0);
                    Some(Limit {
                        bytes: max.saturating_sub(used.saturating_sub(cache)),
                        source: "memory.max of this process's cgroup less its use",
                    })
                });
                best = room.fold(best, |a, b| smaller(a, Some(b)));
                break;
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let mount = root.join("memory");
            let room = levels(&mount, path).into_iter().filter_map(|dir| {
                let max = number(read(&dir.join("memory.limit_in_bytes"))?.trim())?;
                let used = number(read(&dir.join("memory.usage_in_bytes"))?.trim()).unwrap_or(0);
                let cache = read(&dir.join("memory.stat"))
                    .and_then(|s| stat_field(&s, "total_cache"))
                    .unwrap_or(0);
                Some(Limit {
                    bytes: max.saturating_sub(used.saturating_sub(cache)),
                    source: "memory.limit_in_bytes of this process's cgroup less its use",
                })
            });
            best = room.fold(best, |a, b| smaller(a, Some(b)));
        }
    }
    best
}

/// `mount/path`, then each folder above it, up to `mount` itself.
fn levels(mount: &Path, path: &str) -> Vec<PathBuf> {
    let mut out = vec![mount.to_owned()];
    let mut dir = mount.to_owned();
    for part in path.split('/').filter(|p| !p.is_empty() && *p != "..") {
        dir.push(part);
        out.push(dir.clone());
    }
    out.reverse();
    out
}

/// A byte count as a cgroup file writes it; `None` for `max` and for no limit.
fn number(text: &str) -> Option<u64> {
    text.parse().ok().filter(|&n| n < UNLIMITED)
}

/// The `NAME N` row of a `memory.stat`.
fn stat_field(stat: &str, name: &str) -> Option<u64> {
    stat.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        (key == name).then(|| value.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const LIMITS: &str = "\
Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max data size             unlimited            unlimited            bytes     
Max stack size            8388608              unlimited            bytes     
Max address space         4096000000           unlimited            bytes     
";
    const STATUS: &str = "Name:\tlocus\nVmPeak:\t  300000 kB\nVmSize:\t  200000 kB\n\
                          VmData:\t   50000 kB\n";

    #[test]
    fn the_address_space_limit_is_less_what_is_mapped() {
        let room = rlimit_room(LIMITS, STATUS).unwrap();
        assert_eq!(room.bytes, 4_096_000_000 - 200_000 * 1024);
        assert!(room.source.starts_with("RLIMIT_AS"), "{}", room.source);
        // The data limit wins where it is the smaller room.
        let data = LIMITS.replace(
            "Max data size             unlimited",
            "Max data size             1000000000",
        );
        let room = rlimit_room(&data, STATUS).unwrap();
        assert_eq!(room.bytes, 1_000_000_000 - 50_000 * 1024);
        assert!(room.source.starts_with("RLIMIT_DATA"), "{}", room.source);
        // Unlimited, or a limit already used up.
        let none = LIMITS.replace("4096000000", "unlimited");
        assert_eq!(rlimit_room(&none, STATUS), None);
        let used = LIMITS.replace("4096000000", "1000");
        assert_eq!(rlimit_room(&used, STATUS).unwrap().bytes, 0);
        assert_eq!(rlimit_room("garbage", "garbage"), None);
    }

    fn files(entries: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> {
        let map: HashMap<PathBuf, String> = entries
            .iter()
            .map(|(p, t)| (PathBuf::from(p), (*t).to_owned()))
            .collect();
        move |p: &Path| map.get(p).cloned()
    }

    #[test]
    fn a_cgroup_v2_limit_counts_at_every_level_without_the_page_cache() {
        let root = Path::new("/cg");
        let read = files(&[
            ("/cg/cgroup.controllers", "memory"),
            ("/cg/box/memory.max", "8000000000\n"),
            ("/cg/box/memory.current", "1000000000\n"),
            ("/cg/box/job/memory.max", "max\n"),
            ("/cg/box/job/memory.current", "900000000\n"),
            ("/cg/box/job/memory.stat", "anon 100\nfile 400000000\n"),
        ]);
        let room = cgroup_room("0::/box/job\n", root, &read).unwrap();
        assert_eq!(room.bytes, 7_000_000_000);
        assert!(room.source.contains("memory.max"), "{}", room.source);
        // The process's own level, where it has the smaller room; cache is not use.
        let read = files(&[
            ("/cg/cgroup.controllers", "memory"),
            ("/cg/box/memory.max", "8000000000\n"),
            ("/cg/box/memory.current", "1000000000\n"),
            ("/cg/box/job/memory.max", "2000000000\n"),
            ("/cg/box/job/memory.current", "900000000\n"),
            ("/cg/box/job/memory.stat", "anon 100\nfile 400000000\n"),
        ]);
        let room = cgroup_room("0::/box/job\n", root, &read).unwrap();
        assert_eq!(room.bytes, 2_000_000_000 - 500_000_000);
        // A container whose path names the host's levels: the mount's root counts.
        let read = files(&[
            ("/cg/cgroup.controllers", "memory"),
            ("/cg/memory.max", "3000000000"),
            ("/cg/memory.current", "0"),
        ]);
        assert_eq!(
            cgroup_room("0::/host/slice/x\n", root, &read)
                .unwrap()
                .bytes,
            3_000_000_000
        );
        // No limit anywhere, and no cgroup file system.
        let read = files(&[("/cg/cgroup.controllers", ""), ("/cg/memory.max", "max")]);
        assert_eq!(cgroup_room("0::/\n", root, &read), None);
        assert_eq!(cgroup_room("0::/\n", root, files(&[])), None);
        assert_eq!(cgroup_room("nonsense", root, files(&[])), None);
    }

    #[test]
    fn a_hybrid_machine_keeps_v2_under_unified_and_v1_memory_beside() {
        let root = Path::new("/cg");
        let read = files(&[
            ("/cg/unified/cgroup.controllers", ""),
            ("/cg/memory/memory.limit_in_bytes", "9223372036854771712\n"),
            ("/cg/memory/api/memory.limit_in_bytes", "4000000000\n"),
            ("/cg/memory/api/memory.usage_in_bytes", "3000000000\n"),
            (
                "/cg/memory/api/memory.stat",
                "cache 5\ntotal_cache 2500000000\n",
            ),
        ]);
        let text = "4:memory:/api\n3:cpuset:/\n0::/\n";
        let room = cgroup_room(text, root, &read).unwrap();
        assert_eq!(room.bytes, 4_000_000_000 - 500_000_000);
        assert!(room.source.contains("limit_in_bytes"), "{}", room.source);
        // v1's "unlimited" is no limit.
        let read = files(&[("/cg/memory/memory.limit_in_bytes", "9223372036854771712")]);
        assert_eq!(cgroup_room("4:memory:/\n", root, &read), None);
    }

    #[test]
    fn the_smaller_bound_wins() {
        let a = Limit {
            bytes: 5,
            source: "a",
        };
        let b = Limit {
            bytes: 3,
            source: "b",
        };
        assert_eq!(smaller(Some(a), Some(b)), Some(b));
        assert_eq!(smaller(None, Some(a)), Some(a));
        assert_eq!(smaller(None, None), None);
    }
}
