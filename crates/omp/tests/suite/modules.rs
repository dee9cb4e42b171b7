//! The crate's modules form no cycle: each file of `src/` names the modules it uses
//! (`crate::NAME` paths and `use crate::{...}` lists), and the graph of those uses,
//! file by file (a folder's files apart from their parent), has no cycle, so the crate
//! reads from the bottom (settings, waits, records) up to the entry points (`abi/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module of `src` (by its path below `src`, without `.rs`; `abi/loops` for
/// `src/abi/loops.rs`) and the source text of its file.
fn modules(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "tests" {
                modules(&path, &format!("{prefix}{name}/"), out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            out.insert(format!("{prefix}{name}"), text);
        }
    }
}

/// The modules a file's code names: `crate::a::b` names `a/b` if that is a module,
/// else `a`; `super::x` in `a/b` names `a/x` (or `a`); `use crate::{a, b}` names each.
/// Comments are left out.
fn uses(module: &str, text: &str, all: &BTreeSet<String>) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let parent = module.rsplit_once('/').map_or("", |(p, _)| p);
    let mut found = BTreeSet::new();
    let mut resolve = |path: &[&str]| {
        for n in (1..=path.len()).rev() {
            let name = path[..n].join("/");
            if all.contains(&name) {
                found.insert(name);
                return;
            }
        }
    };
    for (anchor, base) in [("crate::", ""), ("super::", parent)] {
        for (i, _) in code.match_indices(anchor) {
            let rest = &code[i + anchor.len()..];
            let prefix: Vec<&str> = if base.is_empty() {
                vec![]
            } else {
                base.split('/').collect()
            };
            if let Some(list) = rest.strip_prefix('{') {
                let list = &list[..list.find('}').unwrap_or(list.len())];
                for item in list.split(',') {
                    let item = item.trim().split("::").next().unwrap_or("").trim();
                    let mut p = prefix.clone();
                    p.push(item);
                    resolve(&p);
                }
            } else {
                let words: Vec<&str> = rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|w| !w.is_empty())
                    .collect();
                let mut p = prefix.clone();
                p.extend(words);
                resolve(&p);
            }
        }
    }
    found.remove(module);
    found
}

/// The modules left once every module whose uses are all gone has gone, over and over
/// (Kahn's order, from the bottom up): empty if and only if `graph` has no cycle; else
/// the cycles and the modules that use them.
fn left_over(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let mut left: BTreeSet<String> = graph.keys().cloned().collect();
    loop {
        let bottom: Vec<String> = left
            .iter()
            .filter(|m| graph[*m].iter().all(|u| !left.contains(u)))
            .cloned()
            .collect();
        if bottom.is_empty() {
            return left;
        }
        for m in bottom {
            left.remove(&m);
        }
    }
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut sources = BTreeMap::new();
    modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut sources,
    );
    let all: BTreeSet<String> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(m, text)| (m.clone(), uses(m, text, &all)))
        .collect()
}

#[test]
fn the_modules_form_no_cycle() {
    let graph = graph();
    assert!(graph.len() > 20, "{graph:?}");
    assert!(
        graph["abi/loops"].contains("loops"),
        "{:?}",
        graph["abi/loops"]
    );
    assert!(graph["team"].contains("member"), "{:?}", graph["team"]);
    let left = left_over(&graph);
    let edges: Vec<String> = left
        .iter()
        .map(|m| {
            format!(
                "{m} -> {:?}",
                graph[m].intersection(&left).collect::<Vec<_>>()
            )
        })
        .collect();
    assert!(left.is_empty(), "modules on or above a cycle: {edges:#?}");
}

#[test]
fn a_cycle_is_left_over() {
    let edge = |a: &str, b: &[&str]| (a.to_string(), b.iter().map(|s| s.to_string()).collect());
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::from([
        edge("a", &["b"]),
        edge("b", &["c"]),
        edge("c", &["a"]),
        edge("d", &["a"]),
    ]);
    assert_eq!(left_over(&graph).len(), 4);
    graph.insert("c".to_string(), BTreeSet::new());
    assert!(left_over(&graph).is_empty());
}
