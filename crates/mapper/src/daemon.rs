//! The mapper's loop: sample, decide, act, every interval, until told to stop.
//!
//! One round ([`run`]):
//!
//! 1. `source.sample()`: the counter deltas of the selected threads since the last round
//!    (an error ends the loop: restore first where asked, then return it);
//! 2. `actuator.observe(...)`: the actuator learns which threads are selected now and
//!    reads the original masks of new ones;
//! 3. `decider.decide(&samples)`: the moves (the decision library's
//!    [`crate::decide::Mapper`] in the command; anything implementing [`Decide`] in
//!    tests);
//! 4. unless `dry_run`: `source.apply(&moves)` (the simulated source moves its threads;
//!    the perf source does nothing) and `actuator.apply(&moves)` (`sched_setaffinity`).
//!    With `dry_run` the actuator is never called, so no real thread is touched;
//! 5. one line per move to `out` (what was decided, and what became of it), then a sleep
//!    until the interval since the round's start has passed.
//!
//! The loop stops after `rounds` rounds, or when `stop` is set (by [`stop_on_signals`]:
//! SIGINT or SIGTERM; a second one ends the process at once). It checks `stop` between
//! rounds and every 10 ms while sleeping, so a round in progress is finished. On the way
//! out it restores the original masks when `restore` is set, and returns a [`Summary`].
//!
//! The interval is a wall-clock pace: sampling takes time, so the loop sleeps only what
//! is left; a round longer than the interval starts the next one at once.

use crate::act::{cpu_list, Actuator, CpuBinding, Outcome, Restored};
use crate::model::{Move, SampleSource, SourceError, ThreadSample};
use std::collections::HashSet;
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The default interval (the paper's mapper runs every 100 ms).
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(100);
/// The shortest interval accepted: below it, reading every thread's counters would be
/// most of the work. A guess, not measured.
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);
/// The longest interval accepted.
pub const MAX_INTERVAL: Duration = Duration::from_secs(3600);
/// How often a sleeping loop looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(10);

/// Why an interval string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntervalError {
    /// No number, or not a number.
    #[error("interval {input:?}: expected a number and a unit, e.g. 100ms or 1s")]
    Malformed {
        /// The input.
        input: String,
    },
    /// A number without a unit.
    #[error("interval {input:?}: give a unit (us, ms, s or min), e.g. {input}ms")]
    NoUnit {
        /// The input.
        input: String,
    },
    /// An unknown unit.
    #[error("interval {input:?}: unknown unit {unit:?} (use us, ms, s or min)")]
    Unit {
        /// The input.
        input: String,
        /// The unit found.
        unit: String,
    },
    /// Zero, or outside the accepted range.
    #[error("interval {input:?}: must be between 1ms and 1h (the paper's mapper uses 100ms)")]
    OutOfRange {
        /// The input.
        input: String,
    },
}

/// Parses an interval: a decimal number and a unit, `us`, `ms`, `s` or `min`
/// (`100ms`, `1s`, `0.5s`, `2 min`). Zero and anything outside 1 ms to 1 h is refused.
///
/// # Errors
///
/// [`IntervalError`], naming the input.
pub fn parse_interval(input: &str) -> Result<Duration, IntervalError> {
    let s = input.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = (&s[..split], s[split..].trim());
    let malformed = || IntervalError::Malformed {
        input: input.to_owned(),
    };
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return Err(malformed());
    }
    let value: f64 = number.parse().map_err(|_| malformed())?;
    let seconds_per_unit = match unit {
        "" => {
            return Err(IntervalError::NoUnit {
                input: input.to_owned(),
            })
        }
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        other => {
            return Err(IntervalError::Unit {
                input: input.to_owned(),
                unit: other.to_owned(),
            })
        }
    };
    let out_of_range = || IntervalError::OutOfRange {
        input: input.to_owned(),
    };
    let seconds = value * seconds_per_unit;
    if !seconds.is_finite() || seconds > MAX_INTERVAL.as_secs_f64() {
        return Err(out_of_range());
    }
    // Whole nanoseconds, rounded: 0.1s is exactly 100ms.
    let duration = Duration::from_nanos((seconds * 1e9).round() as u64);
    if duration < MIN_INTERVAL || duration > MAX_INTERVAL {
        return Err(out_of_range());
    }
    Ok(duration)
}

/// Makes the decisions of one round.
pub trait Decide {
    /// The moves for this round's samples.
    fn decide(&mut self, samples: &[ThreadSample]) -> Vec<Move>;
}

impl<F: FnMut(&[ThreadSample]) -> Vec<Move>> Decide for F {
    fn decide(&mut self, samples: &[ThreadSample]) -> Vec<Move> {
        self(samples)
    }
}

impl Decide for crate::decide::Mapper {
    fn decide(&mut self, samples: &[ThreadSample]) -> Vec<Move> {
        crate::decide::Mapper::decide(self, samples)
    }
}

/// How the loop runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopConfig {
    /// Time from the start of one round to the start of the next.
    pub interval: Duration,
    /// Stop after this many rounds; `None`: until stopped.
    pub rounds: Option<u64>,
    /// Print the decisions instead of applying them (no real thread is touched).
    pub dry_run: bool,
    /// Put the original masks back when stopping.
    pub restore: bool,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            interval: DEFAULT_INTERVAL,
            rounds: None,
            dry_run: false,
            restore: false,
        }
    }
}

/// What a run of the loop did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Rounds completed.
    pub rounds: u64,
    /// Distinct threads (pid, tid) sampled at least once.
    pub threads_seen: usize,
    /// Moves decided.
    pub decided: u64,
    /// Moves applied (threads whose mask was set).
    pub migrations: u64,
    /// Moves refused by the actuator (not selected, outside the allowed set).
    pub skipped: u64,
    /// Moves whose thread had exited.
    pub gone: u64,
    /// Moves whose system call failed.
    pub failed: u64,
    /// What the restore did, when asked for.
    pub restored: Option<Restored>,
    /// Whether a signal (rather than the round count) ended the loop.
    pub interrupted: bool,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} round(s), {} thread(s) seen, {} move(s) decided, {} migration(s)",
            self.rounds, self.threads_seen, self.decided, self.migrations
        )?;
        for (n, what) in [
            (self.skipped, "skipped"),
            (self.gone, "to exited threads"),
            (self.failed, "failed"),
        ] {
            if n > 0 {
                write!(f, ", {n} {what}")?;
            }
        }
        if let Some(r) = &self.restored {
            write!(f, "; {r}")?;
        }
        if self.interrupted {
            write!(f, " (stopped by a signal)")?;
        }
        Ok(())
    }
}

/// Why the loop ended early.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The counter source failed (for the perf source at the first round: no counters).
    #[error("{source}")]
    Source {
        /// The round that failed (1-based).
        round: u64,
        /// What the source said.
        #[source]
        source: SourceError,
        /// What the loop had done until then (restore included).
        summary: Box<Summary>,
    },
    /// The report could not be written.
    #[error("cannot write the mapper's report")]
    Output(#[source] io::Error),
}

/// A stop flag that SIGINT and SIGTERM set. A second signal while the flag is set ends
/// the process at once (exit status 130), for a loop that does not come back.
///
/// # Errors
///
/// When the handlers cannot be installed.
pub fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as it was before this signal.
        signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&stop))?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// Runs the loop (see the module doc). `actuator` is `None` where no real thread may be
/// touched (the simulated source); `out` gets one line per round and per move.
///
/// # Errors
///
/// [`DaemonError::Source`] when sampling fails, [`DaemonError::Output`] when `out`
/// cannot be written. Original masks are restored first where `config.restore` asks.
pub fn run<A: CpuBinding>(
    source: &mut dyn SampleSource,
    decider: &mut dyn Decide,
    mut actuator: Option<&mut Actuator<A>>,
    config: &LoopConfig,
    stop: &AtomicBool,
    out: &mut dyn Write,
) -> Result<Summary, DaemonError> {
    let mut summary = Summary::default();
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    let finish = |summary: &mut Summary, actuator: Option<&mut Actuator<A>>| {
        if config.restore && !config.dry_run {
            if let Some(act) = actuator {
                summary.restored = Some(act.restore());
            }
        }
    };
    loop {
        // Relaxed: the flag carries no data; the signal handler only sets it.
        if stop.load(Ordering::Relaxed) {
            summary.interrupted = true;
            break;
        }
        let started = Instant::now();
        let round = summary.rounds + 1;
        let samples = match source.sample() {
            Ok(samples) => samples,
            Err(source) => {
                finish(&mut summary, actuator.as_deref_mut());
                return Err(DaemonError::Source {
                    round,
                    source,
                    summary: Box::new(summary),
                });
            }
        };
        seen.extend(samples.iter().map(|s| (s.pid, s.tid)));
        summary.threads_seen = seen.len();
        if let Some(act) = actuator.as_deref_mut() {
            act.observe(samples.iter().map(|s| (s.pid, s.tid)));
        }
        let moves = decider.decide(&samples);
        summary.decided += moves.len() as u64;
        let result = report_round(
            out,
            round,
            &samples,
            &moves,
            config.dry_run,
            source,
            actuator.as_deref_mut(),
            &mut summary,
        );
        summary.rounds = round;
        if let Err(e) = result {
            finish(&mut summary, actuator.as_deref_mut());
            return Err(DaemonError::Output(e));
        }
        if config.rounds.is_some_and(|n| round >= n) {
            break;
        }
        let next = started + config.interval;
        loop {
            let now = Instant::now();
            if now >= next || stop.load(Ordering::Relaxed) {
                break;
            }
            std::thread::sleep((next - now).min(STOP_POLL));
        }
    }
    finish(&mut summary, actuator);
    Ok(summary)
}

/// Applies (unless a dry run) and reports one round's moves.
#[allow(clippy::too_many_arguments)]
fn report_round<A: CpuBinding>(
    out: &mut dyn Write,
    round: u64,
    samples: &[ThreadSample],
    moves: &[Move],
    dry_run: bool,
    source: &mut dyn SampleSource,
    actuator: Option<&mut Actuator<A>>,
    summary: &mut Summary,
) -> io::Result<()> {
    let pids: HashSet<u32> = samples.iter().map(|s| s.pid).collect();
    writeln!(
        out,
        "round {round}: {} thread(s) of {} process(es) sampled, {} move(s){}",
        samples.len(),
        pids.len(),
        moves.len(),
        if dry_run { " (dry run)" } else { "" }
    )?;
    let describe = |m: &Move| {
        let sample = samples.iter().find(|s| s.pid == m.pid && s.tid == m.tid);
        let comm = sample.map_or("?", |s| s.comm.as_str());
        let from = sample
            .and_then(|s| s.cpu)
            .map_or("?".to_owned(), |c| c.to_string());
        format!(
            "pid {} tid {} ({comm}) cpu {from} -> cpus {}: {}",
            m.pid,
            m.tid,
            cpu_list(&m.cpus),
            m.reason
        )
    };
    if dry_run {
        for m in moves {
            writeln!(out, "  would move {}", describe(m))?;
        }
        return Ok(());
    }
    source.apply(moves);
    let Some(act) = actuator else {
        // The source itself carries the moves out (a simulated machine).
        summary.migrations += moves.len() as u64;
        for m in moves {
            writeln!(out, "  moved {} [{}]", describe(m), source.name())?;
        }
        return Ok(());
    };
    for applied in act.apply(moves) {
        let line = describe(&applied.decided);
        match applied.outcome {
            Outcome::Moved { cpus } => {
                summary.migrations += 1;
                if cpus == applied.decided.cpus {
                    writeln!(out, "  moved {line}")?;
                } else {
                    writeln!(
                        out,
                        "  moved {line} (within its allowed CPUs: {})",
                        cpu_list(&cpus)
                    )?;
                }
            }
            Outcome::Skipped { why } => {
                summary.skipped += 1;
                writeln!(out, "  skipped {line} ({why})")?;
            }
            Outcome::Gone => summary.gone += 1,
            Outcome::Failed { error } => {
                summary.failed += 1;
                writeln!(out, "  failed {line} ({error})")?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_name_what_happened() {
        let s = Summary {
            rounds: 3,
            threads_seen: 4,
            decided: 2,
            migrations: 1,
            skipped: 1,
            restored: Some(Restored {
                restored: 1,
                gone: 0,
                failed: 0,
            }),
            ..Summary::default()
        };
        assert_eq!(
            s.to_string(),
            "3 round(s), 4 thread(s) seen, 2 move(s) decided, 1 migration(s), 1 skipped; \
             restored 1 thread(s)"
        );
    }
}
