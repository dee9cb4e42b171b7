//! [`Params::estimate`] never counts less memory than a kernel allocates: every kernel,
//! at its default size, at awkward small sizes and at random small sizes, is prepared
//! and run once under a counting allocator, and the most bytes it held at once must not
//! exceed the estimate. Alone in its file (one test) so that no other test's
//! allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use locus_kernels::rng::SplitMix64;
use locus_kernels::{Kernel, Params, Serial, SLACK_BYTES};

/// The system allocator, counting the bytes held and the most held since a reset.
struct Counting;

static HELD: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to `System` unchanged; the counters are only read.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size() as u64, Ordering::Relaxed) + layout.size() as u64;
        PEAK.fetch_max(held, Ordering::Relaxed);
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes preparing `params` and running it once under `Serial` held at once.
fn peak(params: &Params) -> u64 {
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut prepared = params.prepare();
    let outcome = prepared.run(&Serial);
    assert!(outcome.verified, "{} {params}: {outcome}", params.kernel());
    drop(prepared);
    PEAK.load(Ordering::Relaxed) - base
}

/// Awkward small sizes: leaves and grains of 1, shapes that are no multiple of them.
const SMALL: &[(Kernel, &str)] = &[
    (Kernel::Fib, "1"),
    (Kernel::Fib, "20,cutoff=10"),
    (Kernel::Nqueens, "8,depth=20"),
    (Kernel::Heat, "3x3,leaf=1,iters=3"),
    (Kernel::Heat, "37x29,leaf=1,iters=4"),
    (Kernel::HeatUb, "70x9,leaf=3,iters=3"),
    (Kernel::HeatLoop, "37x29,leaf=5,iters=4"),
    (Kernel::HeatIter, "37x29,leaf=5,iters=4"),
    (Kernel::HeatMoving, "37x29,leaf=1,iters=5,band=30,hot=3"),
    (Kernel::Sort, "1"),
    (Kernel::Sort, "10007,cutoff=64"),
    (Kernel::Mergesort, "1000,cutoff=1"),
    (Kernel::Sor, "37x29,leaf=1,iters=3"),
    (Kernel::SorUb, "66x13,leaf=3,iters=2"),
    (Kernel::Ge, "1"),
    (Kernel::Ge, "33,leaf=1"),
    (Kernel::GeUb, "50,leaf=3"),
    (Kernel::Mandelbrot, "1x1"),
    (Kernel::Mandelbrot, "31x17,maxiter=50,leaf=1"),
    (Kernel::Fft, "1"),
    (Kernel::Fft, "4096,cutoff=64"),
    (Kernel::Knapsack, "20,depth=4"),
    (Kernel::SpmvCrs, "laplace2d:1,iters=1,grain=1"),
    (Kernel::SpmvCrs, "random:200:7,iters=2,grain=1000"),
    (Kernel::SpmvIter, "random:200:7,iters=2,grain=1"),
    (Kernel::SpmvCcs, "block:60:6:3,iters=2,grain=1"),
    (Kernel::Spmm, "random:80:4,iters=2,grain=3"),
    (Kernel::Spmm, "block:64:8:8,iters=1"),
    (Kernel::Radix, "1"),
    (Kernel::Radix, "1000,iters=2,grain=1"),
    (Kernel::Irreg, "2:1,iters=5"),
    (Kernel::Irreg, "300:2000,mesh=uniform,iters=4,grain=100"),
    (Kernel::Irreg, "3000:3000,iters=1"),
    (Kernel::MapReduce, "1"),
    (Kernel::MapReduce, "10007,iters=2,grain=7"),
];

/// A random small size of `kernel`, as a string (it may be refused).
fn random_size(kernel: Kernel, rng: &mut SplitMix64) -> String {
    let mut n = |lo: u64, hi: u64| lo + rng.next_u64() % (hi - lo + 1);
    match kernel {
        Kernel::Fib => format!("{},cutoff={}", n(1, 22), n(0, 25)),
        Kernel::Nqueens => format!("{},depth={}", n(1, 9), n(0, 10)),
        Kernel::Heat | Kernel::HeatUb | Kernel::HeatLoop | Kernel::HeatIter => {
            format!(
                "{}x{},leaf={},iters={}",
                n(3, 300),
                n(3, 300),
                n(1, 40),
                n(1, 4)
            )
        }
        Kernel::HeatMoving => format!(
            "{}x{},leaf={},iters={},hot={}",
            n(3, 200),
            n(3, 200),
            n(1, 40),
            n(1, 4),
            n(1, 4)
        ),
        Kernel::Sort | Kernel::Mergesort => format!("{},cutoff={}", n(1, 100_000), n(1, 5000)),
        Kernel::Sor | Kernel::SorUb => {
            format!(
                "{}x{},leaf={},iters={}",
                n(3, 300),
                n(2, 300),
                n(1, 40),
                n(1, 3)
            )
        }
        Kernel::Ge | Kernel::GeUb => format!("{},leaf={}", n(1, 120), n(1, 20)),
        Kernel::Mandelbrot => format!("{}x{},maxiter={}", n(1, 200), n(1, 200), n(1, 100)),
        Kernel::Fft => format!("2^{},cutoff={}", n(0, 16), n(1, 4096)),
        Kernel::Knapsack => format!("{},depth={}", n(1, 22), n(0, 8)),
        Kernel::SpmvCrs | Kernel::SpmvIter | Kernel::SpmvCcs | Kernel::Spmm => {
            let side = n(1, 60);
            let matrix = match n(0, 3) {
                0 => format!("laplace2d:{side}"),
                1 => format!("random:{}:{}", side * 10, n(1, 10)),
                2 => format!("banded:{}:{}:{}", side * 10, n(1, 20), n(1, 8)),
                _ => format!("block:{}:4:{}", side * 4, n(1, 4)),
            };
            format!("{matrix},iters={},grain={}", n(1, 3), n(1, 300))
        }
        Kernel::Radix => format!("{},iters={},grain={}", n(1, 100_000), n(1, 3), n(1, 5000)),
        Kernel::Irreg => {
            let nodes = n(2, 5000);
            let edges = n(1, (nodes * (nodes - 1) / 2).min(20_000));
            let mesh = if n(0, 1) == 0 { "geometric" } else { "uniform" };
            format!(
                "{nodes}:{edges},mesh={mesh},iters={},grain={}",
                n(1, 3),
                n(1, 600)
            )
        }
        Kernel::MapReduce => format!("{},iters={},grain={}", n(1, 100_000), n(1, 3), n(1, 5000)),
    }
}

fn check(params: &Params, checked: &mut usize) {
    let estimate = params.estimate();
    let held = peak(params);
    assert!(
        held <= estimate.bytes,
        "{} {params}: held {held} bytes at once, estimated {}",
        params.kernel(),
        estimate.bytes
    );
    // The estimate is a bound, not a guess far off: beside the slack it is within a
    // small factor of what the arrays take at their peak.
    assert!(
        estimate.bytes - SLACK_BYTES <= 8 * held.max(1 << 16),
        "{} {params}: estimated {} bytes, held {held}",
        params.kernel(),
        estimate.bytes
    );
    *checked += 1;
}

#[test]
fn estimates_never_count_less_memory_than_kernels_hold() {
    let mut checked = 0;
    for kernel in Kernel::ALL {
        check(&kernel.default_params(), &mut checked);
    }
    for (kernel, size) in SMALL {
        let params = kernel.parse_size(size).unwrap_or_else(|e| panic!("{e}"));
        check(&params, &mut checked);
    }
    let seed = 0x5349_5a45; // "SIZE"
    println!("random sizes from seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    for round in 0..6 {
        for kernel in Kernel::ALL {
            let size = random_size(kernel, &mut rng);
            let Ok(params) = kernel.parse_size(&size) else {
                continue;
            };
            if params.estimate().work.is_some_and(|w| w > 200_000_000) {
                continue;
            }
            let _ = round;
            check(&params, &mut checked);
        }
    }
    assert!(checked > 100, "only {checked} inputs were measured");
}
