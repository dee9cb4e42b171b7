//! Kernel names and `--size` strings: valid ones parse (and round-trip through
//! `Display`), broken ones give an error naming the input and the expected syntax.

use locus_kernels::fft::FftParams;
use locus_kernels::fib::FibParams;
use locus_kernels::ge::GeParams;
use locus_kernels::heat::HeatParams;
use locus_kernels::knapsack::KnapsackParams;
use locus_kernels::mandelbrot::MandelbrotParams;
use locus_kernels::nqueens::NqueensParams;
use locus_kernels::sor::SorParams;
use locus_kernels::sort::SortParams;
use locus_kernels::{Kernel, Params};

#[test]
fn kernel_names() {
    for k in Kernel::ALL {
        assert_eq!(k.to_string().parse::<Kernel>().unwrap(), k);
        assert_eq!(k.default_params().kernel(), k);
    }
    assert_eq!(" Heat ".parse::<Kernel>().unwrap(), Kernel::Heat);
    assert_eq!("HEAT-UB".parse::<Kernel>().unwrap(), Kernel::HeatUb);
    assert_eq!("queens".parse::<Kernel>().unwrap(), Kernel::Nqueens);
    assert_eq!(" Queens ".parse::<Kernel>().unwrap(), Kernel::Nqueens);
    assert!("heat_ub".parse::<Kernel>().is_err());
    let names: Vec<_> = Kernel::ALL.map(Kernel::name).into();
    assert_eq!(
        names,
        [
            "fib",
            "nqueens",
            "heat",
            "sort",
            "heat-ub",
            "heat-loop",
            "heat-iter",
            "heat-moving",
            "sor",
            "sor-ub",
            "ge",
            "ge-ub",
            "mergesort",
            "mandelbrot",
            "fft",
            "knapsack",
            "spmv-crs",
            "spmv-iter",
            "spmv-ccs",
            "spmm",
            "radix",
            "irreg",
            "mapreduce"
        ]
    );
    let err = "fibonacci".parse::<Kernel>().unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("\"fibonacci\""), "{msg}");
    for k in Kernel::ALL {
        assert!(msg.contains(k.name()), "{msg} lacks {k}");
    }
    assert_eq!(err.input(), "fibonacci");
}

#[test]
fn valid_sizes() {
    let cases: &[(Kernel, &str, Params)] = &[
        (
            Kernel::Fib,
            "30",
            Params::Fib(FibParams { n: 30, cutoff: 0 }),
        ),
        (
            Kernel::Fib,
            "30,cutoff=0",
            Params::Fib(FibParams { n: 30, cutoff: 0 }),
        ),
        (
            Kernel::Fib,
            " 25 , cutoff = 12 ",
            Params::Fib(FibParams { n: 25, cutoff: 12 }),
        ),
        (
            Kernel::Nqueens,
            "11",
            Params::Nqueens(NqueensParams { n: 11, depth: 3 }),
        ),
        (
            Kernel::Nqueens,
            "12,depth=5",
            Params::Nqueens(NqueensParams { n: 12, depth: 5 }),
        ),
        (
            Kernel::Heat,
            "1024x512",
            Params::Heat(HeatParams {
                rows: 1024,
                cols: 512,
                ..HeatParams::default()
            }),
        ),
        (
            Kernel::Heat,
            "2048X256,iters=4,leaf=16",
            Params::Heat(HeatParams {
                rows: 2048,
                cols: 256,
                leaf: 16,
                iters: 4,
                ..HeatParams::default()
            }),
        ),
        (Kernel::Sort, "1048576", Params::Sort(SortParams::default())),
        (
            Kernel::Sort,
            "1_000_000,cutoff=1024,seed=9",
            Params::Sort(SortParams {
                n: 1_000_000,
                cutoff: 1024,
                seed: 9,
            }),
        ),
        (
            Kernel::HeatUb,
            "64x32,leaf=2",
            Params::HeatUb(HeatParams {
                rows: 64,
                cols: 32,
                leaf: 2,
                ..HeatParams::default()
            }),
        ),
        (Kernel::Sor, "1024x512", Params::Sor(SorParams::default())),
        (
            Kernel::Sor,
            "1024x512,leaf=8,iters=10,omega=1.25",
            Params::Sor(SorParams::default()),
        ),
        (
            Kernel::SorUb,
            "100x50,omega=1.9,iters=3,seed=2",
            Params::SorUb(SorParams {
                rows: 100,
                cols: 50,
                iters: 3,
                omega: 1.9,
                seed: 2,
                ..SorParams::default()
            }),
        ),
        (
            Kernel::SorUb,
            "100x50,omega=1",
            Params::SorUb(SorParams {
                rows: 100,
                cols: 50,
                omega: 1.0,
                ..SorParams::default()
            }),
        ),
        (Kernel::Ge, "512", Params::Ge(GeParams::default())),
        (
            Kernel::GeUb,
            "300,leaf=4,seed=1",
            Params::GeUb(GeParams {
                n: 300,
                leaf: 4,
                seed: 1,
            }),
        ),
        (
            Kernel::Mergesort,
            "1048576,cutoff=4096",
            Params::Mergesort(SortParams::default()),
        ),
        (
            Kernel::Mandelbrot,
            "256x256",
            Params::Mandelbrot(MandelbrotParams::default()),
        ),
        (
            Kernel::Mandelbrot,
            "100X200,leaf=1,maxiter=1000",
            Params::Mandelbrot(MandelbrotParams {
                rows: 100,
                cols: 200,
                maxiter: 1000,
                leaf: 1,
            }),
        ),
        (Kernel::Fft, "262144", Params::Fft(FftParams::default())),
        (Kernel::Fft, "2^18", Params::Fft(FftParams::default())),
        (
            Kernel::Fft,
            "2 ^ 0,cutoff=1",
            Params::Fft(FftParams {
                n: 1,
                cutoff: 1,
                ..FftParams::default()
            }),
        ),
        (
            Kernel::Knapsack,
            "48",
            Params::Knapsack(KnapsackParams::default()),
        ),
        (
            Kernel::Knapsack,
            "20,depth=0,seed=3",
            Params::Knapsack(KnapsackParams {
                n: 20,
                depth: 0,
                seed: 3,
            }),
        ),
    ];
    for (kernel, s, want) in cases {
        let got = kernel.parse_size(s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&got, want, "{kernel} {s:?}");
        let again = kernel.parse_size(&got.to_string()).unwrap();
        assert_eq!(again, got, "round trip of {got}");
    }
    for k in Kernel::ALL {
        let d = k.default_params();
        assert_eq!(k.parse_size(&d.to_string()).unwrap(), d);
    }
}

#[test]
fn broken_sizes() {
    let cases: &[(Kernel, &str, &str)] = &[
        (Kernel::Fib, "", "empty"),
        (Kernel::Fib, "   ", "empty"),
        (Kernel::Fib, "abc", "not a non-negative integer"),
        (Kernel::Fib, "-3", "not a non-negative integer"),
        (Kernel::Fib, "94", "overflows"),
        (Kernel::Fib, "30,", "empty option"),
        (Kernel::Fib, "30,cutoff", "key=value"),
        (Kernel::Fib, "30,cutoff=", "no value"),
        (Kernel::Fib, "30,=4", "no key"),
        (Kernel::Fib, "30,leaf=4", "unknown option"),
        (Kernel::Fib, "30,cutoff=1,cutoff=2", "twice"),
        (Kernel::Fib, "cutoff=3", "must come first"),
        (Kernel::Fib, ",cutoff=3", "missing"),
        (Kernel::Fib, "99999999999999999999", "too large"),
        (Kernel::Nqueens, "0", "outside"),
        (Kernel::Nqueens, "19", "outside"),
        (Kernel::Nqueens, "10,depth=x", "depth"),
        (Kernel::Nqueens, "8x8", "not a non-negative integer"),
        (Kernel::Heat, "1024", "ROWSxCOLS"),
        (Kernel::Heat, "1024x", "COLS"),
        (Kernel::Heat, "x512", "ROWS"),
        (Kernel::Heat, "2x512", "too small"),
        (Kernel::Heat, "1024x512,leaf=0", "leaf"),
        (Kernel::Heat, "1024x512,iters=ten", "iters"),
        (Kernel::Heat, "1024x512x3", "COLS"),
        (Kernel::Heat, "99999999999x99999999999", "too large"),
        (Kernel::Sort, "0", "at least 1"),
        (Kernel::Sort, "1e6", "not a non-negative integer"),
        (Kernel::Sort, "1000,cutoff=0", "cutoff"),
        (Kernel::Sort, "1000,depth=3", "unknown option"),
        (Kernel::Sort, "1000;cutoff=3", "not a non-negative integer"),
        (Kernel::HeatUb, "1024", "ROWSxCOLS"),
        (Kernel::HeatUb, "2x512", "too small"),
        (Kernel::HeatUb, "1024x512,leaf=0", "leaf"),
        (Kernel::HeatUb, "1024x512,omega=1", "unknown option"),
        (Kernel::Sor, "512", "ROWSxCOLS"),
        (Kernel::Sor, "1024x512,omega=2", "outside (0, 2)"),
        (Kernel::Sor, "1024x512,omega=0", "outside (0, 2)"),
        (Kernel::Sor, "1024x512,omega=NaN", "outside (0, 2)"),
        (Kernel::Sor, "1024x512,omega=fast", "not a number"),
        (Kernel::Sor, "1024x512,leaf=0", "leaf"),
        (Kernel::Sor, "1024x512,cutoff=4", "unknown option"),
        (Kernel::SorUb, "3x2", "too small"),
        (Kernel::SorUb, "1024x512,omega=-1", "outside (0, 2)"),
        (Kernel::SorUb, "1024x512,iters=-1", "iters"),
        (Kernel::Ge, "0", "at least 1"),
        (Kernel::Ge, "512x512", "not a non-negative integer"),
        (Kernel::Ge, "512,leaf=0", "leaf"),
        (Kernel::Ge, "512,iters=2", "unknown option"),
        (Kernel::Ge, "9999999999", "too large"),
        (Kernel::GeUb, "", "empty"),
        (Kernel::GeUb, "abc", "not a non-negative integer"),
        (Kernel::GeUb, "64,leaf=x", "leaf"),
        (Kernel::Mergesort, "0", "at least 1"),
        (Kernel::Mergesort, "1e6", "not a non-negative integer"),
        (Kernel::Mergesort, "1000,cutoff=0", "cutoff"),
        (Kernel::Mandelbrot, "256", "ROWSxCOLS"),
        (Kernel::Mandelbrot, "0x256", "at least 1"),
        (Kernel::Mandelbrot, "256x256,maxiter=0", "maxiter"),
        (Kernel::Mandelbrot, "256x256,leaf=0", "leaf"),
        (Kernel::Mandelbrot, "256x256,iters=9", "unknown option"),
        (Kernel::Fft, "1000", "not a power of two"),
        (Kernel::Fft, "0", "not a power of two"),
        (Kernel::Fft, "2^31", "too large"),
        (Kernel::Fft, "4^9", "powers of 2"),
        (Kernel::Fft, "2^x", "exponent"),
        (Kernel::Fft, "1024,cutoff=0", "cutoff"),
        (Kernel::Knapsack, "0", "outside"),
        (Kernel::Knapsack, "65", "outside"),
        (Kernel::Knapsack, "48,depth=-1", "depth"),
        (Kernel::Knapsack, "48,cutoff=4", "unknown option"),
        // No input of size 0, no run of 0 iterations, none of more than MAX_ITERS.
        (Kernel::Fib, "0", "N = 0 is no input"),
        (Kernel::Heat, "1024x512,iters=0", "at least one iteration"),
        (Kernel::HeatUb, "64x64,iters=0", "at least one iteration"),
        (Kernel::HeatLoop, "64x64,iters=0", "at least one iteration"),
        (Kernel::HeatIter, "64x64,iters=0", "at least one iteration"),
        (Kernel::HeatIter, "1024", "ROWSxCOLS"),
        (Kernel::HeatIter, "2x512", "too small"),
        (Kernel::HeatIter, "1024x512,leaf=0", "leaf"),
        (Kernel::HeatIter, "1024x512,grain=8", "unknown option"),
        (Kernel::HeatIter, "99999999999x99999999999", "too large"),
        (
            Kernel::SpmvIter,
            "laplace2d:8,iters=0",
            "at least one iteration",
        ),
        (Kernel::SpmvIter, "laplace2d:0", "at least 1"),
        (Kernel::SpmvIter, "laplace2d:8,grain=0", "grain"),
        (Kernel::SpmvIter, "laplace2d:8,leaf=4", "unknown option"),
        (Kernel::MapReduce, "0", "at least 1"),
        (Kernel::MapReduce, "", "empty"),
        (Kernel::MapReduce, "1e6", "not a non-negative integer"),
        (Kernel::MapReduce, "1000,grain=0", "grain"),
        (Kernel::MapReduce, "1000,iters=0", "at least one iteration"),
        (Kernel::MapReduce, "1000,iters=10001", "10000"),
        (Kernel::MapReduce, "1000,leaf=4", "unknown option"),
        (Kernel::MapReduce, "99999999999999999999", "too large"),
        (Kernel::MapReduce, "4611686018427387904", "too large"),
        (
            Kernel::HeatMoving,
            "64x64,iters=0",
            "at least one iteration",
        ),
        (Kernel::Sor, "64x64,iters=0", "at least one iteration"),
        (
            Kernel::SpmvCrs,
            "laplace2d:8,iters=0",
            "at least one iteration",
        ),
        (
            Kernel::SpmvCcs,
            "laplace2d:8,iters=0",
            "at least one iteration",
        ),
        (
            Kernel::Spmm,
            "laplace2d:8,iters=0",
            "at least one iteration",
        ),
        (Kernel::Radix, "1000,iters=0", "at least one iteration"),
        (Kernel::Irreg, "small,iters=0", "at least one iteration"),
        (Kernel::Irreg, "small,iters=100000000", "10000"),
        (Kernel::Heat, "64x64,iters=10001", "10000"),
        (Kernel::Radix, "0", "at least 1"),
        (Kernel::Irreg, "0:0", "outside"),
        (Kernel::SpmvCrs, "laplace2d:0", "at least 1"),
    ];
    for (kernel, s, reason) in cases {
        let err = kernel
            .parse_size(s)
            .expect_err(&format!("{kernel} {s:?} should not parse"));
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{s:?}")),
            "{kernel} {s:?}: message lacks the input: {msg}"
        );
        assert!(
            msg.contains(kernel.name()),
            "{kernel} {s:?}: message lacks the kernel: {msg}"
        );
        assert!(
            msg.contains("expected"),
            "{kernel} {s:?}: message lacks the syntax: {msg}"
        );
        assert!(
            msg.contains(reason),
            "{kernel} {s:?}: message lacks {reason:?}: {msg}"
        );
        assert_eq!(err.input(), *s);
    }
}

/// Random strings, and random edits of valid sizes, never panic the parser: each parses
/// or is refused with a message naming the input. Bounded (a fixed seed, a few thousand
/// strings), so it runs in the suite; the seed is printed.
#[test]
fn random_sizes_never_panic() {
    use locus_kernels::rng::SplitMix64;
    const ALPHABET: &[u8] = b"0123456789x,=:^_ -.abcdefghiklmnoprstuwyz";
    let seed = 0x4655_5a5a; // "FUZZ"
    println!("random sizes from seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let mut below = |n: usize| (rng.next_u64() % n as u64) as usize;
    let mut refused = 0;
    for round in 0..4000 {
        let kernel = Kernel::ALL[round % Kernel::ALL.len()];
        let mut text: Vec<u8> = if round % 2 == 0 {
            // A valid size, then a few random edits.
            kernel.default_params().to_string().into_bytes()
        } else {
            Vec::new()
        };
        for _ in 0..1 + below(12) {
            let c = ALPHABET[below(ALPHABET.len())];
            match below(3) {
                0 if !text.is_empty() => {
                    let i = below(text.len());
                    text.remove(i);
                }
                1 if !text.is_empty() => {
                    let i = below(text.len());
                    text[i] = c;
                }
                _ => {
                    let i = below(text.len() + 1);
                    text.insert(i, c);
                }
            }
        }
        let text = String::from_utf8(text).expect("ASCII");
        // matrix=PATH would read files; the reader has its own tests.
        if text.contains("matrix") {
            continue;
        }
        match kernel.parse_size(&text) {
            Ok(params) => {
                // What parses round-trips and can be estimated.
                let again = kernel.parse_size(&params.to_string()).unwrap();
                assert_eq!(again, params, "{kernel} {text:?}");
                let _ = params.estimate();
            }
            Err(e) => {
                refused += 1;
                assert!(e.to_string().contains(&format!("{text:?}")), "{e}");
            }
        }
    }
    assert!(refused > 1000, "only {refused} strings were refused");
}
