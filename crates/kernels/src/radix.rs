//! `radix`: the partitioned most-significant-digit-first radix sort of the
//! affinity-graph paper (Song, Moore and Dongarra, HPDC'07, Sections 4.3 and 5.4, after
//! Lee et al., "Partitioned parallel radix sort", JPDC 2002), on `n` seeded random
//! 32-bit keys, run `iters` times from the same input.
//!
//! Digits are [`DIGIT_BITS`] = 8 bits (the paper's `r = 8`), so a key has four. One sort:
//!
//! 1. **Histograms** (a loop of `grain`-key chunks): chunk `c` counts the top digits of
//!    its keys into its own row of a `chunks x 256` table: the paper's local histogram.
//! 2. **Offsets** (the task running the sort, serially: 256 entries per chunk): the
//!    start of each bucket (top digit), and within it where each chunk's keys go.
//! 3. **Scatter** (the main loop, the same chunks): chunk `c` writes each of its keys to
//!    its bucket's place in the buffer. Most writes land in other chunks' parts of the
//!    array: the key exchange whose placement the paper's schedule optimises.
//! 4. **Buckets** (a loop of one bucket per task, 256 tasks): each bucket is sorted on
//!    its own by three least-significant-digit passes over the remaining 24 bits,
//!    between the buffer and the output array ("the rest of sorting is always confined
//!    locally"). The third pass leaves the bucket in the output.
//!
//! The input is never written, so every iteration repeats the same work. Loops 1 and 4
//! run in the two halves of a join (`chunks::side_loop`), so the histogram,
//! scatter and bucket tasks have distinct ids, each the same in every iteration. The
//! buffer is an array of `AtomicU32` because the scatter's chunks write anywhere in it
//! (Relaxed stores: the loop's end orders them before the buckets read).
//!
//! Footprints, declared per task and iteration while a listener is installed: a
//! histogram chunk reads its keys and writes its table row; the offsets step reads the
//! table and writes the offsets; a scatter chunk reads its keys and its offsets row and
//! writes, for each digit it holds, the range of the buffer its keys of that digit fill;
//! a bucket task writes (reads and writes) its range of the buffer and writes its range
//! of the output. Work, declared with them: [`HIST_WORK`] and [`SCATTER_WORK`] per key
//! of a chunk, [`OFFSET_WORK`] per table entry, [`PASS_WORK`] per key and pass of a
//! bucket and [`BUCKET_WORK`] per bucket.
//!
//! The reference is a sorted copy of the input (`sort_unstable`); results must be equal.

use std::sync::atomic::{AtomicU32, Ordering};

use locus::footprint::{is_listening, read_slice, work, write_slice};

use crate::chunks::{side_loop, Half, Parts};
use crate::exec::Executor;
use crate::prepared::{timed_run, Run};
use crate::rng::SplitMix64;
use crate::size;
use crate::Outcome;

/// Bits per digit (the paper's `r`).
pub const DIGIT_BITS: u32 = 8;
/// Buckets per digit.
pub const BUCKETS: usize = 1 << DIGIT_BITS;
/// Instructions per key of a histogram chunk, an estimate: load, shift, bounds check,
/// load and store the count, loop control (callgrind under `Serial`: 7.1).
///
/// The five constants come from callgrind's counts under `Serial`: a fit over five
/// sizes and grains (`262144` with grains 4096 and 64, `10000,grain=100`,
/// `1048576,grain=16384`, `3000,grain=3000`) gives 68.2 per key, 7.9 per table entry
/// and 3491 per bucket, and the per-phase counts at the default size split the keys'
/// share; the declared totals are within 2% of callgrind's on all five.
pub const HIST_WORK: u64 = 7;
/// Instructions per key of a scatter chunk: load, shift, load and bump the offset,
/// bounds check, store, loop control (callgrind: 12.1).
pub const SCATTER_WORK: u64 = 12;
/// Instructions per table entry of the offsets step: a load, an add, a store, loop
/// control, twice (totals, then offsets) (fit: 7.9).
pub const OFFSET_WORK: u64 = 8;
/// Instructions per key and pass of a bucket: the count, then the placement (two
/// loads, a shift and mask, bounds checks, an increment, a store, loop control)
/// (callgrind: 16.4 with the per-bucket share taken out).
pub const PASS_WORK: u64 = 16;
/// Instructions per bucket besides its keys: three 256-entry count tables cleared and
/// prefix-summed, about 4.5 instructions an entry (fit: 3491).
pub const BUCKET_WORK: u64 = 3500;

/// Default seed of the keys.
const SEED: u64 = 0x0052_4144_4958; // "RADIX"

/// Parameters of the radix kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RadixParams {
    /// Number of keys (at least 1).
    pub n: usize,
    /// Sorts per run (at least 0).
    pub iters: usize,
    /// Keys per histogram and scatter chunk (at least 1).
    pub grain: usize,
    /// Seed of the keys.
    pub seed: u64,
}

impl Default for RadixParams {
    fn default() -> Self {
        // 2^18 keys in 64 chunks: about 20 ms a run on one core in release.
        RadixParams {
            n: 1 << 18,
            iters: 10,
            grain: 4096,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for RadixParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},iters={},grain={}", self.n, self.iters, self.grain)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "N[,iters=I][,grain=G][,seed=S] with N, G >= 1 (N keys, G \
     keys per chunk), e.g. \"262144\" or \"262144,iters=10,grain=4096\"";

/// Parses `N[,iters=I][,grain=G][,seed=S]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<RadixParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = RadixParams {
        n: size::number("N", main)?,
        ..RadixParams::default()
    };
    if p.n == 0 {
        return Err("N must be at least 1 key".to_owned());
    }
    if p.n > u32::MAX as usize {
        return Err(format!(
            "N = {} is too large (at most {} keys)",
            p.n,
            u32::MAX
        ));
    }
    size::loop_options(opts, "key", &mut p.iters, &mut p.grain, &mut p.seed)?;
    Ok(p)
}

/// The input: `n` seeded random keys.
pub fn input(p: &RadixParams) -> Vec<u32> {
    let mut rng = SplitMix64::new(p.seed);
    (0..p.n).map(|_| (rng.next_u64() >> 32) as u32).collect()
}

/// The reference: a sorted copy of `input`.
pub fn reference(input: &[u32]) -> Vec<u32> {
    let mut v = input.to_vec();
    v.sort_unstable();
    v
}

/// The working arrays of a sort of `n` keys in chunks of `grain`: the buffer, the
/// histogram table, the offsets and the bucket bounds.
#[derive(Debug)]
pub struct Scratch {
    buf: Vec<AtomicU32>,
    hist: Vec<usize>,
    offs: Vec<usize>,
    bounds: Vec<usize>,
    grain: usize,
}

impl Scratch {
    /// Scratch for `n` keys in chunks of `grain` (0 is taken as 1).
    pub fn new(n: usize, grain: usize) -> Scratch {
        let grain = grain.max(1);
        let chunks = n.div_ceil(grain);
        Scratch {
            buf: (0..n).map(|_| AtomicU32::new(0)).collect(),
            hist: vec![0; chunks * BUCKETS],
            offs: vec![0; chunks * BUCKETS],
            bounds: vec![0; BUCKETS + 1],
            grain,
        }
    }
}

/// The top digit of a key.
#[inline]
fn top(key: u32) -> usize {
    (key >> (32 - DIGIT_BITS)) as usize
}

/// Sorts `input` into `out` (as long) on `ex`, `iters` times, with `scratch` made for
/// this length.
///
/// # Panics
///
/// Panics if the lengths or the scratch do not fit.
pub fn sort<E: Executor>(
    ex: &E,
    input: &[u32],
    out: &mut [u32],
    scratch: &mut Scratch,
    iters: usize,
) {
    let n = input.len();
    assert!(
        out.len() == n && scratch.buf.len() == n,
        "radix: length mismatch"
    );
    let grain = scratch.grain;
    let chunks = n.div_ceil(grain);
    assert_eq!(
        scratch.hist.len(),
        chunks * BUCKETS,
        "radix: scratch mismatch"
    );
    for _ in 0..iters {
        let Scratch {
            buf,
            hist,
            offs,
            bounds,
            ..
        } = &mut *scratch;
        let buf: &[AtomicU32] = buf;

        // 1. Histograms.
        {
            let rows = Parts::even(hist, BUCKETS);
            side_loop(ex, Half::First, || {
                ex.for_range(0..n, grain, |keys| {
                    let (_, row) = rows.take(keys.start / grain);
                    let keys = &input[keys];
                    read_slice(keys);
                    write_slice(row);
                    work(keys.len() as u64 * HIST_WORK);
                    row.fill(0);
                    for &k in keys {
                        row[top(k)] += 1;
                    }
                });
            });
        }

        // 2. Offsets.
        read_slice(hist.as_slice());
        write_slice(offs.as_slice());
        write_slice(bounds.as_slice());
        work((chunks * BUCKETS) as u64 * OFFSET_WORK);
        offsets(hist, offs, bounds);

        // 3. Scatter.
        let (hist, offs): (&[usize], &[usize]) = (hist, offs);
        ex.for_range(0..n, grain, |keys| {
            let c = keys.start / grain;
            let row = &offs[c * BUCKETS..(c + 1) * BUCKETS];
            let keys = &input[keys];
            if is_listening() {
                read_slice(keys);
                read_slice(row);
                let counts = &hist[c * BUCKETS..(c + 1) * BUCKETS];
                for (&at, &count) in row.iter().zip(counts) {
                    write_slice(&buf[at..at + count]);
                }
            }
            work(keys.len() as u64 * SCATTER_WORK);
            let mut next = [0usize; BUCKETS];
            next.copy_from_slice(row);
            for &k in keys {
                let d = top(k);
                buf[next[d]].store(k, Ordering::Relaxed);
                next[d] += 1;
            }
        });

        // 4. Buckets.
        let bounds: &[usize] = bounds;
        let parts = Parts::at(out, bounds.to_vec());
        side_loop(ex, Half::Second, || {
            ex.for_range(0..BUCKETS, 1, |b| {
                let (lo, dst) = parts.take(b.start);
                let src = &buf[lo..lo + dst.len()];
                write_slice(src);
                write_slice(dst);
                work(dst.len() as u64 * 3 * PASS_WORK + BUCKET_WORK);
                sort_bucket(src, dst);
            });
        });
    }
}

/// The offsets step: bucket bounds from the totals, then each chunk's place in each
/// bucket (chunks in order, so the sort is stable).
fn offsets(hist: &[usize], offs: &mut [usize], bounds: &mut [usize]) {
    let mut totals = [0usize; BUCKETS];
    for row in hist.chunks_exact(BUCKETS) {
        for (t, &h) in totals.iter_mut().zip(row) {
            *t += h;
        }
    }
    bounds[0] = 0;
    for d in 0..BUCKETS {
        bounds[d + 1] = bounds[d] + totals[d];
    }
    let mut next = [0usize; BUCKETS];
    next.copy_from_slice(&bounds[..BUCKETS]);
    for (row, orow) in hist
        .chunks_exact(BUCKETS)
        .zip(offs.chunks_exact_mut(BUCKETS))
    {
        orow.copy_from_slice(&next);
        for (n, &h) in next.iter_mut().zip(row) {
            *n += h;
        }
    }
}

/// Sorts one bucket (keys sharing their top digit) from `src` into `dst` by three
/// stable counting passes on the lower digits, least significant first: `src` to
/// `dst`, `dst` to `src`, `src` to `dst`.
fn sort_bucket(src: &[AtomicU32], dst: &mut [u32]) {
    let load = |c: &AtomicU32| c.load(Ordering::Relaxed);
    // Pass 0: src -> dst.
    let mut next = starts(src.iter().map(load), 0);
    for k in src.iter().map(load) {
        let d = digit(k, 0);
        dst[next[d]] = k;
        next[d] += 1;
    }
    // Pass 1: dst -> src.
    let mut next = starts(dst.iter().copied(), 1);
    for &k in dst.iter() {
        let d = digit(k, 1);
        src[next[d]].store(k, Ordering::Relaxed);
        next[d] += 1;
    }
    // Pass 2: src -> dst.
    let mut next = starts(src.iter().map(load), 2);
    for k in src.iter().map(load) {
        let d = digit(k, 2);
        dst[next[d]] = k;
        next[d] += 1;
    }
}

/// Digit `pass` of a key, the least significant first.
#[inline]
fn digit(key: u32, pass: u32) -> usize {
    ((key >> (pass * DIGIT_BITS)) as usize) & (BUCKETS - 1)
}

/// Where each value of digit `pass` starts in the output of a counting pass over `keys`.
fn starts(keys: impl Iterator<Item = u32>, pass: u32) -> [usize; BUCKETS] {
    let mut counts = [0usize; BUCKETS];
    for k in keys {
        counts[digit(k, pass)] += 1;
    }
    let mut sum = 0;
    for c in &mut counts {
        let n = *c;
        *c = sum;
        sum += n;
    }
    counts
}

/// Compares a sorted result with the reference.
pub(crate) fn compare(p: &RadixParams, expected: &[u32], got: &[u32]) -> Outcome {
    let what = format!(
        "radix of {} u32 keys, {} iterations, grain {}",
        p.n, p.iters, p.grain
    );
    if got == expected {
        return Outcome::pass(format!("{what}: equal to the sorted copy"));
    }
    let first = got
        .iter()
        .zip(expected)
        .position(|(x, y)| x != y)
        .unwrap_or(got.len().min(expected.len()));
    let unsorted = got.windows(2).filter(|w| w[0] > w[1]).count();
    Outcome::fail(format!(
        "{what}: differs from the sorted copy first at index {first} ({unsorted} descents \
         in the result)"
    ))
}

/// radix's input, reference and result, for [`crate::Prepared`].
#[derive(Debug)]
pub(crate) struct RadixRun {
    p: RadixParams,
    input: Vec<u32>,
    out: Vec<u32>,
    scratch: Scratch,
    expected: Vec<u32>,
    ran: bool,
}

impl RadixRun {
    /// Generates the keys and sorts a copy for the reference.
    pub(crate) fn new(p: &RadixParams) -> RadixRun {
        let input = input(p);
        let expected = if p.iters == 0 {
            vec![0; p.n]
        } else {
            reference(&input)
        };
        RadixRun {
            p: *p,
            out: vec![0; p.n],
            scratch: Scratch::new(p.n, p.grain),
            input,
            expected,
            ran: false,
        }
    }
}

impl Run for RadixRun {
    /// Clears the output, so a run that writes nothing cannot pass.
    fn reset(&mut self) {
        self.out.fill(0);
        self.ran = false;
    }

    fn execute<E: Executor>(&mut self, ex: &E) {
        let (input, out, scratch) = (&self.input, &mut self.out, &mut self.scratch);
        let iters = self.p.iters;
        ex.install(|| sort(ex, input, out, scratch, iters));
        self.ran = true;
    }

    fn verify(&self) -> Option<Outcome> {
        self.ran
            .then(|| compare(&self.p, &self.expected, &self.out))
    }
}

/// Runs the kernel on `ex` (inside its pool), timed, and checks it against the sorted
/// copy.
pub fn verify<E: Executor>(ex: &E, p: &RadixParams) -> Outcome {
    timed_run(RadixRun::new(p), ex)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Locus, Serial};

    #[test]
    fn sorts_awkward_inputs() {
        for keys in [
            vec![5u32],
            vec![3, 1, 2],
            vec![u32::MAX, 0, u32::MAX, 7, 0x0100_0000, 0x00FF_FFFF],
            vec![42; 100],
            (0..1000u32)
                .rev()
                .map(|k| k.wrapping_mul(2_654_435_761))
                .collect(),
        ] {
            for grain in [1, 3, 64, 10_000] {
                let mut out = vec![0; keys.len()];
                let mut scratch = Scratch::new(keys.len(), grain);
                sort(&Serial, &keys, &mut out, &mut scratch, 2);
                assert_eq!(out, reference(&keys), "grain {grain}");
            }
        }
    }

    #[test]
    fn verified_under_serial_and_locus() {
        let ex = Locus::new(
            locus::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        );
        for p in [
            RadixParams {
                n: 5000,
                iters: 2,
                grain: 333,
                seed: 1,
            },
            RadixParams {
                n: 1,
                iters: 1,
                grain: 1,
                seed: 2,
            },
        ] {
            for outcome in [verify(&Serial, &p), verify(&ex, &p)] {
                assert!(outcome.verified, "{outcome}");
            }
        }
    }

    #[test]
    fn offsets_are_stable_prefix_sums() {
        let mut hist = vec![0; 2 * BUCKETS];
        hist[0] = 2;
        hist[5] = 1;
        hist[BUCKETS] = 3;
        hist[BUCKETS + 255] = 4;
        let mut offs = vec![0; 2 * BUCKETS];
        let mut bounds = vec![0; BUCKETS + 1];
        offsets(&hist, &mut offs, &mut bounds);
        assert_eq!(&bounds[..7], &[0, 5, 5, 5, 5, 5, 6]);
        assert_eq!(bounds[BUCKETS], 10);
        assert_eq!((offs[0], offs[BUCKETS]), (0, 2), "chunk 1 after chunk 0");
        assert_eq!((offs[5], offs[BUCKETS + 255]), (5, 6));
    }
}
