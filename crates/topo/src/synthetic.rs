//! hwloc synthetic strings and the `SxC` / `SxCxT` shorthand.
//!
//! # Synthetic strings
//!
//! Space-separated levels from the outside in, each `type:count` optionally
//! followed by attributes in parentheses, separated by spaces or commas:
//! `pack:4 l3:1(size=6MB ways=48) core:4 pu:1` is 4 packages, each with one
//! 6,000,000-byte L3 over 4 cores of one PU. Types are case-insensitive:
//!
//! | level | spellings |
//! | --- | --- |
//! | NUMA node | `numa`, `node`, `numanode`; or hwloc 2's `[numa]`, meaning one node per object of the level before |
//! | package | `pack`, `package`, `socket` |
//! | grouping only | `group`, `die` (multiply the count, add no object) |
//! | cache | `l<N>` with N in 1..=5, optionally followed by `d` (data), `i` (instruction) or `u` (unified), optionally followed by `cache`: `l1`, `l1d`, `l1dcache`, `l1i`, `l2`, `l2cache`, `l3`, `L3Cache`. `l1` is an L1 data cache, `l2` and above are unified |
//! | core | `core` |
//! | PU | `pu` |
//!
//! Attributes: caches take `size=` (bytes; hwloc's units: no unit or `B` =
//! bytes, `kB`/`KB` = 1000, `MB` = 10^6, `GB` = 10^9, `TB` = 10^12, `KiB` = 1024,
//! `MiB`, `GiB`, `TiB` powers of 1024; units are case-insensitive), `linesize=`
//! and `ways=` (or `associativity=`). NUMA nodes take `memory=` with the same
//! units, which is kept in [`NumaNode::memory`](crate::NumaNode::memory).
//!
//! Rules, as in hwloc: counts are at least 1, and so are a cache's `size` and
//! `linesize` (`ways=0` is hwloc's "unknown"); the last level is `pu`, and it
//! appears once; `core` appears at most once and only `pu` may follow it;
//! `pack` and `numa` appear at most once; a package level comes before any
//! cache level; cache levels decrease from the outside in (`l1i` may follow
//! `l1d`). A string with no NUMA level has one NUMA node for the whole
//! machine; one with no `pack` has one package; one with no `core` makes each
//! PU its own core. At most [`MAX_PUS`] PUs and 64 levels.
//!
//! Caches without attributes get these defaults (a guess at a typical x86 server
//! core, not hwloc's: hwloc leaves the size 0): L1 32 KiB 8-way, L2 256 KiB 8-way,
//! L3 8 MiB 16-way, L4 and L5 128 MiB 16-way; lines of 64 bytes.
//!
//! # Shorthand
//!
//! `SxC` or `SxCxT` (`2x1`, `4x4`, `2x10x2`): S packages of C cores of T PUs
//! (default 1), one default-sized L3 per package, a private L2 and L1d per
//! core. `2x10x2` is the synthetic string `pack:2 l3:1 l2:10 l1d:1 core:1 pu:2`.
//!
//! Errors name the string, the byte offset in it and what was expected there.

use crate::builder::Builder;
use crate::error::TopoError;
use crate::model::{normalize, CacheAttrs, CacheKind, Topology, MAX_PUS};

/// Most levels a synthetic string may have (it bounds recursion).
const MAX_LEVELS: usize = 64;

/// Default line size of synthetic caches, in bytes.
const DEFAULT_LINE_SIZE: u32 = 64;

/// Default size and associativity of a synthetic cache of this level. A guess
/// at a typical x86 server core; documented in the module doc.
fn default_cache(level: u8) -> (u64, u32) {
    match level {
        1 => (32 << 10, 8),
        2 => (256 << 10, 8),
        3 => (8 << 20, 16),
        _ => (128 << 20, 16),
    }
}

/// What one level of a synthetic string creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LevelType {
    Numa,
    Package,
    Group,
    Cache(u8, CacheKind),
    Core,
    Pu,
}

impl LevelType {
    fn describe(self) -> String {
        match self {
            LevelType::Numa => "numa".into(),
            LevelType::Package => "pack".into(),
            LevelType::Group => "group".into(),
            LevelType::Cache(l, CacheKind::Data) => format!("l{l}d"),
            LevelType::Cache(l, CacheKind::Instruction) => format!("l{l}i"),
            LevelType::Cache(l, CacheKind::Unified) => format!("l{l}"),
            LevelType::Core => "core".into(),
            LevelType::Pu => "pu".into(),
        }
    }
}

/// One parsed level.
#[derive(Clone, Copy, Debug)]
struct Level {
    ty: LevelType,
    count: usize,
    /// Byte offset of the level's type in the input.
    offset: usize,
    /// Byte offset of its count (or of its type for `[numa]`).
    count_offset: usize,
    cache: Option<CacheAttrs>,
    memory: Option<u64>,
}

/// Recognises a level type, case-insensitively.
fn level_type(word: &str) -> Option<LevelType> {
    let w = word.to_ascii_lowercase();
    Some(match w.as_str() {
        "numa" | "node" | "numanode" => LevelType::Numa,
        "pack" | "package" | "socket" => LevelType::Package,
        "group" | "die" => LevelType::Group,
        "core" => LevelType::Core,
        "pu" => LevelType::Pu,
        _ => {
            let rest = w.strip_prefix('l')?;
            let digit = rest.as_bytes().first()?;
            let level = match digit {
                b'1'..=b'5' => digit - b'0',
                _ => return None,
            };
            let rest = rest.get(1..)?;
            let rest = rest.strip_suffix("cache").unwrap_or(rest);
            let kind = match rest {
                "" if level == 1 => CacheKind::Data,
                "" | "u" => CacheKind::Unified,
                "d" => CacheKind::Data,
                "i" => CacheKind::Instruction,
                _ => return None,
            };
            LevelType::Cache(level, kind)
        }
    })
}

const EXPECTED_TYPES: &str = "numa, pack, group, die, l1d, l1i, l2, l3, l4, core or pu";

/// A size with hwloc's units: `6MB` = 6,000,000, `6MiB` = 6,291,456.
/// The error says what is wrong, for `attribute '<name>' ...`.
pub fn parse_size(value: &str) -> Result<u64, String> {
    let digits_end = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (digits, unit) = value.split_at(digits_end);
    if digits.is_empty() {
        return Err(format!(
            "has no unit-valid number {value:?} (expected a number of bytes such as 6MB or 32KiB)"
        ));
    }
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("has a number too large: {digits}"))?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "has no unit-valid number: unknown unit {unit:?} in {value:?} (expected B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("is too large: {value} does not fit in 64 bits"))
}

/// Parses `value` as a small number for `linesize`/`ways`.
fn parse_u32(value: &str) -> Result<u32, String> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expects a whole number, found {value:?}"));
    }
    value.parse().map_err(|_| format!("is too large: {value}"))
}

/// A cursor over the input with error helpers.
struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, offset: usize, msg: impl std::fmt::Display) -> TopoError {
        TopoError::synthetic(self.input, offset, msg)
    }

    fn peek(&self) -> Option<u8> {
        self.input.as_bytes().get(self.pos).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Takes bytes while `f` holds; returns the slice and its offset.
    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> (&'a str, usize) {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
        // Only ASCII bytes are ever taken, so these are char boundaries.
        (self.input.get(start..self.pos).unwrap_or(""), start)
    }

    /// The character at the cursor, for messages.
    fn found(&self) -> String {
        match self.input.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => format!("found '{c}'"),
            None => "found the end of the string".into(),
        }
    }

    fn level(&mut self) -> Result<Level, TopoError> {
        let bracket = self.peek() == Some(b'[');
        if bracket {
            self.pos += 1;
        }
        let (word, offset) = self.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        if word.is_empty() {
            return Err(self.err(
                self.pos,
                format_args!(
                    "expected a level type such as 'pack' or 'core', {}",
                    self.found()
                ),
            ));
        }
        let ty = level_type(word).ok_or_else(|| {
            self.err(
                offset,
                format_args!("unknown level type '{word}' (expected {EXPECTED_TYPES})"),
            )
        })?;
        let mut level = Level {
            ty,
            count: 1,
            offset,
            count_offset: offset,
            cache: None,
            memory: None,
        };
        if let LevelType::Cache(l, kind) = ty {
            let (size, associativity) = default_cache(l);
            level.cache = Some(CacheAttrs {
                level: l,
                kind,
                size,
                line_size: DEFAULT_LINE_SIZE,
                associativity,
            });
        }
        if bracket {
            if ty != LevelType::Numa {
                return Err(self.err(
                    offset,
                    format_args!(
                        "only a NUMA node may be written in brackets, as '[numa]', found '{word}'"
                    ),
                ));
            }
        } else {
            if self.peek() != Some(b':') {
                return Err(self.err(
                    self.pos,
                    format_args!("expected ':' and a count after '{word}', {}", self.found()),
                ));
            }
            self.pos += 1;
            let (digits, count_offset) = self.take_while(|b| b.is_ascii_digit());
            level.count_offset = count_offset;
            if digits.is_empty() {
                return Err(self.err(
                    count_offset,
                    format_args!("expected a count after ':', {}", self.found()),
                ));
            }
            level.count = digits.parse().map_err(|_| {
                self.err(
                    count_offset,
                    format_args!("count {digits} is too large (at most {MAX_PUS} PUs in all)"),
                )
            })?;
            if level.count == 0 {
                return Err(self.err(count_offset, "count must be at least 1, found 0"));
            }
        }
        let before_attrs = self.pos;
        self.skip_spaces();
        if self.peek() == Some(b'(') {
            self.attributes(&mut level, word)?;
        } else {
            self.pos = before_attrs;
        }
        if bracket {
            if self.peek() != Some(b']') {
                return Err(self.err(
                    self.pos,
                    format_args!("expected ']' to close '[{word}', {}", self.found()),
                ));
            }
            self.pos += 1;
        }
        match self.peek() {
            None => {}
            Some(b) if b.is_ascii_whitespace() => {}
            Some(_) => {
                return Err(self.err(
                    self.pos,
                    format_args!("expected a space before the next level, {}", self.found()),
                ))
            }
        }
        Ok(level)
    }

    /// Parses `(name=value ...)` at the cursor into `level`.
    fn attributes(&mut self, level: &mut Level, word: &str) -> Result<(), TopoError> {
        let open = self.pos;
        self.pos += 1;
        let closed = self
            .input
            .get(self.pos..)
            .and_then(|rest| rest.find(')'))
            .is_some_and(|close| {
                !self
                    .input
                    .get(self.pos..self.pos + close)
                    .is_some_and(|a| a.contains('('))
            });
        if !closed {
            return Err(self.err(open, "unclosed '(' (expected ')' after the attributes)"));
        }
        loop {
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_whitespace() || b == b',')
            {
                self.pos += 1;
            }
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    return Ok(());
                }
                None => {
                    return Err(self.err(open, "unclosed '(' (expected ')' after the attributes)"))
                }
                Some(_) => {}
            }
            let (name, name_offset) = self.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
            if name.is_empty() {
                return Err(self.err(
                    self.pos,
                    format_args!("expected an attribute such as 'size=6MB', {}", self.found()),
                ));
            }
            if self.peek() != Some(b'=') {
                return Err(self.err(
                    self.pos,
                    format_args!("expected '=' after attribute '{name}', {}", self.found()),
                ));
            }
            self.pos += 1;
            let (value, value_offset) = self.take_while(|b| {
                !(b.is_ascii_whitespace() || b == b',' || b == b')' || b == b'(' || b == b']')
            });
            let name_lc = name.to_ascii_lowercase();
            let bad = |e: String| self.err(value_offset, format_args!("attribute '{name}' {e}"));
            match (&mut level.cache, name_lc.as_str()) {
                (Some(c), "size") => {
                    c.size = parse_size(value).map_err(bad)?;
                    if c.size == 0 {
                        return Err(bad("is 0: a cache holds at least one byte".into()));
                    }
                }
                (Some(c), "linesize") => {
                    c.line_size = parse_u32(value).map_err(bad)?;
                    if c.line_size == 0 {
                        return Err(bad("is 0: a cache line holds at least one byte".into()));
                    }
                }
                (Some(c), "ways" | "associativity") => {
                    c.associativity = parse_u32(value).map_err(bad)?
                }
                (None, "memory") if level.ty == LevelType::Numa => {
                    level.memory = Some(parse_size(value).map_err(bad)?)
                }
                (_, "indexes") => {
                    return Err(self.err(
                        name_offset,
                        "attribute 'indexes' is not supported (locus numbers objects itself)",
                    ))
                }
                _ => {
                    let expected = match level.ty {
                        LevelType::Cache(..) => "size, linesize or ways",
                        LevelType::Numa => "memory",
                        _ => "none: only caches and NUMA nodes take attributes",
                    };
                    return Err(self.err(
                        name_offset,
                        format_args!(
                            "unknown attribute '{name}' for level '{word}' (expected {expected})"
                        ),
                    ));
                }
            }
        }
    }
}

/// Parses a synthetic string into levels and checks hwloc's rules.
fn parse_levels(input: &str) -> Result<Vec<Level>, TopoError> {
    let mut p = Parser { input, pos: 0 };
    let mut levels: Vec<Level> = Vec::new();
    let mut total: usize = 1;
    loop {
        p.skip_spaces();
        if p.peek().is_none() {
            break;
        }
        let level = p.level()?;
        let name = level.ty.describe();
        if levels.len() >= MAX_LEVELS {
            return Err(p.err(level.offset, format_args!("more than {MAX_LEVELS} levels")));
        }
        if let Some(last) = levels.last() {
            match last.ty {
                LevelType::Pu => {
                    return Err(p.err(
                        level.offset,
                        format_args!("'pu' must be the last level, found '{name}' after it"),
                    ))
                }
                LevelType::Core if level.ty != LevelType::Pu => {
                    return Err(p.err(
                        level.offset,
                        format_args!("only 'pu' may follow 'core', found '{name}'"),
                    ))
                }
                _ => {}
            }
        }
        for prev in &levels {
            let dup = matches!(
                level.ty,
                LevelType::Core | LevelType::Pu | LevelType::Package | LevelType::Numa
            ) && prev.ty == level.ty;
            if dup {
                return Err(p.err(
                    level.offset,
                    format_args!("duplicated level '{name}' (it may appear only once)"),
                ));
            }
            if let (LevelType::Cache(pl, pk), LevelType::Cache(l, k)) = (prev.ty, level.ty) {
                let nested = l < pl
                    || (l == pl && k == CacheKind::Instruction && pk != CacheKind::Instruction);
                if !nested {
                    return Err(p.err(
                        level.offset,
                        format_args!(
                            "cache level '{name}' cannot be inside '{}' (cache levels decrease from outer to inner)",
                            prev.ty.describe()
                        ),
                    ));
                }
            }
            if level.ty == LevelType::Package && matches!(prev.ty, LevelType::Cache(..)) {
                return Err(p.err(
                    level.offset,
                    format_args!(
                        "'pack' must come before the cache levels, found it after '{}'",
                        prev.ty.describe()
                    ),
                ));
            }
        }
        total = match total.checked_mul(level.count) {
            Some(t) if t <= MAX_PUS => t,
            _ => {
                return Err(p.err(
                    level.count_offset,
                    format_args!("the machine would have more than {MAX_PUS} PUs"),
                ))
            }
        };
        levels.push(level);
    }
    match levels.last() {
        None => Err(p.err(
            p.pos,
            "expected a level such as 'pack:2', found an empty string",
        )),
        Some(l) if l.ty != LevelType::Pu => Err(p.err(
            p.pos,
            "expected a 'pu' level last, such as 'pu:1', found the end of the string",
        )),
        Some(_) => Ok(levels),
    }
}

/// Walks the levels depth-first into the builder.
fn expand(levels: &[Level], b: &mut Builder) {
    let Some((level, inner)) = levels.split_first() else {
        return;
    };
    for _ in 0..level.count {
        match level.ty {
            LevelType::Pu => {
                // The PU count was checked against MAX_PUS while parsing.
                let _ = b.pu();
                continue;
            }
            LevelType::Numa => {
                b.open_numa(level.memory, false);
            }
            LevelType::Package => b.open_package(),
            LevelType::Group => b.open_group(),
            LevelType::Cache(..) => match level.cache {
                Some(attrs) => b.open_cache(attrs),
                None => b.open_group(),
            },
            LevelType::Core => b.open_core(),
        }
        expand(inner, b);
        b.close();
    }
}

/// Builds a topology from a synthetic string or shorthand, named `name`.
pub(crate) fn build(input: &str, name: &str) -> Result<Topology, TopoError> {
    let levels = if input.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
        shorthand(input)?
    } else {
        parse_levels(input)?
    };
    let mut b = Builder::new(name, true);
    expand(&levels, &mut b);
    normalize(b.finish())
}

/// Parses `SxC` or `SxCxT` into the levels of
/// `pack:S l3:1 l2:C l1d:1 core:1 pu:T`.
fn shorthand(input: &str) -> Result<Vec<Level>, TopoError> {
    let mut p = Parser { input, pos: 0 };
    p.skip_spaces();
    let mut numbers: Vec<(usize, usize)> = Vec::new();
    loop {
        let (digits, offset) = p.take_while(|b| b.is_ascii_digit());
        if digits.is_empty() {
            return Err(p.err(
                offset,
                format_args!(
                    "expected a number in the shorthand SxC or SxCxT, {}",
                    p.found()
                ),
            ));
        }
        let n: usize = digits.parse().map_err(|_| {
            p.err(
                offset,
                format_args!("number {digits} is too large (at most {MAX_PUS} PUs in all)"),
            )
        })?;
        if n == 0 {
            return Err(p.err(offset, "count must be at least 1, found 0"));
        }
        numbers.push((n, offset));
        match p.peek() {
            Some(b'x' | b'X') if numbers.len() < 3 => p.pos += 1,
            Some(b'x' | b'X') => {
                return Err(p.err(p.pos, "expected at most three numbers (SxCxT)"));
            }
            _ => break,
        }
    }
    let end = p.pos;
    p.skip_spaces();
    if p.peek().is_some() || numbers.len() < 2 {
        let what = if numbers.len() < 2 {
            "'x' and a core count (shorthand SxC or SxCxT)"
        } else {
            "the end of the shorthand SxC or SxCxT"
        };
        return Err(p.err(end, format_args!("expected {what}, {}", p.found())));
    }
    let get = |i: usize| numbers.get(i).copied().unwrap_or((1, end));
    let (s, s_off) = get(0);
    let (c, c_off) = get(1);
    let (t, t_off) = get(2);
    let mut total: usize = 1;
    for (n, off) in [(s, s_off), (c, c_off), (t, t_off)] {
        total = match total.checked_mul(n) {
            Some(v) if v <= MAX_PUS => v,
            _ => {
                return Err(p.err(
                    off,
                    format_args!("the machine would have more than {MAX_PUS} PUs"),
                ))
            }
        };
    }
    let level = |ty: LevelType, count: usize, offset: usize| {
        let cache = match ty {
            LevelType::Cache(l, kind) => {
                let (size, associativity) = default_cache(l);
                Some(CacheAttrs {
                    level: l,
                    kind,
                    size,
                    line_size: DEFAULT_LINE_SIZE,
                    associativity,
                })
            }
            _ => None,
        };
        Level {
            ty,
            count,
            offset,
            count_offset: offset,
            cache,
            memory: None,
        }
    };
    Ok(vec![
        level(LevelType::Package, s, s_off),
        level(LevelType::Cache(3, CacheKind::Unified), 1, s_off),
        level(LevelType::Cache(2, CacheKind::Unified), c, c_off),
        level(LevelType::Cache(1, CacheKind::Data), 1, c_off),
        level(LevelType::Core, 1, c_off),
        level(LevelType::Pu, t, t_off),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_hwloc_units() {
        assert_eq!(parse_size("6MB"), Ok(6_000_000));
        assert_eq!(parse_size("6MiB"), Ok(6_291_456));
        assert_eq!(parse_size("32kB"), Ok(32_000));
        assert_eq!(parse_size("32KiB"), Ok(32_768));
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert!(parse_size("6XB").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("20000000TiB").is_err());
    }

    #[test]
    fn level_types() {
        assert_eq!(
            level_type("L3Cache"),
            Some(LevelType::Cache(3, CacheKind::Unified))
        );
        assert_eq!(level_type("l1"), Some(LevelType::Cache(1, CacheKind::Data)));
        assert_eq!(
            level_type("l1icache"),
            Some(LevelType::Cache(1, CacheKind::Instruction))
        );
        assert_eq!(level_type("Socket"), Some(LevelType::Package));
        assert_eq!(level_type("cor"), None);
        assert_eq!(level_type("l9"), None);
        assert_eq!(level_type("l"), None);
    }
}
