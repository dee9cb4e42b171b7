//! What a pool costs when it has nothing to do, and what it costs to wake and to enter,
//! against rayon's in the same run:
//!
//! - idle: the process's CPU time while a pool of `THREADS` workers sits idle for
//!   `IDLE` seconds after one task (a pool that spins or beats a heartbeat shows here);
//! - wake: the time from a call of `install` on the main thread to the start of its
//!   closure on a worker, after 20 ms of idleness, over 100 spells (p50, p99); and the
//!   floor under both, in the same spells: a plain thread asleep in `thread::park`,
//!   from `unpark` to its first instruction (what waking a sleeping thread costs on the
//!   machine, whatever the runtime);
//! - entry: a one-chunk parallel sum over 100,000 elements called from the main thread
//!   (`install` around `par_iter().with_min_len(100_000)`), median of 2,001 calls
//!   interleaved with rayon's and the serial sum's.
//!
//! `cargo run --release -p locus --example pool_costs -- [IDLE] [THREADS] [POLICY]`
//! (defaults: 10, 2, ws). Compare the two columns of one run, not runs with each other.

use std::time::{Duration, Instant};

use locus::{PolicyKind, ThreadPoolBuilder};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let idle_s: f64 = parse(&args, 0, "IDLE", 10.0);
    let threads: usize = parse(&args, 1, "THREADS", 2);
    if threads == 0 || !(idle_s >= 0.0 && idle_s.is_finite()) {
        exit("THREADS must be at least 1 and IDLE a number of seconds, at least 0");
    }
    let policy: PolicyKind = match args.get(2).map_or("ws", String::as_str).parse() {
        Ok(p) => p,
        Err(e) => exit(&format!("POLICY: {e}")),
    };
    let locus = ThreadPoolBuilder::new()
        .num_threads(threads)
        .policy(policy.clone())
        .build()
        .unwrap_or_else(|e| exit(&locus::error_chain(&e)));
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| exit(&format!("rayon's pool: {e}")));
    println!("{threads} workers, locus under {policy}");
    println!("{:<34} {:>12} {:>12}", "", "locus", "rayon");

    let idle = Duration::from_secs_f64(idle_s);
    let cpu_locus = idle_cpu(idle, || locus.install(|| ()));
    let cpu_rayon = idle_cpu(idle, || rayon.install(|| ()));
    let share = |cpu: Duration| 100.0 * cpu.as_secs_f64() / idle_s.max(f64::MIN_POSITIVE);
    println!(
        "{:<34} {:>11.2}% {:>11.2}%",
        format!("idle CPU over {idle_s} s (of a core)"),
        share(cpu_locus),
        share(cpu_rayon)
    );

    let (mut wake_locus, mut wake_rayon) = (Vec::new(), Vec::new());
    let parked = Parked::start();
    let mut wake_thread = Vec::new();
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(20));
        let asked = Instant::now();
        wake_locus.push(locus.install(|| asked.elapsed()));
        std::thread::sleep(Duration::from_millis(20));
        let asked = Instant::now();
        wake_rayon.push(rayon.install(|| asked.elapsed()));
        std::thread::sleep(Duration::from_millis(20));
        wake_thread.push(parked.wake());
    }
    for q in [0.5, 0.99] {
        println!(
            "{:<34} {:>10.1}us {:>10.1}us",
            format!("wake to run, p{}", (q * 100.0) as u32),
            micros(quantile(&mut wake_locus, q)),
            micros(quantile(&mut wake_rayon, q))
        );
    }
    println!(
        "{:<34} {:>10.1}us (p99 {:.1}us)",
        "  floor: a parked thread's, p50",
        micros(quantile(&mut wake_thread, 0.5)),
        micros(quantile(&mut wake_thread, 0.99))
    );

    let data: Vec<u64> = (0..100_000).collect();
    let expected: u64 = data.iter().sum();
    let (mut t_locus, mut t_rayon, mut t_serial) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..2001 {
        t_locus.push(timed(
            || locus.install(|| one_chunk::locus(&data)),
            expected,
        ));
        t_rayon.push(timed(
            || rayon.install(|| one_chunk::rayon(&data)),
            expected,
        ));
        t_serial.push(timed(
            || std::hint::black_box(&data).iter().sum::<u64>(),
            expected,
        ));
    }
    let serial = quantile(&mut t_serial, 0.5);
    let (l, r) = (quantile(&mut t_locus, 0.5), quantile(&mut t_rayon, 0.5));
    println!(
        "{:<34} {:>10.1}us {:>10.1}us",
        "one-chunk loop of 100K, median",
        micros(l),
        micros(r)
    );
    println!(
        "{:<34} {:>12.2} {:>12.2}",
        "  over the serial sum",
        l.as_secs_f64() / serial.as_secs_f64(),
        r.as_secs_f64() / serial.as_secs_f64()
    );
    // Idle CPU is left out of the ratios: both are a few clock ticks or none.
    let wake_p50 = quantile(&mut wake_locus, 0.5).as_secs_f64();
    println!(
        "locus over rayon: wake p50 {:.2}, entry {:.2}; locus's wake p50 over the floor {:.2}",
        wake_p50 / quantile(&mut wake_rayon, 0.5).as_secs_f64(),
        l.as_secs_f64() / r.as_secs_f64(),
        wake_p50 / quantile(&mut wake_thread, 0.5).as_secs_f64()
    );
}

/// A plain thread asleep in `thread::park` between wake-ups: the floor under a pool's
/// wake-to-run time.
struct Parked {
    asked: std::sync::Arc<std::sync::Mutex<Option<Instant>>>,
    woke: std::sync::mpsc::Receiver<Duration>,
    thread: std::thread::JoinHandle<()>,
}

impl Parked {
    fn start() -> Parked {
        let asked = std::sync::Arc::new(std::sync::Mutex::new(None::<Instant>));
        let (tell, woke) = std::sync::mpsc::channel();
        let thread = {
            let asked = asked.clone();
            std::thread::spawn(move || loop {
                let when = asked.lock().unwrap_or_else(|e| e.into_inner()).take();
                match when {
                    Some(when) => {
                        if tell.send(when.elapsed()).is_err() {
                            return;
                        }
                    }
                    None => std::thread::park(),
                }
            })
        };
        Parked {
            asked,
            woke,
            thread,
        }
    }

    /// Wakes the thread and returns the time from `unpark` to its first look.
    fn wake(&self) -> Duration {
        *self.asked.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        self.thread.thread().unpark();
        self.woke
            .recv()
            .unwrap_or_else(|_| exit("the parked thread ended"))
    }
}

/// The loop entered from outside: one chunk, so what is timed beyond the serial sum is
/// the entry, the wake-up and the return.
mod one_chunk {
    pub(crate) fn locus(data: &[u64]) -> u64 {
        use locus::prelude::*;
        data.par_iter().with_min_len(data.len()).sum()
    }

    pub(crate) fn rayon(data: &[u64]) -> u64 {
        use rayon::prelude::*;
        data.par_iter().with_min_len(data.len()).sum()
    }
}

/// The process's CPU time (all threads, user and system) while `wake` runs one task and
/// the pool then sits idle for `idle`.
fn idle_cpu(idle: Duration, wake: impl FnOnce()) -> Duration {
    wake();
    let before = process_cpu();
    std::thread::sleep(idle);
    process_cpu().saturating_sub(before)
}

/// The process's CPU time so far, from `getrusage`.
fn process_cpu() -> Duration {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed value we own; all-zero
    // bytes are a valid `rusage`.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            exit(&format!("getrusage: {}", std::io::Error::last_os_error()));
        }
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn timed(run: impl FnOnce() -> u64, expected: u64) -> Duration {
    let start = Instant::now();
    let got = run();
    let took = start.elapsed();
    assert_eq!(got, expected, "a sum came out wrong");
    took
}

fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort_unstable();
    samples[((samples.len() - 1) as f64 * q).round() as usize]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn parse<T: std::str::FromStr>(args: &[String], at: usize, name: &str, default: T) -> T
where
    T::Err: std::fmt::Display,
{
    match args.get(at) {
        None => default,
        Some(s) => s
            .parse()
            .unwrap_or_else(|e| exit(&format!("{name} {s:?}: {e}"))),
    }
}

fn exit(message: &str) -> ! {
    eprintln!("pool_costs: {message}");
    std::process::exit(2)
}
