//! `locus::counters`: the `perf` source agrees with `probe_perf`, the `declared` source
//! counts each thread's own declarations, and `LOCUS_COUNTERS` chooses the source. This
//! file is its own test binary because it installs the process-wide footprint sink and
//! changes the process environment (under `ENV`).

use locus::counters::{self, CounterKind, Sample};
use locus::error_chain;
use std::sync::{Barrier, Mutex};

const LINE: u32 = 64;

static ENV: Mutex<()> = Mutex::new(());

fn with_counters_env<R>(value: Option<&str>, f: impl FnOnce() -> R) -> R {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    match value {
        Some(v) => std::env::set_var(counters::ENV_VAR, v),
        None => std::env::remove_var(counters::ENV_VAR),
    }
    let r = f();
    std::env::remove_var(counters::ENV_VAR);
    r
}

fn lines_of(addr: usize, len: usize) -> u64 {
    let line = LINE as usize;
    ((addr + len - 1) / line - addr / line + 1) as u64
}

#[test]
fn probe_and_open_perf_agree() {
    match counters::probe_perf() {
        Ok(()) => {
            let source = counters::open(CounterKind::Perf, LINE).expect("probe succeeded");
            assert_eq!(source.kind(), CounterKind::Perf);
            assert!(
                source.describe().starts_with("perf: "),
                "{}",
                source.describe()
            );
            let mut thread = source.open_thread().unwrap();
            let before = thread.read();
            let data = vec![1u64; 1 << 16];
            let sum: u64 = std::hint::black_box(&data).iter().sum();
            assert_eq!(sum, 1 << 16);
            let after = thread.read();
            assert!(
                after.instructions > before.instructions,
                "{before:?} {after:?}"
            );
            assert_eq!(after.bytes, after.private_llc_misses * u64::from(LINE));
        }
        Err(probe) => {
            let reason = error_chain(&probe);
            eprintln!("no hardware counters here: {reason}");
            assert!(reason.contains("perf_event_open"), "{reason}");
            assert!(reason.contains("os error"), "the errno is named: {reason}");
            let open = counters::open(CounterKind::Perf, LINE).unwrap_err();
            assert_eq!(error_chain(&open), reason);
        }
    }
}

#[test]
fn auto_takes_perf_or_says_why_not() {
    let source = counters::auto(LINE);
    assert_eq!(source.line_size(), LINE);
    match counters::probe_perf() {
        Ok(()) => assert_eq!(source.kind(), CounterKind::Perf),
        Err(probe) => {
            assert_eq!(source.kind(), CounterKind::Declared);
            let text = source.describe();
            assert!(text.starts_with("declared: "), "{text}");
            assert!(
                text.contains(&format!("no hardware counters: {}", error_chain(&probe))),
                "{text}"
            );
        }
    }
}

#[test]
fn declared_counts_this_threads_bytes_and_lines() {
    let source = counters::open(CounterKind::Declared, LINE).unwrap();
    assert_eq!(source.kind(), CounterKind::Declared);
    assert!(
        source.describe().contains("locus::footprint"),
        "{}",
        source.describe()
    );

    let barrier = Barrier::new(2);
    let noise = vec![0u8; 1 << 20];
    std::thread::scope(|s| {
        // Another thread declares a megabyte, many times, while this one counts.
        let other = s.spawn(|| {
            let mut counters = source.open_thread().unwrap();
            barrier.wait();
            for _ in 0..100 {
                locus::footprint::read_slice(&noise);
            }
            barrier.wait();
            counters.read()
        });

        let mut counters = source.open_thread().unwrap();
        let start = counters.read();
        assert_eq!(start, Sample::default(), "a fresh thread starts at zero");
        barrier.wait();
        let data = vec![0u32; 1000];
        locus::footprint::read_slice(&data[3..203]); // 800 bytes, unaligned start
        locus::footprint::write_slice(&data[500..501]); // 4 bytes
        locus::footprint::read_slice(&data[..0]); // empty: nothing
        barrier.wait();
        let end = counters.read();

        let base = data.as_ptr() as usize;
        let lines = lines_of(base + 12, 800) + lines_of(base + 2000, 4);
        assert_eq!(
            end.delta(&start),
            Sample {
                private_llc_misses: lines,
                instructions: 0,
                cycles: 0,
                bytes: 804
            }
        );

        let theirs = other.join().unwrap();
        assert_eq!(theirs.bytes, 100 << 20);
        assert_eq!(
            theirs.private_llc_misses,
            100 * lines_of(noise.as_ptr() as usize, 1 << 20)
        );
    });
}

#[test]
fn declared_sources_share_one_sink() {
    let first = counters::open(CounterKind::Declared, LINE).unwrap();
    let second = counters::open(CounterKind::Declared, LINE).unwrap();
    let wide = counters::open(CounterKind::Declared, 128).unwrap();
    let mut a = first.open_thread().unwrap();
    let mut b = second.open_thread().unwrap();
    let mut w = wide.open_thread().unwrap();
    locus::footprint::read(4096, 256);
    // Counted once each, not once per opened source.
    assert_eq!(
        a.read(),
        Sample {
            private_llc_misses: 4,
            instructions: 0,
            cycles: 0,
            bytes: 256
        }
    );
    assert_eq!(b.read(), a.read());
    assert_eq!(
        w.read(),
        Sample {
            private_llc_misses: 2,
            instructions: 0,
            cycles: 0,
            bytes: 256
        }
    );
}

#[test]
fn env_chooses_the_source() {
    let kind = |value: Option<&str>| {
        with_counters_env(value, || counters::from_env(LINE).map(|s| s.kind()))
    };
    assert_eq!(kind(Some("off")).unwrap(), CounterKind::Off);
    assert_eq!(kind(Some("declared")).unwrap(), CounterKind::Declared);
    assert_eq!(kind(Some(" Declared ")).unwrap(), CounterKind::Declared);
    assert_eq!(kind(None).unwrap(), counters::auto(LINE).kind());
    assert_eq!(kind(Some("  ")).unwrap(), counters::auto(LINE).kind());
    match counters::probe_perf() {
        Ok(()) => assert_eq!(kind(Some("perf")).unwrap(), CounterKind::Perf),
        Err(probe) => {
            let err = with_counters_env(Some("perf"), || counters::from_env(LINE).unwrap_err());
            assert_eq!(
                error_chain(&err),
                error_chain(&probe),
                "perf never falls back quietly"
            );
        }
    }
}

#[test]
fn env_rejects_unknown_sources_by_name() {
    let err = with_counters_env(Some("bogus"), || counters::from_env(LINE).unwrap_err());
    let text = err.to_string();
    assert!(text.contains("LOCUS_COUNTERS"), "{text}");
    assert!(text.contains("\"bogus\""), "{text}");
    assert!(text.contains("perf, declared or off"), "{text}");
}
