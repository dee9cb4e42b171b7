//! rayon's `ParallelString`: a `str`'s chars, bytes, pieces and matches in parallel.
//!
//! A string's positions are its bytes. A leaf's byte range is moved forward to char
//! boundaries (`l..h`), and the leaf gives what *starts* in it: the chars starting in
//! `l..h`, and for the splits, the pieces that follow the separators starting in `l..h`
//! (the first leaf also gives the piece before the first separator). A piece may run on
//! past `h`; the next leaf starts with the piece after its first separator, so every
//! piece is given once, in order. Patterns match single chars (as rayon's do), so
//! matches never overlap and a leaf finds the same separators a sequential scan does.
//!
//! Items per position vary, so these iterators are unindexed, except `par_bytes`.

use super::adapt::{Filter, Map};
use super::{IndexedParallelIterator, ParallelIterator};
use std::ops::Range;

/// What the splits and matches of [`ParallelString`] look for: one char that matches
/// (a `char`, a set of chars, or a predicate), as rayon's `Pattern`.
pub trait CharPattern: Send + Sync {
    /// Whether `c` matches.
    fn is_match(&self, c: char) -> bool;
}

impl CharPattern for char {
    fn is_match(&self, c: char) -> bool {
        *self == c
    }
}

impl CharPattern for &[char] {
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> CharPattern for [char; N] {
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> CharPattern for &[char; N] {
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Send + Sync> CharPattern for F {
    fn is_match(&self, c: char) -> bool {
        self(c)
    }
}

/// The first match of `pattern` in `s` at or after byte `from`: its byte range.
fn find(s: &str, from: usize, pattern: &impl CharPattern) -> Option<(usize, usize)> {
    s[from..]
        .char_indices()
        .find(|&(_, c)| pattern.is_match(c))
        .map(|(i, c)| (from + i, from + i + c.len_utf8()))
}

/// The first char boundary of `s` at or after `i`.
fn boundary(s: &str, i: usize) -> usize {
    (i..=s.len())
        .find(|&b| s.is_char_boundary(b))
        .unwrap_or(s.len())
}

/// A leaf's byte range moved to char boundaries.
fn leaf(s: &str, range: Range<usize>) -> Range<usize> {
    boundary(s, range.start)..boundary(s, range.end)
}

/// The methods of `str` that give parallel iterators (and of `String`, through
/// `Deref`).
pub trait ParallelString {
    /// The string.
    fn as_parallel_string(&self) -> &str;

    /// The chars.
    fn par_chars(&self) -> Chars<'_> {
        Chars {
            s: self.as_parallel_string(),
        }
    }

    /// The chars with their byte offsets.
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            s: self.as_parallel_string(),
        }
    }

    /// The bytes.
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            s: self.as_parallel_string(),
        }
    }

    /// The UTF-16 code units.
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            s: self.as_parallel_string(),
        }
    }

    /// The pieces between matches of `separator`, as std's `split`.
    fn par_split<P: CharPattern>(&self, separator: P) -> Split<'_, P> {
        Split::new(self.as_parallel_string(), separator, Mode::Split)
    }

    /// The pieces each ended by a match of `separator`, kept, as std's
    /// `split_inclusive`.
    fn par_split_inclusive<P: CharPattern>(&self, separator: P) -> Split<'_, P> {
        Split::new(self.as_parallel_string(), separator, Mode::Inclusive)
    }

    /// The pieces ended by matches of `terminator`, without a last empty one, as std's
    /// `split_terminator`.
    fn par_split_terminator<P: CharPattern>(&self, terminator: P) -> Split<'_, P> {
        Split::new(self.as_parallel_string(), terminator, Mode::Terminator)
    }

    /// The lines, without their `\n` or `\r\n`, as std's `lines`.
    fn par_lines(&self) -> Lines<'_> {
        let strip: fn(&str) -> &str = |line| {
            let Some(line) = line.strip_suffix('\n') else {
                return line;
            };
            line.strip_suffix('\r').unwrap_or(line)
        };
        Map::new(
            Split::new(self.as_parallel_string(), '\n', Mode::Inclusive),
            strip,
        )
    }

    /// The pieces between runs of whitespace, as std's `split_whitespace`.
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        let space: fn(char) -> bool = char::is_whitespace;
        let some: fn(&&str) -> bool = |piece| !piece.is_empty();
        Filter::new(
            Split::new(self.as_parallel_string(), space, Mode::Split),
            some,
        )
    }

    /// The pieces between runs of ASCII whitespace, as std's `split_ascii_whitespace`.
    fn par_split_ascii_whitespace(&self) -> SplitWhitespace<'_> {
        let space: fn(char) -> bool = |c| c.is_ascii_whitespace();
        let some: fn(&&str) -> bool = |piece| !piece.is_empty();
        Filter::new(
            Split::new(self.as_parallel_string(), space, Mode::Split),
            some,
        )
    }

    /// The matches of `pattern`.
    fn par_matches<P: CharPattern>(&self, pattern: P) -> Matches<'_, P> {
        let text: fn((usize, &str)) -> &str = |(_, m)| m;
        Map::new(self.par_match_indices(pattern), text)
    }

    /// The matches of `pattern` with their byte offsets.
    fn par_match_indices<P: CharPattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            s: self.as_parallel_string(),
            pattern,
        }
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// [`ParallelString::par_lines`].
pub type Lines<'a> = Map<Split<'a, char>, fn(&str) -> &str>;
/// [`ParallelString::par_split_whitespace`] and
/// [`ParallelString::par_split_ascii_whitespace`].
pub type SplitWhitespace<'a> = Filter<Split<'a, fn(char) -> bool>, fn(&&'a str) -> bool>;
/// [`ParallelString::par_matches`].
pub type Matches<'a, P> = Map<MatchIndices<'a, P>, fn((usize, &'a str)) -> &'a str>;

/// The position plumbing of a string source: its bytes.
macro_rules! bytes_as_positions {
    () => {
        fn position_count(&self) -> usize {
            self.s.len()
        }
    };
}

/// [`ParallelString::par_chars`].
#[derive(Debug, Clone)]
pub struct Chars<'a> {
    s: &'a str,
}

impl<'a> ParallelIterator for Chars<'a> {
    type Item = char;
    type Seq<'b>
        = std::str::Chars<'a>
    where
        Self: 'b;

    bytes_as_positions!();

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        self.s[leaf(self.s, range)].chars()
    }
}

/// [`ParallelString::par_char_indices`].
#[derive(Debug, Clone)]
pub struct CharIndices<'a> {
    s: &'a str,
}

impl<'a> ParallelIterator for CharIndices<'a> {
    type Item = (usize, char);
    type Seq<'b>
        = Offset<std::str::CharIndices<'a>>
    where
        Self: 'b;

    bytes_as_positions!();

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let part = leaf(self.s, range);
        Offset {
            inner: self.s[part.clone()].char_indices(),
            offset: part.start,
        }
    }
}

/// A leaf's `(index, item)` pairs with the leaf's offset added to the index.
#[derive(Debug)]
pub struct Offset<S> {
    inner: S,
    offset: usize,
}

impl<S: Iterator<Item = (usize, T)>, T> Iterator for Offset<S> {
    type Item = (usize, T);

    fn next(&mut self) -> Option<(usize, T)> {
        self.inner.next().map(|(i, x)| (i + self.offset, x))
    }
}

/// [`ParallelString::par_bytes`]: indexed, one byte per position.
#[derive(Debug, Clone)]
pub struct Bytes<'a> {
    s: &'a str,
}

impl<'a> ParallelIterator for Bytes<'a> {
    type Item = u8;
    type Seq<'b>
        = std::iter::Copied<std::slice::Iter<'a, u8>>
    where
        Self: 'b;

    bytes_as_positions!();

    fn exact_len(&self) -> Option<usize> {
        Some(self.s.len())
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        self.s.as_bytes()[range].iter().copied()
    }
}

impl IndexedParallelIterator for Bytes<'_> {}

/// [`ParallelString::par_encode_utf16`].
#[derive(Debug, Clone)]
pub struct EncodeUtf16<'a> {
    s: &'a str,
}

impl<'a> ParallelIterator for EncodeUtf16<'a> {
    type Item = u16;
    type Seq<'b>
        = std::str::EncodeUtf16<'a>
    where
        Self: 'b;

    bytes_as_positions!();

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        self.s[leaf(self.s, range)].encode_utf16()
    }
}

/// Which of std's splits a [`Split`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `split`: pieces between separators, a last empty one kept.
    Split,
    /// `split_terminator`: as `split`, without a last empty piece.
    Terminator,
    /// `split_inclusive`: each piece keeps the separator that ends it; no last empty one.
    Inclusive,
}

/// [`ParallelString::par_split`], [`ParallelString::par_split_inclusive`] and
/// [`ParallelString::par_split_terminator`].
#[derive(Debug, Clone)]
pub struct Split<'a, P> {
    s: &'a str,
    pattern: P,
    mode: Mode,
}

/// [`ParallelString::par_split_inclusive`].
pub type SplitInclusive<'a, P> = Split<'a, P>;
/// [`ParallelString::par_split_terminator`].
pub type SplitTerminator<'a, P> = Split<'a, P>;

impl<'a, P> Split<'a, P> {
    fn new(s: &'a str, pattern: P, mode: Mode) -> Self {
        Split { s, pattern, mode }
    }
}

impl<'a, P: CharPattern> ParallelIterator for Split<'a, P> {
    type Item = &'a str;
    type Seq<'b>
        = SplitSeq<'a, 'b, P>
    where
        Self: 'b;

    fn position_count(&self) -> usize {
        // An empty string still has its one (empty) piece: one position.
        self.s.len().max(1)
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // The first position (0, also of an empty string) owns the first piece.
        let first = range.start == 0;
        let part = leaf(self.s, range);
        let pending = if first {
            Some(0)
        } else {
            find(self.s, part.start, &self.pattern)
                .filter(|&(at, _)| at < part.end)
                .map(|(_, after)| after)
        };
        SplitSeq {
            s: self.s,
            pattern: &self.pattern,
            mode: self.mode,
            pending,
            end: part.end,
        }
    }
}

/// A leaf of a [`Split`]: `pending` is where its next piece starts.
#[derive(Debug)]
pub struct SplitSeq<'a, 'b, P> {
    s: &'a str,
    pattern: &'b P,
    mode: Mode,
    pending: Option<usize>,
    /// Separators starting before `end` are this leaf's.
    end: usize,
}

impl<'a, P: CharPattern> Iterator for SplitSeq<'a, '_, P> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let start = self.pending.take()?;
        match find(self.s, start, self.pattern) {
            Some((at, after)) => {
                if at < self.end {
                    self.pending = Some(after);
                }
                let stop = if self.mode == Mode::Inclusive {
                    after
                } else {
                    at
                };
                Some(&self.s[start..stop])
            }
            None => {
                let piece = &self.s[start..];
                (self.mode == Mode::Split || !piece.is_empty()).then_some(piece)
            }
        }
    }
}

/// [`ParallelString::par_match_indices`].
#[derive(Debug, Clone)]
pub struct MatchIndices<'a, P> {
    s: &'a str,
    pattern: P,
}

impl<'a, P: CharPattern> ParallelIterator for MatchIndices<'a, P> {
    type Item = (usize, &'a str);
    type Seq<'b>
        = MatchSeq<'a, 'b, P>
    where
        Self: 'b;

    bytes_as_positions!();

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let part = leaf(self.s, range);
        MatchSeq {
            s: self.s,
            pattern: &self.pattern,
            next: part.start,
            end: part.end,
        }
    }
}

/// A leaf of a [`MatchIndices`]: the matches starting in `next..end`.
#[derive(Debug)]
pub struct MatchSeq<'a, 'b, P> {
    s: &'a str,
    pattern: &'b P,
    next: usize,
    end: usize,
}

impl<'a, P: CharPattern> Iterator for MatchSeq<'a, '_, P> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let (at, after) = find(&self.s[..self.end], self.next, self.pattern)?;
        self.next = after;
        Some((at, &self.s[at..after]))
    }
}
