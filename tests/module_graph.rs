//! The top-level modules of `src/` form a graph with no cycle, and so do the files inside
//! each of them (docs/architecture.md).
//!
//! Module level: reads every `.rs` file under `src/`, takes each `crate::<module>` path and
//! each `super::` path that climbs to the crate root, and reports any cycle between
//! top-level modules (`src/<name>.rs` or `src/<name>/`). Comment lines are skipped, so a doc
//! link is not an import. `lib.rs` and `main.rs` are the root and take no part.
//!
//! File level: each file is a module (`import/csv/mod.rs` is `import::csv`), and every
//! `crate::`, `super::` and `self::` path outside the file's `#[cfg(test)]` module (groups
//! `{a, b::c}` included) points at the deepest file its prefix names, as
//! `../shared/tools/filecycles.py` resolves them: `crate::inventory::ledger::apply` is
//! `inventory/ledger.rs`, `crate::import::ImportError` is `import/mod.rs`.

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
    let bottom = ["error", "config", "clock", "db", "http", "request_id"];
    for module in bottom {
        for target in graph.get(module).into_iter().flatten() {
            assert!(
                bottom.contains(&target.as_str()),
                "{module} (bottom layer) imports {target}"
            );
        }
    }
}

/// A file's module path below `src/`: `inventory/ledger.rs` is `inventory/ledger`,
/// `import/csv/mod.rs` is `import/csv`.
fn file_module(src: &Path, file: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = file
        .strip_prefix(src)
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return None;
    }
    if stem != "mod" {
        parts.push(stem.to_owned());
    }
    Some(parts)
}

/// The code of a file that counts as its imports: up to its `#[cfg(test)] mod`, without
/// `//` comments.
fn code_of(text: &str) -> String {
    let test_module = |after: &str| {
        let Some(rest) = after.trim_start().strip_prefix("mod") else {
            return false;
        };
        let name_len = rest
            .trim_start()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(0);
        rest.starts_with(char::is_whitespace)
            && name_len > 0
            && rest.trim_start()[name_len..].trim_start().starts_with('{')
    };
    let end = text
        .match_indices("#[cfg(test)]")
        .find(|(at, m)| test_module(&text[at + m.len()..]))
        .map_or(text.len(), |(at, _)| at);
    text[..end]
        .lines()
        .map(|l| l.find("//").map_or(l, |at| &l[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Ident(&'a str),
    Path,
    Open,
    Close,
    Comma,
    Other,
}

fn tokens(code: &str) -> Vec<Token<'_>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token::Ident(&code[start..i]));
            continue;
        }
        out.push(match c {
            b':' if bytes.get(i + 1) == Some(&b':') => {
                i += 1;
                Token::Path
            }
            b'{' => Token::Open,
            b'}' => Token::Close,
            b',' => Token::Comma,
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => Token::Other,
        });
        i += 1;
    }
    out
}

/// The paths of a use tree starting at `at` (an identifier), each prefixed by `prefix`:
/// `a::{b, c::d}` gives `a::b` and `a::c::d`, and `a` itself. Returns where it ended.
fn use_tree(
    toks: &[Token<'_>],
    mut at: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    while let Some(Token::Ident(name)) = toks.get(at) {
        if *name != "self" {
            prefix.push((*name).to_owned());
        }
        at += 1;
        if toks.get(at) != Some(&Token::Path) {
            break;
        }
        at += 1;
        if toks.get(at) == Some(&Token::Open) {
            at += 1;
            loop {
                match toks.get(at) {
                    Some(Token::Ident(_)) => at = use_tree(toks, at, prefix.clone(), out),
                    Some(Token::Comma) => at += 1,
                    Some(Token::Close) => return at + 1,
                    None => return at,
                    Some(_) => at += 1,
                }
            }
        }
    }
    out.push(prefix);
    at
}

/// Every module path a file's code names through `crate::`, `super::` or `self::`, made
/// absolute (from the crate root) for a file whose module is `module`.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let toks = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let after_path = i > 0 && toks[i - 1] == Token::Path;
        let start: Option<(Vec<String>, usize)> = match toks[i] {
            Token::Ident("crate") if !after_path => Some((Vec::new(), i + 1)),
            Token::Ident("self") if !after_path => Some((module.to_vec(), i + 1)),
            Token::Ident("super") if !after_path => {
                // `super` of a file `a/b.rs` (module a::b) is `a`; of `a/mod.rs` (module a),
                // the root.
                let mut base = module.to_vec();
                let mut at = i;
                while toks.get(at) == Some(&Token::Ident("super"))
                    && toks.get(at + 1) == Some(&Token::Path)
                {
                    base.pop();
                    at += 2;
                }
                Some((base, at.saturating_sub(1)))
            }
            _ => None,
        };
        match start {
            Some((base, at)) if toks.get(at) == Some(&Token::Path) => {
                let next = at + 1;
                match toks.get(next) {
                    Some(Token::Ident(_)) => i = use_tree(&toks, next, base, &mut out),
                    Some(Token::Open) => {
                        // `crate::{a, b}`: a tree whose root is the base itself.
                        let mut j = next + 1;
                        loop {
                            match toks.get(j) {
                                Some(Token::Ident(_)) => {
                                    j = use_tree(&toks, j, base.clone(), &mut out)
                                }
                                Some(Token::Close) | None => break,
                                Some(_) => j += 1,
                            }
                        }
                        i = j;
                    }
                    _ => i = next,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The file-level import graph of `src/`: `inventory/ledger` -> `inventory/events`, ...
fn file_graph(src: &Path) -> Graph {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    let files: BTreeMap<Vec<String>, &PathBuf> = paths
        .iter()
        .filter_map(|p| file_module(src, p).map(|m| (m, p)))
        .collect();
    let mut graph = Graph::new();
    for (module, path) in &files {
        let code = code_of(&fs::read_to_string(path).unwrap());
        let name = module.join("/");
        let edges = graph.entry(name.clone()).or_default();
        for named in named_paths(&code, module) {
            let target = (1..=named.len())
                .rev()
                .map(|n| &named[..n])
                .find(|prefix| files.contains_key(*prefix));
            if let Some(target) = target.map(|t| t.join("/")) {
                if target != name {
                    edges.insert(target);
                }
            }
        }
    }
    graph
}

#[test]
fn the_files_inside_every_module_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = file_graph(&src);
    assert!(
        graph["inventory/ledger"].contains("inventory/events"),
        "the file graph misses a known import: {graph:?}"
    );
    let found = cycles(&graph);
    let listing: String = found
        .iter()
        .map(|cycle| {
            let mut lines = format!("  a cycle of {} files:\n", cycle.len());
            for from in cycle {
                let file = |m: &str| {
                    let dir = src.join(m);
                    if dir.is_dir() {
                        format!("src/{m}/mod.rs")
                    } else {
                        format!("src/{m}.rs")
                    }
                };
                let to: Vec<String> = graph[from]
                    .iter()
                    .filter(|t| cycle.contains(t))
                    .map(|t| file(t))
                    .collect();
                lines += &format!("    {} imports {}\n", file(from), to.join(", "));
            }
            lines
        })
        .collect();
    assert!(
        found.is_empty(),
        "files that import each other in a circle (make each feature's files a DAG: move \
         what both need into a leaf file):\n{listing}"
    );
}

#[test]
fn the_file_checker_resolves_crate_super_self_and_groups() {
    let module = |m: &str| m.split('/').map(str::to_owned).collect::<Vec<_>>();
    let code = code_of(
        "use crate::http::{body::parse_id, query};\n\
         use super::{ledger::apply, events};\n\
         use super::super::db::Db; // crate::not::this\n\
         pub use self::csv::parse;\n\
         fn f() { crate::clock::now(); }\n\
         #[cfg(test)]\nmod tests { use crate::tests_only; }",
    );
    let named: Vec<String> = named_paths(&code, &module("inventory/x"))
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        named,
        [
            "http::body::parse_id",
            "http::query",
            "inventory::ledger::apply",
            "inventory::events",
            "db::Db",
            "inventory::x::csv::parse",
            "clock::now",
        ]
    );
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
