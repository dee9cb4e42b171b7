//! One set-associative cache with exact (true) LRU replacement.
//!
//! # What it models
//! A [`Cache`] holds line numbers (`address / line_size`), never addresses: the caller
//! divides. Line `l` lives in set `l % sets`; within a set, lines are ordered by recency
//! and a fill into a full set evicts the least recently used one, exactly (no pseudo-LRU,
//! no random tie-breaking, no hashing of set indices). There is no dirty state and no
//! notion of reads and writes: coherence, inclusion between levels and write-back
//! traffic are the caller's job, built from [`Cache::access`], [`Cache::fill`] and
//! [`Cache::invalidate`] and the evicted lines they report. A cache counts nothing
//! either; the caller counts the [`Lookup`]s it cares about.
//!
//! Everything is deterministic: no randomness, and no result depends on a hash table's
//! iteration order.
//!
//! # Two representations
//! The one [`Cache`] type picks its representation from the effective associativity:
//!
//! - **Sets** (`ways <= 64`, [`MAX_SCAN_WAYS`]): each set's lines stay in fixed ways
//!   (the valid ones first), with a 7-bit fingerprint of each way's line (high bit set
//!   when valid) packed 8 to a 64-bit word, and the set's recency order as a circular
//!   doubly linked list of its ways, one byte per link. A lookup compares the probe's
//!   fingerprint with 16 ways at a time by SSE2 on x86-64, 8 by word arithmetic
//!   elsewhere (SWAR, exact per byte), into one mask of the matching ways, and checks
//!   the full tag only of ways whose fingerprint matches (1 in 128 of the others). A
//!   hit moves its way to the head of the list, a few byte writes however many the
//!   ways; a miss into a full set evicts the tail and makes it the head, which
//!   on a circle is one step of the head. Nothing moves but bytes: no `memmove`, no
//!   hashing of set indices, no pointers, no allocation. The fingerprint words per set
//!   are a compile-time constant (1, 2, 4 or 8: the smallest that covers the ways), so
//!   the loops over them unroll. Cost: O(ways / 8) word operations per lookup, O(1) per
//!   recency update; 8 bytes per line for its tag and 3 per way for its fingerprint and
//!   links (the ways rounded up to a multiple of 8), plus 8 per set. (Why a circular
//!   list rather than ranks or moved tags: `docs/results.md`, "The simulator's cache".)
//! - **Hashed** (`ways > 64`, e.g. a 6 MiB fully associative cache of 98,304 lines):
//!   scanning would cost O(lines) per access, so lines are found through an
//!   open-addressing hash table (linear probing, Fibonacci hashing, backward-shift
//!   deletion, load factor at most 1/2) that maps each held line to its node, and each
//!   set keeps an intrusive doubly linked LRU list of nodes. Nodes, lists and the table
//!   are vectors allocated once in [`Cache::new`]; nodes are linked by `u32` index.
//!   Cost: O(1) expected per access, 48 to 80 bytes per line.
//!
//! The representations are behind one `match` per call, which the branch predictor
//! learns at once because a cache never changes representation.
//!
//! # Complexity
//! | operation | sets | hashed |
//! | --- | --- | --- |
//! | [`Cache::access`], [`Cache::fill`], [`Cache::invalidate`], [`Cache::contains`] | O(ways) | O(1) expected |
//! | [`Cache::len`], [`Cache::is_empty`], [`Cache::geometry`] | O(1) | O(1) |
//! | [`Cache::clear`] | O(sets) | O(lines) |
//! | [`Cache::set_contents`] | O(ways log ways) | O(ways) |
//! | [`Cache::new`] | O(lines) | O(lines) |
//!
//! [`Cache::fill_absent`] costs as a miss of [`Cache::access`] without the search.
//! No operation allocates except [`Cache::new`], [`Clone`] and [`Cache::set_contents`].
//!
//! A cache knows no organisation either: [`crate::machine`] builds an inclusive
//! last-level cache or a victim (mostly exclusive) one from the same calls, filling a
//! victim cache with [`Cache::fill`] as the private caches evict and taking hits out
//! of it with [`Cache::invalidate`].

use std::fmt;

/// The widest associativity kept in the scanned, move-to-front representation; wider
/// caches use the hashed one.
///
/// Measured on the `cache_walk` hierarchy with the L3's ways varied (one core of a
/// Xeon VM, best of 6 passes, M accesses/s, sets vs hashed L3): random over 8 MiB
/// 48 ways 19.6 vs 11.4 (hashed L2 and L3), 64 ways 16.4 vs 17.4, 128 ways 11.8 vs
/// 18.5; sequential 64 ways 22.7 vs 24.0, 128 ways 14.4 vs 24.3. The two break even
/// near 64, and the scanned sets need 8 bytes per line against 48 to 80. (Measured
/// with the previous, move-to-front sets; the fingerprinted sets are faster still, and
/// their rank bytes need at most 64 ways.)
pub const MAX_SCAN_WAYS: u64 = 64;

/// The most lines one cache may hold: hashed nodes are linked by `u32` index with
/// `u32::MAX` reserved as the null link. (At 64-byte lines that is 256 GiB.)
pub const MAX_LINES: u64 = u32::MAX as u64;

/// Shape of one cache.
///
/// `ways == 0`, or `ways` at least the number of lines, means fully associative (one
/// set). The derived quantities are only meaningful for a geometry that
/// [`Cache::new`] accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Capacity in bytes.
    pub size: u64,
    /// Bytes per line; a power of two.
    pub line_size: u32,
    /// Lines per set; 0 for fully associative.
    pub ways: u32,
}

impl Geometry {
    /// Lines the cache holds: `size / line_size` (0 if `line_size` is 0).
    pub fn lines(&self) -> u64 {
        self.size
            .checked_div(u64::from(self.line_size))
            .unwrap_or(0)
    }

    /// Number of sets: lines divided by the effective ways (1 when fully associative,
    /// 0 when the geometry holds no lines).
    pub fn sets(&self) -> u64 {
        self.lines().checked_div(self.ways()).unwrap_or(0)
    }

    /// Effective ways: `ways`, or the number of lines when fully associative.
    pub fn ways(&self) -> u64 {
        if self.is_fully_associative() {
            self.lines()
        } else {
            u64::from(self.ways)
        }
    }

    /// Whether the cache is one set: `ways == 0` or `ways >= lines`.
    pub fn is_fully_associative(&self) -> bool {
        self.ways == 0 || u64::from(self.ways) >= self.lines()
    }

    /// Checks the geometry; each problem has its own [`GeometryError`].
    fn validate(&self) -> Result<(), GeometryError> {
        if self.size == 0 {
            return Err(GeometryError::ZeroSize);
        }
        if !self.line_size.is_power_of_two() {
            return Err(GeometryError::LineSize {
                line_size: self.line_size,
            });
        }
        if self.size % u64::from(self.line_size) != 0 {
            return Err(GeometryError::SizeNotLineMultiple {
                size: self.size,
                line_size: self.line_size,
            });
        }
        let lines = self.lines();
        if lines > MAX_LINES {
            return Err(GeometryError::TooManyLines { lines });
        }
        if !self.is_fully_associative() && lines % u64::from(self.ways) != 0 {
            return Err(GeometryError::WaysNotDividingLines {
                lines,
                ways: self.ways,
            });
        }
        Ok(())
    }
}

/// Why a [`Geometry`] is invalid. Each message names the offending value and what is
/// expected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GeometryError {
    /// The cache has no bytes.
    #[error("cache size is 0 bytes; expected a positive multiple of the line size")]
    ZeroSize,
    /// The line size is zero or not a power of two.
    #[error(
        "line size {line_size} bytes is not a power of two; expected 1, 2, 4, ... (64 is typical)"
    )]
    LineSize {
        /// The line size given.
        line_size: u32,
    },
    /// The size is not a whole number of lines.
    #[error("cache size {size} bytes is not a multiple of the line size {line_size} bytes")]
    SizeNotLineMultiple {
        /// The size given.
        size: u64,
        /// The line size given.
        line_size: u32,
    },
    /// More lines than [`MAX_LINES`].
    #[error("{lines} lines exceed the simulator's limit of {MAX_LINES} lines per cache")]
    TooManyLines {
        /// `size / line_size`.
        lines: u64,
    },
    /// The lines do not split into whole sets of `ways` lines.
    #[error(
        "{lines} lines do not split into sets of {ways} ways; expected ways to divide the \
         line count (or 0 for fully associative)"
    )]
    WaysNotDividingLines {
        /// `size / line_size`.
        lines: u64,
        /// The ways given.
        ways: u32,
    },
}

/// The result of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The line was present; it is now its set's most recently used.
    Hit,
    /// The line was absent and has been filled as its set's most recently used.
    Miss {
        /// The set's least recently used line, evicted because the set was full.
        evicted: Option<u64>,
    },
}

/// A set-associative cache of line numbers with true LRU replacement per set.
///
/// See the [module documentation](self) for what it models and how.
#[derive(Clone)]
pub struct Cache {
    geometry: Geometry,
    repr: Repr,
}

/// Evaluates `$sets` with `$s` bound to the scanned representation, whichever its
/// word count, or `$hashed` with `$h` bound to the hashed one.
macro_rules! dispatch {
    ($repr:expr, $s:ident => $sets:expr, $h:ident => $hashed:expr) => {
        match $repr {
            Repr::Sets1($s) => $sets,
            Repr::Sets2($s) => $sets,
            Repr::Sets4($s) => $sets,
            Repr::Sets8($s) => $sets,
            Repr::Hashed($h) => $hashed,
        }
    };
}

/// The scanned representation has `K` words of bytes per set, `K` 1, 2, 4 or 8 (fewer
/// variants keep [`Cache::access`] small enough to inline).
#[derive(Clone)]
enum Repr {
    Sets1(Sets<1>),
    Sets2(Sets<2>),
    Sets4(Sets<4>),
    Sets8(Sets<8>),
    Hashed(Hashed),
}

impl Cache {
    /// An empty cache of the given shape.
    ///
    /// Allocates all its storage now (11 bytes per line for up to [`MAX_SCAN_WAYS`]
    /// ways, 48 to 80 above); accesses never allocate.
    pub fn new(geometry: Geometry) -> Result<Cache, GeometryError> {
        geometry.validate()?;
        let index = SetIndex::new(geometry.sets());
        let ways = geometry.ways();
        let repr = if ways <= MAX_SCAN_WAYS {
            let ways = ways as usize;
            match ways.div_ceil(8) {
                1 => Repr::Sets1(Sets::new(index, ways)),
                2 => Repr::Sets2(Sets::new(index, ways)),
                3 | 4 => Repr::Sets4(Sets::new(index, ways)),
                _ => Repr::Sets8(Sets::new(index, ways)),
            }
        } else {
            Repr::Hashed(Hashed::new(index, ways as u32))
        };
        Ok(Cache { geometry, repr })
    }

    /// The shape this cache was built with.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Looks up `line` (a line number, i.e. `address / line_size`, not an address).
    ///
    /// A hit makes it the most recently used line of its set; a miss fills it, evicting
    /// the set's least recently used line when the set is full (the evicted line number
    /// is returned). The set index is `line % sets`.
    #[inline]
    pub fn access(&mut self, line: u64) -> Lookup {
        dispatch!(&mut self.repr, sets => sets.access(line), hashed => hashed.access(line))
    }

    /// Whether `line` is present. Changes nothing: recency is not updated.
    #[inline]
    pub fn contains(&self, line: u64) -> bool {
        dispatch!(
            &self.repr,
            sets => sets.position(line).is_some(),
            hashed => hashed.table.find(line).is_some()
        )
    }

    /// Removes `line`; returns whether it was present. Its way becomes free: the next
    /// fill into that set uses a free way before evicting anything.
    pub fn invalidate(&mut self, line: u64) -> bool {
        dispatch!(&mut self.repr, sets => sets.invalidate(line), hashed => hashed.invalidate(line))
    }

    /// Inserts `line` as its set's most recently used, for fills the caller does not
    /// count as accesses (a prefetch, a line moved in from another level).
    ///
    /// Returns the evicted line, if the set was full; `None` if `line` was already
    /// present, in which case it only becomes most recently used. Otherwise the same as
    /// [`Cache::access`].
    #[inline]
    pub fn fill(&mut self, line: u64) -> Option<u64> {
        match self.access(line) {
            Lookup::Hit => None,
            Lookup::Miss { evicted } => evicted,
        }
    }

    /// Fills `line`, which the caller knows to be absent (from bookkeeping of its own,
    /// such as a directory), without looking for it: the same as [`Cache::access`]'s
    /// miss, returning the evicted line, if the set was full.
    ///
    /// Debug builds check that `line` is absent.
    #[inline]
    pub fn fill_absent(&mut self, line: u64) -> Option<u64> {
        debug_assert!(!self.contains(line), "line {line} is present");
        dispatch!(
            &mut self.repr,
            sets => sets.miss(sets.index.of(line), line),
            hashed => hashed.miss(hashed.index.of(line), line)
        )
    }

    /// Valid lines held.
    pub fn len(&self) -> usize {
        dispatch!(&self.repr, sets => sets.held, hashed => hashed.held)
    }

    /// Whether no line is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every line.
    pub fn clear(&mut self) {
        dispatch!(&mut self.repr, sets => sets.clear(), hashed => hashed.clear())
    }

    /// The lines of set `set`, most recently used first (for tests and debugging).
    ///
    /// # Panics
    /// If `set` is not below [`Geometry::sets`].
    pub fn set_contents(&self, set: u64) -> Vec<u64> {
        let sets = self.geometry.sets();
        assert!(
            set < sets,
            "set {set} out of range: the cache has {sets} sets"
        );
        dispatch!(
            &self.repr,
            sets => sets.contents(set as usize),
            hashed => hashed.contents(set as usize)
        )
    }
}

impl fmt::Debug for Cache {
    /// The geometry, representation and fill, not the lines (a big cache holds
    /// hundreds of thousands; use [`Cache::set_contents`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let repr = match self.repr {
            Repr::Hashed(_) => "hashed",
            _ => "sets",
        };
        f.debug_struct("Cache")
            .field("geometry", &self.geometry)
            .field("repr", &repr)
            .field("len", &self.len())
            .finish()
    }
}

/// Maps a line to its set: a mask when the set count is a power of two, else `%`.
#[derive(Clone, Copy)]
struct SetIndex {
    sets: u64,
    /// `sets - 1` when `sets` is a power of two, else `None`.
    mask: Option<u64>,
}

impl SetIndex {
    fn new(sets: u64) -> SetIndex {
        debug_assert!(sets > 0);
        let mask = sets.is_power_of_two().then(|| sets - 1);
        SetIndex { sets, mask }
    }

    #[inline(always)]
    fn of(self, line: u64) -> usize {
        (match self.mask {
            Some(mask) => line & mask,
            None => line % self.sets,
        }) as usize
    }
}

/// The scanned representation: per set, `ways` tags in fixed ways, a fingerprint byte
/// per way packed 8 to a word in `K` words (`K` the power of two with
/// `4 * K < ways <= 8 * K`, or 1, a constant so that every loop over them unrolls;
/// bytes past the last way are never used), and the set's recency order as a doubly
/// linked list of ways, one byte per link.
///
/// Set `s` is `blocks[s]` and its way `w`'s tag is `tags[w * sets + s]` ([`Sets::tag`]):
/// the tags lie way by way, so that the tags of one way of neighbouring sets share a
/// host cache line. A walk through consecutive lines fills consecutive sets, which
/// age alike, so their victims sit in the same way: laid out set by set, a full set's
/// fill read its victim's tag from a host line of its own, where 8 fills now share one
/// (the host's first-level data misses of `valgrind --tool=cachegrind --cache-sim=yes
/// --D1=49152,12,64 --LL=4194304,16,64 locus sim heat --size 3072x2048,leaf=96,iters=2
/// --policy ws`, 48.4 M -> 42.5 M, and its last-level misses, 24.1 M -> 21.6 M; a
/// lookup reads one tag either way). Way `w`'s fingerprint is byte `w % 8` of word
/// `w / 8`. The valid ways are ways `0..n` (`n` the block's `held`): a
/// valid way's fingerprint is [`fingerprint`] of its line (high bit set), and it is on
/// the circular list, from `head` (the most recently used) through `older` links to the
/// tail (the least recently used, `newer[head]`), `newer` links going back; `head` of
/// an empty set is [`END`]. Every other way's fingerprint is 0 and its links mean
/// nothing.
#[derive(Clone)]
struct Sets<const K: usize> {
    index: SetIndex,
    ways: usize,
    /// Valid lines held, over all sets.
    held: usize,
    blocks: Vec<Block<K>>,
    /// Way by way: way `w` of set `s` at `w * sets + s`.
    tags: Vec<u64>,
}

/// One set's bookkeeping.
///
/// The recency list is circular: the tail's `older` link is the head, and the head's
/// `newer` link the tail. So a fill into a full set, which reuses the least recently
/// used way and makes it the most recently used, only moves `head` one step back
/// (`head = newer[head]`): no link changes, and the `older` links are not read. The
/// list with two ends that this replaces relinked the tail at each such fill, which a
/// walk that misses makes at every level: `valgrind --tool=cachegrind --cache-sim=yes
/// --D1=49152,12,64 --LL=4194304,16,64 locus sim heat --size 3072x2048,leaf=96,iters=2
/// --policy ws` took 3.72 G instructions and missed the host's first-level data cache
/// 42.5 M times, where it now takes 3.55 G and misses 39.4 M times; `cache_walk`, three
/// criterion runs alternating with the list with two ends at a load of 9 on 2 cores,
/// walked 39.5-40.4 M lines/s sequentially where it now walks 45.9-67.8, and the stencil
/// 57-62 where it now walks 63-94.
///
/// `repr(C)` keeps `head` and the `newer` links, which such a fill reads, next to the
/// fingerprints, and the `older` links, which it does not, last.
#[derive(Clone, Copy)]
#[repr(C)]
struct Block<const K: usize> {
    fingerprints: [u64; K],
    /// Valid ways: ways `0..held`.
    held: u8,
    /// The most recently used way, or [`END`] in an empty set.
    head: u8,
    /// Per valid way, the next more recently used way; the head's is the tail.
    newer: Links<K>,
    /// Per valid way, the next less recently used way; the tail's is the head.
    older: Links<K>,
}

/// One link (a way number, or [`END`]) per way of a set.
#[derive(Clone, Copy)]
struct Links<const K: usize>([[u8; 8]; K]);

// A link is indexed by a valid way, below `8 * K`, never by [`END`]. The mask keeps the
// index below the length the compiler knows, so no bounds check is made: these links
// are followed several times an access (a bounds-checked index of the nested arrays
// was 204 M of this file's 1.1 G instructions under `valgrind --tool=cachegrind locus
// sim heat --size 3072x2048,leaf=96,iters=2 --policy ws`).
impl<const K: usize> std::ops::Index<u8> for Links<K> {
    type Output = u8;

    #[inline(always)]
    fn index(&self, way: u8) -> &u8 {
        debug_assert!(usize::from(way) < 8 * K, "way {way} of {}", 8 * K);
        &self.0.as_flattened()[usize::from(way) & (8 * K - 1)]
    }
}

impl<const K: usize> std::ops::IndexMut<u8> for Links<K> {
    #[inline(always)]
    fn index_mut(&mut self, way: u8) -> &mut u8 {
        debug_assert!(usize::from(way) < 8 * K, "way {way} of {}", 8 * K);
        &mut self.0.as_flattened_mut()[usize::from(way) & (8 * K - 1)]
    }
}

/// The end of a set's recency list: no way.
const END: u8 = 0xFF;

impl<const K: usize> Block<K> {
    const EMPTY: Block<K> = Block {
        fingerprints: [0; K],
        held: 0,
        head: END,
        newer: Links([[END; 8]; K]),
        older: Links([[END; 8]; K]),
    };

    /// The least recently used way of a set that holds some.
    #[inline(always)]
    fn tail(&self) -> u8 {
        self.newer[self.head]
    }

    /// Takes valid way `w` off the list, which holds at least one other way.
    #[inline(always)]
    fn unlink(&mut self, w: u8) {
        let (newer, older) = (self.newer[w], self.older[w]);
        self.older[newer] = older;
        self.newer[older] = newer;
        if self.head == w {
            self.head = older;
        }
    }

    /// Puts way `w`, off the list, at its head (the most recently used).
    #[inline(always)]
    fn push_head(&mut self, w: u8) {
        let head = self.head;
        if head == END {
            self.older[w] = w;
            self.newer[w] = w;
            self.head = w;
        } else {
            self.insert_before(head, w);
        }
    }

    /// Links way `w`, off the list, in between the tail and `head`, the list's head,
    /// and makes it the head.
    #[inline(always)]
    fn insert_before(&mut self, head: u8, w: u8) {
        let tail = self.newer[head];
        self.older[w] = head;
        self.newer[w] = tail;
        self.older[tail] = w;
        self.newer[head] = w;
        self.head = w;
    }

    /// Moves valid way `w`, not the head, to the head.
    #[inline(always)]
    fn move_to_head(&mut self, w: u8) {
        let head = self.head;
        if self.newer[head] == w {
            // The tail: the circle turns one step.
            self.head = w;
            return;
        }
        // Neither end: its neighbours close over it (which leaves the head's `newer`
        // link, the tail, as it was), and it goes in between the tail and the head.
        let (newer, older) = (self.newer[w], self.older[w]);
        self.older[newer] = older;
        self.newer[older] = newer;
        self.insert_before(head, w);
    }

    /// Makes the tail of a full set its head, for the fill that reuses the least
    /// recently used way; returns that way. The circle turns one step.
    #[inline(always)]
    fn tail_to_head(&mut self) -> u8 {
        let w = self.tail();
        self.head = w;
        w
    }

    /// Puts way `to`, off the list, in valid way `from`'s place on it (`from` then off
    /// the list): the same neighbours, which now point at `to`.
    #[inline(always)]
    fn move_links(&mut self, from: u8, to: u8) {
        let (newer, older) = (self.newer[from], self.older[from]);
        if newer == from {
            // Alone on the list: its links are its own.
            self.newer[to] = to;
            self.older[to] = to;
        } else {
            self.newer[to] = newer;
            self.older[to] = older;
            self.older[newer] = to;
            self.newer[older] = to;
        }
        if self.head == from {
            self.head = to;
        }
    }
}

/// `0x01` in every byte.
const LANES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const HIGH: u64 = 0x8080_8080_8080_8080;

const _: () = assert!(MAX_SCAN_WAYS <= 64 && (END as u64) >= MAX_SCAN_WAYS);

/// The high bit of each byte of `word` that equals `byte`, exactly (no false
/// positives: no carry crosses a byte).
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (u64::from(byte) * LANES);
    !(((x & !HIGH) + !HIGH) | x) & HIGH
}

/// Bit `w` set for each byte `w` of `words` (byte `w % 8` of word `w / 8`) that equals
/// `byte`, exactly.
///
/// On x86-64, 16 bytes at a time by SSE2 (part of every x86-64 processor): a byte-wise
/// compare and the gathering of its lanes' high bits are one instruction each. Elsewhere
/// word by word with [`bytes_equal`] and [`gather_high_bits`].
#[inline(always)]
fn matching_ways<const K: usize>(words: &[u64; K], byte: u8) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if K >= 2 {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let mut ways = 0;
        for pair in 0..K / 2 {
            // SAFETY: words `2 * pair` and `2 * pair + 1` lie in `words` (`K` is even
            // here, a power of two of at least 2), so the 16 bytes read from the first
            // are `words`' own; `_mm_loadu_si128` needs no alignment; SSE2 is enabled
            // (the `cfg` above).
            let equal = unsafe {
                let chunk = _mm_loadu_si128(words.as_ptr().add(2 * pair).cast());
                _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(byte as i8)))
            };
            ways |= u64::from(equal as u16) << (16 * pair);
        }
        return ways;
    }
    let mut ways = 0;
    for (i, &word) in words.iter().enumerate() {
        ways |= gather_high_bits(bytes_equal(word, byte)) << (8 * i);
    }
    ways
}

/// The high bits of the bytes of `word`, which has no other bit set, as the low 8 bits
/// of the result (bit `i` from byte `i`).
///
/// Shifted down, each byte is 0 or 1, and the multiplication adds byte `i`'s bit,
/// `8 i`, to `56 - 7 i`, so it lands on bit `56 + i`; every other product lands
/// elsewhere, below bit 56 with no carry into it (checked for all 256 patterns by the
/// tests).
#[inline(always)]
fn gather_high_bits(word: u64) -> u64 {
    debug_assert_eq!(word & !HIGH, 0);
    (word >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Byte `lane` of `word`.
#[inline(always)]
fn byte(word: u64, lane: usize) -> u8 {
    (word >> (8 * lane)) as u8
}

/// `word` with byte `lane` replaced by `value`.
#[inline(always)]
fn with_byte(word: u64, lane: usize, value: u8) -> u64 {
    word & !(0xFF << (8 * lane)) | u64::from(value) << (8 * lane)
}

/// A line's fingerprint: 7 bits of a Fibonacci hash, with the high bit set so that it
/// never equals a free way's 0. Lines of one set differ by multiples of the set count;
/// the multiplication spreads those over the top bits.
#[inline(always)]
fn fingerprint(line: u64) -> u8 {
    (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as u8 | 0x80
}

impl<const K: usize> Sets<K> {
    fn new(index: SetIndex, ways: usize) -> Sets<K> {
        // The links' masked index needs `8 * K` a power of two.
        const { assert!(K.is_power_of_two() && K <= 8) };
        debug_assert!(ways >= 1 && ways <= 8 * K && (K == 1 || ways > 4 * K));
        let sets = index.sets as usize;
        Sets {
            index,
            ways,
            held: 0,
            blocks: vec![Block::EMPTY; sets],
            tags: vec![0; sets * ways],
        }
    }

    /// Where way `way` of set `set` keeps its tag in `tags`.
    #[inline(always)]
    fn tag(&self, set: usize, way: usize) -> usize {
        way * self.index.sets as usize + set
    }

    /// The way of set `set` that holds `line`, if any.
    ///
    /// The ways whose fingerprint matches come as one mask ([`matching_ways`]), with no
    /// branch per word of fingerprints: where a hit's way lies among the words is as
    /// random as the walk. Two passes of `cache_walk`'s random walk over its hierarchy
    /// (2 M accesses, with the trace's making) mispredicted 3.99 M conditional
    /// branches with a test per word, and 2.12 M now (`valgrind --tool=cachegrind
    /// --branch-sim=yes`); most of those left are the hits and misses themselves.
    #[inline(always)]
    fn way(&self, set: usize, line: u64) -> Option<usize> {
        let mut candidates = matching_ways(&self.blocks[set].fingerprints, fingerprint(line));
        while candidates != 0 {
            let way = candidates.trailing_zeros() as usize;
            if self.tags[self.tag(set, way)] == line {
                return Some(way);
            }
            candidates &= candidates - 1;
        }
        None
    }

    /// `line`'s set and way, if present.
    #[inline(always)]
    fn position(&self, line: u64) -> Option<(usize, usize)> {
        let set = self.index.of(line);
        let way = self.way(set, line)?;
        Some((set, way))
    }

    #[inline(always)]
    fn access(&mut self, line: u64) -> Lookup {
        let set = self.index.of(line);
        let found = self.way(set, line);
        let block = &mut self.blocks[set];
        if let Some(way) = found {
            let way = way as u8;
            if block.head != way {
                block.move_to_head(way);
            }
            return Lookup::Hit;
        }
        Lookup::Miss {
            evicted: self.miss(set, line),
        }
    }

    /// Fills `line`, absent, into `set`; returns the evicted line, if any.
    #[inline(always)]
    fn miss(&mut self, set: usize, line: u64) -> Option<u64> {
        let ways = self.ways;
        let sets = self.index.sets as usize;
        let block = &mut self.blocks[set];
        let held = usize::from(block.held);
        let (way, evicted) = if held < ways {
            // A free way.
            block.held += 1;
            self.held += 1;
            block.push_head(held as u8);
            (held as u8, None)
        } else {
            // A full set: the least recently used way makes room.
            let victim = block.tail_to_head();
            (victim, Some(self.tags[usize::from(victim) * sets + set]))
        };
        let (i, lane) = (usize::from(way / 8), usize::from(way % 8));
        block.fingerprints[i] = with_byte(block.fingerprints[i], lane, fingerprint(line));
        self.tags[usize::from(way) * sets + set] = line;
        evicted
    }

    fn invalidate(&mut self, line: u64) -> bool {
        let Some((set, way)) = self.position(line) else {
            return false;
        };
        let hole = self.tag(set, way);
        let moved = self.tag(set, usize::from(self.blocks[set].held) - 1);
        let block = &mut self.blocks[set];
        let way = way as u8;
        if block.held == 1 {
            block.head = END;
        } else {
            block.unlink(way);
        }
        block.held -= 1;
        self.held -= 1;
        // The last valid way moves into the hole, keeping the valid ways first; its
        // neighbours on the list follow it.
        let last = block.held;
        let (j, from) = (usize::from(last / 8), usize::from(last % 8));
        if last != way {
            self.tags[hole] = self.tags[moved];
            let (i, lane) = (usize::from(way / 8), usize::from(way % 8));
            let fp = byte(block.fingerprints[j], from);
            block.fingerprints[i] = with_byte(block.fingerprints[i], lane, fp);
            block.move_links(last, way);
        }
        block.fingerprints[j] = with_byte(block.fingerprints[j], from, 0);
        true
    }

    fn clear(&mut self) {
        self.blocks.fill(Block::EMPTY);
        self.held = 0;
    }

    /// Set `set`'s valid lines, most recently used first.
    fn contents(&self, set: usize) -> Vec<u64> {
        let block = &self.blocks[set];
        let mut lines = Vec::with_capacity(usize::from(block.held));
        let mut way = block.head;
        for _ in 0..block.held {
            lines.push(self.tags[self.tag(set, usize::from(way))]);
            way = block.older[way];
        }
        debug_assert!(block.held == 0 || way == block.head, "the list is a circle");
        lines
    }
}

/// The null link between hashed nodes, and the empty table slot.
const NIL: u32 = u32::MAX;

/// The hashed representation: a line-to-node table and one LRU list per set.
#[derive(Clone)]
struct Hashed {
    index: SetIndex,
    ways: u32,
    /// Valid lines held, over all sets.
    held: usize,
    /// Set `s` owns nodes `s * ways..(s + 1) * ways`, each either on its LRU list or on
    /// its free list.
    nodes: Vec<Node>,
    lists: Vec<List>,
    table: Table,
}

/// One way of a hashed set.
#[derive(Clone, Copy)]
struct Node {
    line: u64,
    /// Towards the most recently used end; unused on the free list.
    prev: u32,
    /// Towards the least recently used end, or the next free node.
    next: u32,
}

/// One hashed set's LRU list (most recently used at `head`) and free list.
#[derive(Clone, Copy)]
struct List {
    head: u32,
    tail: u32,
    free: u32,
}

impl Hashed {
    fn new(index: SetIndex, ways: u32) -> Hashed {
        let lines = index.sets * u64::from(ways);
        let mut hashed = Hashed {
            index,
            ways,
            held: 0,
            nodes: vec![
                Node {
                    line: 0,
                    prev: NIL,
                    next: NIL,
                };
                lines as usize
            ],
            lists: vec![
                List {
                    head: NIL,
                    tail: NIL,
                    free: NIL,
                };
                index.sets as usize
            ],
            table: Table::new(lines),
        };
        hashed.free_all();
        hashed
    }

    /// Empties every LRU list and puts every node on its set's free list.
    fn free_all(&mut self) {
        let ways = self.ways as usize;
        for (set, list) in self.lists.iter_mut().enumerate() {
            let first = set * ways;
            for (i, node) in self.nodes[first..][..ways].iter_mut().enumerate() {
                node.next = if i + 1 < ways {
                    (first + i + 1) as u32
                } else {
                    NIL
                };
            }
            *list = List {
                head: NIL,
                tail: NIL,
                free: first as u32,
            };
        }
        self.held = 0;
    }

    #[inline]
    fn access(&mut self, line: u64) -> Lookup {
        let set = self.index.of(line);
        if let Some(node) = self.table.find(line) {
            if self.lists[set].head != node {
                self.unlink(set, node);
                self.push_front(set, node);
            }
            return Lookup::Hit;
        }
        Lookup::Miss {
            evicted: self.miss(set, line),
        }
    }

    /// Fills `line`, absent, into `set`; returns the evicted line, if any.
    #[inline]
    fn miss(&mut self, set: usize, line: u64) -> Option<u64> {
        let free = self.lists[set].free;
        let (node, evicted) = if free != NIL {
            self.lists[set].free = self.nodes[free as usize].next;
            self.held += 1;
            (free, None)
        } else {
            let lru = self.lists[set].tail;
            let old = self.nodes[lru as usize].line;
            self.unlink(set, lru);
            self.table.remove(old);
            (lru, Some(old))
        };
        self.nodes[node as usize].line = line;
        self.push_front(set, node);
        self.table.insert(line, node);
        evicted
    }

    fn invalidate(&mut self, line: u64) -> bool {
        let Some(node) = self.table.remove(line) else {
            return false;
        };
        let set = self.index.of(line);
        self.unlink(set, node);
        self.nodes[node as usize].next = self.lists[set].free;
        self.lists[set].free = node;
        self.held -= 1;
        true
    }

    fn clear(&mut self) {
        if self.held > 0 {
            self.table.clear();
            self.free_all();
        }
    }

    fn contents(&self, set: usize) -> Vec<u64> {
        let mut lines = Vec::new();
        let mut node = self.lists[set].head;
        while node != NIL {
            lines.push(self.nodes[node as usize].line);
            node = self.nodes[node as usize].next;
        }
        lines
    }

    /// Takes `node` off `set`'s LRU list.
    #[inline(always)]
    fn unlink(&mut self, set: usize, node: u32) {
        let Node { prev, next, .. } = self.nodes[node as usize];
        match prev {
            NIL => self.lists[set].head = next,
            prev => self.nodes[prev as usize].next = next,
        }
        match next {
            NIL => self.lists[set].tail = prev,
            next => self.nodes[next as usize].prev = prev,
        }
    }

    /// Makes `node`, on no list, the most recently used of `set`.
    #[inline(always)]
    fn push_front(&mut self, set: usize, node: u32) {
        let head = self.lists[set].head;
        self.nodes[node as usize].prev = NIL;
        self.nodes[node as usize].next = head;
        match head {
            NIL => self.lists[set].tail = node,
            head => self.nodes[head as usize].prev = node,
        }
        self.lists[set].head = node;
    }
}

/// An open-addressing map from line to node: linear probing, Fibonacci hashing,
/// backward-shift deletion (no tombstones), at least twice as many slots as lines.
#[derive(Clone)]
struct Table {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the hash is the top bits of the product.
    shift: u32,
}

/// A table slot; empty when `node` is [`NIL`].
#[derive(Clone, Copy)]
struct Slot {
    line: u64,
    node: u32,
}

const EMPTY: Slot = Slot { line: 0, node: NIL };

impl Table {
    fn new(lines: u64) -> Table {
        let len = (2 * lines).next_power_of_two().max(2);
        Table {
            slots: vec![EMPTY; len as usize],
            shift: 64 - len.trailing_zeros(),
        }
    }

    /// `line`'s preferred slot.
    #[inline(always)]
    fn home(&self, line: u64) -> usize {
        // 2^64 / golden ratio: consecutive lines land far apart (Knuth, TAOCP 6.4).
        (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `line`, if any.
    #[inline(always)]
    fn slot(&self, line: u64) -> Option<usize> {
        let mut at = self.home(line);
        loop {
            let slot = self.slots[at];
            if slot.node == NIL {
                return None;
            }
            if slot.line == line {
                return Some(at);
            }
            at = (at + 1) & self.mask();
        }
    }

    #[inline(always)]
    fn find(&self, line: u64) -> Option<u32> {
        self.slot(line).map(|at| self.slots[at].node)
    }

    /// Maps `line`, which is absent, to `node`.
    #[inline(always)]
    fn insert(&mut self, line: u64, node: u32) {
        let mut at = self.home(line);
        while self.slots[at].node != NIL {
            at = (at + 1) & self.mask();
        }
        self.slots[at] = Slot { line, node };
    }

    /// Unmaps `line`, returning its node if it was present.
    fn remove(&mut self, line: u64) -> Option<u32> {
        let mut hole = self.slot(line)?;
        let node = self.slots[hole].node;
        // Backward shift: pull later entries of the probe run into the hole unless
        // their home lies cyclically in (hole, at], where they already are reachable.
        let mask = self.mask();
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let slot = self.slots[at];
            if slot.node == NIL {
                break;
            }
            let home = self.home(slot.line);
            let reachable = if hole <= at {
                hole < home && home <= at
            } else {
                hole < home || home <= at
            };
            if !reachable {
                self.slots[hole] = slot;
                hole = at;
            }
        }
        self.slots[hole] = EMPTY;
        Some(node)
    }

    fn clear(&mut self) {
        self.slots.fill(EMPTY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_task::rng::XorShift64Star;

    const MISS: Lookup = Lookup::Miss { evicted: None };

    fn evicts(line: u64) -> Lookup {
        Lookup::Miss {
            evicted: Some(line),
        }
    }

    /// A cache of `lines` 64-byte lines with `ways` ways.
    fn cache(lines: u64, ways: u32) -> Cache {
        Cache::new(Geometry {
            size: lines * 64,
            line_size: 64,
            ways,
        })
        .unwrap()
    }

    fn is_hashed(cache: &Cache) -> bool {
        matches!(cache.repr, Repr::Hashed(_))
    }

    /// Accesses each line in turn, checking each result against `expected`.
    fn check(cache: &mut Cache, sequence: &[(u64, Lookup)]) {
        for (i, &(line, want)) in sequence.iter().enumerate() {
            assert_eq!(cache.access(line), want, "access #{i} of line {line}");
        }
    }

    /// (hits, misses) of accessing `lines` in order.
    fn count(cache: &mut Cache, lines: impl IntoIterator<Item = u64>) -> (u64, u64) {
        let (mut hits, mut misses) = (0, 0);
        for line in lines {
            match cache.access(line) {
                Lookup::Hit => hits += 1,
                Lookup::Miss { .. } => misses += 1,
            }
        }
        (hits, misses)
    }

    #[test]
    fn opteron_geometries() {
        let l1 = Geometry {
            size: 64 << 10,
            line_size: 64,
            ways: 2,
        };
        assert_eq!((l1.lines(), l1.ways(), l1.sets()), (1024, 2, 512));
        let l2 = Geometry {
            size: 512 << 10,
            line_size: 64,
            ways: 16,
        };
        assert_eq!((l2.lines(), l2.ways(), l2.sets()), (8192, 16, 512));
        let l3 = Geometry {
            size: 6 << 20,
            line_size: 64,
            ways: 48,
        };
        assert_eq!((l3.lines(), l3.ways(), l3.sets()), (98304, 48, 2048));
        assert!(!l3.is_fully_associative());
        assert!(!is_hashed(&Cache::new(l3).unwrap()));
        let full = Geometry { ways: 0, ..l3 };
        assert!(full.is_fully_associative());
        assert_eq!((full.ways(), full.sets()), (98304, 1));
        assert!(is_hashed(&Cache::new(full).unwrap()));
        // ways at or above the line count also mean one set.
        for ways in [8, 9, 1000] {
            let g = Geometry {
                size: 8 * 64,
                line_size: 64,
                ways,
            };
            assert!(g.is_fully_associative());
            assert_eq!((g.ways(), g.sets()), (8, 1));
        }
    }

    #[test]
    fn direct_mapped_conflicts() {
        // 4 sets of 1 way: lines 0 and 4 share set 0, 1 and 5 share set 1.
        let mut c = cache(4, 1);
        assert_eq!(c.geometry().sets(), 4);
        check(
            &mut c,
            &[
                (0, MISS),
                (4, evicts(0)),
                (0, evicts(4)),
                (4, evicts(0)),
                (1, MISS),
                (1, Lookup::Hit),
                (5, evicts(1)),
                (2, MISS),
                (2, Lookup::Hit),
                (4, Lookup::Hit),
            ],
        );
        // 0 and 4 ping-pong: every access misses; 2 and 3 in their own sets hit.
        let (hits, misses) = count(&mut c, [0, 4, 0, 4, 2, 3, 3, 2]);
        assert_eq!((hits, misses), (3, 5));
        assert_eq!(c.len(), 4);
        assert_eq!(c.set_contents(0), [4]);
        assert_eq!(c.set_contents(1), [5]);
    }

    #[test]
    fn two_way_lru() {
        // 4 sets of 2 ways; set 0 holds lines 0, 4, 8, 12, ...
        let mut c = cache(8, 2);
        check(&mut c, &[(0, MISS), (4, MISS)]);
        assert_eq!(c.set_contents(0), [4, 0]);
        check(&mut c, &[(0, Lookup::Hit)]);
        assert_eq!(c.set_contents(0), [0, 4]);
        // 4 is now LRU, so 8 evicts it, not 0.
        check(&mut c, &[(8, evicts(4))]);
        assert_eq!(c.set_contents(0), [8, 0]);
        check(
            &mut c,
            &[(12, evicts(0)), (8, Lookup::Hit), (0, evicts(12))],
        );
        assert_eq!(c.set_contents(0), [0, 8]);
        // Other sets are untouched.
        assert!(c.set_contents(1).is_empty());
        check(&mut c, &[(1, MISS), (5, MISS), (9, evicts(1))]);
        assert_eq!(c.set_contents(1), [9, 5]);
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn four_way_lru() {
        // 2 sets of 4 ways; set 1 holds the odd lines.
        let mut c = cache(8, 4);
        check(&mut c, &[(1, MISS), (3, MISS), (5, MISS), (7, MISS)]);
        assert_eq!(c.set_contents(1), [7, 5, 3, 1]);
        check(&mut c, &[(3, Lookup::Hit)]);
        assert_eq!(c.set_contents(1), [3, 7, 5, 1]);
        check(&mut c, &[(1, Lookup::Hit)]);
        assert_eq!(c.set_contents(1), [1, 3, 7, 5]);
        check(&mut c, &[(9, evicts(5))]);
        assert_eq!(c.set_contents(1), [9, 1, 3, 7]);
        check(
            &mut c,
            &[(11, evicts(7)), (3, Lookup::Hit), (13, evicts(1))],
        );
        assert_eq!(c.set_contents(1), [13, 3, 11, 9]);
        assert!(c.set_contents(0).is_empty());
        // Hitting the MRU line changes nothing.
        check(&mut c, &[(13, Lookup::Hit)]);
        assert_eq!(c.set_contents(1), [13, 3, 11, 9]);
    }

    #[test]
    fn fully_associative_small() {
        let mut c = cache(4, 0);
        assert!(!is_hashed(&c));
        // Cycling over capacity + 1 lines: LRU always evicts the next line wanted.
        check(
            &mut c,
            &[
                (0, MISS),
                (1, MISS),
                (2, MISS),
                (3, MISS),
                (4, evicts(0)),
                (0, evicts(1)),
                (1, evicts(2)),
            ],
        );
        let (hits, misses) = count(&mut c, (0..15).map(|i| (i + 2) % 5));
        assert_eq!((hits, misses), (0, 15));
        // Cycling over capacity lines: 4 cold misses, then hits.
        c.clear();
        assert!(c.is_empty());
        let (hits, misses) = count(&mut c, (0..12).map(|i| i % 4));
        assert_eq!((hits, misses), (8, 4));
        assert_eq!(c.set_contents(0), [3, 2, 1, 0]);
    }

    #[test]
    fn fully_associative_large_hashed() {
        let mut c = cache(1000, 0);
        assert!(is_hashed(&c));
        assert_eq!(c.geometry().sets(), 1);
        // Capacity + 1 lines cycled 3 times: 3003 misses; from the 1001st access on,
        // each evicts the line accessed 1000 accesses before it.
        for i in 0..3003u64 {
            let want = if i < 1000 {
                MISS
            } else {
                evicts((i - 1000) % 1001)
            };
            assert_eq!(c.access(i % 1001), want, "access #{i}");
        }
        assert_eq!(c.len(), 1000);
        // Capacity lines cycled 3 times: 1000 cold misses, then 2000 hits.
        c.clear();
        assert!(c.is_empty());
        assert_eq!(count(&mut c, (0..3000).map(|i| i % 1000)), (2000, 1000));
        let contents = c.set_contents(0);
        assert_eq!(contents.len(), 1000);
        assert_eq!(contents[..3], [999, 998, 997]);
        // A hit refreshes recency: touching 0 makes 1 the victim.
        check(&mut c, &[(0, Lookup::Hit), (5000, evicts(1))]);
        assert_eq!(c.set_contents(0)[..3], [5000, 0, 999]);
    }

    #[test]
    fn hashed_many_sets() {
        // 3 sets of 100 ways: hashed, with a non-power-of-two set count.
        let mut c = cache(300, 100);
        assert!(is_hashed(&c));
        assert_eq!(c.geometry().sets(), 3);
        // Set 2 gets lines 2, 5, 8, ...: 101 of them overflow it by one.
        for k in 0..100 {
            assert_eq!(c.access(2 + 3 * k), MISS);
        }
        check(&mut c, &[(2, Lookup::Hit), (302, evicts(5)), (0, MISS)]);
        assert_eq!(c.set_contents(2)[..3], [302, 2, 299]);
        assert_eq!(c.set_contents(0), [0]);
        assert!(c.set_contents(1).is_empty());
        assert_eq!(c.len(), 101);
    }

    #[test]
    fn invalidate_frees_a_way() {
        for mut c in [cache(8, 2), cache(300, 100)] {
            let sets = c.geometry().sets();
            let ways = c.geometry().ways();
            // Fill set 0 with `ways` lines: 0, sets, 2 * sets, ...
            let line = |k: u64| k * sets;
            for k in 0..ways {
                assert_eq!(c.access(line(k)), MISS);
            }
            let full = c.set_contents(0);
            assert_eq!(full.len() as u64, ways);
            // contains() sees every line and changes no recency.
            assert!(c.contains(line(0)) && c.contains(line(ways - 1)));
            assert!(!c.contains(line(ways)));
            assert_eq!(c.set_contents(0), full);
            // line(0) is LRU; invalidating it frees its way, so the next fill evicts
            // nothing and the next one after that evicts the new LRU, line(1).
            assert!(c.invalidate(line(0)));
            assert!(!c.contains(line(0)));
            assert!(!c.invalidate(line(0)), "already gone");
            assert!(!c.invalidate(line(ways + 7)), "never present");
            assert_eq!(c.len() as u64, ways - 1);
            assert_eq!(c.access(line(ways)), MISS);
            assert_eq!(c.access(line(ways + 1)), evicts(line(1)));
            // Invalidating the MRU line leaves the rest in order.
            let before = c.set_contents(0);
            assert!(c.invalidate(line(ways + 1)));
            assert_eq!(c.set_contents(0), before[1..]);
            assert_eq!(c.fill(line(ways + 2)), None);
            assert_eq!(c.fill(line(ways + 3)), Some(line(2)));
        }
    }

    #[test]
    fn fill_present_only_refreshes() {
        let mut c = cache(4, 0);
        assert_eq!(c.fill(0), None);
        assert_eq!(c.fill(1), None);
        assert_eq!(c.fill(2), None);
        assert_eq!(c.fill(3), None);
        assert_eq!(c.fill(0), None, "present: no eviction");
        assert_eq!(c.set_contents(0), [0, 3, 2, 1]);
        assert_eq!(c.fill(4), Some(1));
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn geometry_errors() {
        let ok = Geometry {
            size: 64 << 10,
            line_size: 64,
            ways: 2,
        };
        assert!(Cache::new(ok).is_ok());
        let cases = [
            (
                Geometry { size: 0, ..ok },
                GeometryError::ZeroSize,
                "0 bytes",
            ),
            (
                Geometry { line_size: 0, ..ok },
                GeometryError::LineSize { line_size: 0 },
                "line size 0 bytes",
            ),
            (
                Geometry {
                    line_size: 48,
                    ..ok
                },
                GeometryError::LineSize { line_size: 48 },
                "line size 48 bytes",
            ),
            (
                Geometry { size: 1000, ..ok },
                GeometryError::SizeNotLineMultiple {
                    size: 1000,
                    line_size: 64,
                },
                "1000 bytes",
            ),
            (
                Geometry { size: 32, ..ok },
                GeometryError::SizeNotLineMultiple {
                    size: 32,
                    line_size: 64,
                },
                "size 32 bytes",
            ),
            (
                Geometry { ways: 3, ..ok },
                GeometryError::WaysNotDividingLines {
                    lines: 1024,
                    ways: 3,
                },
                "1024 lines do not split into sets of 3 ways",
            ),
            (
                Geometry {
                    size: 1 << 40,
                    line_size: 1,
                    ways: 0,
                },
                GeometryError::TooManyLines { lines: 1 << 40 },
                "1099511627776 lines",
            ),
        ];
        for (geometry, error, text) in cases {
            let got = Cache::new(geometry).unwrap_err();
            assert_eq!(got, error, "{geometry:?}");
            let message = got.to_string();
            assert!(message.contains(text), "{message:?} lacks {text:?}");
        }
    }

    #[test]
    fn clone_is_independent_and_debug_is_short() {
        let mut a = cache(1000, 0);
        a.access(7);
        let mut b = a.clone();
        b.access(8);
        assert_eq!((a.len(), b.len()), (1, 2));
        assert_eq!(a.set_contents(0), [7]);
        let debug = format!("{a:?}");
        assert!(
            debug.contains("hashed") && debug.contains("len: 1"),
            "{debug}"
        );
    }

    /// An obviously correct LRU cache: per set, an unordered list of (line, last use);
    /// the victim is the smallest stamp.
    struct Reference {
        sets: Vec<Vec<(u64, u64)>>,
        ways: usize,
        clock: u64,
    }

    impl Reference {
        fn new(geometry: Geometry) -> Reference {
            Reference {
                sets: vec![Vec::new(); geometry.sets() as usize],
                ways: geometry.ways() as usize,
                clock: 0,
            }
        }

        fn set(&mut self, line: u64) -> &mut Vec<(u64, u64)> {
            let n = self.sets.len() as u64;
            &mut self.sets[(line % n) as usize]
        }

        fn access(&mut self, line: u64) -> Lookup {
            self.clock += 1;
            let (clock, ways) = (self.clock, self.ways);
            let set = self.set(line);
            if let Some(entry) = set.iter_mut().find(|e| e.0 == line) {
                entry.1 = clock;
                return Lookup::Hit;
            }
            let mut evicted = None;
            if set.len() == ways {
                let lru = (0..set.len()).min_by_key(|&i| set[i].1).unwrap();
                evicted = Some(set.swap_remove(lru).0);
            }
            set.push((line, clock));
            Lookup::Miss { evicted }
        }

        fn contains(&mut self, line: u64) -> bool {
            self.set(line).iter().any(|e| e.0 == line)
        }

        fn invalidate(&mut self, line: u64) -> bool {
            let set = self.set(line);
            let Some(at) = set.iter().position(|e| e.0 == line) else {
                return false;
            };
            set.swap_remove(at);
            true
        }

        fn contents(&self, set: usize) -> Vec<u64> {
            let mut entries = self.sets[set].clone();
            entries.sort_by_key(|e| std::cmp::Reverse(e.1));
            entries.into_iter().map(|e| e.0).collect()
        }

        fn len(&self) -> usize {
            self.sets.iter().map(Vec::len).sum()
        }
    }

    fn assert_same(cache: &Cache, reference: &Reference, when: &str) {
        assert_eq!(cache.len(), reference.len(), "len {when}");
        for set in 0..reference.sets.len() {
            assert_eq!(
                cache.set_contents(set as u64),
                reference.contents(set),
                "set {set} {when}"
            );
        }
    }

    #[test]
    fn swar_bytes_match_bytewise() {
        let mut rng = XorShift64Star::new(0x5EED_B17E5);
        for _ in 0..20_000 {
            let word = rng.next_u64();
            let probe = rng.next_u64() as u8;
            let want_equal = (0..8).fold(0, |m, i| {
                m | (u64::from(byte(word, i) == probe) << (8 * i + 7))
            });
            assert_eq!(bytes_equal(word, probe), want_equal, "{word:#x} {probe:#x}");
            let lane = (probe % 8) as usize;
            assert_eq!(byte(with_byte(word, lane, probe), lane), probe);
            assert_eq!(with_byte(word, lane, byte(word, lane)), word);
        }
    }

    #[test]
    fn high_bits_gather_into_a_byte() {
        for bits in 0..=255u64 {
            let word = (0..8).fold(0, |w, i| w | ((bits >> i & 1) << (8 * i + 7)));
            assert_eq!(gather_high_bits(word), bits, "{word:#x}");
        }
    }

    /// [`matching_ways`] for `K` words, against a byte-by-byte comparison, on random
    /// words with some bytes set to the probe.
    fn check_matching_ways<const K: usize>(rng: &mut XorShift64Star) {
        for _ in 0..5_000 {
            let probe = rng.next_u64() as u8;
            let mut words = [0u64; K];
            for word in &mut words {
                *word = rng.next_u64();
                for lane in 0..8 {
                    if rng.next_u64() % 4 == 0 {
                        *word = with_byte(*word, lane, probe);
                    }
                }
            }
            let want = (0..8 * K).fold(0, |m, w| {
                m | (u64::from(byte(words[w / 8], w % 8) == probe) << w)
            });
            assert_eq!(matching_ways(&words, probe), want, "{words:x?} {probe:#x}");
        }
    }

    #[test]
    fn matching_ways_match_bytewise() {
        let mut rng = XorShift64Star::new(0x5EED_3A5C);
        check_matching_ways::<1>(&mut rng);
        check_matching_ways::<2>(&mut rng);
        check_matching_ways::<4>(&mut rng);
        check_matching_ways::<8>(&mut rng);
    }

    #[test]
    fn matches_reference_model() {
        const SEED: u64 = 0x5EED_CAC4E;
        const OPS: usize = 100_000;
        // (lines, ways, line_size, first line): set counts with and without a power of
        // two, every word count of the scanned sets (1 to 8 words of 8 ways), both
        // sides of MAX_SCAN_WAYS, and line numbers near u64::MAX.
        let shapes: [(u64, u32, u32, u64); 20] = [
            (8, 1, 64, 0),
            (12, 2, 64, 0),
            (20, 4, 32, 0),
            (48, 8, 64, 0),
            (72, 9, 64, 0),
            (48, 16, 64, 1 << 40),
            (68, 17, 64, 0),
            (96, 32, 64, 0),
            (100, 25, 64, 0),
            (66, 33, 64, 0),
            (112, 56, 64, 0),
            (336, 48, 64, 0),
            (126, 63, 1, u64::MAX - 500),
            (64, 64, 64, 0),
            (4, 0, 64, 0),
            (65, 0, 64, 0),
            (1000, 0, 128, u64::MAX - 5000),
            (300, 100, 64, 0),
            (512, 128, 64, 0),
            (1024, 2, 64, u64::MAX - 3000),
        ];
        for (lines, ways, line_size, first) in shapes {
            let geometry = Geometry {
                size: lines * u64::from(line_size),
                line_size,
                ways,
            };
            let mut cache = Cache::new(geometry).unwrap();
            let mut reference = Reference::new(geometry);
            let mut rng = XorShift64Star::new(SEED ^ lines);
            println!("{geometry:?}: seed {SEED:#x}, hashed {}", is_hashed(&cache));
            for op in 0..OPS {
                let r = rng.next_u64();
                // Half the lines from a hot range that fits, half from twice capacity.
                let span = if r & 1 == 0 { lines / 2 } else { lines * 2 };
                let line = first.wrapping_add((r >> 8) % span);
                let what = format!("op {op} on line {line} in {geometry:?}");
                match (r >> 1) % 100 {
                    0..78 => assert_eq!(cache.access(line), reference.access(line), "{what}"),
                    78..80 if !reference.contains(line) => {
                        let want = match reference.access(line) {
                            Lookup::Hit => unreachable!("absent"),
                            Lookup::Miss { evicted } => evicted,
                        };
                        assert_eq!(cache.fill_absent(line), want, "fill_absent: {what}");
                    }
                    80..88 => {
                        let want = match reference.access(line) {
                            Lookup::Hit => None,
                            Lookup::Miss { evicted } => evicted,
                        };
                        assert_eq!(cache.fill(line), want, "fill: {what}");
                    }
                    88..95 => assert_eq!(
                        cache.invalidate(line),
                        reference.invalidate(line),
                        "invalidate: {what}"
                    ),
                    _ => assert_eq!(
                        cache.contains(line),
                        reference.contains(line),
                        "contains: {what}"
                    ),
                }
                if op == OPS / 2 {
                    assert_same(&cache, &reference, "before clear");
                    cache.clear();
                    reference = Reference::new(geometry);
                }
            }
            assert_same(&cache, &reference, "at the end");
        }
    }
}
