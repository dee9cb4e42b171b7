//! Classification of one thread over one interval, from its counter deltas alone
//! (SAM-MPH, Sections 3 and 4): coherence activity low, medium or high; memory
//! bandwidth low or high; IPC low or high; and, where coherence is high, the
//! stalls per cross-socket coherence event (SPC).
//!
//! # The rates and their thresholds
//!
//! Every rate is per unhalted cycle of the interval (`Counts::cycles`); a sample
//! with zero cycles (the thread did not run) is not classified at all.
//!
//! | class | rate | cut (a [`Config`] field) | class when |
//! | --- | --- | --- | --- |
//! | coherence | `hitm_remote / cycles` | `coherence_medium`, `coherence_high` = 0.78e-3 | high: rate > `coherence_high`; medium: rate > `coherence_medium`; low otherwise |
//! | local sharing | `hitm_local / cycles` | the same two cuts | as coherence |
//! | bandwidth | `(dram_local + dram_remote) / cycles` | `bandwidth_high` | high: rate ≥ `bandwidth_high` |
//! | IPC | `instructions / cycles` | `ipc_high` = 0.9 | high: IPC > `ipc_high` |
//! | SPC | `stall_cycles / hitm_remote`, only when coherence is high | `spc_high` = 550 | high: SPC > `spc_high` |
//!
//! The paper states its cuts with strict inequalities on both sides ("< 0.78 ×
//! 10⁻³" is moderate, "> 0.78 × 10⁻³" is high) and does not say what happens at
//! equality; here a rate equal to a cut falls in the lower class, and an IPC of
//! exactly 0.9 is low. Bandwidth is high from its cut on.
//!
//! # Missing events
//!
//! Nothing is invented where a counter is `None`:
//!
//! * no `hitm_remote`: cross-socket coherence is unknown and treated as **low**
//!   (the thread never asks to be consolidated), and no SPC is computed;
//! * no `hitm_local`: local sharing is unknown and treated as low (colocation
//!   that hides sharing inside a socket cannot be recognised, see
//!   [`crate::history`]);
//! * no `dram_local` or no `dram_remote`: bandwidth is read from `llc_misses`
//!   (every last-level miss is taken to go to memory, which counts coherence
//!   misses as bandwidth too); with neither, bandwidth is unknown and treated
//!   as low;
//! * no `stall_cycles`: the SPC is unknown; an application whose SPC is unknown
//!   is ordered after those whose SPC is known, as the paper does.
//!
//! IPC always exists (instructions and cycles are fixed counters).

use crate::decide::Config;
use crate::model::Counts;

/// A three-way class: coherence activity and local sharing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Below the low/medium cut (or unknown).
    #[default]
    Low,
    /// Between the two cuts: "moderate" in the paper.
    Medium,
    /// Above the medium/high cut.
    High,
}

impl Level {
    /// The class of `rate` under the two cuts (`rate` equal to a cut is the lower class).
    pub fn of(rate: f64, medium: f64, high: f64) -> Level {
        if rate > high {
            Level::High
        } else if rate > medium {
            Level::Medium
        } else {
            Level::Low
        }
    }

    /// `low`, `medium` or `high`, for reasons and tables.
    pub fn name(self) -> &'static str {
        match self {
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The classes of one thread over one interval, with the rates they come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntervalClass {
    /// Cross-socket coherence events per cycle; `None` without `hitm_remote`.
    pub coherence_rate: Option<f64>,
    /// The class of `coherence_rate` (low when unknown).
    pub coherence: Level,
    /// Same-socket coherence events (`hitm_local`) per cycle; `None` without it.
    pub local_rate: Option<f64>,
    /// The class of `local_rate` under the coherence cuts (low when unknown).
    pub local_sharing: Level,
    /// Memory reads per cycle (DRAM, else last-level misses); `None` without either.
    pub bandwidth_rate: Option<f64>,
    /// `bandwidth_rate` at or above `Config::bandwidth_high`.
    pub bandwidth_high: bool,
    /// Instructions per cycle.
    pub ipc: f64,
    /// `ipc` above `Config::ipc_high`.
    pub ipc_high: bool,
    /// Stall cycles per cross-socket coherence event, only when `coherence` is high
    /// and `stall_cycles` is known.
    pub spc: Option<f64>,
}

impl IntervalClass {
    /// `spc` above `Config::spc_high`; `None` when the SPC is unknown.
    pub fn spc_high(&self, config: &Config) -> Option<bool> {
        self.spc.map(|s| s > config.spc_high)
    }
}

/// Classifies one interval's counts; `None` when the thread ran no cycles.
pub fn classify(counts: &Counts, config: &Config) -> Option<IntervalClass> {
    if counts.cycles == 0 {
        return None;
    }
    let cycles = counts.cycles as f64;
    let per_cycle = |v: u64| v as f64 / cycles;
    let coherence_rate = counts.hitm_remote.map(per_cycle);
    let coherence = coherence_rate.map_or(Level::Low, |r| {
        Level::of(r, config.coherence_medium, config.coherence_high)
    });
    let local_rate = counts.hitm_local.map(per_cycle);
    let local_sharing = local_rate.map_or(Level::Low, |r| {
        Level::of(r, config.coherence_medium, config.coherence_high)
    });
    let bandwidth_rate = match (counts.dram_local, counts.dram_remote) {
        (Some(l), Some(r)) => Some(per_cycle(l.saturating_add(r))),
        _ => counts.llc_misses.map(per_cycle),
    };
    let bandwidth_high = bandwidth_rate.is_some_and(|r| r >= config.bandwidth_high);
    let ipc = counts.instructions as f64 / cycles;
    let spc = match (coherence, counts.stall_cycles, counts.hitm_remote) {
        (Level::High, Some(stalls), Some(events)) if events > 0 => {
            Some(stalls as f64 / events as f64)
        }
        _ => None,
    };
    Some(IntervalClass {
        coherence_rate,
        coherence,
        local_rate,
        local_sharing,
        bandwidth_rate,
        bandwidth_high,
        ipc,
        ipc_high: ipc > config.ipc_high,
        spc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(cycles: u64) -> Counts {
        Counts {
            instructions: cycles / 2,
            cycles,
            ..Counts::default()
        }
    }

    #[test]
    fn idle_threads_are_not_classified() {
        assert_eq!(classify(&counts(0), &Config::default()), None);
    }

    #[test]
    fn all_events_missing_reads_as_low() {
        let c = classify(&counts(1000), &Config::default()).unwrap();
        assert_eq!(c.coherence, Level::Low);
        assert_eq!(c.local_sharing, Level::Low);
        assert!(!c.bandwidth_high && c.bandwidth_rate.is_none());
        assert_eq!(c.spc, None);
        assert!((c.ipc - 0.5).abs() < 1e-12);
    }

    #[test]
    fn bandwidth_falls_back_to_llc_misses() {
        let config = Config::default();
        let mut k = counts(1_000_000);
        k.llc_misses = Some(50_000);
        let c = classify(&k, &config).unwrap();
        assert_eq!(c.bandwidth_rate, Some(0.05));
        assert!(c.bandwidth_high);
        // With both DRAM counts the misses are ignored.
        k.dram_local = Some(10);
        k.dram_remote = Some(10);
        let c = classify(&k, &config).unwrap();
        assert_eq!(c.bandwidth_rate, Some(20.0 / 1e6));
        assert!(!c.bandwidth_high);
    }

    #[test]
    fn a_rate_on_a_cut_is_the_lower_class() {
        assert_eq!(Level::of(1.0, 1.0, 2.0), Level::Low);
        assert_eq!(Level::of(2.0, 1.0, 2.0), Level::Medium);
        assert_eq!(Level::of(2.5, 1.0, 2.0), Level::High);
    }
}
