//! Worksharing constructs: the loops (`GOMP_loop_*_start/_next/_end`, the `_ull` forms
//! and the combined `GOMP_parallel_loop_*`), `sections` and `single copyprivate`.
//!
//! Every member of a team meets the team's loops in the same order, so the `k`-th loop a
//! member starts is the team's `k`-th: the first member to start it makes its
//! [`WorkShare`] (under the team's lock) and the others find it by `k`; the last member
//! to end it removes it. A loop is dealt in iteration numbers `0..n` (the value of
//! iteration `i` is `start + i * incr`):
//! - static: member `t` takes chunks `t`, `t + size`, ... (one block each if no chunk);
//! - dynamic: each `next` takes the next `chunk` iterations (`fetch_add`);
//! - guided: each `next` takes max(remaining / size, chunk) (compare-exchange);
//!
//! the nonmonotonic forms deal as the plain ones, which OpenMP allows. `runtime`
//! follows `omp_set_schedule`, else `OMP_SCHEDULE` (dynamic,1 if unset). An `unsigned long long` loop is dealt
//! the same way: values are 64-bit words, iteration `i`'s `start + i * incr` wrapping.
//!
//! A loop with an `ordered` clause passes a turn along its iterations: the record holds
//! the first iteration whose `ordered` block may run (`turn`); `GOMP_ordered_start`
//! waits until the turn reaches the first iteration of the member's chunk, and a member
//! done with a chunk (taking the next, or ending the loop) waits for the turn to reach
//! it, then moves it past the chunk. Chunks are dealt in iteration order, so the
//! earliest unfinished one is always held by a running member.
//!
//! A doacross loop (`ordered(n)` with `depend(sink: ...)` and `depend(source)`) is dealt
//! over the logical iterations of its first ordered dimension (GCC passes every
//! dimension's trip count and speaks in logical iteration numbers); a guided one is dealt
//! as dynamic, so that every chunk but the last has the same length. Its [`Doacross`]
//! keeps, per chunk (which one member runs in order), one more than the flattened
//! number of the last iteration vector posted there: `depend(source)` raises it, and a
//! `depend(sink: v)` waits until it reaches past `v`. Chunks are dealt in iteration
//! order and sinks name earlier iterations, so the earliest unfinished iteration can
//! always go on.
//!
//! A doacross loop may have any number of ordered dimensions (GCC passes the sink
//! vectors of `GOMP_doacross_wait` as variadic arguments, which `abi/doacross.rs` reads as
//! far as the loop has dimensions).
//!
//! A construct may carry scratch memory shared by its members ([`scratch`]: GCC 9's
//! `mem` argument, for `scan` and `lastprivate(conditional:)`): made zeroed by the
//! first member that asks, in the construct's record, so it lives until the last
//! member ends the construct, as libgomp keeps it in its work share.
//!
//! `sections` is a dynamic loop of chunk 1 over the section numbers `1..=count`.
//! `single copyprivate` is a loop of one iteration: the member dealt it runs the
//! `single`, publishes its data's address in the record and joins the others at the
//! team's barrier, where they wait; they read the address and copy, and all meet at
//! the barrier GCC emits after the copy, so the executor's data outlives the copies.

use crate::member::Member;
use crate::schedule::{Kind, Schedule};
use crate::team;
use crate::workshare::{Doacross, WorkShare, MAX_SCRATCH};
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The number of iterations of `for (i = start; i < end (or > end); i += incr)`.
pub(crate) fn trip_count(start: i64, end: i64, incr: i64) -> u64 {
    let (start, end, incr) = (i128::from(start), i128::from(end), i128::from(incr));
    let n = if incr > 0 && end > start {
        (end - start + incr - 1) / incr
    } else if incr < 0 && end < start {
        (start - end - incr - 1) / -incr
    } else {
        0
    };
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The number of iterations of an `unsigned long long` loop, upwards (`i < end`) if
/// `up`, else downwards (`i > end`) by the two's complement negative `incr`.
pub(crate) fn trip_count_ull(up: bool, start: u64, end: u64, incr: u64) -> u64 {
    let (start, end) = (u128::from(start), u128::from(end));
    let n = if up && end > start && incr != 0 {
        (end - start).div_ceil(u128::from(incr))
    } else if !up && end < start && incr != 0 {
        let down = u128::from(incr.wrapping_neg());
        (start - end).div_ceil(down)
    } else {
        0
    };
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Starts this member's next loop, `for (i = start; i < end (or > end); i += incr)`
/// over `long`s (making it if this member is the first), and makes it the member's
/// current loop.
pub(crate) fn start(m: &Member, schedule: Schedule, start: i64, end: i64, incr: i64) {
    let n = if incr == 0 {
        0
    } else {
        trip_count(start, end, incr)
    };
    start_n(m, schedule, start as u64, incr as u64, n);
}

/// As [`start`] for a loop with an `ordered` clause.
pub(crate) fn start_ordered(m: &Member, schedule: Schedule, start: i64, end: i64, incr: i64) {
    self::start(m, schedule, start, end, incr);
    m.ordered.set(true);
}

/// As [`start`] for an `unsigned long long` loop, upwards if `up`; `ordered` if it has
/// an `ordered` clause.
pub(crate) fn start_ull(
    m: &Member,
    schedule: Schedule,
    ordered: bool,
    up: bool,
    start: u64,
    end: u64,
    incr: u64,
) {
    start_n(
        m,
        schedule,
        start,
        incr,
        trip_count_ull(up, start, end, incr),
    );
    m.ordered.set(ordered);
}

/// Starts this member's next loop of `n` iterations from `start` by `incr` (not
/// ordered).
fn start_n(m: &Member, schedule: Schedule, start: u64, incr: u64, n: u64) {
    start_work(m, schedule, start, incr, n, None);
}

/// Starts this member's next loop: a doacross loop over the trip counts `counts` of its
/// ordered dimensions (dealt over the first, in logical iteration numbers).
pub(crate) fn start_doacross(m: &Member, schedule: Schedule, counts: &[u64]) {
    if counts.is_empty() {
        crate::env::fail("a doacross loop of no ordered dimension");
    }
    let schedule = match schedule.kind {
        Kind::Guided => Schedule {
            kind: Kind::Dynamic,
            chunk: schedule.chunk,
        },
        _ => schedule,
    };
    start_work(m, schedule, 0, 1, counts[0], Some(counts));
}

fn start_work(
    m: &Member,
    schedule: Schedule,
    start: u64,
    incr: u64,
    n: u64,
    doacross: Option<&[u64]>,
) {
    m.ordered.set(false);
    m.ordered_chunk.set(None);
    let key = m.loops.get() + 1;
    m.loops.set(key);
    let team = m.team();
    let work = {
        let mut works = team.works.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(works.entry(key).or_insert_with(|| {
            let chunk = match (schedule.kind, schedule.chunk) {
                (Kind::Static, c) => c,
                (_, 0) => 1,
                (_, c) => c,
            };
            let doacross = doacross.map(|counts| {
                // A static loop without a chunk is dealt in one block per member.
                let span = if chunk == 0 {
                    n.div_ceil(team.size as u64)
                } else {
                    chunk
                };
                Doacross::new(counts, span).unwrap_or_else(|e| crate::env::fail(&e))
            });
            Arc::new(WorkShare {
                key,
                start,
                incr,
                n,
                kind: schedule.kind,
                chunk,
                next: AtomicU64::new(0),
                left: AtomicUsize::new(team.size),
                copy: AtomicPtr::new(std::ptr::null_mut()),
                turn: AtomicU64::new(0),
                doacross,
                reductions_claimed: std::sync::atomic::AtomicBool::new(false),
                reductions: AtomicUsize::new(0),
                scratch: OnceLock::new(),
            })
        }))
    };
    *m.work.borrow_mut() = Some(work);
    m.static_taken.set(0);
}

/// Deals this member its next chunk of the current loop: the values `[*istart,
/// *iend)` in the loop's direction; false when the loop is exhausted.
pub(crate) fn next(m: &Member, istart: &mut i64, iend: &mut i64) -> bool {
    let Some((lo, hi)) = next_values(m) else {
        return false;
    };
    (*istart, *iend) = (lo as i64, hi as i64);
    true
}

/// As [`next`] for an `unsigned long long` loop.
pub(crate) fn next_ull(m: &Member, istart: &mut u64, iend: &mut u64) -> bool {
    let Some((lo, hi)) = next_values(m) else {
        return false;
    };
    (*istart, *iend) = (lo, hi);
    true
}

/// This member's next chunk of its current loop, as values (64-bit words).
fn next_values(m: &Member) -> Option<(u64, u64)> {
    let work = m.work.borrow();
    let w = work.as_ref()?;
    if m.ordered.get() {
        pass_turn(m, w);
    }
    let (lo, hi) = next_chunk(m, w)?;
    if m.ordered.get() {
        m.ordered_chunk.set(Some((lo, hi)));
    }
    let value = |i: u64| w.start.wrapping_add(i.wrapping_mul(w.incr));
    Some((value(lo), value(hi)))
}

/// This member's next chunk of its current loop `w`, as iteration numbers `[lo, hi)`.
fn next_chunk(m: &Member, w: &WorkShare) -> Option<(u64, u64)> {
    let size = m.team().size as u64;
    let (lo, hi) = match w.kind {
        Kind::Static if w.chunk == 0 => {
            if m.static_taken.replace(1) > 0 {
                return None;
            }
            let block = w.n.div_ceil(size);
            let lo = (m.num as u64).saturating_mul(block);
            (lo, lo.saturating_add(block).min(w.n))
        }
        Kind::Static => {
            let k = m.static_taken.get();
            m.static_taken.set(k + 1);
            let index = (m.num as u64).saturating_add(k.saturating_mul(size));
            let lo = index.saturating_mul(w.chunk);
            (lo, lo.saturating_add(w.chunk).min(w.n))
        }
        Kind::Dynamic => {
            if w.next.load(Ordering::Relaxed) >= w.n {
                return None;
            }
            let lo = w.next.fetch_add(w.chunk, Ordering::Relaxed);
            (lo, lo.saturating_add(w.chunk).min(w.n))
        }
        Kind::Guided => {
            let mut lo = w.next.load(Ordering::Relaxed);
            loop {
                if lo >= w.n {
                    return None;
                }
                let left = w.n - lo;
                let take = left.div_ceil(size).max(w.chunk).min(left);
                match w.next.compare_exchange_weak(
                    lo,
                    lo + take,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break (lo, lo + take),
                    Err(now) => lo = now,
                }
            }
        }
    };
    (lo < hi).then_some((lo, hi))
}

/// `GOMP_doacross_post`: iteration vector `v` of this member's doacross loop has
/// reached its `depend(source)`.
pub(crate) fn doacross_post(m: &Member, v: &[u64]) {
    let work = m.work.borrow();
    let Some(d) = work.as_ref().and_then(|w| w.doacross.as_ref()) else {
        crate::env::fail("GOMP_doacross_post outside a doacross loop");
    };
    if let Some((entry, number)) = d.locate(v) {
        // Release: what the iteration wrote happens before its sinks' waits end.
        entry.fetch_max(number, Ordering::Release);
    }
}

/// The number of ordered dimensions of this member's doacross loop.
pub(crate) fn doacross_dims(m: &Member) -> usize {
    let work = m.work.borrow();
    match work.as_ref().and_then(|w| w.doacross.as_ref()) {
        Some(d) => d.counts.len(),
        None => crate::env::fail("GOMP_doacross_wait outside a doacross loop"),
    }
}

/// `GOMP_doacross_wait`: waits until iteration vector `v` of this member's doacross
/// loop has posted (at once if `v` lies outside the loop).
pub(crate) fn doacross_wait(m: &Member, v: &[u64]) {
    let work = m.work.borrow();
    let Some(d) = work.as_ref().and_then(|w| w.doacross.as_ref()) else {
        crate::env::fail("GOMP_doacross_wait outside a doacross loop");
    };
    if let Some((entry, number)) = d.locate(v) {
        // Acquire: pairs with the post's Release. The poster is a running member, which
        // needs no task of this thread to go on, so the wait runs none.
        locus::raw::spin_until(|| entry.load(Ordering::Acquire) >= number);
    }
}

/// `GOMP_ordered_start`: waits until every iteration before this member's chunk has
/// run its `ordered` block (its own earlier iterations ran before, on this thread).
pub(crate) fn ordered_start(m: &Member) {
    let Some((lo, _)) = m.ordered_chunk.get() else {
        return;
    };
    if let Some(w) = m.work.borrow().as_ref() {
        // Acquire: pairs with the Release store in `pass_turn`.
        crate::member::wait_until(|| w.turn.load(Ordering::Acquire) == lo);
    }
}

/// This member is done with its chunk of ordered loop `w` (if it has one): once the turn
/// reaches the chunk, it moves past it.
fn pass_turn(m: &Member, w: &WorkShare) {
    if let Some((lo, hi)) = m.ordered_chunk.take() {
        // Acquire/Release: the ordered blocks before the turn happen before those after.
        crate::member::wait_until(|| w.turn.load(Ordering::Acquire) == lo);
        w.turn.store(hi, Ordering::Release);
        // Whoever makes a waiter's condition true wakes it (`member::wait_until`).
        crate::member::wake_all();
    }
}

/// `GOMP_loop_end_nowait`: this member is done with its current loop.
pub(crate) fn end_nowait(m: &Member) {
    if let Some(w) = m.work.borrow().as_ref() {
        pass_turn(m, w);
    }
    if let Some(w) = m.work.borrow_mut().take() {
        if w.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            let mut works = m.team().works.lock().unwrap_or_else(|e| e.into_inner());
            works.remove(&w.key);
        }
    }
}

/// `GOMP_loop_end`: the member's loop ends, then the team's barrier.
pub(crate) fn end(m: &Member) {
    end_nowait(m);
    team::barrier();
}

/// A section at a time: dynamic, chunk 1.
const SECTIONS: Schedule = Schedule {
    kind: Kind::Dynamic,
    chunk: 1,
};

/// Starts this member's next `sections` construct of `count` sections (without dealing).
pub(crate) fn sections_init(m: &Member, count: u32) {
    start_n(m, SECTIONS, 1, 1, u64::from(count));
}

/// The construct this member is in (its current loop, sections or scope).
pub(crate) fn current_work(m: &Member) -> Option<Arc<WorkShare>> {
    m.work.borrow().clone()
}

/// The scratch memory of this member's current construct: `size` bytes, zeroed when
/// made, aligned to 8 (a `long long`'s alignment, as libgomp gives), the same block for
/// every member, live until the last member ends the construct. GCC keeps there what
/// the members exchange: a `scan`'s partial sums, the last iteration that wrote a
/// `lastprivate(conditional:)` variable.
pub(crate) fn scratch(m: &Member, size: usize) -> Result<*mut c_void, String> {
    if size > MAX_SCRATCH {
        return Err(format!(
            "a worksharing construct's scratch memory of {size} bytes (at most {MAX_SCRATCH})"
        ));
    }
    let work = m.work.borrow();
    let Some(w) = work.as_ref() else {
        return Err("scratch memory asked for outside a worksharing construct".into());
    };
    let block = w
        .scratch
        .get_or_init(|| (0..size.div_ceil(8)).map(|_| AtomicU64::new(0)).collect());
    if block.len() * 8 < size {
        return Err(format!(
            "members of one construct asked for {} and {size} bytes of scratch memory",
            block.len() * 8
        ));
    }
    // The program writes the block through this pointer: the atomics' cells allow it,
    // and the team's barriers order the members' accesses, as under libgomp.
    Ok(block.as_ptr().cast_mut().cast())
}

/// `GOMP_scope_start`: a construct every member runs whole, started as an empty loop so
/// that its members share a record (for its task reductions).
pub(crate) fn scope_start(m: &Member) {
    start_n(m, SECTIONS, 0, 1, 0);
}

/// `GOMP_sections_start`: starts the construct and deals this member its first section.
pub(crate) fn sections_start(m: &Member, count: u32) -> u32 {
    sections_init(m, count);
    sections_next(m)
}

/// `GOMP_sections_next`: the number of this member's next section, 0 when none is left.
pub(crate) fn sections_next(m: &Member) -> u32 {
    // Section numbers are 1..=count, a u32's.
    next_values(m).map_or(0, |(number, _)| number as u32)
}

/// `GOMP_single_copy_start`: null for the member that runs the `single`; for the others,
/// once it has, the address it gave to [`single_copy_end`].
pub(crate) fn single_copy_start(m: &Member) -> *mut c_void {
    start_n(m, SECTIONS, 0, 1, 1);
    if next_values(m).is_some() {
        return std::ptr::null_mut();
    }
    team::barrier();
    // Relaxed: the barrier orders the executor's store (before its arrival) before this.
    let data = m
        .work
        .borrow()
        .as_ref()
        .map_or(std::ptr::null_mut(), |w| w.copy.load(Ordering::Relaxed));
    end_nowait(m);
    data
}

/// `GOMP_single_copy_end`: the executor publishes `data`, then meets the others at the
/// barrier they wait at in [`single_copy_start`].
pub(crate) fn single_copy_end(m: &Member, data: *mut c_void) {
    if let Some(w) = m.work.borrow().as_ref() {
        // Relaxed: published by the barrier's SeqCst arrival.
        w.copy.store(data, Ordering::Relaxed);
    }
    team::barrier();
    end_nowait(m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doacross_vectors_are_numbered_in_order_per_chunk() {
        // 10 x 3 x 4 iterations, chunks of 4 outer iterations.
        let d = Doacross::new(&[10, 3, 4], 4).unwrap();
        assert_eq!(d.posted.len(), 3);
        let number = |v: &[u64]| d.locate(v).map(|(_, n)| n);
        assert_eq!(number(&[0, 0, 0]), Some(1));
        assert_eq!(number(&[0, 0, 3]), Some(4));
        assert_eq!(number(&[0, 1, 0]), Some(5));
        assert_eq!(number(&[2, 2, 3]), Some(36));
        // The entry is the outer iteration's chunk.
        let entry = |v: &[u64]| d.locate(v).map(|(e, _)| e as *const AtomicU64);
        assert_eq!(entry(&[3, 0, 0]), entry(&[0, 2, 1]));
        assert_ne!(entry(&[4, 0, 0]), entry(&[3, 2, 3]));
        assert_eq!(entry(&[9, 2, 3]), Some(&d.posted[2] as *const AtomicU64));
        // Sinks outside the space, and vectors of the wrong length, are ignored.
        for v in [
            &[10, 0, 0][..],
            &[0, 3, 0],
            &[0, 0, 4],
            &[0, 0],
            &[u64::MAX, 0, 0],
        ] {
            assert!(d.locate(v).is_none(), "{v:?}");
        }
        // A post raises the entry; a wait for a later vector of the chunk is not met.
        let (e, n) = d.locate(&[1, 2, 0]).unwrap();
        e.fetch_max(n, Ordering::Release);
        assert!(e.load(Ordering::Acquire) >= d.locate(&[0, 2, 3]).unwrap().1);
        assert!(e.load(Ordering::Acquire) < d.locate(&[1, 2, 1]).unwrap().1);
    }

    #[test]
    fn doacross_loops_past_64_bits_are_refused() {
        let e = Doacross::new(&[u64::MAX / 2, 3], 1).unwrap_err();
        assert!(e.contains("more than 2^64"), "{e}");
        assert!(Doacross::new(&[1 << 20, 1 << 20, 1 << 30], 1 << 20).is_err());
        assert_eq!(Doacross::new(&[5], 0).unwrap().posted.len(), 5);
    }

    #[test]
    fn doacross_counts_after_a_zero_are_not_read() {
        // GCC leaves them unset when a collapsed or inner loop has no iteration.
        let d = Doacross::new(&[3, 0, u64::MAX / 3, 1 << 40], 1).unwrap();
        assert_eq!(&d.counts[..], &[3, 0, 0, 0]);
        let d = Doacross::new(&[0, 140_403_411_818_176, 261_504], 15).unwrap();
        assert_eq!(&d.counts[..], &[0, 0, 0]);
        assert!(d.posted.is_empty());
        assert!(d.locate(&[0, 0, 0]).is_none());
    }

    #[test]
    fn trip_counts_follow_the_loop_direction() {
        assert_eq!(trip_count(0, 10, 1), 10);
        assert_eq!(trip_count(0, 10, 3), 4);
        assert_eq!(trip_count(10, 0, -3), 4);
        assert_eq!(trip_count(5, 5, 1), 0);
        assert_eq!(trip_count(5, 0, 1), 0);
        assert_eq!(trip_count(i64::MIN, i64::MAX, 1), u64::MAX);
        assert_eq!(trip_count_ull(true, 0, 10, 3), 4);
        assert_eq!(trip_count_ull(false, 10, 0, 3u64.wrapping_neg()), 4);
        assert_eq!(trip_count_ull(true, 10, 0, 1), 0);
        assert_eq!(trip_count_ull(false, 0, 10, 1u64.wrapping_neg()), 0);
        assert_eq!(trip_count_ull(true, 0, u64::MAX, 1), u64::MAX);
    }

    #[test]
    fn schedules_parse_and_bad_ones_are_refused() {
        let s = Schedule::parse("nonmonotonic:guided, 7").unwrap();
        assert_eq!((s.kind, s.chunk), (Kind::Guided, 7));
        assert_eq!(Schedule::parse("auto").unwrap().kind, Kind::Static);
        assert!(Schedule::parse("dynamic,-1").is_err());
        assert!(Schedule::parse("eager").is_err());
    }
}
