//! The memory clock: how long a worker waits for the lines its accesses miss, with
//! memory-level parallelism per core and bandwidth shared by every core.
//!
//! [`Machine`](crate::machine::Machine) says where each line comes from; this module
//! says when it arrives. Two clocks, chosen by [`ClockKind`]:
//!
//! - [`ClockKind::Serial`], the clock of locus's first simulator: every access costs
//!   its level's latency, one after another, and bandwidth is unlimited. It counts
//!   where data comes from well, but charges a stream of misses `n × latency` where a
//!   real core overlaps them, and it cannot show memory bandwidth running out.
//! - [`ClockKind::Overlap`] (the default), the model below.
//!
//! # The model
//! - **Fill buffers.** Each worker has `fill_buffers` miss slots
//!   ([`Latencies::fill_buffers`]; one worker per PU, so two hyperthreads of one core
//!   each get the core's count). An access that misses the core's private caches takes
//!   a free slot at the worker's clock `t` and holds it until its line arrives; the
//!   worker's clock advances by the issue cost (`l1_hit`, the load's pass through the
//!   L1 that missed), not by the latency, so the next misses overlap with it. When
//!   every slot is busy, the worker stalls until the earliest one frees. Hits in the
//!   private caches cost their latency in line, as before.
//! - **Waiting for all.** At a dependency point (a join, a spawn, a sync) and at a
//!   task's end, the worker waits for every outstanding line: the runtime's deque
//!   operations are fences, and a finished task's data must have arrived.
//! - **Servers.** Each NUMA node's memory controllers are one server of
//!   [`Latencies::dram_gbps`]; each ordered pair of packages has a link server of
//!   [`Latencies::link_gbps`] (a fully connected interconnect, one direction per
//!   server). A line occupies each server on its way for `64 B / bandwidth`: a DRAM
//!   read its node's controller, and the link from the node's package to the reader's
//!   when they differ; a line from another package's cache that link; a dirty line the
//!   last-level cache evicts (a write-back) its home node's controller, and the link
//!   towards it, without stalling the core. A line from the own last-level cache or
//!   another cache domain of the own package uses no server: on-chip bandwidth is
//!   unlimited.
//! - **Queueing.** A line that reaches a busy server waits for it; its arrival is
//!   `start + latency`, where `start` is when the last server on its way begins to
//!   serve it. So an idle machine has the latency table's latencies, and a loaded one
//!   adds the queueing delay; no server moves more than its bandwidth.
//! - **Prefetches.** A line the core's stream prefetcher requests
//!   ([`crate::machine`], "Prefetch") crosses the same servers as a miss, from the
//!   worker's clock when the access that triggered it was made, but takes no fill
//!   buffer and stalls nothing (the prefetcher queues its own requests; Intel's L2
//!   streamer and AMD's prefetcher are not limited by the L1's miss buffers). Its
//!   arrival is remembered ([`INFLIGHT`] lines a worker), and an access that finds
//!   the line in the private caches before then joins the prefetch's request as it
//!   would join a miss to its line: it takes a fill buffer until the line arrives,
//!   and the worker waits for it at the next dependency point. So a stream runs no
//!   faster than memory and links deliver, and a prefetch is worth its head start.
//! - **Not modelled**: a hit on a line whose demand miss is still in flight does not
//!   wait for it (the cache model fills a line when it is asked for);
//!   the bandwidth of the caches and of the on-package fabric; the links' topology
//!   (every pair of packages has its own link, where real four-socket boards route
//!   some pairs over two hops); a write that must remove copies elsewhere while it
//!   hits the private caches pays that round in line, as before.
//!
//! # Servers without an order of arrival
//! The engine processes steps in order of their start times, but one step (a slice of
//! up to [`crate::engine::SLICE_LINES`] lines) issues accesses over a stretch of time,
//! so a server may see a request for an earlier time after one for a later time. A
//! server that kept only "busy until" would make the earlier request queue behind the
//! later one's whole slice, and would serve one worker's slice at a time: 16 workers
//! each using a tenth of the bandwidth would be serialised. So a server keeps a
//! calendar: time is cut into buckets of [`BUCKET_LINES`] service times each (one:
//! a slot; as many as take [`MIN_BUCKET_CYCLES`] on servers faster than that), a
//! bucket holds that many lines, and a line takes its place in the first bucket at or
//! after its time that has room, at the bucket's fill level or its own time, whichever
//! is later. So a line is served in the first free slot from the one its arrival falls
//! in, within one service time of an exact first-come-first-served server that knew
//! every arrival in advance; a bitmap of full buckets finds it a word at a time. Unused capacity
//! before the event being processed is dropped: no step can issue before the time of
//! the step being processed.
//!
//! # Determinism
//! Service times are fixed when the clock is built (in 1/65,536 cycle); the run itself
//! uses integer arithmetic only, in the engine's order of events: the same inputs give
//! bit-identical times.

use crate::latency::Latencies;
use crate::machine::{Route, Served, NO_WRITEBACK};

/// Fixed-point units per cycle of a server's service time.
const UNIT: u64 = 1 << 16;

/// Lines per calendar bucket of a server. Within a bucket, lines are served in the
/// engine's order of processing, not of arrival, which overstates queueing; measured
/// on heat 3072x2048,leaf=96,iters=10 under ws on opteron-8380: 144 M cycles at 1
/// line a bucket, 163 M at 4, 175 M at 16, 199 M at about 100 (the last three with an
/// earlier form of the calendar). So one line: a line takes the first free service
/// slot from the one its arrival falls in.
pub const BUCKET_LINES: u64 = 1;

/// Fewest cycles per calendar bucket, so that a fast server's service time (a
/// fraction of a cycle) rounds to within 1/32 (guess).
pub const MIN_BUCKET_CYCLES: u64 = 16;

/// Buckets a calendar drops at a time: those of one word of its bitmap over full
/// words.
const BLOCK: u64 = 64 * 64;

/// Which clock charges the accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockKind {
    /// Misses one after another, unlimited bandwidth (the first simulator's clock).
    Serial,
    /// Fill buffers per core, bandwidth per memory node and per link (the default).
    #[default]
    Overlap,
}

impl ClockKind {
    /// The name `--clock` takes.
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Serial => "serial",
            ClockKind::Overlap => "overlap",
        }
    }

    /// The clock named `name` (`serial` or `overlap`).
    pub fn parse(name: &str) -> Option<ClockKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "serial" => Some(ClockKind::Serial),
            "overlap" => Some(ClockKind::Overlap),
            _ => None,
        }
    }
}

/// One bandwidth server: a calendar of buckets of service capacity.
///
/// # Representation
/// A bucket holds a whole number of lines, [`Server::per_bucket`], so the calendar
/// keeps, per bucket, how many lines it holds, and, one bit per bucket, whether it is
/// full: `full` is a bitmap of 64 buckets a word from bucket `base` on, `packed` a
/// bitmap over `full` (bit `j` of word `k`: word `64 k + j` of `full` is all ones),
/// and `used` the line counts of the buckets, kept only where a bucket holds more than
/// one line (where it holds one, a bucket with room is empty). The first bucket with
/// room at or after a line's arrival is found in its own word of `full`, else through
/// `packed`, 4,096 buckets a word: a saturated server's backlog is a run of full words
/// that one look at `packed` crosses. Buckets past the end of `full` are empty. Whole
/// blocks of 4,096 buckets (a word of `packed`, so `base` is a multiple of 4,096)
/// before the event being processed are dropped once they are half the calendar, so a
/// word is moved at most once on average.
///
/// (The calendar before `packed` searched `full` a word at a time: on
/// heat 3072x2048,leaf=96 under ws on opteron-8380 the backlog averages some 1,600
/// buckets, 25 words to cross at each line that queues. The one before that kept 16
/// bytes per bucket, its count of units used and a path-compressed link over full
/// buckets. All give the same results, bit for bit; see
/// `the_calendar_matches_its_reference`.)
#[derive(Debug, Clone)]
struct Server {
    /// Cycles per bucket.
    width: u64,
    /// Units one line takes: the capacity divided by a whole number of lines.
    cost: u64,
    /// Lines a bucket holds, `capacity / cost`; `u64::MAX` where `cost` is 0 (a server
    /// so fast that a line's service rounds to nothing).
    per_bucket: u64,
    /// The time of the last event that served a line.
    now: u64,
    /// Bucket number of bit 0 of `full[0]`; a multiple of [`BLOCK`].
    base: u64,
    /// The cycle bucket `base` starts at, `base * width`, kept with `base` so that
    /// [`Server::index_of`] need not multiply.
    origin: u64,
    /// [`magic`] of `width`.
    magic: u64,
    /// The largest offset from `origin` that the multiplication by `magic` divides:
    /// `u32::MAX`, or 0 where `magic` is 0 (whose product, 0, is then right).
    exact: u64,
    /// Bit `i` of word `w`: bucket `base + 64 w + i` holds `per_bucket` lines.
    full: Vec<u64>,
    /// Bit `j` of word `k`: `full[64 k + j]` is all ones. As many words as cover
    /// `full`.
    packed: Vec<u64>,
    /// Lines in bucket `base + i`, for `i` below `64 * full.len()`; empty where
    /// `per_bucket` is 1.
    used: Vec<u64>,
    /// Lines served.
    lines: u64,
    /// Cycles that lines waited for this server.
    waited: u64,
}

impl Server {
    /// A server moving `gbps` GB/s of `line_bytes`-byte lines at `clock_ghz`.
    ///
    /// A bucket holds `n` lines, [`BUCKET_LINES`] or as many as take
    /// [`MIN_BUCKET_CYCLES`], and lasts the whole number of cycles nearest to their
    /// service: the bandwidth is off by at most half a cycle in `MIN_BUCKET_CYCLES`
    /// (3%), and by 1% or less where a line takes 50 cycles or more.
    fn new(gbps: f64, line_bytes: u64, clock_ghz: f64) -> Server {
        let cycles_per_line = line_bytes as f64 / gbps * clock_ghz;
        let n = (MIN_BUCKET_CYCLES as f64 / cycles_per_line)
            .ceil()
            .max(BUCKET_LINES as f64) as u64;
        let width = ((n as f64 * cycles_per_line).round() as u64).max(1);
        let capacity = width * UNIT;
        let cost = capacity / n;
        Server {
            width,
            cost,
            per_bucket: capacity.checked_div(cost).unwrap_or(u64::MAX),
            now: 0,
            base: 0,
            origin: 0,
            magic: magic(width),
            exact: exact(width),
            full: Vec::new(),
            packed: Vec::new(),
            used: Vec::new(),
            lines: 0,
            waited: 0,
        }
    }

    /// Serves one line that arrives at `t` (no earlier than `now`): returns when its
    /// service starts.
    ///
    /// Inlined into the clock's misses for its common case, a bucket with room in the
    /// word of `full` that `t` falls in (84% of the lines of heat 3072x2048,leaf=96
    /// under ws on opteron-8380); the rest, a search past full words or a calendar to
    /// grow, out of line in [`Server::serve_later`], and the calendar's drop at a new
    /// event in [`Server::advance`]. Out of line as a whole, with those inlined, it
    /// saved and restored five registers a line, and a server of one line a bucket
    /// tested `per_bucket` twice and multiplied by a count of 0 (`valgrind
    /// --tool=cachegrind locus sim heat --size 3072x2048,leaf=96,iters=2 --policy ws`:
    /// 3.55 G -> 3.40 G instructions, and 3.32 G with [`MemoryClock::miss`] inlined).
    #[inline(always)]
    fn serve(&mut self, t: u64, now: u64) -> u64 {
        if now != self.now {
            self.advance(now);
        }
        let i = self.index_of(t);
        let Some(&word) = self.full.get(i / 64) else {
            return self.serve_later(t, i);
        };
        let free = !word & (u64::MAX << (i % 64));
        if free == 0 {
            return self.serve_later(t, i);
        }
        self.take(t, i & !63 | free.trailing_zeros() as usize)
    }

    /// [`Server::serve`] where bucket `i`'s word of `full` has no room from it on, or
    /// lies past the calendar's end.
    #[inline(never)]
    fn serve_later(&mut self, t: u64, i: usize) -> u64 {
        let i = self.room_from(i);
        self.take(t, i)
    }

    /// Serves a line that arrives at `t` in bucket `i`, which has room: returns when
    /// its service starts.
    #[inline(always)]
    fn take(&mut self, t: u64, i: usize) -> u64 {
        let bucket_start = self.origin + i as u64 * self.width;
        let start = if self.per_bucket == 1 {
            self.mark_full(i);
            bucket_start.max(t)
        } else {
            let used = &mut self.used[i];
            let held = *used;
            *used += 1;
            if held + 1 >= self.per_bucket {
                self.mark_full(i);
            }
            (bucket_start + held * self.cost / UNIT).max(t)
        };
        self.lines += 1;
        self.waited += start - t;
        start
    }

    /// Bucket `i` holds all the lines it can.
    #[inline(always)]
    fn mark_full(&mut self, i: usize) {
        let word = &mut self.full[i / 64];
        *word |= 1 << (i % 64);
        if *word == u64::MAX {
            self.packed[i / BLOCK as usize] |= 1 << (i / 64 % 64);
        }
    }

    /// The event being processed is now at `now`: drops what lies before it. Once per
    /// event at most, so out of line: the division is dearer than the check that calls
    /// it.
    #[cold]
    #[inline(never)]
    fn advance(&mut self, now: u64) {
        self.now = now;
        self.forget_before(now / self.width);
    }

    /// The index (from `base`) of the bucket that time `t` (no earlier than `origin`)
    /// falls in.
    ///
    /// Divides by the constant `width` as a multiplication where the offset from
    /// `origin` and `width` fit in 32 bits, as they do but for a calendar of more than
    /// four billion cycles: for 32-bit `n` and `d`, `n / d` is the high 64 bits of
    /// `n * ceil(2^64 / d)` (Lemire, Kaser and Kurz, "Faster remainder by direct
    /// computation", 2019, Theorem 1). The `div` it replaces cost about a twentieth of
    /// `locus sim heat --size 3072x2048,leaf=96,iters=10 --policy ws,mts,cab,cats`'s
    /// wall time (2.45-2.47 s against 2.31-2.38, three alternating runs).
    #[inline]
    fn index_of(&self, t: u64) -> usize {
        let offset = t - self.origin;
        let bucket = if offset <= self.exact {
            ((u128::from(offset) * u128::from(self.magic)) >> 64) as u64
        } else {
            offset / self.width
        };
        bucket as usize
    }

    /// Drops the calendar's whole blocks before bucket `oldest` once they are half of
    /// it (or all of it): no line arrives before the event being processed.
    #[inline]
    fn forget_before(&mut self, oldest: u64) {
        let gone = (oldest.saturating_sub(self.base) / BLOCK) as usize;
        if gone == 0 {
            return;
        }
        if gone >= self.packed.len() {
            self.full.clear();
            self.packed.clear();
            self.used.clear();
            self.base = oldest - oldest % BLOCK;
            self.origin = self.base * self.width;
        } else if 2 * gone >= self.packed.len() {
            self.packed.drain(..gone);
            self.full.drain(..64 * gone);
            if !self.used.is_empty() {
                self.used.drain(..BLOCK as usize * gone);
            }
            self.base += BLOCK * gone as u64;
            self.origin = self.base * self.width;
        }
    }

    /// The index (from `base`) of the first bucket from index `i` on that has room
    /// for a line, the calendar grown to hold it.
    #[inline]
    fn room_from(&mut self, i: usize) -> usize {
        let w = i / 64;
        let found = match self.full.get(w) {
            None => i,
            Some(&word) => {
                let free = !word & (u64::MAX << (i % 64));
                if free != 0 {
                    64 * w + free.trailing_zeros() as usize
                } else {
                    let w = self.word_with_room_after(w);
                    64 * w
                        + self
                            .full
                            .get(w)
                            .map_or(0, |&word| (!word).trailing_zeros() as usize)
                }
            }
        };
        if found / 64 >= self.full.len() {
            self.grow(found / 64 + 1);
        }
        found
    }

    /// The first word of `full` after word `w` that is not all ones (`full.len()` or
    /// more where every word after `w` is).
    #[inline]
    fn word_with_room_after(&self, w: usize) -> usize {
        let next = w + 1;
        let mut k = next / 64;
        let mut open = match self.packed.get(k) {
            None => return next,
            Some(&word) => !word & (u64::MAX << (next % 64)),
        };
        loop {
            if open != 0 {
                return 64 * k + open.trailing_zeros() as usize;
            }
            k += 1;
            match self.packed.get(k) {
                Some(&word) => open = !word,
                None => return 64 * k,
            }
        }
    }

    /// Extends the calendar with empty buckets to `words` words.
    #[cold]
    fn grow(&mut self, words: usize) {
        self.full.resize(words, 0);
        self.packed.resize(words.div_ceil(64), 0);
        if self.per_bucket > 1 {
            self.used.resize(64 * words, 0);
        }
    }
}

/// `ceil(2^64 / width)` for a `width` of 2 to `u32::MAX`, which makes
/// [`Server::index_of`] divide by it as a multiplication; 0 for any other.
fn magic(width: u64) -> u64 {
    if (2..=u64::from(u32::MAX)).contains(&width) {
        u64::MAX / width + 1
    } else {
        0
    }
}

/// [`Server::exact`] for a `width`.
fn exact(width: u64) -> u64 {
    if magic(width) != 0 {
        u64::from(u32::MAX)
    } else {
        0
    }
}

/// A worker's fill buffers: when each slot's line arrives, as a ring sorted from
/// `head`, the earliest first.
///
/// A miss takes the slot that frees first and puts its line's arrival in it; only the
/// multiset of the times matters (which of several slots that free together is taken
/// changes nothing). Kept sorted, the earliest is at hand, and a new arrival, mostly
/// the latest (lines arrive about in the order they were issued), takes the earliest's
/// place at the ring's back with one comparison. (Scanning the slots for the earliest
/// at each miss, without branches, took 3.87 G instructions where this takes 3.72 G,
/// in `valgrind --tool=cachegrind --branch-sim=yes locus sim heat
/// --size 3072x2048,leaf=96,iters=2 --policy ws`, 10 slots a worker on opteron-8380;
/// the conditional branches it mispredicts, 5.3 M -> 4.0 M.)
#[derive(Debug, Clone)]
struct Buffers {
    /// The arrivals, in order from `head` round the ring.
    done: Vec<u64>,
    /// The earliest arrival's slot.
    head: usize,
    /// The latest arrival of any slot.
    last: u64,
}

impl Buffers {
    /// When the earliest slot frees.
    #[inline]
    fn earliest(&self) -> u64 {
        self.done[self.head]
    }

    /// Replaces the earliest arrival with `arrives`, keeping the ring sorted.
    #[inline]
    fn replace_earliest(&mut self, arrives: u64) {
        let n = self.done.len();
        // The earliest's slot becomes the back of the ring.
        let mut at = self.head;
        self.head = if at + 1 == n { 0 } else { at + 1 };
        while at != self.head {
            let before = if at == 0 { n - 1 } else { at - 1 };
            let d = self.done[before];
            if d <= arrives {
                break;
            }
            self.done[at] = d;
            at = before;
        }
        self.done[at] = arrives;
        self.last = self.last.max(arrives);
    }
}

/// The memory clock of one simulation.
#[derive(Debug, Clone)]
pub struct MemoryClock {
    kind: ClockKind,
    issue: u64,
    buffers: Vec<Buffers>,
    /// One server per NUMA node.
    dram: Vec<Server>,
    /// One server per ordered pair of packages, `from * packages + to`.
    links: Vec<Server>,
    packages: usize,
    package_of_node: Vec<u16>,
    /// Cycles workers stalled with every fill buffer busy, or waiting for all.
    stalled: u64,
    /// Per worker, [`INFLIGHT`] entries of (line, arrival) of the lines its core's
    /// prefetcher requested, entry `line % INFLIGHT`.
    inflight: Vec<(u64, u64)>,
    /// Cycles workers waited for a prefetched line still on its way.
    prefetch_waits: u64,
}

/// Prefetched lines whose arrival a worker's clock remembers (a direct-mapped table
/// by line number: a stream's lines in flight, up to 64 ahead, never collide; lines of
/// other streams may, and a forgotten arrival costs nothing to wait for).
pub const INFLIGHT: usize = 128;

/// What the memory clock measured over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ClockCounts {
    /// Lines the memory controllers moved (reads and write-backs).
    pub dram_lines: u64,
    /// Cycles lines queued at memory controllers, summed.
    pub dram_queued_cycles: u64,
    /// Lines the inter-package links moved.
    pub link_lines: u64,
    /// Cycles lines queued at links, summed.
    pub link_queued_cycles: u64,
    /// Cycles workers stalled for their misses (every fill buffer busy, or waiting
    /// for all at a dependency point), summed.
    pub stall_cycles: u64,
    /// Cycles from an access to a line its core's prefetcher had requested to the
    /// line's arrival, where the access came first, summed (the access holds a fill
    /// buffer meanwhile, as a miss does).
    pub prefetch_wait_cycles: u64,
}

impl MemoryClock {
    /// The clock `kind` for `workers` workers on a machine of `packages` packages whose
    /// NUMA nodes lie in `package_of_node`, with `lat`'s parameters.
    pub fn new(
        kind: ClockKind,
        lat: &Latencies,
        workers: usize,
        package_of_node: Vec<u16>,
        packages: usize,
        line_bytes: u64,
    ) -> MemoryClock {
        let overlap = kind == ClockKind::Overlap;
        let slots = lat.fill_buffers.max(1) as usize;
        MemoryClock {
            kind,
            issue: u64::from(lat.l1_hit),
            buffers: if overlap {
                vec![
                    Buffers {
                        done: vec![0; slots],
                        head: 0,
                        last: 0,
                    };
                    workers
                ]
            } else {
                Vec::new()
            },
            dram: if overlap {
                (0..package_of_node.len())
                    .map(|_| Server::new(lat.dram_gbps, line_bytes, lat.clock_ghz))
                    .collect()
            } else {
                Vec::new()
            },
            links: if overlap {
                (0..packages * packages)
                    .map(|_| Server::new(lat.link_gbps, line_bytes, lat.clock_ghz))
                    .collect()
            } else {
                Vec::new()
            },
            packages,
            package_of_node,
            stalled: 0,
            inflight: if overlap && lat.prefetch_degree > 0 {
                vec![(u64::MAX, 0); workers * INFLIGHT]
            } else {
                Vec::new()
            },
            prefetch_waits: 0,
        }
    }

    /// Which clock this is.
    pub fn kind(&self) -> ClockKind {
        self.kind
    }

    /// Worker `w`, on package `package`, made the access `served` to `line` at its
    /// clock `t` during a step that started at `now`: returns its clock after the
    /// access. A private hit on a line the prefetcher requested waits for its arrival.
    #[inline]
    pub fn charge(
        &mut self,
        w: usize,
        package: usize,
        t: u64,
        now: u64,
        line: u64,
        served: Served,
    ) -> u64 {
        if self.kind == ClockKind::Serial {
            return t + served.cycles;
        }
        if served.writeback != NO_WRITEBACK {
            self.write_back(served.writeback, package, t, now);
        }
        if !served.private_miss {
            let done = t + served.cycles;
            if let Some(&(held, arrives)) =
                self.inflight.get(w * INFLIGHT + line as usize % INFLIGHT)
            {
                if held == line && arrives > done {
                    return self.merge(w, t, arrives);
                }
            }
            return done;
        }
        self.miss(w, package, t, now, served)
    }

    /// An access at `t` found its line in the private caches, but the prefetch that
    /// brought it arrives only at `arrives`: the access joins the prefetch's request
    /// as a load joins an outstanding miss to its line, taking a fill buffer until the
    /// line arrives, and the worker goes on. (Waiting in line for it instead cost a
    /// streaming sweep its overlap: at AMD's distance of 2 lines, 2 lines in flight
    /// where the fill buffers allow 8.)
    #[cold]
    fn merge(&mut self, w: usize, t: u64, arrives: u64) -> u64 {
        let free_at = self.buffers[w].earliest();
        let issue = t.max(free_at);
        self.stalled += issue - t;
        self.prefetch_waits += arrives.saturating_sub(issue);
        self.buffers[w].replace_earliest(arrives.max(issue));
        issue + self.issue
    }

    /// Worker `w`'s core prefetched `line`, served as `served`, at the worker's clock
    /// `t`: the line crosses the servers on its way as a miss does, without taking a
    /// fill buffer or stalling the worker (the prefetcher has its own request
    /// queue), and a later access to it waits for its arrival. The serial clock
    /// charges nothing: the line is simply there.
    pub fn prefetch(
        &mut self,
        w: usize,
        package: usize,
        t: u64,
        now: u64,
        line: u64,
        served: Served,
    ) {
        if self.kind == ClockKind::Serial || self.inflight.is_empty() {
            return;
        }
        if served.writeback != NO_WRITEBACK {
            self.write_back(served.writeback, package, t, now);
        }
        let start = self.route(package, t, now, served.route);
        self.inflight[w * INFLIGHT + line as usize % INFLIGHT] = (line, start + served.cycles);
    }

    /// When a line along `route`, asked for at `issue`, starts its last server.
    #[inline(always)]
    fn route(&mut self, package: usize, issue: u64, now: u64, route: Route) -> u64 {
        match route {
            Route::OnChip => issue,
            Route::Dram { node } => {
                let node = usize::from(node);
                let at = self.dram[node].serve(issue, now);
                let home = usize::from(self.package_of_node[node]);
                if home == package {
                    at
                } else {
                    self.links[home * self.packages + package].serve(at, now)
                }
            }
            Route::Cache { package: from } => {
                self.links[usize::from(from) * self.packages + package].serve(issue, now)
            }
        }
    }

    /// A line that missed the private caches: a fill buffer, the servers on its way.
    ///
    /// Inlined into the engine's loop over a step's lines, where a call cost 16
    /// instructions a miss of some 100 (see [`Server::serve`]).
    #[inline(always)]
    fn miss(&mut self, w: usize, package: usize, t: u64, now: u64, served: Served) -> u64 {
        let free_at = self.buffers[w].earliest();
        let issue = t.max(free_at);
        self.stalled += issue - t;
        let start = self.route(package, issue, now, served.route);
        self.buffers[w].replace_earliest(start + served.cycles);
        issue + self.issue
    }

    /// A dirty line of `node` written back from a cache of `package` at `t`.
    fn write_back(&mut self, node: u16, package: usize, t: u64, now: u64) {
        let node = usize::from(node);
        let home = usize::from(self.package_of_node[node]);
        let at = if home == package {
            t
        } else {
            self.links[package * self.packages + home].serve(t, now)
        };
        self.dram[node].serve(at, now);
    }

    /// Worker `w` at clock `t` waits for all its outstanding lines: returns its clock.
    #[inline]
    pub fn drain(&mut self, w: usize, t: u64) -> u64 {
        let Some(buffers) = self.buffers.get_mut(w) else {
            return t;
        };
        if buffers.last <= t {
            return t;
        }
        self.stalled += buffers.last - t;
        buffers.last
    }

    /// What the clock measured.
    pub fn counts(&self) -> ClockCounts {
        let sum = |servers: &[Server]| {
            servers
                .iter()
                .fold((0, 0), |(l, q), s| (l + s.lines, q + s.waited))
        };
        let (dram_lines, dram_queued_cycles) = sum(&self.dram);
        let (link_lines, link_queued_cycles) = sum(&self.links);
        ClockCounts {
            dram_lines,
            dram_queued_cycles,
            link_lines,
            link_queued_cycles,
            stall_cycles: self.stalled,
            prefetch_wait_cycles: self.prefetch_waits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64-byte lines at 1 GHz through 6.4 GB/s: 10 cycles a line (20-cycle buckets
    /// of 2 lines).
    fn ten_cycle_server() -> Server {
        Server::new(6.4, 64, 1.0)
    }

    #[test]
    fn buckets_are_found_by_multiplication_as_by_division() {
        use locus_task::rng::XorShift64Star;
        let mut rng = XorShift64Star::new(0xD1_715E);
        let widths = [
            1,
            2,
            3,
            7,
            16,
            20,
            64,
            1000,
            65_537,
            u64::from(u32::MAX),
            1 << 33,
        ];
        for width in widths {
            let mut s = ten_cycle_server();
            s.width = width;
            s.magic = magic(width);
            s.exact = exact(width);
            s.origin = 12_345 * width;
            let edges = [
                0,
                1,
                width - 1,
                width,
                width + 1,
                u64::from(u32::MAX),
                1 << 32,
            ];
            let random = (0..10_000).map(|_| rng.next_u64() >> (rng.next_u64() % 64));
            for offset in edges.into_iter().chain(random) {
                let t = s.origin.saturating_add(offset);
                assert_eq!(
                    s.index_of(t) as u64,
                    (t - s.origin) / width,
                    "width {width}, offset {offset}"
                );
            }
        }
    }

    #[test]
    fn the_service_time_fills_a_bucket_with_whole_lines() {
        let s = ten_cycle_server();
        // 10 cycles a line: 2 lines to reach the 16-cycle floor.
        assert_eq!((s.width, s.per_bucket), (20, 2));
        assert_eq!(s.cost, 10 * UNIT);
        // 18.8 cycles a line (opteron-8380's DRAM): 19-cycle buckets of 1 line.
        let s = Server::new(8.5, 64, 2.5);
        assert_eq!((s.width, s.per_bucket), (19, 1));
        // 0.43 cycles a line (epyc-9654-2s's DRAM): 16-cycle buckets of 38 lines.
        let s = Server::new(360.0, 64, 2.4);
        assert_eq!((s.width, s.per_bucket), (16, 38));
    }

    #[test]
    fn an_idle_server_starts_a_line_at_once() {
        let mut s = ten_cycle_server();
        assert_eq!(s.serve(1000, 1000), 1000);
        assert_eq!(s.serve(5000, 1000), 5000);
        assert_eq!(s.waited, 0);
    }

    #[test]
    fn a_burst_is_served_one_line_after_another() {
        let mut s = ten_cycle_server();
        let starts: Vec<u64> = (0..40).map(|_| s.serve(320, 320)).collect();
        assert_eq!(starts[0], 320);
        for pair in starts.windows(2) {
            assert!((10..=11).contains(&(pair[1] - pair[0])), "{starts:?}");
        }
    }

    #[test]
    fn an_earlier_request_fills_capacity_left_before_a_later_one() {
        let mut s = ten_cycle_server();
        // A later line (time 8000) first, then one at 0: the second does not queue
        // behind the first.
        assert_eq!(s.serve(8000, 0), 8000);
        assert_eq!(s.serve(0, 0), 0);
    }

    #[test]
    fn no_more_than_the_bandwidth_moves() {
        // 8 requesters each asking 100 lines at once: 800 lines, 8000 cycles of service.
        let mut s = ten_cycle_server();
        let last = (0..800).map(|_| s.serve(0, 0)).max().unwrap();
        assert!((7990..8040).contains(&last), "{last}");
        assert_eq!(s.lines, 800);
    }

    /// An obviously correct calendar: a count of lines per bucket, searched one bucket
    /// at a time, nothing ever dropped.
    struct Reference {
        width: u64,
        cost: u64,
        per_bucket: u64,
        used: std::collections::BTreeMap<u64, u64>,
    }

    impl Reference {
        fn serve(&mut self, t: u64) -> u64 {
            let mut b = t / self.width;
            while self.used.get(&b).copied().unwrap_or(0) >= self.per_bucket {
                b += 1;
            }
            let held = self.used.entry(b).or_insert(0);
            *held += 1;
            (b * self.width + (*held - 1) * self.cost / UNIT).max(t)
        }
    }

    #[test]
    fn the_calendar_matches_its_reference() {
        use locus_task::rng::XorShift64Star;
        const SEED: u64 = 0x5EED_CA1E;
        // One line a bucket (slow servers), several (fast ones), and a server so fast
        // that a line's service rounds to nothing (no bucket ever fills).
        for (gbps, clock_ghz) in [
            (6.4, 1.0),
            (8.5, 2.5),
            (64.0, 1.0),
            (360.0, 2.4),
            (1e30, 1.0),
        ] {
            let mut s = Server::new(gbps, 64, clock_ghz);
            let mut r = Reference {
                width: s.width,
                cost: s.cost,
                per_bucket: s.per_bucket,
                used: Default::default(),
            };
            let mut rng = XorShift64Star::new(SEED);
            let mut now = 0;
            for op in 0..200_000 {
                let x = rng.next_u64();
                // Time moves on now and then, sometimes past the whole calendar; lines
                // arrive in bursts at the event's time or scattered up to 5,000
                // buckets after it, in no order.
                match x % 64 {
                    0 => now += x >> 52,
                    1 => now += 200_000 * s.width,
                    _ => {}
                }
                let t = match (x >> 8) % 4 {
                    0 => now,
                    _ => now + (x >> 16) % (5_000 * s.width),
                };
                assert_eq!(
                    s.serve(t, now),
                    r.serve(t),
                    "op {op}: t {t}, now {now}, {gbps} GB/s"
                );
            }
            // Nothing queued but what the reference queued, and the calendar stayed
            // short: whole words before the events were dropped.
            assert_eq!(s.lines, 200_000);
            assert!(
                s.full.len() < 2 * 5_000 / 64 + 200,
                "{} words",
                s.full.len()
            );
        }
    }

    #[test]
    fn the_sorted_ring_of_fill_buffers_holds_what_a_scan_would() {
        use locus_task::rng::XorShift64Star;
        let mut rng = XorShift64Star::new(0x5EED_F111);
        for slots in [1, 2, 3, 10, 24] {
            let mut b = Buffers {
                done: vec![0; slots],
                head: 0,
                last: 0,
            };
            // The scan it replaces: the earliest slot anywhere takes the new arrival.
            let mut scanned = vec![0u64; slots];
            let mut t = 0;
            for op in 0..20_000 {
                let x = rng.next_u64();
                let earliest = *scanned.iter().min().unwrap();
                assert_eq!(b.earliest(), earliest, "op {op}, {slots} slots");
                // Arrivals mostly later than the last, now and then earlier, or tied.
                t += x % 8;
                let arrives = earliest.max(t)
                    + match (x >> 8) % 4 {
                        0 => (x >> 16) % 300,
                        1 => 0,
                        _ => 200,
                    };
                let at = scanned.iter().position(|&d| d == earliest).unwrap();
                scanned[at] = arrives;
                b.replace_earliest(arrives);
                let mut ring: Vec<u64> = (0..slots).map(|i| b.done[(b.head + i) % slots]).collect();
                assert!(ring.windows(2).all(|p| p[0] <= p[1]), "unsorted: {ring:?}");
                ring.sort_unstable();
                let mut want = scanned.clone();
                want.sort_unstable();
                assert_eq!(ring, want, "op {op}, {slots} slots");
                assert_eq!(b.last, *want.last().unwrap());
            }
        }
    }

    fn lat(fill_buffers: u32) -> Latencies {
        Latencies {
            fill_buffers,
            dram_gbps: 6.4,
            link_gbps: 3.2,
            clock_ghz: 1.0,
            ..Latencies::generic()
        }
    }

    fn dram_miss(node: u16) -> Served {
        Served {
            cycles: 100,
            private_miss: true,
            route: Route::Dram { node },
            writeback: NO_WRITEBACK,
        }
    }

    #[test]
    fn a_prefetched_line_is_waited_for_and_shares_the_bandwidth() {
        let l = lat(1);
        let mut c = MemoryClock::new(ClockKind::Overlap, &l, 1, vec![0], 1, 64);
        // Lines 1 to 5 prefetched at 0: served 10 cycles apart by the one node, each
        // arriving 100 after its start; no fill buffer taken, no stall.
        for line in 1..=5 {
            c.prefetch(0, 0, 0, 0, line, dram_miss(0));
        }
        assert_eq!(c.counts().dram_lines, 5);
        assert_eq!(c.counts().stall_cycles, 0);
        let hit = |cycles| Served {
            cycles,
            private_miss: false,
            route: Route::OnChip,
            writeback: NO_WRITEBACK,
        };
        // An L2 hit on line 1 at 50, before it arrives at 100, joins its request: it
        // takes the one fill buffer until 100 and costs the issue; so the hit on line
        // 3 at 105 (arriving 120) first waits for that buffer (free at 100: no wait).
        let issue = u64::from(l.l1_hit);
        assert_eq!(c.charge(0, 0, 50, 0, 1, hit(12)), 50 + issue);
        assert_eq!(c.charge(0, 0, 105, 0, 3, hit(12)), 105 + issue);
        // At the next dependency point the worker waits for line 3.
        assert_eq!(c.drain(0, 110), 120);
        // Line 5 arrives at 140: a hit at 200 costs the hit alone, as does a line
        // never prefetched.
        assert_eq!(c.charge(0, 0, 200, 0, 5, hit(12)), 212);
        assert_eq!(c.charge(0, 0, 300, 0, 9, hit(12)), 312);
        assert_eq!(c.counts().prefetch_wait_cycles, (100 - 50) + (120 - 105));
        // A second hit while the buffer is still held waits for it.
        c.prefetch(0, 0, 400, 400, 11, dram_miss(0));
        c.prefetch(0, 0, 400, 400, 12, dram_miss(0));
        assert_eq!(c.charge(0, 0, 401, 400, 11, hit(12)), 401 + issue);
        assert_eq!(c.charge(0, 0, 402, 400, 12, hit(12)), 500 + issue);
        // (10 of the drain at 110, 98 of this wait.)
        assert_eq!(c.counts().stall_cycles, 10 + 98);
        // A demand miss now queues behind the prefetches' use of the node.
        let mut d = MemoryClock::new(ClockKind::Overlap, &l, 1, vec![0], 1, 64);
        for line in 1..=5 {
            d.prefetch(0, 0, 0, 0, line, dram_miss(0));
        }
        let t = d.charge(0, 0, 0, 0, 7, dram_miss(0));
        assert_eq!(d.drain(0, t), 50 + 100);
        // The serial clock ignores prefetches.
        let mut s = MemoryClock::new(ClockKind::Serial, &l, 1, vec![0], 1, 64);
        s.prefetch(0, 0, 0, 0, 1, dram_miss(0));
        assert_eq!(s.charge(0, 0, 50, 0, 1, hit(12)), 62);
    }

    #[test]
    fn misses_overlap_up_to_the_fill_buffers() {
        let l = lat(4);
        let mut c = MemoryClock::new(ClockKind::Overlap, &l, 1, vec![0], 1, 64);
        let mut t = 0;
        for _ in 0..4 {
            t = c.charge(0, 0, t, 0, 0, dram_miss(0));
        }
        // Four issued at once (one issue cost each), served 10 cycles apart.
        assert_eq!(t, 4 * u64::from(l.l1_hit));
        // The fifth waits for the first slot: it frees at 0 + 100.
        t = c.charge(0, 0, t, 0, 0, dram_miss(0));
        assert_eq!(t, 100 + u64::from(l.l1_hit));
        assert_eq!(c.counts().stall_cycles, 100 - 4 * u64::from(l.l1_hit));
        // All outstanding: the last issued at 100, served at once, arrives at 200.
        assert_eq!(c.drain(0, t), 200);
    }

    #[test]
    fn the_serial_clock_adds_latencies() {
        let l = lat(4);
        let mut c = MemoryClock::new(ClockKind::Serial, &l, 1, vec![0], 1, 64);
        let mut t = 0;
        for _ in 0..5 {
            t = c.charge(0, 0, t, 0, 0, dram_miss(0));
        }
        assert_eq!(t, 500);
        assert_eq!(c.drain(0, t), 500);
    }

    #[test]
    fn a_remote_line_crosses_its_link() {
        let l = lat(64);
        // Two packages, node 1 on package 1; worker 0 on package 0.
        let mut c = MemoryClock::new(ClockKind::Overlap, &l, 1, vec![0, 1], 2, 64);
        let mut t = 0;
        for _ in 0..10 {
            t = c.charge(0, 0, t, 0, 0, dram_miss(1));
        }
        let counts = c.counts();
        assert_eq!((counts.dram_lines, counts.link_lines), (10, 10));
        // The link (20 cycles a line) is the narrower server: the tenth line starts
        // after nine others, 180 cycles in (181 with the rounding of service times).
        assert!((280..=282).contains(&c.drain(0, t)), "{}", c.drain(0, t));
    }
}
