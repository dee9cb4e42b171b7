//! Values the user gave, with where they came from: a flag, or, where the flag is absent,
//! the `LOCUS_*` variable the library reads for the same setting. An error about a value
//! names what the user actually set (`LOCUS_NUM_THREADS=0`, not `--threads 0`).
//!
//! clap's own `env` fallback is not used for these flags: its messages always name the
//! flag, and a variable set in a shell profile long ago is not a flag on this command line.

use anyhow::{anyhow, Result};
use std::fmt;

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A flag on the command line, e.g. `--threads`.
    Flag(&'static str),
    /// An environment variable, e.g. `LOCUS_NUM_THREADS`.
    Env(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(name) | Origin::Env(name) => f.write_str(name),
        }
    }
}

impl Origin {
    /// The value as the user wrote it, for a message: `--threads 0` or
    /// `LOCUS_NUM_THREADS=0`.
    pub(crate) fn with(&self, value: &str) -> String {
        match self {
            Origin::Flag(name) => format!("{name} {value:?}"),
            Origin::Env(name) => format!("{name}={value:?}"),
        }
    }
}

/// A value and its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Given<T> {
    /// The value.
    pub(crate) value: T,
    /// Where it came from.
    pub(crate) origin: Origin,
}

/// The flag's value if given (clap has parsed it already), else the variable's (unset or
/// blank: none) parsed with `parse`, whose error is prefixed with the variable and the
/// value as written.
pub(crate) fn flag_or_env<T>(
    flag: Option<T>,
    flag_name: &'static str,
    var: &'static str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<Given<T>>> {
    if let Some(value) = flag {
        return Ok(Some(Given {
            value,
            origin: Origin::Flag(flag_name),
        }));
    }
    let Some(value) = std::env::var_os(var) else {
        return Ok(None);
    };
    let value = value
        .into_string()
        .map_err(|raw| anyhow!("{var}={raw:?}: the value is not valid UTF-8"))?;
    if value.trim().is_empty() {
        return Ok(None);
    }
    let origin = Origin::Env(var);
    let parsed = parse(&value).map_err(|e| anyhow!("{}: {e}", origin.with(&value)))?;
    Ok(Some(Given {
        value: parsed,
        origin,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(s: &str) -> Result<u32, String> {
        s.trim().parse().map_err(|_| "expected a number".to_owned())
    }

    #[test]
    fn a_flag_wins_and_is_named() {
        std::env::set_var("LOCUS_TEST_GIVEN_FLAG", "x");
        let g = flag_or_env(Some(3), "--threads", "LOCUS_TEST_GIVEN_FLAG", number).unwrap();
        assert_eq!(
            g,
            Some(Given {
                value: 3,
                origin: Origin::Flag("--threads")
            }),
            "the variable is not read when the flag is given"
        );
        assert_eq!(g.unwrap().origin.with("3"), "--threads \"3\"");
        assert_eq!(
            flag_or_env(None, "--threads", "LOCUS_TEST_GIVEN_UNSET", number).unwrap(),
            None
        );
    }

    #[test]
    fn a_variable_is_named_as_a_variable() {
        // The variable's name is this test's own, so no other test reads it.
        std::env::set_var("LOCUS_TEST_GIVEN_SET", "many");
        let e = flag_or_env(None, "--threads", "LOCUS_TEST_GIVEN_SET", number)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "LOCUS_TEST_GIVEN_SET=\"many\": expected a number");
        std::env::set_var("LOCUS_TEST_GIVEN_SET", "  ");
        assert_eq!(
            flag_or_env(None, "--threads", "LOCUS_TEST_GIVEN_SET", number).unwrap(),
            None,
            "blank is unset, as the library reads it"
        );
        std::env::set_var("LOCUS_TEST_GIVEN_SET", "7");
        let g = flag_or_env(None, "--threads", "LOCUS_TEST_GIVEN_SET", number)
            .unwrap()
            .unwrap();
        assert_eq!(g.origin, Origin::Env("LOCUS_TEST_GIVEN_SET"));
        assert_eq!(g.origin.with("7"), "LOCUS_TEST_GIVEN_SET=\"7\"");
        std::env::remove_var("LOCUS_TEST_GIVEN_SET");
    }
}
