//! The layers of `src/` (see `main.rs`): the top (`main`, `app`), the subcommands, and
//! the shared modules. A module's uses of `crate::NAME` (outside comments) are its
//! edges; the subcommands use only shared modules, the shared modules no subcommand and
//! not the top, and the graph has no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top: parses and dispatches.
const TOP: &[&str] = &["main", "app"];
/// One module per subcommand (`matrix` and `sim_threads` are `sim`'s subcommands).
const COMMANDS: &[&str] = &[
    "bench",
    "sim",
    "sim_threads",
    "matrix",
    "profile",
    "map",
    "topo",
    "run",
    "trace",
];
/// What the subcommands share.
const SHARED: &[&str] = &[
    "cli", "given", "policies", "inputs", "limits", "failure", "report", "progress",
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module `crate::NAME` names of each line of `text` outside comments: `crate::a::b`
/// gives `a`, `crate::{a, b::c}` gives `a` and `b`.
fn uses(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or("");
                out.extend(group.split(',').map(|item| ident(item.trim())));
            } else {
                out.insert(ident(rest));
            }
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// Module -> the modules it uses, for `src/`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_str().unwrap().trim_end_matches(".rs").to_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        let mut used = uses(&text);
        used.remove(&module);
        graph.entry(module).or_default().extend(used);
    }
    graph
}

/// A cycle of `graph`, if it has one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_owned());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_owned());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_modules_form_layers_without_a_cycle() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph(&src);
    for module in graph.keys() {
        assert!(
            TOP.contains(&module.as_str())
                || COMMANDS.contains(&module.as_str())
                || SHARED.contains(&module.as_str()),
            "src/{module}: name its layer in tests/suite/modules.rs"
        );
    }
    for (module, used) in &graph {
        for u in used {
            assert!(
                graph.contains_key(u),
                "{module} uses crate::{u}, not a module"
            );
            if COMMANDS.contains(&module.as_str()) {
                assert!(
                    SHARED.contains(&u.as_str()),
                    "the subcommand {module} uses {u}: move what it needs to a shared module"
                );
            }
            if SHARED.contains(&module.as_str()) {
                assert!(
                    SHARED.contains(&u.as_str()),
                    "the shared module {module} uses {u}, which is above it"
                );
            }
        }
    }
    assert_eq!(cycle(&graph), None, "{graph:#?}");
}

#[test]
fn the_check_sees_uses_and_cycles() {
    let text = "use crate::a::B;\n// crate::comment\nlet x = crate::b::f(); use crate::{c, d::e};";
    let found: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(found, ["a", "b", "c", "d"]);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("x".into(), ["y".into()].into());
    g.insert("y".into(), ["z".into()].into());
    g.insert("z".into(), BTreeSet::new());
    assert_eq!(cycle(&g), None);
    g.get_mut("z").unwrap().insert("x".into());
    assert_eq!(cycle(&g).unwrap(), ["x", "y", "z", "x"]);
}
