//! Synchronisation: `barrier`, `single`, `critical`, `atomic`, the cancellation entry
//! points (cancellation is off), and the `error` directive.

use crate::guard::guard;
use crate::{lock, loops, member, task, team};

/// `GOMP_CANCEL_TASKGROUP` (gomp-constants.h): the `which` of `cancel taskgroup`.
const CANCEL_TASKGROUP: c_int = 8;
use std::ffi::{c_int, c_void};

exports! {
    "GOMP_1.0" fn GOMP_single_start() -> bool {
        guard("GOMP_single_start", team::single_start)
    }

    "GOMP_1.0" fn GOMP_single_copy_start() -> *mut c_void {
        guard("GOMP_single_copy_start", || {
            loops::single_copy_start(member::member())
        })
    }

    "GOMP_1.0" fn GOMP_single_copy_end(data: *mut c_void) {
        guard("GOMP_single_copy_end", || {
            loops::single_copy_end(member::member(), data)
        })
    }

    "GOMP_1.0" fn GOMP_barrier() {
        guard("GOMP_barrier", team::barrier)
    }

    /// `#pragma omp cancel`: under `OMP_CANCELLATION=true`, `cancel taskgroup` cancels the
    /// running task's taskgroup (`task::cancel_taskgroup`; with a false `if`, it is a
    /// cancellation point); every other construct, and all of them without the setting
    /// (libgomp's default), is ignored, as OpenMP says it then is: nothing is cancelled
    /// and the answer is false.
    "GOMP_4.0" fn GOMP_cancel(which: c_int, do_cancel: bool) -> bool {
        guard("GOMP_cancel", || match (which & CANCEL_TASKGROUP != 0, do_cancel) {
            (true, true) => task::cancel_taskgroup(),
            (true, false) => task::taskgroup_cancelled(),
            (false, _) => false,
        })
    }

    /// Whether the running task's taskgroup was cancelled (`cancellation point
    /// taskgroup`); false for every other construct (their cancellation is off).
    "GOMP_4.0" fn GOMP_cancellation_point(which: c_int) -> bool {
        guard("GOMP_cancellation_point", || {
            which & CANCEL_TASKGROUP != 0 && task::taskgroup_cancelled()
        })
    }

    /// The barrier of a region that has a `cancel
    /// parallel`; a barrier, never cancelled.
    "GOMP_4.0" fn GOMP_barrier_cancel() -> bool {
        guard("GOMP_barrier_cancel", team::barrier);
        false
    }

    "GOMP_1.0" fn GOMP_critical_start() {
        guard("GOMP_critical_start", || lock::lock(&lock::CRITICAL))
    }

    "GOMP_1.0" fn GOMP_critical_end() {
        guard("GOMP_critical_end", || lock::unlock(&lock::CRITICAL))
    }

    "GOMP_1.0" fn GOMP_critical_name_start(pptr: *mut *mut c_void) {
        guard("GOMP_critical_name_start", || {
            // SAFETY: GCC passes the name's pointer-sized, zero-initialised slot.
            lock::lock(unsafe { lock::word(pptr.cast()) })
        })
    }

    "GOMP_1.0" fn GOMP_critical_name_end(pptr: *mut *mut c_void) {
        guard("GOMP_critical_name_end", || {
            // SAFETY: as for GOMP_critical_name_start.
            lock::unlock(unsafe { lock::word(pptr.cast()) })
        })
    }

    "GOMP_1.0" fn GOMP_atomic_start() {
        guard("GOMP_atomic_start", || lock::lock(&lock::ATOMIC))
    }

    "GOMP_1.0" fn GOMP_atomic_end() {
        guard("GOMP_atomic_end", || lock::unlock(&lock::ATOMIC))
    }

    /// `#pragma omp error severity(warning)` at run time.
    "GOMP_5.1" fn GOMP_warning(msg: *const std::ffi::c_char, len: usize) {
        guard("GOMP_warning", || {
            // SAFETY: GCC's message.
            let m = unsafe { directive_message(msg, len) };
            // As libgomp prints it (`error.c`), blank line first, under its name: programs and
            // their tests look for this line.
            eprint!("\nlibgomp: error directive encountered{m}\n");
        })
    }

    /// `#pragma omp error` (severity fatal) at run time: the
    /// message, then exit with status 1, as libgomp.
    "GOMP_5.1" fn GOMP_error(msg: *const std::ffi::c_char, len: usize) {
        guard("GOMP_error", || {
            // SAFETY: GCC's message.
            let m = unsafe { directive_message(msg, len) };
            eprint!("\nlibgomp: fatal error: error directive encountered{m}\n");
            std::process::exit(1)
        })
    }
}

/// The message of an `error` directive: `len` bytes, or up to a NUL for `usize::MAX`.
///
/// # Safety
/// `msg` is null or GCC's message.
unsafe fn directive_message(msg: *const std::ffi::c_char, len: usize) -> String {
    if msg.is_null() {
        return String::new();
    }
    let bytes = if len == usize::MAX {
        // SAFETY: a NUL-terminated string (GCC's contract for this length).
        unsafe { std::ffi::CStr::from_ptr(msg) }.to_bytes()
    } else {
        // SAFETY: `len` readable bytes.
        unsafe { std::slice::from_raw_parts(msg.cast::<u8>(), len) }
    };
    format!(": {}", String::from_utf8_lossy(bytes))
}
