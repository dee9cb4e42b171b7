//! The matrix: every locus policy x every kernel x threads {1, 2, 4, 8} x
//! machines {this one, `2x1`, `opteron-8380` laid over this machine's cores}, each run
//! verified against the kernel's serial reference. Sizes are small but deep enough that
//! every policy moves work between workers (every kernel splits below its leaves or
//! cutoff).

use locus::{PolicyKind, ThreadPoolBuilder, Topology};
use locus_kernels::{Kernel, Locus};

const MACHINES: [&str; 3] = ["this", "2x1", "opteron-8380"];
const THREADS: [usize; 4] = [1, 2, 4, 8];

fn sizes() -> Vec<(Kernel, &'static str)> {
    vec![
        (Kernel::Fib, "17"),
        (Kernel::Fib, "20,cutoff=12"),
        (Kernel::Nqueens, "7"),
        (Kernel::Heat, "66x40,leaf=4,iters=3"),
        (Kernel::Sort, "20000,cutoff=256"),
        (Kernel::HeatUb, "66x40,leaf=4,iters=3"),
        (Kernel::HeatLoop, "66x40,leaf=4,iters=3"),
        (Kernel::HeatIter, "66x40,leaf=4,iters=3"),
        (Kernel::HeatMoving, "66x40,leaf=4,iters=3,hot=3"),
        (Kernel::Sor, "66x41,leaf=4,iters=2"),
        (Kernel::SorUb, "66x40,leaf=3,iters=2"),
        (Kernel::Ge, "48,leaf=4"),
        (Kernel::GeUb, "48,leaf=3"),
        (Kernel::Mergesort, "20000,cutoff=256"),
        (Kernel::Mandelbrot, "48x48,maxiter=64,leaf=2"),
        (Kernel::Fft, "4096,cutoff=128"),
        (Kernel::Knapsack, "24,depth=6"),
        (Kernel::SpmvCrs, "laplace2d:20,iters=2,grain=16"),
        (Kernel::SpmvIter, "laplace2d:20,iters=2,grain=16"),
        (Kernel::SpmvCcs, "random:300:6,iters=2,grain=16"),
        (Kernel::Spmm, "random:120:4,iters=1,grain=8"),
        (Kernel::Radix, "20000,iters=1,grain=1024"),
        (Kernel::Irreg, "small,iters=2,grain=128"),
        (Kernel::MapReduce, "20000,iters=2,grain=64"),
    ]
}

#[test]
fn every_policy_kernel_thread_count_and_machine_verifies() {
    for k in Kernel::ALL {
        assert!(
            sizes().iter().any(|(s, _)| *s == k),
            "{k} is not in the matrix"
        );
    }
    let mut prepared: Vec<_> = sizes()
        .into_iter()
        .map(|(k, s)| k.parse_size(s).expect("valid size").prepare())
        .collect();
    let mut runs = 0;
    for policy in PolicyKind::ALL {
        for machine in MACHINES {
            for threads in THREADS {
                let mut builder = ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .policy(policy.clone());
                if machine != "this" {
                    builder = builder.topology(Topology::parse_spec(machine).expect("machine"));
                }
                let ex = Locus::new(builder.build().expect("pool"));
                for p in &mut prepared {
                    for rep in 0..2 {
                        let outcome = p.run(&ex);
                        assert!(
                            outcome.verified,
                            "{} {} under {policy}, {threads} threads on {machine}, rep {rep}: {}",
                            p.kernel(),
                            p.params(),
                            outcome.detail
                        );
                        runs += 1;
                    }
                }
            }
        }
    }
    assert_eq!(
        runs,
        PolicyKind::ALL.len() * MACHINES.len() * THREADS.len() * sizes().len() * 2
    );
}
