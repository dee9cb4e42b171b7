//! Where a pool's workers may run ([`Pinning`]), and pinning the calling thread to a
//! set of CPUs with `sched_setaffinity`.

use std::fmt;
use std::io;
use std::str::FromStr;

/// Where a pool's workers may run.
///
/// A worker pinned to one PU keeps its caches warm and never migrates, but inside its
/// tasks `std::thread::available_parallelism()` is 1: a library that sizes its own
/// thread pool there (rayon's global pool, a BLAS, libgomp) gets one thread. Pinned to
/// its squad's CPUs (the PUs under its L3), a worker sees the squad's CPU count there,
/// and the kernel may move it only between CPUs that share its L3, so the squad's
/// locality holds; what it loses is L1/L2 warmth when it moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pinning {
    /// Each worker to its own PU's CPU.
    Pu,
    /// Each worker to the CPUs of its squad's PUs.
    Squad,
    /// No pinning: the kernel places the workers.
    None,
}

impl Pinning {
    /// The names [`Pinning`] parses, in order.
    pub const NAMES: [&'static str; 3] = ["pu", "squad", "none"];
}

impl fmt::Display for Pinning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pinning::Pu => "pu",
            Pinning::Squad => "squad",
            Pinning::None => "none",
        })
    }
}

impl FromStr for Pinning {
    type Err = String;

    fn from_str(s: &str) -> Result<Pinning, String> {
        match s.trim() {
            "pu" => Ok(Pinning::Pu),
            "squad" => Ok(Pinning::Squad),
            "none" => Ok(Pinning::None),
            other => Err(format!(
                "unknown pinning {other:?}: expected one of {}",
                Pinning::NAMES.join(", ")
            )),
        }
    }
}

/// Restricts the calling thread to the CPUs `cpus` (Linux CPU numbers, not empty).
pub(crate) fn pin_current_thread(cpus: &[usize]) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        if let Some(&cpu) = cpus.iter().find(|&&c| c >= libc::CPU_SETSIZE as usize) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("CPU {cpu} is beyond CPU_SETSIZE"),
            ));
        }
        if cpus.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no CPU to pin to",
            ));
        }
        // SAFETY: cpu_set_t is plain data for which all-zero is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in cpus {
            // SAFETY: `cpu` is below CPU_SETSIZE (checked above), so CPU_SET stays in
            // bounds.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is this thread.
        let rc =
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "pinning is implemented for Linux only",
        ))
    }
}
