//! The affinity format's grammar (OpenMP 5.0; `affinity.rs` shows the lines): a format
//! is checked with the other settings (`OMP_AFFINITY_FORMAT`), and a line is rendered
//! from a thread's [`Values`].
//!
//! A format is text with fields `%[[[0].]size]type`: `type` one of `t` (team number),
//! `T` (number of teams), `L` (nesting level), `n` (thread number), `N` (team size),
//! `a` (the parent's thread number), `H` (host), `P` (process id), `i` (native thread
//! id: the kernel's thread id), `A` (the CPUs the thread may run on, as `0-3,8`), or
//! one of their long names in braces (`%{thread_num}`); `%%` is a `%`. A size pads the
//! field to that width, on the right unless `.` asks for right justification, with
//! zeros for `0.`; a size is at most [`MAX_WIDTH`]. The default is libgomp's:
//! `level %L thread %i affinity %A`.

/// The widest field a format may ask for: a line is made at every region's start, so a
/// width past this is taken for a mistake and refused, naming it, rather than padded
/// (libgomp pads to any width, and aborts when the padding cannot be allocated). A
/// guess: wider than any terminal.
pub(crate) const MAX_WIDTH: usize = 4096;

/// affinity-format-var until a setting or `omp_set_affinity_format` changes it.
pub(crate) const DEFAULT_FORMAT: &str = "level %L thread %i affinity %A";

/// The field types, by long name.
const LONG_NAMES: [(&str, char); 10] = [
    ("team_num", 't'),
    ("num_teams", 'T'),
    ("nesting_level", 'L'),
    ("thread_num", 'n'),
    ("num_threads", 'N'),
    ("ancestor_tnum", 'a'),
    ("host", 'H'),
    ("process_id", 'P'),
    ("native_thread_id", 'i'),
    ("thread_affinity", 'A'),
];

/// One piece of a parsed format.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Field {
        kind: char,
        /// Pad to this width, if given.
        width: Option<usize>,
        right: bool,
        zero: bool,
    },
}

/// Parses an affinity format; the error says what is wrong, and where.
pub(crate) fn parse(format: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        let mut next = || chars.next().map(|(_, c)| c);
        let mut c = next().ok_or(format!("a '%' at the end (byte {at})"))?;
        if c == '%' {
            text.push('%');
            continue;
        }
        let zero = c == '0';
        if zero {
            c = next().ok_or(format!("a field cut short at byte {at}"))?;
            if c != '.' {
                return Err(format!("a leading 0 not followed by '.' at byte {at}"));
            }
        }
        let right = c == '.';
        if right {
            c = next().ok_or(format!("a field cut short at byte {at}"))?;
        }
        let mut width = None;
        if c.is_ascii_digit() && c != '0' {
            let mut w = 0usize;
            while let Some(d) = c.to_digit(10) {
                w = w
                    .checked_mul(10)
                    .and_then(|w| w.checked_add(d as usize))
                    .filter(|&w| w <= MAX_WIDTH)
                    .ok_or(format!(
                        "a field width too large at byte {at} (at most {MAX_WIDTH})"
                    ))?;
                c = next().ok_or(format!("a field cut short at byte {at}"))?;
            }
            width = Some(w);
        } else if zero || right {
            return Err(format!(
                "a leading 0 or '.' needs a size after it (byte {at})"
            ));
        }
        let kind = if c == '{' {
            let mut name = String::new();
            loop {
                match next() {
                    Some('}') => break,
                    Some(c) => name.push(c),
                    None => return Err(format!("an unterminated long name at byte {at}")),
                }
            }
            LONG_NAMES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|&(_, k)| k)
                .ok_or(format!("'{name}' is not a field name (byte {at})"))?
        } else if LONG_NAMES.iter().any(|&(_, k)| k == c) {
            c
        } else {
            return Err(format!("'%{c}' is not a field (byte {at})"));
        };
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Field {
            kind,
            width,
            right,
            zero,
        });
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// Checks a format, for `OMP_AFFINITY_FORMAT` at start.
pub(crate) fn check(format: &str) -> Result<(), String> {
    parse(format).map(drop)
}

/// What the fields of one thread's line say.
#[derive(Debug, Clone)]
pub(crate) struct Values {
    pub(crate) team_num: i64,
    pub(crate) num_teams: i64,
    pub(crate) level: i64,
    pub(crate) thread_num: i64,
    pub(crate) num_threads: i64,
    pub(crate) ancestor: i64,
    pub(crate) host: String,
    pub(crate) pid: i64,
    pub(crate) tid: i64,
    pub(crate) cpus: String,
}

/// The line `format` makes of `v`.
pub(crate) fn render(pieces: &[Piece], v: &Values) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Field {
                kind,
                width,
                right,
                zero,
            } => {
                let number = |n: i64| (n.to_string(), true);
                let (value, numeric) = match kind {
                    't' => number(v.team_num),
                    'T' => number(v.num_teams),
                    'L' => number(v.level),
                    'n' => number(v.thread_num),
                    'N' => number(v.num_threads),
                    'a' => number(v.ancestor),
                    'P' => number(v.pid),
                    'i' => number(v.tid),
                    'H' => (v.host.clone(), false),
                    _ => (v.cpus.clone(), false),
                };
                let w = width.unwrap_or(0);
                let pad = w.saturating_sub(value.chars().count());
                if *zero && numeric {
                    let (sign, digits) = match value.strip_prefix('-') {
                        Some(d) => ("-", d),
                        None => ("", value.as_str()),
                    };
                    out.push_str(sign);
                    out.extend(std::iter::repeat_n('0', pad));
                    out.push_str(digits);
                } else if *right {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(&value);
                } else {
                    out.push_str(&value);
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Values {
        Values {
            team_num: 0,
            num_teams: 1,
            level: 1,
            thread_num: 3,
            num_threads: 4,
            ancestor: -1,
            host: "box".into(),
            pid: 4242,
            tid: 4250,
            cpus: "0-1".into(),
        }
    }

    fn line(format: &str) -> String {
        render(&parse(format).unwrap(), &values())
    }

    #[test]
    fn fields_are_filled_padded_and_justified() {
        assert_eq!(line(DEFAULT_FORMAT), "level 1 thread 4250 affinity 0-1");
        assert_eq!(
            line("%n/%N %{thread_num} %H %P 100%%"),
            "3/4 3 box 4242 100%"
        );
        assert_eq!(
            line("[%5n][%.5n][%0.5n][%0.4a][%.6A]"),
            "[3    ][    3][00003][-001][   0-1]"
        );
        assert_eq!(
            line("%{team_num} of %{num_teams}, parent %a"),
            "0 of 1, parent -1"
        );
        assert_eq!(line("%2{host}|"), "box|");
        assert_eq!(line(&format!("%{MAX_WIDTH}n")).len(), MAX_WIDTH);
        assert_eq!(line(""), "");
    }

    #[test]
    fn bad_formats_are_named() {
        for (format, says) in [
            ("%", "at the end"),
            ("%0n", "leading 0 not followed"),
            ("%.n", "needs a size"),
            ("%q", "'%q' is not a field"),
            ("%{thread}", "'thread' is not a field name"),
            ("%{thread_num", "unterminated"),
            ("%99999999999999999999999n", "too large"),
            ("%99999999999n", "at most 4096"),
            ("%4097n", "too large"),
            ("%5", "cut short"),
        ] {
            let e = parse(format).unwrap_err();
            assert!(e.contains(says), "{format}: {e}");
        }
    }
}
