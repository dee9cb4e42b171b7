//! Guards the speed of the simulator's cache walk on one core.
//!
//! Each access walks a three-level hierarchy shaped like one AMD Opteron 8380 core
//! (L1d 64 KiB 2-way, L2 512 KiB 16-way, L3 6 MiB 48-way, 64-byte lines): an L1 hit ends
//! the walk, a miss goes on to L2, then L3; every level a walk reaches fills the line.
//! Traces are line numbers generated before timing, so only the walk is measured, and
//! criterion reports accesses per second (`Throughput::Elements`). The workloads:
//!
//! - `sequential_16mib`: every line of a 16 MiB array in order, twice (misses
//!   everywhere, the worst case for the scanned sets);
//! - `random_8mib`: uniformly random lines of an 8 MiB array (seeded xorshift);
//! - `stencil_2x2mib`: heat-stencil time steps over two 2 MiB grids of 4 KiB rows that
//!   swap roles each step; each step slides down by 8 rows, reading 10 consecutive input
//!   rows (8 plus a halo row each side) and writing 8 output rows (writes are accesses
//!   too; the cache has no dirty state). Both grids fit the L3 but not the L2, so the
//!   walk mostly ends in the 48-way L3, with halo rows hitting in L1;
//! - `random_8mib_full_l3`: as `random_8mib` with a fully associative 6 MiB L3, which
//!   guards the hashed representation (98,304 ways).
//!
//! Measured on a 2-core EPYC VM (1 MiB of L2 a core) shared with other builds, three
//! criterion runs alternating with the lookup that tested each word of fingerprints
//! for a match, at a load of 3.7 to 4.6: sequential 84-87 (before: 60-69), random
//! 34-38 (30-32), stencil 91-103 (89-97), random with the fully associative L3 34-41
//! (36-38, its hashed L3 unchanged) Melem/s. (Before that, two runs alternating with
//! the walk before its links were indexed without bounds checks and a full set's fill
//! moved its tail to the head in one step: sequential 60 (53), random 31 (28.5),
//! stencil 86 (73), random with the fully associative L3 37 (32); an earlier host, a
//! Zen 3 VM, gave 24, 13.5, 29.5 and 5.6 for a version before those.) The random walk
//! stays below 60 M: each L3 lookup waits on its set's fingerprints, then on the tag
//! of the matching way, host lines that miss, and then on whether it hit, a branch no
//! predictor learns on a random trace. (Prefetching the sets, and the matching tags,
//! of the line 4 to 16 accesses ahead lost: random 25-32 against 33-35, sequential
//! and stencil a third slower.) A regression shows as the first three falling below
//! 10 Melem/s, or the last below 4.
//!
//! On a quiet 2-core Zen 5 VM (48 KiB L1d and 1 MiB L2 a core): sequential 89, random
//! 39.5, stencil 101.5, random with the fully associative L3 32-37 Melem/s. The random
//! walk is bound by the work of three lookups, each a fill on a miss, more than by the
//! host's caches: `valgrind --tool=cachegrind` counts about 270 instructions an access;
//! walked alone over the same trace, the L1 runs at 194, the L2 at 128 and the L3 at
//! 67 Melem/s; prefetching the L3 set 2 to 16 accesses ahead changed nothing, and
//! 32-bit tags, which bring the L3's bookkeeping within the host's L2, gained 6%
//! (42.9 against 40.3).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use locus_sim::cache::{Cache, Geometry, Lookup};
use locus_task::rng::XorShift64Star;

const LINE: u32 = 64;
const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

const L1: Geometry = Geometry {
    size: 64 * KIB,
    line_size: LINE,
    ways: 2,
};
const L2: Geometry = Geometry {
    size: 512 * KIB,
    line_size: LINE,
    ways: 16,
};
const L3: Geometry = Geometry {
    size: 6 * MIB,
    line_size: LINE,
    ways: 48,
};

/// Lines in `bytes`.
fn lines(bytes: u64) -> u64 {
    bytes / u64::from(LINE)
}

/// One core's caches, innermost first.
struct Hierarchy {
    levels: Vec<Cache>,
}

impl Hierarchy {
    fn new(geometries: &[Geometry]) -> Hierarchy {
        let levels = geometries
            .iter()
            .map(|&g| Cache::new(g).expect("valid geometry"))
            .collect();
        Hierarchy { levels }
    }

    /// Walks `line` down the levels; returns the level that hit (`levels.len()` for
    /// memory).
    #[inline]
    fn walk(&mut self, line: u64) -> usize {
        for (level, cache) in self.levels.iter_mut().enumerate() {
            if cache.access(line) == Lookup::Hit {
                return level;
            }
        }
        self.levels.len()
    }

    /// Walks every line of `trace`; returns how many ended at each level (memory last).
    fn run(&mut self, trace: &[u64]) -> [u64; 4] {
        let mut ended = [0; 4];
        for &line in trace {
            ended[self.walk(line)] += 1;
        }
        ended
    }
}

/// Every line of a 16 MiB array in order, twice.
fn sequential() -> Vec<u64> {
    let n = lines(16 * MIB);
    (0..2).flat_map(|_| 0..n).collect()
}

/// 2^20 uniformly random lines of an 8 MiB array, from a fixed seed.
fn random() -> Vec<u64> {
    let n = lines(8 * MIB);
    let mut rng = XorShift64Star::new(0x5EED_CAC4E);
    (0..1 << 20).map(|_| rng.next_u64() % n).collect()
}

/// Four heat-stencil time steps over two 2 MiB grids of 4 KiB rows, which swap input
/// and output roles each step: for each block of 8 rows, read its rows plus one halo row
/// each side of the input, then write its 8 rows of the output.
fn stencil() -> Vec<u64> {
    let row = lines(4 * KIB);
    let rows = (2 * MIB) / (4 * KIB);
    let grids = [0, rows * row];
    let mut trace = Vec::new();
    for step in 0..4 {
        let (input, output) = (grids[step % 2], grids[1 - step % 2]);
        for block in (0..rows).step_by(8) {
            for r in block.saturating_sub(1)..(block + 9).min(rows) {
                trace.extend(input + r * row..input + (r + 1) * row);
            }
            for r in block..block + 8 {
                trace.extend(output + r * row..output + (r + 1) * row);
            }
        }
    }
    trace
}

fn bench(c: &mut Criterion) {
    let opteron = [L1, L2, L3];
    let full_l3 = [L1, L2, Geometry { ways: 0, ..L3 }];
    let workloads: [(&str, Vec<u64>, &[Geometry]); 4] = [
        ("sequential_16mib", sequential(), &opteron),
        ("random_8mib", random(), &opteron),
        ("stencil_2x2mib", stencil(), &opteron),
        ("random_8mib_full_l3", random(), &full_l3),
    ];
    let mut group = c.benchmark_group("cache_walk");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, trace, geometries) in &workloads {
        let mut hierarchy = Hierarchy::new(geometries);
        // Warm the caches so every sample sees the steady state, and show it.
        hierarchy.run(trace);
        let ended = hierarchy.run(trace);
        println!(
            "{name}: {} accesses, ended at L1/L2/L3/memory {ended:?}",
            trace.len()
        );
        group.throughput(Throughput::Elements(trace.len() as u64));
        group.bench_function(*name, |b| b.iter(|| hierarchy.run(black_box(trace))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
