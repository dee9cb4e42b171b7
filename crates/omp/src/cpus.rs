//! The CPUs a thread may run on: read and set (`sched_getaffinity`, `sched_setaffinity`).

/// The CPUs (Linux numbers, ascending) the calling thread may run on; `None` if the
/// kernel does not say.
pub(crate) fn thread_cpus() -> Option<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it for this thread.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        set
    };
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_ISSET reads the set within its size.
    Some(
        (0..max)
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect(),
    )
}

/// Restricts the calling thread to `cpus` (not empty, each below `CPU_SETSIZE`);
/// whether the kernel agreed.
pub(crate) fn set_thread_cpus(cpus: &[usize]) -> bool {
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    if cpus.is_empty() || cpus.iter().any(|&c| c >= max) {
        return false;
    }
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes within it (every
    // CPU is below its size, checked above); pid 0 is this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}
