//! Bounded fuzzing of the parsers of user files, as property tests that run in
//! `cargo test` (feature `fuzz`, for dev-dependencies only).
//!
//! Every parser of a file or string a user gives (topology strings and hwloc XML,
//! Matrix Market, schedules, latency overrides, policy names) has a `tests/suite/parsers.rs`
//! that feeds it [`inputs`]: valid samples of its format mutated by a few byte flips,
//! deletions, insertions, line duplications and a truncation, or random text over the
//! format's own punctuation, and asserts that it never panics and that every error
//! names the input.
//!
//! Each test runs [`config`]'s few cases, so the suite stays fast; a longer run sets
//! `PROPTEST_CASES`:
//!
//! ```text
//! PROPTEST_CASES=100000 cargo test --release -p locus-topo -p locus-kernels \
//!     -p locus-profile -p locus-sim -p locus-policy --test suite parsers::
//! ```
//!
//! Mutations stay small (at most [`MAX_MUTATIONS`], and one inserted byte at a time), so
//! a number in a sample grows by a few digits at most: the size limits of each format
//! are tested by that format's own tests, not found by chance here.

use proptest::prelude::*;
use proptest::test_runner::Config;

/// Most mutations applied to one sample.
pub const MAX_MUTATIONS: usize = 4;

/// One edit of a sample's bytes; positions are taken modulo the current length.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace a byte.
    Replace(usize, u8),
    /// Delete a byte.
    Delete(usize),
    /// Insert a byte.
    Insert(usize, u8),
    /// Repeat the line holding a byte right after it.
    DuplicateLine(usize),
    /// Keep only the bytes before a position.
    Truncate(usize),
}

impl Mutation {
    fn apply(&self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        match self {
            Mutation::Replace(at, b) if len > 0 => bytes[at % len] = *b,
            Mutation::Delete(at) if len > 0 => {
                bytes.remove(at % len);
            }
            Mutation::Insert(at, b) => bytes.insert(at % (len + 1), *b),
            Mutation::DuplicateLine(at) if len > 0 => {
                let at = at % len;
                let start = bytes[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |n| n + 1);
                let end = bytes[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(len, |n| at + n + 1);
                let line = bytes[start..end].to_vec();
                bytes.splice(end..end, line);
            }
            Mutation::Truncate(at) => bytes.truncate(at % (len + 1)),
            _ => {}
        }
    }
}

/// A byte: mostly one of `alphabet` (the format's punctuation and digits), sometimes
/// any byte at all.
fn byte(alphabet: &'static [u8]) -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => proptest::sample::select(alphabet),
        1 => any::<u8>(),
    ]
}

fn mutation(alphabet: &'static [u8]) -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), byte(alphabet)).prop_map(|(i, b)| Mutation::Replace(i, b)),
        2 => any::<usize>().prop_map(Mutation::Delete),
        4 => (any::<usize>(), byte(alphabet)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// One of `samples` with 1 to [`MAX_MUTATIONS`] mutations.
pub fn mutated(
    samples: &'static [&'static str],
    alphabet: &'static [u8],
) -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::sample::select(samples),
        proptest::collection::vec(mutation(alphabet), 1..=MAX_MUTATIONS),
    )
        .prop_map(|(sample, mutations)| {
            let mut bytes = sample.as_bytes().to_vec();
            for m in &mutations {
                m.apply(&mut bytes);
            }
            bytes
        })
}

/// Random text of up to `max_len` bytes over `alphabet` (and the odd other byte).
pub fn random_text(alphabet: &'static [u8], max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(byte(alphabet), 0..=max_len)
}

/// Mostly [`mutated`] samples, sometimes [`random_text`] of up to 64 bytes.
pub fn inputs(
    samples: &'static [&'static str],
    alphabet: &'static [u8],
) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => mutated(samples, alphabet),
        1 => random_text(alphabet, 64),
    ]
}

/// The property-test settings of a parser's fuzz test: `cases` cases unless the
/// `PROPTEST_CASES` variable asks for more (or fewer).
pub fn config(cases: u32) -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    config
}

/// Inputs no reader may read, made in a fresh folder `dir` (replaced if there), each
/// with what its refusal says: a link to `/dev/zero`, a FIFO, the folder itself, and a
/// sparse regular file one byte over `cap`, whose message `says_large` gives. Remove
/// `dir` when done.
pub fn special_inputs(
    dir: &std::path::Path,
    name: &str,
    cap: u64,
    says_large: &'static str,
) -> Vec<(std::path::PathBuf, &'static str)> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("cannot create a scratch folder");
    let zero = dir.join(format!("zero-{name}"));
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("cannot link /dev/zero");
    let fifo = dir.join(format!("fifo-{name}"));
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {fifo:?}");
    let large = dir.join(format!("large-{name}"));
    std::fs::File::create(&large)
        .and_then(|f| f.set_len(cap + 1))
        .expect("cannot make a large sparse file");
    vec![
        (zero, "a character device, not a regular file"),
        (fifo, "a FIFO, not a regular file"),
        (dir.to_path_buf(), "a folder, not a regular file"),
        (large, says_large),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(text: &str, m: Mutation) -> String {
        let mut bytes = text.as_bytes().to_vec();
        m.apply(&mut bytes);
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn mutations_edit_as_named() {
        let first = 0;
        assert_eq!(
            applied("ab\ncd\n", Mutation::Replace(first, b'x')),
            "xb\ncd\n"
        );
        assert_eq!(applied("ab\ncd\n", Mutation::Delete(first)), "b\ncd\n");
        assert_eq!(applied("ab", Mutation::Insert(first, b'x')), "xab");
        assert_eq!(
            applied("ab\ncd\n", Mutation::DuplicateLine(first)),
            "ab\nab\ncd\n"
        );
        assert_eq!(applied("ab\ncd\n", Mutation::Truncate(first)), "");
        assert_eq!(
            applied("", Mutation::Delete(first)),
            "",
            "nothing to delete"
        );
        assert_eq!(applied("ab\ncd", Mutation::DuplicateLine(4)), "ab\ncdcd");
        assert_eq!(
            applied("abc", Mutation::Truncate(6)),
            "ab",
            "positions wrap"
        );
    }
}
