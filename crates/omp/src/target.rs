//! `target` constructs on a machine with no offload device: the host runs them, as
//! OpenMP's host fallback does and as libgomp does when it finds no device.
//!
//! A target region runs its outlined function on the encountering thread with the
//! mapped variables' own addresses (host and "device" memory are one), after copying
//! the `firstprivate` ones it names by address, as a fresh initial task (level 0, a team
//! of one, the initial ICVs), whatever region met it, as libgomp's host fallback runs it
//! on a cleared thread state; `nowait` makes it a task (deferred, with its `depend`
//! clauses), and `depend` without `nowait` waits for those dependences first. Inside,
//! `teams` runs its teams in turn (`GOMP_teams4`, as `teams.rs` does for host teams),
//! and a parallel region gets a team of its own. `target data`, `enter data`, `exit data` and
//! `update` move nothing; they only keep their `depend` clauses.
//!
//! The one device is the host, the default device unless `OMP_DEFAULT_DEVICE` or
//! `omp_set_default_device` names another number: with
//! `OMP_TARGET_OFFLOAD=mandatory`, a construct whose `device` clause (or, without one,
//! default-device-var) names another number ends the program, naming it, as libgomp
//! does; without, it runs on the host.
//!
//! The device memory routines see one device, the host (`omp_get_initial_device`, 0):
//! `omp_target_alloc` is `malloc` there and null for any other device number.

use crate::member::{self, Member, Team};
use crate::node::{Node, OutlinedFn};
use crate::task;
use std::alloc::{self, Layout};
use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering::Relaxed;

/// The low byte of a map kind (the high byte is its alignment's log2).
const MAP_KIND_MASK: u16 = 0xff;
/// `GOMP_MAP_FIRSTPRIVATE`: a private copy of `sizes[i]` bytes at `hostaddrs[i]`.
const MAP_FIRSTPRIVATE: u16 = 12;
/// `GOMP_TARGET_FLAG_NOWAIT`.
const FLAG_NOWAIT: u32 = 1;
// The target arguments' encoding (gomp-constants.h).
const ARG_DEVICE_MASK: isize = (1 << 7) - 1;
const ARG_DEVICE_ALL: isize = 0;
const ARG_SUBSEQUENT_PARAM: isize = 1 << 7;
const ARG_ID_MASK: isize = 0xff << 8;
const ARG_THREAD_LIMIT: isize = 2 << 8;
const ARG_VALUE_SHIFT: u32 = 16;

/// The one device: the host, numbered as OpenMP 5.1 numbers it (after the 0 others).
pub(crate) const HOST: c_int = 0;

/// A target region ready to run: its function, the addresses it reads (with the
/// firstprivate ones pointing at the region's own copies), and its thread limit.
struct Region {
    f: OutlinedFn,
    addrs: Vec<*mut c_void>,
    copies: Option<(*mut u8, Layout)>,
    thread_limit: usize,
}

impl Drop for Region {
    fn drop(&mut self) {
        if let Some((p, layout)) = self.copies {
            // SAFETY: allocated with this layout in `prepare`.
            unsafe { alloc::dealloc(p, layout) };
        }
    }
}

/// `device(...)`'s value when the clause is absent: default-device-var (`env.rs`).
const DEVICE_ICV: c_int = -1;
/// `GOMP_DEVICE_HOST_FALLBACK`: the host, asked for by the compiler.
const DEVICE_HOST_FALLBACK: c_int = -2;

/// A device number names a device locus has: the host. Another one runs on the host
/// too (OpenMP's fallback), unless `OMP_TARGET_OFFLOAD=mandatory`, which ends the
/// program, naming it, as libgomp does for a device it does not find.
fn check_device(what: &str, device: c_int) {
    let device = match device {
        DEVICE_ICV => crate::env::default_device(),
        d => d,
    };
    let host = matches!(device, DEVICE_HOST_FALLBACK | HOST);
    if !host && crate::env::settings().offload_mandatory {
        crate::env::fail(&format!(
            "OMP_TARGET_OFFLOAD=mandatory, but {what} asks for device {device}, and the only \
             device is the host ({HOST})"
        ));
    }
}

/// The `thread_limit` among GCC's target arguments (a null-terminated list), or 0.
///
/// # Safety
/// `args` is null or GCC's list.
unsafe fn thread_limit_of(mut args: *const *mut c_void) -> usize {
    if args.is_null() {
        return 0;
    }
    loop {
        // SAFETY: within the list, which ends with a null entry.
        let id = unsafe { *args } as isize;
        if id == 0 {
            return 0;
        }
        // SAFETY: as above.
        args = unsafe { args.add(1) };
        let value = if id & ARG_SUBSEQUENT_PARAM != 0 {
            // SAFETY: a subsequent parameter follows its id.
            let v = unsafe { *args } as isize;
            // SAFETY: as above.
            args = unsafe { args.add(1) };
            v
        } else {
            id >> ARG_VALUE_SHIFT
        };
        if id & ARG_DEVICE_MASK == ARG_DEVICE_ALL && id & ARG_ID_MASK == ARG_THREAD_LIMIT {
            return usize::try_from(value).unwrap_or(0);
        }
    }
}

/// Copies the region's addresses and its firstprivate data.
///
/// # Safety
/// GCC's arrays of `n` entries; every firstprivate entry has `sizes[i]` readable bytes.
unsafe fn prepare(
    f: OutlinedFn,
    n: usize,
    hostaddrs: *mut *mut c_void,
    sizes: *const usize,
    kinds: *const u16,
    args: *const *mut c_void,
) -> Region {
    let addrs: Vec<*mut c_void> = if n == 0 {
        Vec::new()
    } else {
        // SAFETY: `n` addresses (the caller's contract).
        unsafe { std::slice::from_raw_parts(hostaddrs, n) }.to_vec()
    };
    let private: Vec<(usize, usize, usize)> = (0..n)
        .filter_map(|i| {
            // SAFETY: `n` kinds and sizes.
            let (kind, size) = unsafe { (*kinds.add(i), *sizes.add(i)) };
            (kind & MAP_KIND_MASK == MAP_FIRSTPRIVATE)
                .then(|| (i, size, 1usize << (kind >> 8).min(31)))
        })
        .collect();
    let mut region = Region {
        f,
        addrs,
        copies: None,
        // SAFETY: GCC's list (the caller's contract).
        thread_limit: unsafe { thread_limit_of(args) },
    };
    if private.is_empty() {
        return region;
    }
    let mut offsets = Vec::with_capacity(private.len());
    let mut end = 0usize;
    let mut align = 1usize;
    for &(_, size, a) in &private {
        let at = end.next_multiple_of(a);
        offsets.push(at);
        end = at + size;
        align = align.max(a);
    }
    let layout = Layout::from_size_align(end.max(1), align)
        .unwrap_or_else(|_| crate::env::fail("a target region's firstprivate data is too large"));
    // SAFETY: a nonzero size.
    let block = unsafe { alloc::alloc(layout) };
    if block.is_null() {
        alloc::handle_alloc_error(layout);
    }
    for (&(i, size, _), &at) in private.iter().zip(&offsets) {
        // SAFETY: `size` readable bytes at the variable (the caller's contract), into
        // the block's room for them.
        unsafe {
            let copy = block.add(at);
            std::ptr::copy_nonoverlapping(region.addrs[i].cast::<u8>(), copy, size);
            region.addrs[i] = copy.cast();
        }
    }
    region.copies = Some((block, layout));
    region
}

/// Runs a target region here.
///
/// # Safety
/// The region's function reads the addresses it was prepared with.
unsafe fn run(region: &mut Region) {
    let (f, addrs) = (region.f, region.addrs.as_mut_ptr().cast());
    // SAFETY: the program's outlined target region and its addresses.
    as_initial_task(f, region.thread_limit, || unsafe { f(addrs) });
}

/// Runs `body`, a target region's (whose function is `f`), as the host fallback runs it:
/// as a fresh initial task, whatever region met it (level 0, a team of one, the
/// initial ICVs), with the region's thread limit (0: none) kept where the regions inside
/// look for it, in its member's league. Its tasks run at once, as in any team of one,
/// and are done when it returns.
fn as_initial_task(f: OutlinedFn, thread_limit: usize, body: impl FnOnce()) {
    let team = Team::new(1, None);
    let node = Node::implicit(f as usize as u64, 0, true, member::initial_nthreads());
    let m = Member::new(&team, 0, &node, None);
    if thread_limit > 0 {
        m.league.thread_limit.store(thread_limit, Relaxed);
    }
    member::with_member(&m, || {
        body();
        node.wait_for_descendants();
    });
}

/// The task a `nowait` target region runs as: its data is the region, boxed.
unsafe extern "C" fn run_task(data: *mut c_void) {
    // SAFETY: the task's data is the pointer `target` boxed, taken once, here.
    let mut region = unsafe { Box::from_raw(*data.cast::<*mut Region>()) };
    // SAFETY: prepared for this function.
    unsafe { run(&mut region) };
}

/// `GOMP_target_ext`.
///
/// # Safety
/// GCC's arguments for a target construct.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn target(
    device: c_int,
    f: OutlinedFn,
    n: usize,
    hostaddrs: *mut *mut c_void,
    sizes: *const usize,
    kinds: *const u16,
    flags: u32,
    depend: *mut *mut c_void,
    args: *const *mut c_void,
) {
    check_device("a target region", device);
    // SAFETY: GCC's arrays (the caller's contract).
    let region = unsafe { prepare(f, n, hostaddrs, sizes, kinds, args) };
    if flags & FLAG_NOWAIT != 0 {
        let boxed = Box::into_raw(Box::new(region));
        let mut data = boxed;
        // SAFETY: a task whose data is the boxed region's pointer, copied at spawn.
        unsafe {
            task::task(task::Spawn {
                f: run_task,
                data: (&raw mut data).cast(),
                cpyfn: None,
                arg_size: std::mem::size_of::<*mut Region>(),
                arg_align: std::mem::align_of::<*mut Region>(),
                if_clause: true,
                flags: if depend.is_null() {
                    0
                } else {
                    task::FLAG_DEPEND
                },
                depend,
                range: None,
                detach: std::ptr::null_mut(),
            })
        }
        return;
    }
    let mut region = region;
    if !depend.is_null() {
        // SAFETY: GCC's dependence array.
        unsafe { task::taskwait_depend(depend) };
    }
    // SAFETY: prepared for this function.
    unsafe { run(&mut region) };
}

/// `GOMP_target` (GCC before 6): no firstprivate, no `nowait`.
///
/// # Safety
/// GCC's arguments for a target construct.
pub(crate) unsafe fn target_v4(device: c_int, f: OutlinedFn, hostaddrs: *mut *mut c_void) {
    check_device("a target region", device);
    // SAFETY: the program's outlined target region and its addresses.
    as_initial_task(f, 0, || unsafe { f(hostaddrs.cast()) });
}

/// `target data`, `enter data`, `exit data` and `update`: nothing to move; the
/// dependences are kept, by a task (`nowait`) or by waiting.
///
/// # Safety
/// `depend` is null or GCC's dependence array.
pub(crate) unsafe fn data(what: &str, device: c_int, flags: u32, depend: *mut *mut c_void) {
    check_device(what, device);
    if depend.is_null() {
        return;
    }
    // SAFETY: GCC's dependence array.
    unsafe { task::empty_task(depend, flags & FLAG_NOWAIT != 0) }
}

/// `GOMP_teams4`: the loop over a target region's teams, one after another (see
/// `teams.rs`); true while a team is to run.
pub(crate) fn teams4(low: u32, thread_limit: u32, first: bool) -> bool {
    let m = member::member();
    let league = &m.league;
    if first {
        let n = match low {
            0 => crate::env::max_teams().max(1) as u32,
            n => n,
        };
        league.start(n, thread_limit as usize);
        return true;
    }
    league.next()
}

/// `GOMP_teams` (GCC before 12, inside a target region): one team, its thread limit.
pub(crate) fn teams_v4(thread_limit: u32) {
    if thread_limit > 0 {
        member::member()
            .league
            .thread_limit
            .store(thread_limit as usize, Relaxed);
    }
}

/// `omp_target_alloc`: host memory for the host; null for another device.
pub(crate) fn device_alloc(size: usize, device: c_int) -> *mut c_void {
    if device != HOST || size == 0 {
        return std::ptr::null_mut();
    }
    // SAFETY: plain malloc, freed by `device_free`.
    unsafe { libc::malloc(size) }
}

/// `omp_target_free`.
///
/// # Safety
/// `p` is null or from `device_alloc` for `device`, freed once.
pub(crate) unsafe fn device_free(p: *mut c_void, device: c_int) {
    if device == HOST {
        // SAFETY: the caller's contract.
        unsafe { libc::free(p) };
    }
}

/// The one step of `omp_target_memcpy_rect`: copies `volume[0] x ... ` elements of
/// `dims` dimensions between the two arrays.
///
/// # Safety
/// Every array holds `dims` entries, and the rectangles lie inside both arrays.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_rect(
    dst: *mut u8,
    src: *const u8,
    elem: usize,
    dims: usize,
    volume: *const usize,
    dst_off: *const usize,
    src_off: *const usize,
    dst_dims: *const usize,
    src_dims: *const usize,
) -> Option<()> {
    // SAFETY: `dims` entries each (the caller's contract), read from the first.
    let (vol, doff, soff) = unsafe { (*volume, *dst_off, *src_off) };
    if dims == 1 {
        let len = vol.checked_mul(elem)?;
        // SAFETY: inside both arrays (the caller's contract).
        unsafe {
            std::ptr::copy(
                src.add(soff.checked_mul(elem)?),
                dst.add(doff.checked_mul(elem)?),
                len,
            )
        };
        return Some(());
    }
    // The bytes of one step along the first dimension: the product of the others.
    let stride = |d: *const usize| -> Option<usize> {
        (1..dims).try_fold(elem, |acc, i| {
            // SAFETY: `dims` entries.
            acc.checked_mul(unsafe { *d.add(i) })
        })
    };
    let (dstride, sstride) = (stride(dst_dims)?, stride(src_dims)?);
    for j in 0..vol {
        // SAFETY: row `doff + j` of the destination and `soff + j` of the source, inside
        // both (the caller's contract); the rest of each array shifts by one entry.
        unsafe {
            copy_rect(
                dst.add((doff + j).checked_mul(dstride)?),
                src.add((soff + j).checked_mul(sstride)?),
                elem,
                dims - 1,
                volume.add(1),
                dst_off.add(1),
                src_off.add(1),
                dst_dims.add(1),
                src_dims.add(1),
            )?
        };
    }
    Some(())
}

/// `omp_target_memcpy_rect`: the most dimensions it copies when both arrays are null;
/// 0 on success, `EINVAL` for a device but the host or sizes that overflow.
///
/// # Safety
/// As for [`copy_rect`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn memcpy_rect(
    dst: *mut c_void,
    src: *const c_void,
    elem: usize,
    dims: c_int,
    volume: *const usize,
    dst_off: *const usize,
    src_off: *const usize,
    dst_dims: *const usize,
    src_dims: *const usize,
    dst_device: c_int,
    src_device: c_int,
) -> c_int {
    /// The most dimensions locus copies (as many as anyone needs: it recurses per
    /// dimension).
    const MAX_DIMS: c_int = 64;
    if dst.is_null() && src.is_null() {
        return MAX_DIMS;
    }
    if dst.is_null() || src.is_null() || !(1..=MAX_DIMS).contains(&dims) {
        return libc::EINVAL;
    }
    if dst_device != HOST || src_device != HOST {
        return libc::EINVAL;
    }
    // SAFETY: the caller's contract.
    let done = unsafe {
        copy_rect(
            dst.cast(),
            src.cast(),
            elem,
            dims as usize,
            volume,
            dst_off,
            src_off,
            dst_dims,
            src_dims,
        )
    };
    if done.is_some() {
        0
    } else {
        libc::EINVAL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_limit_is_read_from_either_encoding() {
        let inline = [
            (5isize << ARG_VALUE_SHIFT | ARG_THREAD_LIMIT) as *mut c_void,
            std::ptr::null_mut(),
        ];
        // SAFETY: null-terminated lists.
        unsafe {
            assert_eq!(thread_limit_of(inline.as_ptr()), 5);
            let subsequent = [
                (1isize << 8 | ARG_SUBSEQUENT_PARAM) as *mut c_void,
                7usize as *mut c_void,
                (ARG_THREAD_LIMIT | ARG_SUBSEQUENT_PARAM) as *mut c_void,
                100_000usize as *mut c_void,
                std::ptr::null_mut(),
            ];
            assert_eq!(thread_limit_of(subsequent.as_ptr()), 100_000);
            // Another device's limit is not the host's.
            let other = [
                (3 << ARG_VALUE_SHIFT | ARG_THREAD_LIMIT | 5) as *mut c_void,
                std::ptr::null_mut(),
            ];
            assert_eq!(thread_limit_of(other.as_ptr()), 0);
            assert_eq!(thread_limit_of(std::ptr::null()), 0);
        }
    }

    #[test]
    fn firstprivate_entries_get_aligned_copies_and_the_rest_their_own_address() {
        unsafe extern "C" fn never(_: *mut c_void) {}
        let mut shared = [1u64, 2, 3];
        let mut private = [9u32; 5];
        let mut addrs = [
            shared.as_mut_ptr().cast::<c_void>(),
            private.as_mut_ptr().cast(),
        ];
        let sizes = [24usize, 20];
        let kinds = [3u16, MAP_FIRSTPRIVATE | 6 << 8];
        // SAFETY: two entries, the firstprivate one with 20 readable bytes.
        let region = unsafe {
            prepare(
                never,
                2,
                addrs.as_mut_ptr(),
                sizes.as_ptr(),
                kinds.as_ptr(),
                std::ptr::null(),
            )
        };
        assert_eq!(region.addrs[0], shared.as_mut_ptr().cast());
        let copy = region.addrs[1];
        assert_ne!(copy, private.as_mut_ptr().cast());
        assert_eq!(copy as usize % 64, 0);
        // SAFETY: the copy holds 20 bytes.
        let copied = unsafe { std::slice::from_raw_parts(copy.cast::<u32>(), 5) };
        assert_eq!(copied, &private);
    }

    #[test]
    fn a_rectangle_is_copied_between_two_arrays() {
        // A 2 x 3 block from (1, 2) of a 4 x 5 array to (0, 1) of a 3 x 4 one.
        let src: Vec<u32> = (0..20).collect();
        let mut dst = vec![0u32; 12];
        let (volume, src_off, dst_off) = ([2usize, 3], [1usize, 2], [0usize, 1]);
        let (src_dims, dst_dims) = ([4usize, 5], [3usize, 4]);
        let mut copy = |dst_device| {
            // SAFETY: both rectangles inside their arrays.
            unsafe {
                memcpy_rect(
                    dst.as_mut_ptr().cast(),
                    src.as_ptr().cast(),
                    4,
                    2,
                    volume.as_ptr(),
                    dst_off.as_ptr(),
                    src_off.as_ptr(),
                    dst_dims.as_ptr(),
                    src_dims.as_ptr(),
                    dst_device,
                    HOST,
                )
            }
        };
        assert_eq!(copy(1), libc::EINVAL, "a device but the host");
        assert_eq!(copy(HOST), 0);
        assert_eq!(dst, [0, 7, 8, 9, 0, 12, 13, 14, 0, 0, 0, 0]);
        let null: *const usize = std::ptr::null();
        // SAFETY: null arrays ask for the most dimensions, reading nothing.
        let most = unsafe {
            memcpy_rect(
                std::ptr::null_mut(),
                null.cast(),
                4,
                0,
                null,
                null,
                null,
                null,
                null,
                HOST,
                HOST,
            )
        };
        assert!(most >= 3);
    }
}
