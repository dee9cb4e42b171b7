//! `-h` fits a screen and `--help` keeps the long text: for `locus` and every subcommand
//! (found from the help's own list of commands, so a new one is covered), `-h` takes at
//! most [`SCREEN`] rows of a terminal [`COLUMNS`] wide (clap does not wrap the text
//! itself), and `--help` has the kernels' size syntax, the policies and the exit
//! statuses in full where the command takes them.

use crate::common::{locus, text};

/// The rows of one screen.
const SCREEN: usize = 50;

/// The width of the terminal the screen is counted on.
const COLUMNS: usize = 100;

/// The rows `text` takes on a terminal [`COLUMNS`] wide.
fn rows(text: &str) -> usize {
    text.lines()
        .map(|l| l.chars().count().div_ceil(COLUMNS).max(1))
        .sum()
}

/// The exit statuses as `--help` gives them in full.
const LONG_EXIT_CODES: &str = "2 bad input (a flag, variable, file or size locus refuses";

/// The subcommands a help text lists under `Commands:`, but `help`.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// `locus ARGS`'s standard output, which must succeed.
fn help(args: &[&str]) -> String {
    let out = locus(args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `locus` and every subcommand path (`["sim", "sweep"]`), two levels deep.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = vec![Vec::new()];
    for command in commands(&help(&["--help"])) {
        for sub in commands(&help(&[command.as_str(), "--help"])) {
            paths.push(vec![command.clone(), sub]);
        }
        paths.push(vec![command]);
    }
    paths
}

#[test]
fn rows_count_wrapped_lines() {
    assert_eq!(rows("a\n\nb"), 3);
    assert_eq!(rows(&"x".repeat(COLUMNS)), 1);
    assert_eq!(rows(&"x".repeat(COLUMNS + 1)), 2);
}

#[test]
fn short_help_fits_a_screen() {
    let paths = command_paths();
    assert!(paths.len() >= 10, "commands found: {paths:?}");
    assert!(
        paths.contains(&vec!["sim".to_owned(), "sweep".to_owned()]),
        "{paths:?}"
    );
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let short = help(&args);
        let rows = rows(&short);
        assert!(
            rows <= SCREEN,
            "`locus {}` takes {rows} rows of {COLUMNS} columns, more than a screen of \
             {SCREEN}:\n{short}",
            args.join(" ")
        );
        assert!(
            !short.contains(LONG_EXIT_CODES),
            "`locus {}` prints the long text:\n{short}",
            args.join(" ")
        );
    }
}

#[test]
fn long_help_keeps_the_kernels_the_policies_and_the_exit_statuses() {
    for command in [&["bench"][..], &["sim"], &["sim", "sweep"], &["profile"]] {
        let mut args = command.to_vec();
        args.push("--help");
        let long = help(&args);
        for part in [
            "Kernels (KERNEL) and their --size syntax",
            "cutoff=C",
            LONG_EXIT_CODES,
        ] {
            assert!(
                long.contains(part),
                "{args:?}: {part:?} missing from:\n{long}"
            );
        }
        let mut short = command.to_vec();
        short.push("-h");
        assert!(
            !help(&short).contains("Kernels (KERNEL)"),
            "{short:?} lists the kernels"
        );
    }
    for command in [&["bench"][..], &["sim"]] {
        let long = help(&[command, &["--help"][..]].concat());
        assert!(long.contains("Policies (P)"), "{command:?}: {long}");
    }
    for command in [&[][..], &["topo"], &["sim", "matrix"]] {
        let long = help(&[command, &["--help"][..]].concat());
        assert!(long.contains(LONG_EXIT_CODES), "{command:?}: {long}");
    }
}
