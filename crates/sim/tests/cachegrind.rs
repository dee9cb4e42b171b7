//! The simulator's single-core caches against cachegrind's, with the prefetcher off
//! (cachegrind has none): this test binary walks an array under `valgrind
//! --tool=cachegrind` with the caches of [`TOPOLOGY`], and the simulator walks the same
//! lines on a core of that topology. Their first-level and last-level data misses agree
//! within 2%. Cachegrind counts the whole process (the loader, the test harness), so the
//! walk's misses are its count less that of the same process with no sweeps.
//!
//! A process of its own: the walk runs in a child, this binary under valgrind. Where
//! valgrind is not installed the comparison says so and passes.

use locus_sim::latency::Latencies;
use locus_sim::machine::Machine;
use locus_topo::Topology;
use std::process::Command;

/// One core, its L1d and L2 as cachegrind's `--D1` and `--LL` below.
const TOPOLOGY: &str = "pack:1 numa:1 l2:1(size=256KiB linesize=64 ways=8) \
     l1d:1(size=32KiB linesize=64 ways=8) core:1 pu:1";
const CACHEGRIND: [&str; 3] = ["--D1=32768,8,64", "--LL=262144,8,64", "--I1=32768,8,64"];

/// The array's lines: 4 MiB, beyond both caches.
const LINES: usize = 65_536;
/// The environment variable that makes [`walk`] sweep (`1`) or not (`0`).
const SWEEPS: &str = "LOCUS_CACHEGRIND_SWEEPS";

/// One line of the array.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line([u64; 8]);

/// The lines the walk reads, in order: 300 sweeps of the first 3,072 lines (192 KiB:
/// beyond the L1d, within the L2), then 20 of the whole array one line apart, then 20
/// three lines apart.
fn walk_lines() -> impl Iterator<Item = usize> {
    let small = (0..300).flat_map(|_| 0..3072);
    let whole = (0..20).flat_map(|_| 0..LINES);
    let strided = (0..20).flat_map(|_| (0..LINES).step_by(3));
    small.chain(whole).chain(strided)
}

/// The child's walk: reads one word of each line [`walk_lines`] names, if [`SWEEPS`]
/// is `1`; the array is made either way.
#[test]
#[ignore = "run by the comparison, under valgrind"]
fn walk() {
    let array = vec![Line([1; 8]); LINES];
    let mut sum = 0u64;
    if std::env::var(SWEEPS).as_deref() == Ok("1") {
        for l in walk_lines() {
            // SAFETY: `l < LINES`, so the pointer is to an element of `array`, aligned
            // and initialised; a volatile read keeps exactly one load per line.
            sum = sum.wrapping_add(unsafe { std::ptr::read_volatile(&array[l].0[0]) });
        }
    }
    std::hint::black_box(sum);
}

/// The number after `label` on the line of cachegrind's summary that has it
/// (`==1== D1  misses:   1,234  ( 1,000 rd + 234 wr)`), or `None`.
fn summary_count(output: &str, label: &str) -> Option<u64> {
    let line = output.lines().find(|l| l.contains(label))?;
    let after = line.split(label).nth(1)?;
    let number = after.split_whitespace().next()?;
    number.replace(',', "").parse().ok()
}

/// Cachegrind's first-level and last-level data misses of the walk with [`SWEEPS`]
/// set to `sweeps`, or `None` without valgrind.
fn cachegrind(sweeps: &str) -> Option<(u64, u64)> {
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--cachegrind-out-file=/dev/null",
        ])
        .args(CACHEGRIND)
        .arg(exe)
        .args(["walk", "--ignored", "--exact", "--test-threads=1"])
        .env(SWEEPS, sweeps)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "valgrind failed:\n{stderr}");
    let d1 = summary_count(&stderr, "D1  misses:");
    let ll = summary_count(&stderr, "LLd misses:");
    Some((
        d1.unwrap_or_else(|| panic!("no D1 misses in\n{stderr}")),
        ll.unwrap_or_else(|| panic!("no LLd misses in\n{stderr}")),
    ))
}

#[test]
fn single_core_misses_agree_with_cachegrind() {
    let Some((d1_walk, ll_walk)) = cachegrind("1") else {
        eprintln!("valgrind not found: the comparison with cachegrind was not run");
        return;
    };
    let (d1_none, ll_none) = cachegrind("0").expect("valgrind ran once already");
    let (d1, ll) = (d1_walk - d1_none, ll_walk - ll_none);

    let topology = Topology::from_synthetic(TOPOLOGY).expect("topology");
    // The prefetcher off: cachegrind has none.
    let lat = Latencies {
        prefetch_degree: 0,
        ..Latencies::generic()
    };
    let pages = (LINES as u64 * 64).div_ceil(4096);
    let mut m = Machine::new(&topology, lat, pages).expect("machine");
    for l in walk_lines() {
        m.access(0, l as u64, false);
    }
    let c = m.counts()[0];
    let (sim_l1, sim_l2) = (c.misses[0], c.misses[1]);
    for (what, sim, grind) in [("L1d", sim_l1, d1), ("L2 (LL)", sim_l2, ll)] {
        let ratio = sim as f64 / grind as f64;
        eprintln!("{what} misses: simulator {sim}, cachegrind {grind} ({ratio:.4})");
        assert!(
            (ratio - 1.0).abs() < 0.02,
            "{what} misses: simulator {sim}, cachegrind {grind} ({ratio:.4})"
        );
    }
}

#[test]
fn the_summary_parser_takes_cachegrind_s_lines_and_refuses_others() {
    let out = "==7== D1  misses:      3,276,532  (  3,210,000 rd   +      66,532 wr)\n\
               ==7== LLd misses:      2,621,440  (  2,555,000 rd   +      66,440 wr)\n";
    assert_eq!(summary_count(out, "D1  misses:"), Some(3_276_532));
    assert_eq!(summary_count(out, "LLd misses:"), Some(2_621_440));
    assert_eq!(summary_count(out, "LLi misses:"), None, "no such line");
    for broken in [
        "==7== D1  misses:",
        "==7== D1  misses:  many",
        "==7== D1  misses:  -3",
        "==7== D1  misses:  99,999,999,999,999,999,999",
    ] {
        assert_eq!(summary_count(broken, "D1  misses:"), None, "{broken:?}");
    }
}
