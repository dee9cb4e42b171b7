//! The `locus` binary end to end: output, JSON, exit codes and error messages. Every
//! run is tiny (fib of 15 or less, two threads) so the whole file takes seconds.

use crate::common::{locus, refused, scratch, text};

#[test]
fn no_arguments_print_the_help() {
    let out = locus(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Usage: locus") && stdout.contains("bench") && stdout.contains("topo"),
        "{stdout}"
    );
}

#[test]
fn every_subcommand_explains_its_flags() {
    let out = locus(&["bench", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for flag in [
        "--policy",
        "--threads",
        "--machine",
        "--size",
        "--reps",
        "--warmup",
        "--json",
        "--no-rayon",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    assert!(
        help.contains("[default: 10]")
            && help.contains("[default: 2]")
            && help.contains("[default: all]"),
        "{help}"
    );
    assert!(help.contains("cutoff=C"), "size syntax listed: {help}");
    let out = locus(&["topo", "--help"]);
    assert!(out.status.success() && text(&out.stdout).contains("--list-presets"));
}

#[test]
fn topo_on_this_machine() {
    let out = locus(&["topo"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("Machine \"this machine\" (discovered)"),
        "{stdout}"
    );
    assert!(stdout.contains("squad 0: worker"), "{stdout}");
    assert!(!stdout.contains("virtual"), "{stdout}");
}

#[test]
fn topo_on_a_preset() {
    let out = locus(&["topo", "--machine", "opteron-8380"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("16 PUs"), "{stdout}");
    assert!(stdout.contains("virtual"), "{stdout}");
    assert!(
        stdout.contains("A pool of 16 workers on \"opteron-8380\" forms 4 squads"),
        "{stdout}"
    );
    for s in 0..4 {
        let line = format!(
            "  squad {s}: workers {}-{}, head {}, shared cache 6 MiB",
            4 * s,
            4 * s + 3,
            4 * s
        );
        assert!(stdout.contains(&line), "{line} missing from:\n{stdout}");
    }

    let out = locus(&["topo", "--machine", "opteron-8380", "--threads", "2"]);
    assert!(
        text(&out.stdout).contains("forms 1 squad:"),
        "{}",
        text(&out.stdout)
    );

    let out = locus(&["topo", "--list-presets"]);
    assert!(
        out.status.success()
            && text(&out.stdout)
                .lines()
                .any(|l| l.starts_with("opteron-8380"))
    );
}

#[test]
fn bench_writes_verified_json() {
    let dir = scratch("json");
    let json = dir.join("x.json");
    let out = locus(&[
        "bench",
        "fib",
        "--size",
        "15",
        "--reps",
        "2",
        "--warmup",
        "0",
        "--threads",
        "2",
        "--policy",
        "ws,mts",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    assert!(stdout.starts_with("fib 15,cutoff=0: 2 threads"), "{stdout}");
    for row in ["ws ", "mts ", "rayon "] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(row) && l.ends_with("ok")),
            "{row} row in:\n{stdout}"
        );
    }

    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).expect("valid JSON");
    assert_eq!(doc["threads"], 2);
    assert_eq!(doc["reps"], 2);
    assert_eq!(doc["warmup"], 0);
    assert!(doc["machine"].is_string());
    let kernels = doc["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0]["kernel"], "fib");
    assert_eq!(kernels[0]["size"], "15,cutoff=0");
    let results = kernels[0]["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ws", "mts", "rayon"]);
    for r in results {
        assert_eq!(r["verified"], true, "{r}");
        assert_eq!(r["times_s"].as_array().unwrap().len(), 2, "{r}");
        let (min, median, max) = (
            r["min_s"].as_f64().unwrap(),
            r["median_s"].as_f64().unwrap(),
            r["max_s"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= median && median <= max, "{r}");
        if r["policy"] == "rayon" {
            assert!(r["ratio_to_rayon"].is_null() && r["stats"].is_null(), "{r}");
        } else {
            assert!(r["ratio_to_rayon"].as_f64().unwrap() > 0.0, "{r}");
            let stats = r["stats"].as_object().unwrap();
            for name in [
                "tasks",
                "steals_squad",
                "steals_remote",
                "steals_same_node",
                "steals_same_package",
                "steals_other_package",
                "lost_steals",
                "empty_scans",
                "bulk_steals",
                "bulk_tasks",
                "taken_back",
                "run_at_once",
                "injected",
                "sleeps",
                "idle_ns",
            ] {
                assert!(stats[name].is_number(), "{name} in {r}");
            }
            // fib(15) with no cutoff: one task per call, 1973 of them, in every rep.
            assert_eq!(stats["tasks"], 1973.0, "{r}");
            // The same, worker by worker: one entry per thread, adding up to the total.
            let workers = r["stats_per_worker"].as_array().unwrap();
            assert_eq!(workers.len(), 2, "{r}");
            let sum: f64 = workers.iter().map(|w| w["tasks"].as_f64().unwrap()).sum();
            assert_eq!(sum, 1973.0, "{r}");
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_without_rayon_has_no_ratios() {
    let out = locus(&[
        "bench",
        "nqueens",
        "--size",
        "6",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--threads",
        "2",
        "--policy",
        "central",
        "--no-rayon",
        "--machine",
        "2x1",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("machine \"2x1\" (virtual)"), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("central"))
        .expect("central row");
    assert!(
        row.split_whitespace().nth(2) == Some("-")
            && !stdout.lines().any(|l| l.starts_with("rayon")),
        "{stdout}"
    );
}

#[test]
fn bad_input_is_refused_with_exit_code_2() {
    refused(&["bench", "fibonacci"], &["fibonacci", "fib, nqueens"]);
    refused(
        &["bench", "fib", "--policy", "ws,steal-half"],
        &["steal-half", "--policy"],
    );
    refused(&["bench", "--size", "15"], &["--size", "all"]);
    refused(&["bench", "all", "--size", "15"], &["--size", "all"]);
    refused(
        &["bench", "heat", "--size", "12by12"],
        &["12by12", "--size"],
    );
    refused(
        &["bench", "fib", "--machine", "pack:2 core:0 pu:1"],
        &["pack:2 core:0 pu:1", "--machine"],
    );
    refused(&["bench", "fib", "--machine", "cray-1"], &["cray-1"]);
    refused(
        &["topo", "--machine", "/no/such/machine.xml"],
        &["/no/such/machine.xml"],
    );
    refused(&["bench", "fib", "--threads", "0"], &["'0'", "--threads"]);
    refused(&["topo", "--threads", "0"], &["'0'", "--threads"]);
    refused(&["bench", "fib", "--reps", "0"], &["'0'", "--reps"]);
    refused(
        &["bench", "fib", "--json", "/no/such/folder/x.json"],
        &["/no/such/folder"],
    );
    refused(&["frobnicate"], &["frobnicate"]);
}

#[test]
fn bench_explains_the_bi_tier_policies() {
    let out = locus(&[
        "bench",
        "heat",
        "--size",
        "130x64,leaf=4,iters=3",
        "--machine",
        "opteron-8380",
        "--threads",
        "8",
        "--policy",
        "cab:2:1MiB,cats",
        "--reps",
        "2",
        "--warmup",
        "0",
        "--no-rayon",
        "--counters",
        "declared",
        "--explain",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("-- cab:2:1048576\n"), "{stdout}");
    // 8 workers fill two of the four sockets: M = 2, so Eq. 4 gives BL = 2.
    assert!(
        stdout.contains(
            "M = 2 squads, S_c = 6291456 bytes, B = 2, S_d = 1048576 bytes (given): BL = 2 (Eq. 4)"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("-- cats\n"), "{stdout}");
    assert!(stdout.contains("counters: declared"), "{stdout}");
    assert!(stdout.contains("policy statistics:"), "{stdout}");
    refused(
        &["bench", "fib", "--counters", "bogus"],
        &["bogus", "--counters"],
    );
}

#[test]
fn sim_prints_a_table_and_writes_json_and_a_timeline() {
    let dir = scratch("sim");
    let json = dir.join("sim.json");
    let trace = dir.join("trace.json");
    let out = locus(&[
        "sim",
        "heat",
        "--size",
        "66x64,leaf=8,iters=2",
        "--machine",
        "2x2",
        "--policy",
        "cats",
        "--json",
        json.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--explain",
        "--memory",
        "interleave",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("makespan") && stdout.contains("cats"),
        "{stdout}"
    );
    assert!(stdout.contains("; memory interleave;"), "{stdout}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let result = &doc["results"][0];
    assert_eq!(result["policy"], "cats");
    assert_eq!(result["placement"], "interleave");
    assert_eq!(result["cores"].as_array().unwrap().len(), 4);
    assert_eq!(result["sockets"].as_array().unwrap().len(), 2);
    assert!(result["makespan"].as_u64().unwrap() > 0);
    let timeline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let events = timeline["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["ph"] == "X"), "task slices");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_counts_steals_per_tier_where_a_package_holds_several_squads() {
    // Two packages of two squads each (tree distances: same node, other package).
    let machine = "pack:2 numa:1 l3:2(size=1MiB) core:4 pu:1";
    let dir = scratch("sim-tiers");
    let json = dir.join("sim.json");
    let out = locus(&[
        "sim",
        "heat",
        "--size",
        "130x128,leaf=2,iters=2",
        "--machine",
        machine,
        "--policy",
        "ws,ws:near,mts,cab",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("st node/pkg/xpkg"), "{stdout}");
    assert!(stdout.contains("\nws:near "), "{stdout}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for r in doc["results"].as_array().unwrap() {
        let s = &r["sched"];
        let n = |k: &str| s[k].as_u64().unwrap();
        assert_eq!(
            n("steals_remote"),
            n("steals_same_node") + n("steals_same_package") + n("steals_other_package"),
            "{r}"
        );
        assert_eq!(n("steals_same_package"), 0, "one node per package: {r}");
    }
    // One squad per package: every remote steal crosses packages, no split to show.
    let out = locus(&[
        "sim",
        "heat",
        "--size",
        "66x64,leaf=8,iters=2",
        "--machine",
        "2x2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("st node/pkg/xpkg"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_sweeps_plot_an_svg() {
    let dir = scratch("sweep");
    let svg = dir.join("bl.svg");
    let out = locus(&[
        "sim",
        "sweep",
        "heat",
        "--size",
        "130x64,leaf=8,iters=2",
        "--param",
        "bl",
        "--values",
        "0-3",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("cab:bl=3") && stdout.contains("Eq. 4"),
        "{stdout}"
    );
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(
        plot.starts_with("<svg") || plot.starts_with("<?xml"),
        "{plot:.80}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_refuses_bad_input_with_exit_code_2() {
    let dir = scratch("sim-bad");
    let bad_lat = dir.join("lat.json");
    std::fs::write(&bad_lat, "{\"l3_hitt\": 40}").unwrap();
    let lat = bad_lat.to_str().unwrap();
    for (args, says) in [
        (vec!["sim"], "needs a KERNEL"),
        (vec!["sim", "heatt"], "heatt"),
        (vec!["sim", "heat", "--policy", "ws-unpinned"], "pinning"),
        (vec!["sim", "heat", "--policy", "ws:far"], "ws:far"),
        (vec!["sim", "fib", "--iters", "3"], "no iterations"),
        (vec!["sim", "heat", "--threads", "17"], "16 PUs"),
        (vec!["sim", "heat", "--machine", "pack:0 pu:1"], "--machine"),
        (vec!["sim", "heat", "--latencies", lat], "l3_hitt"),
        (
            vec!["sim", "heat", "--memory", "first_touch"],
            "unknown memory placement \"first_touch\"",
        ),
        (
            vec![
                "sim",
                "heat",
                "--trace",
                "/tmp/x.json",
                "--policy",
                "ws,mts",
            ],
            "single --policy",
        ),
        (
            vec!["sim", "sweep", "heat", "--param", "bl", "--values", "3-1"],
            "backwards",
        ),
        (
            vec![
                "sim", "sweep", "heat", "--param", "bl", "--values", "1", "--policy", "ws",
            ],
            "give cab, cab-paper or leave --policy out",
        ),
        (
            vec!["sim", "heat", "--json", "/no/such/dir/x.json"],
            "does not exist",
        ),
    ] {
        let out = locus(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let stderr = text(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_results_are_the_same_in_every_process() {
    let args = [
        "sim",
        "heat",
        "--size",
        "130x64,leaf=8,iters=3",
        "--policy",
        "ws,mts,cats",
    ];
    let first = locus(&args);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(text(&first.stdout), text(&locus(&args).stdout));
}

#[test]
fn sim_help_names_every_latency_key() {
    let out = locus(&["sim", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for key in locus_sim::latency::KEYS {
        assert!(
            help.contains(key),
            "`locus sim --help` lacks {key}:\n{help}"
        );
    }
}
