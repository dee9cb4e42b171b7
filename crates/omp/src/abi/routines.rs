//! The `omp_*` routines of the execution environment: threads, levels and ICVs,
//! schedules, places and affinity, timers, pause; and locus's own footprint calls.

use crate::guard::guard;
use crate::schedule::{Kind, Schedule};
use crate::{affinity, env, footprint, member, target, task, team, teams};
use std::ffi::{c_int, c_uint, c_void};

exports! {
    "OMP_1.0" fn omp_get_thread_num() -> c_int {
        guard("omp_get_thread_num", || member::member().num as c_int)
    }

    "OMP_1.0" fn omp_get_num_threads() -> c_int {
        guard("omp_get_num_threads", || {
            member::member().team().size as c_int
        })
    }

    "OMP_1.0" fn omp_get_max_threads() -> c_int {
        guard("omp_get_max_threads", || team::max_threads() as c_int)
    }

    "OMP_1.0" fn omp_set_num_threads(n: c_int) {
        guard("omp_set_num_threads", || {
            let n = n.clamp(1, locus::MAX_THREADS as c_int);
            member::current().nthreads.set(n as u32)
        })
    }

    "OMP_1.0" fn omp_in_parallel() -> c_int {
        guard("omp_in_parallel", || c_int::from(member::member().active))
    }

    "OMP_3.1" fn omp_in_final() -> c_int {
        guard("omp_in_final", || c_int::from(task::in_final()))
    }

    "OMP_2.0" fn omp_get_wtime() -> f64 {
        guard("omp_get_wtime", wtime)
    }

    "OMP_2.0" fn omp_get_wtick() -> f64 {
        guard("omp_get_wtick", || 1e-9)
    }

    /// The processors this thread may run on (its affinity mask,
    /// as libgomp counts them), before locus bound it (`crew::num_procs`).
    "OMP_1.0" fn omp_get_num_procs() -> c_int {
        guard("omp_get_num_procs", || {
            c_int::try_from(crate::crew::num_procs()).unwrap_or(c_int::MAX)
        })
    }

    /// Dyn-var (`env.rs`); locus never adjusts a team's size,
    /// which either value allows.
    "OMP_1.0" fn omp_get_dynamic() -> c_int {
        guard("omp_get_dynamic", || c_int::from(env::dynamic()))
    }

    /// Sets dyn-var.
    "OMP_1.0" fn omp_set_dynamic(dynamic: c_int) {
        guard("omp_set_dynamic", || env::set_dynamic(dynamic != 0))
    }

    /// Whether max-active-levels-var allows more than one
    /// active level, as libgomp answers.
    "OMP_1.0" fn omp_get_nested() -> c_int {
        guard("omp_get_nested", || {
            c_int::from(env::max_active_levels() > 1)
        })
    }

    /// As libgomp, true sets max-active-levels-var to every
    /// level locus supports, false lowers one above 1 to 1.
    "OMP_1.0" fn omp_set_nested(nested: c_int) {
        guard("omp_set_nested", || {
            let levels = env::max_active_levels();
            if nested != 0 {
                env::set_max_active_levels(env::SUPPORTED_ACTIVE_LEVELS as c_int);
            } else if nested == 0 && levels > 1 {
                env::set_max_active_levels(1);
            }
        })
    }

    /// The enclosing parallel regions, active or not.
    "OMP_3.0" fn omp_get_level() -> c_int {
        guard("omp_get_level", || member::member().level as c_int)
    }

    /// The enclosing regions of more than one thread.
    "OMP_3.0" fn omp_get_active_level() -> c_int {
        guard("omp_get_active_level", || {
            member::member().active_level as c_int
        })
    }

    "OMP_3.0" fn omp_get_ancestor_thread_num(level: c_int) -> c_int {
        guard("omp_get_ancestor_thread_num", || {
            let m = member::member();
            usize::try_from(level)
                .ok()
                .and_then(|l| m.ancestor(l))
                .map_or(-1, |a| a.num as c_int)
        })
    }

    "OMP_3.0" fn omp_get_team_size(level: c_int) -> c_int {
        guard("omp_get_team_size", || {
            let m = member::member();
            usize::try_from(level)
                .ok()
                .and_then(|l| m.ancestor(l))
                .map_or(-1, |a| a.team().size as c_int)
        })
    }

    /// Thread-limit-var (`OMP_THREAD_LIMIT`, else the
    /// largest team locus makes), or the enclosing `teams` region's limit if lower.
    "OMP_3.0" fn omp_get_thread_limit() -> c_int {
        guard("omp_get_thread_limit", || {
            let limit = env::thread_limit();
            teams::thread_limit().map_or(limit, |l| l.min(limit)) as c_int
        })
    }

    /// Max-active-levels-var, at most the levels
    /// locus supports (`env.rs`).
    "OMP_3.0" fn omp_get_max_active_levels() -> c_int {
        guard("omp_get_max_active_levels", || {
            env::max_active_levels() as c_int
        })
    }

    /// Sets max-active-levels-var (0: every region
    /// inactive; negative values are ignored).
    "OMP_3.0" fn omp_set_max_active_levels(levels: c_int) {
        guard("omp_set_max_active_levels", || {
            env::set_max_active_levels(levels)
        })
    }

    /// `env::SUPPORTED_ACTIVE_LEVELS`.
    "OMP_5.0.1" fn omp_get_supported_active_levels() -> c_int {
        env::SUPPORTED_ACTIVE_LEVELS as c_int
    }

    /// Run-sched-var, as omp_sched_t (static 1, dynamic 2,
    /// guided 3) and its chunk.
    "OMP_3.0" fn omp_get_schedule(kind: *mut c_uint, chunk: *mut c_int) {
        guard("omp_get_schedule", || {
            let s = env::run_schedule();
            let k = match s.kind {
                Kind::Static => 1,
                Kind::Dynamic => 2,
                Kind::Guided => 3,
            };
            // SAFETY: the program passes two writable ints.
            unsafe {
                *kind = k;
                *chunk = c_int::try_from(s.chunk).unwrap_or(c_int::MAX);
            }
        })
    }

    /// Sets run-sched-var (auto is taken as static, as
    /// `OMP_SCHEDULE` is; an unknown kind is ignored).
    "OMP_3.0" fn omp_set_schedule(kind: c_uint, chunk: c_int) {
        guard("omp_set_schedule", || {
            let chunk = u64::try_from(chunk).unwrap_or(0);
            let schedule = match kind & !SCHED_MONOTONIC {
                1 | 4 => Schedule {
                    kind: Kind::Static,
                    chunk,
                },
                2 => Schedule {
                    kind: Kind::Dynamic,
                    chunk: chunk.max(1),
                },
                3 => Schedule {
                    kind: Kind::Guided,
                    chunk: chunk.max(1),
                },
                _ => return,
            };
            env::set_schedule(schedule);
        })
    }

    /// False; cancellation is off (`GOMP_cancel`).
    "OMP_4.0" fn omp_get_cancellation() -> c_int {
        0
    }

    /// Bind-var's first level (`OMP_PROC_BIND`, else
    /// omp_proc_bind_false); `env::binding` says how far locus's pinning follows it.
    "OMP_4.0" fn omp_get_proc_bind() -> c_int {
        guard("omp_get_proc_bind", env::proc_bind)
    }

    /// 0; locus has no place list.
    "OMP_4.5" fn omp_get_num_places() -> c_int {
        0
    }

    /// -1, bound to no place.
    "OMP_4.5" fn omp_get_place_num() -> c_int {
        -1
    }

    /// 0; with no place list, every place number is
    /// out of range.
    "OMP_4.5" fn omp_get_place_num_procs(_place: c_int) -> c_int {
        0
    }

    /// Writes nothing (no place has processors).
    "OMP_4.5" fn omp_get_place_proc_ids(_place: c_int, _ids: *mut c_int) {}

    /// Writes nothing (the partition holds no
    /// places).
    "OMP_4.5" fn omp_get_partition_place_nums(_places: *mut c_int) {}

    /// The settings, on stderr (`env::display`).
    "OMP_5.1" fn omp_display_env(verbose: c_int) {
        guard("omp_display_env", || {
            eprint!("{}", env::display(verbose != 0))
        })
    }

    /// (`affinity.rs`).
    "OMP_5.0" fn omp_set_affinity_format(format: *const std::ffi::c_char) {
        guard("omp_set_affinity_format", || {
            // SAFETY: the program's NUL-terminated format.
            env::set_affinity_format(&unsafe { c_str(format) }.unwrap_or_default())
        })
    }

    /// The format's length; at most `size - 1` bytes
    /// of it copied, with a NUL.
    "OMP_5.0" fn omp_get_affinity_format(
        buffer: *mut std::ffi::c_char,
        size: usize,
    ) -> usize {
        // SAFETY: the program's buffer of `size` bytes.
        guard("omp_get_affinity_format", || unsafe {
            to_c_buffer(&env::affinity_format(), buffer, size)
        })
    }

    /// This thread's line, as `omp_get_affinity_format`
    /// copies (a null or empty `format` is affinity-format-var).
    "OMP_5.0" fn omp_capture_affinity(
        buffer: *mut std::ffi::c_char,
        size: usize,
        format: *const std::ffi::c_char,
    ) -> usize {
        // SAFETY: the program's format and buffer.
        guard("omp_capture_affinity", || unsafe {
            let line = affinity::capture(c_str(format).as_deref());
            to_c_buffer(&line, buffer, size)
        })
    }

    /// This thread's line, on stderr.
    "OMP_5.0" fn omp_display_affinity(format: *const std::ffi::c_char) {
        guard("omp_display_affinity", || {
            // SAFETY: the program's format.
            let format = unsafe { c_str(format) };
            eprintln!("{}", affinity::capture(format.as_deref()))
        })
    }

    /// `omp_pause_soft` (1) or `omp_pause_hard` (2) on the
    /// host (device 0): the workers of every team not running end (`crew::retire_free`),
    /// so a later region starts new ones, as libgomp's pause frees its threads; the
    /// settings persist, which both kinds allow. -1 for another kind or device, or inside
    /// a parallel region (as libgomp answers there).
    "OMP_5.0" fn omp_pause_resource(kind: c_int, device: c_int) -> c_int {
        guard("omp_pause_resource", || {
            let known = kind == 1 || kind == 2;
            if !known || device != target::HOST || member::member().level != 0 {
                -1
            } else {
                crate::crew::retire_free();
                0
            }
        })
    }

    /// As `omp_pause_resource` on the host, the one
    /// device.
    "OMP_5.0" fn omp_pause_resource_all(kind: c_int) -> c_int {
        // SAFETY: no pointers.
        unsafe { omp_pause_resource(kind, target::HOST) }
    }

    /// 0.
    "OMP_4.5" fn omp_get_partition_num_places() -> c_int {
        0
    }

    /// Max-task-priority-var
    /// (`OMP_MAX_TASK_PRIORITY`); priorities are hints locus's policies do not take.
    "OMP_4.5" fn omp_get_max_task_priority() -> c_int {
        guard("omp_get_max_task_priority", env::max_task_priority)
    }

    "LOCUS_1.0" fn locus_footprint_read(ptr: *const c_void, len: usize) {
        guard("locus_footprint_read", || footprint::read(ptr.cast(), len))
    }

    "LOCUS_1.0" fn locus_footprint_write(ptr: *const c_void, len: usize) {
        guard("locus_footprint_write", || {
            footprint::write(ptr.cast(), len)
        })
    }
}

fn wtime() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// omp_sched_t's monotonic modifier.
const SCHED_MONOTONIC: c_uint = 0x8000_0000;

/// A C string of the program's, or `None` for a null pointer.
///
/// # Safety
/// `p` is null or NUL-terminated.
unsafe fn c_str(p: *const std::ffi::c_char) -> Option<String> {
    (!p.is_null()).then(|| {
        // SAFETY: the caller's contract: not null here, and NUL-terminated.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    })
}

/// Copies `text` into the program's `buffer` of `size` bytes, cut short and
/// NUL-terminated; its whole length.
///
/// # Safety
/// `buffer` holds `size` writable bytes (or `size` is 0).
unsafe fn to_c_buffer(text: &str, buffer: *mut std::ffi::c_char, size: usize) -> usize {
    if size > 0 && !buffer.is_null() {
        let n = text.len().min(size - 1);
        // SAFETY: `n + 1 <= size` bytes of the program's buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), n);
            *buffer.add(n) = 0;
        }
    }
    text.len()
}
