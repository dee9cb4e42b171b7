//! Doacross loops (`ordered(n)` with `depend(sink: ...)` and `depend(source)`): their
//! starts for every schedule and word, and the post and wait entry points (the variadic
//! waits are assembly trampolines, on x86-64 only).

use super::loops::{construct_extras, schedule_of};
use crate::guard::guard;
use crate::loops;
use crate::schedule::{Kind, Schedule};
use crate::{env, member};
use std::ffi::{c_long, c_uint, c_ulonglong, c_void};

/// A doacross loop's start, for each schedule and word: its trip counts, then
/// `loops::start_doacross`, then the member's first chunk.
macro_rules! doacross_loop {
    ($(#[$a:meta])* $name:ident @ $ver:literal, long, $($kind:tt)+) => {
        doacross_loop!(@ $(#[$a])* $name @ $ver, c_long, loops::next, $($kind)+);
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, ull, $($kind:tt)+) => {
        doacross_loop!(@ $(#[$a])* $name @ $ver, c_ulonglong, loops::next_ull, $($kind)+);
    };
    // `schedule(runtime)`: no chunk argument.
    (@ $(#[$a:meta])* $name:ident @ $ver:literal, $word:ty, $next:path, runtime) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            ncounts: c_uint,
            counts: *const $word,
            istart: *mut $word,
            iend: *mut $word,
        ) -> bool {
            symver!($name, $ver);
            let schedule = env::run_schedule();
            // SAFETY: GCC's arguments, passed on.
            unsafe { doacross_start(stringify!($name), schedule, ncounts, counts, istart, iend, $next) }
        }
    };
    (@ $(#[$a:meta])* $name:ident @ $ver:literal, $word:ty, $next:path, $kind:expr) => {
        $(#[$a])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            ncounts: c_uint,
            counts: *const $word,
            chunk: $word,
            istart: *mut $word,
            iend: *mut $word,
        ) -> bool {
            symver!($name, $ver);
            let schedule = Schedule {
                kind: $kind,
                chunk: (chunk as i128).max(0) as u64,
            };
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
    next: fn(&member::Member, &mut W, &mut W) -> bool,
) -> bool {
    guard(what, || {
        let m = member::member();
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

/// Posts this member's iteration vector `counts` of its doacross loop.
///
/// # Safety
/// `counts` holds one word per dimension of the loop.
unsafe fn doacross_post<W: Copy + Into<i128>>(counts: *const W) {
    let m = member::member();
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
        let m = member::member();
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

exports! {
    "GOMP_4.5" fn GOMP_loop_doacross_static_start = doacross_loop!(long, Kind::Static);
    "GOMP_4.5" fn GOMP_loop_doacross_dynamic_start = doacross_loop!(long, Kind::Dynamic);
    "GOMP_4.5" fn GOMP_loop_doacross_guided_start = doacross_loop!(long, Kind::Guided);
    "GOMP_4.5" fn GOMP_loop_doacross_runtime_start = doacross_loop!(long, runtime);

    "GOMP_4.5" fn GOMP_loop_ull_doacross_static_start = doacross_loop!(ull, Kind::Static);
    "GOMP_4.5" fn GOMP_loop_ull_doacross_dynamic_start = doacross_loop!(ull, Kind::Dynamic);
    "GOMP_4.5" fn GOMP_loop_ull_doacross_guided_start = doacross_loop!(ull, Kind::Guided);
    "GOMP_4.5" fn GOMP_loop_ull_doacross_runtime_start = doacross_loop!(ull, runtime);

    "GOMP_5.0" fn GOMP_loop_doacross_start(
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
            let m = member::member();
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

    "GOMP_5.0" fn GOMP_loop_ull_doacross_start(
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
            let m = member::member();
            let schedule = schedule_of(sched, chunk);
            // SAFETY: as for GOMP_loop_doacross_start.
            unsafe {
                loops::start_doacross(m, schedule, &doacross_counts(ncounts, counts));
                construct_extras("GOMP_loop_ull_doacross_start", reductions, mem);
                !istart.is_null() && loops::next_ull(m, &mut *istart, &mut *iend)
            }
        })
    }

    /// `depend(source)`, with the iteration's vector.
    "GOMP_4.5" fn GOMP_doacross_post(counts: *const c_long) {
        // SAFETY: GCC's vector.
        guard("GOMP_doacross_post", || unsafe { doacross_post(counts) })
    }

    "GOMP_4.5" fn GOMP_doacross_ull_post(counts: *const c_ulonglong) {
        // SAFETY: GCC's vector.
        guard("GOMP_doacross_ull_post", || unsafe {
            doacross_post(counts)
        })
    }

    // `depend(sink: ...)`: waits until the iteration is posted (the trampoline above).
    #[cfg(target_arch = "x86_64")]
    "GOMP_4.5" extern GOMP_doacross_wait;

    // As `GOMP_doacross_wait`, for `unsigned long long` loops.
    #[cfg(target_arch = "x86_64")]
    "GOMP_4.5" extern GOMP_doacross_ull_wait;
}
