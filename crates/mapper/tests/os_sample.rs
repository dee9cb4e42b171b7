//! Per-thread sampling: the delta and time-sharing arithmetic on recorded counter
//! readings, the words of "counters unavailable", the real hardware path (which must be
//! well-formed whether or not this machine has counters), and the real per-thread path
//! on kernel software events, which every Linux offers: counters opened on a thread of
//! another process's worth of threads, read as deltas, new threads reported from the
//! round after they appear, gone threads dropped. Its own test binary: the threads it
//! samples are this process's.

use locus_mapper::events::{CpuId, EventTable, Field};
use locus_mapper::procs::{Caller, Procfs, Selection};
use locus_mapper::sample::{counts_between, explain_open_failure, scale, PerfSource, Reading};
use locus_mapper::{Counts, SampleSource, SourceError};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

fn r(value: u64, time_enabled: u64, time_running: u64) -> Reading {
    Reading {
        value,
        time_enabled,
        time_running,
    }
}

#[test]
fn deltas_of_counters_that_ran_all_the_time() {
    // Recorded shape: two reads 100 ms apart of a thread that ran 40 ms of them.
    let before = r(1_200_000, 30_000_000, 30_000_000);
    let after = r(2_800_000, 70_000_000, 70_000_000);
    assert_eq!(after.delta(before), Some(1_600_000));
    assert_eq!(after.delta(Reading::default()), Some(2_800_000));
    assert_eq!(after.delta(after), Some(0));
}

#[test]
fn time_shared_counters_are_scaled_by_their_share() {
    // On the PMU half of the 40 ms the thread ran: the count is doubled.
    let before = r(1_000, 10_000_000, 4_000_000);
    let after = r(6_000, 50_000_000, 24_000_000);
    assert_eq!(after.delta(before), Some(10_000));
    // One third: 7 -> 21 (integer arithmetic, rounding down).
    assert_eq!(scale(7, 3, 1), Some(21));
    assert_eq!(scale(10, 3, 2), Some(15));
    assert_eq!(scale(1, 3, 2), Some(1));
    // Scaling uses this interval's times, not the cumulative ones: a counter that ran
    // fully before and half now is scaled by 2, not by the lifetime ratio.
    let before = r(1_000_000, 100, 100);
    let after = r(1_000_050, 200, 150);
    assert_eq!(after.delta(before), Some(100));
}

#[test]
fn counters_that_never_ran_are_unknown_and_sleepers_are_zero() {
    // Enabled but never on the hardware during the interval: None, not 0.
    assert_eq!(r(500, 90, 40).delta(r(500, 50, 40)), None);
    // The thread did not run at all (per-thread counters are enabled only while it
    // runs): nothing happened.
    assert_eq!(r(500, 50, 40).delta(r(500, 50, 40)), Some(0));
    assert_eq!(scale(0, 0, 0), Some(0));
}

#[test]
fn restarted_counters_count_from_zero_instead_of_wrapping() {
    // The counter was reset (value and times went down): the interval counts from zero.
    let before = r(u64::MAX - 5, 1_000, 1_000);
    let after = r(40, 100, 50);
    assert_eq!(after.delta(before), Some(80));
    // Only the times went down: also a restart.
    assert_eq!(r(10, 5, 5).delta(r(3, 8, 8)), Some(10));
}

#[test]
fn huge_scaled_counts_saturate() {
    assert_eq!(scale(u64::MAX, 1_000, 1), Some(u64::MAX));
    assert_eq!(scale(u64::MAX / 2, 2, 1), Some(u64::MAX - 1));
    assert_eq!(
        r(u64::MAX, u64::MAX, 1).delta(Reading::default()),
        Some(u64::MAX)
    );
}

#[test]
fn counts_fill_the_fields_the_table_has() {
    let before = [
        (Field::Instructions, r(1_000, 10, 10)),
        (Field::Cycles, r(2_000, 10, 10)),
        (Field::HitmRemote, r(5, 10, 5)),
    ];
    let now = [
        (Field::Instructions, r(4_000, 20, 20)),
        (Field::Cycles, r(5_000, 20, 20)),
        (Field::HitmRemote, r(15, 20, 10)),
        // Opened this round: counts from zero.
        (Field::DramLocal, r(7, 10, 10)),
        // Never on the PMU.
        (Field::StallCycles, r(0, 10, 0)),
    ];
    assert_eq!(
        counts_between(&before, &now),
        Counts {
            instructions: 3_000,
            cycles: 3_000,
            llc_misses: None,
            stall_cycles: None,
            hitm_local: None,
            hitm_remote: Some(20),
            dram_local: Some(7),
            dram_remote: None,
        }
    );
    // Instructions and cycles cannot be None: a cycles counter that never ran reads 0.
    let counts = counts_between(&[], &[(Field::Cycles, r(9, 10, 0))]);
    assert_eq!(counts.cycles, 0);
}

fn cpu(text: &str) -> CpuId {
    CpuId::parse(text).unwrap()
}

#[test]
fn unavailable_counters_are_explained() {
    let enoent = io::Error::from_raw_os_error(libc::ENOENT);
    let vm =
        cpu("vendor_id : GenuineIntel\ncpu family : 6\nmodel : 207\nflags : fpu hypervisor avx\n");
    let text = explain_open_failure("cycles", &enoent, Some(2), Some(&vm));
    assert!(
        text.contains("perf_event_open refused the cycles counter"),
        "{text}"
    );
    assert!(
        text.contains("virtual machine without a virtual PMU"),
        "{text}"
    );
    assert!(text.contains("pmu=on"), "{text}");

    let metal = cpu("vendor_id : GenuineIntel\ncpu family : 6\nmodel : 207\nflags : fpu avx\n");
    let text = explain_open_failure("cycles", &enoent, Some(2), Some(&metal));
    assert!(
        text.contains(
            "no hardware counters for this processor (GenuineIntel family 0x6 model 0xcf)"
        ),
        "{text}"
    );
    let eopnotsupp = io::Error::from_raw_os_error(libc::EOPNOTSUPP);
    assert!(explain_open_failure("cycles", &eopnotsupp, None, None)
        .contains("no hardware counters here"));

    let eacces = io::Error::from_raw_os_error(libc::EACCES);
    let text = explain_open_failure("instructions", &eacces, Some(3), None);
    assert!(text.contains("perf_event_paranoid is 3"), "{text}");
    assert!(
        text.contains("sysctl kernel.perf_event_paranoid=2"),
        "{text}"
    );
    let text = explain_open_failure("instructions", &eacces, Some(1), None);
    assert!(text.contains("something else forbids them"), "{text}");
    let text = explain_open_failure("instructions", &eacces, None, None);
    assert!(text.contains("cannot be read"), "{text}");

    let enosys = io::Error::from_raw_os_error(libc::ENOSYS);
    assert!(explain_open_failure("cycles", &enosys, None, None).contains("CONFIG_PERF_EVENTS"));
    let other = io::Error::from_raw_os_error(libc::EBUSY);
    let text = explain_open_failure("cycles", &other, None, None);
    assert!(
        text.starts_with("perf_event_open refused the cycles counter ("),
        "{text}"
    );
}

/// A thread of this process that spins until told to stop, reporting its tid.
struct Spinner {
    tid: u32,
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<u64>>,
}

impl Spinner {
    fn start() -> Spinner {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let flag = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let link = std::fs::read_link("/proc/thread-self").unwrap();
            let tid: u32 = link.file_name().unwrap().to_str().unwrap().parse().unwrap();
            tx.send(tid).unwrap();
            let mut x = 1u64;
            while !flag.load(Ordering::Relaxed) {
                for _ in 0..10_000 {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                }
                std::hint::black_box(x);
            }
            x
        });
        Spinner {
            tid: rx.recv().unwrap(),
            stop,
            handle: Some(handle),
        }
    }

    fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take().unwrap().join().unwrap();
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn comm_of_this_process() -> String {
    std::fs::read_to_string("/proc/self/comm")
        .unwrap()
        .trim_end()
        .to_owned()
}

/// The software stand-ins through the whole path. This process's threads are the
/// watched ones: the caller passed is a pid that is not this process, so the selection
/// may name it.
#[test]
fn the_sampling_path_on_software_events() {
    let me = std::process::id();
    let selection = Selection {
        pids: vec![me],
        ..Selection::default()
    };
    let not_me = Caller {
        pid: u32::MAX,
        uid: u32::MAX,
    };
    let spinner = Spinner::start();
    let source = PerfSource::with_table(
        Procfs::system(),
        selection,
        not_me,
        None,
        EventTable::software(),
    );
    let mut source = match source {
        Ok(s) => s,
        Err(e) => {
            // Some kernels forbid even software events (perf_event_paranoid 3).
            eprintln!("skipped: {e}");
            return;
        }
    };
    assert_eq!(source.name(), "perf");
    // Round 1: counters are opened; nothing to report yet.
    let first = source.sample().unwrap();
    assert!(first.iter().all(|s| s.tid != spinner.tid), "{first:?}");
    assert!(
        source.watched() >= 2,
        "at least the test thread and the spinner"
    );

    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(120));
    let second = source.sample().unwrap();
    let elapsed = started.elapsed();
    let s = second
        .iter()
        .find(|s| s.tid == spinner.tid)
        .unwrap_or_else(|| panic!("the spinner is not in {second:?}"));
    assert_eq!(
        (s.pid, s.comm.as_str()),
        (me, comm_of_this_process().as_str())
    );
    assert!(s.cpu.is_some());
    // The task clock (in the cycles slot) counted the spinner's time on a CPU: more than
    // 1 ms of the 120, less than the wall time that passed since round 1.
    assert!(s.counts.cycles > 1_000_000, "{s:?}");
    assert!(
        s.counts.cycles <= elapsed.as_nanos() as u64 + 20_000_000,
        "{s:?} {elapsed:?}"
    );
    assert!(s.counts.llc_misses.is_some(), "context switches: {s:?}");
    for none in [
        s.counts.stall_cycles,
        s.counts.hitm_local,
        s.counts.hitm_remote,
        s.counts.dram_local,
        s.counts.dram_remote,
    ] {
        assert_eq!(none, None, "{s:?}");
    }
    // A new thread appears: reported from the round after it is seen.
    let late = Spinner::start();
    let third = source.sample().unwrap();
    assert!(third.iter().all(|s| s.tid != late.tid));
    std::thread::sleep(Duration::from_millis(30));
    let fourth = source.sample().unwrap();
    assert!(fourth.iter().any(|s| s.tid == late.tid), "{fourth:?}");

    // The spinners exit: they drop out silently.
    let (gone_a, gone_b) = (spinner.tid, late.tid);
    spinner.finish();
    late.finish();
    let fifth = source.sample().unwrap();
    assert!(
        fifth.iter().all(|s| s.tid != gone_a && s.tid != gone_b),
        "{fifth:?}"
    );
}

/// The hardware path on this machine: either the counters are unavailable and the error
/// says why in words, or they work and the samples are well-formed. Either way, nothing
/// panics.
#[test]
fn the_hardware_path_is_well_formed_either_way() {
    let spinner = Spinner::start();
    let selection = Selection {
        pids: vec![std::process::id()],
        ..Selection::default()
    };
    let cpu = CpuId::this_machine().ok();
    let table = cpu
        .as_ref()
        .map_or_else(EventTable::generic, EventTable::for_cpu);
    let opened = PerfSource::with_table(
        Procfs::system(),
        selection,
        Caller {
            pid: u32::MAX,
            uid: u32::MAX,
        },
        cpu,
        table.clone(),
    );
    match opened {
        Err(SourceError::Unavailable { reason }) => {
            eprintln!("hardware counters unavailable here: {reason}");
            assert!(
                reason.starts_with("perf_event_open refused the "),
                "{reason}"
            );
            assert!(
                reason.contains("virtual machine")
                    || reason.contains("no hardware counters")
                    || reason.contains("perf_event_paranoid")
                    || reason.contains("CONFIG_PERF_EVENTS"),
                "the reason should say what would help: {reason}"
            );
            let err = SourceError::Unavailable { reason };
            assert!(err
                .to_string()
                .starts_with("hardware counters are unavailable: "));
        }
        Err(other) => panic!("opening may only fail as Unavailable: {other:?}"),
        Ok(mut source) => {
            eprintln!("hardware counters available: {}", source.table());
            // The probe may drop events the kernel refuses, never add any.
            for e in &source.table().events {
                assert!(table.events.contains(e), "{e:?}");
            }
            source.sample().unwrap();
            std::thread::sleep(Duration::from_millis(50));
            let samples = source.sample().unwrap();
            let s = samples
                .iter()
                .find(|s| s.tid == spinner.tid)
                .expect("the spinner");
            assert!(s.counts.cycles > 0 && s.counts.instructions > 0, "{s:?}");
            let mut has = Counts::default();
            for e in &source.table().events {
                e.field.store(&mut has, Some(0));
            }
            // Exactly the fields of the table are Some (those that ran).
            for (field, value, present) in [
                (Field::LlcMisses, s.counts.llc_misses, has.llc_misses),
                (Field::StallCycles, s.counts.stall_cycles, has.stall_cycles),
                (Field::HitmLocal, s.counts.hitm_local, has.hitm_local),
                (Field::HitmRemote, s.counts.hitm_remote, has.hitm_remote),
                (Field::DramLocal, s.counts.dram_local, has.dram_local),
                (Field::DramRemote, s.counts.dram_remote, has.dram_remote),
            ] {
                if present.is_none() {
                    assert_eq!(value, None, "{field:?}: {s:?}");
                }
            }
        }
    }
    spinner.finish();
}

/// `PerfSource::open` is the same path with this machine's table and the real caller.
#[test]
fn open_on_this_machine_is_well_formed() {
    let selection = Selection {
        user: true,
        ..Selection::default()
    };
    match PerfSource::open(selection) {
        Ok(source) => assert!(!source.table().events.is_empty()),
        Err(SourceError::Unavailable { reason }) => assert!(!reason.is_empty()),
        Err(other) => panic!("{other:?}"),
    }
}
