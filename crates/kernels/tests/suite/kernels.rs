//! Every kernel verifies against its serial reference under `Serial` and under rayon
//! pools of 1, 2 and 4 threads, at small sizes, through both the per-kernel `verify`
//! and the uniform `Prepared` entry (several repetitions, so `reset` is exercised).

use locus_kernels::{
    fft, fib, ge, ge_ub, heat, heat_moving, heat_ub, knapsack, mandelbrot, mergesort, nqueens, sor,
    sor_ub, sort, Executor, Kernel, Params, Rayon, Serial,
};
use locus_kernels::{irreg, mapreduce, radix, spmm, spmv};

/// Small sizes per kernel, including awkward shapes (odd sizes, leaf/cutoff of 1,
/// sizes not a multiple of the leaf, zero iterations).
fn small_params() -> Vec<Params> {
    let sizes: &[(Kernel, &str)] = &[
        (Kernel::Fib, "1"),
        (Kernel::Fib, "18"),
        (Kernel::Fib, "20,cutoff=10"),
        (Kernel::Fib, "15,cutoff=40"),
        (Kernel::Nqueens, "1"),
        (Kernel::Nqueens, "3"),
        (Kernel::Nqueens, "8"),
        (Kernel::Nqueens, "8,depth=0"),
        (Kernel::Nqueens, "9,depth=20"),
        (Kernel::Heat, "3x3,leaf=1,iters=3"),
        (Kernel::Heat, "37x29,leaf=1,iters=4"),
        (Kernel::Heat, "64x40,leaf=8,iters=5"),
        (Kernel::Heat, "50x17,leaf=100,iters=2"),
        (Kernel::Heat, "20x20,iters=0"),
        (Kernel::Sort, "1"),
        (Kernel::Sort, "1000,cutoff=1"),
        (Kernel::Sort, "10007,cutoff=64"),
        (Kernel::Sort, "4096,cutoff=4096"),
        (Kernel::Sort, "5000,cutoff=7,seed=3"),
        (Kernel::HeatUb, "3x3,leaf=1,iters=3"),
        (Kernel::HeatUb, "37x29,leaf=1,iters=4"),
        (Kernel::HeatUb, "70x9,leaf=3,iters=3"),
        (Kernel::HeatUb, "20x20,iters=0"),
        (Kernel::HeatLoop, "3x3,leaf=1,iters=3"),
        (Kernel::HeatLoop, "37x29,leaf=5,iters=4"),
        (Kernel::HeatLoop, "50x17,leaf=100,iters=1"),
        (Kernel::HeatLoop, "20x20,iters=0"),
        (Kernel::HeatIter, "3x3,leaf=1,iters=3"),
        (Kernel::HeatIter, "37x29,leaf=5,iters=4"),
        (Kernel::HeatIter, "50x17,leaf=100,iters=1"),
        (Kernel::HeatIter, "1030x9,leaf=1,iters=2"),
        (Kernel::HeatIter, "20x20,iters=0"),
        (Kernel::HeatMoving, "3x3,leaf=1,iters=3"),
        (Kernel::HeatMoving, "37x29,leaf=1,iters=5,band=30,hot=3"),
        (Kernel::HeatMoving, "64x40,leaf=8,iters=7"),
        (Kernel::HeatMoving, "20x20,iters=0"),
        (Kernel::Sor, "3x3,leaf=1,iters=2"),
        (Kernel::Sor, "37x29,leaf=1,iters=3"),
        (Kernel::Sor, "40x40,leaf=4,iters=4,omega=1.9"),
        (Kernel::Sor, "21x8,leaf=100,iters=2,omega=1"),
        (Kernel::Sor, "20x20,iters=0"),
        (Kernel::SorUb, "37x30,leaf=1,iters=3"),
        (Kernel::SorUb, "66x13,leaf=3,iters=2,omega=0.5,seed=4"),
        (Kernel::Ge, "1"),
        (Kernel::Ge, "2,leaf=1"),
        (Kernel::Ge, "33,leaf=1"),
        (Kernel::Ge, "40,leaf=4,seed=9"),
        (Kernel::GeUb, "37,leaf=1"),
        (Kernel::GeUb, "50,leaf=3"),
        (Kernel::Mergesort, "1"),
        (Kernel::Mergesort, "2,cutoff=1"),
        (Kernel::Mergesort, "1000,cutoff=1"),
        (Kernel::Mergesort, "10007,cutoff=64"),
        (Kernel::Mergesort, "5000,cutoff=7,seed=3"),
        (Kernel::Mandelbrot, "1x1"),
        (Kernel::Mandelbrot, "31x17,maxiter=50,leaf=1"),
        (Kernel::Mandelbrot, "64x64,maxiter=100"),
        (Kernel::Fft, "1"),
        (Kernel::Fft, "2,cutoff=1"),
        (Kernel::Fft, "2^10,cutoff=1"),
        (Kernel::Fft, "4096,cutoff=64,seed=5"),
        (Kernel::Knapsack, "1"),
        (Kernel::Knapsack, "12,depth=0"),
        (Kernel::Knapsack, "16,depth=64"),
        (Kernel::Knapsack, "20,depth=4,seed=7"),
        (Kernel::SpmvCrs, "laplace2d:1,iters=1,grain=1"),
        (Kernel::SpmvCrs, "laplace2d:13,iters=3,grain=7"),
        (Kernel::SpmvCrs, "random:200:7,iters=2,grain=1000"),
        (Kernel::SpmvCrs, "banded:150:5:3,iters=0"),
        (Kernel::SpmvIter, "laplace2d:1,iters=1,grain=1"),
        (Kernel::SpmvIter, "laplace2d:13,iters=3,grain=7"),
        (Kernel::SpmvIter, "random:600:7,iters=2,grain=1"),
        (Kernel::SpmvIter, "random:200:7,iters=2,grain=1000"),
        (Kernel::SpmvIter, "banded:150:5:3,iters=0"),
        (Kernel::SpmvCcs, "laplace2d:13,iters=3,grain=7"),
        (Kernel::SpmvCcs, "block:60:6:3,iters=2,grain=1"),
        (Kernel::SpmvCcs, "random:200:7,iters=0"),
        (Kernel::Spmm, "random:80:4,iters=2,grain=3"),
        (Kernel::Spmm, "banded:100:3:2,iters=1,grain=1"),
        (Kernel::Spmm, "laplace2d:1,iters=1"),
        (Kernel::Radix, "1"),
        (Kernel::Radix, "1000,iters=2,grain=1"),
        (Kernel::Radix, "10007,iters=3,grain=333,seed=5"),
        (Kernel::Radix, "500,iters=0"),
        (Kernel::Irreg, "small,iters=3,grain=1"),
        (Kernel::Irreg, "300:2000,mesh=uniform,iters=4,grain=100"),
        (Kernel::Irreg, "2:1,iters=5"),
        (Kernel::Irreg, "small,iters=0"),
        (Kernel::MapReduce, "1"),
        (Kernel::MapReduce, "1000,iters=3,grain=1"),
        (Kernel::MapReduce, "10007,iters=2,grain=7,seed=5"),
        (Kernel::MapReduce, "500,iters=1,grain=100000"),
        (Kernel::MapReduce, "500,iters=0"),
    ];
    // A size refuses 0 iterations (it runs nothing) and fib 0, but the kernels take
    // them: those are made from a parsed size.
    let mut params: Vec<Params> = sizes
        .iter()
        .map(|(k, s)| {
            let parsed = k.parse_size(&s.replace("iters=0", "iters=1"));
            let p = parsed.unwrap_or_else(|e| panic!("{e}"));
            if s.contains("iters=0") {
                without_iterations(p)
            } else {
                p
            }
        })
        .collect();
    params.push(Params::Fib(fib::FibParams { n: 0, cutoff: 0 }));
    params
}

/// `p` with 0 iterations.
fn without_iterations(mut p: Params) -> Params {
    match &mut p {
        Params::Heat(h) | Params::HeatUb(h) | Params::HeatLoop(h) | Params::HeatIter(h) => {
            h.iters = 0
        }
        Params::HeatMoving(h) => h.heat.iters = 0,
        Params::Sor(s) | Params::SorUb(s) => s.iters = 0,
        Params::SpmvCrs(s) | Params::SpmvIter(s) | Params::SpmvCcs(s) | Params::Spmm(s) => {
            s.iters = 0
        }
        Params::MapReduce(m) => m.iters = 0,
        Params::Radix(r) => r.iters = 0,
        Params::Irreg(i) => i.iters = 0,
        other => panic!("{} has no iterations", other.kernel()),
    }
    p
}

fn check_all<E: Executor>(ex: &E) {
    for params in small_params() {
        let what = format!("{} {} on {}", params.kernel(), params, ex.name());
        let outcome = match params {
            Params::Fib(p) => fib::verify(ex, &p),
            Params::Nqueens(p) => nqueens::verify(ex, &p),
            Params::Heat(p) => heat::verify(ex, &p),
            Params::Sort(p) => sort::verify(ex, &p),
            Params::HeatUb(p) => heat_ub::verify(ex, &p),
            Params::HeatLoop(p) => heat::verify_loop(ex, &p),
            Params::HeatIter(p) => heat::verify_iter(ex, &p),
            Params::HeatMoving(p) => heat_moving::verify(ex, &p),
            Params::Sor(p) => sor::verify(ex, &p),
            Params::SorUb(p) => sor_ub::verify(ex, &p),
            Params::Ge(p) => ge::verify(ex, &p),
            Params::GeUb(p) => ge_ub::verify(ex, &p),
            Params::Mergesort(p) => mergesort::verify(ex, &p),
            Params::Mandelbrot(p) => mandelbrot::verify(ex, &p),
            Params::Fft(p) => fft::verify(ex, &p),
            Params::Knapsack(p) => knapsack::verify(ex, &p),
            Params::SpmvCrs(ref p) => spmv::verify_crs(ex, p),
            Params::SpmvIter(ref p) => spmv::verify_iter(ex, p),
            Params::SpmvCcs(ref p) => spmv::verify_ccs(ex, p),
            Params::Spmm(ref p) => spmm::verify(ex, p),
            Params::Radix(p) => radix::verify(ex, &p),
            Params::Irreg(p) => irreg::verify(ex, &p),
            Params::MapReduce(p) => mapreduce::verify(ex, &p),
        };
        assert!(
            outcome.detail.starts_with(params.kernel().name()),
            "{what}: detail names another kernel: {outcome}"
        );
        assert!(outcome.verified, "{what}: {outcome}");

        let mut prepared = params.prepare();
        for rep in 0..3 {
            let outcome = prepared.run(ex);
            assert!(outcome.verified, "{what}, rep {rep}: {outcome}");
        }
        // The split protocol: reset, execute, verify.
        prepared.reset();
        assert!(
            !prepared.verify().verified,
            "{what}: verified before running"
        );
        prepared.execute(ex);
        let outcome = prepared.verify();
        assert!(outcome.verified, "{what}, split protocol: {outcome}");
    }
}

#[test]
fn serial_verifies() {
    check_all(&Serial);
}

#[test]
fn rayon_1_verifies() {
    check_all(&Rayon::new(1).unwrap());
}

#[test]
fn rayon_2_verifies() {
    check_all(&Rayon::new(2).unwrap());
}

#[test]
fn rayon_4_verifies() {
    check_all(&Rayon::new(4).unwrap());
}

#[test]
fn default_params_verify_on_rayon() {
    // The benchmark defaults themselves, once (fib 30 is about 2.7 million joins).
    let ex = Rayon::new(4).unwrap();
    for kernel in Kernel::ALL {
        let outcome = kernel.default_params().prepare().run(&ex);
        assert!(outcome.verified, "{kernel}: {outcome}");
    }
}

#[test]
fn execute_without_reset_is_detected_for_every_mutating_kernel() {
    // Every kernel that transforms its input in place fails its check when run twice
    // without a reset, and passes again after one.
    for (kernel, size) in [
        (Kernel::HeatUb, "10x10,iters=2"),
        (Kernel::Sor, "10x10,iters=2"),
        (Kernel::SorUb, "10x11,iters=1"),
        (Kernel::Ge, "12"),
        (Kernel::GeUb, "12,leaf=1"),
        (Kernel::Fft, "64,cutoff=4"),
        (Kernel::Irreg, "50:200,iters=2"),
    ] {
        let mut prepared = kernel.parse_size(size).unwrap().prepare();
        prepared.execute(&Serial);
        assert!(prepared.verify().verified, "{kernel}");
        prepared.execute(&Serial);
        assert!(
            !prepared.verify().verified,
            "{kernel}: second run undetected"
        );
        prepared.reset();
        prepared.execute(&Serial);
        assert!(prepared.verify().verified, "{kernel} after reset");
    }
}

#[test]
fn classification_bytes_and_branching() {
    let cpu: Vec<_> = Kernel::ALL.into_iter().filter(|k| k.cpu_bound()).collect();
    assert_eq!(
        cpu,
        [
            Kernel::Fib,
            Kernel::Nqueens,
            Kernel::Mandelbrot,
            Kernel::Fft,
            Kernel::Knapsack
        ]
    );
    let bytes = |k: Kernel, s: &str| k.parse_size(s).unwrap().data_bytes();
    assert_eq!(bytes(Kernel::Fib, "30"), 0);
    assert_eq!(bytes(Kernel::Nqueens, "12"), 0);
    assert_eq!(bytes(Kernel::Heat, "1024x512"), 1024 * 512 * 8 * 2);
    assert_eq!(bytes(Kernel::HeatUb, "1024x512"), 1024 * 512 * 8 * 2);
    assert_eq!(bytes(Kernel::Sort, "1048576"), 1 << 24);
    assert_eq!(bytes(Kernel::Mergesort, "1048576"), 1 << 24);
    assert_eq!(bytes(Kernel::Sor, "1024x512"), 1024 * 512 * 8);
    assert_eq!(bytes(Kernel::SorUb, "10x5"), 10 * 3 * 8 * 2);
    assert_eq!(bytes(Kernel::Ge, "512"), 512 * 512 * 8);
    assert_eq!(bytes(Kernel::Mandelbrot, "256x256"), 256 * 256 * 4);
    assert_eq!(bytes(Kernel::Fft, "1024"), 1024 * 16 * 2 + 512 * 16);
    assert_eq!(bytes(Kernel::Knapsack, "32"), 32 * 16);
    for k in Kernel::ALL {
        let p = k.default_params();
        // The affinity-graph kernels are flat loops: a child per chunk of the main loop.
        let chunks = match k {
            Kernel::SpmvCrs | Kernel::SpmvIter | Kernel::SpmvCcs => 65_536 / 256,
            // mapreduce: a leaf per chunk of 4096 of its 2^20 elements.
            Kernel::MapReduce => 256,
            Kernel::Spmm => 4096 / 64,
            Kernel::Radix => (1 << 18) / 4096,
            Kernel::Irreg => 40_000u32.div_ceil(512),
            // heat-loop: a chunk per 8 of the 1022 interior rows.
            Kernel::HeatLoop | Kernel::HeatIter => 1022u32.div_ceil(8),
            _ => 2,
        };
        assert_eq!(p.branching(), chunks, "{k}");
        assert_eq!(
            p.data_bytes() == 0,
            matches!(k, Kernel::Fib | Kernel::Nqueens)
        );
    }
}

#[test]
fn execute_without_reset_is_detected() {
    // A heat repetition without a reset continues from the last state, and `verify`
    // says so. (Sort would re-sort sorted data and still pass: only the timing is off.)
    let ex = Serial;
    let mut prepared = Kernel::Heat.parse_size("10x10,iters=2").unwrap().prepare();
    prepared.execute(&ex);
    assert!(prepared.verify().verified);
    prepared.execute(&ex);
    assert!(!prepared.verify().verified);
    prepared.reset();
    prepared.execute(&ex);
    assert!(prepared.verify().verified);
}
