//! Devices, `target` and `teams`: target regions run on the host (OpenMP's host
//! fallback, `target.rs`), host teams in turn (`teams.rs`), and the device routines.

use crate::guard::guard;
use crate::node::OutlinedFn;
use crate::{env, target, teams};
use std::ffi::{c_int, c_uint, c_void};

/// The data constructs of a target region (`target data`, `update`, `enter data`,
/// `exit data`), which move nothing on the host: each keeps its `depend` clauses
/// (`target::data`). The forms: GCC 6 and later with and without flags and
/// dependences, and GCC before 6 (an unused pointer, byte-sized map kinds).
macro_rules! target_data {
    ($(#[$doc:meta])* $name:ident @ $ver:literal, ext, $what:literal) => {
        $(#[$doc])*
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
            symver!($name, $ver);
            // SAFETY: GCC's dependence array.
            guard(stringify!($name), || unsafe { target::data($what, device, flags, depend) })
        }
    };
    ($(#[$doc:meta])* $name:ident @ $ver:literal, ext_plain, $what:literal) => {
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: c_int,
            _mapnum: usize,
            _hostaddrs: *mut *mut c_void,
            _sizes: *mut usize,
            _kinds: *mut u16,
        ) {
            symver!($name, $ver);
            // SAFETY: no dependences.
            guard(stringify!($name), || unsafe {
                target::data($what, device, 0, std::ptr::null_mut())
            })
        }
    };
    ($(#[$doc:meta])* $name:ident @ $ver:literal, v4, $what:literal) => {
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: c_int,
            _unused: *const c_void,
            _mapnum: usize,
            _hostaddrs: *mut *mut c_void,
            _sizes: *mut usize,
            _kinds: *mut u8,
        ) {
            symver!($name, $ver);
            // SAFETY: no dependences.
            guard(stringify!($name), || unsafe {
                target::data($what, device, 0, std::ptr::null_mut())
            })
        }
    };
}

exports! {
    /// 0; no offloading.
    "OMP_4.0" fn omp_get_num_devices() -> c_int {
        0
    }

    /// Default-device-var (`OMP_DEFAULT_DEVICE`, else
    /// 0, the host).
    "OMP_4.0" fn omp_get_default_device() -> c_int {
        guard("omp_get_default_device", env::default_device)
    }

    /// Sets default-device-var (a target construct
    /// without `device` checks it as `target.rs` checks any device number).
    "OMP_4.0" fn omp_set_default_device(device: c_int) {
        guard("omp_set_default_device", || env::set_default_device(device))
    }

    /// True; everything runs on the host.
    "OMP_4.0" fn omp_is_initial_device() -> c_int {
        1
    }

    /// 1 outside a `teams` region.
    "OMP_4.0" fn omp_get_num_teams() -> c_int {
        guard("omp_get_num_teams", || teams::num_teams() as c_int)
    }

    /// 0 outside a `teams` region.
    "OMP_4.0" fn omp_get_team_num() -> c_int {
        guard("omp_get_team_num", || teams::team_num() as c_int)
    }

    /// A host `teams` construct; its teams run in turn on
    /// this thread (`teams.rs`).
    "GOMP_5.0" fn GOMP_teams_reg(
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

    "OMP_5.1" fn omp_set_num_teams(n: c_int) {
        guard("omp_set_num_teams", || env::set_num_teams(n))
    }

    "OMP_5.1" fn omp_get_max_teams() -> c_int {
        guard("omp_get_max_teams", || env::max_teams() as c_int)
    }

    "OMP_5.1" fn omp_set_teams_thread_limit(n: c_int) {
        guard("omp_set_teams_thread_limit", || {
            env::set_teams_thread_limit(n)
        })
    }

    "OMP_5.1" fn omp_get_teams_thread_limit() -> c_int {
        guard("omp_get_teams_thread_limit", || {
            env::teams_thread_limit() as c_int
        })
    }

    /// The host, numbered as `omp_get_num_devices`
    /// (OpenMP 5.1): 0.
    "OMP_4.5" fn omp_get_initial_device() -> c_int {
        0
    }

    /// The device this runs on, the host: 0.
    "OMP_5.0.2" fn omp_get_device_num() -> c_int {
        0
    }

    /// A target region, run on the host (`target.rs`).
    "GOMP_4.5" fn GOMP_target_ext(
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

    /// A target region of GCC before 6, run on the host.
    "GOMP_4.0" fn GOMP_target(
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

/// `target data`.
    "GOMP_4.5" fn GOMP_target_data_ext = target_data!(ext_plain, "a target data construct");

    /// `target data`, GCC before 6.
    "GOMP_4.0" fn GOMP_target_data = target_data!(v4, "a target data construct");

    /// `target update`.
    "GOMP_4.5" fn GOMP_target_update_ext = target_data!(ext, "a target update construct");

    /// `target update`, GCC before 6.
    "GOMP_4.0" fn GOMP_target_update = target_data!(v4, "a target update construct");

    /// `target enter data` and `exit data`.
    "GOMP_4.5" fn GOMP_target_enter_exit_data =
        target_data!(ext, "a target enter/exit data construct");

    "GOMP_4.0" fn GOMP_target_end_data() {}

    /// The teams of a target region, in turn.
    "GOMP_5.1" fn GOMP_teams4(
        num_teams_low: c_uint,
        _num_teams_high: c_uint,
        thread_limit: c_uint,
        first: bool,
    ) -> bool {
        guard("GOMP_teams4", || {
            target::teams4(num_teams_low, thread_limit, first)
        })
    }

    /// A target region's teams, GCC before 12: one team.
    "GOMP_4.0" fn GOMP_teams(_num_teams: c_uint, thread_limit: c_uint) {
        guard("GOMP_teams", || target::teams_v4(thread_limit))
    }

    /// A program's offload images; ignored, so
    /// their target regions run on the host.
    "GOMP_4.5" fn GOMP_offload_register_ver(
        _version: c_uint,
        _host_table: *const c_void,
        _target_type: c_int,
        _target_data: *const c_void,
    ) {
    }

    "GOMP_4.5" fn GOMP_offload_unregister_ver(
        _version: c_uint,
        _host_table: *const c_void,
        _target_type: c_int,
        _target_data: *const c_void,
    ) {
    }

    /// Ignored, as `GOMP_offload_register_ver`.
    "GOMP_4.0.1" fn GOMP_offload_register(
        _host_table: *const c_void,
        _target_type: c_int,
        _target_data: *const c_void,
    ) {
    }

    "GOMP_4.0.1" fn GOMP_offload_unregister(
        _host_table: *const c_void,
        _target_type: c_int,
        _target_data: *const c_void,
    ) {
    }

    /// Host memory on the host device; null for any other.
    "OMP_4.5" fn omp_target_alloc(size: usize, device: c_int) -> *mut c_void {
        guard("omp_target_alloc", || target::device_alloc(size, device))
    }

    "OMP_4.5" fn omp_target_free(p: *mut c_void, device: c_int) {
        // SAFETY: null or from omp_target_alloc for this device, freed once.
        guard("omp_target_free", || unsafe {
            target::device_free(p, device)
        })
    }

    /// 1 on the host device (all host memory is there).
    "OMP_4.5" fn omp_target_is_present(_p: *const c_void, device: c_int) -> c_int {
        c_int::from(device == target::HOST)
    }

    /// 0, or `EINVAL` for a device but the host.
    "OMP_4.5" fn omp_target_memcpy(
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

    "OMP_4.5" fn omp_target_memcpy_rect(
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

    /// `EINVAL`, as libgomp answers for the host
    /// device (there is nothing to associate host memory with).
    "OMP_4.5" fn omp_target_associate_ptr(
        _host_ptr: *const c_void,
        _device_ptr: *const c_void,
        _size: usize,
        _device_offset: usize,
        _device: c_int,
    ) -> c_int {
        libc::EINVAL
    }

    /// `EINVAL`, as `omp_target_associate_ptr`.
    "OMP_4.5" fn omp_target_disassociate_ptr(_p: *const c_void, _device: c_int) -> c_int {
        libc::EINVAL
    }
}
