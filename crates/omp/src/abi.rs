//! Every entry point this library exports, with its GCC symbol version. Generated
//! shape, one function per symbol: `extern "C"`, the body run under `guard` so that
//! a Rust panic prints and aborts instead of unwinding into C. The `.symver`
//! directives at the end bind each symbol to its version node (`libgomp.map`); a symbol
//! not listed here is not exported, so a program that needs it fails to load (with
//! `LD_BIND_NOW=1`, as `locus run` sets) naming it.
//!
//! Signatures follow GCC 12's libgomp (`libgomp_g.h`, `omp.h.in`) and what
//! `gcc -fopenmp -fdump-tree-optimized` emits; `tests/suite/programs.rs` compares this
//! list with the system libgomp's versions.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc, clippy::redundant_closure)]

use crate::loops::{self, Kind, Schedule};
use crate::team::{self, OutlinedFn};
use crate::{affinity, alloc, env, footprint, lock, reduction, target, task, taskloop, teams};
use std::ffi::{c_int, c_long, c_uint, c_ulong, c_ulonglong, c_void};
use std::sync::atomic::Ordering;

/// Runs `f`; a panic is printed, naming `what`, and the process aborts.
pub(crate) fn guard<R>(what: &str, f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            eprintln!("locus: internal error in {what}; aborting");
            std::process::abort()
        }
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

/// `GOMP_parallel@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    _flags: c_uint,
) {
    guard("GOMP_parallel", || {
        team::parallel(f, data, num_threads as usize, &|_| {})
    })
}

/// `GOMP_parallel_start@@GOMP_1.0`: GCC before 4.9; the caller is thread 0 of the
/// team and runs the region's function itself next (see `team::parallel_start`).
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_start(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
) {
    guard("GOMP_parallel_start", || {
        team::parallel_start(f, data, num_threads as usize, Box::new(|_| {}))
    })
}

/// `GOMP_parallel_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_end() {
    guard("GOMP_parallel_end", || team::parallel_end())
}

/// A `GOMP_parallel_loop_*_start` (GCC before 4.9): `GOMP_parallel_start` with the
/// loop started for the caller.
macro_rules! parallel_loop_start {
    ($name:ident, $kind:expr) => {
        #[doc = concat!("`", stringify!($name), "@@GOMP_1.0`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            f: OutlinedFn,
            data: *mut c_void,
            num_threads: c_uint,
            start: c_long,
            end: c_long,
            incr: c_long,
            chunk: c_long,
        ) {
            guard(stringify!($name), || {
                let schedule = Schedule {
                    kind: $kind,
                    chunk: chunk.max(0) as u64,
                };
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

parallel_loop_start!(GOMP_parallel_loop_static_start, Kind::Static);
parallel_loop_start!(GOMP_parallel_loop_dynamic_start, Kind::Dynamic);
parallel_loop_start!(GOMP_parallel_loop_guided_start, Kind::Guided);

/// `GOMP_parallel_loop_runtime_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_runtime_start(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
) {
    guard("GOMP_parallel_loop_runtime_start", || {
        let schedule = env::run_schedule();
        team::parallel_start(
            f,
            data,
            num_threads as usize,
            Box::new(move |m| loops::start(m, schedule, start, end, incr)),
        )
    })
}

/// `GOMP_parallel_sections_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_sections_start(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    count: c_uint,
) {
    guard("GOMP_parallel_sections_start", || {
        team::parallel_start(
            f,
            data,
            num_threads as usize,
            Box::new(move |m| loops::sections_init(m, count)),
        )
    })
}

/// `GOMP_task@@GOMP_2.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_task(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<task::CopyFn>,
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
            f,
            data,
            cpyfn,
            arg_size: arg_size.max(0) as usize,
            arg_align: arg_align.max(1) as usize,
            if_clause,
            flags,
            depend,
            range: None,
            detach,
        })
    }
}

/// `GOMP_taskloop@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskloop(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<task::CopyFn>,
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

/// `GOMP_taskloop_ull@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskloop_ull(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<task::CopyFn>,
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

/// A taskloop's tasks as `GOMP_task` would describe them (the rest is set per task).
fn spawn(
    f: OutlinedFn,
    data: *mut c_void,
    cpyfn: Option<task::CopyFn>,
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

/// `GOMP_taskgroup_reduction_register@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskgroup_reduction_register(data: *mut usize) {
    guard("GOMP_taskgroup_reduction_register", || {
        // SAFETY: GCC's reduction block for the taskgroup just started.
        unsafe { reduction::register(data) }
    })
}

/// `GOMP_taskgroup_reduction_unregister@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskgroup_reduction_unregister(data: *mut usize) {
    guard("GOMP_taskgroup_reduction_unregister", || {
        // SAFETY: a block registered before, unregistered once.
        unsafe { reduction::unregister(data) }
    })
}

/// `GOMP_task_reduction_remap@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_task_reduction_remap(
    cnt: usize,
    cntorig: usize,
    ptrs: *mut *mut c_void,
) {
    guard("GOMP_task_reduction_remap", || {
        // SAFETY: GCC's pointers, in a task taking part in those reductions.
        unsafe { reduction::remap(cnt, cntorig, ptrs) }
    })
}

/// `omp_fulfill_event@@OMP_5.0.1`: the event of a task made with `detach(event)`.
#[no_mangle]
pub unsafe extern "C" fn omp_fulfill_event(event: *mut c_void) {
    // SAFETY: the program's event handle, fulfilled once.
    guard("omp_fulfill_event", || unsafe { task::fulfill(event) })
}

/// `GOMP_taskwait@@GOMP_2.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskwait() {
    // No `guard`, as for `GOMP_task`.
    task::taskwait()
}

/// A doacross loop's start, for each schedule and word: its trip counts, then
/// `loops::start_doacross`, then the member's first chunk.
macro_rules! doacross_loop {
    ($name:ident, $word:ty, $next:path, $kind:expr) => {
        #[doc = concat!("`", stringify!($name), "`: a doacross loop (`ordered(n)` with `depend(sink)`).")]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            ncounts: c_uint,
            counts: *const $word,
            chunk: $word,
            istart: *mut $word,
            iend: *mut $word,
        ) -> bool {
            let schedule = Schedule {
                kind: $kind,
                chunk: (chunk as i128).max(0) as u64,
            };
            // SAFETY: GCC's arguments, passed on.
            unsafe { doacross_start(stringify!($name), schedule, ncounts, counts, istart, iend, $next) }
        }
    };
    // `schedule(runtime)`: no chunk argument.
    ($name:ident, $word:ty, $next:path) => {
        #[doc = concat!("`", stringify!($name), "`: a doacross loop, `schedule(runtime)`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            ncounts: c_uint,
            counts: *const $word,
            istart: *mut $word,
            iend: *mut $word,
        ) -> bool {
            let schedule = env::run_schedule();
            // SAFETY: GCC's arguments, passed on.
            unsafe { doacross_start(stringify!($name), schedule, ncounts, counts, istart, iend, $next) }
        }
    };
}

/// Starts a doacross loop and deals this member its first chunk.
///
/// # Safety
/// `counts` holds `ncounts` trip counts; `istart` and `iend` are writable.
unsafe fn doacross_start<W: Copy + Into<i128>>(
    what: &str,
    schedule: Schedule,
    ncounts: c_uint,
    counts: *const W,
    istart: *mut W,
    iend: *mut W,
    next: fn(&team::Member, &mut W, &mut W) -> bool,
) -> bool {
    guard(what, || {
        let m = team::member();
        // SAFETY: the caller's contract.
        unsafe {
            loops::start_doacross(m, schedule, &doacross_counts(ncounts, counts));
            next(m, &mut *istart, &mut *iend)
        }
    })
}

/// A doacross loop's trip counts as 64-bit words (negative `long`s count as 0).
///
/// # Safety
/// `counts` holds `n` words.
unsafe fn doacross_counts<W: Copy + Into<i128>>(n: c_uint, counts: *const W) -> Vec<u64> {
    (0..n as usize)
        // SAFETY: `n` words (the caller's contract).
        .map(|i| unsafe { *counts.add(i) }.into().max(0) as u64)
        .collect()
}

doacross_loop!(GOMP_loop_doacross_runtime_start, c_long, loops::next);
doacross_loop!(
    GOMP_loop_ull_doacross_runtime_start,
    c_ulonglong,
    loops::next_ull
);
doacross_loop!(
    GOMP_loop_doacross_static_start,
    c_long,
    loops::next,
    Kind::Static
);
doacross_loop!(
    GOMP_loop_doacross_dynamic_start,
    c_long,
    loops::next,
    Kind::Dynamic
);
doacross_loop!(
    GOMP_loop_doacross_guided_start,
    c_long,
    loops::next,
    Kind::Guided
);
doacross_loop!(
    GOMP_loop_ull_doacross_static_start,
    c_ulonglong,
    loops::next_ull,
    Kind::Static
);
doacross_loop!(
    GOMP_loop_ull_doacross_dynamic_start,
    c_ulonglong,
    loops::next_ull,
    Kind::Dynamic
);
doacross_loop!(
    GOMP_loop_ull_doacross_guided_start,
    c_ulonglong,
    loops::next_ull,
    Kind::Guided
);

/// The schedule of GCC 9's `GOMP_loop_*_start` (`sched`: libgomp's schedule numbers,
/// with a monotonic flag in bit 31).
fn schedule_of(sched: c_long, chunk: u64) -> Schedule {
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
unsafe fn construct_extras(what: &str, reductions: *mut usize, mem: *mut *mut c_void) {
    let m = team::member();
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

/// `GOMP_loop_doacross_start@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_doacross_start(
    ncounts: c_uint,
    counts: *const c_long,
    sched: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> bool {
    guard("GOMP_loop_doacross_start", || {
        let m = team::member();
        let schedule = schedule_of(sched, chunk.max(0) as u64);
        // SAFETY: GCC's trip counts, reductions and two writable longs (null when the
        // caller takes no chunk: then the member takes its chunks with `_next`).
        unsafe {
            loops::start_doacross(m, schedule, &doacross_counts(ncounts, counts));
            construct_extras("GOMP_loop_doacross_start", reductions, mem);
            !istart.is_null() && loops::next(m, &mut *istart, &mut *iend)
        }
    })
}

/// `GOMP_loop_ull_doacross_start@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_ull_doacross_start(
    ncounts: c_uint,
    counts: *const c_ulonglong,
    sched: c_long,
    chunk: c_ulonglong,
    istart: *mut c_ulonglong,
    iend: *mut c_ulonglong,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> bool {
    guard("GOMP_loop_ull_doacross_start", || {
        let m = team::member();
        let schedule = schedule_of(sched, chunk);
        // SAFETY: as for GOMP_loop_doacross_start.
        unsafe {
            loops::start_doacross(m, schedule, &doacross_counts(ncounts, counts));
            construct_extras("GOMP_loop_ull_doacross_start", reductions, mem);
            !istart.is_null() && loops::next_ull(m, &mut *istart, &mut *iend)
        }
    })
}

/// GCC 9's loop starts (`GOMP_loop_start` and its forms): the loop, its schedule as a
/// number, its task reductions and shared memory (`construct_extras`), and the
/// member's first chunk unless the bounds' pointers are null (GCC deals the loop
/// itself and calls this only for the reductions).
macro_rules! loop_start_v5 {
    ($(#[$doc:meta] $name:ident $([$up:ident])? ($word:ty, $chunk:ty) =>
        $start:expr, $next:path;)*) => {$(
        #[$doc]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            $($up: bool,)?
            start: $word,
            end: $word,
            incr: $word,
            sched: c_long,
            chunk: $chunk,
            istart: *mut $word,
            iend: *mut $word,
            reductions: *mut usize,
            mem: *mut *mut c_void,
        ) -> bool {
            guard(stringify!($name), || {
                let m = team::member();
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
    )*};
}

loop_start_v5! {
    /// `GOMP_loop_start@@GOMP_5.0`: a loop with task reductions, or a numbered schedule.
    GOMP_loop_start(c_long, c_long) => loops::start, loops::next;
    /// `GOMP_loop_ordered_start@@GOMP_5.0`: as `GOMP_loop_start`, with `ordered`.
    GOMP_loop_ordered_start(c_long, c_long) => loops::start_ordered, loops::next;
    /// `GOMP_loop_ull_start@@GOMP_5.0`.
    GOMP_loop_ull_start[up](c_ulonglong, c_ulonglong) =>
        |m, s, up, a, b, c| loops::start_ull(m, s, false, up, a, b, c), loops::next_ull;
    /// `GOMP_loop_ull_ordered_start@@GOMP_5.0`.
    GOMP_loop_ull_ordered_start[up](c_ulonglong, c_ulonglong) =>
        |m, s, up, a, b, c| loops::start_ull(m, s, true, up, a, b, c), loops::next_ull;
}

/// `GOMP_sections2_start@@GOMP_5.0`: `sections` with task reductions; this member's
/// first section.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections2_start(
    count: c_uint,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> c_uint {
    guard("GOMP_sections2_start", || {
        let m = team::member();
        loops::sections_init(m, count);
        // SAFETY: GCC's reductions.
        unsafe { construct_extras("GOMP_sections2_start", reductions, mem) };
        loops::sections_next(m)
    })
}

/// `GOMP_scope_start@@GOMP_5.1`: `scope` with task reductions.
#[no_mangle]
pub unsafe extern "C" fn GOMP_scope_start(reductions: *mut usize) {
    guard("GOMP_scope_start", || {
        let m = team::member();
        loops::scope_start(m);
        // SAFETY: GCC's reductions.
        unsafe { construct_extras("GOMP_scope_start", reductions, std::ptr::null_mut()) };
    })
}

/// `GOMP_workshare_task_reduction_unregister@@GOMP_5.0`: the end of a worksharing
/// construct with task reductions (`reduction.rs`).
#[no_mangle]
pub unsafe extern "C" fn GOMP_workshare_task_reduction_unregister(cancelled: bool) {
    guard("GOMP_workshare_task_reduction_unregister", || {
        reduction::workshare_unregister(cancelled)
    })
}

/// `GOMP_parallel_reductions@@GOMP_5.0`: a parallel region with task reductions (the
/// first word of `data` is GCC's block); the team's size, for GCC's code that combines
/// the copies after it.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_reductions(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    _flags: c_uint,
) -> c_uint {
    guard("GOMP_parallel_reductions", || {
        // SAFETY: GCC's data block starts with the address of its reduction block.
        let block = unsafe { *data.cast::<*mut usize>() };
        let threads = team::Threads::lease(team::region_size(num_threads as usize));
        let size = threads.size();
        // SAFETY: GCC's block, unregistered by GCC's code after the region.
        unsafe { reduction::register_parallel(block, size) };
        let address = block as usize;
        team::parallel_of(f, data, threads, &|_| reduction::enter_parallel(address));
        size as c_uint
    })
}

/// `GOMP_doacross_post@@GOMP_4.5`: `depend(source)`, with the iteration's vector.
#[no_mangle]
pub unsafe extern "C" fn GOMP_doacross_post(counts: *const c_long) {
    // SAFETY: GCC's vector.
    guard("GOMP_doacross_post", || unsafe { doacross_post(counts) })
}

/// `GOMP_doacross_ull_post@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_doacross_ull_post(counts: *const c_ulonglong) {
    // SAFETY: GCC's vector.
    guard("GOMP_doacross_ull_post", || unsafe {
        doacross_post(counts)
    })
}

/// Posts this member's iteration vector `counts` of its doacross loop.
///
/// # Safety
/// `counts` holds one word per dimension of the loop.
unsafe fn doacross_post<W: Copy + Into<i128>>(counts: *const W) {
    let m = team::member();
    let n = loops::doacross_dims(m);
    // SAFETY: the caller's contract.
    let v = unsafe { doacross_counts(n as c_uint, counts) };
    loops::doacross_post(m, &v)
}

/// Integer arguments the variadic trampolines below save from registers (the System V
/// x86-64 ABI passes the first six there, the rest on the stack).
#[cfg(target_arch = "x86_64")]
const REGISTER_ARGS: usize = 6;

/// `depend(sink: v)`'s vector from `GOMP_doacross_wait(first, ...)` (`long`s) or its
/// `_ull` form, as the trampoline hands it over: the register arguments it saved, then
/// the caller's stack arguments. Reads only as many as the loop has dimensions.
///
/// # Safety
/// `regs` holds [`REGISTER_ARGS`] words; `stack` is where the caller's stack arguments
/// begin, holding the rest of the loop's dimensions.
#[cfg(target_arch = "x86_64")]
unsafe extern "C" fn doacross_wait_args(regs: *const u64, stack: *const u64) {
    guard("GOMP_doacross_wait", || {
        let m = team::member();
        let n = loops::doacross_dims(m);
        let v: Vec<u64> = (0..n)
            .map(|i| {
                // SAFETY: the first six in the saved registers, the rest on the
                // caller's stack, as the ABI passes variadic integers; `n` is the
                // number the loop's vectors have, which is what GCC passes.
                unsafe {
                    if i < REGISTER_ARGS {
                        *regs.add(i)
                    } else {
                        *stack.add(i - REGISTER_ARGS)
                    }
                }
            })
            .collect();
        loops::doacross_wait(m, &v)
    })
}

/// The variadic `GOMP_doacross_wait(long first, ...)` and
/// `GOMP_doacross_ull_wait(unsigned long long first, ...)`, which stable Rust cannot
/// define: each saves the six argument registers on its stack and calls
/// [`doacross_wait_args`] with their address and that of the caller's stack arguments
/// (both forms pass 64-bit integers alike). It writes nothing but its own frame.
#[cfg(target_arch = "x86_64")]
macro_rules! doacross_wait_trampoline {
    ($name:literal) => {
        concat!(
            ".text\n",
            ".globl ",
            $name,
            "\n",
            ".type ",
            $name,
            ", @function\n",
            ".p2align 4\n",
            $name,
            ":\n",
            ".cfi_startproc\n",
            "push rbp\n",
            ".cfi_def_cfa_offset 16\n",
            ".cfi_offset rbp, -16\n",
            "mov rbp, rsp\n",
            ".cfi_def_cfa_register rbp\n",
            "sub rsp, 48\n",
            "mov [rsp], rdi\n",
            "mov [rsp + 8], rsi\n",
            "mov [rsp + 16], rdx\n",
            "mov [rsp + 24], rcx\n",
            "mov [rsp + 32], r8\n",
            "mov [rsp + 40], r9\n",
            "mov rdi, rsp\n",
            "lea rsi, [rbp + 16]\n",
            "call {wait}\n",
            "leave\n",
            ".cfi_def_cfa rsp, 8\n",
            "ret\n",
            ".cfi_endproc\n",
            ".size ",
            $name,
            ", . - ",
            $name,
            "\n",
        )
    };
}

// SAFETY: (of the assembly) each trampoline keeps the stack 16-byte aligned at the
// call (8 for the return address, 8 for rbp, 48 for the registers), saves and restores
// rbp, and only reads the caller's frame.
#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    doacross_wait_trampoline!("GOMP_doacross_wait"),
    doacross_wait_trampoline!("GOMP_doacross_ull_wait"),
    wait = sym doacross_wait_args,
);

// Their versions, as for every entry point (below), but where they exist.
#[cfg(all(target_arch = "x86_64", not(test)))]
std::arch::global_asm!(
    ".symver GOMP_doacross_wait, GOMP_doacross_wait@@GOMP_4.5",
    ".symver GOMP_doacross_ull_wait, GOMP_doacross_ull_wait@@GOMP_4.5",
);

/// `GOMP_taskwait_depend@@GOMP_5.0`: `taskwait depend(...)`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskwait_depend(depend: *mut *mut c_void) {
    guard("GOMP_taskwait_depend", || {
        // SAFETY: GCC's dependence array.
        unsafe { task::taskwait_depend(depend) }
    })
}

/// `GOMP_taskyield@@GOMP_3.0`: lets the system run another thread (one that holds what
/// this task waits for, where workers outnumber cores); locus, as libgomp, switches to
/// no other task here.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskyield() {
    std::thread::yield_now()
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

/// `GOMP_warning@@GOMP_5.1`: `#pragma omp error severity(warning)` at run time.
#[no_mangle]
pub unsafe extern "C" fn GOMP_warning(msg: *const std::ffi::c_char, len: usize) {
    guard("GOMP_warning", || {
        // SAFETY: GCC's message.
        let m = unsafe { directive_message(msg, len) };
        // As libgomp prints it (`error.c`), blank line first, under its name: programs and
        // their tests look for this line.
        eprint!("\nlibgomp: error directive encountered{m}\n");
    })
}

/// `GOMP_error@@GOMP_5.1`: `#pragma omp error` (severity fatal) at run time: the
/// message, then exit with status 1, as libgomp.
#[no_mangle]
pub unsafe extern "C" fn GOMP_error(msg: *const std::ffi::c_char, len: usize) {
    guard("GOMP_error", || {
        // SAFETY: GCC's message.
        let m = unsafe { directive_message(msg, len) };
        eprint!("\nlibgomp: fatal error: error directive encountered{m}\n");
        std::process::exit(1)
    })
}

/// `GOMP_taskgroup_start@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskgroup_start() {
    guard("GOMP_taskgroup_start", || task::taskgroup_start())
}

/// `GOMP_taskgroup_end@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_taskgroup_end() {
    guard("GOMP_taskgroup_end", || task::taskgroup_end())
}

/// `GOMP_single_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_single_start() -> bool {
    guard("GOMP_single_start", || team::single_start())
}

/// `GOMP_barrier@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_barrier() {
    guard("GOMP_barrier", || team::barrier())
}

/// `GOMP_cancel@@GOMP_4.0`: `#pragma omp cancel`. Cancellation is off (libgomp's
/// default, `OMP_CANCELLATION=false`; locus does not turn it on, see `env.rs`), so the
/// construct is ignored, as OpenMP says it is then: nothing is cancelled and the answer
/// is false.
#[no_mangle]
pub unsafe extern "C" fn GOMP_cancel(which: c_int, do_cancel: bool) -> bool {
    let _ = (which, do_cancel);
    false
}

/// `GOMP_cancellation_point@@GOMP_4.0`: never cancelled (cancellation is off).
#[no_mangle]
pub unsafe extern "C" fn GOMP_cancellation_point(which: c_int) -> bool {
    let _ = which;
    false
}

/// `GOMP_barrier_cancel@@GOMP_4.0`: the barrier of a region that has a `cancel
/// parallel`; a barrier, never cancelled.
#[no_mangle]
pub unsafe extern "C" fn GOMP_barrier_cancel() -> bool {
    guard("GOMP_barrier_cancel", || team::barrier());
    false
}

/// `GOMP_critical_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_critical_start() {
    guard("GOMP_critical_start", || lock::lock(&lock::CRITICAL))
}

/// `GOMP_critical_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_critical_end() {
    guard("GOMP_critical_end", || lock::unlock(&lock::CRITICAL))
}

/// `GOMP_critical_name_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_critical_name_start(pptr: *mut *mut c_void) {
    guard("GOMP_critical_name_start", || {
        // SAFETY: GCC passes the name's pointer-sized, zero-initialised slot.
        lock::lock(unsafe { lock::word(pptr.cast()) })
    })
}

/// `GOMP_critical_name_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_critical_name_end(pptr: *mut *mut c_void) {
    guard("GOMP_critical_name_end", || {
        // SAFETY: as for GOMP_critical_name_start.
        lock::unlock(unsafe { lock::word(pptr.cast()) })
    })
}

/// `GOMP_atomic_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_atomic_start() {
    guard("GOMP_atomic_start", || lock::lock(&lock::ATOMIC))
}

/// `GOMP_atomic_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_atomic_end() {
    guard("GOMP_atomic_end", || lock::unlock(&lock::ATOMIC))
}

/// `GOMP_loop_static_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_static_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_static_start", || {
        let m = team::member();
        loops::start(
            m,
            Schedule {
                kind: Kind::Static,
                chunk: chunk.max(0) as u64,
            },
            start,
            end,
            incr,
        );
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_static_next@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_static_next(istart: *mut c_long, iend: *mut c_long) -> bool {
    guard("GOMP_loop_static_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_static@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_static(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_static", || {
        let schedule = Schedule {
            kind: Kind::Static,
            chunk: chunk.max(0) as u64,
        };
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_dynamic_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_dynamic_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_dynamic_start", || {
        let m = team::member();
        loops::start(
            m,
            Schedule {
                kind: Kind::Dynamic,
                chunk: chunk.max(0) as u64,
            },
            start,
            end,
            incr,
        );
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_dynamic_next@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_dynamic_next(istart: *mut c_long, iend: *mut c_long) -> bool {
    guard("GOMP_loop_dynamic_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_dynamic@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_dynamic(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_dynamic", || {
        let schedule = Schedule {
            kind: Kind::Dynamic,
            chunk: chunk.max(0) as u64,
        };
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_guided_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_guided_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_guided_start", || {
        let m = team::member();
        loops::start(
            m,
            Schedule {
                kind: Kind::Guided,
                chunk: chunk.max(0) as u64,
            },
            start,
            end,
            incr,
        );
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_guided_next@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_guided_next(istart: *mut c_long, iend: *mut c_long) -> bool {
    guard("GOMP_loop_guided_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_guided@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_guided(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_guided", || {
        let schedule = Schedule {
            kind: Kind::Guided,
            chunk: chunk.max(0) as u64,
        };
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_nonmonotonic_dynamic_start@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_nonmonotonic_dynamic_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_nonmonotonic_dynamic_start", || {
        let m = team::member();
        loops::start(
            m,
            Schedule {
                kind: Kind::Dynamic,
                chunk: chunk.max(0) as u64,
            },
            start,
            end,
            incr,
        );
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_nonmonotonic_dynamic_next@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_nonmonotonic_dynamic_next(
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_nonmonotonic_dynamic_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_nonmonotonic_dynamic@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_nonmonotonic_dynamic(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_nonmonotonic_dynamic", || {
        let schedule = Schedule {
            kind: Kind::Dynamic,
            chunk: chunk.max(0) as u64,
        };
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_nonmonotonic_guided_start@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_nonmonotonic_guided_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_nonmonotonic_guided_start", || {
        let m = team::member();
        loops::start(
            m,
            Schedule {
                kind: Kind::Guided,
                chunk: chunk.max(0) as u64,
            },
            start,
            end,
            incr,
        );
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_nonmonotonic_guided_next@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_nonmonotonic_guided_next(
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_nonmonotonic_guided_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_nonmonotonic_guided@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_nonmonotonic_guided(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    chunk: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_nonmonotonic_guided", || {
        let schedule = Schedule {
            kind: Kind::Guided,
            chunk: chunk.max(0) as u64,
        };
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_runtime_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_runtime_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_runtime_start", || {
        let m = team::member();
        loops::start(m, env::run_schedule(), start, end, incr);
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_runtime_next@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_runtime_next(istart: *mut c_long, iend: *mut c_long) -> bool {
    guard("GOMP_loop_runtime_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_runtime@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_runtime(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_runtime", || {
        let schedule = env::run_schedule();
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_nonmonotonic_runtime_start@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_nonmonotonic_runtime_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_nonmonotonic_runtime_start", || {
        let m = team::member();
        loops::start(m, env::run_schedule(), start, end, incr);
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_nonmonotonic_runtime_next@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_nonmonotonic_runtime_next(
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_nonmonotonic_runtime_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_nonmonotonic_runtime@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_nonmonotonic_runtime(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_nonmonotonic_runtime", || {
        let schedule = env::run_schedule();
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// `GOMP_loop_maybe_nonmonotonic_runtime_start@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_maybe_nonmonotonic_runtime_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_maybe_nonmonotonic_runtime_start", || {
        let m = team::member();
        loops::start(m, env::run_schedule(), start, end, incr);
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}

/// `GOMP_loop_maybe_nonmonotonic_runtime_next@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_maybe_nonmonotonic_runtime_next(
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_maybe_nonmonotonic_runtime_next", || {
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
    })
}

/// `GOMP_parallel_loop_maybe_nonmonotonic_runtime@@GOMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_loop_maybe_nonmonotonic_runtime(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    start: c_long,
    end: c_long,
    incr: c_long,
    _flags: c_uint,
) {
    guard("GOMP_parallel_loop_maybe_nonmonotonic_runtime", || {
        let schedule = env::run_schedule();
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::start(m, schedule, start, end, incr)
        })
    })
}

/// A `GOMP_loop_ull_*_start` with a chunk argument and its `_next`: the `_start` makes
/// (or finds) the member's next loop and deals it its first chunk.
macro_rules! ull_loop {
    ($start:ident, $next:ident, $kind:expr, $version:literal) => {
        ull_loop!($start, $next, $kind, false, $version);
    };
    ($start:ident, $next:ident, $kind:expr, $ordered:expr, $version:literal) => {
        #[doc = concat!("`", stringify!($start), "@@", $version, "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $start(
            up: bool,
            start: c_ulonglong,
            end: c_ulonglong,
            incr: c_ulonglong,
            chunk: c_ulonglong,
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            guard(stringify!($start), || {
                let m = team::member();
                let schedule = Schedule { kind: $kind, chunk };
                loops::start_ull(m, schedule, $ordered, up, start, end, incr);
                // SAFETY: GCC passes two writable unsigned long longs.
                unsafe { loops::next_ull(m, &mut *istart, &mut *iend) }
            })
        }
        ull_next!($next, $version);
    };
}

/// A `GOMP_loop_ull_*runtime_start` (the schedule from `OMP_SCHEDULE`) and its `_next`.
macro_rules! ull_runtime_loop {
    ($start:ident, $next:ident, $version:literal) => {
        ull_runtime_loop!($start, $next, false, $version);
    };
    ($start:ident, $next:ident, $ordered:expr, $version:literal) => {
        #[doc = concat!("`", stringify!($start), "@@", $version, "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $start(
            up: bool,
            start: c_ulonglong,
            end: c_ulonglong,
            incr: c_ulonglong,
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            guard(stringify!($start), || {
                let m = team::member();
                let schedule = env::run_schedule();
                loops::start_ull(m, schedule, $ordered, up, start, end, incr);
                // SAFETY: GCC passes two writable unsigned long longs.
                unsafe { loops::next_ull(m, &mut *istart, &mut *iend) }
            })
        }
        ull_next!($next, $version);
    };
}

/// A `GOMP_loop_ull_*_next`: the member's next chunk of its current loop.
macro_rules! ull_next {
    ($next:ident, $version:literal) => {
        #[doc = concat!("`", stringify!($next), "@@", $version, "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $next(istart: *mut c_ulonglong, iend: *mut c_ulonglong) -> bool {
            guard(stringify!($next), || {
                // SAFETY: GCC passes two writable unsigned long longs.
                unsafe { loops::next_ull(team::member(), &mut *istart, &mut *iend) }
            })
        }
    };
}

ull_loop!(
    GOMP_loop_ull_static_start,
    GOMP_loop_ull_static_next,
    Kind::Static,
    "GOMP_2.0"
);
ull_loop!(
    GOMP_loop_ull_dynamic_start,
    GOMP_loop_ull_dynamic_next,
    Kind::Dynamic,
    "GOMP_2.0"
);
ull_loop!(
    GOMP_loop_ull_guided_start,
    GOMP_loop_ull_guided_next,
    Kind::Guided,
    "GOMP_2.0"
);
ull_runtime_loop!(
    GOMP_loop_ull_runtime_start,
    GOMP_loop_ull_runtime_next,
    "GOMP_2.0"
);
ull_loop!(
    GOMP_loop_ull_nonmonotonic_dynamic_start,
    GOMP_loop_ull_nonmonotonic_dynamic_next,
    Kind::Dynamic,
    "GOMP_4.5"
);
ull_loop!(
    GOMP_loop_ull_nonmonotonic_guided_start,
    GOMP_loop_ull_nonmonotonic_guided_next,
    Kind::Guided,
    "GOMP_4.5"
);
ull_runtime_loop!(
    GOMP_loop_ull_nonmonotonic_runtime_start,
    GOMP_loop_ull_nonmonotonic_runtime_next,
    "GOMP_5.0"
);
ull_runtime_loop!(
    GOMP_loop_ull_maybe_nonmonotonic_runtime_start,
    GOMP_loop_ull_maybe_nonmonotonic_runtime_next,
    "GOMP_5.0"
);

ull_loop!(
    GOMP_loop_ull_ordered_static_start,
    GOMP_loop_ull_ordered_static_next,
    Kind::Static,
    true,
    "GOMP_2.0"
);
ull_loop!(
    GOMP_loop_ull_ordered_dynamic_start,
    GOMP_loop_ull_ordered_dynamic_next,
    Kind::Dynamic,
    true,
    "GOMP_2.0"
);
ull_loop!(
    GOMP_loop_ull_ordered_guided_start,
    GOMP_loop_ull_ordered_guided_next,
    Kind::Guided,
    true,
    "GOMP_2.0"
);
ull_runtime_loop!(
    GOMP_loop_ull_ordered_runtime_start,
    GOMP_loop_ull_ordered_runtime_next,
    true,
    "GOMP_2.0"
);

/// A `GOMP_loop_ordered_*_start` with a chunk argument and its `_next`.
macro_rules! ordered_loop {
    ($start:ident, $next:ident, $kind:expr) => {
        #[doc = concat!("`", stringify!($start), "@@GOMP_1.0`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $start(
            start: c_long,
            end: c_long,
            incr: c_long,
            chunk: c_long,
            istart: *mut c_long,
            iend: *mut c_long,
        ) -> bool {
            guard(stringify!($start), || {
                let m = team::member();
                let schedule = Schedule {
                    kind: $kind,
                    chunk: chunk.max(0) as u64,
                };
                loops::start_ordered(m, schedule, start, end, incr);
                // SAFETY: GCC passes two writable longs.
                unsafe { loops::next(m, &mut *istart, &mut *iend) }
            })
        }
        ordered_next!($next);
    };
}

/// A `GOMP_loop_ordered_*_next`.
macro_rules! ordered_next {
    ($next:ident) => {
        #[doc = concat!("`", stringify!($next), "@@GOMP_1.0`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $next(istart: *mut c_long, iend: *mut c_long) -> bool {
            guard(stringify!($next), || {
                // SAFETY: GCC passes two writable longs.
                unsafe { loops::next(team::member(), &mut *istart, &mut *iend) }
            })
        }
    };
}

ordered_loop!(
    GOMP_loop_ordered_static_start,
    GOMP_loop_ordered_static_next,
    Kind::Static
);
ordered_loop!(
    GOMP_loop_ordered_dynamic_start,
    GOMP_loop_ordered_dynamic_next,
    Kind::Dynamic
);
ordered_loop!(
    GOMP_loop_ordered_guided_start,
    GOMP_loop_ordered_guided_next,
    Kind::Guided
);

/// `GOMP_loop_ordered_runtime_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_ordered_runtime_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    guard("GOMP_loop_ordered_runtime_start", || {
        let m = team::member();
        loops::start_ordered(m, env::run_schedule(), start, end, incr);
        // SAFETY: GCC passes two writable longs.
        unsafe { loops::next(m, &mut *istart, &mut *iend) }
    })
}
ordered_next!(GOMP_loop_ordered_runtime_next);

/// `GOMP_ordered_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_ordered_start() {
    guard(
        "GOMP_ordered_start",
        || loops::ordered_start(team::member()),
    )
}

/// `GOMP_ordered_end@@GOMP_1.0`: nothing; the turn passes when the chunk is done.
#[no_mangle]
pub unsafe extern "C" fn GOMP_ordered_end() {}

/// `GOMP_loop_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_end() {
    guard("GOMP_loop_end", || loops::end(team::member()))
}

/// `GOMP_loop_end_cancel@@GOMP_4.0`: the end of a loop that has a `cancel for`; as
/// `GOMP_loop_end`, never cancelled.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_end_cancel() -> bool {
    guard("GOMP_loop_end_cancel", || loops::end(team::member()));
    false
}

/// `GOMP_loop_end_nowait@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_loop_end_nowait() {
    guard("GOMP_loop_end_nowait", || loops::end_nowait(team::member()))
}

/// `GOMP_sections_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections_start(count: c_uint) -> c_uint {
    guard("GOMP_sections_start", || {
        loops::sections_start(team::member(), count)
    })
}

/// `GOMP_sections_next@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections_next() -> c_uint {
    guard(
        "GOMP_sections_next",
        || loops::sections_next(team::member()),
    )
}

/// `GOMP_sections_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections_end() {
    guard("GOMP_sections_end", || loops::end(team::member()))
}

/// `GOMP_sections_end_cancel@@GOMP_4.0`: the end of sections that have a `cancel
/// sections`; as `GOMP_sections_end`, never cancelled.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections_end_cancel() -> bool {
    guard("GOMP_sections_end_cancel", || loops::end(team::member()));
    false
}

/// `GOMP_sections_end_nowait@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections_end_nowait() {
    guard("GOMP_sections_end_nowait", || {
        loops::end_nowait(team::member())
    })
}

/// `GOMP_parallel_sections@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_sections(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: c_uint,
    count: c_uint,
    _flags: c_uint,
) {
    guard("GOMP_parallel_sections", || {
        team::parallel(f, data, num_threads as usize, &|m| {
            loops::sections_init(m, count)
        })
    })
}

/// `GOMP_single_copy_start@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_single_copy_start() -> *mut c_void {
    guard("GOMP_single_copy_start", || {
        loops::single_copy_start(team::member())
    })
}

/// `GOMP_single_copy_end@@GOMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_single_copy_end(data: *mut c_void) {
    guard("GOMP_single_copy_end", || {
        loops::single_copy_end(team::member(), data)
    })
}

/// `omp_get_thread_num@@OMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_thread_num() -> c_int {
    guard("omp_get_thread_num", || team::member().num as c_int)
}

/// `omp_get_num_threads@@OMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_num_threads() -> c_int {
    guard("omp_get_num_threads", || {
        team::member().team().size as c_int
    })
}

/// `omp_get_max_threads@@OMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_max_threads() -> c_int {
    guard("omp_get_max_threads", || env::max_threads() as c_int)
}

/// `omp_set_num_threads@@OMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_num_threads(n: c_int) {
    guard("omp_set_num_threads", || {
        env::set_num_threads(n.max(1) as usize)
    })
}

/// `omp_in_parallel@@OMP_1.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_in_parallel() -> c_int {
    guard("omp_in_parallel", || c_int::from(team::member().active))
}

/// `omp_in_final@@OMP_3.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_in_final() -> c_int {
    guard("omp_in_final", || c_int::from(task::in_final()))
}

/// `omp_get_wtime@@OMP_2.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_wtime() -> f64 {
    guard("omp_get_wtime", || wtime())
}

/// `omp_get_wtick@@OMP_2.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_wtick() -> f64 {
    guard("omp_get_wtick", || 1e-9)
}

/// `omp_get_num_procs@@OMP_1.0`: the processors this process may run on (its affinity
/// mask, as libgomp counts them).
#[no_mangle]
pub unsafe extern "C" fn omp_get_num_procs() -> c_int {
    guard("omp_get_num_procs", || {
        // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity fills it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
                return 1;
            }
            libc::CPU_COUNT(&set).max(1)
        }
    })
}

/// `omp_get_dynamic@@OMP_1.0`: dyn-var (`env.rs`); locus never adjusts a team's size,
/// which either value allows.
#[no_mangle]
pub unsafe extern "C" fn omp_get_dynamic() -> c_int {
    guard("omp_get_dynamic", || c_int::from(env::dynamic()))
}

/// `omp_set_dynamic@@OMP_1.0`: sets dyn-var.
#[no_mangle]
pub unsafe extern "C" fn omp_set_dynamic(dynamic: c_int) {
    guard("omp_set_dynamic", || env::set_dynamic(dynamic != 0))
}

/// `omp_get_nested@@OMP_1.0`: whether max-active-levels-var allows more than one
/// active level, as libgomp answers.
#[no_mangle]
pub unsafe extern "C" fn omp_get_nested() -> c_int {
    guard("omp_get_nested", || {
        c_int::from(env::max_active_levels() > 1)
    })
}

/// `omp_set_nested@@OMP_1.0`: as libgomp, true sets max-active-levels-var to every
/// level locus supports, false lowers one above 1 to 1.
#[no_mangle]
pub unsafe extern "C" fn omp_set_nested(nested: c_int) {
    guard("omp_set_nested", || {
        let levels = env::max_active_levels();
        if nested != 0 {
            env::set_max_active_levels(env::SUPPORTED_ACTIVE_LEVELS as c_int);
        } else if nested == 0 && levels > 1 {
            env::set_max_active_levels(1);
        }
    })
}

/// `omp_get_level@@OMP_3.0`: the enclosing parallel regions, active or not.
#[no_mangle]
pub unsafe extern "C" fn omp_get_level() -> c_int {
    guard("omp_get_level", || team::member().level as c_int)
}

/// `omp_get_active_level@@OMP_3.0`: the enclosing regions of more than one thread.
#[no_mangle]
pub unsafe extern "C" fn omp_get_active_level() -> c_int {
    guard("omp_get_active_level", || {
        team::member().active_level as c_int
    })
}

/// `omp_get_ancestor_thread_num@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_ancestor_thread_num(level: c_int) -> c_int {
    guard("omp_get_ancestor_thread_num", || {
        let m = team::member();
        usize::try_from(level)
            .ok()
            .and_then(|l| m.ancestor(l))
            .map_or(-1, |a| a.num as c_int)
    })
}

/// `omp_get_team_size@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_team_size(level: c_int) -> c_int {
    guard("omp_get_team_size", || {
        let m = team::member();
        usize::try_from(level)
            .ok()
            .and_then(|l| m.ancestor(l))
            .map_or(-1, |a| a.team().size as c_int)
    })
}

/// `omp_get_thread_limit@@OMP_3.0`: thread-limit-var (`OMP_THREAD_LIMIT`, else the
/// largest team locus makes), or the enclosing `teams` region's limit if lower.
#[no_mangle]
pub unsafe extern "C" fn omp_get_thread_limit() -> c_int {
    guard("omp_get_thread_limit", || {
        let limit = env::thread_limit();
        teams::thread_limit().map_or(limit, |l| l.min(limit)) as c_int
    })
}

/// `omp_get_max_active_levels@@OMP_3.0`: max-active-levels-var, at most the levels
/// locus supports (`env.rs`).
#[no_mangle]
pub unsafe extern "C" fn omp_get_max_active_levels() -> c_int {
    guard("omp_get_max_active_levels", || {
        env::max_active_levels() as c_int
    })
}

/// `omp_set_max_active_levels@@OMP_3.0`: sets max-active-levels-var (0: every region
/// inactive; negative values are ignored).
#[no_mangle]
pub unsafe extern "C" fn omp_set_max_active_levels(levels: c_int) {
    guard("omp_set_max_active_levels", || {
        env::set_max_active_levels(levels)
    })
}

/// `omp_get_supported_active_levels@@OMP_5.0.1`: `env::SUPPORTED_ACTIVE_LEVELS`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_supported_active_levels() -> c_int {
    env::SUPPORTED_ACTIVE_LEVELS as c_int
}

/// omp_sched_t's monotonic modifier.
const SCHED_MONOTONIC: c_uint = 0x8000_0000;

/// `omp_get_schedule@@OMP_3.0`: run-sched-var, as omp_sched_t (static 1, dynamic 2,
/// guided 3) and its chunk.
#[no_mangle]
pub unsafe extern "C" fn omp_get_schedule(kind: *mut c_uint, chunk: *mut c_int) {
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

/// `omp_set_schedule@@OMP_3.0`: sets run-sched-var (auto is taken as static, as
/// `OMP_SCHEDULE` is; an unknown kind is ignored).
#[no_mangle]
pub unsafe extern "C" fn omp_set_schedule(kind: c_uint, chunk: c_int) {
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

/// `omp_get_cancellation@@OMP_4.0`: false; cancellation is off (`GOMP_cancel`).
#[no_mangle]
pub unsafe extern "C" fn omp_get_cancellation() -> c_int {
    0
}

/// `omp_get_proc_bind@@OMP_4.0`: bind-var's first level (`OMP_PROC_BIND`, else
/// omp_proc_bind_false); `env::binding` says how far locus's pinning follows it.
#[no_mangle]
pub unsafe extern "C" fn omp_get_proc_bind() -> c_int {
    guard("omp_get_proc_bind", || env::proc_bind())
}

/// `omp_get_num_places@@OMP_4.5`: 0; locus has no place list.
#[no_mangle]
pub unsafe extern "C" fn omp_get_num_places() -> c_int {
    0
}

/// `omp_get_place_num@@OMP_4.5`: -1, bound to no place.
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_num() -> c_int {
    -1
}

/// `omp_get_place_num_procs@@OMP_4.5`: 0; with no place list, every place number is
/// out of range.
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_num_procs(_place: c_int) -> c_int {
    0
}

/// `omp_get_place_proc_ids@@OMP_4.5`: writes nothing (no place has processors).
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_proc_ids(_place: c_int, _ids: *mut c_int) {}

/// `omp_get_partition_place_nums@@OMP_4.5`: writes nothing (the partition holds no
/// places).
#[no_mangle]
pub unsafe extern "C" fn omp_get_partition_place_nums(_places: *mut c_int) {}

/// `omp_display_env@@OMP_5.1`: the settings, on stderr (`env::display`).
#[no_mangle]
pub unsafe extern "C" fn omp_display_env(verbose: c_int) {
    guard("omp_display_env", || {
        eprint!("{}", env::display(verbose != 0))
    })
}

/// A C string of the program's, or `None` for a null pointer.
///
/// # Safety
/// `p` is null or NUL-terminated.
unsafe fn c_str(p: *const std::ffi::c_char) -> Option<String> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| {
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

/// `omp_set_affinity_format@@OMP_5.0` (`affinity.rs`).
#[no_mangle]
pub unsafe extern "C" fn omp_set_affinity_format(format: *const std::ffi::c_char) {
    // SAFETY: the program's NUL-terminated format.
    guard("omp_set_affinity_format", || {
        affinity::set_format(&unsafe { c_str(format) }.unwrap_or_default())
    })
}

/// `omp_get_affinity_format@@OMP_5.0`: the format's length; at most `size - 1` bytes
/// of it copied, with a NUL.
#[no_mangle]
pub unsafe extern "C" fn omp_get_affinity_format(
    buffer: *mut std::ffi::c_char,
    size: usize,
) -> usize {
    // SAFETY: the program's buffer of `size` bytes.
    guard("omp_get_affinity_format", || unsafe {
        to_c_buffer(&affinity::format(), buffer, size)
    })
}

/// `omp_capture_affinity@@OMP_5.0`: this thread's line, as `omp_get_affinity_format`
/// copies (a null or empty `format` is affinity-format-var).
#[no_mangle]
pub unsafe extern "C" fn omp_capture_affinity(
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

/// `omp_display_affinity@@OMP_5.0`: this thread's line, on stderr.
#[no_mangle]
pub unsafe extern "C" fn omp_display_affinity(format: *const std::ffi::c_char) {
    // SAFETY: the program's format.
    guard("omp_display_affinity", || {
        eprintln!("{}", affinity::capture(unsafe { c_str(format) }.as_deref()))
    })
}

/// `omp_pause_resource@@OMP_5.0`: `omp_pause_soft` (1) or `omp_pause_hard` (2) on the
/// host (device 0): the workers of every team not running end (`crew::retire_free`),
/// so a later region starts new ones, as libgomp's pause frees its threads; the
/// settings persist, which both kinds allow. -1 for another kind or device, or inside
/// a parallel region (as libgomp answers there).
#[no_mangle]
pub unsafe extern "C" fn omp_pause_resource(kind: c_int, device: c_int) -> c_int {
    guard("omp_pause_resource", || {
        let known = kind == 1 || kind == 2;
        if !known || device != target::HOST || team::member().level != 0 {
            -1
        } else {
            crate::crew::retire_free();
            0
        }
    })
}

/// `omp_pause_resource_all@@OMP_5.0`: as `omp_pause_resource` on the host, the one
/// device.
#[no_mangle]
pub unsafe extern "C" fn omp_pause_resource_all(kind: c_int) -> c_int {
    // SAFETY: no pointers.
    unsafe { omp_pause_resource(kind, target::HOST) }
}

/// `omp_get_partition_num_places@@OMP_4.5`: 0.
#[no_mangle]
pub unsafe extern "C" fn omp_get_partition_num_places() -> c_int {
    0
}

/// `omp_get_max_task_priority@@OMP_4.5`: max-task-priority-var
/// (`OMP_MAX_TASK_PRIORITY`); priorities are hints locus's policies do not take.
#[no_mangle]
pub unsafe extern "C" fn omp_get_max_task_priority() -> c_int {
    guard("omp_get_max_task_priority", || env::max_task_priority())
}

/// `omp_get_num_devices@@OMP_4.0`: 0; no offloading.
#[no_mangle]
pub unsafe extern "C" fn omp_get_num_devices() -> c_int {
    0
}

/// `omp_get_default_device@@OMP_4.0`: default-device-var (`OMP_DEFAULT_DEVICE`, else
/// 0, the host).
#[no_mangle]
pub unsafe extern "C" fn omp_get_default_device() -> c_int {
    guard("omp_get_default_device", || env::default_device())
}

/// `omp_set_default_device@@OMP_4.0`: sets default-device-var (a target construct
/// without `device` checks it as `target.rs` checks any device number).
#[no_mangle]
pub unsafe extern "C" fn omp_set_default_device(device: c_int) {
    guard("omp_set_default_device", || env::set_default_device(device))
}

/// `omp_is_initial_device@@OMP_4.0`: true; everything runs on the host.
#[no_mangle]
pub unsafe extern "C" fn omp_is_initial_device() -> c_int {
    1
}

/// `omp_get_num_teams@@OMP_4.0`: 1 outside a `teams` region.
#[no_mangle]
pub unsafe extern "C" fn omp_get_num_teams() -> c_int {
    guard("omp_get_num_teams", || teams::num_teams() as c_int)
}

/// `omp_get_team_num@@OMP_4.0`: 0 outside a `teams` region.
#[no_mangle]
pub unsafe extern "C" fn omp_get_team_num() -> c_int {
    guard("omp_get_team_num", || teams::team_num() as c_int)
}

/// `GOMP_teams_reg@@GOMP_5.0`: a host `teams` construct; its teams run in turn on
/// this thread (`teams.rs`).
#[no_mangle]
pub unsafe extern "C" fn GOMP_teams_reg(
    f: OutlinedFn,
    data: *mut c_void,
    num_teams: c_uint,
    thread_limit: c_uint,
    _flags: c_uint,
) {
    guard("GOMP_teams_reg", || {
        // SAFETY: GCC's outlined teams region and its data.
        unsafe { teams::teams(f, data, num_teams, thread_limit) }
    })
}

/// `omp_set_num_teams@@OMP_5.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_num_teams(n: c_int) {
    guard("omp_set_num_teams", || teams::set_num_teams(n))
}

/// `omp_get_max_teams@@OMP_5.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_max_teams() -> c_int {
    guard("omp_get_max_teams", || teams::max_teams() as c_int)
}

/// `omp_set_teams_thread_limit@@OMP_5.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_teams_thread_limit(n: c_int) {
    guard("omp_set_teams_thread_limit", || {
        teams::set_teams_thread_limit(n)
    })
}

/// `omp_get_teams_thread_limit@@OMP_5.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_teams_thread_limit() -> c_int {
    guard("omp_get_teams_thread_limit", || {
        teams::teams_thread_limit() as c_int
    })
}

/// `omp_get_initial_device@@OMP_4.5`: the host, numbered as `omp_get_num_devices`
/// (OpenMP 5.1): 0.
#[no_mangle]
pub unsafe extern "C" fn omp_get_initial_device() -> c_int {
    0
}

/// `omp_get_device_num@@OMP_5.0.2`: the device this runs on, the host: 0.
#[no_mangle]
pub unsafe extern "C" fn omp_get_device_num() -> c_int {
    0
}

/// `GOMP_target_ext@@GOMP_4.5`: a target region, run on the host (`target.rs`).
#[no_mangle]
pub unsafe extern "C" fn GOMP_target_ext(
    device: c_int,
    f: OutlinedFn,
    mapnum: usize,
    hostaddrs: *mut *mut c_void,
    sizes: *mut usize,
    kinds: *mut u16,
    flags: c_uint,
    depend: *mut *mut c_void,
    args: *mut *mut c_void,
) {
    guard("GOMP_target_ext", || {
        // SAFETY: GCC's arguments for a target construct.
        unsafe {
            target::target(
                device, f, mapnum, hostaddrs, sizes, kinds, flags, depend, args,
            )
        }
    })
}

/// `GOMP_target@@GOMP_4.0`: a target region of GCC before 6, run on the host.
#[no_mangle]
pub unsafe extern "C" fn GOMP_target(
    device: c_int,
    f: OutlinedFn,
    _unused: *const c_void,
    _mapnum: usize,
    hostaddrs: *mut *mut c_void,
    _sizes: *mut usize,
    _kinds: *mut u8,
) {
    // SAFETY: GCC's outlined region and its addresses.
    guard("GOMP_target", || unsafe {
        target::target_v4(device, f, hostaddrs)
    })
}

/// The data constructs of a target region (`target data`, `update`, `enter data`,
/// `exit data`), which move nothing on the host: each keeps its `depend` clauses
/// (`target::data`). The forms: GCC 6 and later with and without flags and
/// dependences, and GCC before 6 (an unused pointer, byte-sized map kinds).
macro_rules! target_data {
    ($(#[$doc:meta] $name:ident: $what:literal, $shape:ident;)*) => {$(
        target_data!(@$shape #[$doc] $name, $what);
    )*};
    (@ext #[$doc:meta] $name:ident, $what:literal) => {
        #[$doc]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: c_int,
            _mapnum: usize,
            _hostaddrs: *mut *mut c_void,
            _sizes: *mut usize,
            _kinds: *mut u16,
            flags: c_uint,
            depend: *mut *mut c_void,
        ) {
            // SAFETY: GCC's dependence array.
            guard(stringify!($name), || unsafe { target::data($what, device, flags, depend) })
        }
    };
    (@ext_plain #[$doc:meta] $name:ident, $what:literal) => {
        #[$doc]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: c_int,
            _mapnum: usize,
            _hostaddrs: *mut *mut c_void,
            _sizes: *mut usize,
            _kinds: *mut u16,
        ) {
            // SAFETY: no dependences.
            guard(stringify!($name), || unsafe {
                target::data($what, device, 0, std::ptr::null_mut())
            })
        }
    };
    (@v4 #[$doc:meta] $name:ident, $what:literal) => {
        #[$doc]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: c_int,
            _unused: *const c_void,
            _mapnum: usize,
            _hostaddrs: *mut *mut c_void,
            _sizes: *mut usize,
            _kinds: *mut u8,
        ) {
            // SAFETY: no dependences.
            guard(stringify!($name), || unsafe {
                target::data($what, device, 0, std::ptr::null_mut())
            })
        }
    };
}

target_data! {
    /// `GOMP_target_data_ext@@GOMP_4.5`: `target data`.
    GOMP_target_data_ext: "a target data construct", ext_plain;
    /// `GOMP_target_data@@GOMP_4.0`: `target data`, GCC before 6.
    GOMP_target_data: "a target data construct", v4;
    /// `GOMP_target_update_ext@@GOMP_4.5`: `target update`.
    GOMP_target_update_ext: "a target update construct", ext;
    /// `GOMP_target_update@@GOMP_4.0`: `target update`, GCC before 6.
    GOMP_target_update: "a target update construct", v4;
    /// `GOMP_target_enter_exit_data@@GOMP_4.5`: `target enter data` and `exit data`.
    GOMP_target_enter_exit_data: "a target enter/exit data construct", ext;
}

/// `GOMP_target_end_data@@GOMP_4.0`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_target_end_data() {}

/// `GOMP_teams4@@GOMP_5.1`: the teams of a target region, in turn.
#[no_mangle]
pub unsafe extern "C" fn GOMP_teams4(
    num_teams_low: c_uint,
    _num_teams_high: c_uint,
    thread_limit: c_uint,
    first: bool,
) -> bool {
    guard("GOMP_teams4", || {
        target::teams4(num_teams_low, thread_limit, first)
    })
}

/// `GOMP_teams@@GOMP_4.0`: a target region's teams, GCC before 12: one team.
#[no_mangle]
pub unsafe extern "C" fn GOMP_teams(_num_teams: c_uint, thread_limit: c_uint) {
    guard("GOMP_teams", || target::teams_v4(thread_limit))
}

/// `GOMP_offload_register_ver@@GOMP_4.5`: a program's offload images; ignored, so
/// their target regions run on the host.
#[no_mangle]
pub unsafe extern "C" fn GOMP_offload_register_ver(
    _version: c_uint,
    _host_table: *const c_void,
    _target_type: c_int,
    _target_data: *const c_void,
) {
}

/// `GOMP_offload_unregister_ver@@GOMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_offload_unregister_ver(
    _version: c_uint,
    _host_table: *const c_void,
    _target_type: c_int,
    _target_data: *const c_void,
) {
}

/// `GOMP_offload_register@@GOMP_4.0.1`: ignored, as `GOMP_offload_register_ver`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_offload_register(
    _host_table: *const c_void,
    _target_type: c_int,
    _target_data: *const c_void,
) {
}

/// `GOMP_offload_unregister@@GOMP_4.0.1`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_offload_unregister(
    _host_table: *const c_void,
    _target_type: c_int,
    _target_data: *const c_void,
) {
}

/// `omp_target_alloc@@OMP_4.5`: host memory on the host device; null for any other.
#[no_mangle]
pub unsafe extern "C" fn omp_target_alloc(size: usize, device: c_int) -> *mut c_void {
    guard("omp_target_alloc", || target::device_alloc(size, device))
}

/// `omp_target_free@@OMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn omp_target_free(p: *mut c_void, device: c_int) {
    // SAFETY: null or from omp_target_alloc for this device, freed once.
    guard("omp_target_free", || unsafe {
        target::device_free(p, device)
    })
}

/// `omp_target_is_present@@OMP_4.5`: 1 on the host device (all host memory is there).
#[no_mangle]
pub unsafe extern "C" fn omp_target_is_present(_p: *const c_void, device: c_int) -> c_int {
    c_int::from(device == target::HOST)
}

/// `omp_target_memcpy@@OMP_4.5`: 0, or `EINVAL` for a device but the host.
#[no_mangle]
pub unsafe extern "C" fn omp_target_memcpy(
    dst: *mut c_void,
    src: *const c_void,
    length: usize,
    dst_offset: usize,
    src_offset: usize,
    dst_device: c_int,
    src_device: c_int,
) -> c_int {
    guard("omp_target_memcpy", || {
        if dst_device != target::HOST || src_device != target::HOST {
            return libc::EINVAL;
        }
        if length > 0 {
            // SAFETY: the program's two buffers, `length` bytes past the offsets.
            unsafe {
                std::ptr::copy(
                    src.cast::<u8>().add(src_offset),
                    dst.cast::<u8>().add(dst_offset),
                    length,
                )
            };
        }
        0
    })
}

/// `omp_target_memcpy_rect@@OMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn omp_target_memcpy_rect(
    dst: *mut c_void,
    src: *const c_void,
    element_size: usize,
    num_dims: c_int,
    volume: *const usize,
    dst_offsets: *const usize,
    src_offsets: *const usize,
    dst_dimensions: *const usize,
    src_dimensions: *const usize,
    dst_device: c_int,
    src_device: c_int,
) -> c_int {
    guard("omp_target_memcpy_rect", || {
        // SAFETY: the program's arrays of `num_dims` entries and its two buffers.
        unsafe {
            target::memcpy_rect(
                dst,
                src,
                element_size,
                num_dims,
                volume,
                dst_offsets,
                src_offsets,
                dst_dimensions,
                src_dimensions,
                dst_device,
                src_device,
            )
        }
    })
}

/// `omp_target_associate_ptr@@OMP_4.5`: `EINVAL`, as libgomp answers for the host
/// device (there is nothing to associate host memory with).
#[no_mangle]
pub unsafe extern "C" fn omp_target_associate_ptr(
    _host_ptr: *const c_void,
    _device_ptr: *const c_void,
    _size: usize,
    _device_offset: usize,
    _device: c_int,
) -> c_int {
    libc::EINVAL
}

/// `omp_target_disassociate_ptr@@OMP_4.5`: `EINVAL`, as `omp_target_associate_ptr`.
#[no_mangle]
pub unsafe extern "C" fn omp_target_disassociate_ptr(_p: *const c_void, _device: c_int) -> c_int {
    libc::EINVAL
}

/// `omp_init_allocator@@OMP_5.0.1`: `omp_null_allocator` if the traits cannot be met.
#[no_mangle]
pub unsafe extern "C" fn omp_init_allocator(
    memspace: alloc::Memspace,
    ntraits: c_int,
    traits: *const c_void,
) -> alloc::Handle {
    guard("omp_init_allocator", || {
        let traits = match usize::try_from(ntraits) {
            Ok(n) if n > 0 && !traits.is_null() => {
                // SAFETY: the program's array of `ntraits` omp_alloctrait_t.
                unsafe { std::slice::from_raw_parts(traits.cast::<alloc::Trait>(), n) }
            }
            _ => &[],
        };
        alloc::init(memspace, traits)
    })
}

/// `omp_destroy_allocator@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_allocator(a: alloc::Handle) {
    // SAFETY: a handle from `omp_init_allocator`, destroyed once (the program's promise).
    guard("omp_destroy_allocator", || unsafe { alloc::destroy(a) })
}

/// `omp_set_default_allocator@@OMP_5.0.1`: for the tasks this thread runs.
#[no_mangle]
pub unsafe extern "C" fn omp_set_default_allocator(a: alloc::Handle) {
    guard("omp_set_default_allocator", || {
        alloc::set_default_allocator(a)
    })
}

/// `omp_get_default_allocator@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_default_allocator() -> alloc::Handle {
    guard("omp_get_default_allocator", || alloc::default_allocator())
}

/// `omp_alloc@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_alloc(size: usize, a: alloc::Handle) -> *mut c_void {
    // SAFETY: a handle of the program's (predefined, made and live, or null).
    guard("omp_alloc", || unsafe {
        alloc::allocate(0, size, a, false)
    })
    .cast()
}

/// `omp_aligned_alloc@@OMP_5.0.2`: null unless `align` is a power of two.
#[no_mangle]
pub unsafe extern "C" fn omp_aligned_alloc(
    align: usize,
    size: usize,
    a: alloc::Handle,
) -> *mut c_void {
    guard("omp_aligned_alloc", || {
        if align == 0 {
            return std::ptr::null_mut();
        }
        // SAFETY: as for omp_alloc.
        unsafe { alloc::allocate(align, size, a, false) }
    })
    .cast()
}

/// `omp_calloc@@OMP_5.0.2`: zeroed; null if `n * size` overflows.
#[no_mangle]
pub unsafe extern "C" fn omp_calloc(n: usize, size: usize, a: alloc::Handle) -> *mut c_void {
    guard("omp_calloc", || match n.checked_mul(size) {
        // SAFETY: as for omp_alloc.
        Some(bytes) => unsafe { alloc::allocate(0, bytes, a, true) },
        None => std::ptr::null_mut(),
    })
    .cast()
}

/// `omp_aligned_calloc@@OMP_5.0.2`.
#[no_mangle]
pub unsafe extern "C" fn omp_aligned_calloc(
    align: usize,
    n: usize,
    size: usize,
    a: alloc::Handle,
) -> *mut c_void {
    guard("omp_aligned_calloc", || match n.checked_mul(size) {
        Some(_) if align == 0 => std::ptr::null_mut(),
        // SAFETY: as for omp_alloc.
        Some(bytes) => unsafe { alloc::allocate(align, bytes, a, true) },
        None => std::ptr::null_mut(),
    })
    .cast()
}

/// `omp_realloc@@OMP_5.0.2`: the block comes from `a`, else from the allocator `p` came
/// from; `free_allocator` need not be given (a block knows its allocator).
#[no_mangle]
pub unsafe extern "C" fn omp_realloc(
    p: *mut c_void,
    size: usize,
    a: alloc::Handle,
    _free_allocator: alloc::Handle,
) -> *mut c_void {
    // SAFETY: null or a live block from these functions; a handle as for omp_alloc.
    guard("omp_realloc", || unsafe {
        alloc::reallocate(p.cast(), size, a)
    })
    .cast()
}

/// `omp_free@@OMP_5.0.1`: the allocator argument need not be given.
#[no_mangle]
pub unsafe extern "C" fn omp_free(p: *mut c_void, _a: alloc::Handle) {
    // SAFETY: null or a live block from these functions, freed once.
    guard("omp_free", || unsafe { alloc::free(p.cast()) })
}

/// `GOMP_alloc@@GOMP_5.0.1`: the `allocate` directive and clause.
#[no_mangle]
pub unsafe extern "C" fn GOMP_alloc(align: usize, size: usize, a: alloc::Handle) -> *mut c_void {
    // SAFETY: as for omp_alloc.
    guard("GOMP_alloc", || unsafe {
        alloc::allocate(align, size, a, false)
    })
    .cast()
}

/// `GOMP_free@@GOMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_free(p: *mut c_void, _a: alloc::Handle) {
    // SAFETY: as for omp_free.
    guard("GOMP_free", || unsafe { alloc::free(p.cast()) })
}

/// `omp_init_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_init_lock(l: *mut c_void) {
    guard("omp_init_lock", || {
        // SAFETY: GCC's omp_lock_t: 4 bytes, aligned 4.
        unsafe { lock::word(l) }.store(0, Ordering::Relaxed)
    })
}

/// `omp_destroy_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_lock(l: *mut c_void) {
    guard("omp_destroy_lock", || {
        // SAFETY: as for omp_init_lock.
        unsafe { lock::word(l) }.store(0, Ordering::Relaxed)
    })
}

/// `omp_set_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_lock(l: *mut c_void) {
    guard("omp_set_lock", || {
        // SAFETY: as for omp_init_lock.
        lock::lock(unsafe { lock::word(l) })
    })
}

/// `omp_unset_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_unset_lock(l: *mut c_void) {
    guard("omp_unset_lock", || {
        // SAFETY: as for omp_init_lock.
        lock::unlock(unsafe { lock::word(l) })
    })
}

/// `omp_test_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_test_lock(l: *mut c_void) -> c_int {
    guard("omp_test_lock", || {
        // SAFETY: as for omp_init_lock.
        c_int::from(lock::try_lock(unsafe { lock::word(l) }))
    })
}

/// `omp_init_nest_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_init_nest_lock(l: *mut c_void) {
    guard("omp_init_nest_lock", || {
        // SAFETY: GCC's omp_nest_lock_t: 16 bytes, aligned 8.
        unsafe { lock::NestLock::at(l) }.init()
    })
}

/// `omp_destroy_nest_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_nest_lock(l: *mut c_void) {
    guard("omp_destroy_nest_lock", || {
        // SAFETY: as for omp_init_nest_lock.
        unsafe { lock::NestLock::at(l) }.init()
    })
}

/// `omp_set_nest_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_nest_lock(l: *mut c_void) {
    guard("omp_set_nest_lock", || {
        // SAFETY: as for omp_init_nest_lock.
        unsafe { lock::NestLock::at(l) }.set(task::current_ptr())
    })
}

/// `omp_unset_nest_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_unset_nest_lock(l: *mut c_void) {
    guard("omp_unset_nest_lock", || {
        // SAFETY: as for omp_init_nest_lock.
        unsafe { lock::NestLock::at(l) }.unset()
    })
}

/// `omp_test_nest_lock@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_test_nest_lock(l: *mut c_void) -> c_int {
    guard("omp_test_nest_lock", || {
        // SAFETY: as for omp_init_nest_lock.
        unsafe { lock::NestLock::at(l) }.test(task::current_ptr())
    })
}

// The Fortran forms, in this module (see the file's first lines).
include!("fortran.rs");

/// `locus_footprint_read@@LOCUS_1.0`.
#[no_mangle]
pub unsafe extern "C" fn locus_footprint_read(ptr: *const c_void, len: usize) {
    guard("locus_footprint_read", || footprint::read(ptr.cast(), len))
}

/// `locus_footprint_write@@LOCUS_1.0`.
#[no_mangle]
pub unsafe extern "C" fn locus_footprint_write(ptr: *const c_void, len: usize) {
    guard("locus_footprint_write", || {
        footprint::write(ptr.cast(), len)
    })
}

// The symbol versions: each entry point bound to its node of `libgomp.map`. Not in
// unit tests, which link this crate into an executable that has no version script.
#[cfg(not(test))]
std::arch::global_asm!(
    ".symver GOMP_parallel, GOMP_parallel@@GOMP_4.0",
    ".symver GOMP_parallel_start, GOMP_parallel_start@@GOMP_1.0",
    ".symver GOMP_parallel_end, GOMP_parallel_end@@GOMP_1.0",
    ".symver GOMP_parallel_loop_static_start, GOMP_parallel_loop_static_start@@GOMP_1.0",
    ".symver GOMP_parallel_loop_dynamic_start, GOMP_parallel_loop_dynamic_start@@GOMP_1.0",
    ".symver GOMP_parallel_loop_guided_start, GOMP_parallel_loop_guided_start@@GOMP_1.0",
    ".symver GOMP_parallel_loop_runtime_start, GOMP_parallel_loop_runtime_start@@GOMP_1.0",
    ".symver GOMP_parallel_sections_start, GOMP_parallel_sections_start@@GOMP_1.0",
    ".symver GOMP_task, GOMP_task@@GOMP_2.0",
    ".symver GOMP_taskgroup_reduction_register, GOMP_taskgroup_reduction_register@@GOMP_5.0",
    ".symver GOMP_taskgroup_reduction_unregister, GOMP_taskgroup_reduction_unregister@@GOMP_5.0",
    ".symver GOMP_task_reduction_remap, GOMP_task_reduction_remap@@GOMP_5.0",
    ".symver GOMP_taskwait, GOMP_taskwait@@GOMP_2.0",
    ".symver GOMP_taskloop, GOMP_taskloop@@GOMP_4.5",
    ".symver GOMP_taskloop_ull, GOMP_taskloop_ull@@GOMP_4.5",
    ".symver GOMP_taskgroup_start, GOMP_taskgroup_start@@GOMP_4.0",
    ".symver GOMP_taskgroup_end, GOMP_taskgroup_end@@GOMP_4.0",
    ".symver GOMP_single_start, GOMP_single_start@@GOMP_1.0",
    ".symver GOMP_barrier, GOMP_barrier@@GOMP_1.0",
    ".symver GOMP_cancel, GOMP_cancel@@GOMP_4.0",
    ".symver GOMP_cancellation_point, GOMP_cancellation_point@@GOMP_4.0",
    ".symver GOMP_barrier_cancel, GOMP_barrier_cancel@@GOMP_4.0",
    ".symver GOMP_loop_end_cancel, GOMP_loop_end_cancel@@GOMP_4.0",
    ".symver GOMP_sections_end_cancel, GOMP_sections_end_cancel@@GOMP_4.0",
    ".symver GOMP_critical_start, GOMP_critical_start@@GOMP_1.0",
    ".symver GOMP_critical_end, GOMP_critical_end@@GOMP_1.0",
    ".symver GOMP_critical_name_start, GOMP_critical_name_start@@GOMP_1.0",
    ".symver GOMP_critical_name_end, GOMP_critical_name_end@@GOMP_1.0",
    ".symver GOMP_atomic_start, GOMP_atomic_start@@GOMP_1.0",
    ".symver GOMP_atomic_end, GOMP_atomic_end@@GOMP_1.0",
    ".symver GOMP_loop_static_start, GOMP_loop_static_start@@GOMP_1.0",
    ".symver GOMP_loop_static_next, GOMP_loop_static_next@@GOMP_1.0",
    ".symver GOMP_parallel_loop_static, GOMP_parallel_loop_static@@GOMP_4.0",
    ".symver GOMP_loop_dynamic_start, GOMP_loop_dynamic_start@@GOMP_1.0",
    ".symver GOMP_loop_dynamic_next, GOMP_loop_dynamic_next@@GOMP_1.0",
    ".symver GOMP_parallel_loop_dynamic, GOMP_parallel_loop_dynamic@@GOMP_4.0",
    ".symver GOMP_loop_guided_start, GOMP_loop_guided_start@@GOMP_1.0",
    ".symver GOMP_loop_guided_next, GOMP_loop_guided_next@@GOMP_1.0",
    ".symver GOMP_parallel_loop_guided, GOMP_parallel_loop_guided@@GOMP_4.0",
    ".symver GOMP_loop_nonmonotonic_dynamic_start, GOMP_loop_nonmonotonic_dynamic_start@@GOMP_4.5",
    ".symver GOMP_loop_nonmonotonic_dynamic_next, GOMP_loop_nonmonotonic_dynamic_next@@GOMP_4.5",
    ".symver GOMP_parallel_loop_nonmonotonic_dynamic, GOMP_parallel_loop_nonmonotonic_dynamic@@GOMP_4.5",
    ".symver GOMP_loop_nonmonotonic_guided_start, GOMP_loop_nonmonotonic_guided_start@@GOMP_4.5",
    ".symver GOMP_loop_nonmonotonic_guided_next, GOMP_loop_nonmonotonic_guided_next@@GOMP_4.5",
    ".symver GOMP_parallel_loop_nonmonotonic_guided, GOMP_parallel_loop_nonmonotonic_guided@@GOMP_4.5",
    ".symver GOMP_loop_runtime_start, GOMP_loop_runtime_start@@GOMP_1.0",
    ".symver GOMP_loop_runtime_next, GOMP_loop_runtime_next@@GOMP_1.0",
    ".symver GOMP_parallel_loop_runtime, GOMP_parallel_loop_runtime@@GOMP_4.0",
    ".symver GOMP_loop_nonmonotonic_runtime_start, GOMP_loop_nonmonotonic_runtime_start@@GOMP_5.0",
    ".symver GOMP_loop_nonmonotonic_runtime_next, GOMP_loop_nonmonotonic_runtime_next@@GOMP_5.0",
    ".symver GOMP_parallel_loop_nonmonotonic_runtime, GOMP_parallel_loop_nonmonotonic_runtime@@GOMP_5.0",
    ".symver GOMP_loop_maybe_nonmonotonic_runtime_start, GOMP_loop_maybe_nonmonotonic_runtime_start@@GOMP_5.0",
    ".symver GOMP_loop_maybe_nonmonotonic_runtime_next, GOMP_loop_maybe_nonmonotonic_runtime_next@@GOMP_5.0",
    ".symver GOMP_parallel_loop_maybe_nonmonotonic_runtime, GOMP_parallel_loop_maybe_nonmonotonic_runtime@@GOMP_5.0",
    ".symver GOMP_loop_ull_static_start, GOMP_loop_ull_static_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_static_next, GOMP_loop_ull_static_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_dynamic_start, GOMP_loop_ull_dynamic_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_dynamic_next, GOMP_loop_ull_dynamic_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_guided_start, GOMP_loop_ull_guided_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_guided_next, GOMP_loop_ull_guided_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_runtime_start, GOMP_loop_ull_runtime_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_runtime_next, GOMP_loop_ull_runtime_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_nonmonotonic_dynamic_start, GOMP_loop_ull_nonmonotonic_dynamic_start@@GOMP_4.5",
    ".symver GOMP_loop_ull_nonmonotonic_dynamic_next, GOMP_loop_ull_nonmonotonic_dynamic_next@@GOMP_4.5",
    ".symver GOMP_loop_ull_nonmonotonic_guided_start, GOMP_loop_ull_nonmonotonic_guided_start@@GOMP_4.5",
    ".symver GOMP_loop_ull_nonmonotonic_guided_next, GOMP_loop_ull_nonmonotonic_guided_next@@GOMP_4.5",
    ".symver GOMP_loop_ull_nonmonotonic_runtime_start, GOMP_loop_ull_nonmonotonic_runtime_start@@GOMP_5.0",
    ".symver GOMP_loop_ull_nonmonotonic_runtime_next, GOMP_loop_ull_nonmonotonic_runtime_next@@GOMP_5.0",
    ".symver GOMP_loop_ull_maybe_nonmonotonic_runtime_start, GOMP_loop_ull_maybe_nonmonotonic_runtime_start@@GOMP_5.0",
    ".symver GOMP_loop_ull_maybe_nonmonotonic_runtime_next, GOMP_loop_ull_maybe_nonmonotonic_runtime_next@@GOMP_5.0",
    ".symver GOMP_loop_ull_ordered_static_start, GOMP_loop_ull_ordered_static_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_static_next, GOMP_loop_ull_ordered_static_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_dynamic_start, GOMP_loop_ull_ordered_dynamic_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_dynamic_next, GOMP_loop_ull_ordered_dynamic_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_guided_start, GOMP_loop_ull_ordered_guided_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_guided_next, GOMP_loop_ull_ordered_guided_next@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_runtime_start, GOMP_loop_ull_ordered_runtime_start@@GOMP_2.0",
    ".symver GOMP_loop_ull_ordered_runtime_next, GOMP_loop_ull_ordered_runtime_next@@GOMP_2.0",
    ".symver GOMP_loop_ordered_static_start, GOMP_loop_ordered_static_start@@GOMP_1.0",
    ".symver GOMP_loop_ordered_static_next, GOMP_loop_ordered_static_next@@GOMP_1.0",
    ".symver GOMP_loop_ordered_dynamic_start, GOMP_loop_ordered_dynamic_start@@GOMP_1.0",
    ".symver GOMP_loop_ordered_dynamic_next, GOMP_loop_ordered_dynamic_next@@GOMP_1.0",
    ".symver GOMP_loop_ordered_guided_start, GOMP_loop_ordered_guided_start@@GOMP_1.0",
    ".symver GOMP_loop_ordered_guided_next, GOMP_loop_ordered_guided_next@@GOMP_1.0",
    ".symver GOMP_loop_ordered_runtime_start, GOMP_loop_ordered_runtime_start@@GOMP_1.0",
    ".symver GOMP_loop_ordered_runtime_next, GOMP_loop_ordered_runtime_next@@GOMP_1.0",
    ".symver GOMP_ordered_start, GOMP_ordered_start@@GOMP_1.0",
    ".symver GOMP_ordered_end, GOMP_ordered_end@@GOMP_1.0",
    ".symver GOMP_loop_end, GOMP_loop_end@@GOMP_1.0",
    ".symver GOMP_loop_end_nowait, GOMP_loop_end_nowait@@GOMP_1.0",
    ".symver GOMP_sections_start, GOMP_sections_start@@GOMP_1.0",
    ".symver GOMP_sections_next, GOMP_sections_next@@GOMP_1.0",
    ".symver GOMP_sections_end, GOMP_sections_end@@GOMP_1.0",
    ".symver GOMP_sections_end_nowait, GOMP_sections_end_nowait@@GOMP_1.0",
    ".symver GOMP_parallel_sections, GOMP_parallel_sections@@GOMP_4.0",
    ".symver GOMP_single_copy_start, GOMP_single_copy_start@@GOMP_1.0",
    ".symver GOMP_single_copy_end, GOMP_single_copy_end@@GOMP_1.0",
    ".symver omp_get_thread_num, omp_get_thread_num@@OMP_1.0",
    ".symver omp_get_num_threads, omp_get_num_threads@@OMP_1.0",
    ".symver omp_get_max_threads, omp_get_max_threads@@OMP_1.0",
    ".symver omp_set_num_threads, omp_set_num_threads@@OMP_1.0",
    ".symver omp_in_parallel, omp_in_parallel@@OMP_1.0",
    ".symver omp_in_final, omp_in_final@@OMP_3.1",
    ".symver omp_get_wtime, omp_get_wtime@@OMP_2.0",
    ".symver omp_get_wtick, omp_get_wtick@@OMP_2.0",
    ".symver omp_get_num_procs, omp_get_num_procs@@OMP_1.0",
    ".symver omp_get_dynamic, omp_get_dynamic@@OMP_1.0",
    ".symver omp_set_dynamic, omp_set_dynamic@@OMP_1.0",
    ".symver omp_get_nested, omp_get_nested@@OMP_1.0",
    ".symver omp_set_nested, omp_set_nested@@OMP_1.0",
    ".symver omp_get_level, omp_get_level@@OMP_3.0",
    ".symver omp_get_active_level, omp_get_active_level@@OMP_3.0",
    ".symver omp_get_ancestor_thread_num, omp_get_ancestor_thread_num@@OMP_3.0",
    ".symver omp_get_team_size, omp_get_team_size@@OMP_3.0",
    ".symver omp_get_thread_limit, omp_get_thread_limit@@OMP_3.0",
    ".symver omp_get_max_active_levels, omp_get_max_active_levels@@OMP_3.0",
    ".symver omp_set_max_active_levels, omp_set_max_active_levels@@OMP_3.0",
    ".symver omp_get_supported_active_levels, omp_get_supported_active_levels@@OMP_5.0.1",
    ".symver omp_get_schedule, omp_get_schedule@@OMP_3.0",
    ".symver omp_set_schedule, omp_set_schedule@@OMP_3.0",
    ".symver omp_get_cancellation, omp_get_cancellation@@OMP_4.0",
    ".symver omp_get_proc_bind, omp_get_proc_bind@@OMP_4.0",
    ".symver omp_get_num_places, omp_get_num_places@@OMP_4.5",
    ".symver omp_get_place_num, omp_get_place_num@@OMP_4.5",
    ".symver omp_get_partition_num_places, omp_get_partition_num_places@@OMP_4.5",
    ".symver omp_get_max_task_priority, omp_get_max_task_priority@@OMP_4.5",
    ".symver omp_get_num_devices, omp_get_num_devices@@OMP_4.0",
    ".symver omp_get_default_device, omp_get_default_device@@OMP_4.0",
    ".symver omp_set_default_device, omp_set_default_device@@OMP_4.0",
    ".symver omp_is_initial_device, omp_is_initial_device@@OMP_4.0",
    ".symver omp_get_num_teams, omp_get_num_teams@@OMP_4.0",
    ".symver omp_get_team_num, omp_get_team_num@@OMP_4.0",
    ".symver omp_init_lock, omp_init_lock@@OMP_3.0",
    ".symver omp_destroy_lock, omp_destroy_lock@@OMP_3.0",
    ".symver omp_set_lock, omp_set_lock@@OMP_3.0",
    ".symver omp_unset_lock, omp_unset_lock@@OMP_3.0",
    ".symver omp_test_lock, omp_test_lock@@OMP_3.0",
    ".symver omp_init_nest_lock, omp_init_nest_lock@@OMP_3.0",
    ".symver omp_destroy_nest_lock, omp_destroy_nest_lock@@OMP_3.0",
    ".symver omp_set_nest_lock, omp_set_nest_lock@@OMP_3.0",
    ".symver omp_unset_nest_lock, omp_unset_nest_lock@@OMP_3.0",
    ".symver omp_test_nest_lock, omp_test_nest_lock@@OMP_3.0",
    ".symver GOMP_taskwait_depend, GOMP_taskwait_depend@@GOMP_5.0",
    ".symver GOMP_taskyield, GOMP_taskyield@@GOMP_3.0",
    ".symver GOMP_warning, GOMP_warning@@GOMP_5.1",
    ".symver GOMP_error, GOMP_error@@GOMP_5.1",
    ".symver GOMP_teams_reg, GOMP_teams_reg@@GOMP_5.0",
    ".symver omp_set_num_teams, omp_set_num_teams@@OMP_5.1",
    ".symver omp_get_max_teams, omp_get_max_teams@@OMP_5.1",
    ".symver omp_set_teams_thread_limit, omp_set_teams_thread_limit@@OMP_5.1",
    ".symver omp_get_teams_thread_limit, omp_get_teams_thread_limit@@OMP_5.1",
    ".symver omp_get_initial_device, omp_get_initial_device@@OMP_4.5",
    ".symver omp_get_device_num, omp_get_device_num@@OMP_5.0.2",
    ".symver omp_init_allocator, omp_init_allocator@@OMP_5.0.1",
    ".symver omp_destroy_allocator, omp_destroy_allocator@@OMP_5.0.1",
    ".symver omp_set_default_allocator, omp_set_default_allocator@@OMP_5.0.1",
    ".symver omp_get_default_allocator, omp_get_default_allocator@@OMP_5.0.1",
    ".symver omp_alloc, omp_alloc@@OMP_5.0.1",
    ".symver omp_aligned_alloc, omp_aligned_alloc@@OMP_5.0.2",
    ".symver omp_calloc, omp_calloc@@OMP_5.0.2",
    ".symver omp_aligned_calloc, omp_aligned_calloc@@OMP_5.0.2",
    ".symver omp_realloc, omp_realloc@@OMP_5.0.2",
    ".symver omp_free, omp_free@@OMP_5.0.1",
    ".symver GOMP_alloc, GOMP_alloc@@GOMP_5.0.1",
    ".symver GOMP_free, GOMP_free@@GOMP_5.0.1",
    ".symver GOMP_target_ext, GOMP_target_ext@@GOMP_4.5",
    ".symver GOMP_target, GOMP_target@@GOMP_4.0",
    ".symver GOMP_target_data_ext, GOMP_target_data_ext@@GOMP_4.5",
    ".symver GOMP_target_data, GOMP_target_data@@GOMP_4.0",
    ".symver GOMP_target_end_data, GOMP_target_end_data@@GOMP_4.0",
    ".symver GOMP_target_update_ext, GOMP_target_update_ext@@GOMP_4.5",
    ".symver GOMP_target_update, GOMP_target_update@@GOMP_4.0",
    ".symver GOMP_target_enter_exit_data, GOMP_target_enter_exit_data@@GOMP_4.5",
    ".symver GOMP_teams4, GOMP_teams4@@GOMP_5.1",
    ".symver GOMP_teams, GOMP_teams@@GOMP_4.0",
    ".symver GOMP_offload_register_ver, GOMP_offload_register_ver@@GOMP_4.5",
    ".symver GOMP_offload_unregister_ver, GOMP_offload_unregister_ver@@GOMP_4.5",
    ".symver GOMP_offload_register, GOMP_offload_register@@GOMP_4.0.1",
    ".symver GOMP_offload_unregister, GOMP_offload_unregister@@GOMP_4.0.1",
    ".symver omp_target_alloc, omp_target_alloc@@OMP_4.5",
    ".symver omp_target_free, omp_target_free@@OMP_4.5",
    ".symver omp_target_is_present, omp_target_is_present@@OMP_4.5",
    ".symver omp_target_memcpy, omp_target_memcpy@@OMP_4.5",
    ".symver omp_target_memcpy_rect, omp_target_memcpy_rect@@OMP_4.5",
    ".symver omp_target_associate_ptr, omp_target_associate_ptr@@OMP_4.5",
    ".symver omp_target_disassociate_ptr, omp_target_disassociate_ptr@@OMP_4.5",
    ".symver GOMP_loop_doacross_static_start, GOMP_loop_doacross_static_start@@GOMP_4.5",
    ".symver GOMP_loop_doacross_dynamic_start, GOMP_loop_doacross_dynamic_start@@GOMP_4.5",
    ".symver GOMP_loop_doacross_guided_start, GOMP_loop_doacross_guided_start@@GOMP_4.5",
    ".symver GOMP_loop_doacross_runtime_start, GOMP_loop_doacross_runtime_start@@GOMP_4.5",
    ".symver GOMP_loop_ull_doacross_static_start, GOMP_loop_ull_doacross_static_start@@GOMP_4.5",
    ".symver GOMP_loop_ull_doacross_dynamic_start, GOMP_loop_ull_doacross_dynamic_start@@GOMP_4.5",
    ".symver GOMP_loop_ull_doacross_guided_start, GOMP_loop_ull_doacross_guided_start@@GOMP_4.5",
    ".symver GOMP_loop_ull_doacross_runtime_start, GOMP_loop_ull_doacross_runtime_start@@GOMP_4.5",
    ".symver GOMP_loop_doacross_start, GOMP_loop_doacross_start@@GOMP_5.0",
    ".symver GOMP_loop_ull_doacross_start, GOMP_loop_ull_doacross_start@@GOMP_5.0",
    ".symver GOMP_doacross_post, GOMP_doacross_post@@GOMP_4.5",
    ".symver GOMP_doacross_ull_post, GOMP_doacross_ull_post@@GOMP_4.5",
    ".symver omp_fulfill_event, omp_fulfill_event@@OMP_5.0.1",
    ".symver omp_get_place_num_procs, omp_get_place_num_procs@@OMP_4.5",
    ".symver omp_get_place_proc_ids, omp_get_place_proc_ids@@OMP_4.5",
    ".symver omp_get_partition_place_nums, omp_get_partition_place_nums@@OMP_4.5",
    ".symver omp_display_env, omp_display_env@@OMP_5.1",
    ".symver omp_set_affinity_format, omp_set_affinity_format@@OMP_5.0",
    ".symver omp_get_affinity_format, omp_get_affinity_format@@OMP_5.0",
    ".symver omp_capture_affinity, omp_capture_affinity@@OMP_5.0",
    ".symver omp_display_affinity, omp_display_affinity@@OMP_5.0",
    ".symver GOMP_loop_start, GOMP_loop_start@@GOMP_5.0",
    ".symver GOMP_loop_ordered_start, GOMP_loop_ordered_start@@GOMP_5.0",
    ".symver GOMP_loop_ull_start, GOMP_loop_ull_start@@GOMP_5.0",
    ".symver GOMP_loop_ull_ordered_start, GOMP_loop_ull_ordered_start@@GOMP_5.0",
    ".symver GOMP_sections2_start, GOMP_sections2_start@@GOMP_5.0",
    ".symver GOMP_scope_start, GOMP_scope_start@@GOMP_5.1",
    ".symver GOMP_workshare_task_reduction_unregister, GOMP_workshare_task_reduction_unregister@@GOMP_5.0",
    ".symver GOMP_parallel_reductions, GOMP_parallel_reductions@@GOMP_5.0",
    ".symver omp_pause_resource, omp_pause_resource@@OMP_5.0",
    ".symver omp_pause_resource_all, omp_pause_resource_all@@OMP_5.0",
    ".symver locus_footprint_read, locus_footprint_read@@LOCUS_1.0",
    ".symver locus_footprint_write, locus_footprint_write@@LOCUS_1.0",
);

/// The exported symbols and their versions, for the tests.
#[cfg(test)]
pub(crate) const SYMBOLS: &[(&str, &str)] = &[
    ("GOMP_parallel", "GOMP_4.0"),
    ("GOMP_parallel_start", "GOMP_1.0"),
    ("GOMP_parallel_end", "GOMP_1.0"),
    ("GOMP_parallel_loop_static_start", "GOMP_1.0"),
    ("GOMP_parallel_loop_dynamic_start", "GOMP_1.0"),
    ("GOMP_parallel_loop_guided_start", "GOMP_1.0"),
    ("GOMP_parallel_loop_runtime_start", "GOMP_1.0"),
    ("GOMP_parallel_sections_start", "GOMP_1.0"),
    ("GOMP_task", "GOMP_2.0"),
    ("GOMP_taskgroup_reduction_register", "GOMP_5.0"),
    ("GOMP_taskgroup_reduction_unregister", "GOMP_5.0"),
    ("GOMP_task_reduction_remap", "GOMP_5.0"),
    ("GOMP_taskwait", "GOMP_2.0"),
    ("GOMP_taskloop", "GOMP_4.5"),
    ("GOMP_taskloop_ull", "GOMP_4.5"),
    ("GOMP_taskgroup_start", "GOMP_4.0"),
    ("GOMP_taskgroup_end", "GOMP_4.0"),
    ("GOMP_single_start", "GOMP_1.0"),
    ("GOMP_barrier", "GOMP_1.0"),
    ("GOMP_cancel", "GOMP_4.0"),
    ("GOMP_cancellation_point", "GOMP_4.0"),
    ("GOMP_barrier_cancel", "GOMP_4.0"),
    ("GOMP_loop_end_cancel", "GOMP_4.0"),
    ("GOMP_sections_end_cancel", "GOMP_4.0"),
    ("GOMP_critical_start", "GOMP_1.0"),
    ("GOMP_critical_end", "GOMP_1.0"),
    ("GOMP_critical_name_start", "GOMP_1.0"),
    ("GOMP_critical_name_end", "GOMP_1.0"),
    ("GOMP_atomic_start", "GOMP_1.0"),
    ("GOMP_atomic_end", "GOMP_1.0"),
    ("GOMP_loop_static_start", "GOMP_1.0"),
    ("GOMP_loop_static_next", "GOMP_1.0"),
    ("GOMP_parallel_loop_static", "GOMP_4.0"),
    ("GOMP_loop_dynamic_start", "GOMP_1.0"),
    ("GOMP_loop_dynamic_next", "GOMP_1.0"),
    ("GOMP_parallel_loop_dynamic", "GOMP_4.0"),
    ("GOMP_loop_guided_start", "GOMP_1.0"),
    ("GOMP_loop_guided_next", "GOMP_1.0"),
    ("GOMP_parallel_loop_guided", "GOMP_4.0"),
    ("GOMP_loop_nonmonotonic_dynamic_start", "GOMP_4.5"),
    ("GOMP_loop_nonmonotonic_dynamic_next", "GOMP_4.5"),
    ("GOMP_parallel_loop_nonmonotonic_dynamic", "GOMP_4.5"),
    ("GOMP_loop_nonmonotonic_guided_start", "GOMP_4.5"),
    ("GOMP_loop_nonmonotonic_guided_next", "GOMP_4.5"),
    ("GOMP_parallel_loop_nonmonotonic_guided", "GOMP_4.5"),
    ("GOMP_loop_runtime_start", "GOMP_1.0"),
    ("GOMP_loop_runtime_next", "GOMP_1.0"),
    ("GOMP_parallel_loop_runtime", "GOMP_4.0"),
    ("GOMP_loop_nonmonotonic_runtime_start", "GOMP_5.0"),
    ("GOMP_loop_nonmonotonic_runtime_next", "GOMP_5.0"),
    ("GOMP_parallel_loop_nonmonotonic_runtime", "GOMP_5.0"),
    ("GOMP_loop_maybe_nonmonotonic_runtime_start", "GOMP_5.0"),
    ("GOMP_loop_maybe_nonmonotonic_runtime_next", "GOMP_5.0"),
    ("GOMP_parallel_loop_maybe_nonmonotonic_runtime", "GOMP_5.0"),
    ("GOMP_loop_ull_static_start", "GOMP_2.0"),
    ("GOMP_loop_ull_static_next", "GOMP_2.0"),
    ("GOMP_loop_ull_dynamic_start", "GOMP_2.0"),
    ("GOMP_loop_ull_dynamic_next", "GOMP_2.0"),
    ("GOMP_loop_ull_guided_start", "GOMP_2.0"),
    ("GOMP_loop_ull_guided_next", "GOMP_2.0"),
    ("GOMP_loop_ull_runtime_start", "GOMP_2.0"),
    ("GOMP_loop_ull_runtime_next", "GOMP_2.0"),
    ("GOMP_loop_ull_nonmonotonic_dynamic_start", "GOMP_4.5"),
    ("GOMP_loop_ull_nonmonotonic_dynamic_next", "GOMP_4.5"),
    ("GOMP_loop_ull_nonmonotonic_guided_start", "GOMP_4.5"),
    ("GOMP_loop_ull_nonmonotonic_guided_next", "GOMP_4.5"),
    ("GOMP_loop_ull_nonmonotonic_runtime_start", "GOMP_5.0"),
    ("GOMP_loop_ull_nonmonotonic_runtime_next", "GOMP_5.0"),
    ("GOMP_loop_ull_maybe_nonmonotonic_runtime_start", "GOMP_5.0"),
    ("GOMP_loop_ull_maybe_nonmonotonic_runtime_next", "GOMP_5.0"),
    ("GOMP_loop_ull_ordered_static_start", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_static_next", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_dynamic_start", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_dynamic_next", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_guided_start", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_guided_next", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_runtime_start", "GOMP_2.0"),
    ("GOMP_loop_ull_ordered_runtime_next", "GOMP_2.0"),
    ("GOMP_loop_ordered_static_start", "GOMP_1.0"),
    ("GOMP_loop_ordered_static_next", "GOMP_1.0"),
    ("GOMP_loop_ordered_dynamic_start", "GOMP_1.0"),
    ("GOMP_loop_ordered_dynamic_next", "GOMP_1.0"),
    ("GOMP_loop_ordered_guided_start", "GOMP_1.0"),
    ("GOMP_loop_ordered_guided_next", "GOMP_1.0"),
    ("GOMP_loop_ordered_runtime_start", "GOMP_1.0"),
    ("GOMP_loop_ordered_runtime_next", "GOMP_1.0"),
    ("GOMP_ordered_start", "GOMP_1.0"),
    ("GOMP_ordered_end", "GOMP_1.0"),
    ("GOMP_loop_end", "GOMP_1.0"),
    ("GOMP_loop_end_nowait", "GOMP_1.0"),
    ("GOMP_sections_start", "GOMP_1.0"),
    ("GOMP_sections_next", "GOMP_1.0"),
    ("GOMP_sections_end", "GOMP_1.0"),
    ("GOMP_sections_end_nowait", "GOMP_1.0"),
    ("GOMP_parallel_sections", "GOMP_4.0"),
    ("GOMP_single_copy_start", "GOMP_1.0"),
    ("GOMP_single_copy_end", "GOMP_1.0"),
    ("omp_get_thread_num", "OMP_1.0"),
    ("omp_get_num_threads", "OMP_1.0"),
    ("omp_get_max_threads", "OMP_1.0"),
    ("omp_set_num_threads", "OMP_1.0"),
    ("omp_in_parallel", "OMP_1.0"),
    ("omp_in_final", "OMP_3.1"),
    ("omp_get_wtime", "OMP_2.0"),
    ("omp_get_wtick", "OMP_2.0"),
    ("omp_get_num_procs", "OMP_1.0"),
    ("omp_get_dynamic", "OMP_1.0"),
    ("omp_set_dynamic", "OMP_1.0"),
    ("omp_get_nested", "OMP_1.0"),
    ("omp_set_nested", "OMP_1.0"),
    ("omp_get_level", "OMP_3.0"),
    ("omp_get_active_level", "OMP_3.0"),
    ("omp_get_ancestor_thread_num", "OMP_3.0"),
    ("omp_get_team_size", "OMP_3.0"),
    ("omp_get_thread_limit", "OMP_3.0"),
    ("omp_get_max_active_levels", "OMP_3.0"),
    ("omp_set_max_active_levels", "OMP_3.0"),
    ("omp_get_supported_active_levels", "OMP_5.0.1"),
    ("omp_get_schedule", "OMP_3.0"),
    ("omp_set_schedule", "OMP_3.0"),
    ("omp_get_cancellation", "OMP_4.0"),
    ("omp_get_proc_bind", "OMP_4.0"),
    ("omp_get_num_places", "OMP_4.5"),
    ("omp_get_place_num", "OMP_4.5"),
    ("omp_get_partition_num_places", "OMP_4.5"),
    ("omp_get_max_task_priority", "OMP_4.5"),
    ("omp_get_num_devices", "OMP_4.0"),
    ("omp_get_default_device", "OMP_4.0"),
    ("omp_set_default_device", "OMP_4.0"),
    ("omp_is_initial_device", "OMP_4.0"),
    ("omp_get_num_teams", "OMP_4.0"),
    ("omp_get_team_num", "OMP_4.0"),
    ("omp_init_lock", "OMP_3.0"),
    ("omp_destroy_lock", "OMP_3.0"),
    ("omp_set_lock", "OMP_3.0"),
    ("omp_unset_lock", "OMP_3.0"),
    ("omp_test_lock", "OMP_3.0"),
    ("omp_init_nest_lock", "OMP_3.0"),
    ("omp_destroy_nest_lock", "OMP_3.0"),
    ("omp_set_nest_lock", "OMP_3.0"),
    ("omp_unset_nest_lock", "OMP_3.0"),
    ("omp_test_nest_lock", "OMP_3.0"),
    ("GOMP_taskwait_depend", "GOMP_5.0"),
    ("GOMP_taskyield", "GOMP_3.0"),
    ("GOMP_warning", "GOMP_5.1"),
    ("GOMP_error", "GOMP_5.1"),
    ("GOMP_teams_reg", "GOMP_5.0"),
    ("omp_set_num_teams", "OMP_5.1"),
    ("omp_get_max_teams", "OMP_5.1"),
    ("omp_set_teams_thread_limit", "OMP_5.1"),
    ("omp_get_teams_thread_limit", "OMP_5.1"),
    ("omp_get_initial_device", "OMP_4.5"),
    ("omp_get_device_num", "OMP_5.0.2"),
    ("omp_init_allocator", "OMP_5.0.1"),
    ("omp_destroy_allocator", "OMP_5.0.1"),
    ("omp_set_default_allocator", "OMP_5.0.1"),
    ("omp_get_default_allocator", "OMP_5.0.1"),
    ("omp_alloc", "OMP_5.0.1"),
    ("omp_aligned_alloc", "OMP_5.0.2"),
    ("omp_calloc", "OMP_5.0.2"),
    ("omp_aligned_calloc", "OMP_5.0.2"),
    ("omp_realloc", "OMP_5.0.2"),
    ("omp_free", "OMP_5.0.1"),
    ("GOMP_alloc", "GOMP_5.0.1"),
    ("GOMP_free", "GOMP_5.0.1"),
    ("GOMP_target_ext", "GOMP_4.5"),
    ("GOMP_target", "GOMP_4.0"),
    ("GOMP_target_data_ext", "GOMP_4.5"),
    ("GOMP_target_data", "GOMP_4.0"),
    ("GOMP_target_end_data", "GOMP_4.0"),
    ("GOMP_target_update_ext", "GOMP_4.5"),
    ("GOMP_target_update", "GOMP_4.0"),
    ("GOMP_target_enter_exit_data", "GOMP_4.5"),
    ("GOMP_teams4", "GOMP_5.1"),
    ("GOMP_teams", "GOMP_4.0"),
    ("GOMP_offload_register_ver", "GOMP_4.5"),
    ("GOMP_offload_unregister_ver", "GOMP_4.5"),
    ("GOMP_offload_register", "GOMP_4.0.1"),
    ("GOMP_offload_unregister", "GOMP_4.0.1"),
    ("omp_target_alloc", "OMP_4.5"),
    ("omp_target_free", "OMP_4.5"),
    ("omp_target_is_present", "OMP_4.5"),
    ("omp_target_memcpy", "OMP_4.5"),
    ("omp_target_memcpy_rect", "OMP_4.5"),
    ("omp_target_associate_ptr", "OMP_4.5"),
    ("omp_target_disassociate_ptr", "OMP_4.5"),
    ("GOMP_loop_doacross_static_start", "GOMP_4.5"),
    ("GOMP_loop_doacross_dynamic_start", "GOMP_4.5"),
    ("GOMP_loop_doacross_guided_start", "GOMP_4.5"),
    ("GOMP_loop_doacross_runtime_start", "GOMP_4.5"),
    ("GOMP_loop_ull_doacross_static_start", "GOMP_4.5"),
    ("GOMP_loop_ull_doacross_dynamic_start", "GOMP_4.5"),
    ("GOMP_loop_ull_doacross_guided_start", "GOMP_4.5"),
    ("GOMP_loop_ull_doacross_runtime_start", "GOMP_4.5"),
    ("GOMP_loop_doacross_start", "GOMP_5.0"),
    ("GOMP_loop_ull_doacross_start", "GOMP_5.0"),
    ("GOMP_doacross_post", "GOMP_4.5"),
    ("GOMP_doacross_ull_post", "GOMP_4.5"),
    ("GOMP_doacross_wait", "GOMP_4.5"),
    ("GOMP_doacross_ull_wait", "GOMP_4.5"),
    ("omp_fulfill_event", "OMP_5.0.1"),
    ("omp_get_place_num_procs", "OMP_4.5"),
    ("omp_get_place_proc_ids", "OMP_4.5"),
    ("omp_get_partition_place_nums", "OMP_4.5"),
    ("omp_display_env", "OMP_5.1"),
    ("omp_set_affinity_format", "OMP_5.0"),
    ("omp_get_affinity_format", "OMP_5.0"),
    ("omp_capture_affinity", "OMP_5.0"),
    ("omp_display_affinity", "OMP_5.0"),
    ("GOMP_loop_start", "GOMP_5.0"),
    ("GOMP_loop_ordered_start", "GOMP_5.0"),
    ("GOMP_loop_ull_start", "GOMP_5.0"),
    ("GOMP_loop_ull_ordered_start", "GOMP_5.0"),
    ("GOMP_sections2_start", "GOMP_5.0"),
    ("GOMP_scope_start", "GOMP_5.1"),
    ("GOMP_workshare_task_reduction_unregister", "GOMP_5.0"),
    ("GOMP_parallel_reductions", "GOMP_5.0"),
    ("omp_pause_resource", "OMP_5.0"),
    ("omp_pause_resource_all", "OMP_5.0"),
    ("locus_footprint_read", "LOCUS_1.0"),
    ("locus_footprint_write", "LOCUS_1.0"),
];

#[cfg(test)]
mod tests {
    use super::{FORTRAN_SYMBOLS, SYMBOLS};
    use std::collections::HashSet;

    #[test]
    fn every_symbol_is_exported_once_into_a_node_of_the_version_script() {
        let script = include_str!("../libgomp.map");
        let mut seen = HashSet::new();
        for (name, version) in SYMBOLS.iter().chain(FORTRAN_SYMBOLS) {
            assert!(seen.insert(name), "{name} exported twice");
            assert!(
                script
                    .lines()
                    .any(|l| l.starts_with(&format!("{version} {{"))),
                "{name}@@{version}: no such node in libgomp.map"
            );
        }
    }
}
