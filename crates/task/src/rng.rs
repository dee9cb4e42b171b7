//! Small seeded generators, one copy for the whole workspace.
//!
//! - [`SplitMix64`] (Steele, Lea and Flood, "Fast splittable pseudorandom number
//!   generators", OOPSLA 2014): deterministic inputs (the kernels' data, the profiler's
//!   synthetic meshes, the tests' random operations). Every run, on every machine, gets
//!   the same sequence for the same seed.
//! - [`mix64`]: its finaliser alone, a cheap bijective mix with good avalanche (root task
//!   ids, the simulator's per-worker seeds).
//! - [`XorShift64Star`] (Marsaglia's xorshift64*): victim choices in the runtime and the
//!   simulator, where speed matters more than quality.
//! - [`FxHasher`] (the multiply-rotate hash of rustc's `FxHasher`): hash maps whose keys
//!   are already mixed or are small integers (the policies' maps keyed by task id, the
//!   mapper's maps of threads and programs).
//!
//! None is for statistics or cryptography.

use std::hash::Hasher;

/// The golden-ratio increment of SplitMix64 (2^64 / φ, odd).
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The SplitMix64 finaliser: a bijective mix of `z` with good avalanche.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64: a 64-bit counter stepped by the golden ratio and passed through
/// [`mix64`].
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fixed by `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix64(self.state)
    }

    /// A uniform `f64` in `[0, 1)` (the top 53 bits of [`SplitMix64::next_u64`]).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A number in `0..n` (`n` > 0), nearly uniform (the high half of a 128-bit
    /// product, with no division).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Shuffles `items` (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// Marsaglia's xorshift64*: three shifts and a multiply. The state must not be 0 (it
/// would stay 0); [`XorShift64Star::new`] does not check, callers seed with odd or mixed
/// values.
#[derive(Debug, Clone, Copy)]
pub struct XorShift64Star(u64);

impl XorShift64Star {
    /// A generator started from `state` (non-zero).
    pub const fn new(state: u64) -> XorShift64Star {
        XorShift64Star(state)
    }

    /// Worker `worker`'s victim generator for a run seeded with `seed`: every worker's
    /// sequence differs, and the state is never 0. Both engines seed their workers so.
    pub const fn for_worker(seed: u64, worker: usize) -> XorShift64Star {
        XorShift64Star::new(mix64(seed ^ (worker as u64).wrapping_add(1).wrapping_mul(GOLDEN)) | 1)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A [`Hasher`] of one rotate, xor and multiply per word (rustc's `FxHasher`), for maps
/// whose keys need no protection from chosen collisions: a task id, already a 64-bit
/// hash of its spawn path, or a kernel's thread and process ids. SipHash's keyed rounds
/// cost a good part of such a lookup (see `locus_policy`'s task-id maps). A `u32` or
/// `u64` is one word; other integers and bytes are taken a byte at a time.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_get_distinct_nonzero_generators() {
        let firsts: std::collections::HashSet<u64> = (0..64)
            .map(|w| XorShift64Star::for_worker(7, w).next_u64())
            .collect();
        assert_eq!(firsts.len(), 64);
        assert_ne!(XorShift64Star::for_worker(0, usize::MAX).0, 0);
    }

    #[test]
    fn splitmix_known_sequence() {
        // Reference values of SplitMix64 seeded with 1234567 (from the original paper's
        // reference implementation, as used by xoshiro's seeding code).
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn f64_in_unit_interval_and_below_in_range() {
        let mut r = SplitMix64::new(7);
        for n in 1..10_000 {
            let x = r.next_f64();
            assert!((0.0..1.0).contains(&x));
            assert!(r.below(n) < n);
        }
    }

    #[test]
    fn shuffle_permutes() {
        let mut items: Vec<u32> = (0..100).collect();
        SplitMix64::new(3).shuffle(&mut items);
        assert_ne!(items, (0..100).collect::<Vec<_>>());
        items.sort_unstable();
        assert_eq!(items, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn xorshift_known_sequence() {
        // By hand from the definition: 1 -> 1 ^ 1 << 25 ^ (1 ^ 1 << 25) >> 27.
        let mut r = XorShift64Star::new(1);
        assert_eq!(
            r.next_u64(),
            0x0200_0001u64.wrapping_mul(0x2545_f491_4f6c_dd1d)
        );
        assert_ne!(r.next_u64(), r.next_u64());
    }

    #[test]
    fn fx_hashes_a_u32_as_its_u64_and_spreads_consecutive_ids() {
        let hash = |f: &dyn Fn(&mut FxHasher)| {
            let mut h = FxHasher::default();
            f(&mut h);
            h.finish()
        };
        assert_eq!(hash(&|h| h.write_u32(7)), hash(&|h| h.write_u64(7)));
        assert_eq!(hash(&|h| h.write(&[7])), hash(&|h| h.write_u64(7)));
        // Consecutive keys (a loop's chunk ids) differ in their high bits, where a map's
        // control bytes come from.
        let tops: std::collections::HashSet<u64> = (0..64u64)
            .map(|i| hash(&|h| h.write_u64(i)) >> 57)
            .collect();
        assert!(tops.len() > 32, "{} distinct top bits of 64", tops.len());
    }
}
