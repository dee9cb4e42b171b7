//! One pool per socket, each owning its part of one array (a half on two sockets): it
//! first-touches its part inside its pool, so on Linux the pages land on its socket's
//! memory, then sweeps it there, iteration after iteration, never reaching into the
//! other socket's part or memory.
//!
//! `cargo run --release -p locus --example per_socket -- [MACHINE] [N] [SWEEPS]`
//! (defaults: this machine, or the virtual `2x2` laid over it where it has a single
//! socket; 4,000,000 elements; 10 sweeps). `cargo test` runs it with the defaults.

use locus::domains::{self, Domain};
use locus::prelude::*;
use locus::{ThreadPoolBuilder, Topology};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let machine = match args.first() {
        Some(spec) => Topology::parse_spec(spec)
            .unwrap_or_else(|e| exit(&format!("MACHINE: {}", locus::error_chain(&e)))),
        None => match Topology::discover() {
            Ok(t) if t.num_packages() >= 2 => t,
            _ => Topology::parse_spec("2x2").unwrap_or_else(|e| exit(&e.to_string())),
        },
    };
    let n: usize = parse(args.get(1), "N", 4_000_000);
    let sweeps: usize = parse(args.get(2), "SWEEPS", 10);
    if let Err(e) = run(machine, n, sweeps) {
        exit(&e);
    }
}

/// Builds one pool per socket of `machine` and sweeps an array of `n` elements split
/// among them `sweeps` times; checks the result against a serial sweep.
fn run(machine: Topology, n: usize, sweeps: usize) -> Result<(), String> {
    let pools = ThreadPoolBuilder::new()
        .topology(machine)
        .build_per_domain(Domain::Package)
        .map_err(|e| locus::error_chain(&e))?;
    println!(
        "{} pools on {}: {}",
        pools.len(),
        pools[0].topology().name(),
        pools
            .iter()
            .map(|d| format!("socket {} on CPUs {:?}", d.index(), d.cpus()))
            .collect::<Vec<_>>()
            .join(", ")
    );

    // A large zeroed allocation takes fresh pages from the kernel: none is touched yet.
    let mut data = vec![0.0f64; n];
    let part = n.div_ceil(pools.len()).max(1);

    // First touch: each pool writes its own part, so its pages are placed on its node.
    domains::run_with(&pools, data.chunks_mut(part), |d, mine| {
        let base = d.index() * part;
        mine.par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = (base + i) as f64);
    });

    // Sweeps: each pool works on its own part, on its own workers, only.
    for _ in 0..sweeps {
        domains::run_with(&pools, data.chunks_mut(part), |_, mine| {
            mine.par_iter_mut().for_each(|x| *x = 0.5 * *x + 1.0);
        });
    }
    let sums = domains::run_with(&pools, data.chunks(part), |_, mine| {
        mine.par_iter().sum::<f64>()
    });

    // Check against the same arithmetic done serially.
    let expected: f64 = (0..n)
        .map(|i| (0..sweeps).fold(i as f64, |x, _| 0.5 * x + 1.0))
        .sum();
    let total: f64 = sums.iter().sum();
    println!("sums per socket {sums:?}; total {total} (serial {expected})");
    if (total - expected).abs() > 1e-9 * expected.abs().max(1.0) {
        return Err(format!("wrong total: {total}, expected {expected}"));
    }
    Ok(())
}

fn parse(arg: Option<&String>, name: &str, default: usize) -> usize {
    match arg.map(|s| s.parse::<usize>()) {
        None => default,
        Some(Ok(v)) => v,
        Some(Err(e)) => exit(&format!("{name} {:?}: {e}", arg.map_or("", |s| s))),
    }
}

fn exit(msg: &str) -> ! {
    eprintln!("per_socket: {msg}");
    std::process::exit(2)
}

#[test]
fn sweeps_per_socket_on_two_and_four_sockets() {
    for spec in ["2x2", "opteron-8380"] {
        let machine = Topology::parse_spec(spec).expect("a valid machine");
        run(machine, 100_000, 3).expect("the sweeps add up");
    }
}
