//! The matrix: every locus policy x every kernel x threads {1, 2, 4, 8} x
//! machines {this one, `2x1`, `opteron-8380` laid over this machine's cores}, each run
//! verified against the kernel's serial reference. Sizes are small but deep enough that
//! every policy moves work between workers (heat and sort split below their leaves).

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
    ]
}

#[test]
fn every_policy_kernel_thread_count_and_machine_verifies() {
    let mut prepared: Vec<_> = sizes()
        .into_iter()
        .map(|(k, s)| k.parse_size(s).expect("valid size").prepare())
        .collect();
    let mut runs = 0;
    for policy in PolicyKind::ALL {
        for machine in MACHINES {
            for threads in THREADS {
                let mut builder = ThreadPoolBuilder::new().num_threads(threads).policy(policy);
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
