//! Every kernel verifies against its serial reference under `Serial` and under rayon
//! pools of 1, 2 and 4 threads, at small sizes, through both the per-kernel `verify`
//! and the uniform `Prepared` entry (several repetitions, so `reset` is exercised).

use locus_kernels::{fib, heat, nqueens, sort, Executor, Kernel, Params, Rayon, Serial};

/// Small sizes per kernel, including awkward shapes (odd sizes, leaf/cutoff of 1,
/// sizes not a multiple of the leaf, zero iterations).
fn small_params() -> Vec<Params> {
    let sizes: &[(Kernel, &str)] = &[
        (Kernel::Fib, "0"),
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
    ];
    sizes
        .iter()
        .map(|(k, s)| k.parse_size(s).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn check_all<E: Executor>(ex: &E) {
    for params in small_params() {
        let what = format!("{} {} on {}", params.kernel(), params, ex.name());
        let outcome = match params {
            Params::Fib(p) => fib::verify(ex, &p),
            Params::Nqueens(p) => nqueens::verify(ex, &p),
            Params::Heat(p) => heat::verify(ex, &p),
            Params::Sort(p) => sort::verify(ex, &p),
        };
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
