//! `/proc/cpuinfo` parsing and the per-microarchitecture event table, on recorded
//! cpuinfo texts (`tests/data/cpuinfo/`): the paper's two Intel machines, a Skylake-SP,
//! an AMD EPYC, an ARM server, an unknown x86 vendor, this project's virtual machine,
//! and broken texts.

use locus_mapper::events::{CpuId, CpuInfoError, Encoding, EventTable, Field, Vendor};
use std::path::PathBuf;

fn data(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "cpuinfo", name]
        .iter()
        .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"))
}

fn parse(name: &str) -> CpuId {
    CpuId::parse(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn raw(table: &EventTable, field: Field) -> Option<u64> {
    match table.event(field)?.encoding {
        Encoding::Raw(config) => Some(config),
        _ => None,
    }
}

/// The generic three, opened as the kernel's generic hardware events.
fn assert_generic_base(table: &EventTable) {
    assert_eq!(
        table.event(Field::Instructions).map(|e| e.encoding),
        Some(Encoding::Instructions)
    );
    assert_eq!(
        table.event(Field::Cycles).map(|e| e.encoding),
        Some(Encoding::Cycles)
    );
    assert_eq!(
        table.event(Field::LlcMisses).map(|e| e.encoding),
        Some(Encoding::CacheMisses)
    );
}

#[test]
fn ivy_bridge_ep_gets_its_llc_events() {
    let cpu = parse("ivybridge-ep-e5-2660v2.txt");
    assert_eq!(
        (cpu.vendor.clone(), cpu.family, cpu.model, cpu.hypervisor),
        (Vendor::Intel, Some(6), Some(0x3E), false)
    );
    assert!(cpu.model_name.as_deref().unwrap().contains("E5-2660 v2"));
    let table = EventTable::for_cpu(&cpu);
    assert_eq!(table.name, "Ivy Bridge-EP/EX");
    assert_generic_base(&table);
    assert_eq!(raw(&table, Field::HitmLocal), Some(0x04D2));
    assert_eq!(raw(&table, Field::HitmRemote), Some(0x10D3));
    assert_eq!(raw(&table, Field::DramLocal), Some(0x03D3));
    assert_eq!(raw(&table, Field::DramRemote), Some(0x0CD3));
    assert_eq!(raw(&table, Field::StallCycles), Some(0x0500_05A3));
    assert_eq!(table.events.len(), 8);
}

#[test]
fn haswell_ex_gets_its_l3_events() {
    let cpu = parse("haswell-ex-e7-4820v3.txt");
    assert_eq!((cpu.family, cpu.model), (Some(6), Some(0x3F)));
    let table = EventTable::for_cpu(&cpu);
    assert_eq!(table.name, "Haswell-EP/EX");
    assert_generic_base(&table);
    assert_eq!(raw(&table, Field::HitmLocal), Some(0x04D2));
    assert_eq!(raw(&table, Field::HitmRemote), Some(0x10D3));
    assert_eq!(raw(&table, Field::DramLocal), Some(0x01D3));
    assert_eq!(raw(&table, Field::DramRemote), Some(0x04D3));
    assert_eq!(raw(&table, Field::StallCycles), Some(0x0500_05A3));
    let names: Vec<&str> = table.events.iter().map(|e| e.name).collect();
    assert!(
        names.contains(&"MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_HITM"),
        "{names:?}"
    );
}

#[test]
fn skylake_sp_has_its_own_remote_umasks() {
    let cpu = parse("skylake-sp-gold-6148.txt");
    assert_eq!((cpu.family, cpu.model), (Some(6), Some(0x55)));
    let table = EventTable::for_cpu(&cpu);
    assert_eq!(table.name, "Skylake-SP/Cascade Lake-SP");
    assert_eq!(raw(&table, Field::HitmRemote), Some(0x04D3));
    assert_eq!(raw(&table, Field::DramRemote), Some(0x02D3));
    assert_eq!(raw(&table, Field::DramLocal), Some(0x01D3));
    assert_eq!(raw(&table, Field::HitmLocal), Some(0x04D2));
}

#[test]
fn every_row_fills_every_field_once() {
    for name in [
        "ivybridge-ep-e5-2660v2.txt",
        "haswell-ex-e7-4820v3.txt",
        "skylake-sp-gold-6148.txt",
    ] {
        let table = EventTable::for_cpu(&parse(name));
        for field in Field::ALL {
            let n = table.events.iter().filter(|e| e.field == field).count();
            assert_eq!(n, 1, "{name}: {field:?}");
        }
    }
}

#[test]
fn amd_arm_unknown_vendors_and_other_intel_models_are_generic() {
    let amd = parse("amd-epyc-7742.txt");
    assert_eq!(
        (amd.vendor.clone(), amd.family, amd.model),
        (Vendor::Amd, Some(23), Some(49))
    );
    let arm = parse("arm-neoverse-n1.txt");
    assert_eq!(
        (arm.vendor.clone(), arm.family, arm.model),
        (Vendor::Other(String::new()), None, None)
    );
    let via = parse("unknown-vendor-centaur.txt");
    assert_eq!(via.vendor, Vendor::Other("CentaurHauls".into()));
    // Same family and model numbers as an Intel row, but another vendor: generic.
    let mut fake = parse("ivybridge-ep-e5-2660v2.txt");
    fake.vendor = Vendor::Other("CentaurHauls".into());
    let vm = parse("vm-intel-model-cf.txt");
    assert_eq!(
        (vm.vendor.clone(), vm.model, vm.hypervisor),
        (Vendor::Intel, Some(0xCF), true)
    );
    for cpu in [amd, arm, via, fake, vm] {
        let table = EventTable::for_cpu(&cpu);
        assert_eq!(table, EventTable::generic(), "{cpu}");
        assert_generic_base(&table);
        assert_eq!(table.events.len(), 3);
        for field in [
            Field::StallCycles,
            Field::HitmLocal,
            Field::HitmRemote,
            Field::DramLocal,
            Field::DramRemote,
        ] {
            assert!(table.event(field).is_none());
        }
    }
}

#[test]
fn only_the_first_processor_block_is_read() {
    let mut text = data("amd-epyc-7742.txt");
    text.push_str("processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 62\n");
    assert_eq!(CpuId::parse(&text).unwrap().vendor, Vendor::Amd);
    // Leading blank lines do not end the first block.
    let cpu = CpuId::parse(&format!("\n\n{}", data("haswell-ex-e7-4820v3.txt"))).unwrap();
    assert_eq!(cpu.model, Some(0x3F));
}

#[test]
fn broken_texts_are_errors_that_say_what_is_wrong() {
    let err = CpuId::parse(&data("broken-model-not-a-number.txt")).unwrap_err();
    assert_eq!(
        err,
        CpuInfoError::BadNumber {
            line: 4,
            field: "model".into(),
            value: "sixty-two".into()
        }
    );
    assert!(
        err.to_string().contains("line 4") && err.to_string().contains("sixty-two"),
        "{err}"
    );
    let err = CpuId::parse(&data("broken-no-family.txt")).unwrap_err();
    assert_eq!(
        err,
        CpuInfoError::Missing {
            vendor: "GenuineIntel".into(),
            field: "cpu family"
        }
    );
    let err = CpuId::parse(&data("broken-truncated.txt")).unwrap_err();
    assert!(
        matches!(err, CpuInfoError::Missing { field: "model", .. }),
        "{err:?}"
    );
    assert_eq!(
        CpuId::parse(&data("broken-not-cpuinfo.txt")).unwrap_err(),
        CpuInfoError::NoFields
    );
    assert_eq!(CpuId::parse("").unwrap_err(), CpuInfoError::NoFields);
    assert_eq!(
        CpuId::parse("\n\n  \n").unwrap_err(),
        CpuInfoError::NoFields
    );
    // A family too large for 32 bits, a negative model: errors, not panics.
    for text in [
        "vendor_id : GenuineIntel\ncpu family : 99999999999\nmodel : 1\n",
        "vendor_id : GenuineIntel\ncpu family : 6\nmodel : -1\n",
        "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 0xZZ\n",
    ] {
        assert!(
            matches!(CpuId::parse(text), Err(CpuInfoError::BadNumber { .. })),
            "{text}"
        );
    }
}

#[test]
fn every_prefix_of_a_real_text_parses_or_fails_cleanly() {
    let text = data("ivybridge-ep-e5-2660v2.txt");
    for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        let _ = CpuId::parse(&text[..end]);
    }
}

#[test]
fn the_table_names_its_events_and_codes() {
    let table = EventTable::for_cpu(&parse("haswell-ex-e7-4820v3.txt"));
    let text = table.to_string();
    assert!(
        text.starts_with("Haswell-EP/EX: instructions=instructions"),
        "{text}"
    );
    assert!(
        text.contains("stall_cycles=CYCLE_ACTIVITY.STALLS_L2_PENDING (0x50005a3)"),
        "{text}"
    );
    let mut table = table;
    table.remove(Field::HitmRemote);
    assert!(table.event(Field::HitmRemote).is_none());
    assert_eq!(table.events.len(), 7);
}
