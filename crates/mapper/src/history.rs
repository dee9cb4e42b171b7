//! Per-thread history of interval classes (SAM-MPH, Section 4, "interval history"):
//! one bit per interval and class, shifted into a 64-bit word, counted with
//! `popcnt` over the last `n` intervals. A class holds when it occurred in at
//! least `occurrence` of them (the paper: n = 10, occurrence 6), so a transient
//! interval moves nothing and an oscillating phase does not drag threads back
//! and forth. A new thread starts with an empty history (nothing holds until it
//! has shown a class `occurrence` times); a vanished thread's history is dropped
//! by the caller.
//!
//! # What a coherence bit records
//!
//! Colocation removes the evidence that asked for it: once the threads of a
//! sharing application run on one socket, their cross-socket coherence events
//! disappear. Following SAM and the paper ("in an interval with low inter-socket
//! coherence activity and high intra-socket coherence activity ... retain"), an
//! interval whose cross-socket coherence is low records the *retained* level —
//! the last level the thread showed while its sharing crossed sockets — instead
//! of low when either
//!
//! 1. the thread shows same-socket sharing (`hitm_local` above the low/medium
//!    cut); a thread that never crossed sockets then records medium; or
//! 2. the thread still runs on the PU the mapper chose for it as a thread of a
//!    sharing application, and its IPC and bandwidth classes are those it had
//!    when its sharing was last seen. This
//!    covers threads paired on the hyperthreads of one core, whose sharing hits
//!    in the core's own caches and shows in no coherence counter at all; a real
//!    change of phase (to compute or to streaming memory) changes one of the two
//!    classes and ends the retention.
//!
//! Otherwise the recorded level is the interval's own.

use crate::classify::{IntervalClass, Level};

/// The longest history a word holds.
pub const MAX_HISTORY: u32 = 64;

/// What a thread's coherence looked like the last time it crossed sockets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Retained {
    level: Level,
    ipc_high: bool,
    bandwidth_high: bool,
}

/// The class bits of one thread's last intervals (newest in bit 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadHistory {
    coherence_medium: u64,
    coherence_high: u64,
    ipc_high: u64,
    bandwidth_high: u64,
    intervals: u32,
    retained: Option<Retained>,
}

impl ThreadHistory {
    /// An empty history.
    pub fn new() -> ThreadHistory {
        ThreadHistory::default()
    }

    /// Records one classified interval; `at_pinned` says whether the thread ran
    /// on the PU the mapper last chose for it as a thread of a sharing
    /// application. Returns the coherence level
    /// recorded (see the module doc).
    pub fn record(&mut self, class: &IntervalClass, at_pinned: bool) -> Level {
        let level = if class.coherence > Level::Low {
            self.retained = Some(Retained {
                level: class.coherence,
                ipc_high: class.ipc_high,
                bandwidth_high: class.bandwidth_high,
            });
            class.coherence
        } else if class.local_sharing > Level::Low {
            self.retained.map_or(Level::Medium, |r| r.level)
        } else {
            match self.retained {
                Some(r)
                    if at_pinned
                        && r.ipc_high == class.ipc_high
                        && r.bandwidth_high == class.bandwidth_high =>
                {
                    r.level
                }
                _ => Level::Low,
            }
        };
        self.push(
            level >= Level::Medium,
            level == Level::High,
            class.ipc_high,
            class.bandwidth_high,
        );
        level
    }

    /// Records an interval in which the thread did not run: no class occurred.
    pub fn record_idle(&mut self) {
        self.push(false, false, false, false);
    }

    fn push(&mut self, medium: bool, high: bool, ipc: bool, bandwidth: bool) {
        let shift = |word: &mut u64, bit: bool| *word = (*word << 1) | u64::from(bit);
        shift(&mut self.coherence_medium, medium);
        shift(&mut self.coherence_high, high);
        shift(&mut self.ipc_high, ipc);
        shift(&mut self.bandwidth_high, bandwidth);
        self.intervals = self.intervals.saturating_add(1);
    }

    /// Intervals recorded so far (saturating).
    pub fn intervals(&self) -> u32 {
        self.intervals
    }

    /// The coherence level that holds over the last `window` intervals: high when
    /// high occurred at least `occurrence` times, medium when medium or high did.
    pub fn coherence(&self, window: u32, occurrence: u32) -> Level {
        if holds(self.coherence_high, window, occurrence) {
            Level::High
        } else if holds(self.coherence_medium, window, occurrence) {
            Level::Medium
        } else {
            Level::Low
        }
    }

    /// High IPC occurred at least `occurrence` times in the last `window` intervals.
    pub fn ipc_high(&self, window: u32, occurrence: u32) -> bool {
        holds(self.ipc_high, window, occurrence)
    }

    /// High bandwidth occurred at least `occurrence` times in the last `window` intervals.
    pub fn bandwidth_high(&self, window: u32, occurrence: u32) -> bool {
        holds(self.bandwidth_high, window, occurrence)
    }
}

/// `popcnt` of the last `window` bits (at most 64) reaches `occurrence` (at least 1).
fn holds(word: u64, window: u32, occurrence: u32) -> bool {
    let mask = match window {
        0 => 0,
        w if w >= MAX_HISTORY => u64::MAX,
        w => (1u64 << w) - 1,
    };
    (word & mask).count_ones() >= occurrence.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(coherence: Level, local: Level, ipc_high: bool, bw: bool) -> IntervalClass {
        IntervalClass {
            coherence_rate: Some(0.0),
            coherence,
            local_rate: Some(0.0),
            local_sharing: local,
            bandwidth_rate: Some(0.0),
            bandwidth_high: bw,
            ipc: 0.5,
            ipc_high,
            spc: None,
        }
    }

    #[test]
    fn a_class_holds_from_the_occurrence_threshold_on() {
        let mut h = ThreadHistory::new();
        let high = interval(Level::High, Level::Low, false, false);
        let low = interval(Level::Low, Level::Low, true, false);
        for _ in 0..5 {
            h.record(&high, false);
        }
        assert_eq!(h.coherence(10, 6), Level::Low);
        h.record(&high, false);
        assert_eq!(h.coherence(10, 6), Level::High);
        // Four low intervals (which also change the IPC class, so nothing is
        // retained) keep six highs in the window; the fifth drops one.
        for _ in 0..4 {
            h.record(&low, true);
        }
        assert_eq!(h.coherence(10, 6), Level::High);
        h.record(&low, true);
        assert_eq!(h.coherence(10, 6), Level::Low);
        assert_eq!(h.intervals(), 11);
    }

    #[test]
    fn medium_counts_high_intervals_too() {
        let mut h = ThreadHistory::new();
        for i in 0..6 {
            let level = if i % 2 == 0 {
                Level::High
            } else {
                Level::Medium
            };
            h.record(&interval(level, Level::Low, false, false), false);
        }
        assert_eq!(h.coherence(10, 6), Level::Medium);
    }

    #[test]
    fn colocation_retains_the_level_seen_across_sockets() {
        let mut h = ThreadHistory::new();
        h.record(&interval(Level::High, Level::Low, false, false), false);
        // Same-socket sharing: retained.
        let level = h.record(&interval(Level::Low, Level::Medium, false, false), false);
        assert_eq!(level, Level::High);
        // Nothing visible, still where the mapper put it, same classes: retained.
        let level = h.record(&interval(Level::Low, Level::Low, false, false), true);
        assert_eq!(level, Level::High);
        // Not where the mapper put it: low.
        let level = h.record(&interval(Level::Low, Level::Low, false, false), false);
        assert_eq!(level, Level::Low);
        // Where the mapper put it but streaming memory now: low.
        let level = h.record(&interval(Level::Low, Level::Low, false, true), true);
        assert_eq!(level, Level::Low);
    }

    #[test]
    fn local_sharing_without_a_past_is_medium() {
        let mut h = ThreadHistory::new();
        let level = h.record(&interval(Level::Low, Level::High, false, false), false);
        assert_eq!(level, Level::Medium);
    }

    #[test]
    fn windows_are_masked() {
        assert!(holds(0b1, 1, 1));
        assert!(!holds(0b10, 1, 1));
        assert!(holds(u64::MAX, 64, 64));
        assert!(!holds(u64::MAX, 0, 1));
    }
}
