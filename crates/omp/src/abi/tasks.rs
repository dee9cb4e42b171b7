//! Explicit tasks: `task`, `taskwait`, `taskgroup`, `taskyield`, `taskloop`, task
//! reductions and `detach` events (`task.rs`, `taskloop.rs`, `reduction.rs`).

use crate::guard::guard;
use crate::node::OutlinedFn;
use crate::{loops, reduction, task, taskloop};
use std::ffi::{c_int, c_long, c_uint, c_ulong, c_ulonglong, c_void};

exports! {
    "GOMP_2.0" fn GOMP_task(
        f: OutlinedFn,
        data: *mut c_void,
        cpyfn: Option<crate::node::CopyFn>,
        arg_size: c_long,
        arg_align: c_long,
        if_clause: bool,
        flags: c_uint,
        depend: *mut *mut c_void,
        _priority: c_int,
        detach: *mut c_void,
    ) {
        // No `guard`: the hottest entry point, and a panic cannot leave an `extern "C"`
        // function anyway (it aborts, after the panic's message).
        // SAFETY: GCC's arguments for a task construct.
        unsafe {
            task::task(task::Spawn {
                if_clause,
                flags,
                depend,
                detach,
                ..spawn(f, data, cpyfn, arg_size, arg_align)
            })
        }
    }

    "GOMP_4.5" fn GOMP_taskloop(
        f: OutlinedFn,
        data: *mut c_void,
        cpyfn: Option<crate::node::CopyFn>,
        arg_size: c_long,
        arg_align: c_long,
        flags: c_uint,
        num_tasks: c_ulong,
        _priority: c_int,
        start: c_long,
        end: c_long,
        step: c_long,
    ) {
        guard("GOMP_taskloop", || {
            let lp = taskloop::Loop {
                start: start as u64,
                end: end as u64,
                step: step as u64,
                n: loops::trip_count(start, end, step),
            };
            // SAFETY: GCC's arguments for a taskloop construct.
            unsafe {
                taskloop::taskloop(
                    spawn(f, data, cpyfn, arg_size, arg_align),
                    flags,
                    num_tasks,
                    lp,
                )
            }
        })
    }

    "GOMP_4.5" fn GOMP_taskloop_ull(
        f: OutlinedFn,
        data: *mut c_void,
        cpyfn: Option<crate::node::CopyFn>,
        arg_size: c_long,
        arg_align: c_long,
        flags: c_uint,
        num_tasks: c_ulong,
        _priority: c_int,
        start: c_ulonglong,
        end: c_ulonglong,
        step: c_ulonglong,
    ) {
        guard("GOMP_taskloop_ull", || {
            let up = flags & task::FLAG_UP != 0;
            let lp = taskloop::Loop {
                start,
                end,
                step,
                n: loops::trip_count_ull(up, start, end, step),
            };
            // SAFETY: GCC's arguments for a taskloop construct.
            unsafe {
                taskloop::taskloop(
                    spawn(f, data, cpyfn, arg_size, arg_align),
                    flags,
                    num_tasks,
                    lp,
                )
            }
        })
    }

    "GOMP_5.0" fn GOMP_taskgroup_reduction_register(data: *mut usize) {
        guard("GOMP_taskgroup_reduction_register", || {
            // SAFETY: GCC's reduction block for the taskgroup just started.
            unsafe { reduction::register(data) }
        })
    }

    "GOMP_5.0" fn GOMP_taskgroup_reduction_unregister(data: *mut usize) {
        guard("GOMP_taskgroup_reduction_unregister", || {
            // SAFETY: a block registered before, unregistered once.
            unsafe { reduction::unregister(data) }
        })
    }

    "GOMP_5.0" fn GOMP_task_reduction_remap(
        cnt: usize,
        cntorig: usize,
        ptrs: *mut *mut c_void,
    ) {
        guard("GOMP_task_reduction_remap", || {
            // SAFETY: GCC's pointers, in a task taking part in those reductions.
            unsafe { reduction::remap(cnt, cntorig, ptrs) }
        })
    }

    /// The event of a task made with `detach(event)`.
    "OMP_5.0.1" fn omp_fulfill_event(event: *mut c_void) {
        // SAFETY: the program's event handle, fulfilled once.
        guard("omp_fulfill_event", || unsafe { task::fulfill(event) })
    }

    "GOMP_2.0" fn GOMP_taskwait() {
        // No `guard`, as for `GOMP_task`.
        task::taskwait()
    }

    /// `taskwait depend(...)`.
    "GOMP_5.0" fn GOMP_taskwait_depend(depend: *mut *mut c_void) {
        guard("GOMP_taskwait_depend", || {
            // SAFETY: GCC's dependence array.
            unsafe { task::taskwait_depend(depend) }
        })
    }

    /// Lets the system run another thread (one that holds what
    /// this task waits for, where workers outnumber cores); locus, as libgomp, switches to
    /// no other task here.
    "GOMP_3.0" fn GOMP_taskyield() {
        std::thread::yield_now()
    }

    "GOMP_4.0" fn GOMP_taskgroup_start() {
        guard("GOMP_taskgroup_start", task::taskgroup_start)
    }

    "GOMP_4.0" fn GOMP_taskgroup_end() {
        guard("GOMP_taskgroup_end", task::taskgroup_end)
    }
}

/// A task of `f` over `data` with no `if` clause, flags, dependences or event: a
/// taskloop's tasks (the rest is set per task), and `GOMP_task`'s before its clauses.
#[inline]
fn spawn(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<crate::node::CopyFn>,
    arg_size: c_long,
    arg_align: c_long,
) -> task::Spawn {
    task::Spawn {
        f,
        data,
        cpyfn,
        arg_size: arg_size.max(0) as usize,
        arg_align: arg_align.max(1) as usize,
        if_clause: true,
        flags: 0,
        depend: std::ptr::null_mut(),
        range: None,
        detach: std::ptr::null_mut(),
    }
}
