//! The Fortran forms of the `omp_*` routines (`omp_lib`), as gfortran calls them: the
//! name with a trailing underscore, arguments by reference, `LOGICAL` as a 32-bit
//! integer; the `_8_` forms take 64-bit integers (`-fdefault-integer-8`), clamped to
//! the C `int` range as libgomp clamps them. Each calls its C routine.
//!
//! Locks: `omp_lock_kind` is 4 bytes, as locus's `omp_lock_t`, so a Fortran lock is
//! the lock word itself; `omp_nest_lock_kind` is 8 bytes, too small for locus's
//! 16-byte `omp_nest_lock_t`, so it holds the address of one allocated by
//! `omp_init_nest_lock` and freed by `omp_destroy_nest_lock`, as libgomp does.

use super::alloc_locks::*;
use super::routines::*;
use super::target::*;
use super::tasks::omp_fulfill_event;
use crate::affinity;
use std::ffi::{c_int, c_uint, c_void};

/// A `_8_` form's 64-bit argument as the C routine's `int`.
fn clamp_to_int(v: i64) -> c_int {
    v.clamp(c_int::MIN.into(), c_int::MAX.into()) as c_int
}

/// Reads a Fortran argument.
///
/// # Safety
/// `p` points to a live, aligned `T` (gfortran passes arguments by reference).
unsafe fn fortran_arg<T: Copy>(p: *const T) -> T {
    // SAFETY: the caller's contract.
    unsafe { *p }
}

/// `NAME_() -> T`: a routine without arguments, as `c`.
macro_rules! fortran_query {
    ($(#[$a:meta])* $name:ident @ $ver:literal, $c:ident -> $ty:ty) => {
        $(#[$a])*
        #[doc = concat!("As `", stringify!($c), "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name() -> $ty {
            symver!($name, $ver);
            // SAFETY: the C routine takes nothing.
            unsafe { $c() }
        }
    };
}

/// `NAME_(&int)` (`int`) and `NAME_8_(&int64)` (`int8`, clamped to an `int`): a routine
/// of one `int`, as `c`.
macro_rules! fortran_int_arg {
    ($(#[$a:meta])* $name:ident @ $ver:literal, int, $c:ident -> $ret:ty) => {
        $(#[$a])*
        #[doc = concat!("As `", stringify!($c), "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name(v: *const i32) -> $ret {
            symver!($name, $ver);
            // SAFETY: gfortran's reference to the argument.
            unsafe { $c(fortran_arg(v)) }
        }
    };
    ($(#[$a:meta])* $name:ident @ $ver:literal, int8, $c:ident -> $ret:ty) => {
        $(#[$a])*
        #[doc = concat!("As `", stringify!($c), "`, clamped.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name(v: *const i64) -> $ret {
            symver!($name, $ver);
            // SAFETY: gfortran's reference to the argument.
            unsafe { $c(clamp_to_int(fortran_arg(v))) }
        }
    };
}

/// The nest lock a Fortran `integer(omp_nest_lock_kind)` holds the address of.
///
/// # Safety
/// `lock` is gfortran's reference to a nest lock `omp_init_nest_lock_` set up.
unsafe fn nest_lock(lock: *mut i64) -> *mut c_void {
    // SAFETY: the caller's contract.
    unsafe { *lock as usize as *mut c_void }
}

/// A Fortran string argument: `len` bytes, trailing blanks dropped.
///
/// # Safety
/// `p` holds `len` readable bytes.
unsafe fn fortran_str(p: *const std::ffi::c_char, len: usize) -> String {
    if p.is_null() || len == 0 {
        return String::new();
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    String::from_utf8_lossy(bytes)
        .trim_end_matches(' ')
        .to_string()
}

/// Copies `text` into a Fortran string of `len` bytes, blank-padded or cut short; its
/// whole length.
///
/// # Safety
/// `p` holds `len` writable bytes.
unsafe fn to_fortran_str(text: &str, p: *mut std::ffi::c_char, len: usize) -> c_int {
    if !p.is_null() && len > 0 {
        // SAFETY: the caller's contract.
        let out = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) };
        let n = text.len().min(len);
        out[..n].copy_from_slice(&text.as_bytes()[..n]);
        out[n..].fill(b' ');
    }
    c_int::try_from(text.len()).unwrap_or(c_int::MAX)
}

exports! {
    "OMP_1.0" fn omp_get_thread_num_ = fortran_query!(omp_get_thread_num -> c_int);
    "OMP_1.0" fn omp_get_num_threads_ = fortran_query!(omp_get_num_threads -> c_int);
    "OMP_1.0" fn omp_get_max_threads_ = fortran_query!(omp_get_max_threads -> c_int);
    "OMP_1.0" fn omp_in_parallel_ = fortran_query!(omp_in_parallel -> c_int);
    "OMP_3.1" fn omp_in_final_ = fortran_query!(omp_in_final -> c_int);
    "OMP_1.0" fn omp_get_num_procs_ = fortran_query!(omp_get_num_procs -> c_int);
    "OMP_1.0" fn omp_get_dynamic_ = fortran_query!(omp_get_dynamic -> c_int);
    "OMP_1.0" fn omp_get_nested_ = fortran_query!(omp_get_nested -> c_int);
    "OMP_3.0" fn omp_get_level_ = fortran_query!(omp_get_level -> c_int);
    "OMP_3.0" fn omp_get_active_level_ = fortran_query!(omp_get_active_level -> c_int);
    "OMP_3.0" fn omp_get_thread_limit_ = fortran_query!(omp_get_thread_limit -> c_int);
    "OMP_3.0" fn omp_get_max_active_levels_ = fortran_query!(omp_get_max_active_levels -> c_int);
    "OMP_5.0.1" fn omp_get_supported_active_levels_ = fortran_query!(omp_get_supported_active_levels -> c_int);
    "OMP_4.0" fn omp_get_cancellation_ = fortran_query!(omp_get_cancellation -> c_int);
    "OMP_4.0" fn omp_get_proc_bind_ = fortran_query!(omp_get_proc_bind -> c_int);
    "OMP_4.5" fn omp_get_num_places_ = fortran_query!(omp_get_num_places -> c_int);
    "OMP_4.5" fn omp_get_place_num_ = fortran_query!(omp_get_place_num -> c_int);
    "OMP_4.5" fn omp_get_partition_num_places_ = fortran_query!(omp_get_partition_num_places -> c_int);
    "OMP_4.5" fn omp_get_max_task_priority_ = fortran_query!(omp_get_max_task_priority -> c_int);
    "OMP_4.0" fn omp_get_num_devices_ = fortran_query!(omp_get_num_devices -> c_int);
    "OMP_4.0" fn omp_get_default_device_ = fortran_query!(omp_get_default_device -> c_int);
    "OMP_4.0" fn omp_is_initial_device_ = fortran_query!(omp_is_initial_device -> c_int);
    "OMP_4.0" fn omp_get_num_teams_ = fortran_query!(omp_get_num_teams -> c_int);
    "OMP_4.0" fn omp_get_team_num_ = fortran_query!(omp_get_team_num -> c_int);
    "OMP_5.1" fn omp_get_max_teams_ = fortran_query!(omp_get_max_teams -> c_int);
    "OMP_5.1" fn omp_get_teams_thread_limit_ = fortran_query!(omp_get_teams_thread_limit -> c_int);
    "OMP_4.5" fn omp_get_initial_device_ = fortran_query!(omp_get_initial_device -> c_int);
    "OMP_5.0.2" fn omp_get_device_num_ = fortran_query!(omp_get_device_num -> c_int);
    "OMP_2.0" fn omp_get_wtime_ = fortran_query!(omp_get_wtime -> f64);
    "OMP_2.0" fn omp_get_wtick_ = fortran_query!(omp_get_wtick -> f64);

    "OMP_1.0" fn omp_set_num_threads_ = fortran_int_arg!(int, omp_set_num_threads -> ());
    "OMP_1.0" fn omp_set_num_threads_8_ = fortran_int_arg!(int8, omp_set_num_threads -> ());
    "OMP_1.0" fn omp_set_dynamic_ = fortran_int_arg!(int, omp_set_dynamic -> ());
    "OMP_1.0" fn omp_set_dynamic_8_ = fortran_int_arg!(int8, omp_set_dynamic -> ());
    "OMP_1.0" fn omp_set_nested_ = fortran_int_arg!(int, omp_set_nested -> ());
    "OMP_1.0" fn omp_set_nested_8_ = fortran_int_arg!(int8, omp_set_nested -> ());
    "OMP_3.0" fn omp_set_max_active_levels_ = fortran_int_arg!(int, omp_set_max_active_levels -> ());
    "OMP_3.0" fn omp_set_max_active_levels_8_ = fortran_int_arg!(int8, omp_set_max_active_levels -> ());
    "OMP_4.0" fn omp_set_default_device_ = fortran_int_arg!(int, omp_set_default_device -> ());
    "OMP_4.0" fn omp_set_default_device_8_ = fortran_int_arg!(int8, omp_set_default_device -> ());
    "OMP_5.1" fn omp_set_num_teams_ = fortran_int_arg!(int, omp_set_num_teams -> ());
    "OMP_5.1" fn omp_set_num_teams_8_ = fortran_int_arg!(int8, omp_set_num_teams -> ());
    "OMP_5.1" fn omp_set_teams_thread_limit_ = fortran_int_arg!(int, omp_set_teams_thread_limit -> ());
    "OMP_5.1" fn omp_set_teams_thread_limit_8_ = fortran_int_arg!(int8, omp_set_teams_thread_limit -> ());
    "OMP_3.0" fn omp_get_ancestor_thread_num_ = fortran_int_arg!(int, omp_get_ancestor_thread_num -> c_int);
    "OMP_3.0" fn omp_get_ancestor_thread_num_8_ = fortran_int_arg!(int8, omp_get_ancestor_thread_num -> c_int);
    "OMP_3.0" fn omp_get_team_size_ = fortran_int_arg!(int, omp_get_team_size -> c_int);
    "OMP_3.0" fn omp_get_team_size_8_ = fortran_int_arg!(int8, omp_get_team_size -> c_int);

    "OMP_3.0" fn omp_get_schedule_(kind: *mut i32, chunk: *mut i32) {
        // SAFETY: gfortran's references to two integers.
        unsafe { omp_get_schedule(kind.cast::<c_uint>(), chunk) }
    }

    "OMP_3.0" fn omp_get_schedule_8_(kind: *mut i32, chunk: *mut i64) {
        let mut c: c_int = 0;
        // SAFETY: gfortran's references to two integers; `c` is ours.
        unsafe {
            omp_get_schedule(kind.cast::<c_uint>(), &mut c);
            *chunk = c.into();
        }
    }

    "OMP_3.0" fn omp_set_schedule_(kind: *const i32, chunk: *const i32) {
        // SAFETY: gfortran's references to two integers.
        unsafe { omp_set_schedule(fortran_arg(kind) as c_uint, fortran_arg(chunk)) }
    }

    "OMP_3.0" fn omp_set_schedule_8_(kind: *const i32, chunk: *const i64) {
        // SAFETY: gfortran's references to two integers.
        unsafe {
            omp_set_schedule(
                fortran_arg(kind) as c_uint,
                clamp_to_int(fortran_arg(chunk)),
            )
        }
    }

    /// The Fortran lock is the lock word.
    "OMP_3.0" fn omp_init_lock_(lock: *mut i32) {
        // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
        unsafe { omp_init_lock(lock.cast()) }
    }

    /// The Fortran lock is the lock word.
    "OMP_3.0" fn omp_destroy_lock_(lock: *mut i32) {
        // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
        unsafe { omp_destroy_lock(lock.cast()) }
    }

    /// The Fortran lock is the lock word.
    "OMP_3.0" fn omp_set_lock_(lock: *mut i32) {
        // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
        unsafe { omp_set_lock(lock.cast()) }
    }

    /// The Fortran lock is the lock word.
    "OMP_3.0" fn omp_unset_lock_(lock: *mut i32) {
        // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
        unsafe { omp_unset_lock(lock.cast()) }
    }

    /// The Fortran lock is the lock word.
    "OMP_3.0" fn omp_test_lock_(lock: *mut i32) -> c_int {
        // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
        unsafe { omp_test_lock(lock.cast()) }
    }

    /// Allocates the lock, its address in the variable.
    "OMP_3.0" fn omp_init_nest_lock_(lock: *mut i64) {
        // SAFETY: malloc's block is aligned for any C type and 16 bytes long, an
        // `omp_nest_lock_t`; gfortran's reference to the variable.
        unsafe {
            let l = libc::malloc(16);
            if l.is_null() {
                crate::env::fail("omp_init_nest_lock: out of memory");
            }
            omp_init_nest_lock(l);
            *lock = l as usize as i64;
        }
    }

    /// Frees the lock `omp_init_nest_lock_` allocated.
    "OMP_3.0" fn omp_destroy_nest_lock_(lock: *mut i64) {
        // SAFETY: a lock set up by `omp_init_nest_lock_`, destroyed once.
        unsafe {
            let l = nest_lock(lock);
            omp_destroy_nest_lock(l);
            libc::free(l);
            *lock = 0;
        }
    }

    "OMP_3.0" fn omp_set_nest_lock_(lock: *mut i64) {
        // SAFETY: a lock set up by `omp_init_nest_lock_`.
        unsafe { omp_set_nest_lock(nest_lock(lock)) }
    }

    "OMP_3.0" fn omp_unset_nest_lock_(lock: *mut i64) {
        // SAFETY: a lock set up by `omp_init_nest_lock_`.
        unsafe { omp_unset_nest_lock(nest_lock(lock)) }
    }

    "OMP_3.0" fn omp_test_nest_lock_(lock: *mut i64) -> c_int {
        // SAFETY: a lock set up by `omp_init_nest_lock_`.
        unsafe { omp_test_nest_lock(nest_lock(lock)) }
    }

    /// The event passed by value (`omp_lib` says so).
    "OMP_5.0.1" fn omp_fulfill_event_(event: usize) {
        // SAFETY: the program's event handle.
        unsafe { omp_fulfill_event(event as *mut c_void) }
    }

    /// `omp_alloctrait` has the C struct's layout.
    "OMP_5.0.1" fn omp_init_allocator_(
        memspace: *const usize,
        ntraits: *const i32,
        traits: *const c_void,
    ) -> usize {
        // SAFETY: gfortran's references, and its array of `ntraits` traits.
        unsafe { omp_init_allocator(fortran_arg(memspace), fortran_arg(ntraits), traits) }
    }

    "OMP_5.0.1" fn omp_init_allocator_8_(
        memspace: *const usize,
        ntraits: *const i64,
        traits: *const c_void,
    ) -> usize {
        // SAFETY: as for `omp_init_allocator_`.
        unsafe {
            omp_init_allocator(
                fortran_arg(memspace),
                clamp_to_int(fortran_arg(ntraits)),
                traits,
            )
        }
    }

    "OMP_5.0.1" fn omp_destroy_allocator_(allocator: *const usize) {
        // SAFETY: gfortran's reference to a handle from `omp_init_allocator_`.
        unsafe { omp_destroy_allocator(fortran_arg(allocator)) }
    }

    "OMP_5.0.1" fn omp_set_default_allocator_(allocator: *const usize) {
        // SAFETY: gfortran's reference to a handle.
        unsafe { omp_set_default_allocator(fortran_arg(allocator)) }
    }

    "OMP_5.0.1" fn omp_get_default_allocator_() -> usize {
        // SAFETY: the C routine takes nothing.
        unsafe { omp_get_default_allocator() }
    }

    "OMP_4.5" fn omp_get_place_num_procs_(place: *const i32) -> c_int {
        // SAFETY: gfortran's reference to the argument.
        unsafe { omp_get_place_num_procs(fortran_arg(place)) }
    }

    "OMP_4.5" fn omp_get_place_num_procs_8_(place: *const i64) -> c_int {
        // SAFETY: gfortran's reference to the argument.
        unsafe { omp_get_place_num_procs(clamp_to_int(fortran_arg(place))) }
    }

    /// Writes nothing, as the C routine.
    "OMP_4.5" fn omp_get_place_proc_ids_(_place: *const i32, _ids: *mut i32) {}

    "OMP_4.5" fn omp_get_place_proc_ids_8_(_place: *const i64, _ids: *mut i64) {}

    /// Writes nothing, as the C routine.
    "OMP_4.5" fn omp_get_partition_place_nums_(_places: *mut i32) {}

    "OMP_4.5" fn omp_get_partition_place_nums_8_(_places: *mut i64) {}

    /// `verbose` is a `LOGICAL`.
    "OMP_5.1" fn omp_display_env_(verbose: *const i32) {
        // SAFETY: gfortran's reference to the argument.
        unsafe { omp_display_env(fortran_arg(verbose)) }
    }

    "OMP_5.1" fn omp_display_env_8_(verbose: *const i64) {
        // SAFETY: gfortran's reference to the argument.
        unsafe { omp_display_env(c_int::from(fortran_arg(verbose) != 0)) }
    }

    "OMP_5.0" fn omp_set_affinity_format_(format: *const std::ffi::c_char, len: usize) {
        // SAFETY: gfortran's string and its hidden length.
        crate::env::set_affinity_format(&unsafe { fortran_str(format, len) })
    }

    /// The format's length.
    "OMP_5.0" fn omp_get_affinity_format_(
        buffer: *mut std::ffi::c_char,
        len: usize,
    ) -> c_int {
        // SAFETY: gfortran's string and its hidden length.
        unsafe { to_fortran_str(&crate::env::affinity_format(), buffer, len) }
    }

    "OMP_5.0" fn omp_display_affinity_(format: *const std::ffi::c_char, len: usize) {
        // SAFETY: gfortran's string and its hidden length.
        let format = unsafe { fortran_str(format, len) };
        eprintln!("{}", affinity::capture(Some(&format)))
    }

    /// The line's length.
    "OMP_5.0" fn omp_capture_affinity_(
        buffer: *mut std::ffi::c_char,
        format: *const std::ffi::c_char,
        buffer_len: usize,
        format_len: usize,
    ) -> c_int {
        // SAFETY: gfortran's strings and their hidden lengths, after the arguments.
        unsafe {
            let line = affinity::capture(Some(&fortran_str(format, format_len)));
            to_fortran_str(&line, buffer, buffer_len)
        }
    }

    "OMP_5.0" fn omp_pause_resource_(kind: *const i32, device: *const i32) -> c_int {
        // SAFETY: gfortran's references to the arguments.
        unsafe { omp_pause_resource(fortran_arg(kind), fortran_arg(device)) }
    }

    "OMP_5.0" fn omp_pause_resource_all_(kind: *const i32) -> c_int {
        // SAFETY: gfortran's reference to the argument.
        unsafe { omp_pause_resource_all(fortran_arg(kind)) }
    }
}
