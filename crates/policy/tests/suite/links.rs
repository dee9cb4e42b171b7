//! The documentation's links and citations resolve: every relative link of the README,
//! of `docs/*.md` and of the README files beside the code names a file that exists
//! (and, with `#anchor`, a heading of that file); every repository path those pages and
//! the crates' module docs (`//!`) cite exists: `crates/...`, `docs/...`, `scripts/...`,
//! and in module docs also a relative path with a file name, which may be relative to
//! the file's folder, a folder above it, or a crate (`tests/suite/parsers.rs`); and
//! every section of the design a module doc names (`docs/design.md, "The words"`) is a
//! section or term of `docs/design.md`.
//!
//! Paths under a `target/` folder (build outputs) and paths with a wildcard (`*`, `{`)
//! are not checked.

use std::path::{Path, PathBuf};

/// The repository's root, two folders above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folders a repository path may start with.
const TOP: &[&str] = &["crates/", "docs/", "scripts/", ".ci/"];

/// File name endings that make a relative path in a module doc a path to check.
const ENDINGS: &[&str] = &[".rs", ".md", ".c", ".h", ".sh", ".toml", ".json", ".svg"];

/// A broken link or citation: where it is and what is wrong.
#[derive(Debug, PartialEq)]
struct Broken {
    file: String,
    line: usize,
    what: String,
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, other punctuation
/// dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            code = !code;
        } else if !code && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of a Markdown line's inline links `[text](target)`, with their place.
fn link_targets(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        out.push(after[..end].trim());
        rest = &after[end..];
    }
    out
}

/// `line` without its links' targets (checked as links, not again as citations).
fn without_link_targets(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..i + 1]);
        match rest[i + 2..].find(')') {
            Some(end) => rest = &rest[i + 2 + end + 1..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// The repository paths a line of text cites: words that start with one of [`TOP`]
/// (or, with `relative`, that contain a `/` and end with one of [`ENDINGS`]).
fn cited_paths(line: &str, relative: bool) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_-./*{},".contains(c);
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        let starts_word = k == 0 || !is_path_char(chars[k - 1].1);
        if starts_word && is_path_char(c) {
            let mut j = k;
            while j < chars.len() && is_path_char(chars[j].1) {
                j += 1;
            }
            let end = chars.get(j).map_or(line.len(), |&(e, _)| e);
            let word = line[i..end].trim_end_matches(['.', ',']);
            let top = TOP.iter().any(|t| word.starts_with(t));
            let rel = relative
                && word.contains('/')
                && !word.starts_with('/')
                && !word.starts_with("../")
                && ENDINGS.iter().any(|e| word.ends_with(e));
            if (top || rel) && !word.contains(['*', '{', ',']) && !word.contains("target/") {
                out.push(word.to_owned());
            }
            k = j;
        } else {
            k += 1;
        }
    }
    out
}

/// The design's page, as the code cites it.
const DESIGN: &str = "docs/design.md";

/// The section names a text cites from the design: `docs/design.md, "X"`,
/// `"X" (docs/design.md)` and `("X", docs/design.md)`.
fn design_sections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices(DESIGN) {
        let after = &text[i + DESIGN.len()..];
        if let Some(rest) = after.strip_prefix(", \"") {
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_owned());
            }
        }
        let before = text[..i].trim_end();
        let before = before
            .strip_suffix('(')
            .or_else(|| before.strip_suffix(','))
            .unwrap_or(before)
            .trim_end();
        if let Some(quoted) = before.strip_suffix('"') {
            if let Some(start) = quoted.rfind('"') {
                let name = &quoted[start + 1..];
                if !name.is_empty() && name.len() < 60 {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

/// Checks one Markdown page (`path` relative to `root`).
fn check_markdown(root: &Path, path: &str, text: &str, out: &mut Vec<Broken>) {
    let dir = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut code = false;
    for (n, line) in text.lines().enumerate() {
        let mut broken = |what: String| {
            out.push(Broken {
                file: path.to_owned(),
                line: n + 1,
                what,
            })
        };
        if line.starts_with("```") {
            code = !code;
            continue;
        }
        if !code {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = match target.split_once('#') {
                    Some((file, anchor)) => (file, Some(anchor)),
                    None => (target, None),
                };
                let page = if file.is_empty() {
                    text.to_owned()
                } else {
                    let resolved = root.join(dir).join(file);
                    if !resolved.exists() {
                        broken(format!("link to {target}: no such file"));
                        continue;
                    }
                    std::fs::read_to_string(&resolved).unwrap_or_default()
                };
                if let Some(anchor) = anchor {
                    if !anchors(&page).iter().any(|a| a == anchor) {
                        broken(format!("link to {target}: no heading #{anchor} there"));
                    }
                }
            }
        }
        for cited in cited_paths(&without_link_targets(line), false) {
            if !root.join(&cited).exists() {
                broken(format!("cites {cited}, which does not exist"));
            }
        }
    }
}

/// Checks the module docs (`//!` lines) of one Rust file (`path` relative to `root`).
fn check_module_docs(root: &Path, path: &str, text: &str, design: &str, out: &mut Vec<Broken>) {
    let bases: Vec<&Path> = Path::new(path).ancestors().skip(1).collect();
    let crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    let docs: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter_map(|(n, l)| l.strip_prefix("//!").map(|d| (n, d)))
        .collect();
    for &(n, line) in &docs {
        for cited in cited_paths(line, true) {
            let top = TOP.iter().any(|t| cited.starts_with(t));
            let found = if top {
                root.join(&cited).exists()
            } else {
                bases
                    .iter()
                    .any(|base| root.join(base).join(&cited).exists())
                    || crates.iter().any(|krate| krate.join(&cited).exists())
            };
            if !found {
                out.push(Broken {
                    file: path.to_owned(),
                    line: n + 1,
                    what: format!("cites {cited}, which does not exist"),
                });
            }
        }
    }
    let joined: String = docs
        .iter()
        .map(|(_, l)| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    let design = design.to_lowercase();
    for section in design_sections(&joined) {
        if !design.contains(&section.to_lowercase()) {
            out.push(Broken {
                file: path.to_owned(),
                line: docs.first().map_or(0, |(n, _)| n + 1),
                what: format!("cites {DESIGN}, {section:?}, which it does not have"),
            });
        }
    }
}

/// Every file under `dir` (relative to `root`) whose name ends with `ending`, outside
/// build outputs.
fn files(root: &Path, dir: &str, ending: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        if entry.path().is_dir() {
            if name != "target" && !name.starts_with('.') {
                files(root, &path, ending, out);
            }
        } else if name.ends_with(ending) {
            out.push(path);
        }
    }
}

/// Everything broken in the repository's documentation.
fn broken_in_repository() -> Vec<Broken> {
    let root = root();
    let read =
        |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let design = read("docs/design.md");
    let mut pages = vec!["README.md".to_owned()];
    files(&root, "docs", ".md", &mut pages);
    files(&root, "crates", "README.md", &mut pages);
    let mut out = Vec::new();
    for page in &pages {
        check_markdown(&root, page, &read(page), &mut out);
    }
    let mut sources = Vec::new();
    files(&root, "crates", ".rs", &mut sources);
    for source in &sources {
        check_module_docs(&root, source, &read(source), &design, &mut out);
    }
    out
}

#[test]
fn every_link_and_cited_path_exists() {
    let broken = broken_in_repository();
    let lines: Vec<String> = broken
        .iter()
        .map(|b| format!("{}:{}: {}", b.file, b.line, b.what))
        .collect();
    assert!(
        broken.is_empty(),
        "broken links or citations in the documentation:\n{}",
        lines.join("\n")
    );
}

#[test]
fn a_broken_link_or_citation_is_seen() {
    let root = root();
    let page = "# Title\n\n## Some part\n\nSee [the part](#some-part), [design](docs/design.md), \
                [gone](docs/gone.md), [no heading](docs/design.md#no-such-heading) and \
                `crates/policy/src/nothing.rs`, but not `crates/x/target/y` or `crates/*/x.rs`.\n\
                ```text\n[in code](nowhere.md)\n```\n";
    let mut out = Vec::new();
    check_markdown(&root, "README.md", page, &mut out);
    let what: Vec<&str> = out.iter().map(|b| b.what.as_str()).collect();
    assert_eq!(
        what,
        [
            "link to docs/gone.md: no such file",
            "link to docs/design.md#no-such-heading: no heading #no-such-heading there",
            "cites crates/policy/src/nothing.rs, which does not exist",
        ]
    );
    assert!(out.iter().all(|b| b.line == 5), "{out:?}");

    let source = "//! Pools (docs/design.md, \"The words\"; \"One policy, two engines\" (docs/design.md)).\n\
                  //! See `lib.rs`, `suite/main.rs`, `src/policies/mts.rs`, `tests/suite/main.rs`,\n\
                  //! `sleep/README.md` and (docs/design.md, \"No\n\
                  //! such part\").\n\nfn main() {}\n";
    let design = "## The words\n\n### One policy, two engines\n";
    let mut out = Vec::new();
    check_module_docs(&root, "crates/policy/tests/x.rs", source, design, &mut out);
    let what: Vec<&str> = out.iter().map(|b| b.what.as_str()).collect();
    assert_eq!(
        what,
        [
            "cites sleep/README.md, which does not exist",
            "cites docs/design.md, \"No such part\", which it does not have",
        ]
    );
}

#[test]
fn headings_become_githubs_anchors() {
    assert_eq!(
        slug(" The papers' figures, side by side"),
        "the-papers-figures-side-by-side"
    );
    assert_eq!(
        slug(" N-tier: the profile's top dealt by position, stolen own package first"),
        "n-tier-the-profiles-top-dealt-by-position-stolen-own-package-first"
    );
    assert_eq!(slug(" The `locus` command"), "the-locus-command");
}
