//! The top-level modules of `src/` form a graph with no cycle (docs/architecture.md).
//!
//! Reads every `.rs` file under `src/`, takes each `crate::<module>` path and each `super::`
//! path that climbs to the crate root, and reports any cycle between top-level modules
//! (`src/<name>.rs` or `src/<name>/`). Comment lines are skipped, so a doc link is not an
//! import. `lib.rs` and `main.rs` are the root and take no part.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Identifiers that follow `prefix` in `line`, e.g. `crate::` in `use crate::db::Db;`.
fn names_after<'a>(line: &'a str, prefix: &str) -> Vec<(usize, &'a str)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find(prefix) {
        let start = from + at;
        let before_ok = start == 0 || {
            let c = line.as_bytes()[start - 1];
            !(c.is_ascii_alphanumeric() || c == b'_' || c == b':')
        };
        let rest = &line[start + prefix.len()..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if before_ok && len > 0 {
            found.push((start, &rest[..len]));
        }
        from = start + prefix.len();
    }
    found
}

fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel: Vec<String> = file
            .strip_prefix(src)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let top = match rel.as_slice() {
            [single] if single == "lib.rs" || single == "main.rs" => continue,
            [single] => single.trim_end_matches(".rs").to_owned(),
            [dir, ..] => dir.clone(),
            [] => continue,
        };
        // How many `super::` reach the crate root from this file's module.
        let last = rel.last().unwrap();
        let depth = rel.len() - 1 + usize::from(last != "mod.rs");
        let text = fs::read_to_string(&file).unwrap();
        let edges = graph.entry(top.clone()).or_default();
        for line in text.lines() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            for (_, target) in names_after(line, "crate::") {
                if target != top {
                    edges.insert(target.to_owned());
                }
            }
            for (start, _) in names_after(line, "super::") {
                let mut rest = &line[start..];
                let mut climbs = 0;
                while let Some(r) = rest.strip_prefix("super::") {
                    climbs += 1;
                    rest = r;
                }
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if climbs >= depth && !name.is_empty() && name != top {
                    edges.insert(name);
                }
            }
        }
    }
    graph
}

/// Every cycle's members (strongly connected components with more than one module, or a
/// module that imports itself), by Tarjan's algorithm.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    let nodes: BTreeSet<&str> = graph
        .iter()
        .flat_map(|(k, v)| std::iter::once(k.as_str()).chain(v.iter().map(String::as_str)))
        .collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn the_top_level_modules_of_src_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(
        graph.contains_key("http") && graph.contains_key("inventory"),
        "{graph:?}"
    );
    let found = cycles(&graph);
    let listing: String = graph
        .iter()
        .map(|(k, v)| {
            format!(
                "  {k} -> {}\n",
                v.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    assert!(
        found.is_empty(),
        "modules in a cycle: {found:?}\nthe graph:\n{listing}"
    );
}

#[test]
fn the_application_is_imported_by_no_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    let importers: Vec<&String> = graph
        .iter()
        .filter(|(_, to)| to.contains("app"))
        .map(|(from, _)| from)
        .collect();
    assert!(
        importers.is_empty(),
        "modules importing crate::app: {importers:?}"
    );
}

#[test]
fn the_bottom_layer_imports_no_feature() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    let bottom = ["error", "config", "clock", "db", "http"];
    for module in bottom {
        for target in graph.get(module).into_iter().flatten() {
            assert!(
                bottom.contains(&target.as_str()),
                "{module} (bottom layer) imports {target}"
            );
        }
    }
}

#[test]
fn the_checker_finds_a_cycle_when_there_is_one() {
    let mut graph = Graph::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    graph.entry("c".into()).or_default().insert("a".into());
    graph.entry("c".into()).or_default().insert("d".into());
    assert_eq!(
        cycles(&graph),
        vec![vec!["a".to_owned(), "b".into(), "c".into()]]
    );
    assert_eq!(
        names_after("use crate::db::{x, y};", "crate::"),
        vec![(4, "db")]
    );
    assert!(names_after("use foo_crate::db;", "crate::").is_empty());
}
