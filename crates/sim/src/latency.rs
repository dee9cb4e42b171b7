//! The simulator's latency table: what each kind of access and each scheduler
//! operation costs on the simulated machine, in core cycles, and the core clock
//! that turns cycles into seconds.
//!
//! [`Latencies::defaults_for`] gives the table of a preset machine (by its
//! topology name, as [`locus_topo::Topology::preset`] spells it) or, for any
//! other machine, the generic table. A JSON file of overrides
//! ([`LatencyTable::load_overrides`], [`Latencies::with_overrides`]) replaces
//! any subset of the values:
//!
//! ```json
//! {"l3_hit": 40, "remote_dram": 310, "clock_ghz": 2.5}
//! ```
//!
//! Keys are the field names of [`Latencies`]. Cycle fields take whole numbers
//! from 1 to 4294967295; `fill_buffers` a whole number from 1 to
//! [`MAX_FILL_BUFFERS`]; `clock_ghz`, `ipc`, `dram_gbps` and `link_gbps` take
//! numbers in [`rate_range`] (`clock_ghz` 0.1 to 10, `ipc` 0.01 to 64, `dram_gbps`
//! and `link_gbps` 0.1 to 100000: a slower memory or link grows the simulator's
//! calendar of its transfers without bound, and a faster clock or a smaller IPC
//! makes the simulated time of an ordinary run overflow); `l3_victim` `true` or `false`; `prefetch_degree` a whole
//! number from 0 to [`MAX_PREFETCH`] and `prefetch_distance` one from 1. Every
//! problem is a [`LatencyError`] naming the file, the key, what was found and
//! what was expected: text that is not JSON (with its line and column), a value
//! that is not an object, an unknown key (with the closest known key), a key
//! given twice (a plain JSON reader would silently keep the last one), a value
//! of the wrong type or range, and a table that breaks an invariant once the
//! overrides are applied. The file must be a regular file of at most
//! [`MAX_FILE_BYTES`] (a link to `/dev/zero` or a FIFO is refused, not read), and its
//! JSON nests at most 128 deep (serde_json's recursion limit, left on).
//!
//! # Invariants
//!
//! [`Latencies::validate`] holds every table to these, and every default table
//! passes it (tested):
//!
//! * every cycle field is at least 1; `fill_buffers` is from 1 to
//!   [`MAX_FILL_BUFFERS`]; `clock_ghz`, `ipc`, `dram_gbps` and `link_gbps` are
//!   in their [`rate_range`];
//! * `l1_hit <= l2_hit <= l3_hit <= local_dram <= remote_dram`: a level farther
//!   from the core never answers sooner;
//! * `local_dram <= near_dram <= remote_dram`: another node of the own package
//!   answers no sooner than the own node, and no later than another package;
//! * `l3_hit <= remote_cache`: a line from another package's cache costs at least
//!   a hit in the core's own last-level cache;
//! * `probe_local <= probe_remote`: looking at another squad's queue costs at
//!   least as much as looking at one in the own squad.
//! * `prefetch_distance` is from 1 to [`MAX_PREFETCH`] and `prefetch_degree`
//!   at most `prefetch_distance`.
//!
//! `near_cache` is deliberately not ordered against the others: it only matters
//! on chiplet machines, and an override file may want to explore any value.
//!
//! Everything here is plain data; any thread may call anything.
//!
//! # Default tables
//!
//! Cycles at the machine's clock; nanoseconds in parentheses where the source
//! gives a time. The row after the table says where each number comes from;
//! "estimate" marks a number that no source here gives directly.
//!
//! | field | `opteron-8380` | `xeon-x7550` | `xeon-e5-2660v2` | `xeon-e7-4820v3` | `epyc-7763-2s` | `epyc-7763-2s-nps4` | `epyc-9654-2s` | `xeon-6230-2s` | `altix-2x2` | generic |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | `clock_ghz` | 2.5 | 2.0 | 2.2 | 1.9 | 2.45 | 2.45 | 2.4 | 2.1 | 1.6 | 2.5 |
//! | `ipc` | 1.0 | 1.0 | 1.0 | 1.0 | 1.0 | 1.0 | 1.0 | 1.0 | 1.0 | 1.0 |
//! | `l1_hit` | 3 | 4 | 4 | 4 | 4 | 4 | 4 | 4 | 1 | 4 |
//! | `l2_hit` | 15 | 10 | 12 | 12 | 12 | 12 | 14 | 14 | 5 | 14 |
//! | `l3_hit` | 48 (19 ns) | 42 (21 ns) | 36 (16 ns) | 46 (24 ns) | 46 (19 ns) | 46 (19 ns) | 50 (21 ns) | 36 (17 ns) | 14 (9 ns) | 40 (16 ns) |
//! | `near_cache` | 48 (unused) | 42 (unused) | 36 (unused) | 46 (unused) | 220 (90 ns) | 220 (90 ns) | 192 (80 ns) | 36 (unused) | 14 (unused) | 200 (80 ns) |
//! | `remote_cache` | 250 (100 ns) | 300 (150 ns) | 220 (100 ns) | 280 (147 ns) | 440 (180 ns) | 440 (180 ns) | 432 (180 ns) | 252 (120 ns) | 400 (250 ns) | 300 (120 ns) |
//! | `local_dram` | 200 (80 ns) | 260 (130 ns) | 180 (82 ns) | 240 (126 ns) | 270 (110 ns) | 248 (101 ns) | 276 (115 ns) | 170 (81 ns) | 232 (145 ns) | 225 (90 ns) |
//! | `near_dram` | 200 (unused) | 260 (unused) | 180 (unused) | 240 (unused) | 270 (unused) | 272 (111 ns) | 276 (unused) | 170 (unused) | 232 (unused) | 250 (100 ns) |
//! | `remote_dram` | 290 (116 ns) | 390 (195 ns) | 280 (127 ns) | 360 (189 ns) | 490 (200 ns) | 490 (200 ns) | 480 (200 ns) | 294 (140 ns) | 384 (240 ns) | 350 (140 ns) |
//! | `spawn` | 45 | 30 | 36 | 36 | 36 | 36 | 42 | 42 | 15 | 42 |
//! | `probe_local` | 48 | 42 | 36 | 46 | 46 | 46 | 50 | 36 | 14 | 40 |
//! | `probe_remote` | 250 | 300 | 220 | 280 | 440 | 440 | 432 | 252 | 400 | 300 |
//! | `steal_local` | 120 | 105 | 90 | 115 | 115 | 115 | 125 | 90 | 35 | 100 |
//! | `steal_remote` | 625 | 750 | 550 | 700 | 1100 | 1100 | 1080 | 630 | 1000 | 750 |
//! | `fill_buffers` | 8 | 10 | 10 | 10 | 24 | 24 | 24 | 12 | 8 | 12 |
//! | `dram_gbps` (per node) | 8.5 | 16 | 42 | 40 | 150 | 37.5 | 360 | 100 | 4 | 100 |
//! | `link_gbps` (per direction) | 6 | 9 | 22 | 9 | 100 | 100 | 180 | 29 | 2.2 | 50 |
//! | `l3_victim` | true | false | false | false | true | true | true | true | false | false |
//! | `prefetch_degree` | 1 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 0 (none) | 2 |
//! | `prefetch_distance` | 2 | 20 | 20 | 20 | 20 | 20 | 20 | 20 | 1 (unused) | 20 |
//!
//! The papers behind the presets (in `shared/papers/`) give each machine's clock
//! and caches, but no latency; the other numbers come from vendor manuals,
//! published measurements, or are estimates, as listed here.
//!
//! **Every machine.**
//! * `ipc` 1.0: the instruction counts that tasks declare are rough estimates,
//!   and one instruction per cycle is a conservative middle for the
//!   memory-heavy HPC loops the presets' papers run (their cores retire 3 to 4
//!   per cycle at best and far fewer when stalled). Estimate.
//! * `near_cache` "unused": the machine has one cache domain per package, so no
//!   line ever comes from another domain of the same package; the value is set
//!   to `l3_hit` only so that the column reads sensibly.
//! * `near_dram` "unused": the machine has one NUMA node per package, so no line
//!   comes from another node of the same package; the value is `local_dram`.
//! * Scheduler costs, all estimates from the cost of moving cache lines between
//!   cores (rayon and crossbeam pushes and steals touch a handful of lines):
//!   `spawn` = 3 × `l2_hit` (the deque slot and the bottom index, written, and
//!   the fence of the pop at the join, each costed as an L2 hit);
//!   `probe_local` = `l3_hit` (one line of a squad mate's deque, served on chip);
//!   `probe_remote` = `remote_cache` (one line from another squad's cache);
//!   `steal_local` = 2.5 × `l3_hit` and `steal_remote` = 2.5 × `remote_cache`
//!   (a successful steal moves 2 to 3 more lines: the claimed index, the slot,
//!   the task's own frame). On `epyc-7763-2s` half of the other squads sit in
//!   the same package, yet the remote costs use `remote_cache`: there is one
//!   value for "another squad", and it is the pessimistic one. The `PRESETS`
//!   table writes these out; a test checks that they follow these rules.
//!
//! **Memory-level parallelism and bandwidth, every machine** (used by
//! [`crate::clock`]; the serial clock ignores them).
//! * `dram_gbps` is what one NUMA node's memory controllers sustain, reads and
//!   writes together, as STREAM counts bytes; `link_gbps` what one package sends
//!   another over the interconnect, per direction, payload only. No STREAM result
//!   for these exact machines was checked for this table: every `dram_gbps` is an
//!   estimate, at about 70% of the vendor's peak (channels × transfer rate × 8
//!   bytes; STREAM reaches 65-80% of it on the servers of these generations), and
//!   `link_gbps` about 70% of the raw link rate (packet headers and coherence
//!   traffic take the rest); both are marked "estimate".
//! * The links are modelled fully connected, one server per ordered pair of
//!   packages: where the real machine has several links between two packages
//!   (two UPI or QPI links on two-socket boards, four xGMI links on EPYC), their
//!   sum; where a four-socket board routes some pairs over two hops, the model
//!   is optimistic.
//!
//! **`opteron-8380`** (4 × AMD Opteron 8380 "Shanghai", Family 10h rev C2).
//! * clock: the CATS and CAB papers ("running at 2.5 GHz").
//! * L1 3, L2 15: AMD Software Optimization Guide for Family 10h (pub. 40546)
//!   gives the 3-cycle L1D; AnandTech's Phenom II review (the same core)
//!   measures 3 and 15.
//! * L3 48: estimate; AMD did not publish it, AnandTech expected "around 50",
//!   tools report 55 with overheads.
//! * local DRAM 80 ns: estimate between John McCalpin's (TACC) measurements of
//!   Family 10h rev C2 in a 2-socket node (74 ns) and of 4-socket Opterons
//!   (K8 95 ns, rev B3 100 ns): without HT Assist (added in "Istanbul"), a
//!   4-socket Shanghai waits for the probe responses of all other chips.
//! * remote DRAM 116 ns: estimate of one HyperTransport hop (100-120 ns);
//!   McCalpin's 4-socket rev B3 needs 130 ns for two hops.
//! * remote cache 100 ns: estimate; a probe round trip over one hop without
//!   the DRAM access.
//! * fill buffers 8: the 8-entry miss address buffer of the K8/Family 10h L1
//!   data cache, as commonly quoted from AMD's optimization guides (not checked
//!   against pub. 40546 here); estimate.
//! * DRAM 8.5 GB/s per node: two channels of registered DDR2-800 per socket,
//!   12.8 GB/s peak (AMD's Opteron 8300 product data); estimate at two thirds of
//!   it (DDR2 controllers of that generation sustain less than DDR3's, and a
//!   4-socket Shanghai spends some on broadcast probes).
//! * link 6 GB/s: HyperTransport 3 at 4.4 GT/s, 16 bits wide, 8.8 GB/s per
//!   direction (AMD); estimate at 70%. Of the 4 sockets, the real boards wire
//!   some pairs two hops apart; the model gives every pair a link.
//!
//! **`xeon-x7550`** (4 × Intel Xeon X7550 "Nehalem-EX").
//! * clock: the MTS paper ("x7550 2.0GHz").
//! * L1 4, L2 10: Intel 64 and IA-32 Architectures Optimization Reference
//!   Manual, Nehalem section.
//! * L3 42: Intel's 21 ns load-to-use for the Nehalem-EX L3 (quoted in
//!   AnandTech's Xeon 7500 review), at 2.0 GHz.
//! * local DRAM 130 ns, remote DRAM 195 ns: Intel Memory Latency Checker on the
//!   same 4-socket platform with Westmere-EX (Intel developer blog, "Memory
//!   Latencies on Intel Xeon Processor E5-4600 and E7-4800 product families",
//!   2014: 135 ns local, 194-202 ns one hop); Nehalem-EX uses the same buffered
//!   memory and fully connected QPI.
//! * remote cache 150 ns: estimate; a QPI hop plus two crossings of the 8-port
//!   router (18 ns each per Intel, same review), without the buffered DRAM.
//! * fill buffers 10: Intel Optimization Reference Manual, Nehalem section (10
//!   line fill buffers per core).
//! * DRAM 16 GB/s per socket: estimate; four SMI channels to buffered DDR3-1066;
//!   4-socket Nehalem-EX STREAM triads of 60-70 GB/s are recalled, not checked here.
//! * link 9 GB/s: QPI at 6.4 GT/s, 12.8 GB/s per direction (Intel ARK), one
//!   link between each pair of the 4 sockets; estimate at 70%.
//!
//! **`xeon-e5-2660v2`** (2 × Intel Xeon E5-2660 v2 "Ivy Bridge-EP").
//! * clock: the SAM paper ("2.2 GHz Intel Xeon E5-2660 v2").
//! * L1 4, L2 12: Intel Optimization Reference Manual (Sandy Bridge section,
//!   unchanged in Ivy Bridge); 7-cpu.com measures the same on Ivy Bridge.
//! * L3 36: estimate; 7-cpu.com measures 26-34 cycles on the 4-slice desktop
//!   Ivy Bridge, and the 10-slice EP ring is longer.
//! * local DRAM 82 ns, remote DRAM 127 ns, remote cache 100 ns: estimates from
//!   published idle latencies of 2-socket Ivy Bridge-EP servers (about 80 ns
//!   local, 120-130 ns over one QPI hop).
//! * fill buffers 10: Intel Optimization Reference Manual (10 line fill
//!   buffers from Nehalem through Haswell).
//! * DRAM 42 GB/s per socket: estimate, 70% of four channels of DDR3-1866,
//!   59.7 GB/s peak (Intel ARK).
//! * link 22 GB/s: two QPI links at 8 GT/s, 16 GB/s per direction each (Intel
//!   ARK); estimate at 70%.
//!
//! **`xeon-e7-4820v3`** (4 × Intel Xeon E7-4820 v3 "Haswell-EX").
//! * clock: the SAM paper ("1.9 GHz Intel Xeon E7-4820 v3").
//! * L1 4, L2 12: Intel Optimization Reference Manual, Haswell section.
//! * L3 46: estimate; Haswell server L3s measure 40-50 cycles, and the
//!   4-socket EX die has the longest ring.
//! * local DRAM 126 ns, remote DRAM 189 ns, remote cache 147 ns: estimates,
//!   slightly below the E7-4800 (v1) numbers above (135/195 ns), as the E7 v3
//!   also sits behind memory buffers on a fully connected 4-socket QPI.
//! * fill buffers 10: as `xeon-e5-2660v2` (Haswell keeps 10).
//! * DRAM 40 GB/s per socket: estimate; four SMI2 channels to Jordan Creek
//!   buffers, the low-bin E7-4820 v3 running its DDR slower than the top bins.
//! * link 9 GB/s: QPI at 6.4 GT/s on this bin (Intel ARK), 12.8 GB/s per
//!   direction, one link per pair of sockets; estimate at 70%.
//!
//! **`epyc-7763-2s`** (2 × AMD EPYC 7763 "Milan", NPS1).
//! * clock: AMD's base clock, 2.45 GHz (boost ignored: all-core HPC loads run
//!   near base).
//! * L1 4, L2 12, L3 46: AMD Software Optimization Guide for Family 19h
//!   (pub. 56665); AnandTech's Milan review measures about 46 cycles for the L3.
//! * near cache 90 ns: estimate from AnandTech's Milan core-to-core latencies
//!   between CCDs of one package (roughly 80-110 ns).
//! * remote cache 180 ns: estimate from the same review's cross-socket
//!   core-to-core latencies.
//! * local DRAM 110 ns: estimate; AnandTech measures about 122 ns full random
//!   (TLB misses included) on the previous generation in NPS1.
//! * remote DRAM 200 ns: estimate (one Infinity Fabric socket hop).
//! * fill buffers 24: the L1 data cache's outstanding misses as commonly quoted
//!   for Zen 3; estimate, not checked against AMD's pub. 56665.
//! * DRAM 150 GB/s per socket: estimate, 73% of eight channels of DDR4-3200,
//!   204.8 GB/s peak (AMD EPYC 7763 product page); two-socket Milan STREAM
//!   triads near 300 GB/s are recalled, not checked here.
//! * link 100 GB/s: estimate; four xGMI-2 links between the sockets, about
//!   36 GB/s per direction each raw, at 70%.
//!
//! **`epyc-7763-2s-nps4`** (the same machine in NPS4: 4 NUMA nodes per package).
//! * Everything as `epyc-7763-2s` but DRAM.
//! * local DRAM 101 ns: `epyc-7763-2s`'s 110 ns less the 9 ns that AnandTech's
//!   Rome review measures NPS4 faster than NPS1 (113 against 122 ns full random
//!   at 128 MiB; Milan keeps Rome's I/O die); estimate.
//! * near DRAM 272 (111 ns): the 3 other nodes of the own package, across the I/O
//!   die; estimate, the own node's 101 ns plus 10% (the SLIT gives them distance
//!   12 against the own node's 10 and the other package's 32; no measured latency
//!   was at hand).
//! * remote DRAM 200 ns: as `epyc-7763-2s`, the other package's memory.
//! * DRAM 37.5 GB/s per node: a quarter of `epyc-7763-2s`'s 150 (each NPS4
//!   node has two of the package's eight channels); estimate. Other nodes of
//!   the own package are read over the I/O die, not a socket link.
//!
//! **`epyc-9654-2s`** (2 × AMD EPYC 9654 "Genoa", NPS1).
//! * clock: AMD's base clock, 2.4 GHz (AMD EPYC 9004 product page; boost
//!   ignored, as for `epyc-7763-2s`).
//! * L1 4, L2 14: AMD's Zen 4 figures (4-cycle integer L1D loads as in Zen 3;
//!   the L2, doubled to 1 MiB, 14 cycles against Zen 3's 12), as Chips and
//!   Cheese's "AMD's Zen 4, Part 2: Memory Subsystem and Conclusion" (2022)
//!   discusses them; not checked against AMD's Zen 4 optimization guide here.
//! * L3 50: estimate; Zen 3's 46 plus the few cycles Zen 4's L3 added (Chips
//!   and Cheese, "Genoa-X: Server V-Cache Round 2", 2023, compares Zen 4
//!   server L3 latency with Milan-X's 50 cycles, which is Zen 3's 46 plus
//!   V-Cache's 4).
//! * near cache 80 ns: estimate; `epyc-7763-2s`'s 90 ns scaled by the ratio of
//!   published cross-CCD core-to-core round trips (nviennot/core-to-core-latency
//!   results: about 190 ns on a two-socket EPYC 9274F, about 224 ns on an
//!   EPYC 7453).
//! * remote cache 180 ns, remote DRAM 200 ns: estimates, as `epyc-7763-2s`
//!   (one socket hop over Infinity Fabric; no published Genoa figure found).
//! * local DRAM 115 ns: estimate; Chips and Cheese (same article) finds
//!   Genoa-X's DRAM latency about that of Sapphire Rapids and a little above
//!   Milan-X's, and DDR5 does not lower it.
//! * fill buffers 24: as `epyc-7763-2s` (Zen 4 keeps Zen 3's L1 miss
//!   tracking); estimate.
//! * DRAM 360 GB/s per socket: estimate, 78% of twelve channels of DDR5-4800,
//!   460.8 GB/s peak (AMD EPYC 9654 product page).
//! * link 180 GB/s: estimate; four xGMI-3 links at 32 Gb/s per lane, 64 GB/s
//!   per direction each raw, at 70%.
//!
//! **`xeon-6230-2s`** (2 × Intel Xeon Gold 6230 "Cascade Lake").
//! * clock: Intel ARK, 2.1 GHz base.
//! * L1 4, L2 14: Intel Optimization Reference Manual, Skylake Server section
//!   (1 MiB L2, unchanged in Cascade Lake); AnandTech's Rome review measures 4
//!   and 14 on the Xeon Platinum 8280 (Cascade Lake).
//! * L3 36 (17 ns): the same review measures about 46 cycles at 2.7 GHz on the
//!   8280, about 17 ns; the mesh's nanoseconds are kept at the 6230's clock
//!   (estimate: the 6230's mesh is smaller, its core clock lower).
//! * local DRAM 81 ns, remote DRAM 140 ns: Intel Memory Latency Checker v3.10
//!   idle latencies on a two-socket Cascade Lake node (80.8-81.5 ns local,
//!   140.4-141.6 ns remote), published in gjbex/Code-optimization
//!   (`info/cascadelake_mlc.txt`).
//! * remote cache 120 ns: estimate; a line from the other socket's cache skips
//!   the DRAM access of a remote read (140 ns) but pays the UPI hop and the
//!   snoop.
//! * near cache "unused": one L3 per package.
//! * fill buffers 12: estimate; Intel documents 10 line fill buffers through
//!   Haswell, and Skylake-derived server cores are commonly quoted with 12.
//! * DRAM 100 GB/s per socket: estimate, 71% of six channels of DDR4-2933,
//!   140.8 GB/s peak (Intel ARK, Xeon Gold 6230).
//! * link 29 GB/s: two of the 6230's three UPI links at 10.4 GT/s, 20.8 GB/s
//!   per direction each (Intel ARK), as two-socket boards commonly wire them;
//!   estimate at 70%.
//!
//! **`altix-2x2`** (SGI Altix 3700 nodes, Itanium 2 "Madison").
//! * clock: the affinity-graph paper ("1.6 GHz Itanium processors").
//! * L1 1, L2 5, L3 14: Intel Itanium 2 Processor Reference Manual, integer
//!   loads (floating-point loads skip the L1D and take 6 cycles from L2);
//!   the same figures are listed for the Altix 3700 at Texas A&M.
//! * local DRAM 145 ns: estimate, the figure usually quoted for the Altix
//!   3000 series.
//! * remote DRAM 240 ns: estimate; the Texas A&M listing gives about 50 ns per
//!   NUMAlink router, and a remote access crosses both nodes' SHUBs.
//! * remote cache 250 ns: estimate; the directory at the home SHUB forwards
//!   the request to the owner, one more step than a remote DRAM read.
//! * fill buffers 8: estimate (Itanium 2 tracks more L2 misses, but its
//!   in-order core stalls on the first use of a missing load).
//! * DRAM 4 GB/s per node: estimate; two processors share a 6.4 GB/s front-side
//!   bus (400 MT/s, 128 bits; Intel's Itanium 2 datasheet), and Altix STREAM
//!   figures of about 2 GB/s per processor are recalled, not checked here.
//! * link 2.2 GB/s: NUMAlink 4, 3.2 GB/s per direction (SGI); estimate at 70%.
//!
//! **Cache organisation and prefetch, every machine** (used by
//! [`crate::machine`]; `l3_victim`, `prefetch_degree` and `prefetch_distance`
//! are keys of the override file like the others). The table gives what each vendor
//! documents, which [`Latencies::documented_for`] returns; the defaults
//! ([`Latencies::defaults_for`]) still model an inclusive L3 and no prefetcher,
//! the model the policies' rules were judged on, so `{"l3_victim": true,
//! "prefetch_degree": 1}` switches the Opteron's documented caches on.
//! * `l3_victim` true on the AMD presets: the Family 10h L3 is "a victim cache"
//!   of the cores' L2s, filled by their evictions (AMD BIOS and Kernel
//!   Developer's Guide for Family 10h, pub. 31116, and the Family 10h Software
//!   Optimization Guide, pub. 40546, L3 cache sections); Zen 3 and Zen 4 fill
//!   their L3 "from L2 victims of all cores within the CCX" (AMD Software
//!   Optimization Guides for Family 19h, pub. 56665 and 57647). On
//!   `xeon-6230-2s` too: Skylake Server's LLC is non-inclusive and takes the
//!   L2's victims (Intel Optimization Reference Manual, Skylake Server
//!   section). False, an inclusive L3, on Nehalem-EX, Ivy Bridge-EP and
//!   Haswell-EX (the same manual's sections on them), and on `altix-2x2`, whose
//!   L3 is each core's own (the model's inclusive L3 of one core is its L3).
//! * `opteron-8380`, degree 1 and distance 2: AMD's Software Optimization
//!   Guide for AMD64 Processors (pub. 25112), "Hardware Prefetching": an access
//!   to line l followed by one to l + 1 "initiates a prefetch of cache line
//!   l + 3", ascending or descending, a line at a time. Family 10h keeps this
//!   sequential prefetcher and adds stride detection (pub. 40546, not checked
//!   here), which a sweep of whole rows does not need.
//! * Intel presets, degree 2 and distance 20: the Optimization Reference
//!   Manual's L2 streamer "can issue two prefetch requests on every L2 lookup"
//!   and "run up to 20 lines ahead of the load request", within a 4 KiB page
//!   (stated for Sandy Bridge and its successors; Nehalem-EX is taken to have
//!   the same streamer, an estimate).
//! * EPYC presets, degree 2 and distance 20: estimate. AMD's Family 19h guides
//!   describe an L2 stream prefetcher that fetches "additional sequential lines
//!   in ascending or descending directions" without its degree or distance, so
//!   the Intel streamer's figures stand in.
//! * `altix-2x2`, degree 0: Itanium 2 has no hardware data prefetcher; its
//!   compilers issue `lfetch` (Intel Itanium 2 Processor Reference Manual).
//!
//! **generic** (any machine without a preset, "this machine" included):
//! estimates for a current two-socket server, in the middle of the recent
//! presets: 2.5 GHz, L1 4, L2 14, L3 40 (16 ns), another chiplet's L3 80 ns,
//! another socket's cache 120 ns, local DRAM 90 ns, another node of the own package's
//! DRAM 100 ns, remote DRAM 140 ns, 12 fill buffers, 100 GB/s per NUMA node, 50 GB/s
//! per direction between packages.
//! Measure the real machine and override them.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Costs of the simulated machine, in core cycles, and its clock.
///
/// Serializes to the JSON object that [`Latencies::with_overrides`] reads, so
/// a serialized table loads back as itself.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Latencies {
    /// Core clock in GHz, to turn cycles into seconds.
    pub clock_ghz: f64,
    /// Instructions per cycle for the compute work that tasks declare.
    pub ipc: f64,
    /// Load-to-use latency of a hit in the private L1d.
    pub l1_hit: u32,
    /// Load-to-use latency of a hit in the private L2.
    pub l2_hit: u32,
    /// Load-to-use latency of a hit in the shared last-level cache of the
    /// core's cache domain.
    pub l3_hit: u32,
    /// A line supplied by another cache domain of the same package (chiplet CPUs).
    pub near_cache: u32,
    /// A line supplied by a cache of another package, over the interconnect.
    pub remote_cache: u32,
    /// A line from the DRAM of the core's own NUMA node.
    pub local_dram: u32,
    /// A line from the DRAM of another NUMA node of the core's own package (a
    /// package split into several nodes: EPYC's NPS2 and NPS4, Intel's sub-NUMA
    /// clusters).
    pub near_dram: u32,
    /// A line from the DRAM of a NUMA node of another package.
    pub remote_dram: u32,
    /// Pushing a task: the spawn and join overhead.
    pub spawn: u32,
    /// One look at a queue within the squad (an empty deque or pool).
    pub probe_local: u32,
    /// One look at a queue of another squad.
    pub probe_remote: u32,
    /// Extra cost of a successful steal within the squad.
    pub steal_local: u32,
    /// Extra cost of a successful steal from another squad.
    pub steal_remote: u32,
    /// Misses one core keeps outstanding at once (Intel's line fill buffers,
    /// AMD's miss address buffers): the memory-level parallelism of the
    /// [`crate::clock`] model. A whole number from 1 to [`MAX_FILL_BUFFERS`].
    pub fill_buffers: u32,
    /// Sustained bandwidth of one NUMA node's memory controllers, in GB/s
    /// (10^9 bytes per second), shared by every transfer to or from that
    /// node's DRAM: reads and write-backs, local and remote.
    pub dram_gbps: f64,
    /// Sustained bandwidth from one package to another over the interconnect,
    /// per direction, in GB/s, shared by every line that crosses it.
    pub link_gbps: f64,
    /// Whether the last-level cache is a victim cache of the private caches
    /// (exclusive: filled by their evictions, left by a line a core takes), as
    /// AMD's are and Intel's from Skylake Server on; `false` for an inclusive one
    /// ([`crate::machine`], "Organisation").
    pub l3_victim: bool,
    /// Lines the stream prefetcher of each core requests per access that trains
    /// it; 0 switches the prefetcher off ([`crate::machine`], "Prefetch"). At
    /// most [`MAX_PREFETCH`].
    pub prefetch_degree: u32,
    /// How many lines ahead of the demand access the stream prefetcher runs, from
    /// 1 to [`MAX_PREFETCH`] (a 4 KiB page of 64-byte lines), at least
    /// `prefetch_degree`.
    pub prefetch_distance: u32,
}

/// A latency table and where its numbers came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyTable {
    /// The numbers.
    pub latencies: Latencies,
    /// Where they came from, for reports: `"preset opteron-8380 defaults"`,
    /// `"generic defaults (...)"`, or either followed by
    /// `", overridden by FILE: l3_hit, remote_dram"`.
    pub source: String,
}

/// A preset machine's default table.
struct Preset {
    /// The preset's name, as `locus_topo::Topology::preset` spells it.
    name: &'static str,
    /// Its defaults; the module documentation gives the source of each one.
    latencies: Latencies,
}

/// The default table of every preset, scheduler costs included, written out so
/// that they can be audited against the module documentation.
const PRESETS: [Preset; 9] = [
    Preset {
        name: "opteron-8380",
        latencies: Latencies {
            clock_ghz: 2.5,
            ipc: 1.0,
            l1_hit: 3,
            l2_hit: 15,
            l3_hit: 48,
            near_cache: 48,
            remote_cache: 250,
            local_dram: 200,
            near_dram: 200,
            remote_dram: 290,
            spawn: 45,
            probe_local: 48,
            probe_remote: 250,
            steal_local: 120,
            steal_remote: 625,
            fill_buffers: 8,
            dram_gbps: 8.5,
            link_gbps: 6.0,
            l3_victim: true,
            prefetch_degree: 1,
            prefetch_distance: 2,
        },
    },
    Preset {
        name: "xeon-x7550",
        latencies: Latencies {
            clock_ghz: 2.0,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 10,
            l3_hit: 42,
            near_cache: 42,
            remote_cache: 300,
            local_dram: 260,
            near_dram: 260,
            remote_dram: 390,
            spawn: 30,
            probe_local: 42,
            probe_remote: 300,
            steal_local: 105,
            steal_remote: 750,
            fill_buffers: 10,
            dram_gbps: 16.0,
            link_gbps: 9.0,
            l3_victim: false,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "xeon-e5-2660v2",
        latencies: Latencies {
            clock_ghz: 2.2,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 12,
            l3_hit: 36,
            near_cache: 36,
            remote_cache: 220,
            local_dram: 180,
            near_dram: 180,
            remote_dram: 280,
            spawn: 36,
            probe_local: 36,
            probe_remote: 220,
            steal_local: 90,
            steal_remote: 550,
            fill_buffers: 10,
            dram_gbps: 42.0,
            link_gbps: 22.0,
            l3_victim: false,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "xeon-e7-4820v3",
        latencies: Latencies {
            clock_ghz: 1.9,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 12,
            l3_hit: 46,
            near_cache: 46,
            remote_cache: 280,
            local_dram: 240,
            near_dram: 240,
            remote_dram: 360,
            spawn: 36,
            probe_local: 46,
            probe_remote: 280,
            steal_local: 115,
            steal_remote: 700,
            fill_buffers: 10,
            dram_gbps: 40.0,
            link_gbps: 9.0,
            l3_victim: false,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "epyc-7763-2s",
        latencies: Latencies {
            clock_ghz: 2.45,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 12,
            l3_hit: 46,
            near_cache: 220,
            remote_cache: 440,
            local_dram: 270,
            near_dram: 270,
            remote_dram: 490,
            spawn: 36,
            probe_local: 46,
            probe_remote: 440,
            steal_local: 115,
            steal_remote: 1100,
            fill_buffers: 24,
            dram_gbps: 150.0,
            link_gbps: 100.0,
            l3_victim: true,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "epyc-7763-2s-nps4",
        latencies: Latencies {
            clock_ghz: 2.45,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 12,
            l3_hit: 46,
            near_cache: 220,
            remote_cache: 440,
            local_dram: 248,
            near_dram: 272,
            remote_dram: 490,
            spawn: 36,
            probe_local: 46,
            probe_remote: 440,
            steal_local: 115,
            steal_remote: 1100,
            fill_buffers: 24,
            dram_gbps: 37.5,
            link_gbps: 100.0,
            l3_victim: true,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "epyc-9654-2s",
        latencies: Latencies {
            clock_ghz: 2.4,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 14,
            l3_hit: 50,
            near_cache: 192,
            remote_cache: 432,
            local_dram: 276,
            near_dram: 276,
            remote_dram: 480,
            spawn: 42,
            probe_local: 50,
            probe_remote: 432,
            steal_local: 125,
            steal_remote: 1080,
            fill_buffers: 24,
            dram_gbps: 360.0,
            link_gbps: 180.0,
            l3_victim: true,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "xeon-6230-2s",
        latencies: Latencies {
            clock_ghz: 2.1,
            ipc: 1.0,
            l1_hit: 4,
            l2_hit: 14,
            l3_hit: 36,
            near_cache: 36,
            remote_cache: 252,
            local_dram: 170,
            near_dram: 170,
            remote_dram: 294,
            spawn: 42,
            probe_local: 36,
            probe_remote: 252,
            steal_local: 90,
            steal_remote: 630,
            fill_buffers: 12,
            dram_gbps: 100.0,
            link_gbps: 29.0,
            l3_victim: true,
            prefetch_degree: 2,
            prefetch_distance: 20,
        },
    },
    Preset {
        name: "altix-2x2",
        latencies: Latencies {
            clock_ghz: 1.6,
            ipc: 1.0,
            l1_hit: 1,
            l2_hit: 5,
            l3_hit: 14,
            near_cache: 14,
            remote_cache: 400,
            local_dram: 232,
            near_dram: 232,
            remote_dram: 384,
            spawn: 15,
            probe_local: 14,
            probe_remote: 400,
            steal_local: 35,
            steal_remote: 1000,
            fill_buffers: 8,
            dram_gbps: 4.0,
            link_gbps: 2.2,
            l3_victim: false,
            prefetch_degree: 0,
            prefetch_distance: 1,
        },
    },
];

/// The generic table: estimates for a current two-socket server.
const GENERIC: Latencies = Latencies {
    clock_ghz: 2.5,
    ipc: 1.0,
    l1_hit: 4,
    l2_hit: 14,
    l3_hit: 40,
    near_cache: 200,
    remote_cache: 300,
    local_dram: 225,
    near_dram: 250,
    remote_dram: 350,
    spawn: 42,
    probe_local: 40,
    probe_remote: 300,
    steal_local: 100,
    steal_remote: 750,
    fill_buffers: 12,
    dram_gbps: 100.0,
    link_gbps: 50.0,
    l3_victim: false,
    prefetch_degree: 2,
    prefetch_distance: 20,
};

/// Every key an override file may hold, in the order of the fields.
pub const KEYS: [&str; 21] = [
    "clock_ghz",
    "ipc",
    "l1_hit",
    "l2_hit",
    "l3_hit",
    "near_cache",
    "remote_cache",
    "local_dram",
    "near_dram",
    "remote_dram",
    "spawn",
    "probe_local",
    "probe_remote",
    "steal_local",
    "steal_remote",
    "fill_buffers",
    "dram_gbps",
    "link_gbps",
    "l3_victim",
    "prefetch_degree",
    "prefetch_distance",
];

/// The keys whose values are rates, each within its [`rate_range`].
const RATE_KEYS: [&str; 4] = ["clock_ghz", "ipc", "dram_gbps", "link_gbps"];

/// The keys of the cache organisation and the prefetcher: neither rates nor cycles.
const MODEL_KEYS: [&str; 3] = ["l3_victim", "prefetch_degree", "prefetch_distance"];

/// The keys whose values are cycles: all but the rates, the fill buffers and the
/// model's switches.
fn cycle_keys() -> impl Iterator<Item = &'static str> {
    KEYS.into_iter().filter(|key| {
        !RATE_KEYS.contains(key) && *key != "fill_buffers" && !MODEL_KEYS.contains(key)
    })
}

/// Largest `prefetch_degree` and `prefetch_distance`: the lines of a 4 KiB page at
/// 64 bytes a line (a stream prefetcher does not cross a page).
pub const MAX_PREFETCH: u32 = 64;

/// What `prefetch_degree` accepts, for error messages.
const PREFETCH_DEGREE_EXPECTED: &str =
    "a whole number of lines from 0 (prefetcher off) to 64, at most prefetch_distance";

/// What `prefetch_distance` accepts, for error messages.
const PREFETCH_DISTANCE_EXPECTED: &str = "a whole number of lines from 1 to 64";

/// Most fill buffers a core may have: more than any core built has (Zen 4 has 24
/// for its L1; 256 would let an override file ask for a near-unbounded overlap).
pub const MAX_FILL_BUFFERS: u32 = 256;

/// What `fill_buffers` accepts, for error messages.
const FILL_BUFFERS_EXPECTED: &str = "a whole number of fill buffers from 1 to 256";

/// The memory-hierarchy chain that must not decrease.
const CHAIN: [&str; 5] = ["l1_hit", "l2_hit", "l3_hit", "local_dram", "remote_dram"];

/// What an override file should look like, for error messages.
const EXAMPLE: &str = r#"{"l3_hit": 40, "clock_ghz": 2.5}"#;

/// What a cycle field accepts, for error messages.
/// Largest latency override file read, in bytes: a file of every key is under 1 KB, and
/// 1 MiB leaves room for any formatting while bounding what a wrong path can cost.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

const CYCLES_EXPECTED: &str = "a whole number of cycles from 1 to 4294967295";

impl Latencies {
    /// Defaults for a machine: the preset's table when `topology_name` names a
    /// preset (case-insensitively, as [`locus_topo::Topology::preset`] matches
    /// it), else the generic defaults, with `source` saying which.
    ///
    /// The defaults model an inclusive L3 and no prefetcher on every preset (see
    /// [`Latencies::documented_for`] for the organisation and prefetcher each vendor
    /// documents): the policies' rules and the "never lose" matrix were judged on that
    /// model, and with the documented prefetcher on, `cab` and `cats` lose up to 1.09x
    /// `ws` on `heat-moving` (docs/results.md, "Victim L3 and prefetch"), which their
    /// rules do not yet answer. An override file switches either on.
    pub fn defaults_for(topology_name: &str) -> LatencyTable {
        let mut table = Latencies::documented_for(topology_name);
        table.latencies.l3_victim = false;
        table.latencies.prefetch_degree = 0;
        table
    }

    /// The preset's table as its vendor documents the caches: a victim L3 where the
    /// L3 is one, and each core's stream prefetcher with its degree and distance
    /// (module documentation); the generic defaults for any other machine.
    pub fn documented_for(topology_name: &str) -> LatencyTable {
        let wanted = topology_name.trim();
        match PRESETS.iter().find(|p| p.name.eq_ignore_ascii_case(wanted)) {
            Some(preset) => LatencyTable {
                latencies: preset.latencies,
                source: format!("preset {} defaults", preset.name),
            },
            None => LatencyTable {
                latencies: GENERIC,
                source: format!(
                    "generic defaults (no latency table for machine {topology_name:?})"
                ),
            },
        }
    }

    /// Generic defaults: estimates for a current two-socket server (see the
    /// module documentation).
    pub fn generic() -> Latencies {
        GENERIC
    }

    /// Applies the overrides in the JSON text `text` and checks the result with
    /// [`Latencies::validate`]. `origin` names the text in errors (the file
    /// path, say). Returns the new table and the keys overridden, in the order
    /// of the text.
    ///
    /// # Errors
    ///
    /// When the text is not JSON, not an object, names an unknown key or one
    /// key twice, holds a value of the wrong type or range, or breaks an
    /// invariant once applied. The message names `origin`, the key, and what
    /// was expected.
    pub fn with_overrides(
        self,
        text: &str,
        origin: &str,
    ) -> Result<(Latencies, Vec<String>), LatencyError> {
        let entries = match serde_json::from_str::<Document>(text) {
            Ok(Document::Object(entries)) => entries,
            Ok(Document::Other(found)) => {
                return Err(LatencyError(Kind::NotObject {
                    origin: origin.to_owned(),
                    found,
                }))
            }
            Err(err) => return Err(syntax_error(text, origin, err)),
        };
        let mut out = self;
        let mut keys: Vec<String> = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            if !KEYS.contains(&key.as_str()) {
                return Err(LatencyError(Kind::UnknownKey {
                    origin: origin.to_owned(),
                    suggestion: closest_key(&key),
                    key,
                }));
            }
            if keys.contains(&key) {
                return Err(LatencyError(Kind::DuplicateKey {
                    origin: origin.to_owned(),
                    key,
                }));
            }
            out.set(&key, &value, origin)?;
            keys.push(key);
        }
        out.check(Some(origin))?;
        Ok((out, keys))
    }

    /// The time `cycles` take at this clock, in seconds.
    pub fn cycles_to_seconds(&self, cycles: u64) -> f64 {
        cycles as f64 / (self.clock_ghz * 1e9)
    }

    /// Checks the invariants listed in the module documentation.
    ///
    /// # Errors
    ///
    /// The first invariant broken, with the values involved.
    pub fn validate(&self) -> Result<(), LatencyError> {
        self.check(None)
    }

    /// [`Latencies::validate`], naming `origin` (an override file) in errors.
    fn check(&self, origin: Option<&str>) -> Result<(), LatencyError> {
        let origin = origin.map(str::to_owned);
        for key in RATE_KEYS {
            let value = self.rate(key);
            if !rate_range(key).contains(&value) {
                return Err(LatencyError(Kind::Value {
                    origin,
                    key: key.to_owned(),
                    expected: rate_expected(key),
                    found: describe_float(value),
                }));
            }
        }
        for key in cycle_keys() {
            if self.cycles(key) == 0 {
                return Err(LatencyError(Kind::Value {
                    origin,
                    key: key.to_owned(),
                    expected: CYCLES_EXPECTED,
                    found: "0".to_owned(),
                }));
            }
        }
        if !(1..=MAX_FILL_BUFFERS).contains(&self.fill_buffers) {
            return Err(LatencyError(Kind::Value {
                origin,
                key: "fill_buffers".to_owned(),
                expected: FILL_BUFFERS_EXPECTED,
                found: self.fill_buffers.to_string(),
            }));
        }
        if !(1..=MAX_PREFETCH).contains(&self.prefetch_distance) {
            return Err(LatencyError(Kind::Value {
                origin,
                key: "prefetch_distance".to_owned(),
                expected: PREFETCH_DISTANCE_EXPECTED,
                found: self.prefetch_distance.to_string(),
            }));
        }
        if self.prefetch_degree > self.prefetch_distance {
            return Err(LatencyError(Kind::Invariant {
                origin,
                invariant: "prefetch_degree <= prefetch_distance",
                detail: format!(
                    "prefetch_degree = {} > prefetch_distance = {}",
                    self.prefetch_degree, self.prefetch_distance
                ),
                expected: "the prefetcher to request no more lines at once than it runs ahead",
            }));
        }
        if let Some(i) =
            (1..CHAIN.len()).find(|&i| self.cycles(CHAIN[i - 1]) > self.cycles(CHAIN[i]))
        {
            let values: Vec<String> = CHAIN
                .iter()
                .map(|k| format!("{k} = {}", self.cycles(k)))
                .collect();
            return Err(LatencyError(Kind::Invariant {
                origin,
                invariant: "l1_hit <= l2_hit <= l3_hit <= local_dram <= remote_dram",
                detail: format!(
                    "{} = {} > {} = {} (all: {})",
                    CHAIN[i - 1],
                    self.cycles(CHAIN[i - 1]),
                    CHAIN[i],
                    self.cycles(CHAIN[i]),
                    values.join(", ")
                ),
                expected:
                    "each level farther from the core to cost at least as much as the one before",
            }));
        }
        let pairs: [(&str, &str, &'static str, &'static str); 4] = [
            (
                "local_dram",
                "near_dram",
                "local_dram <= near_dram",
                "a line from another node of the own package to cost at least one from the own node",
            ),
            (
                "near_dram",
                "remote_dram",
                "near_dram <= remote_dram",
                "a line from another package's memory to cost at least one from the own package's",
            ),
            (
                "l3_hit",
                "remote_cache",
                "l3_hit <= remote_cache",
                "a line from another package's cache to cost at least a hit in the own L3",
            ),
            (
                "probe_local",
                "probe_remote",
                "probe_local <= probe_remote",
                "a look at another squad's queue to cost at least a look within the squad",
            ),
        ];
        for (low, high, invariant, expected) in pairs {
            let (l, h) = (self.cycles(low), self.cycles(high));
            if l > h {
                return Err(LatencyError(Kind::Invariant {
                    origin,
                    invariant,
                    detail: format!("{low} = {l} > {high} = {h}"),
                    expected,
                }));
            }
        }
        Ok(())
    }

    /// The rate field named `key` (NaN for a name that is not a rate field).
    fn rate(&self, key: &str) -> f64 {
        match key {
            "clock_ghz" => self.clock_ghz,
            "ipc" => self.ipc,
            "dram_gbps" => self.dram_gbps,
            "link_gbps" => self.link_gbps,
            _ => f64::NAN,
        }
    }

    /// The cycle field named `key` (0 for a name that is not a cycle field).
    fn cycles(&self, key: &str) -> u32 {
        match key {
            "l1_hit" => self.l1_hit,
            "l2_hit" => self.l2_hit,
            "l3_hit" => self.l3_hit,
            "near_cache" => self.near_cache,
            "remote_cache" => self.remote_cache,
            "local_dram" => self.local_dram,
            "near_dram" => self.near_dram,
            "remote_dram" => self.remote_dram,
            "spawn" => self.spawn,
            "probe_local" => self.probe_local,
            "probe_remote" => self.probe_remote,
            "steal_local" => self.steal_local,
            "steal_remote" => self.steal_remote,
            _ => 0,
        }
    }

    /// The cycle field named `key`.
    fn cycles_mut(&mut self, key: &str) -> Option<&mut u32> {
        Some(match key {
            "l1_hit" => &mut self.l1_hit,
            "l2_hit" => &mut self.l2_hit,
            "l3_hit" => &mut self.l3_hit,
            "near_cache" => &mut self.near_cache,
            "remote_cache" => &mut self.remote_cache,
            "local_dram" => &mut self.local_dram,
            "near_dram" => &mut self.near_dram,
            "remote_dram" => &mut self.remote_dram,
            "spawn" => &mut self.spawn,
            "probe_local" => &mut self.probe_local,
            "probe_remote" => &mut self.probe_remote,
            "steal_local" => &mut self.steal_local,
            "steal_remote" => &mut self.steal_remote,
            _ => return None,
        })
    }

    /// Sets the field `key` (a known key) from a JSON value.
    fn set(&mut self, key: &str, value: &Value, origin: &str) -> Result<(), LatencyError> {
        let bad = |expected: &'static str, found: String| {
            LatencyError(Kind::Value {
                origin: Some(origin.to_owned()),
                key: key.to_owned(),
                expected,
                found,
            })
        };
        match key {
            "clock_ghz" | "ipc" | "dram_gbps" | "link_gbps" => {
                let rate = rate_of(key, value).map_err(|found| bad(rate_expected(key), found))?;
                match key {
                    "clock_ghz" => self.clock_ghz = rate,
                    "ipc" => self.ipc = rate,
                    "dram_gbps" => self.dram_gbps = rate,
                    _ => self.link_gbps = rate,
                }
            }
            "fill_buffers" => {
                let n = cycles_of(value)
                    .ok()
                    .filter(|n| *n <= MAX_FILL_BUFFERS)
                    .ok_or_else(|| bad(FILL_BUFFERS_EXPECTED, describe_count(value)))?;
                self.fill_buffers = n;
            }
            "l3_victim" => {
                let Value::Bool(b) = value else {
                    return Err(bad(
                        "true (a victim cache) or false (inclusive)",
                        describe(value),
                    ));
                };
                self.l3_victim = *b;
            }
            "prefetch_degree" | "prefetch_distance" => {
                let (low, expected) = if key == "prefetch_degree" {
                    (0, PREFETCH_DEGREE_EXPECTED)
                } else {
                    (1, PREFETCH_DISTANCE_EXPECTED)
                };
                let n = lines_of(value, low).ok_or_else(|| bad(expected, describe_lines(value)))?;
                if key == "prefetch_degree" {
                    self.prefetch_degree = n;
                } else {
                    self.prefetch_distance = n;
                }
            }
            _ => {
                let cycles = cycles_of(value).map_err(|found| bad(CYCLES_EXPECTED, found))?;
                if let Some(field) = self.cycles_mut(key) {
                    *field = cycles;
                }
            }
        }
        Ok(())
    }
}

impl LatencyTable {
    /// Reads the override file at `path` and applies it with
    /// [`Latencies::with_overrides`], appending
    /// `", overridden by PATH: KEY, KEY"` to `source`.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, and as [`Latencies::with_overrides`]; the
    /// message names the path.
    pub fn load_overrides(self, path: &Path) -> Result<LatencyTable, LatencyError> {
        let text = locus_files::read_input_string(
            "latency overrides",
            path,
            MAX_FILE_BYTES,
            "a latency override file",
        )
        .map_err(|e| {
            LatencyError(Kind::File {
                path: path.to_owned(),
                reason: e.reason(),
            })
        })?;
        let origin = path.display().to_string();
        let (latencies, keys) = self.latencies.with_overrides(&text, &origin)?;
        let source = if keys.is_empty() {
            format!("{}, {origin} overrides nothing", self.source)
        } else {
            format!(
                "{}, overridden by {origin}: {}",
                self.source,
                keys.join(", ")
            )
        };
        Ok(LatencyTable { latencies, source })
    }
}

/// An error while reading or checking a latency table.
///
/// The message always names the override file (or says that the table itself
/// is at fault), the key or the position in the file, what was found and what
/// was expected.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct LatencyError(Kind);

/// What went wrong. Private so that variants can change without breaking callers.
#[derive(Debug, thiserror::Error)]
enum Kind {
    /// The override file is not a regular file, is too large, or could not be read.
    #[error("latency overrides {path:?}: {reason}")]
    File { path: PathBuf, reason: String },
    /// The text is not JSON.
    #[error("invalid latency overrides in {origin:?} at line {line}, column {column}: not valid JSON ({msg}){hint}; expected a JSON object such as {example}", example = EXAMPLE)]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        msg: String,
        hint: &'static str,
        #[source]
        err: serde_json::Error,
    },
    /// The JSON value is not an object.
    #[error("invalid latency overrides in {origin:?}: expected a JSON object such as {example}, found {found}", example = EXAMPLE)]
    NotObject { origin: String, found: &'static str },
    /// A key that names no field.
    #[error("invalid latency overrides in {origin:?}: unknown key {key:?}{}; expected one of {}", suggestion_text(.suggestion), KEYS.join(", "))]
    UnknownKey {
        origin: String,
        key: String,
        suggestion: Option<&'static str>,
    },
    /// A key given twice.
    #[error("invalid latency overrides in {origin:?}: key {key:?} appears more than once; expected each key at most once (a JSON reader would silently keep the last value)")]
    DuplicateKey { origin: String, key: String },
    /// A value of the wrong type or out of range.
    #[error("{}: key {key:?} must be {expected}, found {found}", context(.origin))]
    Value {
        origin: Option<String>,
        key: String,
        expected: &'static str,
        found: String,
    },
    /// The values break an invariant.
    #[error("{}: the invariant {invariant} does not hold: {detail}; expected {expected}", invariant_context(.origin))]
    Invariant {
        origin: Option<String>,
        invariant: &'static str,
        detail: String,
        expected: &'static str,
    },
}

/// The start of a value or invariant error.
fn context(origin: &Option<String>) -> String {
    match origin {
        Some(origin) => format!("invalid latency overrides in {origin:?}"),
        None => "invalid latency table".to_owned(),
    }
}

/// The start of an invariant error.
fn invariant_context(origin: &Option<String>) -> String {
    match origin {
        Some(origin) => format!("invalid latency overrides in {origin:?} (once applied)"),
        None => "invalid latency table".to_owned(),
    }
}

/// `" (did you mean \"KEY\"?)"` or nothing.
fn suggestion_text(suggestion: &Option<&'static str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean {s:?}?)"))
}

/// The values the rate field `key` accepts (an empty range for a name that is not a
/// rate field): wide around every machine built, and narrow enough that the simulator
/// stays bounded (see the module documentation).
pub fn rate_range(key: &str) -> std::ops::RangeInclusive<f64> {
    match key {
        "clock_ghz" => 0.1..=10.0,
        "ipc" => 0.01..=64.0,
        "dram_gbps" | "link_gbps" => 0.1..=100_000.0,
        _ => 1.0..=0.0,
    }
}

/// What a rate field accepts, for error messages; the numbers are [`rate_range`]'s.
fn rate_expected(key: &str) -> &'static str {
    match key {
        "clock_ghz" => "a number of GHz from 0.1 to 10, such as 2.5",
        "dram_gbps" | "link_gbps" => "a number of GB/s from 0.1 to 100000, such as 25.6",
        _ => "a number of instructions per cycle from 0.01 to 64, such as 1.0",
    }
}

/// A rejected `fill_buffers` value, described for error messages.
fn describe_count(value: &Value) -> String {
    match cycles_of(value) {
        Ok(n) => format!("{n}, which is more than {MAX_FILL_BUFFERS}"),
        Err(found) => found,
    }
}

/// A JSON document as read for overrides: the entries of an object in the
/// order of the text, duplicates kept, or what else the document was.
enum Document {
    /// The object's entries, in order.
    Object(Vec<(String, Value)>),
    /// Not an object: "an array", "a string", ...
    Other(&'static str),
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DocumentVisitor)
    }
}

/// Reads a [`Document`], keeping every entry of an object.
struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = Document;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, Value>()? {
            entries.push(entry);
        }
        Ok(Document::Object(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Document, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Document::Other("an array"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Document, E> {
        Ok(Document::Other("a string"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Document, E> {
        Ok(Document::Other("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Document, E> {
        Ok(Document::Other("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Document, E> {
        Ok(Document::Other("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Document, E> {
        Ok(Document::Other("a number"))
    }

    fn visit_unit<E>(self) -> Result<Document, E> {
        Ok(Document::Other("null"))
    }
}

/// The error for text that serde_json could not read as JSON.
fn syntax_error(text: &str, origin: &str, err: serde_json::Error) -> LatencyError {
    let (line, column) = (err.line(), err.column());
    let full = err.to_string();
    let suffix = format!(" at line {line} column {column}");
    let msg = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    // JSON has no NaN or Infinity; say so when the error points at one.
    let around = text
        .lines()
        .nth(line.saturating_sub(1))
        .map(|l| {
            let start = column.saturating_sub(3).min(l.len());
            let end = (column + 10).min(l.len());
            l.get(start..end).unwrap_or(l).to_ascii_lowercase()
        })
        .unwrap_or_default();
    let hint = if text.trim().is_empty() {
        " (the text is empty; write {} to override nothing)"
    } else if around.contains("nan") || around.contains("inf") {
        " (JSON has no NaN or Infinity; clock_ghz, ipc, dram_gbps and link_gbps must be positive finite numbers)"
    } else if msg.contains("number out of range") {
        " (clock_ghz, ipc, dram_gbps and link_gbps must be finite numbers)"
    } else {
        ""
    };
    LatencyError(Kind::Syntax {
        origin: origin.to_owned(),
        line,
        column,
        msg,
        hint,
        err,
    })
}

/// A cycle count from a JSON value, or what was found instead.
fn cycles_of(value: &Value) -> Result<u32, String> {
    let Value::Number(n) = value else {
        return Err(describe(value));
    };
    if let Some(u) = n.as_u64() {
        return match u32::try_from(u) {
            Ok(0) => Err("0".to_owned()),
            Ok(c) => Ok(c),
            Err(_) => Err(format!("{u}, which is more than 4294967295")),
        };
    }
    if let Some(i) = n.as_i64() {
        return Err(format!("the negative number {i}"));
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f == 0.0 {
        Err("0".to_owned())
    } else if f < 0.0 {
        Err(format!("the negative number {n}"))
    } else if f.fract() != 0.0 {
        Err(format!("the fractional number {n}"))
    } else if f > f64::from(u32::MAX) {
        Err(format!("{n}, which is more than 4294967295"))
    } else {
        // A whole, in-range float such as 40.0.
        Ok(f as u32)
    }
}

/// A line count from `low` to [`MAX_PREFETCH`] from a JSON value (a whole number,
/// `40.0` included), or `None`.
fn lines_of(value: &Value, low: u32) -> Option<u32> {
    let n = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= f64::from(MAX_PREFETCH))
            .map(|f| f as u64)
    })?;
    u32::try_from(n)
        .ok()
        .filter(|n| (low..=MAX_PREFETCH).contains(n))
}

/// A rejected line count, described for error messages.
fn describe_lines(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        other => describe(other),
    }
}

/// The rate field `key` from a JSON value, or what was found instead.
fn rate_of(key: &str, value: &Value) -> Result<f64, String> {
    let Value::Number(n) = value else {
        return Err(describe(value));
    };
    match n.as_f64() {
        Some(f) if rate_range(key).contains(&f) => Ok(f),
        Some(f) if f.is_finite() && f > 0.0 => Err(format!("{n}, which is out of range")),
        Some(f) => Err(describe_float(f)),
        None => Err(format!("{n}")),
    }
}

/// A non-number JSON value, described for error messages.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// A rejected rate, described for error messages.
fn describe_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_owned()
    } else if f.is_infinite() {
        format!("{f}")
    } else if f == 0.0 {
        "0".to_owned()
    } else if f < 0.0 {
        format!("the negative number {f}")
    } else {
        format!("{f}, which is out of range")
    }
}

/// The known key closest to `key`, when it is close enough to be a typo.
fn closest_key(key: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase().replace('-', "_");
    KEYS.iter()
        .map(|&k| (edit_distance(&key, k), k))
        .min()
        .filter(|&(d, _)| d <= 3)
        .map(|(_, k)| k)
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: &str = "overrides/test.json";

    /// The message of applying `text` to the opteron-8380 table, which must fail.
    fn error_of(text: &str) -> String {
        let base = Latencies::defaults_for("opteron-8380").latencies;
        match base.with_overrides(text, ORIGIN) {
            Ok(r) => panic!("{text:?} was accepted: {r:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Asserts that `message` names the origin and holds every one of `parts`.
    fn assert_mentions(message: &str, parts: &[&str]) {
        assert!(message.contains(ORIGIN), "no origin in {message:?}");
        for part in parts {
            assert!(message.contains(part), "{part:?} missing from {message:?}");
        }
    }

    #[test]
    fn not_json_gives_line_and_column() {
        let m = error_of("{\n  \"l3_hit\": 40\n  \"l2_hit\": 12\n}");
        assert_mentions(
            &m,
            &[
                "line 3, column 3",
                "not valid JSON",
                "expected a JSON object",
            ],
        );
        let m = error_of(r#"{"l3_hit": 40,}"#);
        assert_mentions(&m, &["line 1", "trailing comma", "expected a JSON object"]);
    }

    #[test]
    fn empty_text_is_not_json() {
        let m = error_of("  ");
        assert_mentions(
            &m,
            &[
                "not valid JSON",
                "EOF",
                "the text is empty",
                "expected a JSON object",
            ],
        );
    }

    #[test]
    fn not_an_object() {
        let m = error_of("[40, 12]");
        assert_mentions(&m, &["expected a JSON object", "found an array"]);
        let m = error_of("40");
        assert_mentions(&m, &["expected a JSON object", "found a number"]);
    }

    #[test]
    fn unknown_key_suggests_the_closest() {
        let m = error_of(r#"{"l3_hits": 40}"#);
        assert_mentions(
            &m,
            &[
                "unknown key \"l3_hits\"",
                "(did you mean \"l3_hit\"?)",
                "expected one of clock_ghz, ipc, l1_hit",
            ],
        );
        let m = error_of(r#"{"Remote-DRAM": 300}"#);
        assert_mentions(&m, &["\"Remote-DRAM\"", "did you mean \"remote_dram\"?"]);
        let m = error_of(r#"{"frobnicate": 1}"#);
        assert_mentions(&m, &["unknown key \"frobnicate\"", "steal_remote"]);
        assert!(!m.contains("did you mean"), "{m}");
    }

    #[test]
    fn string_value() {
        let m = error_of(r#"{"l3_hit": "40"}"#);
        assert_mentions(
            &m,
            &["key \"l3_hit\"", CYCLES_EXPECTED, "found the string \"40\""],
        );
    }

    #[test]
    fn negative_cycles() {
        let m = error_of(r#"{"l2_hit": -3}"#);
        assert_mentions(
            &m,
            &["key \"l2_hit\"", CYCLES_EXPECTED, "the negative number -3"],
        );
    }

    #[test]
    fn fractional_cycles() {
        let m = error_of(r#"{"l3_hit": 40.5}"#);
        assert_mentions(
            &m,
            &[
                "key \"l3_hit\"",
                CYCLES_EXPECTED,
                "the fractional number 40.5",
            ],
        );
    }

    #[test]
    fn zero_cycles() {
        let m = error_of(r#"{"spawn": 0}"#);
        assert_mentions(&m, &["key \"spawn\"", CYCLES_EXPECTED, "found 0"]);
    }

    #[test]
    fn cycles_too_large() {
        let m = error_of(r#"{"remote_dram": 5000000000}"#);
        assert_mentions(
            &m,
            &[
                "key \"remote_dram\"",
                CYCLES_EXPECTED,
                "5000000000, which is more than",
            ],
        );
    }

    #[test]
    fn null_and_boolean_values() {
        let m = error_of(r#"{"probe_local": null}"#);
        assert_mentions(&m, &["key \"probe_local\"", CYCLES_EXPECTED, "found null"]);
        let m = error_of(r#"{"ipc": true}"#);
        assert_mentions(
            &m,
            &["key \"ipc\"", "instructions per cycle", "the boolean true"],
        );
    }

    #[test]
    fn non_positive_clock_and_ipc() {
        let m = error_of(r#"{"clock_ghz": 0}"#);
        assert_mentions(
            &m,
            &[
                "key \"clock_ghz\"",
                "a number of GHz from 0.1 to 10",
                "found 0",
            ],
        );
        let m = error_of(r#"{"ipc": -1.5}"#);
        assert_mentions(
            &m,
            &["key \"ipc\"", "from 0.01 to 64", "the negative number -1.5"],
        );
        let m = error_of(r#"{"clock_ghz": "2.5"}"#);
        assert_mentions(&m, &["key \"clock_ghz\"", "GHz", "the string \"2.5\""]);
    }

    #[test]
    fn non_finite_clock() {
        let m = error_of(r#"{"clock_ghz": NaN}"#);
        assert_mentions(
            &m,
            &[
                "line 1",
                "JSON has no NaN or Infinity",
                "clock_ghz, ipc, dram_gbps and link_gbps must be positive finite",
            ],
        );
        let m = error_of(r#"{"clock_ghz": 1e999}"#);
        assert_mentions(&m, &["number out of range", "must be finite"]);
    }

    #[test]
    fn rates_that_would_run_the_simulator_away_are_refused() {
        // A memory a billion times too slow grows the transfer calendar past any
        // memory, and a clock of 1e300 GHz overflows every simulated time.
        for (text, key, range) in [
            (r#"{"dram_gbps": 1e-9}"#, "dram_gbps", "from 0.1 to 100000"),
            (r#"{"link_gbps": 1e-9}"#, "link_gbps", "from 0.1 to 100000"),
            (r#"{"link_gbps": 1e9}"#, "link_gbps", "from 0.1 to 100000"),
            (r#"{"clock_ghz": 1e300}"#, "clock_ghz", "from 0.1 to 10"),
            (r#"{"clock_ghz": 0.01}"#, "clock_ghz", "from 0.1 to 10"),
            (r#"{"ipc": 1e-300}"#, "ipc", "from 0.01 to 64"),
        ] {
            let m = error_of(text);
            assert_mentions(
                &m,
                &[&format!("key \"{key}\""), range, "which is out of range"],
            );
        }
        // The ends of each range are accepted.
        for text in [
            r#"{"dram_gbps": 0.1, "link_gbps": 100000}"#,
            r#"{"clock_ghz": 10, "ipc": 0.01}"#,
            r#"{"clock_ghz": 0.1, "ipc": 64}"#,
        ] {
            Latencies::generic().with_overrides(text, "t.json").unwrap();
        }
        // A table built in code is held to the same ranges.
        let fast = Latencies {
            clock_ghz: 1e300,
            ..Latencies::generic()
        };
        let m = fast.validate().unwrap_err().to_string();
        assert!(m.contains("clock_ghz") && m.contains("out of range"), "{m}");
    }

    #[test]
    fn bad_fill_buffers() {
        let m = error_of(r#"{"fill_buffers": 0}"#);
        assert_mentions(
            &m,
            &["key \"fill_buffers\"", FILL_BUFFERS_EXPECTED, "found 0"],
        );
        let m = error_of(r#"{"fill_buffers": 10.5}"#);
        assert_mentions(&m, &["key \"fill_buffers\"", "the fractional number 10.5"]);
        let m = error_of(r#"{"fill_buffers": 257}"#);
        assert_mentions(&m, &["key \"fill_buffers\"", "257, which is more than 256"]);
        let m = error_of(r#"{"fill_buffers": -2}"#);
        assert_mentions(&m, &["key \"fill_buffers\"", "the negative number -2"]);
        let m = error_of(r#"{"fill_buffers": "10"}"#);
        assert_mentions(&m, &["key \"fill_buffers\"", "the string \"10\""]);
        let m = error_of(r#"{"fill_buffers": 5000000000}"#);
        assert_mentions(&m, &["5000000000, which is more than"]);
    }

    #[test]
    fn bad_bandwidths() {
        for key in ["dram_gbps", "link_gbps"] {
            for (value, found) in [
                ("0", "found 0"),
                ("-12.8", "the negative number -12.8"),
                ("\"25.6\"", "the string \"25.6\""),
                ("null", "found null"),
                ("[25.6]", "found an array"),
            ] {
                let m = error_of(&format!("{{\"{key}\": {value}}}"));
                assert_mentions(
                    &m,
                    &[
                        &format!("key \"{key}\""),
                        "a number of GB/s from 0.1 to 100000",
                        found,
                    ],
                );
            }
        }
        let m = error_of(r#"{"dram_gbps": 1e999}"#);
        assert_mentions(&m, &["number out of range", "dram_gbps and link_gbps"]);
        let m = error_of(r#"{"dram_gb": 10}"#);
        assert_mentions(&m, &["unknown key", "did you mean \"dram_gbps\"?"]);
    }

    #[test]
    fn validate_checks_the_clock_fields() {
        let bad = Latencies {
            fill_buffers: 0,
            ..Latencies::generic()
        };
        let m = bad.validate().unwrap_err().to_string();
        assert!(
            m.contains("key \"fill_buffers\"") && m.contains("found 0"),
            "{m}"
        );
        let bad = Latencies {
            link_gbps: f64::INFINITY,
            ..Latencies::generic()
        };
        let m = bad.validate().unwrap_err().to_string();
        assert!(m.contains("key \"link_gbps\"") && m.contains("GB/s"), "{m}");
    }

    #[test]
    fn duplicate_key() {
        let m = error_of(r#"{"l3_hit": 40, "l2_hit": 12, "l3_hit": 41}"#);
        assert_mentions(
            &m,
            &["key \"l3_hit\" appears more than once", "at most once"],
        );
    }

    #[test]
    fn broken_chain_names_the_invariant_and_values() {
        let m = error_of(r#"{"l2_hit": 100}"#);
        assert_mentions(
            &m,
            &[
                "once applied",
                "l1_hit <= l2_hit <= l3_hit <= local_dram <= remote_dram",
                "l2_hit = 100 > l3_hit = 48",
                "remote_dram = 290",
                "expected each level",
            ],
        );
        let m = error_of(r#"{"remote_dram": 150}"#);
        assert_mentions(&m, &["local_dram = 200 > remote_dram = 150"]);
    }

    #[test]
    fn near_dram_lies_between_the_own_node_and_another_package() {
        // error_of's table is opteron-8380's: local_dram 200, near_dram 200 (one node
        // per package: unused), remote_dram 290.
        let m = error_of(r#"{"near_dram": 150}"#);
        assert_mentions(
            &m,
            &[
                "local_dram <= near_dram",
                "local_dram = 200 > near_dram = 150",
            ],
        );
        let m = error_of(r#"{"near_dram": 300}"#);
        assert_mentions(
            &m,
            &[
                "near_dram <= remote_dram",
                "near_dram = 300 > remote_dram = 290",
            ],
        );
        for (name, near) in [("epyc-7763-2s-nps4", 272), ("opteron-8380", 200)] {
            let l = Latencies::defaults_for(name).latencies;
            assert_eq!(l.near_dram, near, "{name}");
            assert!(l.local_dram <= l.near_dram && l.near_dram <= l.remote_dram);
        }
        let (l, keys) = Latencies::generic()
            .with_overrides(r#"{"near_dram": 300}"#, ORIGIN)
            .unwrap();
        assert_eq!((l.near_dram, keys), (300, vec!["near_dram".to_owned()]));
    }

    #[test]
    fn broken_remote_cache_and_probe_invariants() {
        let m = error_of(r#"{"remote_cache": 20}"#);
        assert_mentions(
            &m,
            &["l3_hit <= remote_cache", "l3_hit = 48 > remote_cache = 20"],
        );
        let m = error_of(r#"{"probe_local": 500}"#);
        assert_mentions(
            &m,
            &[
                "probe_local <= probe_remote",
                "probe_local = 500 > probe_remote = 250",
            ],
        );
    }

    #[test]
    fn good_override_changes_exactly_the_given_keys() {
        let base = Latencies::defaults_for("xeon-x7550").latencies;
        let text = r#"{"remote_dram": 310, "l3_hit": 40, "clock_ghz": 2.26, "steal_local": 80.0,
            "fill_buffers": 6, "dram_gbps": 12.5, "link_gbps": 4}"#;
        let (new, keys) = base.with_overrides(text, ORIGIN).unwrap();
        assert_eq!(
            keys,
            [
                "remote_dram",
                "l3_hit",
                "clock_ghz",
                "steal_local",
                "fill_buffers",
                "dram_gbps",
                "link_gbps"
            ]
        );
        let expected = Latencies {
            remote_dram: 310,
            l3_hit: 40,
            clock_ghz: 2.26,
            steal_local: 80,
            fill_buffers: 6,
            dram_gbps: 12.5,
            link_gbps: 4.0,
            ..base
        };
        assert_eq!(new, expected);
        let (same, none) = base.with_overrides(" {} ", ORIGIN).unwrap();
        assert_eq!(same, base);
        assert!(none.is_empty());
    }

    #[test]
    fn load_overrides_reads_the_file_and_updates_the_source() {
        let dir = std::env::temp_dir().join(format!("locus-sim-latency-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("lat.json");
        std::fs::write(&path, r#"{"l3_hit": 40, "remote_dram": 310}"#).unwrap();
        let table = Latencies::defaults_for("no-such-machine")
            .load_overrides(&path)
            .unwrap();
        assert_eq!(table.latencies.l3_hit, 40);
        assert_eq!(table.latencies.remote_dram, 310);
        assert!(
            table.source.starts_with("generic defaults"),
            "{}",
            table.source
        );
        assert!(
            table.source.ends_with(&format!(
                "overridden by {}: l3_hit, remote_dram",
                path.display()
            )),
            "{}",
            table.source
        );

        std::fs::write(&path, r#"{"l3_hit": 40.5}"#).unwrap();
        let err = Latencies::defaults_for("altix-2x2")
            .load_overrides(&path)
            .unwrap_err();
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );

        let missing = dir.join("missing.json");
        let err = Latencies::defaults_for("altix-2x2")
            .load_overrides(&missing)
            .unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains("missing.json") && err.contains("cannot read it"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_a_regular_file_under_the_cap_is_read() {
        let dir = std::env::temp_dir().join(format!("locus-sim-special-{}", std::process::id()));
        let special = locus_files::fuzz::special_inputs(
            &dir,
            "latencies.json",
            MAX_FILE_BYTES,
            "more than the 1 MiB locus reads for a latency override file",
        );
        for (path, says) in &special {
            let err = Latencies::defaults_for("altix-2x2")
                .load_overrides(path)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("latency overrides {path:?}")) && err.contains(says),
                "{err}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        for text in [
            format!("{{\"l3_hit\": {}", "[".repeat(100_000)),
            format!("{{\"l3_hit\": {}", "{\"a\":".repeat(100_000)),
        ] {
            assert_mentions(&error_of(&text), &["recursion limit exceeded"]);
        }
        // A document that is no object is refused before its inside is read.
        let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_mentions(&error_of(&text), &["found an array"]);
    }

    #[test]
    fn every_preset_has_a_valid_table() {
        for &name in locus_topo::Topology::preset_names() {
            let table = Latencies::documented_for(name);
            assert_eq!(table.source, format!("preset {name} defaults"));
            if let Err(e) = table.latencies.validate() {
                panic!("{name}: {e}");
            }
            let topology = locus_topo::Topology::preset(name).unwrap();
            assert_eq!(
                Latencies::documented_for(topology.name()).latencies,
                table.latencies
            );
            let defaults = Latencies::defaults_for(topology.name()).latencies;
            assert_eq!(
                (defaults.l3_victim, defaults.prefetch_degree),
                (false, 0),
                "{name}: the defaults model an inclusive L3 and no prefetcher"
            );
        }
        assert_eq!(PRESETS.len(), locus_topo::Topology::preset_names().len());
        assert!(GENERIC.validate().is_ok());
        assert_eq!(
            Latencies::documented_for(" OPTERON-8380 ").latencies,
            PRESETS[0].latencies
        );
    }

    #[test]
    fn scheduler_costs_follow_the_documented_rules() {
        for (name, l) in PRESETS
            .iter()
            .map(|p| (p.name, p.latencies))
            .chain([("generic", GENERIC)])
        {
            assert_eq!(l.spawn, 3 * l.l2_hit, "{name}");
            assert_eq!(l.probe_local, l.l3_hit, "{name}");
            assert_eq!(l.probe_remote, l.remote_cache, "{name}");
            assert_eq!(l.steal_local, 5 * l.l3_hit / 2, "{name}");
            assert_eq!(l.steal_remote, 5 * l.remote_cache / 2, "{name}");
            assert_eq!(l.ipc, 1.0, "{name}");
        }
    }

    #[test]
    fn unknown_machine_gets_generic_defaults() {
        let table = Latencies::documented_for("this machine");
        assert_eq!(table.latencies, Latencies::generic());
        let table = Latencies::defaults_for("this machine");
        assert_eq!(
            table.latencies,
            Latencies {
                prefetch_degree: 0,
                ..Latencies::generic()
            }
        );
        assert!(
            table.source.starts_with("generic defaults"),
            "{}",
            table.source
        );
        assert!(
            table.source.contains("\"this machine\""),
            "{}",
            table.source
        );
    }

    #[test]
    fn validate_names_the_table_when_there_is_no_file() {
        let bad = Latencies {
            clock_ghz: f64::NAN,
            ..Latencies::generic()
        };
        let m = bad.validate().unwrap_err().to_string();
        assert!(
            m.starts_with("invalid latency table: key \"clock_ghz\""),
            "{m}"
        );
        assert!(m.contains("found NaN"), "{m}");
        let bad = Latencies {
            near_cache: 0,
            ..Latencies::generic()
        };
        let m = bad.validate().unwrap_err().to_string();
        assert!(
            m.contains("key \"near_cache\"") && m.contains(CYCLES_EXPECTED),
            "{m}"
        );
    }

    #[test]
    fn cycles_to_seconds() {
        let l = Latencies::defaults_for("opteron-8380").latencies;
        assert_eq!(l.cycles_to_seconds(2_500_000_000), 1.0);
        assert!((l.cycles_to_seconds(5) - 2e-9).abs() < 1e-21);
        assert_eq!(l.cycles_to_seconds(0), 0.0);
        let x = Latencies::defaults_for("xeon-x7550").latencies;
        assert!((x.cycles_to_seconds(u64::from(x.local_dram)) - 130e-9).abs() < 1e-15);
    }

    #[test]
    fn serialized_table_loads_back_as_itself() {
        for l in PRESETS.iter().map(|p| p.latencies).chain([GENERIC]) {
            let json = serde_json::to_string(&l).unwrap();
            let start = if l == GENERIC {
                PRESETS[0].latencies
            } else {
                GENERIC
            };
            let (back, keys) = start.with_overrides(&json, "round trip").unwrap();
            assert_eq!(back, l, "{json}");
            assert_eq!(keys, KEYS);
        }
    }

    #[test]
    fn organisation_and_prefetch_keys() {
        let base = Latencies::documented_for("opteron-8380").latencies;
        assert!(base.l3_victim);
        assert_eq!((base.prefetch_degree, base.prefetch_distance), (1, 2));
        let text = r#"{"prefetch_degree": 0, "l3_victim": false, "prefetch_distance": 64.0}"#;
        let (new, keys) = base.with_overrides(text, ORIGIN).unwrap();
        assert_eq!(keys, ["prefetch_degree", "l3_victim", "prefetch_distance"]);
        assert_eq!(
            new,
            Latencies {
                prefetch_degree: 0,
                l3_victim: false,
                prefetch_distance: 64,
                ..base
            }
        );
        let cases: [(&str, &[&str]); 9] = [
            (
                r#"{"l3_victim": 1}"#,
                &["key \"l3_victim\"", "true", "found the number 1"],
            ),
            (
                r#"{"l3_victim": "yes"}"#,
                &["key \"l3_victim\"", "found the string \"yes\""],
            ),
            (
                r#"{"prefetch_degree": -1}"#,
                &["key \"prefetch_degree\"", "found -1"],
            ),
            (
                r#"{"prefetch_degree": 1.5}"#,
                &["key \"prefetch_degree\"", "found 1.5"],
            ),
            (
                r#"{"prefetch_degree": "2"}"#,
                &["key \"prefetch_degree\"", "the string \"2\""],
            ),
            (
                r#"{"prefetch_distance": 0}"#,
                &["key \"prefetch_distance\"", "from 1 to 64", "found 0"],
            ),
            (
                r#"{"prefetch_distance": 65}"#,
                &["key \"prefetch_distance\"", "found 65"],
            ),
            (
                r#"{"prefetch_distance": null}"#,
                &["key \"prefetch_distance\"", "found null"],
            ),
            (
                r#"{"prefetch_degree": 4}"#,
                &[
                    "prefetch_degree <= prefetch_distance",
                    "prefetch_degree = 4 > prefetch_distance = 2",
                ],
            ),
        ];
        for (text, parts) in cases {
            assert_mentions(&error_of(text), parts);
        }
        let m = error_of(r#"{"prefetch": 0}"#);
        assert_mentions(&m, &["unknown key \"prefetch\""]);
        let bad = Latencies {
            prefetch_distance: 0,
            ..Latencies::generic()
        };
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("prefetch_distance"));
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("l3_hit", "l3_hit"), 0);
        assert_eq!(edit_distance("l3_hits", "l3_hit"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
