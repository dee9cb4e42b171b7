//! Tokenizing the CLI's `--size` strings: `MAIN[,key=value]...`.
//!
//! Each kernel interprets `MAIN` and its keys; this module only splits, rejects empty
//! pieces, unknown and repeated keys, and parses numbers. Errors are reasons without
//! the input; [`crate::Kernel::parse_size`] adds the input, the kernel and the syntax.
//! Every count a size names is bounded here or by its kernel: an input of size 0 is
//! refused (it describes no work), and iterations ([`iters`]) lie in `1..=`[`MAX_ITERS`].
//! What a size costs in memory and work is estimated before anything is allocated
//! ([`crate::Estimate`]).
//!
//! No footprint (not a kernel).

use std::str::FromStr;

/// One `key=value` option.
type Opt<'a> = (&'a str, &'a str);

/// Splits `s` into its main part and its `key=value` options, trimming blanks.
pub(crate) fn split(s: &str) -> Result<(&str, Vec<Opt<'_>>), String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("the size is empty".to_owned());
    }
    let mut parts = s.split(',').map(str::trim);
    let main = parts.next().unwrap_or_default();
    if main.is_empty() {
        return Err("the main size before the first ',' is missing".to_owned());
    }
    if main.starts_with(|c: char| c.is_ascii_alphabetic()) && main.contains('=') {
        return Err(format!(
            "{main:?} is an option, but the main size must come first"
        ));
    }
    let mut opts = Vec::new();
    for part in parts {
        if part.is_empty() {
            return Err("there is an empty option (a stray ',')".to_owned());
        }
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!("option {part:?} is not of the form key=value"));
        };
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() {
            return Err(format!("option {part:?} has no key"));
        }
        if value.is_empty() {
            return Err(format!("option {key:?} has no value"));
        }
        opts.push((key, value));
    }
    Ok((main, opts))
}

/// Options checked against the keys a kernel knows; each key may appear once.
pub(crate) struct Opts<'a> {
    opts: Vec<Opt<'a>>,
}

impl<'a> Opts<'a> {
    /// Rejects keys outside `known` and keys given twice.
    pub(crate) fn new(opts: Vec<Opt<'a>>, known: &[&str]) -> Result<Self, String> {
        for (i, (key, _)) in opts.iter().enumerate() {
            if !known.contains(key) {
                return Err(format!(
                    "unknown option {key:?} (valid options: {})",
                    known.join(", ")
                ));
            }
            if opts[..i].iter().any(|(k, _)| k == key) {
                return Err(format!("option {key:?} is given twice"));
            }
        }
        Ok(Opts { opts })
    }

    /// The value of `key`, if given.
    pub(crate) fn take(&mut self, key: &str) -> Option<&'a str> {
        let i = self.opts.iter().position(|(k, _)| *k == key)?;
        Some(self.opts.swap_remove(i).1)
    }
}

/// The options of an iterative loop kernel, `iters=I`, `grain=G` and `seed=S`, each
/// written over its default where given, after checking that no other key is there.
/// `unit` names what a grain counts in its error ("element", "key"; "" for none).
pub(crate) fn loop_options(
    opts: Vec<Opt<'_>>,
    unit: &str,
    iters: &mut usize,
    grain: &mut usize,
    seed: &mut u64,
) -> Result<(), String> {
    let mut opts = Opts::new(opts, &["iters", "grain", "seed"])?;
    if let Some(v) = opts.take("iters") {
        *iters = self::iters(v)?;
    }
    if let Some(v) = opts.take("grain") {
        *grain = number("grain", v)?;
        if *grain == 0 {
            let unit = if unit.is_empty() {
                String::new()
            } else {
                format!(" {unit}")
            };
            return Err(format!("grain must be at least 1{unit}"));
        }
    }
    if let Some(v) = opts.take("seed") {
        *seed = number("seed", v)?;
    }
    Ok(())
}

/// Parses a non-negative decimal integer named `what` (digits only, `_` allowed as a
/// separator).
pub(crate) fn number<T: FromStr>(what: &str, s: &str) -> Result<T, String> {
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} {s:?} is not a non-negative integer"));
    }
    digits
        .parse()
        .map_err(|_| format!("{what} {s:?} is too large"))
}

/// Most iterations an iterative kernel runs (`iters=` in a size, the CLI's `--iters`).
///
/// Iterations exist to show what the policies carry from one iteration to the next:
/// CATS profiles the first and partitions from it, CAB and an affinity schedule reuse
/// one placement in every later one, so the steady state shows after a few tens (the
/// defaults run 10). 10,000 leaves two orders of magnitude above that, and keeps a typo
/// of a few digits (`iters=100000000`) from running for days.
pub const MAX_ITERS: usize = 10_000;

/// Parses an iteration count: `1..=`[`MAX_ITERS`].
pub(crate) fn iters(s: &str) -> Result<usize, String> {
    let n: usize = number("iters", s)?;
    check_iters(n)
}

/// Checks an iteration count given as a number: `1..=`[`MAX_ITERS`]; the error is the
/// reason, as `iters=` would give it.
pub fn check_iters(n: usize) -> Result<usize, String> {
    match n {
        0 => Err("iters = 0 runs nothing: at least one iteration is needed".to_owned()),
        n if n > MAX_ITERS => Err(format!(
            "iters = {n} is above the most iterations a run takes, {MAX_ITERS} (the steady \
             state shows after a few tens)"
        )),
        n => Ok(n),
    }
}
