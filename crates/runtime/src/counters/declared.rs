//! The `declared` source: bytes and cache lines declared through [`crate::footprint`].
//!
//! One sink serves the whole process (all threads of all pools): [`DeclaredSink`], installed
//! with [`footprint::set_sink`] while some `declared` source listens (from its first
//! [`CounterSource::open_thread`] until it is released or dropped), and removed when
//! none does, so that declarations cost nothing once every profile has ended (a `cats`
//! pool after its profile runs at `ws`'s cost per task). It counts
//! into thread-local totals on the declaring thread, so a thread's counters see only its
//! own declarations and counting never contends. Lines are counted for each distinct
//! line size that some source registered (at most [`LINE_SIZE_SLOTS`] per process); a
//! declaration of `len` bytes at `addr` covers
//! `(addr + len - 1) / line - addr / line + 1` lines. Declared work
//! ([`footprint::work`]) counts as instructions.

use super::{CounterError, CounterKind, CounterSource, ErrorKind, Sample, ThreadCounters};
use crate::footprint::{self, Access, FootprintSink};
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// How many distinct line sizes one process may count lines for (guess: one per
/// machine description in use; 4 is plenty).
const LINE_SIZE_SLOTS: usize = 4;

/// The registered line sizes; 0 = free. Claimed slots form a prefix and never change.
static LINE_SIZES: [AtomicU32; LINE_SIZE_SLOTS] = [const { AtomicU32::new(0) }; LINE_SIZE_SLOTS];

/// Sources listening (in state [`LISTENING`]); the sink listens while there is one.
static LISTENING_SOURCES: Mutex<usize> = Mutex::new(0);

/// What one thread declared since it started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Totals {
    bytes: u64,
    /// Lines, per slot of [`LINE_SIZES`].
    lines: [u64; LINE_SIZE_SLOTS],
    /// Declared instructions.
    work: u64,
}

thread_local! {
    static TOTALS: Cell<Totals> = const {
        Cell::new(Totals { bytes: 0, lines: [0; LINE_SIZE_SLOTS], work: 0 })
    };
}

/// The distinct cache lines of `line` bytes that `len` bytes at `addr` touch.
pub(super) fn lines_covered(addr: usize, len: usize, line: u32) -> u64 {
    if len == 0 || line == 0 {
        return 0;
    }
    let (addr, len, line) = (addr as u128, len as u128, u128::from(line));
    let last = addr + len - 1;
    (last / line - addr / line + 1) as u64
}

/// The slot counting lines of `line_size` bytes, claimed if new.
fn register(line_size: u32) -> Result<usize, CounterError> {
    for (i, slot) in LINE_SIZES.iter().enumerate() {
        // A claimed slot never changes, so only the value matters: AcqRel/Acquire keep
        // claims by racing threads in one order; readers need no more than Relaxed.
        match slot.compare_exchange(0, line_size, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Ok(i),
            Err(current) if current == line_size => return Ok(i),
            Err(_) => {}
        }
    }
    Err(CounterError::new(ErrorKind::LineSize {
        line_size,
        reason: "declared counters already count lines of 4 other sizes in this process",
    }))
}

/// Adds one declaration to the calling thread's totals, for every registered line size.
fn count(addr: usize, len: usize) {
    let mut sizes = [0u32; LINE_SIZE_SLOTS];
    for (size, slot) in sizes.iter_mut().zip(&LINE_SIZES) {
        // Relaxed: see `DeclaredSource::open_thread`; a slot's value never changes.
        *size = slot.load(Ordering::Relaxed);
    }
    // `try_with`: declarations from thread-local destructors at thread exit are dropped.
    let _ = TOTALS.try_with(|totals| {
        let mut t = totals.get();
        t.bytes = t.bytes.saturating_add(len as u64);
        for (lines, &size) in t.lines.iter_mut().zip(&sizes) {
            if size == 0 {
                break;
            }
            *lines = lines.saturating_add(lines_covered(addr, len, size));
        }
        totals.set(t);
    });
}

/// Adds declared work to the calling thread's totals.
fn count_work(instructions: u64) {
    let _ = TOTALS.try_with(|totals| {
        let mut t = totals.get();
        t.work = t.work.saturating_add(instructions);
        totals.set(t);
    });
}

fn totals() -> Totals {
    TOTALS.try_with(Cell::get).unwrap_or_default()
}

/// Counts every declaration, reads and writes alike, on the declaring thread.
#[derive(Debug)]
struct DeclaredSink;

impl FootprintSink for DeclaredSink {
    fn record(&self, _access: Access, addr: usize, len: usize) {
        count(addr, len);
    }

    fn work(&self, instructions: u64) {
        count_work(instructions);
    }
}

/// A source starts listening: the first one installs [`DeclaredSink`] as the footprint
/// listener.
fn start_listening() {
    let mut listening = LISTENING_SOURCES.lock().unwrap_or_else(|e| e.into_inner());
    if *listening == 0 {
        footprint::set_sink(Arc::new(DeclaredSink));
    }
    *listening += 1;
}

/// A source stops listening: the last one removes the listener.
fn stop_listening() {
    let mut listening = LISTENING_SOURCES.lock().unwrap_or_else(|e| e.into_inner());
    *listening -= 1;
    if *listening == 0 {
        footprint::clear_sink();
    }
}

/// Whether a source listens: not before its first thread counters, then until it is
/// released or dropped, never again after.
const NOT_YET: u8 = 0;
const LISTENING: u8 = 1;
const RELEASED: u8 = 2;

/// The `declared` source.
#[derive(Debug)]
pub(super) struct DeclaredSource {
    line_size: u32,
    slot: usize,
    /// [`NOT_YET`], [`LISTENING`] or [`RELEASED`].
    listening: AtomicU8,
    /// Why hardware counters are not used, when [`super::auto`] chose this source.
    why: Option<String>,
}

impl DeclaredSource {
    /// Registers `line_size` (the sink listens once a thread opens its counters).
    pub(super) fn open(
        line_size: u32,
        why: Option<String>,
    ) -> Result<DeclaredSource, CounterError> {
        super::check_line_size(line_size)?;
        let slot = register(line_size)?;
        Ok(DeclaredSource {
            line_size,
            slot,
            listening: AtomicU8::new(NOT_YET),
            why,
        })
    }
}

impl CounterSource for DeclaredSource {
    fn kind(&self) -> CounterKind {
        CounterKind::Declared
    }

    fn describe(&self) -> String {
        let why = match &self.why {
            Some(reason) => format!("no hardware counters: {reason}"),
            None => "chosen instead of hardware counters".to_string(),
        };
        format!(
            "declared: bytes the tasks declare through locus::footprint, and the {} B lines \
             they cover, per worker thread ({why})",
            self.line_size
        )
    }

    fn open_thread(&self) -> Result<Box<dyn ThreadCounters>, CounterError> {
        // The slot was claimed before this source existed, and this thread reached the
        // source through whatever handed it the `Arc` (a happens-before edge), so the
        // sink's Relaxed loads on this thread see the claim.
        debug_assert_eq!(
            LINE_SIZES[self.slot].load(Ordering::Relaxed),
            self.line_size
        );
        if self
            .listening
            .compare_exchange(NOT_YET, LISTENING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            start_listening();
        }
        Ok(Box::new(DeclaredThread {
            slot: self.slot,
            base: totals(),
        }))
    }

    fn line_size(&self) -> u32 {
        self.line_size
    }

    fn release(&self) {
        if self.listening.swap(RELEASED, Ordering::AcqRel) == LISTENING {
            stop_listening();
        }
    }
}

impl Drop for DeclaredSource {
    fn drop(&mut self) {
        self.release();
    }
}

/// One thread's view: its totals minus those at open.
struct DeclaredThread {
    slot: usize,
    base: Totals,
}

/// The sample `now` makes since `base`, for the lines of `slot`.
fn sample_since(now: &Totals, base: &Totals, slot: usize) -> Sample {
    Sample {
        private_llc_misses: now.lines[slot].saturating_sub(base.lines[slot]),
        instructions: now.work.saturating_sub(base.work),
        cycles: 0,
        bytes: now.bytes.saturating_sub(base.bytes),
    }
}

impl ThreadCounters for DeclaredThread {
    fn read(&mut self) -> Sample {
        sample_since(&totals(), &self.base, self.slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_declarations() {
        assert_eq!(lines_covered(0, 64, 64), 1);
        assert_eq!(lines_covered(0, 65, 64), 2);
        assert_eq!(lines_covered(63, 2, 64), 2); // straddles one boundary
        assert_eq!(lines_covered(60, 72, 64), 3); // 60..132 touches lines 0, 1, 2
        assert_eq!(lines_covered(64, 64, 64), 1);
        assert_eq!(lines_covered(100, 1, 64), 1);
        assert_eq!(lines_covered(100, 0, 64), 0);
        assert_eq!(lines_covered(0x1000, 4096, 128), 32);
        assert_eq!(lines_covered(0x1001, 4096, 128), 33);
        assert_eq!(lines_covered(7, 10, 1), 10);
        // The top of the address space does not overflow.
        assert_eq!(lines_covered(usize::MAX, 1, 64), 1);
        assert_eq!(lines_covered(usize::MAX - 63, 64, 64), 1);
        assert_eq!(lines_covered(usize::MAX - 64, 65, 64), 2);
    }

    #[test]
    fn the_sink_counts_on_the_calling_thread() {
        // Calls the sink directly: the process-wide footprint listener is shared with
        // other tests in this binary, which may clear it at any time.
        let slot = register(64).unwrap();
        let base = totals();
        DeclaredSink.record(Access::Read, 60, 72);
        DeclaredSink.record(Access::Write, 128, 8);
        DeclaredSink.work(40);
        let here = sample_since(&totals(), &base, slot);
        assert_eq!(
            here,
            Sample {
                private_llc_misses: 4,
                instructions: 40,
                cycles: 0,
                bytes: 80
            }
        );
        let there = std::thread::spawn(move || {
            let base = totals();
            DeclaredSink.record(Access::Read, 0, 1);
            sample_since(&totals(), &base, slot)
        })
        .join()
        .unwrap();
        assert_eq!(
            there,
            Sample {
                private_llc_misses: 1,
                instructions: 0,
                cycles: 0,
                bytes: 1
            }
        );
        assert_eq!(sample_since(&totals(), &base, slot), here);
    }

    #[test]
    fn registering_a_size_twice_reuses_its_slot() {
        let a = register(64).unwrap();
        assert_eq!(register(64).unwrap(), a);
        assert_eq!(LINE_SIZES[a].load(Ordering::Relaxed), 64);
    }

    #[test]
    fn samples_saturate_against_a_later_base() {
        let base = Totals {
            bytes: 10,
            lines: [5; LINE_SIZE_SLOTS],
            work: 3,
        };
        assert_eq!(
            sample_since(&Totals::default(), &base, 0),
            Sample::default()
        );
    }
}
