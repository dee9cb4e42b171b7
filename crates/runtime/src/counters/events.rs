//! Which hardware event counts misses of the last-level *private* data cache on this CPU.
//!
//! CATS counts "last level private data cache misses" (AMD family 10h, event 0x7E umask
//! 0x02). Each vendor names that event differently, so a small table maps the CPU that
//! `/proc/cpuinfo` names (vendor, family, model) to a raw event; where no row matches,
//! the generic `PERF_TYPE_HW_CACHE` last-level read miss is used, which on most CPUs
//! counts the *shared* last-level cache, and the description says so.
//!
//! Raw x86 configs are `event | umask << 8` (the kernel's `cpu/event=..,umask=../`
//! format on Intel and AMD); every event here fits in 8 bits.

/// How the miss counter is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Encoding {
    /// `PERF_TYPE_RAW` with this config.
    Raw(u64),
    /// `PERF_TYPE_HW_CACHE`: last-level cache, read, miss.
    GenericLlReadMiss,
}

/// The miss event chosen for a CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MissEvent {
    pub(super) encoding: Encoding,
    /// What the event counts, with its name and encoding, for reports.
    pub(super) description: String,
}

/// The CPU as `/proc/cpuinfo` describes its first processor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct CpuId {
    pub(super) vendor: String,
    pub(super) family: Option<u32>,
    pub(super) model: Option<u32>,
}

impl CpuId {
    /// Reads the first processor's `vendor_id`, `cpu family` and `model` lines; absent
    /// lines (non-x86 kernels) leave the fields empty.
    pub(super) fn parse(cpuinfo: &str) -> CpuId {
        let mut id = CpuId::default();
        for line in cpuinfo.lines() {
            if line.trim().is_empty() && !id.vendor.is_empty() {
                break; // end of the first processor's block
            }
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "vendor_id" => id.vendor = value.to_string(),
                "cpu family" => id.family = value.parse().ok(),
                "model" => id.model = value.parse().ok(),
                _ => {}
            }
        }
        id
    }

    /// This machine's CPU; empty when `/proc/cpuinfo` cannot be read.
    pub(super) fn this_machine() -> CpuId {
        std::fs::read_to_string("/proc/cpuinfo")
            .map(|text| CpuId::parse(&text))
            .unwrap_or_default()
    }
}

impl std::fmt::Display for CpuId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let vendor = if self.vendor.is_empty() {
            "unknown vendor"
        } else {
            &self.vendor
        };
        write!(f, "{vendor}")?;
        if let Some(family) = self.family {
            write!(f, " family {family:#x}")?;
        }
        if let Some(model) = self.model {
            write!(f, " model {model:#x}")?;
        }
        Ok(())
    }
}

/// One row of the table: CPUs it covers and the raw event that counts private
/// last-level data-cache misses there.
struct Row {
    vendors: &'static [&'static str],
    families: &'static [u32],
    /// `None`: every model of the families.
    models: Option<&'static [u32]>,
    event: u8,
    umask: u8,
    name: &'static str,
}

/// Intel family 6 big cores where `L2_RQSTS.MISS` (0x24/0x3F) counts all L2 misses:
/// Haswell, Broadwell, Skylake (client and server), Kaby/Coffee/Comet Lake, Cannon
/// Lake, Rocket Lake, Sapphire/Emerald/Granite Rapids. Sandy and Ivy Bridge are left
/// out (umask 0x3F there is not a miss count), as are hybrid parts (Alder Lake and
/// later), whose E-cores have another PMU and other events.
const INTEL_L2_RQSTS_MISS: &[u32] = &[
    0x3C, 0x3F, 0x45, 0x46, // Haswell
    0x3D, 0x47, 0x4F, 0x56, // Broadwell
    0x4E, 0x5E, 0x55, // Skylake, Skylake-SP / Cascade Lake / Cooper Lake
    0x8E, 0x9E, 0xA5, 0xA6, // Kaby / Coffee / Comet Lake
    0x66, // Cannon Lake
    0xA7, // Rocket Lake
    0x8F, 0xCF, 0xAD, 0xAE, // Sapphire / Emerald / Granite Rapids
];

/// Ice Lake and Tiger Lake, where Intel withdrew `L2_RQSTS.MISS`; their
/// `L2_RQSTS.ALL_DEMAND_MISS` (0x24/0x27) counts demand (not prefetch) misses.
const INTEL_L2_ALL_DEMAND_MISS: &[u32] = &[0x7D, 0x7E, 0x6A, 0x6C, 0x8C, 0x8D];

const TABLE: &[Row] = &[
    Row {
        vendors: &["AuthenticAMD"],
        families: &[0x10],
        models: None,
        event: 0x7E,
        umask: 0x02,
        name: "L2 cache misses, data cache fills (AMD family 10h, the CATS paper's event)",
    },
    Row {
        vendors: &["AuthenticAMD", "HygonGenuine"],
        families: &[0x17, 0x18, 0x19, 0x1A],
        models: None,
        event: 0x64,
        umask: 0x08,
        name: "L2 cache misses from data-cache reads (AMD Zen L2CacheReqStat.LsRdBlkC)",
    },
    Row {
        vendors: &["GenuineIntel"],
        families: &[6],
        models: Some(INTEL_L2_RQSTS_MISS),
        event: 0x24,
        umask: 0x3F,
        name: "L2 misses (Intel L2_RQSTS.MISS)",
    },
    Row {
        vendors: &["GenuineIntel"],
        families: &[6],
        models: Some(INTEL_L2_ALL_DEMAND_MISS),
        event: 0x24,
        umask: 0x27,
        name: "L2 demand misses (Intel L2_RQSTS.ALL_DEMAND_MISS)",
    },
];

/// The private last-level data-cache miss event for `cpu`.
pub(super) fn miss_event(cpu: &CpuId) -> MissEvent {
    let row = TABLE.iter().find(|row| {
        row.vendors.contains(&cpu.vendor.as_str())
            && cpu.family.is_some_and(|f| row.families.contains(&f))
            && match row.models {
                None => true,
                Some(models) => cpu.model.is_some_and(|m| models.contains(&m)),
            }
    });
    match row {
        Some(row) => MissEvent {
            encoding: Encoding::Raw(u64::from(row.event) | u64::from(row.umask) << 8),
            description: format!(
                "{} (raw event {:#04x} umask {:#04x})",
                row.name, row.event, row.umask
            ),
        },
        None => MissEvent {
            encoding: Encoding::GenericLlReadMiss,
            description: format!(
                "last-level cache read misses (generic PERF_TYPE_HW_CACHE LL event: no \
                 private-cache event known for {cpu}, so this may count the shared cache)"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of `/proc/cpuinfo` on the machine that wrote this module (a VM on a
    /// 5th-generation Xeon), cut after the fields that matter plus one more block.
    const INTEL_EMERALD_RAPIDS: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\n\
        cpu family\t: 6\nmodel\t\t: 207\nmodel name\t: Intel(R) Xeon(R) Processor\n\
        stepping\t: 2\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n\
        model\t\t: 1\n";
    const AMD_ZEN3: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n\
        model\t\t: 1\nmodel name\t: AMD EPYC 7763 64-Core Processor\nstepping\t: 1\n";
    const AMD_OPTERON_8380: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\n\
        cpu family\t: 16\nmodel\t\t: 4\nmodel name\t: Quad-Core AMD Opteron(tm) Processor 8380\n\
        stepping\t: 2\ncache size\t: 512 KB\n";
    const INTEL_ICE_LAKE_SP: &str = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n";
    const INTEL_SANDY_BRIDGE: &str = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 42\n";
    const ARM64: &str = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm\n\
        CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n";

    fn lookup(cpuinfo: &str) -> MissEvent {
        miss_event(&CpuId::parse(cpuinfo))
    }

    #[test]
    fn parses_the_first_processor_only() {
        let id = CpuId::parse(INTEL_EMERALD_RAPIDS);
        assert_eq!(
            id,
            CpuId {
                vendor: "GenuineIntel".into(),
                family: Some(6),
                model: Some(207)
            }
        );
        assert_eq!(id.to_string(), "GenuineIntel family 0x6 model 0xcf");
        assert_eq!(CpuId::parse(ARM64), CpuId::default());
    }

    #[test]
    fn intel_uses_l2_rqsts_miss() {
        let event = lookup(INTEL_EMERALD_RAPIDS);
        assert_eq!(event.encoding, Encoding::Raw(0x3F24));
        assert!(
            event.description.contains("L2_RQSTS.MISS"),
            "{}",
            event.description
        );
        assert!(
            event.description.contains("raw event 0x24 umask 0x3f"),
            "{}",
            event.description
        );
        assert_eq!(lookup(INTEL_ICE_LAKE_SP).encoding, Encoding::Raw(0x2724));
    }

    #[test]
    fn amd_zen_uses_l2_cache_req_stat() {
        let event = lookup(AMD_ZEN3);
        assert_eq!(event.encoding, Encoding::Raw(0x0864));
        assert!(event.description.contains("Zen"), "{}", event.description);
    }

    #[test]
    fn opteron_uses_the_papers_event() {
        let event = lookup(AMD_OPTERON_8380);
        assert_eq!(event.encoding, Encoding::Raw(0x027E));
        assert!(
            event.description.contains("raw event 0x7e umask 0x02"),
            "{}",
            event.description
        );
    }

    #[test]
    fn unknown_cpus_fall_back_to_the_generic_event() {
        for cpuinfo in [
            ARM64,
            INTEL_SANDY_BRIDGE,
            "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 151\n", // Alder Lake
            "vendor_id\t: AuthenticAMD\ncpu family\t: 21\nmodel\t\t: 2\n",  // Bulldozer
            "vendor_id\t: GenuineIntel\ncpu family\t: 6\n",                 // model missing
            "vendor_id\t: CentaurHauls\ncpu family\t: 6\nmodel\t\t: 15\n",
            "",
        ] {
            let event = lookup(cpuinfo);
            assert_eq!(event.encoding, Encoding::GenericLlReadMiss, "{cpuinfo:?}");
            assert!(
                event.description.contains("generic"),
                "{}",
                event.description
            );
        }
        assert!(lookup(ARM64).description.contains("unknown vendor"));
    }
}
