//! A loop over many indices at grain 1 under a chosen policy and machine, and the peak
//! resident memory it took: loops must not allocate a job per chunk up front.
//!
//! `cargo run --release -p locus --example big_loop -- [N] [POLICY] [MACHINE]`
//! (defaults: 100000000, ws, this machine).

use locus::{PolicyKind, ThreadPoolBuilder, Topology};
use std::sync::atomic::{AtomicU64, Ordering};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = match args.first().map(|s| s.parse()) {
        None => 100_000_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => exit(&format!("N {:?}: {e}", args[0])),
    };
    let policy: PolicyKind = match args.get(1).map_or("ws", String::as_str).parse() {
        Ok(p) => p,
        Err(e) => exit(&format!("POLICY: {e}")),
    };
    let mut builder = ThreadPoolBuilder::new().policy(policy.clone());
    if let Some(spec) = args.get(2) {
        match Topology::parse_spec(spec) {
            Ok(t) => builder = builder.topology(t),
            Err(e) => exit(&format!("MACHINE {spec:?}: {e}")),
        }
    }
    let pool = builder
        .build()
        .unwrap_or_else(|e| exit(&locus::error_chain(&e)));
    let before = peak_rss_kib();
    let sum = AtomicU64::new(0);
    let start = std::time::Instant::now();
    pool.install(|| {
        locus::for_range(0..n, 1, |r| {
            sum.fetch_add(r.start as u64, Ordering::Relaxed);
        })
    });
    let expected = (n as u64).saturating_sub(1) * n as u64 / 2;
    assert_eq!(sum.into_inner(), expected, "every index once");
    println!(
        "{n} chunks under {policy}: {:.2} s, peak RSS {} MiB before the loop, {} MiB after",
        start.elapsed().as_secs_f64(),
        before / 1024,
        peak_rss_kib() / 1024
    );
}

/// The process's peak resident set (VmHWM), in KiB; 0 where /proc does not say.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn exit(message: &str) -> ! {
    eprintln!("big_loop: {message}");
    std::process::exit(2)
}
