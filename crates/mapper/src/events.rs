//! Which hardware events fill each field of [`Counts`] on this processor.
//!
//! SAM and SAM-MPH (papers/sam-mph-sharing-aware-mapper.txt, Sections 2 and 4) separate
//! coherence traffic from memory traffic with Intel's load-retirement events: loads that
//! hit a modified line in another core of the same socket (`XSNP_HITM`), loads served by
//! a modified line in another socket's cache (`REMOTE_HITM`), and loads served by local
//! or remote DRAM; SAM-MPH adds the cycles stalled while an L2 miss is pending
//! (`CYCLE_ACTIVITY.STALLS_L2_PENDING`). The raw codes differ per microarchitecture, so
//! [`CpuId::parse`] reads vendor, family and model from `/proc/cpuinfo` and
//! [`EventTable::for_cpu`] picks a row of the table below. Processors without a row get
//! the **generic** table: instructions, cycles and last-level cache misses from the
//! kernel's generic hardware events, every other field `None`.
//!
//! Raw Intel configs are `event | umask << 8 | cmask << 24` (the kernel's
//! `cpu/event=..,umask=..,cmask=../` format). The codes come from Intel's published
//! event lists (github.com/intel/perfmon, the same data as Linux's
//! `tools/perf/pmu-events/arch/x86/<model>/*.json`; older editions of the Intel SDM
//! Vol. 3B printed the same lists as per-microarchitecture tables in chapter 19):
//!
//! | microarchitecture (family 6) | event | event, umask, cmask | list |
//! | --- | --- | --- | --- |
//! | Ivy Bridge-EP/EX (model 0x3E) | MEM_LOAD_UOPS_LLC_HIT_RETIRED.XSNP_HITM | 0xD2, 0x04 | ivytown core, cache.json |
//! | | MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_HITM | 0xD3, 0x10 | ivytown core, cache.json |
//! | | MEM_LOAD_UOPS_LLC_MISS_RETIRED.LOCAL_DRAM | 0xD3, 0x03 | ivytown core, cache.json |
//! | | MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_DRAM | 0xD3, 0x0C | ivytown core, cache.json |
//! | | CYCLE_ACTIVITY.STALLS_L2_PENDING | 0xA3, 0x05, 5 | ivytown core, pipeline.json |
//! | Haswell-EP/EX (model 0x3F) | MEM_LOAD_UOPS_L3_HIT_RETIRED.XSNP_HITM | 0xD2, 0x04 | haswellx core, cache.json |
//! | | MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_HITM | 0xD3, 0x10 | haswellx core, cache.json |
//! | | MEM_LOAD_UOPS_L3_MISS_RETIRED.LOCAL_DRAM | 0xD3, 0x01 | haswellx core, cache.json |
//! | | MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_DRAM | 0xD3, 0x04 | haswellx core, cache.json |
//! | | CYCLE_ACTIVITY.STALLS_L2_PENDING | 0xA3, 0x05, 5 | haswellx core, pipeline.json |
//! | Skylake-SP, Cascade Lake-SP (model 0x55) | MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM | 0xD2, 0x04 | skylakex core, cache.json |
//! | | MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM | 0xD3, 0x04 | skylakex core, cache.json |
//! | | MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM | 0xD3, 0x01 | skylakex core, cache.json |
//! | | MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM | 0xD3, 0x02 | skylakex core, cache.json |
//! | | CYCLE_ACTIVITY.STALLS_L2_MISS (Skylake's name for the same stall count) | 0xA3, 0x05, 5 | skylakex core, pipeline.json |
//!
//! Instructions, cycles and last-level misses use the generic hardware events on every
//! row (on Intel the kernel maps them to the architectural events INST_RETIRED.ANY,
//! CPU_CLK_UNHALTED.THREAD and LONGEST_LAT_CACHE.MISS, the SDM's pre-defined
//! architectural performance events). Haswell's HITM and DRAM events carry errata
//! HSD29/HSM30 (they may undercount); the paper set its thresholds on that machine with
//! these same events. Each hyperthread has four programmable counters (eight with
//! hyperthreading off), fewer than the five raw events plus the last-level misses, so
//! the kernel time-shares them; the sampler scales each count by its own
//! enabled/running times (see [`crate::sample`]).
//!
//! Other processors (AMD, Broadwell-EP, Ice Lake-SP and later Intel servers, non-x86) use
//! the generic table until someone adds and checks their row.

use crate::model::Counts;
use std::fmt;

/// The `cpu family` all the Intel rows belong to.
const INTEL_FAMILY: u32 = 6;
/// Ivy Bridge-EP/EX (Xeon E5 v2, E7 v2).
const MODEL_IVYBRIDGE_X: u32 = 0x3E;
/// Haswell-EP/EX (Xeon E5 v3, E7 v3).
const MODEL_HASWELL_X: u32 = 0x3F;
/// Skylake-SP, Cascade Lake-SP and Cooper Lake (Xeon Scalable 1st to 3rd generation).
const MODEL_SKYLAKE_X: u32 = 0x55;

/// A raw Intel config: `event | umask << 8 | cmask << 24`.
const fn intel(event: u8, umask: u8, cmask: u8) -> u64 {
    event as u64 | (umask as u64) << 8 | (cmask as u64) << 24
}

/// The processor vendor, from `vendor_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// Any other `vendor_id`, or none at all (most non-x86 kernels print none).
    Other(String),
}

/// The processor as `/proc/cpuinfo` describes its first CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuId {
    /// The vendor.
    pub vendor: Vendor,
    /// `cpu family`, where the text has it.
    pub family: Option<u32>,
    /// `model`, where the text has it.
    pub model: Option<u32>,
    /// `model name`, for messages.
    pub model_name: Option<String>,
    /// Whether the `flags` line lists `hypervisor` (the kernel runs in a virtual machine).
    pub hypervisor: bool,
}

/// Why a `/proc/cpuinfo` text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuInfoError {
    /// The text holds no `key : value` line at all.
    #[error("cpuinfo text has no \"key : value\" line (is it /proc/cpuinfo?)")]
    NoFields,
    /// A numeric field does not hold a number.
    #[error("cpuinfo line {line}: {field:?} should be a whole number, found {value:?}")]
    BadNumber {
        /// 1-based line number.
        line: usize,
        /// The field (`cpu family`, `model`).
        field: String,
        /// What the line holds.
        value: String,
    },
    /// An x86 processor block (it has `vendor_id`) lacks `cpu family` or `model`.
    #[error("cpuinfo names vendor {vendor:?} but has no {field:?} line for its first processor")]
    Missing {
        /// The vendor the block names.
        vendor: String,
        /// The missing field.
        field: &'static str,
    },
}

impl CpuId {
    /// Parses the first processor's block of a `/proc/cpuinfo` text (up to the first
    /// blank line after some field). Non-x86 texts, which have no `vendor_id`, give
    /// [`Vendor::Other`] with no family or model, which selects the generic table.
    ///
    /// # Errors
    ///
    /// [`CpuInfoError`] when the text has no `key : value` line, when `cpu family` or
    /// `model` is not a number, or when a block with a `vendor_id` lacks either.
    pub fn parse(text: &str) -> Result<CpuId, CpuInfoError> {
        let mut id = CpuId {
            vendor: Vendor::Other(String::new()),
            family: None,
            model: None,
            model_name: None,
            hypervisor: false,
        };
        let mut vendor_line = None;
        let mut fields = 0usize;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                if fields > 0 {
                    break; // end of the first processor's block
                }
                continue;
            }
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            fields += 1;
            let value = value.trim();
            let number = |field: &str| {
                parse_number(value).ok_or_else(|| CpuInfoError::BadNumber {
                    line: i + 1,
                    field: field.to_owned(),
                    value: value.to_owned(),
                })
            };
            match key.trim() {
                "vendor_id" => vendor_line = Some(value.to_owned()),
                "cpu family" => id.family = Some(number("cpu family")?),
                "model" => id.model = Some(number("model")?),
                "model name" => id.model_name = Some(value.to_owned()),
                "flags" => id.hypervisor = value.split_whitespace().any(|f| f == "hypervisor"),
                _ => {}
            }
        }
        if fields == 0 {
            return Err(CpuInfoError::NoFields);
        }
        if let Some(vendor) = vendor_line {
            for (present, field) in [
                (id.family.is_some(), "cpu family"),
                (id.model.is_some(), "model"),
            ] {
                if !present {
                    return Err(CpuInfoError::Missing { vendor, field });
                }
            }
            id.vendor = match vendor.as_str() {
                "GenuineIntel" => Vendor::Intel,
                "AuthenticAMD" => Vendor::Amd,
                _ => Vendor::Other(vendor),
            };
        }
        Ok(id)
    }

    /// This machine's processor, from `/proc/cpuinfo`.
    ///
    /// # Errors
    ///
    /// When the file cannot be read (the `io::Error`) or parsed (its
    /// [`CpuInfoError`], wrapped as `InvalidData`).
    pub fn this_machine() -> std::io::Result<CpuId> {
        let text = std::fs::read_to_string("/proc/cpuinfo")?;
        CpuId::parse(&text).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// A decimal number as cpuinfo prints it (some kernels print hex with `0x`).
fn parse_number(value: &str) -> Option<u32> {
    match value.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => value.parse().ok(),
    }
}

impl fmt::Display for CpuId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.vendor {
            Vendor::Intel => write!(f, "GenuineIntel")?,
            Vendor::Amd => write!(f, "AuthenticAMD")?,
            Vendor::Other(v) if v.is_empty() => write!(f, "unknown vendor")?,
            Vendor::Other(v) => write!(f, "{v}")?,
        }
        if let Some(family) = self.family {
            write!(f, " family {family:#x}")?;
        }
        if let Some(model) = self.model {
            write!(f, " model {model:#x}")?;
        }
        if let Some(name) = &self.model_name {
            write!(f, " ({name})")?;
        }
        Ok(())
    }
}

/// The field of [`Counts`] an event fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// [`Counts::instructions`].
    Instructions,
    /// [`Counts::cycles`].
    Cycles,
    /// [`Counts::llc_misses`].
    LlcMisses,
    /// [`Counts::stall_cycles`].
    StallCycles,
    /// [`Counts::hitm_local`].
    HitmLocal,
    /// [`Counts::hitm_remote`].
    HitmRemote,
    /// [`Counts::dram_local`].
    DramLocal,
    /// [`Counts::dram_remote`].
    DramRemote,
}

impl Field {
    /// Every field, in the order of [`Counts`].
    pub const ALL: [Field; 8] = [
        Field::Instructions,
        Field::Cycles,
        Field::LlcMisses,
        Field::StallCycles,
        Field::HitmLocal,
        Field::HitmRemote,
        Field::DramLocal,
        Field::DramRemote,
    ];

    /// Whether the mapper cannot work without this field (instructions and cycles).
    pub fn required(self) -> bool {
        matches!(self, Field::Instructions | Field::Cycles)
    }

    /// The field's name in [`Counts`].
    pub fn name(self) -> &'static str {
        match self {
            Field::Instructions => "instructions",
            Field::Cycles => "cycles",
            Field::LlcMisses => "llc_misses",
            Field::StallCycles => "stall_cycles",
            Field::HitmLocal => "hitm_local",
            Field::HitmRemote => "hitm_remote",
            Field::DramLocal => "dram_local",
            Field::DramRemote => "dram_remote",
        }
    }

    /// Stores `value` in this field of `counts`. A required field that is `None` (its
    /// counter did not run in the interval) reads 0.
    pub fn store(self, counts: &mut Counts, value: Option<u64>) {
        match self {
            Field::Instructions => counts.instructions = value.unwrap_or(0),
            Field::Cycles => counts.cycles = value.unwrap_or(0),
            Field::LlcMisses => counts.llc_misses = value,
            Field::StallCycles => counts.stall_cycles = value,
            Field::HitmLocal => counts.hitm_local = value,
            Field::HitmRemote => counts.hitm_remote = value,
            Field::DramLocal => counts.dram_local = value,
            Field::DramRemote => counts.dram_remote = value,
        }
    }
}

/// How an event is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `PERF_COUNT_HW_INSTRUCTIONS`.
    Instructions,
    /// `PERF_COUNT_HW_CPU_CYCLES`.
    Cycles,
    /// `PERF_COUNT_HW_CACHE_MISSES` (last-level cache misses).
    CacheMisses,
    /// `PERF_TYPE_RAW` with this config.
    Raw(u64),
    /// `PERF_COUNT_SW_TASK_CLOCK` (nanoseconds on the CPU), a kernel software event.
    TaskClock,
    /// `PERF_COUNT_SW_PAGE_FAULTS`, a kernel software event.
    PageFaults,
    /// `PERF_COUNT_SW_CONTEXT_SWITCHES`, a kernel software event.
    ContextSwitches,
}

/// One event of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSpec {
    /// The field it fills.
    pub field: Field,
    /// The vendor's name of the event.
    pub name: &'static str,
    /// How it is opened.
    pub encoding: Encoding,
}

/// The events chosen for one processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventTable {
    /// The microarchitecture the row is for, or `generic`.
    pub name: &'static str,
    /// The events, one per field at most.
    pub events: Vec<EventSpec>,
}

/// The three generic events every table starts with.
fn generic_events() -> Vec<EventSpec> {
    vec![
        EventSpec {
            field: Field::Instructions,
            name: "instructions",
            encoding: Encoding::Instructions,
        },
        EventSpec {
            field: Field::Cycles,
            name: "cycles",
            encoding: Encoding::Cycles,
        },
        EventSpec {
            field: Field::LlcMisses,
            name: "cache-misses (last level)",
            encoding: Encoding::CacheMisses,
        },
    ]
}

/// The raw events of one Intel row: (field, name, event, umask, cmask).
type IntelRow = [(Field, &'static str, u8, u8, u8); 5];

const IVYBRIDGE_X: IntelRow = [
    (
        Field::StallCycles,
        "CYCLE_ACTIVITY.STALLS_L2_PENDING",
        0xA3,
        0x05,
        5,
    ),
    (
        Field::HitmLocal,
        "MEM_LOAD_UOPS_LLC_HIT_RETIRED.XSNP_HITM",
        0xD2,
        0x04,
        0,
    ),
    (
        Field::HitmRemote,
        "MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_HITM",
        0xD3,
        0x10,
        0,
    ),
    (
        Field::DramLocal,
        "MEM_LOAD_UOPS_LLC_MISS_RETIRED.LOCAL_DRAM",
        0xD3,
        0x03,
        0,
    ),
    (
        Field::DramRemote,
        "MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_DRAM",
        0xD3,
        0x0C,
        0,
    ),
];

const HASWELL_X: IntelRow = [
    (
        Field::StallCycles,
        "CYCLE_ACTIVITY.STALLS_L2_PENDING",
        0xA3,
        0x05,
        5,
    ),
    (
        Field::HitmLocal,
        "MEM_LOAD_UOPS_L3_HIT_RETIRED.XSNP_HITM",
        0xD2,
        0x04,
        0,
    ),
    (
        Field::HitmRemote,
        "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_HITM",
        0xD3,
        0x10,
        0,
    ),
    (
        Field::DramLocal,
        "MEM_LOAD_UOPS_L3_MISS_RETIRED.LOCAL_DRAM",
        0xD3,
        0x01,
        0,
    ),
    (
        Field::DramRemote,
        "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_DRAM",
        0xD3,
        0x04,
        0,
    ),
];

const SKYLAKE_X: IntelRow = [
    (
        Field::StallCycles,
        "CYCLE_ACTIVITY.STALLS_L2_MISS",
        0xA3,
        0x05,
        5,
    ),
    (
        Field::HitmLocal,
        "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM",
        0xD2,
        0x04,
        0,
    ),
    (
        Field::HitmRemote,
        "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM",
        0xD3,
        0x04,
        0,
    ),
    (
        Field::DramLocal,
        "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM",
        0xD3,
        0x01,
        0,
    ),
    (
        Field::DramRemote,
        "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM",
        0xD3,
        0x02,
        0,
    ),
];

impl EventTable {
    /// The generic table: instructions, cycles, last-level misses.
    pub fn generic() -> EventTable {
        EventTable {
            name: "generic",
            events: generic_events(),
        }
    }

    /// Kernel software events in place of the hardware ones: task clock (nanoseconds)
    /// as cycles, page faults as instructions, context switches as last-level misses.
    /// Every kernel offers them, virtual machines included, so they exercise the whole
    /// sampling path (per-thread open, read, scale, threads coming and going) where no
    /// PMU exists. Their numbers mean nothing to the decisions.
    pub fn software() -> EventTable {
        EventTable {
            name: "software stand-ins",
            events: vec![
                EventSpec {
                    field: Field::Instructions,
                    name: "page-faults",
                    encoding: Encoding::PageFaults,
                },
                EventSpec {
                    field: Field::Cycles,
                    name: "task-clock",
                    encoding: Encoding::TaskClock,
                },
                EventSpec {
                    field: Field::LlcMisses,
                    name: "context-switches",
                    encoding: Encoding::ContextSwitches,
                },
            ],
        }
    }

    /// The table for `cpu`: its microarchitecture's row, or [`EventTable::generic`].
    pub fn for_cpu(cpu: &CpuId) -> EventTable {
        let row = match (&cpu.vendor, cpu.family, cpu.model) {
            (Vendor::Intel, Some(INTEL_FAMILY), Some(MODEL_IVYBRIDGE_X)) => {
                Some(("Ivy Bridge-EP/EX", &IVYBRIDGE_X))
            }
            (Vendor::Intel, Some(INTEL_FAMILY), Some(MODEL_HASWELL_X)) => {
                Some(("Haswell-EP/EX", &HASWELL_X))
            }
            (Vendor::Intel, Some(INTEL_FAMILY), Some(MODEL_SKYLAKE_X)) => {
                Some(("Skylake-SP/Cascade Lake-SP", &SKYLAKE_X))
            }
            _ => None,
        };
        let Some((name, row)) = row else {
            return EventTable::generic();
        };
        let mut events = generic_events();
        events.extend(
            row.iter()
                .map(|&(field, name, event, umask, cmask)| EventSpec {
                    field,
                    name,
                    encoding: Encoding::Raw(intel(event, umask, cmask)),
                }),
        );
        EventTable { name, events }
    }

    /// The event filling `field`, if the table has one.
    pub fn event(&self, field: Field) -> Option<&EventSpec> {
        self.events.iter().find(|e| e.field == field)
    }

    /// Drops the event of `field` (after the kernel refused it).
    pub fn remove(&mut self, field: Field) {
        self.events.retain(|e| e.field != field);
    }
}

impl fmt::Display for EventTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name)?;
        for (i, e) in self.events.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            match e.encoding {
                Encoding::Raw(config) => {
                    write!(f, "{sep}{}={} ({config:#x})", e.field.name(), e.name)?
                }
                _ => write!(f, "{sep}{}={}", e.field.name(), e.name)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intel_configs_pack_event_umask_and_cmask() {
        assert_eq!(intel(0xD2, 0x04, 0), 0x04D2);
        assert_eq!(intel(0xA3, 0x05, 5), 0x0500_05A3);
    }

    #[test]
    fn every_field_stores_into_its_own_slot() {
        let mut counts = Counts::default();
        for (i, field) in Field::ALL.into_iter().enumerate() {
            field.store(&mut counts, Some(i as u64 + 1));
        }
        assert_eq!(
            counts,
            Counts {
                instructions: 1,
                cycles: 2,
                llc_misses: Some(3),
                stall_cycles: Some(4),
                hitm_local: Some(5),
                hitm_remote: Some(6),
                dram_local: Some(7),
                dram_remote: Some(8),
            }
        );
        Field::Cycles.store(&mut counts, None);
        Field::HitmLocal.store(&mut counts, None);
        assert_eq!((counts.cycles, counts.hitm_local), (0, None));
    }
}
