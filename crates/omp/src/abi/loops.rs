//! Worksharing: loops (`long` and `unsigned long long`, every schedule, `ordered`),
//! `sections`, `scope`, and the combined `parallel` loops (`loops.rs` deals them).
//! Every loop entry point is one of a family below, each family written once for both
//! words.

use crate::guard::guard;
use crate::loops;
use crate::member;
use crate::node::OutlinedFn;
use crate::schedule::{Kind, Schedule};
use crate::team;
use crate::{env, reduction};
use std::ffi::{c_long, c_uint, c_ulonglong, c_void};

/// Starts this member's next loop of `long`s (`schedule`, else run-sched-var) and deals
/// it its first chunk.
///
/// # Safety
/// `istart` and `iend` are writable.
unsafe fn start_long(
    what: &str,
    schedule: Option<Schedule>,
    ordered: bool,
    [start, end, incr]: [c_long; 3],
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard(what, || {
        let m = member::member();
        let schedule = schedule.unwrap_or_else(env::run_schedule);
        if ordered {
            loops::start_ordered(m, schedule, start, end, incr);
        } else {
            loops::start(m, schedule, start, end, incr);
        }
        // SAFETY: the caller's contract.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// [`start_long`] for a loop of `unsigned long long`s, counting up or down.
///
/// # Safety
/// `istart` and `iend` are writable.
unsafe fn start_ull(
    what: &str,
    schedule: Option<Schedule>,
    ordered: bool,
    (up, [start, end, incr]): (bool, [c_ulonglong; 3]),
    istart: *mut c_ulonglong,
    iend: *mut c_ulonglong,
) -> bool {
    guard(what, || {
        let m = member::member();
        let schedule = schedule.unwrap_or_else(env::run_schedule);
        loops::start_ull(m, schedule, ordered, up, start, end, incr);
        // SAFETY: the caller's contract.
        unsafe { loops::next_ull(m, &mut *istart, &mut *iend) }
    })
}

/// A schedule of `kind` with a chunk argument (negative: none).
fn with_chunk(kind: Kind, chunk: i128) -> Option<Schedule> {
    Some(Schedule {
        kind,
        chunk: chunk.max(0) as u64,
    })
}

/// A `GOMP_loop_*_start` (`long`) or `GOMP_loop_ull_*_start`: the member's next loop and
/// its first chunk, for a schedule kind (with a chunk argument) or `runtime` (without).
macro_rules! loop_start {
    ($(#[$a:meta])* $name:ident @ $ver:literal, long, runtime, ordered: $ordered:literal) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            start: c_long,
            end: c_long,
            incr: c_long,
            istart: *mut c_long,
            iend: *mut c_long,
        ) -> bool {
            symver!($name, $ver);
            let bounds = [start, end, incr];
            // SAFETY: GCC passes two writable longs.
            unsafe { start_long(stringify!($name), None, $ordered, bounds, istart, iend) }
        }
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, long, $kind:expr, ordered: $ordered:literal) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            start: c_long,
            end: c_long,
            incr: c_long,
            chunk: c_long,
            istart: *mut c_long,
            iend: *mut c_long,
        ) -> bool {
            symver!($name, $ver);
            let schedule = with_chunk($kind, chunk.into());
            let bounds = [start, end, incr];
            // SAFETY: GCC passes two writable longs.
            unsafe { start_long(stringify!($name), schedule, $ordered, bounds, istart, iend) }
        }
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, ull, runtime, ordered: $ordered:literal) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            up: bool,
            start: c_ulonglong,
            end: c_ulonglong,
            incr: c_ulonglong,
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            symver!($name, $ver);
            let bounds = (up, [start, end, incr]);
            // SAFETY: GCC passes two writable unsigned long longs.
            unsafe { start_ull(stringify!($name), None, $ordered, bounds, istart, iend) }
        }
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, ull, $kind:expr, ordered: $ordered:literal) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            up: bool,
            start: c_ulonglong,
            end: c_ulonglong,
            incr: c_ulonglong,
            chunk: c_ulonglong,
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            symver!($name, $ver);
            let schedule = with_chunk($kind, chunk.into());
            let bounds = (up, [start, end, incr]);
            // SAFETY: GCC passes two writable unsigned long longs.
            unsafe { start_ull(stringify!($name), schedule, $ordered, bounds, istart, iend) }
        }
    };
}

/// A `GOMP_loop_*_next` (`long`) or `GOMP_loop_ull_*_next`: the member's next chunk
/// of its current loop, whatever its schedule.
macro_rules! loop_next {
    ($(#[$a:meta])* $name:ident @ $ver:literal, long) => {
        loop_next!($(#[$a])* $name @ $ver, c_long, loops::next);
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, ull) => {
        loop_next!($(#[$a])* $name @ $ver, c_ulonglong, loops::next_ull);
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, $word:ty, $next:path) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(istart: *mut $word, iend: *mut $word) -> bool {
            symver!($name, $ver);
            guard(stringify!($name), || {
                // SAFETY: GCC passes two writable words.
                unsafe { $next(member::member(), &mut *istart, &mut *iend) }
            })
        }
    };
}

/// A combined `GOMP_parallel_loop_*` (GCC 4.9 and later: `flags` last) or
/// `GOMP_parallel_loop_*_start` (before: the caller runs the region's function next),
/// for a schedule kind (with a chunk argument) or `runtime` (without).
macro_rules! parallel_loop {
    ($(#[$a:meta])* $name:ident @ $ver:literal, $form:ident, runtime) => {
        parallel_loop!(@$form $(#[$a])* $name @ $ver, [], None);
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, $form:ident, $kind:expr) => {
        parallel_loop!(@$form $(#[$a])* $name @ $ver, [chunk: c_long], with_chunk($kind, chunk.into()));
    };
    (@combined $(#[$a:meta])* $name:ident @ $ver:literal, [$($chunk:ident: $cty:ty)?], $schedule:expr) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            f: OutlinedFn,
            data: *mut c_void,
            num_threads: c_uint,
            start: c_long,
            end: c_long,
            incr: c_long,
            $($chunk: $cty,)?
            _flags: c_uint,
        ) {
            symver!($name, $ver);
            guard(stringify!($name), || {
                let schedule = $schedule.unwrap_or_else(env::run_schedule);
                team::parallel(f, data, num_threads as usize, &|m| {
                    loops::start(m, schedule, start, end, incr)
                })
            })
        }
    };
    (@start $(#[$a:meta])* $name:ident @ $ver:literal, [$($chunk:ident: $cty:ty)?], $schedule:expr) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            f: OutlinedFn,
            data: *mut c_void,
            num_threads: c_uint,
            start: c_long,
            end: c_long,
            incr: c_long,
            $($chunk: $cty,)?
        ) {
            symver!($name, $ver);
            guard(stringify!($name), || {
                let schedule = $schedule.unwrap_or_else(env::run_schedule);
                team::parallel_start(
                    f,
                    data,
                    num_threads as usize,
                    Box::new(move |m| loops::start(m, schedule, start, end, incr)),
                )
            })
        }
    };
}

/// The schedule of GCC 9's `GOMP_loop_*_start` (`sched`: libgomp's schedule numbers,
/// with a monotonic flag in bit 31).
pub(super) fn schedule_of(sched: c_long, chunk: u64) -> Schedule {
    let kind = match sched & 0x7fff_ffff {
        0 => return env::run_schedule(),
        2 => Kind::Dynamic,
        3 => Kind::Guided,
        _ => Kind::Static,
    };
    Schedule { kind, chunk }
}

/// What a `GOMP_*_start` of GCC 9 asks for beside the construct: its task reductions
/// (`reductions`, registered for the member's construct) and a block of scratch memory
/// shared by the team (`mem`: GCC writes the size it needs there, and reads back the
/// block's address; see `loops::scratch`).
///
/// # Safety
/// `reductions` is null or GCC's reduction block, live until the construct's
/// `GOMP_workshare_task_reduction_unregister`; `mem` is null or a writable word.
pub(super) unsafe fn construct_extras(what: &str, reductions: *mut usize, mem: *mut *mut c_void) {
    let m = member::member();
    if !mem.is_null() {
        // SAFETY: the caller's contract: GCC's word, holding the size.
        let size = unsafe { *mem } as usize;
        match loops::scratch(m, size) {
            // SAFETY: as above.
            Ok(block) => unsafe { *mem = block },
            Err(e) => env::fail(&format!("{what}: {e}")),
        }
    }
    if !reductions.is_null() {
        let Some(w) = loops::current_work(m) else {
            unreachable!("the construct was started first");
        };
        // SAFETY: the caller's contract.
        unsafe { reduction::workshare_register(reductions, &w) };
    }
}

/// GCC 9's loop starts (`GOMP_loop_start` and its forms): the loop, its schedule as a
/// number, its task reductions and shared memory (`construct_extras`), and the
/// member's first chunk unless the bounds' pointers are null (GCC deals the loop
/// itself and calls this only for the reductions).
macro_rules! loop_start_v5 {
    ($(#[$a:meta])* $name:ident @ $ver:literal, long, ordered: $ordered:literal) => {
        loop_start_v5!(@ $(#[$a])* $name @ $ver, [], c_long, $ordered, |m, s, a, b, c| {
            if $ordered {
                loops::start_ordered(m, s, a, b, c)
            } else {
                loops::start(m, s, a, b, c)
            }
        }, loops::next);
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, ull, ordered: $ordered:literal) => {
        loop_start_v5!(@ $(#[$a])* $name @ $ver, [up], c_ulonglong, $ordered, |m, s, up, a, b, c| {
            loops::start_ull(m, s, $ordered, up, a, b, c)
        }, loops::next_ull);
    };
    (@ $(#[$a:meta])* $name:ident @ $ver:literal, [$($up:ident)?], $word:ty, $ordered:literal, $start:expr, $next:path) => {
        $(#[$a])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            $($up: bool,)?
            start: $word,
            end: $word,
            incr: $word,
            sched: c_long,
            chunk: $word,
            istart: *mut $word,
            iend: *mut $word,
            reductions: *mut usize,
            mem: *mut *mut c_void,
        ) -> bool {
            symver!($name, $ver);
            guard(stringify!($name), || {
                let m = member::member();
                let schedule = schedule_of(sched, (chunk as i128).max(0) as u64);
                #[allow(clippy::redundant_closure_call)]
                ($start)(m, schedule, $($up,)? start, end, incr);
                // SAFETY: GCC's reductions, and two writable words or none.
                unsafe {
                    construct_extras(stringify!($name), reductions, mem);
                    istart.is_null() || $next(m, &mut *istart, &mut *iend)
                }
            })
        }
    };
}

exports! {
    "GOMP_1.0" fn GOMP_loop_static_start = loop_start!(long, Kind::Static, ordered: false);
    "GOMP_1.0" fn GOMP_loop_static_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_static_start = loop_start!(ull, Kind::Static, ordered: false);
    "GOMP_2.0" fn GOMP_loop_ull_static_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_dynamic_start = loop_start!(long, Kind::Dynamic, ordered: false);
    "GOMP_1.0" fn GOMP_loop_dynamic_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_dynamic_start = loop_start!(ull, Kind::Dynamic, ordered: false);
    "GOMP_2.0" fn GOMP_loop_ull_dynamic_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_guided_start = loop_start!(long, Kind::Guided, ordered: false);
    "GOMP_1.0" fn GOMP_loop_guided_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_guided_start = loop_start!(ull, Kind::Guided, ordered: false);
    "GOMP_2.0" fn GOMP_loop_ull_guided_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_runtime_start = loop_start!(long, runtime, ordered: false);
    "GOMP_1.0" fn GOMP_loop_runtime_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_runtime_start = loop_start!(ull, runtime, ordered: false);
    "GOMP_2.0" fn GOMP_loop_ull_runtime_next = loop_next!(ull);

    "GOMP_4.5" fn GOMP_loop_nonmonotonic_dynamic_start = loop_start!(long, Kind::Dynamic, ordered: false);
    "GOMP_4.5" fn GOMP_loop_nonmonotonic_dynamic_next = loop_next!(long);
    "GOMP_4.5" fn GOMP_loop_ull_nonmonotonic_dynamic_start = loop_start!(ull, Kind::Dynamic, ordered: false);
    "GOMP_4.5" fn GOMP_loop_ull_nonmonotonic_dynamic_next = loop_next!(ull);

    "GOMP_4.5" fn GOMP_loop_nonmonotonic_guided_start = loop_start!(long, Kind::Guided, ordered: false);
    "GOMP_4.5" fn GOMP_loop_nonmonotonic_guided_next = loop_next!(long);
    "GOMP_4.5" fn GOMP_loop_ull_nonmonotonic_guided_start = loop_start!(ull, Kind::Guided, ordered: false);
    "GOMP_4.5" fn GOMP_loop_ull_nonmonotonic_guided_next = loop_next!(ull);

    "GOMP_5.0" fn GOMP_loop_nonmonotonic_runtime_start = loop_start!(long, runtime, ordered: false);
    "GOMP_5.0" fn GOMP_loop_nonmonotonic_runtime_next = loop_next!(long);
    "GOMP_5.0" fn GOMP_loop_ull_nonmonotonic_runtime_start = loop_start!(ull, runtime, ordered: false);
    "GOMP_5.0" fn GOMP_loop_ull_nonmonotonic_runtime_next = loop_next!(ull);

    "GOMP_5.0" fn GOMP_loop_maybe_nonmonotonic_runtime_start = loop_start!(long, runtime, ordered: false);
    "GOMP_5.0" fn GOMP_loop_maybe_nonmonotonic_runtime_next = loop_next!(long);
    "GOMP_5.0" fn GOMP_loop_ull_maybe_nonmonotonic_runtime_start = loop_start!(ull, runtime, ordered: false);
    "GOMP_5.0" fn GOMP_loop_ull_maybe_nonmonotonic_runtime_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_ordered_static_start = loop_start!(long, Kind::Static, ordered: true);
    "GOMP_1.0" fn GOMP_loop_ordered_static_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_static_start = loop_start!(ull, Kind::Static, ordered: true);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_static_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_ordered_dynamic_start = loop_start!(long, Kind::Dynamic, ordered: true);
    "GOMP_1.0" fn GOMP_loop_ordered_dynamic_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_dynamic_start = loop_start!(ull, Kind::Dynamic, ordered: true);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_dynamic_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_ordered_guided_start = loop_start!(long, Kind::Guided, ordered: true);
    "GOMP_1.0" fn GOMP_loop_ordered_guided_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_guided_start = loop_start!(ull, Kind::Guided, ordered: true);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_guided_next = loop_next!(ull);

    "GOMP_1.0" fn GOMP_loop_ordered_runtime_start = loop_start!(long, runtime, ordered: true);
    "GOMP_1.0" fn GOMP_loop_ordered_runtime_next = loop_next!(long);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_runtime_start = loop_start!(ull, runtime, ordered: true);
    "GOMP_2.0" fn GOMP_loop_ull_ordered_runtime_next = loop_next!(ull);

    "GOMP_4.0" fn GOMP_parallel_loop_static = parallel_loop!(combined, Kind::Static);
    "GOMP_4.0" fn GOMP_parallel_loop_dynamic = parallel_loop!(combined, Kind::Dynamic);
    "GOMP_4.0" fn GOMP_parallel_loop_guided = parallel_loop!(combined, Kind::Guided);
    "GOMP_4.0" fn GOMP_parallel_loop_runtime = parallel_loop!(combined, runtime);
    "GOMP_4.5" fn GOMP_parallel_loop_nonmonotonic_dynamic = parallel_loop!(combined, Kind::Dynamic);
    "GOMP_4.5" fn GOMP_parallel_loop_nonmonotonic_guided = parallel_loop!(combined, Kind::Guided);
    "GOMP_5.0" fn GOMP_parallel_loop_nonmonotonic_runtime = parallel_loop!(combined, runtime);
    "GOMP_5.0" fn GOMP_parallel_loop_maybe_nonmonotonic_runtime = parallel_loop!(combined, runtime);

    "GOMP_1.0" fn GOMP_parallel_loop_static_start = parallel_loop!(start, Kind::Static);
    "GOMP_1.0" fn GOMP_parallel_loop_dynamic_start = parallel_loop!(start, Kind::Dynamic);
    "GOMP_1.0" fn GOMP_parallel_loop_guided_start = parallel_loop!(start, Kind::Guided);
    "GOMP_1.0" fn GOMP_parallel_loop_runtime_start = parallel_loop!(start, runtime);

    /// A loop with task reductions, or a numbered schedule.
    "GOMP_5.0" fn GOMP_loop_start = loop_start_v5!(long, ordered: false);
    /// As `GOMP_loop_start`, with `ordered`.
    "GOMP_5.0" fn GOMP_loop_ordered_start = loop_start_v5!(long, ordered: true);
    "GOMP_5.0" fn GOMP_loop_ull_start = loop_start_v5!(ull, ordered: false);
    "GOMP_5.0" fn GOMP_loop_ull_ordered_start = loop_start_v5!(ull, ordered: true);

    "GOMP_1.0" fn GOMP_ordered_start() {
        guard(
            "GOMP_ordered_start",
            || loops::ordered_start(member::member()),
        )
    }

    /// Nothing; the turn passes when the chunk is done.
    "GOMP_1.0" fn GOMP_ordered_end() {}

    "GOMP_1.0" fn GOMP_loop_end() {
        guard("GOMP_loop_end", || loops::end(member::member()))
    }

    /// The end of a loop that has a `cancel for`; as
    /// `GOMP_loop_end`, never cancelled.
    "GOMP_4.0" fn GOMP_loop_end_cancel() -> bool {
        guard("GOMP_loop_end_cancel", || loops::end(member::member()));
        false
    }

    "GOMP_1.0" fn GOMP_loop_end_nowait() {
        guard("GOMP_loop_end_nowait", || loops::end_nowait(member::member()))
    }

    "GOMP_1.0" fn GOMP_sections_start(count: c_uint) -> c_uint {
        guard("GOMP_sections_start", || {
            loops::sections_start(member::member(), count)
        })
    }

    "GOMP_1.0" fn GOMP_sections_next() -> c_uint {
        guard(
            "GOMP_sections_next",
            || loops::sections_next(member::member()),
        )
    }

    "GOMP_1.0" fn GOMP_sections_end() {
        guard("GOMP_sections_end", || loops::end(member::member()))
    }

    /// The end of sections that have a `cancel
    /// sections`; as `GOMP_sections_end`, never cancelled.
    "GOMP_4.0" fn GOMP_sections_end_cancel() -> bool {
        guard("GOMP_sections_end_cancel", || loops::end(member::member()));
        false
    }

    "GOMP_1.0" fn GOMP_sections_end_nowait() {
        guard("GOMP_sections_end_nowait", || {
            loops::end_nowait(member::member())
        })
    }

    /// `sections` with task reductions; this member's
    /// first section.
    "GOMP_5.0" fn GOMP_sections2_start(
        count: c_uint,
        reductions: *mut usize,
        mem: *mut *mut c_void,
    ) -> c_uint {
        guard("GOMP_sections2_start", || {
            let m = member::member();
            loops::sections_init(m, count);
            // SAFETY: GCC's reductions.
            unsafe { construct_extras("GOMP_sections2_start", reductions, mem) };
            loops::sections_next(m)
        })
    }

    /// `scope` with task reductions.
    "GOMP_5.1" fn GOMP_scope_start(reductions: *mut usize) {
        guard("GOMP_scope_start", || {
            let m = member::member();
            loops::scope_start(m);
            // SAFETY: GCC's reductions.
            unsafe { construct_extras("GOMP_scope_start", reductions, std::ptr::null_mut()) };
        })
    }

    /// The end of a worksharing
    /// construct with task reductions (`reduction.rs`).
    "GOMP_5.0" fn GOMP_workshare_task_reduction_unregister(cancelled: bool) {
        guard("GOMP_workshare_task_reduction_unregister", || {
            reduction::workshare_unregister(cancelled)
        })
    }
}
