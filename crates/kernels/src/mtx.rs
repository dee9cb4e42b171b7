//! A Matrix Market reader: the text format of the NIST Matrix Market and the SuiteSparse
//! (formerly UF) collection, where the paper's matrices come from.
//!
//! A file is a banner `%%MatrixMarket matrix FORMAT FIELD SYMMETRY` (words compared
//! ignoring ASCII case), comment lines starting with `%`, a size line, then one entry
//! per line. Blank lines are skipped.
//!
//! - FORMAT `coordinate`: the size line is `ROWS COLS ENTRIES`, then `ENTRIES` lines
//!   `I J VALUE` with 1-based indices (`I J` alone for the `pattern` field, whose
//!   entries are all 1.0). FORMAT `array`: the size line is `ROWS COLS`, then the values
//!   column by column, one per line (the lower triangle only, diagonal included, for
//!   `symmetric`; strictly below the diagonal for `skew-symmetric`); zeros of an array
//!   are not stored.
//! - FIELD `real` (decimal numbers; a Fortran `D` exponent is read as `E`), `integer`
//!   (whole numbers, stored as `f64`) or `pattern` (coordinate only). `complex` is
//!   refused.
//! - SYMMETRY `general`, `symmetric` (only the lower triangle and the diagonal are
//!   stored, and the reader mirrors each entry below the diagonal) or `skew-symmetric`
//!   (strictly below the diagonal; the mirror gets the negated value). `hermitian` is
//!   refused (it is for complex matrices). A symmetric matrix must be square.
//!
//! A place given twice is refused, not summed: the format does not say what a repeated
//! entry means (some tools sum, some keep the last), so the reader names both lines
//! rather than guess. Values must be finite. Every error names the file, the line (where
//! there is one; 1-based) and what is wrong ([`MtxError`]).
//!
//! No footprint (nothing here runs inside a task).

use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::sparse::Csr;

/// A Matrix Market file that could not be read as a matrix: the file, the line (if the
/// error has one) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MtxError {
    path: PathBuf,
    line: Option<usize>,
    kind: ErrorKind,
}

impl MtxError {
    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 1-based line the error is on, if it is on one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}

impl fmt::Display for MtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}, line {line}: {}", self.path.display(), self.kind),
            None => write!(f, "{}: {}", self.path.display(), self.kind),
        }
    }
}

impl std::error::Error for MtxError {}

/// The longest line read, in bytes: the format's own bound is 1024 characters, and
/// comments written by tools run longer; a file with no line break (a sparse file of
/// zeros) is refused at this length instead of read whole.
const MAX_LINE: usize = 1 << 20;

/// The banner every file starts with, for messages.
const BANNER: &str = "%%MatrixMarket matrix FORMAT FIELD SYMMETRY";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ErrorKind {
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The path is no file to read: [`locus_files::open_input`]'s reason.
    #[error("{0}")]
    File(String),
    #[error(
        "the size line declares {entries} entries, more than a file of {len} bytes holds \
         (each takes a line of at least {line} bytes)"
    )]
    LongerThanFile { entries: u64, len: u64, line: u64 },
    #[error(
        "the matrix is {rows} x {cols} with up to {entries} stored entries: reading it and \
         the vectors of a product with it take about {}, more than the {} this machine \
         has ({})",
        locus_files::Bytes(*.bytes), locus_files::Bytes(*.limit), .from
    )]
    Memory {
        rows: usize,
        cols: usize,
        entries: u64,
        bytes: u64,
        limit: u64,
        from: &'static str,
    },
    #[error("the line is not valid UTF-8 text")]
    NotUtf8,
    #[error("the file is empty; a Matrix Market file starts with the banner '{BANNER}'")]
    Empty,
    #[error("expected the banner '{BANNER}', found {0:?}")]
    NoBanner(String),
    #[error("the banner has {0} words, expected 5: '{BANNER}'")]
    BannerWords(usize),
    #[error("unsupported object {0:?} in the banner (only 'matrix')")]
    Object(String),
    #[error("unknown format {0:?} in the banner (expected 'coordinate' or 'array')")]
    Format(String),
    #[error("unknown field {0:?} in the banner (expected 'real', 'integer' or 'pattern')")]
    Field(String),
    #[error("complex matrices are not supported (fields: 'real', 'integer', 'pattern')")]
    Complex,
    #[error(
        "unknown symmetry {0:?} in the banner (expected 'general', 'symmetric' or \
         'skew-symmetric')"
    )]
    Symmetry(String),
    #[error("hermitian matrices are not supported (they are complex)")]
    Hermitian,
    #[error("the 'array' format has no 'pattern' field (an array stores every value)")]
    PatternArray,
    #[error("the file ends before the size line '{0}'")]
    NoSizeLine(&'static str),
    #[error("bad size line {found:?}: expected '{form}' (non-negative integers)")]
    SizeLine { found: String, form: &'static str },
    #[error("the matrix is {rows} x {cols}: it needs at least one row and one column")]
    NoRowsOrCols { rows: usize, cols: usize },
    #[error("the matrix is {rows} x {cols}: dimensions are at most {}", u32::MAX)]
    TooLarge { rows: usize, cols: usize },
    #[error("a {symmetry} matrix must be square, this one is {rows} x {cols}")]
    NotSquare {
        symmetry: Symmetry,
        rows: usize,
        cols: usize,
    },
    #[error(
        "the size line declares {entries} entries, more than the {places} places a \
         {symmetry} {rows} x {cols} matrix stores"
    )]
    TooManyDeclared {
        entries: usize,
        places: u128,
        symmetry: Symmetry,
        rows: usize,
        cols: usize,
    },
    #[error("expected {expected} fields ({form}), found {found}")]
    Fields {
        expected: usize,
        form: &'static str,
        found: usize,
    },
    #[error("{what} index {found:?} is not a positive integer")]
    Index { what: &'static str, found: String },
    #[error("{what} index 0: indices are 1-based")]
    IndexZero { what: &'static str },
    #[error("{what} index {index} is out of range 1..={max}")]
    IndexRange {
        what: &'static str,
        index: u64,
        max: usize,
    },
    #[error("value {found:?} is not {what}")]
    Number { found: String, what: &'static str },
    #[error("value {0:?} is not finite")]
    NotFinite(String),
    #[error(
        "entry ({row}, {col}) is given twice (first on line {first}); repeated entries are \
         refused, not summed"
    )]
    Duplicate { row: u64, col: u64, first: usize },
    #[error(
        "entry ({row}, {col}) lies above the diagonal: a {symmetry} file stores only the \
         lower triangle"
    )]
    UpperTriangle {
        row: u64,
        col: u64,
        symmetry: Symmetry,
    },
    #[error(
        "entry ({row}, {row}) lies on the diagonal, which a skew-symmetric matrix has zero \
         and must not store"
    )]
    SkewDiagonal { row: u64 },
    #[error("the file ends after {found} of the {expected} entries the size line declares")]
    Truncated { found: usize, expected: usize },
    #[error("more entries than the {expected} the size line declares")]
    Extra { expected: usize },
}

/// The storage format of the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Coordinate,
    Array,
}

/// The field of the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Real,
    Integer,
    Pattern,
}

/// The symmetry of the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        })
    }
}

/// Reads the Matrix Market file at `path`, which must be a regular file (a link to one
/// is followed).
pub fn read(path: impl AsRef<Path>) -> Result<Csr, MtxError> {
    let path = path.as_ref();
    const ORIGIN: &str = "Matrix Market file";
    let (file, len) = locus_files::open_input(ORIGIN, path).map_err(|e| {
        // The reason alone: the message names the path itself.
        let message = e.to_string();
        let prefix = format!("{ORIGIN} {path:?}: ");
        let reason = message.strip_prefix(&prefix).unwrap_or(&message).to_owned();
        MtxError {
            path: path.to_owned(),
            line: None,
            kind: ErrorKind::File(reason),
        }
    })?;
    Reader::new(BufReader::new(file), path, Some(len)).matrix()
}

/// Reads a Matrix Market text from `reader`; `name` is what errors call it.
pub fn read_from(reader: impl BufRead, name: impl AsRef<Path>) -> Result<Csr, MtxError> {
    Reader::new(reader, name.as_ref(), None).matrix()
}

/// The reading state: the source, the file's name and the current line.
struct Reader<R> {
    lines: R,
    path: PathBuf,
    /// The file's length in bytes, where it is a file.
    len: Option<u64>,
    /// The 1-based number of the line last read (0 before the first).
    line_no: usize,
    buf: Vec<u8>,
}

/// An entry as stored in the file: 0-based row and column, value, and its line.
type Stored = (u32, u32, f64, usize);

impl<R: BufRead> Reader<R> {
    fn new(lines: R, path: &Path, len: Option<u64>) -> Self {
        Reader {
            lines,
            path: path.to_owned(),
            len,
            line_no: 0,
            buf: Vec::new(),
        }
    }

    /// Refuses a size line the file cannot hold, or whose matrix this machine cannot:
    /// `entries` lines of at least `line` bytes each, and a matrix of up to `stored`
    /// entries once mirrored.
    fn check_declared(
        &self,
        rows: usize,
        cols: usize,
        entries: u128,
        line: u64,
        stored: u128,
    ) -> Result<(), MtxError> {
        let saturated = |n: u128| u64::try_from(n).unwrap_or(u64::MAX);
        if let Some(len) = self.len {
            if entries > u128::from(len / line) {
                return Err(self.here(ErrorKind::LongerThanFile {
                    entries: saturated(entries),
                    len,
                    line,
                }));
            }
        }
        // The entries as read (24 bytes each) and sorted (16 per entry, mirrors
        // included), the compressed rows (8 per row, 12 per entry), and `x` and `y` of a
        // product (8 per row and column each).
        let entries = saturated(entries);
        let stored64 = saturated(stored);
        let bytes = entries
            .saturating_mul(24)
            .saturating_add(stored64.saturating_mul(16 + 12))
            .saturating_add((rows as u64).saturating_add(1).saturating_mul(8))
            .saturating_add((rows as u64).saturating_add(cols as u64).saturating_mul(16));
        match crate::available_memory() {
            Some(limit) if bytes > limit.bytes => Err(self.here(ErrorKind::Memory {
                rows,
                cols,
                entries: stored64,
                bytes,
                limit: limit.bytes,
                from: limit.source,
            })),
            _ => Ok(()),
        }
    }

    /// An error on the current line.
    fn here(&self, kind: ErrorKind) -> MtxError {
        MtxError {
            path: self.path.clone(),
            line: Some(self.line_no),
            kind,
        }
    }

    /// The next line, without its line break; `None` at the end of the file.
    fn next_line(&mut self) -> Result<Option<&str>, MtxError> {
        self.buf.clear();
        let n = locus_files::read_line(&mut self.lines, &mut self.buf, MAX_LINE).map_err(|e| {
            MtxError {
                path: self.path.clone(),
                line: Some(self.line_no + 1),
                kind: ErrorKind::Io(e.to_string()),
            }
        })?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(Some(s)),
            Err(_) => Err(self.here(ErrorKind::NotUtf8)),
        }
    }

    /// The next line that is neither blank nor a comment, split into words; `None` at
    /// the end of the file.
    fn next_data(&mut self) -> Result<Option<Vec<String>>, MtxError> {
        loop {
            let Some(line) = self.next_line()? else {
                return Ok(None);
            };
            let t = line.trim();
            if t.is_empty() || t.starts_with('%') {
                continue;
            }
            return Ok(Some(t.split_whitespace().map(str::to_owned).collect()));
        }
    }

    /// Reads the whole file.
    fn matrix(mut self) -> Result<Csr, MtxError> {
        let (format, field, symmetry) = self.banner()?;
        let (rows, cols, declared) = self.size_line(format)?;
        if rows == 0 || cols == 0 {
            return Err(self.here(ErrorKind::NoRowsOrCols { rows, cols }));
        }
        if rows > u32::MAX as usize || cols > u32::MAX as usize {
            return Err(self.here(ErrorKind::TooLarge { rows, cols }));
        }
        if symmetry != Symmetry::General && rows != cols {
            return Err(self.here(ErrorKind::NotSquare {
                symmetry,
                rows,
                cols,
            }));
        }
        let mirrored = |n: u128| match symmetry {
            Symmetry::General => n,
            Symmetry::Symmetric | Symmetry::SkewSymmetric => 2 * n,
        };
        let places = places(rows, cols, symmetry);
        let stored = match format {
            Format::Coordinate => {
                let declared = declared.unwrap_or_default();
                if declared as u128 > places {
                    return Err(self.here(ErrorKind::TooManyDeclared {
                        entries: declared,
                        places,
                        symmetry,
                        rows,
                        cols,
                    }));
                }
                let line = match field {
                    Field::Pattern => 4,
                    Field::Real | Field::Integer => 6,
                };
                let n = declared as u128;
                self.check_declared(rows, cols, n, line, mirrored(n))?;
                self.coordinate(rows, cols, declared, field, symmetry)?
            }
            Format::Array => {
                self.check_declared(rows, cols, places, 2, mirrored(places))?;
                self.array(rows, cols, field, symmetry)?
            }
        };
        Ok(expand(rows, cols, symmetry, stored))
    }

    /// The banner line.
    fn banner(&mut self) -> Result<(Format, Field, Symmetry), MtxError> {
        let Some(line) = self.next_line()? else {
            return Err(MtxError {
                path: self.path.clone(),
                line: None,
                kind: ErrorKind::Empty,
            });
        };
        let words: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let found = line.trim().to_owned();
        if words.first().map(String::as_str) != Some("%%matrixmarket") {
            return Err(self.here(ErrorKind::NoBanner(found)));
        }
        if words.len() != 5 {
            return Err(self.here(ErrorKind::BannerWords(words.len())));
        }
        if words[1] != "matrix" {
            return Err(self.here(ErrorKind::Object(words[1].clone())));
        }
        let format = match words[2].as_str() {
            "coordinate" => Format::Coordinate,
            "array" => Format::Array,
            other => return Err(self.here(ErrorKind::Format(other.to_owned()))),
        };
        let field = match words[3].as_str() {
            "real" => Field::Real,
            "integer" => Field::Integer,
            "pattern" => Field::Pattern,
            "complex" => return Err(self.here(ErrorKind::Complex)),
            other => return Err(self.here(ErrorKind::Field(other.to_owned()))),
        };
        let symmetry = match words[4].as_str() {
            "general" => Symmetry::General,
            "symmetric" => Symmetry::Symmetric,
            "skew-symmetric" => Symmetry::SkewSymmetric,
            "hermitian" => return Err(self.here(ErrorKind::Hermitian)),
            other => return Err(self.here(ErrorKind::Symmetry(other.to_owned()))),
        };
        if format == Format::Array && field == Field::Pattern {
            return Err(self.here(ErrorKind::PatternArray));
        }
        Ok((format, field, symmetry))
    }

    /// The size line: rows, columns and (coordinate format) the declared entries.
    fn size_line(&mut self, format: Format) -> Result<(usize, usize, Option<usize>), MtxError> {
        let form = match format {
            Format::Coordinate => "ROWS COLS ENTRIES",
            Format::Array => "ROWS COLS",
        };
        let Some(words) = self.next_data()? else {
            return Err(MtxError {
                path: self.path.clone(),
                line: Some(self.line_no),
                kind: ErrorKind::NoSizeLine(form),
            });
        };
        let bad = || ErrorKind::SizeLine {
            found: words.join(" "),
            form,
        };
        let count = match format {
            Format::Coordinate => 3,
            Format::Array => 2,
        };
        if words.len() != count {
            return Err(self.here(bad()));
        }
        let mut nums = Vec::with_capacity(count);
        for w in &words {
            match parse_uint(w) {
                Some(n) => nums.push(n),
                None => return Err(self.here(bad())),
            }
        }
        let declared = (format == Format::Coordinate).then(|| nums[2]);
        Ok((nums[0], nums[1], declared))
    }

    /// The entries of a coordinate file.
    fn coordinate(
        &mut self,
        rows: usize,
        cols: usize,
        declared: usize,
        field: Field,
        symmetry: Symmetry,
    ) -> Result<Vec<Stored>, MtxError> {
        let (expected, form) = match field {
            Field::Pattern => (2, "row, column"),
            Field::Real | Field::Integer => (3, "row, column, value"),
        };
        let mut stored: Vec<Stored> = Vec::with_capacity(declared.min(1 << 24));
        while let Some(words) = self.next_data()? {
            if stored.len() == declared {
                return Err(self.here(ErrorKind::Extra { expected: declared }));
            }
            if words.len() != expected {
                return Err(self.here(ErrorKind::Fields {
                    expected,
                    form,
                    found: words.len(),
                }));
            }
            let row = self.index("row", &words[0], rows)?;
            let col = self.index("column", &words[1], cols)?;
            let value = match field {
                Field::Pattern => 1.0,
                Field::Real | Field::Integer => self.value(field, &words[2])?,
            };
            match symmetry {
                Symmetry::General => {}
                Symmetry::Symmetric | Symmetry::SkewSymmetric if col > row => {
                    return Err(self.here(ErrorKind::UpperTriangle {
                        row: u64::from(row) + 1,
                        col: u64::from(col) + 1,
                        symmetry,
                    }));
                }
                Symmetry::SkewSymmetric if col == row => {
                    return Err(self.here(ErrorKind::SkewDiagonal {
                        row: u64::from(row) + 1,
                    }));
                }
                Symmetry::Symmetric | Symmetry::SkewSymmetric => {}
            }
            stored.push((row, col, value, self.line_no));
        }
        if stored.len() < declared {
            return Err(self.here(ErrorKind::Truncated {
                found: stored.len(),
                expected: declared,
            }));
        }
        // Refuse repeated places, naming both lines: sort by place, then by line.
        stored.sort_unstable_by_key(|e| (e.0, e.1, e.3));
        if let Some(w) = stored
            .windows(2)
            .find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        {
            return Err(MtxError {
                path: self.path.clone(),
                line: Some(w[1].3),
                kind: ErrorKind::Duplicate {
                    row: u64::from(w[0].0) + 1,
                    col: u64::from(w[0].1) + 1,
                    first: w[0].3,
                },
            });
        }
        Ok(stored)
    }

    /// The nonzero values of an array file, column by column.
    fn array(
        &mut self,
        rows: usize,
        cols: usize,
        field: Field,
        symmetry: Symmetry,
    ) -> Result<Vec<Stored>, MtxError> {
        // The places the file lists, in its order: whole columns, or the part of each
        // column on and below (strictly below, for skew) the diagonal.
        let first_row = |j: usize| match symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric => j,
            Symmetry::SkewSymmetric => j + 1,
        };
        let expected: usize = (0..cols).map(|j| rows - first_row(j).min(rows)).sum();
        let mut stored: Vec<Stored> = Vec::new();
        let mut found = 0usize;
        'columns: for j in 0..cols {
            for i in first_row(j)..rows {
                let Some(words) = self.next_data()? else {
                    break 'columns;
                };
                if words.len() != 1 {
                    return Err(self.here(ErrorKind::Fields {
                        expected: 1,
                        form: "one value per line",
                        found: words.len(),
                    }));
                }
                let value = self.value(field, &words[0])?;
                found += 1;
                if value != 0.0 {
                    stored.push((i as u32, j as u32, value, self.line_no));
                }
            }
        }
        if found < expected {
            return Err(self.here(ErrorKind::Truncated { found, expected }));
        }
        if self.next_data()?.is_some() {
            return Err(self.here(ErrorKind::Extra { expected }));
        }
        // Column order; `expand` sorts by row.
        Ok(stored)
    }

    /// A 1-based index no larger than `max`, as a 0-based `u32`.
    fn index(&self, what: &'static str, word: &str, max: usize) -> Result<u32, MtxError> {
        let Some(index) = parse_uint(word) else {
            return Err(self.here(ErrorKind::Index {
                what,
                found: word.to_owned(),
            }));
        };
        if index == 0 {
            return Err(self.here(ErrorKind::IndexZero { what }));
        }
        if index > max {
            return Err(self.here(ErrorKind::IndexRange {
                what,
                index: index as u64,
                max,
            }));
        }
        Ok((index - 1) as u32)
    }

    /// A value of the `field`: a finite real, or a whole number.
    fn value(&self, field: Field, word: &str) -> Result<f64, MtxError> {
        let number = match field {
            Field::Integer => word
                .parse::<i64>()
                .ok()
                .map(|v| v as f64)
                .ok_or(ErrorKind::Number {
                    found: word.to_owned(),
                    what: "an integer",
                }),
            Field::Real | Field::Pattern => parse_real(word).ok_or(ErrorKind::Number {
                found: word.to_owned(),
                what: "a real number",
            }),
        };
        match number {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(self.here(ErrorKind::NotFinite(word.to_owned()))),
            Err(kind) => Err(self.here(kind)),
        }
    }
}

/// A non-negative decimal integer (digits only), `None` otherwise or on overflow.
fn parse_uint(word: &str) -> Option<usize> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}

/// A real number: what Rust's `f64` parser reads, with a Fortran `D` exponent read as
/// `E`; words naming infinities or NaN parse (and are refused as not finite later).
fn parse_real(word: &str) -> Option<f64> {
    if let Ok(v) = word.parse::<f64>() {
        return Some(v);
    }
    if word.contains(['d', 'D']) && word.bytes().all(|b| b"0123456789+-.dD".contains(&b)) {
        return word.replace(['d', 'D'], "e").parse().ok();
    }
    None
}

/// How many places a file of this shape and symmetry can store.
fn places(rows: usize, cols: usize, symmetry: Symmetry) -> u128 {
    let (r, c) = (rows as u128, cols as u128);
    match symmetry {
        Symmetry::General => r * c,
        Symmetry::Symmetric => r * (r + 1) / 2,
        Symmetry::SkewSymmetric => r * r.saturating_sub(1) / 2,
    }
}

/// The whole matrix from the stored entries: the mirror of each entry below the
/// diagonal is added for the symmetric kinds (negated for skew-symmetric). Stored
/// entries are distinct and, for the symmetric kinds, on or below the diagonal, so the
/// mirrors (strictly above) are distinct from everything.
fn expand(rows: usize, cols: usize, symmetry: Symmetry, stored: Vec<Stored>) -> Csr {
    let mut entries: Vec<(u32, u32, f64)> = Vec::with_capacity(match symmetry {
        Symmetry::General => stored.len(),
        Symmetry::Symmetric | Symmetry::SkewSymmetric => 2 * stored.len(),
    });
    for (i, j, v, _) in stored {
        entries.push((i, j, v));
        match symmetry {
            Symmetry::General => {}
            Symmetry::Symmetric if i != j => entries.push((j, i, v)),
            Symmetry::SkewSymmetric => entries.push((j, i, -v)),
            Symmetry::Symmetric => {}
        }
    }
    entries.sort_unstable_by_key(|e| (e.0, e.1));
    Csr::from_sorted(rows, cols, &entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Csr, MtxError> {
        read_from(text.as_bytes(), "t.mtx")
    }

    #[test]
    fn reads_a_general_coordinate_matrix() {
        let m = parse(
            "%%MatrixMarket matrix coordinate real general\n% a comment\n\n2 3 3\n1 1 1.5\n2 3 -2e1\n1 2 3D0\n",
        )
        .unwrap();
        assert_eq!(m.to_dense(), [1.5, 3.0, 0.0, 0.0, 0.0, -20.0]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e =
            parse("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1.0\n").unwrap_err();
        assert_eq!(e.path(), Path::new("t.mtx"));
        assert_eq!(e.line(), Some(3));
        assert_eq!(
            e.to_string(),
            "t.mtx, line 3: row index 0: indices are 1-based"
        );
    }

    #[test]
    fn declarations_are_held_against_the_file_and_the_memory() {
        // 10^13 entries take 240 TB to read, whatever the machine.
        let e = parse(
            "%%MatrixMarket matrix coordinate real general\n4000000000 4000000000 10000000000000\n",
        )
        .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Memory { .. }), "{e}");
        assert_eq!(e.line(), Some(2));
        assert!(e.to_string().contains("more than the"), "{e}");
        let path = std::env::temp_dir().join(format!("locus-mtx-{}.mtx", std::process::id()));
        let text = "%%MatrixMarket matrix coordinate real general\n300 300 1000\n1 1 1.0\n";
        std::fs::write(&path, text).unwrap();
        let e = read(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            e.to_string(),
            format!(
                "{}, line 2: the size line declares 1000 entries, more than a file of {} \
                 bytes holds (each takes a line of at least 6 bytes)",
                path.display(),
                text.len()
            )
        );
        let e = read(std::env::temp_dir()).unwrap_err();
        assert!(
            e.to_string().contains("is a folder, not a regular file"),
            "{e}"
        );
    }

    #[test]
    fn reals_and_integers() {
        assert_eq!(parse_real("1.25"), Some(1.25));
        assert_eq!(parse_real("-1.5D+02"), Some(-150.0));
        assert_eq!(parse_real("abc"), None);
        assert_eq!(parse_real("1.0.0"), None);
        assert_eq!(parse_uint("12"), Some(12));
        assert_eq!(parse_uint("+12"), None);
        assert_eq!(parse_uint(""), None);
        assert_eq!(parse_uint("99999999999999999999999"), None);
    }
}
