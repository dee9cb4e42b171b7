//! Memory allocators (`alloc.rs`) and the `omp_*_lock` routines (`lock.rs`).

use crate::allocator::{Handle, Memspace, Trait};
use crate::guard::guard;
use crate::task;
use crate::{alloc, lock};
use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering;

exports! {
    /// `omp_null_allocator` if the traits cannot be met.
    "OMP_5.0.1" fn omp_init_allocator(
        memspace: Memspace,
        ntraits: c_int,
        traits: *const c_void,
    ) -> Handle {
        guard("omp_init_allocator", || {
            let traits = match usize::try_from(ntraits) {
                Ok(n) if n > 0 && !traits.is_null() => {
                    // SAFETY: the program's array of `ntraits` omp_alloctrait_t.
                    unsafe { std::slice::from_raw_parts(traits.cast::<Trait>(), n) }
                }
                _ => &[],
            };
            alloc::init(memspace, traits)
        })
    }

    "OMP_5.0.1" fn omp_destroy_allocator(a: Handle) {
        // SAFETY: a handle from `omp_init_allocator`, destroyed once (the program's promise).
        guard("omp_destroy_allocator", || unsafe { alloc::destroy(a) })
    }

    /// For the tasks this thread runs.
    "OMP_5.0.1" fn omp_set_default_allocator(a: Handle) {
        guard("omp_set_default_allocator", || {
            alloc::set_default_allocator(a)
        })
    }

    "OMP_5.0.1" fn omp_get_default_allocator() -> Handle {
        guard("omp_get_default_allocator", alloc::default_allocator)
    }

    "OMP_5.0.1" fn omp_alloc(size: usize, a: Handle) -> *mut c_void {
        // SAFETY: a handle of the program's (predefined, made and live, or null).
        guard("omp_alloc", || unsafe {
            alloc::allocate(0, size, a, false)
        })
        .cast()
    }

    /// Null unless `align` is a power of two.
    "OMP_5.0.2" fn omp_aligned_alloc(
        align: usize,
        size: usize,
        a: Handle,
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

    /// Zeroed; null if `n * size` overflows.
    "OMP_5.0.2" fn omp_calloc(n: usize, size: usize, a: Handle) -> *mut c_void {
        guard("omp_calloc", || match n.checked_mul(size) {
            // SAFETY: as for omp_alloc.
            Some(bytes) => unsafe { alloc::allocate(0, bytes, a, true) },
            None => std::ptr::null_mut(),
        })
        .cast()
    }

    "OMP_5.0.2" fn omp_aligned_calloc(
        align: usize,
        n: usize,
        size: usize,
        a: Handle,
    ) -> *mut c_void {
        guard("omp_aligned_calloc", || match n.checked_mul(size) {
            Some(_) if align == 0 => std::ptr::null_mut(),
            // SAFETY: as for omp_alloc.
            Some(bytes) => unsafe { alloc::allocate(align, bytes, a, true) },
            None => std::ptr::null_mut(),
        })
        .cast()
    }

    /// The block comes from `a`, else from the allocator `p` came
    /// from; `free_allocator` need not be given (a block knows its allocator).
    "OMP_5.0.2" fn omp_realloc(
        p: *mut c_void,
        size: usize,
        a: Handle,
        _free_allocator: Handle,
    ) -> *mut c_void {
        // SAFETY: null or a live block from these functions; a handle as for omp_alloc.
        guard("omp_realloc", || unsafe {
            alloc::reallocate(p.cast(), size, a)
        })
        .cast()
    }

    /// The allocator argument need not be given.
    "OMP_5.0.1" fn omp_free(p: *mut c_void, _a: Handle) {
        // SAFETY: null or a live block from these functions, freed once.
        guard("omp_free", || unsafe { alloc::free(p.cast()) })
    }

    /// The `allocate` directive and clause.
    "GOMP_5.0.1" fn GOMP_alloc(align: usize, size: usize, a: Handle) -> *mut c_void {
        // SAFETY: as for omp_alloc.
        guard("GOMP_alloc", || unsafe {
            alloc::allocate(align, size, a, false)
        })
        .cast()
    }

    "GOMP_5.0.1" fn GOMP_free(p: *mut c_void, _a: Handle) {
        // SAFETY: as for omp_free.
        guard("GOMP_free", || unsafe { alloc::free(p.cast()) })
    }

    "OMP_3.0" fn omp_init_lock(l: *mut c_void) {
        guard("omp_init_lock", || {
            // SAFETY: GCC's omp_lock_t: 4 bytes, aligned 4.
            unsafe { lock::word(l) }.store(0, Ordering::Relaxed)
        })
    }

    "OMP_3.0" fn omp_destroy_lock(l: *mut c_void) {
        guard("omp_destroy_lock", || {
            // SAFETY: as for omp_init_lock.
            unsafe { lock::word(l) }.store(0, Ordering::Relaxed)
        })
    }

    "OMP_3.0" fn omp_set_lock(l: *mut c_void) {
        guard("omp_set_lock", || {
            // SAFETY: as for omp_init_lock.
            lock::lock(unsafe { lock::word(l) })
        })
    }

    "OMP_3.0" fn omp_unset_lock(l: *mut c_void) {
        guard("omp_unset_lock", || {
            // SAFETY: as for omp_init_lock.
            lock::unlock(unsafe { lock::word(l) })
        })
    }

    "OMP_3.0" fn omp_test_lock(l: *mut c_void) -> c_int {
        guard("omp_test_lock", || {
            // SAFETY: as for omp_init_lock.
            c_int::from(lock::try_lock(unsafe { lock::word(l) }))
        })
    }

    "OMP_3.0" fn omp_init_nest_lock(l: *mut c_void) {
        guard("omp_init_nest_lock", || {
            // SAFETY: GCC's omp_nest_lock_t: 16 bytes, aligned 8.
            unsafe { lock::NestLock::at(l) }.init()
        })
    }

    "OMP_3.0" fn omp_destroy_nest_lock(l: *mut c_void) {
        guard("omp_destroy_nest_lock", || {
            // SAFETY: as for omp_init_nest_lock.
            unsafe { lock::NestLock::at(l) }.init()
        })
    }

    "OMP_3.0" fn omp_set_nest_lock(l: *mut c_void) {
        guard("omp_set_nest_lock", || {
            // SAFETY: as for omp_init_nest_lock.
            unsafe { lock::NestLock::at(l) }.set(task::current_ptr())
        })
    }

    "OMP_3.0" fn omp_unset_nest_lock(l: *mut c_void) {
        guard("omp_unset_nest_lock", || {
            // SAFETY: as for omp_init_nest_lock.
            unsafe { lock::NestLock::at(l) }.unset()
        })
    }

    "OMP_3.0" fn omp_test_nest_lock(l: *mut c_void) -> c_int {
        guard("omp_test_nest_lock", || {
            // SAFETY: as for omp_init_nest_lock.
            unsafe { lock::NestLock::at(l) }.test(task::current_ptr())
        })
    }
}
