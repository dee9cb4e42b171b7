//! An idle pool uses no CPU: once its work is done, the workers spin briefly and then
//! sleep until there is work again. Measured as this process's CPU time (user + system,
//! from `/proc/self/stat`) over half a second of idleness, against a bound far below what
//! one spinning worker would burn. Its own test binary, so no other test's threads run.

use locus::{PolicyKind, ThreadPoolBuilder, Topology};
use std::time::Duration;

/// CPU time of this process in clock ticks (usually 10 ms), or `None` off Linux.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 of `rest`.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

#[test]
fn an_idle_pool_sleeps() {
    if cfg!(miri) {
        return; // Miri has no /proc, and its clock is not the machine's.
    }
    for policy in [
        PolicyKind::Ws,
        PolicyKind::Mts { batch: None },
        PolicyKind::RrFifo,
    ] {
        // Eight workers on a virtual four-socket machine: more workers than cores, so
        // spinning ones would show.
        let pool = ThreadPoolBuilder::new()
            .num_threads(8)
            .policy(policy.clone())
            .topology(Topology::parse_spec("opteron-8380").unwrap())
            .build()
            .unwrap();
        let sum = pool.install(|| {
            let (a, b) = locus::join(
                || (0..1000u64).sum::<u64>(),
                || (1000..2000u64).sum::<u64>(),
            );
            a + b
        });
        assert_eq!(sum, 1_999_000);
        std::thread::sleep(Duration::from_millis(200)); // let the spinning end
        let Some(before) = cpu_ticks() else { return };
        std::thread::sleep(Duration::from_millis(500));
        let used = cpu_ticks().unwrap() - before;
        // One spinning worker would use all 50 ticks of the half second.
        assert!(
            used <= 5,
            "{policy}: an idle pool used {used} ticks of CPU in 500 ms"
        );
        assert!(
            pool.stats().total().sleeps >= 1,
            "{policy}: the workers never slept"
        );
    }
}
