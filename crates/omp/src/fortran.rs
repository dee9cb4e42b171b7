// The Fortran forms of the `omp_*` routines (`omp_lib`), as gfortran calls them: the
// name with a trailing underscore, arguments by reference, `LOGICAL` as a 32-bit
// integer; the `_8_` forms take 64-bit integers (`-fdefault-integer-8`), clamped to
// the C `int` range as libgomp clamps them. Each calls its C routine above; they
// are included into `abi.rs` (`include!`), so that they share its codegen unit: a call
// from another module would take the C routines out of the unit whose assembly binds
// their versions.
//
// Locks: `omp_lock_kind` is 4 bytes, as locus's `omp_lock_t`, so a Fortran lock is
// the lock word itself; `omp_nest_lock_kind` is 8 bytes, too small for locus's
// 16-byte `omp_nest_lock_t`, so it holds the address of one allocated by
// `omp_init_nest_lock` and freed by `omp_destroy_nest_lock`, as libgomp does.

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

/// `NAME_() -> T`: a routine without arguments.
macro_rules! fortran_query {
    ($($fortran:ident => $c:ident -> $ty:ty;)*) => {$(
        #[doc = concat!("`", stringify!($fortran), "`: `", stringify!($c), "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $fortran() -> $ty {
            // SAFETY: the C routine takes nothing.
            unsafe { $c() }
        }
    )*};
}

/// `NAME_(&int)` and `NAME_8_(&int64)`: a routine of one `int`.
macro_rules! fortran_int_arg {
    ($($fortran:ident, $fortran8:ident => $c:ident -> $ret:ty;)*) => {$(
        #[doc = concat!("`", stringify!($fortran), "`: `", stringify!($c), "`.")]
        #[no_mangle]
        pub unsafe extern "C" fn $fortran(v: *const i32) -> $ret {
            // SAFETY: gfortran's reference to the argument.
            unsafe { $c(fortran_arg(v)) }
        }

        #[doc = concat!("`", stringify!($fortran8), "`: `", stringify!($c), "`, clamped.")]
        #[no_mangle]
        pub unsafe extern "C" fn $fortran8(v: *const i64) -> $ret {
            // SAFETY: gfortran's reference to the argument.
            unsafe { $c(clamp_to_int(fortran_arg(v))) }
        }
    )*};
}

fortran_query! {
    omp_get_thread_num_ => omp_get_thread_num -> c_int;
    omp_get_num_threads_ => omp_get_num_threads -> c_int;
    omp_get_max_threads_ => omp_get_max_threads -> c_int;
    omp_in_parallel_ => omp_in_parallel -> c_int;
    omp_in_final_ => omp_in_final -> c_int;
    omp_get_num_procs_ => omp_get_num_procs -> c_int;
    omp_get_dynamic_ => omp_get_dynamic -> c_int;
    omp_get_nested_ => omp_get_nested -> c_int;
    omp_get_level_ => omp_get_level -> c_int;
    omp_get_active_level_ => omp_get_active_level -> c_int;
    omp_get_thread_limit_ => omp_get_thread_limit -> c_int;
    omp_get_max_active_levels_ => omp_get_max_active_levels -> c_int;
    omp_get_supported_active_levels_ => omp_get_supported_active_levels -> c_int;
    omp_get_cancellation_ => omp_get_cancellation -> c_int;
    omp_get_proc_bind_ => omp_get_proc_bind -> c_int;
    omp_get_num_places_ => omp_get_num_places -> c_int;
    omp_get_place_num_ => omp_get_place_num -> c_int;
    omp_get_partition_num_places_ => omp_get_partition_num_places -> c_int;
    omp_get_max_task_priority_ => omp_get_max_task_priority -> c_int;
    omp_get_num_devices_ => omp_get_num_devices -> c_int;
    omp_get_default_device_ => omp_get_default_device -> c_int;
    omp_is_initial_device_ => omp_is_initial_device -> c_int;
    omp_get_num_teams_ => omp_get_num_teams -> c_int;
    omp_get_team_num_ => omp_get_team_num -> c_int;
    omp_get_max_teams_ => omp_get_max_teams -> c_int;
    omp_get_teams_thread_limit_ => omp_get_teams_thread_limit -> c_int;
    omp_get_initial_device_ => omp_get_initial_device -> c_int;
    omp_get_device_num_ => omp_get_device_num -> c_int;
    omp_get_wtime_ => omp_get_wtime -> f64;
    omp_get_wtick_ => omp_get_wtick -> f64;
}

fortran_int_arg! {
    omp_set_num_threads_, omp_set_num_threads_8_ => omp_set_num_threads -> ();
    omp_set_dynamic_, omp_set_dynamic_8_ => omp_set_dynamic -> ();
    omp_set_nested_, omp_set_nested_8_ => omp_set_nested -> ();
    omp_set_max_active_levels_, omp_set_max_active_levels_8_ => omp_set_max_active_levels -> ();
    omp_set_default_device_, omp_set_default_device_8_ => omp_set_default_device -> ();
    omp_set_num_teams_, omp_set_num_teams_8_ => omp_set_num_teams -> ();
    omp_set_teams_thread_limit_, omp_set_teams_thread_limit_8_ => omp_set_teams_thread_limit -> ();
    omp_get_ancestor_thread_num_, omp_get_ancestor_thread_num_8_ => omp_get_ancestor_thread_num -> c_int;
    omp_get_team_size_, omp_get_team_size_8_ => omp_get_team_size -> c_int;
}

/// `omp_get_schedule_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_schedule_(kind: *mut i32, chunk: *mut i32) {
    // SAFETY: gfortran's references to two integers.
    unsafe { omp_get_schedule(kind.cast::<c_uint>(), chunk) }
}

/// `omp_get_schedule_8_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_schedule_8_(kind: *mut i32, chunk: *mut i64) {
    let mut c: c_int = 0;
    // SAFETY: gfortran's references to two integers; `c` is ours.
    unsafe {
        omp_get_schedule(kind.cast::<c_uint>(), &mut c);
        *chunk = c.into();
    }
}

/// `omp_set_schedule_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_schedule_(kind: *const i32, chunk: *const i32) {
    // SAFETY: gfortran's references to two integers.
    unsafe { omp_set_schedule(fortran_arg(kind) as c_uint, fortran_arg(chunk)) }
}

/// `omp_set_schedule_8_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_schedule_8_(kind: *const i32, chunk: *const i64) {
    // SAFETY: gfortran's references to two integers.
    unsafe {
        omp_set_schedule(
            fortran_arg(kind) as c_uint,
            clamp_to_int(fortran_arg(chunk)),
        )
    }
}

/// `omp_init_lock_@@OMP_3.0`: the Fortran lock is the lock word.
#[no_mangle]
pub unsafe extern "C" fn omp_init_lock_(lock: *mut i32) {
    // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
    unsafe { omp_init_lock(lock.cast()) }
}

/// `omp_destroy_lock_@@OMP_3.0`: the Fortran lock is the lock word.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_lock_(lock: *mut i32) {
    // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
    unsafe { omp_destroy_lock(lock.cast()) }
}

/// `omp_set_lock_@@OMP_3.0`: the Fortran lock is the lock word.
#[no_mangle]
pub unsafe extern "C" fn omp_set_lock_(lock: *mut i32) {
    // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
    unsafe { omp_set_lock(lock.cast()) }
}

/// `omp_unset_lock_@@OMP_3.0`: the Fortran lock is the lock word.
#[no_mangle]
pub unsafe extern "C" fn omp_unset_lock_(lock: *mut i32) {
    // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
    unsafe { omp_unset_lock(lock.cast()) }
}

/// `omp_test_lock_@@OMP_3.0`: the Fortran lock is the lock word.
#[no_mangle]
pub unsafe extern "C" fn omp_test_lock_(lock: *mut i32) -> c_int {
    // SAFETY: gfortran's reference to an `integer(omp_lock_kind)`, 4 bytes aligned 4.
    unsafe { omp_test_lock(lock.cast()) }
}

/// The nest lock a Fortran `integer(omp_nest_lock_kind)` holds the address of.
///
/// # Safety
/// `lock` is gfortran's reference to a nest lock `omp_init_nest_lock_` set up.
unsafe fn nest_lock(lock: *mut i64) -> *mut c_void {
    // SAFETY: the caller's contract.
    unsafe { *lock as usize as *mut c_void }
}

/// `omp_init_nest_lock_@@OMP_3.0`: allocates the lock, its address in the variable.
#[no_mangle]
pub unsafe extern "C" fn omp_init_nest_lock_(lock: *mut i64) {
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

/// `omp_destroy_nest_lock_@@OMP_3.0`: frees the lock `omp_init_nest_lock_` allocated.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_nest_lock_(lock: *mut i64) {
    // SAFETY: a lock set up by `omp_init_nest_lock_`, destroyed once.
    unsafe {
        let l = nest_lock(lock);
        omp_destroy_nest_lock(l);
        libc::free(l);
        *lock = 0;
    }
}

/// `omp_set_nest_lock_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_nest_lock_(lock: *mut i64) {
    // SAFETY: a lock set up by `omp_init_nest_lock_`.
    unsafe { omp_set_nest_lock(nest_lock(lock)) }
}

/// `omp_unset_nest_lock_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_unset_nest_lock_(lock: *mut i64) {
    // SAFETY: a lock set up by `omp_init_nest_lock_`.
    unsafe { omp_unset_nest_lock(nest_lock(lock)) }
}

/// `omp_test_nest_lock_@@OMP_3.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_test_nest_lock_(lock: *mut i64) -> c_int {
    // SAFETY: a lock set up by `omp_init_nest_lock_`.
    unsafe { omp_test_nest_lock(nest_lock(lock)) }
}

/// `omp_fulfill_event_@@OMP_5.0.1`: the event passed by value (`omp_lib` says so).
#[no_mangle]
pub unsafe extern "C" fn omp_fulfill_event_(event: usize) {
    // SAFETY: the program's event handle.
    unsafe { omp_fulfill_event(event as *mut c_void) }
}

/// `omp_init_allocator_@@OMP_5.0.1`: `omp_alloctrait` has the C struct's layout.
#[no_mangle]
pub unsafe extern "C" fn omp_init_allocator_(
    memspace: *const usize,
    ntraits: *const i32,
    traits: *const c_void,
) -> usize {
    // SAFETY: gfortran's references, and its array of `ntraits` traits.
    unsafe { omp_init_allocator(fortran_arg(memspace), fortran_arg(ntraits), traits) }
}

/// `omp_init_allocator_8_@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_init_allocator_8_(
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

/// `omp_destroy_allocator_@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_allocator_(allocator: *const usize) {
    // SAFETY: gfortran's reference to a handle from `omp_init_allocator_`.
    unsafe { omp_destroy_allocator(fortran_arg(allocator)) }
}

/// `omp_set_default_allocator_@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_default_allocator_(allocator: *const usize) {
    // SAFETY: gfortran's reference to a handle.
    unsafe { omp_set_default_allocator(fortran_arg(allocator)) }
}

/// `omp_get_default_allocator_@@OMP_5.0.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_default_allocator_() -> usize {
    // SAFETY: the C routine takes nothing.
    unsafe { omp_get_default_allocator() }
}

/// `omp_get_place_num_procs_@@OMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_num_procs_(place: *const i32) -> c_int {
    // SAFETY: gfortran's reference to the argument.
    unsafe { omp_get_place_num_procs(fortran_arg(place)) }
}

/// `omp_get_place_num_procs_8_@@OMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_num_procs_8_(place: *const i64) -> c_int {
    // SAFETY: gfortran's reference to the argument.
    unsafe { omp_get_place_num_procs(clamp_to_int(fortran_arg(place))) }
}

/// `omp_get_place_proc_ids_@@OMP_4.5`: writes nothing, as the C routine.
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_proc_ids_(_place: *const i32, _ids: *mut i32) {}

/// `omp_get_place_proc_ids_8_@@OMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_place_proc_ids_8_(_place: *const i64, _ids: *mut i64) {}

/// `omp_get_partition_place_nums_@@OMP_4.5`: writes nothing, as the C routine.
#[no_mangle]
pub unsafe extern "C" fn omp_get_partition_place_nums_(_places: *mut i32) {}

/// `omp_get_partition_place_nums_8_@@OMP_4.5`.
#[no_mangle]
pub unsafe extern "C" fn omp_get_partition_place_nums_8_(_places: *mut i64) {}

/// `omp_display_env_@@OMP_5.1`: `verbose` is a `LOGICAL`.
#[no_mangle]
pub unsafe extern "C" fn omp_display_env_(verbose: *const i32) {
    // SAFETY: gfortran's reference to the argument.
    unsafe { omp_display_env(fortran_arg(verbose)) }
}

/// `omp_display_env_8_@@OMP_5.1`.
#[no_mangle]
pub unsafe extern "C" fn omp_display_env_8_(verbose: *const i64) {
    // SAFETY: gfortran's reference to the argument.
    unsafe { omp_display_env(c_int::from(fortran_arg(verbose) != 0)) }
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

/// `omp_set_affinity_format_@@OMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_affinity_format_(format: *const std::ffi::c_char, len: usize) {
    // SAFETY: gfortran's string and its hidden length.
    affinity::set_format(&unsafe { fortran_str(format, len) })
}

/// `omp_get_affinity_format_@@OMP_5.0`: the format's length.
#[no_mangle]
pub unsafe extern "C" fn omp_get_affinity_format_(
    buffer: *mut std::ffi::c_char,
    len: usize,
) -> c_int {
    // SAFETY: gfortran's string and its hidden length.
    unsafe { to_fortran_str(&affinity::format(), buffer, len) }
}

/// `omp_display_affinity_@@OMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_display_affinity_(format: *const std::ffi::c_char, len: usize) {
    // SAFETY: gfortran's string and its hidden length.
    let format = unsafe { fortran_str(format, len) };
    eprintln!("{}", affinity::capture(Some(&format)))
}

/// `omp_capture_affinity_@@OMP_5.0`: the line's length.
#[no_mangle]
pub unsafe extern "C" fn omp_capture_affinity_(
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

/// `omp_pause_resource_@@OMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_pause_resource_(kind: *const i32, device: *const i32) -> c_int {
    // SAFETY: gfortran's references to the arguments.
    unsafe { omp_pause_resource(fortran_arg(kind), fortran_arg(device)) }
}

/// `omp_pause_resource_all_@@OMP_5.0`.
#[no_mangle]
pub unsafe extern "C" fn omp_pause_resource_all_(kind: *const i32) -> c_int {
    // SAFETY: gfortran's reference to the argument.
    unsafe { omp_pause_resource_all(fortran_arg(kind)) }
}

// The symbol versions, as in `abi.rs`.
#[cfg(not(test))]
std::arch::global_asm!(
    ".symver omp_pause_resource_, omp_pause_resource_@@OMP_5.0",
    ".symver omp_pause_resource_all_, omp_pause_resource_all_@@OMP_5.0",
    ".symver omp_set_affinity_format_, omp_set_affinity_format_@@OMP_5.0",
    ".symver omp_get_affinity_format_, omp_get_affinity_format_@@OMP_5.0",
    ".symver omp_display_affinity_, omp_display_affinity_@@OMP_5.0",
    ".symver omp_capture_affinity_, omp_capture_affinity_@@OMP_5.0",
    ".symver omp_get_place_num_procs_, omp_get_place_num_procs_@@OMP_4.5",
    ".symver omp_get_place_num_procs_8_, omp_get_place_num_procs_8_@@OMP_4.5",
    ".symver omp_get_place_proc_ids_, omp_get_place_proc_ids_@@OMP_4.5",
    ".symver omp_get_place_proc_ids_8_, omp_get_place_proc_ids_8_@@OMP_4.5",
    ".symver omp_get_partition_place_nums_, omp_get_partition_place_nums_@@OMP_4.5",
    ".symver omp_get_partition_place_nums_8_, omp_get_partition_place_nums_8_@@OMP_4.5",
    ".symver omp_display_env_, omp_display_env_@@OMP_5.1",
    ".symver omp_display_env_8_, omp_display_env_8_@@OMP_5.1",
    ".symver omp_get_thread_num_, omp_get_thread_num_@@OMP_1.0",
    ".symver omp_get_num_threads_, omp_get_num_threads_@@OMP_1.0",
    ".symver omp_get_max_threads_, omp_get_max_threads_@@OMP_1.0",
    ".symver omp_in_parallel_, omp_in_parallel_@@OMP_1.0",
    ".symver omp_in_final_, omp_in_final_@@OMP_3.1",
    ".symver omp_get_num_procs_, omp_get_num_procs_@@OMP_1.0",
    ".symver omp_get_dynamic_, omp_get_dynamic_@@OMP_1.0",
    ".symver omp_get_nested_, omp_get_nested_@@OMP_1.0",
    ".symver omp_get_level_, omp_get_level_@@OMP_3.0",
    ".symver omp_get_active_level_, omp_get_active_level_@@OMP_3.0",
    ".symver omp_get_thread_limit_, omp_get_thread_limit_@@OMP_3.0",
    ".symver omp_get_max_active_levels_, omp_get_max_active_levels_@@OMP_3.0",
    ".symver omp_get_supported_active_levels_, omp_get_supported_active_levels_@@OMP_5.0.1",
    ".symver omp_get_cancellation_, omp_get_cancellation_@@OMP_4.0",
    ".symver omp_get_proc_bind_, omp_get_proc_bind_@@OMP_4.0",
    ".symver omp_get_num_places_, omp_get_num_places_@@OMP_4.5",
    ".symver omp_get_place_num_, omp_get_place_num_@@OMP_4.5",
    ".symver omp_get_partition_num_places_, omp_get_partition_num_places_@@OMP_4.5",
    ".symver omp_get_max_task_priority_, omp_get_max_task_priority_@@OMP_4.5",
    ".symver omp_get_num_devices_, omp_get_num_devices_@@OMP_4.0",
    ".symver omp_get_default_device_, omp_get_default_device_@@OMP_4.0",
    ".symver omp_is_initial_device_, omp_is_initial_device_@@OMP_4.0",
    ".symver omp_get_num_teams_, omp_get_num_teams_@@OMP_4.0",
    ".symver omp_get_team_num_, omp_get_team_num_@@OMP_4.0",
    ".symver omp_get_max_teams_, omp_get_max_teams_@@OMP_5.1",
    ".symver omp_get_teams_thread_limit_, omp_get_teams_thread_limit_@@OMP_5.1",
    ".symver omp_get_initial_device_, omp_get_initial_device_@@OMP_4.5",
    ".symver omp_get_device_num_, omp_get_device_num_@@OMP_5.0.2",
    ".symver omp_get_wtime_, omp_get_wtime_@@OMP_2.0",
    ".symver omp_get_wtick_, omp_get_wtick_@@OMP_2.0",
    ".symver omp_set_num_threads_, omp_set_num_threads_@@OMP_1.0",
    ".symver omp_set_num_threads_8_, omp_set_num_threads_8_@@OMP_1.0",
    ".symver omp_set_dynamic_, omp_set_dynamic_@@OMP_1.0",
    ".symver omp_set_dynamic_8_, omp_set_dynamic_8_@@OMP_1.0",
    ".symver omp_set_nested_, omp_set_nested_@@OMP_1.0",
    ".symver omp_set_nested_8_, omp_set_nested_8_@@OMP_1.0",
    ".symver omp_set_max_active_levels_, omp_set_max_active_levels_@@OMP_3.0",
    ".symver omp_set_max_active_levels_8_, omp_set_max_active_levels_8_@@OMP_3.0",
    ".symver omp_set_default_device_, omp_set_default_device_@@OMP_4.0",
    ".symver omp_set_default_device_8_, omp_set_default_device_8_@@OMP_4.0",
    ".symver omp_set_num_teams_, omp_set_num_teams_@@OMP_5.1",
    ".symver omp_set_num_teams_8_, omp_set_num_teams_8_@@OMP_5.1",
    ".symver omp_set_teams_thread_limit_, omp_set_teams_thread_limit_@@OMP_5.1",
    ".symver omp_set_teams_thread_limit_8_, omp_set_teams_thread_limit_8_@@OMP_5.1",
    ".symver omp_get_ancestor_thread_num_, omp_get_ancestor_thread_num_@@OMP_3.0",
    ".symver omp_get_ancestor_thread_num_8_, omp_get_ancestor_thread_num_8_@@OMP_3.0",
    ".symver omp_get_team_size_, omp_get_team_size_@@OMP_3.0",
    ".symver omp_get_team_size_8_, omp_get_team_size_8_@@OMP_3.0",
    ".symver omp_get_schedule_, omp_get_schedule_@@OMP_3.0",
    ".symver omp_get_schedule_8_, omp_get_schedule_8_@@OMP_3.0",
    ".symver omp_set_schedule_, omp_set_schedule_@@OMP_3.0",
    ".symver omp_set_schedule_8_, omp_set_schedule_8_@@OMP_3.0",
    ".symver omp_init_lock_, omp_init_lock_@@OMP_3.0",
    ".symver omp_destroy_lock_, omp_destroy_lock_@@OMP_3.0",
    ".symver omp_set_lock_, omp_set_lock_@@OMP_3.0",
    ".symver omp_unset_lock_, omp_unset_lock_@@OMP_3.0",
    ".symver omp_test_lock_, omp_test_lock_@@OMP_3.0",
    ".symver omp_init_nest_lock_, omp_init_nest_lock_@@OMP_3.0",
    ".symver omp_destroy_nest_lock_, omp_destroy_nest_lock_@@OMP_3.0",
    ".symver omp_set_nest_lock_, omp_set_nest_lock_@@OMP_3.0",
    ".symver omp_unset_nest_lock_, omp_unset_nest_lock_@@OMP_3.0",
    ".symver omp_test_nest_lock_, omp_test_nest_lock_@@OMP_3.0",
    ".symver omp_fulfill_event_, omp_fulfill_event_@@OMP_5.0.1",
    ".symver omp_init_allocator_, omp_init_allocator_@@OMP_5.0.1",
    ".symver omp_init_allocator_8_, omp_init_allocator_8_@@OMP_5.0.1",
    ".symver omp_destroy_allocator_, omp_destroy_allocator_@@OMP_5.0.1",
    ".symver omp_set_default_allocator_, omp_set_default_allocator_@@OMP_5.0.1",
    ".symver omp_get_default_allocator_, omp_get_default_allocator_@@OMP_5.0.1",
);

/// The exported symbols and their versions, for the tests.
#[cfg(test)]
pub(crate) const FORTRAN_SYMBOLS: &[(&str, &str)] = &[
    ("omp_pause_resource_", "OMP_5.0"),
    ("omp_pause_resource_all_", "OMP_5.0"),
    ("omp_set_affinity_format_", "OMP_5.0"),
    ("omp_get_affinity_format_", "OMP_5.0"),
    ("omp_display_affinity_", "OMP_5.0"),
    ("omp_capture_affinity_", "OMP_5.0"),
    ("omp_get_place_num_procs_", "OMP_4.5"),
    ("omp_get_place_num_procs_8_", "OMP_4.5"),
    ("omp_get_place_proc_ids_", "OMP_4.5"),
    ("omp_get_place_proc_ids_8_", "OMP_4.5"),
    ("omp_get_partition_place_nums_", "OMP_4.5"),
    ("omp_get_partition_place_nums_8_", "OMP_4.5"),
    ("omp_display_env_", "OMP_5.1"),
    ("omp_display_env_8_", "OMP_5.1"),
    ("omp_get_thread_num_", "OMP_1.0"),
    ("omp_get_num_threads_", "OMP_1.0"),
    ("omp_get_max_threads_", "OMP_1.0"),
    ("omp_in_parallel_", "OMP_1.0"),
    ("omp_in_final_", "OMP_3.1"),
    ("omp_get_num_procs_", "OMP_1.0"),
    ("omp_get_dynamic_", "OMP_1.0"),
    ("omp_get_nested_", "OMP_1.0"),
    ("omp_get_level_", "OMP_3.0"),
    ("omp_get_active_level_", "OMP_3.0"),
    ("omp_get_thread_limit_", "OMP_3.0"),
    ("omp_get_max_active_levels_", "OMP_3.0"),
    ("omp_get_supported_active_levels_", "OMP_5.0.1"),
    ("omp_get_cancellation_", "OMP_4.0"),
    ("omp_get_proc_bind_", "OMP_4.0"),
    ("omp_get_num_places_", "OMP_4.5"),
    ("omp_get_place_num_", "OMP_4.5"),
    ("omp_get_partition_num_places_", "OMP_4.5"),
    ("omp_get_max_task_priority_", "OMP_4.5"),
    ("omp_get_num_devices_", "OMP_4.0"),
    ("omp_get_default_device_", "OMP_4.0"),
    ("omp_is_initial_device_", "OMP_4.0"),
    ("omp_get_num_teams_", "OMP_4.0"),
    ("omp_get_team_num_", "OMP_4.0"),
    ("omp_get_max_teams_", "OMP_5.1"),
    ("omp_get_teams_thread_limit_", "OMP_5.1"),
    ("omp_get_initial_device_", "OMP_4.5"),
    ("omp_get_device_num_", "OMP_5.0.2"),
    ("omp_get_wtime_", "OMP_2.0"),
    ("omp_get_wtick_", "OMP_2.0"),
    ("omp_set_num_threads_", "OMP_1.0"),
    ("omp_set_num_threads_8_", "OMP_1.0"),
    ("omp_set_dynamic_", "OMP_1.0"),
    ("omp_set_dynamic_8_", "OMP_1.0"),
    ("omp_set_nested_", "OMP_1.0"),
    ("omp_set_nested_8_", "OMP_1.0"),
    ("omp_set_max_active_levels_", "OMP_3.0"),
    ("omp_set_max_active_levels_8_", "OMP_3.0"),
    ("omp_set_default_device_", "OMP_4.0"),
    ("omp_set_default_device_8_", "OMP_4.0"),
    ("omp_set_num_teams_", "OMP_5.1"),
    ("omp_set_num_teams_8_", "OMP_5.1"),
    ("omp_set_teams_thread_limit_", "OMP_5.1"),
    ("omp_set_teams_thread_limit_8_", "OMP_5.1"),
    ("omp_get_ancestor_thread_num_", "OMP_3.0"),
    ("omp_get_ancestor_thread_num_8_", "OMP_3.0"),
    ("omp_get_team_size_", "OMP_3.0"),
    ("omp_get_team_size_8_", "OMP_3.0"),
    ("omp_get_schedule_", "OMP_3.0"),
    ("omp_get_schedule_8_", "OMP_3.0"),
    ("omp_set_schedule_", "OMP_3.0"),
    ("omp_set_schedule_8_", "OMP_3.0"),
    ("omp_init_lock_", "OMP_3.0"),
    ("omp_destroy_lock_", "OMP_3.0"),
    ("omp_set_lock_", "OMP_3.0"),
    ("omp_unset_lock_", "OMP_3.0"),
    ("omp_test_lock_", "OMP_3.0"),
    ("omp_init_nest_lock_", "OMP_3.0"),
    ("omp_destroy_nest_lock_", "OMP_3.0"),
    ("omp_set_nest_lock_", "OMP_3.0"),
    ("omp_unset_nest_lock_", "OMP_3.0"),
    ("omp_test_nest_lock_", "OMP_3.0"),
    ("omp_fulfill_event_", "OMP_5.0.1"),
    ("omp_init_allocator_", "OMP_5.0.1"),
    ("omp_init_allocator_8_", "OMP_5.0.1"),
    ("omp_destroy_allocator_", "OMP_5.0.1"),
    ("omp_set_default_allocator_", "OMP_5.0.1"),
    ("omp_get_default_allocator_", "OMP_5.0.1"),
];
