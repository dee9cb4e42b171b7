//! Parallel regions: `GOMP_parallel` and its forms (GCC before 4.9's
//! `GOMP_parallel_start`/`_end`, combined `sections`, task reductions), run by `team.rs`.

use crate::guard::guard;
use crate::node::OutlinedFn;
use crate::team;
use crate::{loops, reduction};
use std::ffi::{c_uint, c_void};

exports! {
    "GOMP_4.0" fn GOMP_parallel(
        f: OutlinedFn,
        data: *mut c_void,
        num_threads: c_uint,
        _flags: c_uint,
    ) {
        guard("GOMP_parallel", || {
            team::parallel(f, data, num_threads as usize, &|_| {})
        })
    }

    /// GCC before 4.9; the caller is thread 0 of the
    /// team and runs the region's function itself next (see `team::parallel_start`).
    "GOMP_1.0" fn GOMP_parallel_start(
        f: OutlinedFn,
        data: *mut c_void,
        num_threads: c_uint,
    ) {
        guard("GOMP_parallel_start", || {
            team::parallel_start(f, data, num_threads as usize, Box::new(|_| {}))
        })
    }

    "GOMP_1.0" fn GOMP_parallel_end() {
        guard("GOMP_parallel_end", team::parallel_end)
    }

    "GOMP_1.0" fn GOMP_parallel_sections_start(
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

    /// A parallel region with task reductions (the
    /// first word of `data` is GCC's block); the team's size, for GCC's code that combines
    /// the copies after it.
    "GOMP_5.0" fn GOMP_parallel_reductions(
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

    "GOMP_4.0" fn GOMP_parallel_sections(
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
}
