//! The same iterator pipelines in locus and in rayon, in the same run: the source text
//! of each is written once and compiled twice, once under `use locus::prelude::*` and
//! once under `use rayon::prelude::*`, which is all a port changes.
//!
//! - `sum_of_squares`: `v.par_iter().map(|x| x * x).sum()` over a `Vec` of 10^8 `u64`.
//! - `map_collect`: `(0..10^7).into_par_iter().map(hash).collect::<Vec<u64>>()`.
//! - `sort_unstable`: `par_sort_unstable` of 10^7 random `u64` (a fresh copy per run,
//!   made outside the timing).
//!
//! Both pools have two unpinned workers, and only one pool exists at a time. Quick run:
//! `cargo bench -p locus --bench pipelines -- --warm-up-time 1 --measurement-time 5`;
//! compare the locus and rayon medians of one group (ratios, not times).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use locus::{PolicyKind, ThreadPoolBuilder};
use std::hint::black_box;

/// Workers in each pool.
const THREADS: usize = 2;
const SUM_N: usize = 100_000_000;
const COLLECT_N: u64 = 10_000_000;
const SORT_N: usize = 10_000_000;

/// SplitMix64's finaliser: a cheap, well-mixed function of the index.
fn hash(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The pipelines, once per prelude.
macro_rules! pipelines {
    ($name:ident, $($prelude:ident)::+) => {
        mod $name {
            use super::*;
            use $($prelude)::+::*;

            pub(crate) fn sum_of_squares(v: &[u64]) -> u64 {
                v.par_iter().map(|x| x.wrapping_mul(*x)).sum::<u64>()
            }

            pub(crate) fn map_collect() -> Vec<u64> {
                (0..COLLECT_N).into_par_iter().map(hash).collect()
            }

            pub(crate) fn sort_unstable(v: &mut [u64]) {
                v.par_sort_unstable();
            }
        }
    };
}

pipelines!(on_locus, locus::prelude);
pipelines!(on_rayon, rayon::prelude);

fn bench(c: &mut Criterion) {
    let input: Vec<u64> = (0..SORT_N as u64).map(hash).collect();
    let squares: Vec<u64> = (0..SUM_N as u64).collect();
    let mut group = c.benchmark_group("pipelines");
    group.sample_size(10);
    {
        let pool = ThreadPoolBuilder::new()
            .num_threads(THREADS)
            .policy(PolicyKind::Ws)
            .pin(false)
            .build()
            .expect("the locus pool builds");
        group.bench_function("sum_of_squares/locus", |b| {
            b.iter(|| pool.install(|| black_box(on_locus::sum_of_squares(&squares))))
        });
        group.bench_function("map_collect/locus", |b| {
            b.iter(|| pool.install(|| black_box(on_locus::map_collect())))
        });
        group.bench_function("sort_unstable/locus", |b| {
            b.iter_batched_ref(
                || input.clone(),
                |v| pool.install(|| on_locus::sort_unstable(v)),
                BatchSize::LargeInput,
            )
        });
    }
    {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(THREADS)
            .build()
            .expect("the rayon pool builds");
        group.bench_function("sum_of_squares/rayon", |b| {
            b.iter(|| pool.install(|| black_box(on_rayon::sum_of_squares(&squares))))
        });
        group.bench_function("map_collect/rayon", |b| {
            b.iter(|| pool.install(|| black_box(on_rayon::map_collect())))
        });
        group.bench_function("sort_unstable/rayon", |b| {
            b.iter_batched_ref(
                || input.clone(),
                |v| pool.install(|| on_rayon::sort_unstable(v)),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
    // The two builds of each pipeline agree.
    let (a, b) = (
        on_locus::sum_of_squares(&squares),
        on_rayon::sum_of_squares(&squares),
    );
    assert_eq!(a, b, "sum_of_squares: locus and rayon differ");
}

criterion_group!(benches, bench);
criterion_main!(benches);
