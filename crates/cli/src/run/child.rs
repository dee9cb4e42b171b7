//! Runs the program as locus's child and waits for it, passing on the signals that ask
//! a command to stop (SIGTERM, SIGINT, SIGHUP), so that stopping `locus run` stops the
//! program, and `locus run` still cleans up and exits as the program did.
//!
//! The protocol, on one thread (the process has no other that could take a signal, so
//! there is nothing to synchronise):
//! 1. SIGCHLD's disposition is set to the default (an inherited "ignore" would reap the
//!    child behind our back), and the three signals and SIGCHLD are blocked before the
//!    child is spawned: one that comes from then on waits, pending, for step 2 and never
//!    kills `locus run` by default. The child unblocks them again and takes back
//!    SIGCHLD's inherited disposition between fork and exec, so the program starts
//!    with the mask and dispositions `locus run` was given (exec resets handlers).
//! 2. Loop: reap the child if it has ended (`waitpid` with `WNOHANG`), else wait for one
//!    of the four signals (`sigwaitinfo`). SIGCHLD only wakes the loop. The others are
//!    sent to the child with `kill`, unless the kernel sent them (`si_code > 0`: a
//!    terminal's ^C or hangup, which reached the child's process group, the same as
//!    ours, already).
//! 3. The child is reaped only in step 2, by this thread, and nothing is sent after
//!    that: an ended child keeps its pid until it is reaped, so `kill` never reaches a
//!    process that took a reused pid.
//! 4. The child is also bound to `locus run`'s life (`PR_SET_PDEATHSIG`): a `locus run`
//!    killed outright (SIGKILL, which cannot be passed on) takes the program with it
//!    rather than orphan it.
//! 5. The signals stay blocked after the child is reaped: `locus run` only cleans up
//!    and exits then, and a signal that comes meanwhile must not cut the clean-up short.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus};

/// The signals passed on to the child.
pub(super) const FORWARDED: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// Spawns `command` and waits for it as the module docs say; the signals stay blocked
/// (step 5), so the caller should exit soon after.
pub(super) fn run(command: &mut Command) -> io::Result<ExitStatus> {
    let mut set = empty_set();
    for s in FORWARDED.into_iter().chain([libc::SIGCHLD]) {
        // SAFETY: `set` is an initialised sigset_t and `s` a valid signal number.
        unsafe { libc::sigaddset(&mut set, s) };
    }
    // SAFETY: SIG_DFL installs no handler; the previous disposition is returned.
    let chld = unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
    let mut old = empty_set();
    // SAFETY: both pointers are to initialised sigset_ts that outlive the call.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    // SAFETY: getpid has no preconditions and cannot fail.
    let parent = unsafe { libc::getpid() };
    let restore = move || {
        // SAFETY: runs in the child between fork and exec, where only async-signal-safe
        // calls are allowed: pthread_sigmask, signal, prctl (a bare system call) and
        // getppid are; `old` is the mask read above, and `chld` a disposition `signal`
        // returned (unless SIG_ERR).
        unsafe {
            if chld != libc::SIG_ERR {
                libc::signal(libc::SIGCHLD, chld);
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        Ok(())
    };
    // SAFETY: `restore` only makes the async-signal-safe calls above, allocates nothing
    // and touches no lock, as a closure run after fork must.
    unsafe { command.pre_exec(restore) };
    spawn_and_wait(command, &set)
}

/// An empty signal set.
fn empty_set() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigemptyset initialises it fully.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` points to a sigset_t.
    unsafe { libc::sigemptyset(&mut set) };
    set
}

/// Steps 2 and 3 of the module docs; `set` is blocked in this thread.
fn spawn_and_wait(command: &mut Command, set: &libc::sigset_t) -> io::Result<ExitStatus> {
    let mut child = command.spawn()?;
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        return child.wait();
    };
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(_) => return child.wait(),
        }
        // SAFETY: siginfo_t is plain data, written by sigwaitinfo before it is read.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` and `info` are valid for the call.
        let signal = unsafe { libc::sigwaitinfo(set, &mut info) };
        if signal < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return child.wait();
        }
        if signal == libc::SIGCHLD || info.si_code > 0 {
            continue;
        }
        // SAFETY: kill has no memory preconditions; `pid` is our child, not yet reaped
        // (step 3), so it names no other process.
        unsafe { libc::kill(pid, signal) };
    }
}

/// A signal's name (`SIGKILL`), if it is one of POSIX's and Linux's usual ones.
pub(super) fn signal_name(signal: i32) -> Option<&'static str> {
    const NAMES: &[(libc::c_int, &str)] = &[
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGCHLD, "SIGCHLD"),
        (libc::SIGCONT, "SIGCONT"),
        (libc::SIGSTOP, "SIGSTOP"),
        (libc::SIGTSTP, "SIGTSTP"),
        (libc::SIGTTIN, "SIGTTIN"),
        (libc::SIGTTOU, "SIGTTOU"),
        (libc::SIGURG, "SIGURG"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGWINCH, "SIGWINCH"),
        (libc::SIGIO, "SIGIO"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(n, _)| *n == signal)
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(libc::SIGKILL), Some("SIGKILL"));
        assert_eq!(signal_name(libc::SIGTERM), Some("SIGTERM"));
        assert_eq!(signal_name(0), None);
        assert_eq!(signal_name(1000), None);
    }
}
