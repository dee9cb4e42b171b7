//! `mapreduce`: a map-reduce over a large array, written with parallel iterators
//! ([`crate::iters`]): `fold` then `reduce`.
//!
//! The input is `n` seeded random `u64`s. Each of the `iters` iterations maps every
//! element `x` to `f = mix(x, iteration)` (SplitMix64's finaliser, so every iteration
//! maps differently) and reduces the values into a [`Tally`]: how many fell in each of
//! [`BINS`] bins (by the top bits of `f`) and the wrapping sum of `f >> 32`. The run's
//! result is the tallies of all iterations merged, so a run that skips an iteration
//! cannot pass. Every operation is on integers, associative and commutative, so the
//! result is the serial reference's bit for bit whatever the split.
//!
//! Each iteration is one chain,
//! `data.par_chunks(grain).fold(Tally::default, add).reduce(Tally::default, merge)`:
//! chunks of `grain` elements, each leaf folding its chunks into a tally of its own,
//! the leaves' tallies merged. Under locus's iterators the leaves are the same every
//! iteration (up to [`locus::iter::LEAVES`] of them), so leaf `i` has the same task id
//! in every iteration.
//!
//! Footprint: the slice source declares a read of each leaf's elements (locus's
//! `par_chunks`, while a listener is installed); the fold declares its work per chunk,
//! [`ELEMENT_WORK`] per element and [`CHUNK_WORK`] per chunk. The merges declare
//! nothing (17 additions a leaf).

use locus::footprint::work;

use crate::exec::Executor;
use crate::prepared::{timed_run, Run};
use crate::rng::SplitMix64;
use crate::size;
use crate::Outcome;

/// Bins of a [`Tally`].
pub const BINS: usize = 16;
/// Instructions per element of the fold, an estimate: guess from the inner loop, a load,
/// the finaliser (an add, two multiplies, three shift-xor pairs), the sum's shift and
/// add, the bin's shift, load, add and store, and loop control: about 18.
pub const ELEMENT_WORK: u64 = 18;
/// Instructions per chunk of the fold besides its elements: the call, moving the
/// tally in and out, the slice's checks; a guess.
pub const CHUNK_WORK: u64 = 40;

/// Default seed of the input.
const SEED: u64 = 0x4D41_5052; // "MAPR"

/// Parameters of the map-reduce kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MapReduceParams {
    /// Elements of the array (at least 1).
    pub n: usize,
    /// Map-reduces per run (at least 0).
    pub iters: usize,
    /// Elements per chunk of the fold (at least 1).
    pub grain: usize,
    /// Seed of the elements.
    pub seed: u64,
}

impl Default for MapReduceParams {
    fn default() -> Self {
        // 2^20 elements (8 MiB) in 256 chunks, 10 iterations: some milliseconds a run on
        // one core in release.
        MapReduceParams {
            n: 1 << 20,
            iters: 10,
            grain: 4096,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for MapReduceParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},iters={},grain={}", self.n, self.iters, self.grain)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "N[,iters=I][,grain=G][,seed=S] with N, G >= 1 (N elements, G \
     elements per chunk), e.g. \"1048576\" or \"1048576,iters=10,grain=4096\"";

/// Parses `N[,iters=I][,grain=G][,seed=S]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<MapReduceParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = MapReduceParams {
        n: size::number("N", main)?,
        ..MapReduceParams::default()
    };
    if p.n == 0 {
        return Err("N must be at least 1 element".to_owned());
    }
    if p.n > isize::MAX as usize / std::mem::size_of::<u64>() {
        return Err(format!("N = {} is too large to allocate", p.n));
    }
    size::loop_options(opts, "element", &mut p.iters, &mut p.grain, &mut p.seed)?;
    Ok(p)
}

/// The input: `n` seeded random `u64`s.
pub fn input(p: &MapReduceParams) -> Vec<u64> {
    let mut rng = SplitMix64::new(p.seed);
    (0..p.n).map(|_| rng.next_u64()).collect()
}

/// The map: SplitMix64's finaliser of `x` offset by the iteration.
#[inline]
pub fn mix(x: u64, iteration: u64) -> u64 {
    locus_task::rng::mix64(x.wrapping_add(iteration.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
}

/// What the reduction keeps: a histogram of the mapped values and their wrapping sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// How many mapped values fell in each bin (by their top bits).
    pub bins: [u64; BINS],
    /// The wrapping sum of the mapped values' top 32 bits.
    pub sum: u64,
}

impl Tally {
    /// This tally with the elements of `chunk` mapped in iteration `iteration` added:
    /// the fold's operation. Declares the chunk's work.
    pub fn add(mut self, iteration: usize, chunk: &[u64]) -> Tally {
        work(chunk.len() as u64 * ELEMENT_WORK + CHUNK_WORK);
        let shift = 64 - BINS.trailing_zeros();
        for &x in chunk {
            let f = mix(x, iteration as u64);
            self.bins[(f >> shift) as usize] += 1;
            self.sum = self.sum.wrapping_add(f >> 32);
        }
        self
    }

    /// Both tallies together: the reduction's operation.
    pub fn merge(mut self, other: Tally) -> Tally {
        for (a, b) in self.bins.iter_mut().zip(other.bins) {
            *a += b;
        }
        self.sum = self.sum.wrapping_add(other.sum);
        self
    }

    /// How many values were tallied.
    pub fn count(&self) -> u64 {
        self.bins.iter().sum()
    }
}

/// The serial reference: every iteration's tally, merged, by the same fold over the
/// whole array at once. Declares nothing (it runs outside any task).
pub fn reference(p: &MapReduceParams, data: &[u64]) -> Tally {
    (0..p.iters).fold(Tally::default(), |total, iteration| {
        total.merge(Tally::default().add(iteration, data))
    })
}

/// Compares a run's tally with the reference's.
pub(crate) fn compare(p: &MapReduceParams, expected: &Tally, got: &Tally) -> Outcome {
    let what = format!(
        "mapreduce of {} elements, {} iterations, grain {}",
        p.n, p.iters, p.grain
    );
    if got == expected {
        return Outcome::pass(format!(
            "{what}: equal to the serial reference ({} values, sum {:#x})",
            got.count(),
            got.sum
        ));
    }
    let bin = got
        .bins
        .iter()
        .zip(&expected.bins)
        .position(|(a, b)| a != b);
    let detail = match bin {
        Some(i) => format!(
            "bin {i} holds {}, the reference {}",
            got.bins[i], expected.bins[i]
        ),
        None => format!("sum {:#x}, the reference {:#x}", got.sum, expected.sum),
    };
    Outcome::fail(format!(
        "{what}: differs from the serial reference: {detail} ({} values tallied, {} \
         expected)",
        got.count(),
        expected.count()
    ))
}

/// mapreduce's input, reference and result, for [`crate::Prepared`].
#[derive(Debug)]
pub(crate) struct MapReduceRun {
    p: MapReduceParams,
    data: Vec<u64>,
    expected: Tally,
    got: Option<Tally>,
}

impl MapReduceRun {
    /// Generates the input and the reference.
    pub(crate) fn new(p: &MapReduceParams) -> MapReduceRun {
        let data = input(p);
        MapReduceRun {
            p: *p,
            expected: reference(p, &data),
            data,
            got: None,
        }
    }
}

impl Run for MapReduceRun {
    fn reset(&mut self) {
        self.got = None;
    }

    fn execute<E: Executor>(&mut self, ex: &E) {
        let (data, p) = (&self.data, self.p);
        self.got = Some(ex.install(|| crate::iters::mapreduce(ex, data, p.iters, p.grain)));
    }

    fn verify(&self) -> Option<Outcome> {
        self.got
            .as_ref()
            .map(|got| compare(&self.p, &self.expected, got))
    }
}

/// Runs mapreduce on `ex` (inside its pool), timed, and checks it against the serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &MapReduceParams) -> Outcome {
    timed_run(MapReduceRun::new(p), ex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_every_value_once_per_iteration() {
        let p = MapReduceParams {
            n: 1000,
            iters: 3,
            ..MapReduceParams::default()
        };
        let data = input(&p);
        let t = reference(&p, &data);
        assert_eq!(t.count(), 3000);
        // Split anywhere, the tallies merge to the same.
        let (a, b) = data.split_at(377);
        let split = (0..3).fold(Tally::default(), |acc, i| {
            acc.merge(Tally::default().add(i, a).merge(Tally::default().add(i, b)))
        });
        assert_eq!(split, t);
        let wrong = compare(&p, &t, &Tally::default().add(0, &data));
        assert!(!wrong.verified && wrong.detail.contains("bin"), "{wrong}");
    }
}
