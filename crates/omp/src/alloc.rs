//! OpenMP memory allocators (OpenMP 5.1, section 3.13): `omp_alloc` and its family,
//! `omp_init_allocator` with traits, the default allocator (`OMP_ALLOCATOR`,
//! `omp_set_default_allocator`) and the `allocate` clause's `GOMP_alloc`/`GOMP_free`.
//!
//! All memory spaces are the host's memory, from Rust's global allocator (the system's
//! `malloc`): the predefined allocators differ only in name. An allocator made with
//! traits keeps what they ask: an alignment, a pool size (bytes outstanding at once,
//! counted per allocator) and the fallback taken when the pool is full or the system
//! refuses (the default allocator, a null pointer, an abort, or another allocator).
//! `pinned=true` cannot be kept (locus does not lock pages in memory), so an allocator
//! asking for it is not made: `omp_init_allocator` returns `omp_null_allocator`, as the
//! standard says for traits an implementation cannot meet. `sync_hint`, `access` and
//! `partition` are accepted: every value holds for host memory shared by all threads,
//! except that `partition` places no pages (the memory is wherever `malloc` puts it).
//!
//! Every block carries a header just below the pointer returned: the layout it was
//! allocated with and the allocator (a counted reference, so that a block outlives the
//! handle's `omp_destroy_allocator` safely), which is how `omp_free` and `omp_realloc`
//! work with any allocator argument, `omp_null_allocator` included.
//!
//! def-allocator-var lives in the running thread's team member (`member.rs`): a region's
//! members inherit it from the member that started the region, and a task sees its
//! running member's, as under libgomp, where it is a thread's and copied to the threads
//! of the teams it starts.

use crate::allocator::*;
use std::alloc::{self, Layout};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

/// `omp_init_allocator`: `omp_null_allocator` if the traits cannot be met or are not
/// OpenMP's.
pub(crate) fn init(memspace: Memspace, traits: &[Trait]) -> Handle {
    match check_traits(memspace, traits) {
        Ok(a) => Arc::into_raw(Arc::new(a)) as Handle,
        Err(_) => NULL_ALLOCATOR,
    }
}

/// `omp_destroy_allocator`: a predefined or null handle is left alone; blocks still
/// allocated from it keep it alive until they are freed.
///
/// # Safety
/// `h` is a predefined allocator or one `init` made, destroyed at most once.
pub(crate) unsafe fn destroy(h: Handle) {
    if h > PREDEFINED.len() {
        // SAFETY: made by `init` with `Arc::into_raw`, its handle's reference given up
        // once (the caller's contract).
        drop(unsafe { Arc::from_raw(h as *const Allocator) });
    }
}

/// The allocator `OMP_ALLOCATOR` names, made once.
fn from_environment() -> Handle {
    static ENV: OnceLock<Handle> = OnceLock::new();
    *ENV.get_or_init(|| {
        let Some(spec) = crate::env::settings().allocator.as_deref() else {
            return DEFAULT_MEM_ALLOC;
        };
        // Checked with the other settings (`check_environment`).
        let made = parse_allocator(spec).and_then(|s| match s {
            Spec::Predefined(h) => Ok(h),
            Spec::Made(memspace, traits) => {
                check_traits(memspace, &traits).map(|a| Arc::into_raw(Arc::new(a)) as Handle)
            }
        });
        made.unwrap_or_else(|e| crate::env::fail(&format!("OMP_ALLOCATOR={spec:?}: {e}")))
    })
}

/// `omp_get_default_allocator`: def-allocator-var of the running thread's member
/// (0 until set: then `OMP_ALLOCATOR`'s).
pub(crate) fn default_allocator() -> Handle {
    match crate::member::member().def_allocator.get() {
        NULL_ALLOCATOR => from_environment(),
        h => h,
    }
}

/// `omp_set_default_allocator`: sets def-allocator-var of the running thread's member,
/// which the members of the regions it starts inherit (as libgomp's threads do);
/// `omp_null_allocator` restores `OMP_ALLOCATOR`'s.
pub(crate) fn set_default_allocator(h: Handle) {
    crate::member::member().def_allocator.set(h);
}

/// The least alignment of a block: `malloc`'s (`max_align_t`), which C code expects
/// of any allocation.
const MIN_ALIGN: usize = 16;
const _: () = assert!(MIN_ALIGN >= std::mem::align_of::<Header>());

/// What every block keeps just below the pointer handed out.
#[repr(C)]
struct Header {
    /// The start of the allocation, and its layout.
    base: *mut u8,
    layout: Layout,
    /// The size asked for (what `omp_realloc` copies, and the pool counts).
    size: usize,
    /// The allocator that served it: an [`Allocator`] reference it holds, or null for a
    /// predefined allocator.
    made: *const Allocator,
}

/// The allocator a handle names: the default for `omp_null_allocator`.
fn resolve(h: Handle) -> Handle {
    if h == NULL_ALLOCATOR {
        default_allocator()
    } else {
        h
    }
}

/// Allocates `size` bytes (zeroed if asked) at `align` or more from allocator `h`;
/// null for a size of 0, or when the allocator's fallback says so.
///
/// # Safety
/// `h` is `omp_null_allocator`, a predefined allocator or one made here and not
/// destroyed.
pub(crate) unsafe fn allocate(align: usize, size: usize, h: Handle, zero: bool) -> *mut u8 {
    if size == 0 || (align != 0 && !align.is_power_of_two()) {
        return std::ptr::null_mut();
    }
    let mut h = resolve(h);
    // A chain of `allocator_fb` is finite: each names an allocator made before it.
    loop {
        let made = if h > PREDEFINED.len() {
            h as *const Allocator
        } else {
            std::ptr::null()
        };
        // SAFETY: a live allocator made by `init` (the caller's contract).
        let a = unsafe { made.as_ref() };
        let align = align.max(a.map_or(1, |a| a.align));
        let fits = a.is_none_or(|a| a.take(size));
        if fits {
            // SAFETY: a nonzero size.
            if let Some(p) = unsafe { raw_block(align, size, made, zero) } {
                return p;
            }
            if let Some(a) = a {
                a.give_back(size);
            }
        }
        match a.map_or(Fallback::Null, |a| a.fallback) {
            Fallback::Null => return std::ptr::null_mut(),
            Fallback::DefaultMem => h = DEFAULT_MEM_ALLOC,
            Fallback::Abort => {
                eprintln!(
                    "locus: an OpenMP allocator with fallback=abort_fb could not serve \
                     {size} bytes; aborting"
                );
                std::process::abort()
            }
            Fallback::Other(next) => h = next,
        }
    }
}

impl Allocator {
    /// Counts `size` bytes against the pool; false if they do not fit.
    fn take(&self, size: usize) -> bool {
        let Some(pool) = self.pool else { return true };
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(size).filter(|&u| u <= pool)
            })
            .is_ok()
    }

    fn give_back(&self, size: usize) {
        if self.pool.is_some() {
            self.used.fetch_sub(size, Ordering::Relaxed);
        }
    }
}

/// One block with its header; `None` if the system refuses or the sizes overflow.
///
/// # Safety
/// `size` is nonzero; `made` is null or a live allocator, which gains a reference held
/// by the block.
unsafe fn raw_block(
    align: usize,
    size: usize,
    made: *const Allocator,
    zero: bool,
) -> Option<*mut u8> {
    let align = align.max(MIN_ALIGN);
    let offset = std::mem::size_of::<Header>().next_multiple_of(align);
    let layout = Layout::from_size_align(offset.checked_add(size)?, align).ok()?;
    // SAFETY: a layout of nonzero size.
    let base = unsafe {
        if zero {
            alloc::alloc_zeroed(layout)
        } else {
            alloc::alloc(layout)
        }
    };
    if base.is_null() {
        return None;
    }
    if !made.is_null() {
        // SAFETY: a live allocator from `Arc::into_raw` (the caller's contract); the
        // block's reference is given up in `free`.
        unsafe { Arc::increment_strong_count(made) };
    }
    // SAFETY: `offset` bytes lie below the user's pointer, a header's size or more, and
    // `offset` is a multiple of the header's alignment.
    unsafe {
        let user = base.add(offset);
        user.cast::<Header>().sub(1).write(Header {
            base,
            layout,
            size,
            made,
        });
        Some(user)
    }
}

/// The header of a block from [`allocate`].
///
/// # Safety
/// `p` came from [`allocate`] and is not yet freed.
unsafe fn header<'a>(p: *mut u8) -> &'a Header {
    // SAFETY: the header sits just below every block (see `raw_block`).
    unsafe { &*p.cast::<Header>().sub(1) }
}

/// `omp_free`: a null pointer is ignored; the allocator argument need not be given
/// (the block knows its own).
///
/// # Safety
/// `p` is null or came from [`allocate`] and is freed once.
pub(crate) unsafe fn free(p: *mut u8) {
    if p.is_null() {
        return;
    }
    // SAFETY: a live block (the caller's contract).
    let h = unsafe { header(p) };
    let (base, layout, size, made) = (h.base, h.layout, h.size, h.made);
    if !made.is_null() {
        // SAFETY: the reference this block holds (see `raw_block`).
        let a = unsafe { Arc::from_raw(made) };
        a.give_back(size);
    }
    // SAFETY: allocated with this layout in `raw_block`.
    unsafe { alloc::dealloc(base, layout) };
}

/// `omp_realloc`: `size` bytes from `h` (or, for `omp_null_allocator`, from the
/// allocator `p` came from) holding `p`'s bytes; `p` is freed only if that succeeds.
///
/// # Safety
/// `p` is null or a live block from [`allocate`]; `h` as for [`allocate`].
pub(crate) unsafe fn reallocate(p: *mut u8, size: usize, h: Handle) -> *mut u8 {
    if p.is_null() {
        // SAFETY: as the caller promises.
        return unsafe { allocate(0, size, h, false) };
    }
    if size == 0 {
        // SAFETY: a live block, freed once.
        unsafe { free(p) };
        return std::ptr::null_mut();
    }
    // SAFETY: a live block.
    let old = unsafe { header(p) };
    let (old_size, old_made) = (old.size, old.made);
    let h = if h != NULL_ALLOCATOR {
        h
    } else if !old_made.is_null() {
        old_made as Handle
    } else {
        DEFAULT_MEM_ALLOC
    };
    // SAFETY: as the caller promises.
    let q = unsafe { allocate(0, size, h, false) };
    if !q.is_null() {
        // SAFETY: two live blocks of at least the bytes copied.
        unsafe { std::ptr::copy_nonoverlapping(p, q, old_size.min(size)) };
        // SAFETY: the old block, freed once.
        unsafe { free(p) };
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(key: u32, value: usize) -> Trait {
        Trait { key, value }
    }

    #[test]
    fn blocks_are_aligned_zeroed_and_freed() {
        // SAFETY: predefined allocators and blocks freed once.
        unsafe {
            for align in [0, 1, 8, 64, 4096] {
                let p = allocate(align, 100, DEFAULT_MEM_ALLOC, true);
                assert!(!p.is_null());
                assert_eq!(p as usize % align.max(16), 0);
                assert!(std::slice::from_raw_parts(p, 100).iter().all(|&b| b == 0));
                free(p);
            }
            assert!(allocate(8, 0, DEFAULT_MEM_ALLOC, false).is_null());
            assert!(allocate(24, 8, DEFAULT_MEM_ALLOC, false).is_null());
            free(std::ptr::null_mut());
        }
    }

    #[test]
    fn a_pool_is_kept_and_its_fallback_taken() {
        let null_fb = init(0, &[t(ATK_POOL_SIZE, 1000), t(ATK_FALLBACK, ATV_NULL_FB)]);
        assert_ne!(null_fb, NULL_ALLOCATOR);
        // SAFETY: allocators made here, blocks freed once.
        unsafe {
            let a = allocate(0, 600, null_fb, false);
            assert!(!a.is_null());
            assert!(allocate(0, 600, null_fb, false).is_null(), "over the pool");
            let b = allocate(0, 400, null_fb, false);
            assert!(!b.is_null(), "exactly the pool");
            free(a);
            let c = allocate(0, 600, null_fb, false);
            assert!(!c.is_null(), "room again once freed");
            // The default fallback serves what the pool cannot.
            let to_default = init(0, &[t(ATK_POOL_SIZE, 10)]);
            let d = allocate(0, 100, to_default, false);
            assert!(!d.is_null());
            // allocator_fb goes on to fb_data, aligned as that one says.
            let aligned = init(0, &[t(ATK_ALIGNMENT, 256)]);
            let chained = init(
                0,
                &[
                    t(ATK_POOL_SIZE, 10),
                    t(ATK_FALLBACK, ATV_ALLOCATOR_FB),
                    t(ATK_FB_DATA, aligned),
                ],
            );
            let e = allocate(0, 100, chained, false);
            assert_eq!(e as usize % 256, 0);
            // A block outlives its allocator's handle.
            destroy(null_fb);
            free(b);
            free(c);
            for p in [d, e] {
                free(p);
            }
            for h in [to_default, aligned, chained] {
                destroy(h);
            }
        }
    }

    #[test]
    fn realloc_keeps_the_bytes_and_the_old_block_on_failure() {
        let small = init(0, &[t(ATK_POOL_SIZE, 64), t(ATK_FALLBACK, ATV_NULL_FB)]);
        // SAFETY: allocators made here, blocks freed once.
        unsafe {
            let p = allocate(0, 32, small, false);
            for i in 0..32 {
                *p.add(i) = i as u8;
            }
            assert!(
                reallocate(p, 100, NULL_ALLOCATOR).is_null(),
                "over the pool"
            );
            assert_eq!(*p.add(31), 31, "the old block is kept");
            let q = reallocate(p, 100, DEFAULT_MEM_ALLOC);
            assert!(!q.is_null());
            assert!((0..32).all(|i| *q.add(i) == i as u8));
            // The pool got its 32 bytes back when the old block went.
            let r = allocate(0, 64, small, false);
            assert!(!r.is_null());
            assert!(reallocate(q, 0, NULL_ALLOCATOR).is_null());
            free(r);
            destroy(small);
        }
    }

    #[test]
    fn traits_outside_openmp_make_no_allocator() {
        for (memspace, traits, why) in [
            (9, vec![], "memory space"),
            (0, vec![t(99, 1)], "trait key"),
            (
                0,
                vec![t(ATK_ALIGNMENT, 24)],
                "24 is not a valid value of the alignment",
            ),
            (0, vec![t(ATK_FALLBACK, 2)], "fallback"),
            (0, vec![t(ATK_FALLBACK, ATV_ALLOCATOR_FB)], "fb_data"),
            (0, vec![t(ATK_PINNED, ATV_TRUE)], "pinned"),
            (0, vec![t(ATK_SYNC_HINT, 42)], "of the sync_hint trait"),
            (
                0,
                vec![t(ATK_PARTITION, ATV_TRUE)],
                "of the partition trait",
            ),
        ] {
            let e = check_traits(memspace, &traits).unwrap_err();
            assert!(e.contains(why), "{e}");
            assert_eq!(init(memspace, &traits), NULL_ALLOCATOR);
        }
        let ok = [
            t(ATK_SYNC_HINT, ATV_CONTENDED),
            t(ATK_ACCESS, ATV_ALL),
            t(ATK_PINNED, ATV_FALSE),
        ];
        assert!(check_traits(4, &ok).is_ok());
    }

    #[test]
    fn omp_allocator_is_parsed_and_bad_values_named() {
        assert_eq!(
            parse_allocator(" omp_high_bw_mem_alloc "),
            Ok(Spec::Predefined(4))
        );
        assert_eq!(
            parse_allocator("omp_low_lat_mem_space"),
            Ok(Spec::Made(4, vec![]))
        );
        let Ok(Spec::Made(0, traits)) = parse_allocator(
            "omp_default_mem_space:alignment=64, pool_size=4096,fallback=allocator_fb,\
             fb_data=omp_large_cap_mem_alloc",
        ) else {
            panic!("not parsed");
        };
        let a = check_traits(0, &traits).unwrap();
        assert_eq!(
            (a.align, a.pool, a.fallback),
            (64, Some(4096), Fallback::Other(2))
        );
        for (bad, says) in [
            ("omp_fast_mem_alloc", "expected a predefined allocator"),
            ("omp_default_mem_space:alignment", "expected name=value"),
            ("omp_default_mem_space:alignment=big", "not a number"),
            ("omp_default_mem_space:fallback=retry", "not one of"),
            (
                "omp_default_mem_space:fb_data=mine",
                "not a predefined allocator",
            ),
            ("omp_default_mem_space:colour=red", "not an allocator trait"),
        ] {
            let e = parse_allocator(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
