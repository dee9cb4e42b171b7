//! Known values: fib and nqueens against published numbers, under several executors.

use locus_kernels::{fib, nqueens, Rayon, Serial};

#[test]
fn fib_known_values() {
    let known: &[(u32, u64)] = &[
        (0, 0),
        (1, 1),
        (2, 1),
        (10, 55),
        (20, 6765),
        (30, 832_040),
        (50, 12_586_269_025),
        (93, 12_200_160_415_121_876_738),
    ];
    for &(n, f) in known {
        assert_eq!(fib::reference(n), f, "reference fib({n})");
    }
    let rayon = Rayon::new(2).unwrap();
    for &(n, f) in known.iter().filter(|(n, _)| *n <= 22) {
        assert_eq!(fib::fib(&Serial, n, 0), f, "serial fib({n})");
        assert_eq!(fib::fib_recursive(n), f, "recursive fib({n})");
        for cutoff in [0, 5, 12, 100] {
            let got = locus_kernels::Executor::install(&rayon, || fib::fib(&rayon, n, cutoff));
            assert_eq!(got, f, "rayon fib({n}) cutoff {cutoff}");
        }
    }
}

#[test]
fn nqueens_known_values() {
    let known = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680];
    let rayon = Rayon::new(4).unwrap();
    for (i, &count) in known.iter().enumerate() {
        let n = i as u32 + 1;
        assert_eq!(nqueens::known(n), Some(count));
        assert_eq!(nqueens::reference(n), count, "reference nqueens({n})");
        for depth in [0, 1, 3, n] {
            assert_eq!(
                nqueens::count(&Serial, n, depth),
                count,
                "serial n={n} depth={depth}"
            );
            let got = locus_kernels::Executor::install(&rayon, || nqueens::count(&rayon, n, depth));
            assert_eq!(got, count, "rayon n={n} depth={depth}");
        }
    }
    assert_eq!(nqueens::known(14), Some(365_596));
    assert_eq!(nqueens::known(19), None);
}
