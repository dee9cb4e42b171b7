//! Thread affinity display (OpenMP 5.0): `omp_capture_affinity`,
//! `omp_display_affinity`, and `OMP_DISPLAY_AFFINITY=true`, under which each member of
//! a parallel region prints its line when it enters a region and the line differs from
//! the last it printed. The format's grammar is `affinity_format.rs`'s; the format
//! itself, affinity-format-var, is an ICV (`env.rs`).

use crate::affinity_format::{parse, render, Values};

/// The CPUs this thread may run on, as ranges (`0-3,8`).
fn cpu_list() -> String {
    crate::cpus::thread_cpus().map_or_else(String::new, |cpus| locus_topo::format_ranges(&cpus))
}

fn host() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: a writable buffer of its length; the name is NUL-terminated within it.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    if ok && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "node".to_string()
    }
}

/// The running thread's values.
fn current() -> Values {
    let m = crate::member::member();
    Values {
        team_num: crate::teams::team_num().into(),
        num_teams: crate::teams::num_teams().into(),
        level: m.level as i64,
        thread_num: m.num as i64,
        num_threads: m.team().size as i64,
        ancestor: m
            .level
            .checked_sub(1)
            .and_then(|l| m.ancestor(l))
            .map_or(-1, |a| a.num as i64),
        host: host(),
        // SAFETY: no arguments; always succeed on Linux.
        pid: unsafe { libc::getpid() }.into(),
        // SAFETY: as above.
        tid: unsafe { libc::gettid() }.into(),
        cpus: cpu_list(),
    }
}

/// The running thread's line under `format` (affinity-format-var if empty); a bad
/// format ends the program, naming it.
pub(crate) fn capture(format: Option<&str>) -> String {
    let format = match format {
        Some(f) if !f.is_empty() => f.to_string(),
        _ => crate::env::affinity_format(),
    };
    match parse(&format) {
        Ok(pieces) => render(&pieces, &current()),
        Err(e) => crate::env::fail(&format!("the affinity format {format:?}: {e}")),
    }
}

std::thread_local! {
    /// The last line `OMP_DISPLAY_AFFINITY` printed on this thread.
    static LAST: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Under `OMP_DISPLAY_AFFINITY=true`: a member entering a region prints its line if
/// it differs from the last this thread printed.
pub(crate) fn display_on_entry() {
    if !crate::env::settings().display_affinity {
        return;
    }
    let line = capture(None);
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if *last != line {
            eprintln!("{line}");
            *last = line;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_threads_cpus_are_listed() {
        assert!(!cpu_list().is_empty());
    }
}
