//! Kernel names and `--size` strings: valid ones parse (and round-trip through
//! `Display`), broken ones give an error naming the input and the expected syntax.

use locus_kernels::fib::FibParams;
use locus_kernels::heat::HeatParams;
use locus_kernels::nqueens::NqueensParams;
use locus_kernels::sort::SortParams;
use locus_kernels::{Kernel, Params};

#[test]
fn kernel_names() {
    for k in Kernel::ALL {
        assert_eq!(k.to_string().parse::<Kernel>().unwrap(), k);
        assert_eq!(k.default_params().kernel(), k);
    }
    assert_eq!(" Heat ".parse::<Kernel>().unwrap(), Kernel::Heat);
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
