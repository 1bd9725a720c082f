//! Every rule the code cites is in the repository (docs/README.md#how-the-code-cites-this-reference).
//!
//! Reads the source files of `src/`, `tests/` and `static/`, finds every citation of the
//! form `docs/<page>.md` or `docs/<page>.md#<anchor>`, and fails when the page does not
//! exist or has no heading with that anchor. It also fails on a citation of the two
//! design documents the code used to cite, which are not in the repository: a section
//! sign followed by a digit, or the name of the decisions document.
//!
//! It reads the prose the same way (the README, `docs/`, `BENCHMARKS.md`, `CHANGELOG.md`):
//! every relative Markdown link names a file, and a heading, that exist; every path under
//! one of the repository's folders (`src/...`, `tests/...`) exists; and no link or path
//! points outside the repository (`../elsewhere`, an absolute path to a checkout).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The directories whose files may cite the reference.
const ROOTS: [&str; 3] = ["src", "tests", "static"];
/// The source files among them (fixtures and images are not code).
const EXTENSIONS: [&str; 4] = ["rs", "js", "html", "css"];
/// The section sign of the old citations, spelt so this file does not contain one.
const SECTION_SIGN: char = '\u{a7}';
/// The old decisions document's name, spelt so this file does not contain it.
const OLD_DOC_NAME: &str = concat!("DECI", "SIONS");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            out.push(path);
        }
    }
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`.
fn anchor_of(heading: &str) -> String {
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

/// The anchors of a Markdown page's headings (outside code fences), with GitHub's `-1`,
/// `-2` suffixes for repeated headings.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor_of(&line[hashes..]);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// Every `docs/<page>.md[#anchor]` in `text`: (line number, page, anchor).
fn citations(text: &str) -> Vec<(usize, String, Option<String>)> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find("docs/") {
            let start = from + at + "docs/".len();
            from = start;
            let rest = &line[start..];
            let name_len = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
            let Some(after) = rest[name_len..].strip_prefix(".md") else {
                continue;
            };
            if name_len == 0 {
                continue;
            }
            let page = format!("{}.md", &rest[..name_len]);
            let anchor = after.strip_prefix('#').map(|a| {
                let len = a.find(|c: char| !word(c)).unwrap_or(a.len());
                a[..len].to_owned()
            });
            found.push((n + 1, page, anchor));
        }
    }
    found
}

/// Old-style citations in `text`: (line number, line).
fn old_citations(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            line.contains(OLD_DOC_NAME)
                || line
                    .char_indices()
                    .filter(|&(_, c)| c == SECTION_SIGN)
                    .any(|(i, c)| {
                        line[i + c.len_utf8()..]
                            .chars()
                            .next()
                            .is_some_and(|d| d.is_ascii_digit())
                    })
        })
        .map(|(n, line)| (n + 1, line.trim().to_owned()))
        .collect()
}

fn all_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ROOTS {
        source_files(&root().join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 50, "found only {} source files", files.len());
    files
}

/// The prose of the repository: the top-level Markdown files and the docs pages.
const PROSE: [&str; 3] = ["README.md", "BENCHMARKS.md", "CHANGELOG.md"];
/// The folders of the repository whose paths the prose may name.
const PATH_ROOTS: [&str; 7] = [
    "src/",
    "tests/",
    "benches/",
    "migrations/",
    "static/",
    "docs/",
    ".ci/",
];
/// Absolute paths of a checkout or a home directory: never part of the repository.
const OUTSIDE: [&str; 3] = ["/work/", "/home/", "/root/"];

fn prose_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = PROSE.iter().map(|f| root().join(f)).collect();
    for entry in fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// A character that may be part of a path in prose.
fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '#')
}

/// Every relative Markdown link `[text](target)` outside code fences: (line, target).
/// Web and mail links are left out.
fn links(markdown: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (n, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            let target = after[..end].trim();
            if !["http://", "https://", "mailto:"]
                .iter()
                .any(|p| target.starts_with(p))
            {
                found.push((n + 1, target.to_owned()));
            }
            rest = &after[end..];
        }
    }
    found
}

/// Every path in `text` (code blocks included) that starts at one of [`PATH_ROOTS`] or
/// climbs out of its folder with `../`: (line, path, anchor). A path stops at the first
/// character no path has (so `docs/<page>.md` is read as `docs/`); a full stop or comma
/// ending a sentence is not part of it.
fn paths(text: &str) -> Vec<(usize, String, Option<String>)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (i, _) in line.char_indices() {
            let rest = &line[i..];
            let starts = PATH_ROOTS.iter().any(|r| rest.starts_with(r)) || rest.starts_with("../");
            let joined = line[..i].chars().next_back().is_some_and(path_char);
            if !starts || joined {
                continue;
            }
            let len = rest.find(|c: char| !path_char(c)).unwrap_or(rest.len());
            let token = rest[..len].trim_end_matches(['.', ',']);
            let (path, anchor) = match token.split_once('#') {
                Some((p, a)) => (p, Some(a.to_owned())),
                None => (token, None),
            };
            found.push((n + 1, path.to_owned(), anchor));
        }
    }
    found
}

/// `path` joined to `base` with `.` and `..` resolved, or `None` when it climbs above
/// the repository root.
fn resolve(base: &Path, path: &str) -> Option<PathBuf> {
    let mut parts: Vec<String> = base
        .strip_prefix(root())
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p.to_owned()),
        }
    }
    Some(parts.iter().fold(root(), |acc, p| acc.join(p)))
}

/// What is wrong with a reference to `target` (a file, with an optional heading) made
/// from `dir`, if anything.
fn check_target(
    dir: &Path,
    target: &str,
    anchor: Option<&str>,
    own: &Path,
    headings: &mut BTreeMap<PathBuf, BTreeSet<String>>,
) -> Option<String> {
    let file = if target.is_empty() {
        own.to_path_buf()
    } else {
        let Some(file) = resolve(dir, target) else {
            return Some(format!("{target} is outside the repository"));
        };
        file
    };
    if !file.exists() {
        return Some(format!("{target} does not exist"));
    }
    let anchor = anchor.filter(|a| !a.is_empty())?;
    if file.extension().is_none_or(|e| e != "md") {
        return Some(format!(
            "{target}#{anchor}: only a Markdown page has headings"
        ));
    }
    let known = headings
        .entry(file.clone())
        .or_insert_with(|| anchors(&fs::read_to_string(&file).expect("Markdown files are UTF-8")));
    (!known.contains(anchor)).then(|| format!("{target} has no heading #{anchor}"))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_citation_names_a_page_and_heading_that_exist() {
    let docs = root().join("docs");
    let mut pages: BTreeMap<String, Option<BTreeSet<String>>> = BTreeMap::new();
    let mut broken = Vec::new();
    let mut count = 0;
    for file in all_sources() {
        let text = fs::read_to_string(&file).expect("source files are UTF-8");
        for (line, page, anchor) in citations(&text) {
            count += 1;
            let known = pages.entry(page.clone()).or_insert_with(|| {
                fs::read_to_string(docs.join(&page))
                    .ok()
                    .map(|md| anchors(&md))
            });
            let at = format!("{}:{line}", relative(&file));
            match (known, anchor) {
                (None, _) => broken.push(format!("{at}: docs/{page} does not exist")),
                (Some(headings), Some(a)) if !headings.contains(&a) => broken.push(format!(
                    "{at}: docs/{page} has no heading with the anchor #{a}"
                )),
                _ => {}
            }
        }
    }
    assert!(
        count > 100,
        "found only {count} citations: is the scan broken?"
    );
    assert!(
        broken.is_empty(),
        "broken citations:\n{}",
        broken.join("\n")
    );
}

#[test]
fn no_citation_of_the_old_design_documents_remains() {
    let mut left = Vec::new();
    for file in all_sources() {
        let text = fs::read_to_string(&file).expect("source files are UTF-8");
        for (line, content) in old_citations(&text) {
            left.push(format!("{}:{line}: {content}", relative(&file)));
        }
    }
    assert!(
        left.is_empty(),
        "cite docs/ instead (docs/README.md#how-the-code-cites-this-reference):\n{}",
        left.join("\n")
    );
}

#[test]
fn every_link_and_path_in_the_prose_resolves_inside_the_repository() {
    let mut headings = BTreeMap::new();
    let mut broken = Vec::new();
    let mut count = 0;
    for file in prose_files() {
        let text = fs::read_to_string(&file).expect("Markdown files are UTF-8");
        let dir = file.parent().expect("a file has a folder");
        let at = |line: usize| format!("{}:{line}", relative(&file));
        for (line, target) in links(&text) {
            count += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            if let Some(e) = check_target(dir, path, anchor, &file, &mut headings) {
                broken.push(format!("{}: link {e}", at(line)));
            }
        }
        for (line, path, anchor) in paths(&text) {
            count += 1;
            // A path is named from the repository root, a `../` path from its own folder.
            let from = if path.starts_with("../") {
                dir
            } else {
                root_dir()
            };
            if let Some(e) = check_target(from, &path, anchor.as_deref(), &file, &mut headings) {
                broken.push(format!("{}: path {e}", at(line)));
            }
        }
        for (n, line) in text.lines().enumerate() {
            for outside in OUTSIDE.iter().filter(|o| line.contains(*o)) {
                broken.push(format!(
                    "{}: {outside} is outside the repository",
                    at(n + 1)
                ));
            }
        }
    }
    assert!(
        count > 300,
        "found only {count} links and paths: is the scan broken?"
    );
    assert!(
        broken.is_empty(),
        "broken links and paths in the prose:\n{}",
        broken.join("\n")
    );
}

fn root_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_readme_maps_every_docs_page() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    for entry in fs::read_dir(root().join("docs")).expect("docs/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") {
            assert!(
                readme.contains(&format!("](docs/{name})")),
                "README.md does not link docs/{name}"
            );
        }
    }
}

#[test]
fn every_docs_page_is_listed_in_the_index() {
    let index = fs::read_to_string(root().join("docs/README.md")).expect("docs/README.md");
    for entry in fs::read_dir(root().join("docs")).expect("docs/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") && name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "docs/README.md does not link {name}"
            );
        }
    }
}

#[test]
fn the_checker_reads_anchors_citations_and_old_citations_as_github_and_the_code_do() {
    let md = "# Title\n## Decimals and rounding\n```\n## not a heading\n```\n\
              ## Stock as at a date, and gross margin\n## Paging\n## Paging\n#hashtag\n";
    let found = anchors(md);
    for a in [
        "title",
        "decimals-and-rounding",
        "stock-as-at-a-date-and-gross-margin",
        "paging",
        "paging-1",
    ] {
        assert!(found.contains(a), "{a} in {found:?}");
    }
    assert!(!found.contains("not-a-heading"));
    assert!(!found.contains("hashtag"));

    let cited = citations(
        "/// (docs/ledger.md#invariants, invariant 3) and docs/import.md.\n\
         // docs/screenshots/home.png, mydocs/x.txt\n",
    );
    assert_eq!(
        cited,
        vec![
            (1, "ledger.md".into(), Some("invariants".into())),
            (1, "import.md".into(), None),
        ]
    );

    let old =
        format!("/// (x {SECTION_SIGN}5)\n/// research {SECTION_SIGN}C1\n/// {OLD_DOC_NAME}\n");
    assert_eq!(
        old_citations(&old)
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>(),
        vec![1, 3]
    );
}

#[test]
fn the_prose_checker_reads_links_and_paths_as_a_reader_would() {
    let md = "See [a](ledger.md#invariants), [b](#x) and [c](https://e.org/a).\n\
              ```\n[not](a-link.md) src/in_a_fence.rs\n```\n\
              Read `src/config.rs`, tests/api/ and docs/<page>.md. Not mysrc/x.rs or /api/v1.\n\
              Run ../shared/bench/run.sh; cite docs/ledger.md#sign-rules, please.\n";
    assert_eq!(
        links(md),
        vec![(1, "ledger.md#invariants".to_owned()), (1, "#x".to_owned())]
    );
    assert_eq!(
        paths(md),
        vec![
            (3, "src/in_a_fence.rs".to_owned(), None),
            (5, "src/config.rs".to_owned(), None),
            (5, "tests/api/".to_owned(), None),
            (5, "docs/".to_owned(), None),
            (6, "../shared/bench/run.sh".to_owned(), None),
            (
                6,
                "docs/ledger.md".to_owned(),
                Some("sign-rules".to_owned())
            ),
        ]
    );
    let docs = root().join("docs");
    assert_eq!(
        resolve(&docs, "../src/config.rs"),
        Some(root().join("src/config.rs"))
    );
    assert_eq!(resolve(&docs, "../../shared/STYLE.md"), None);
    let mut headings = BTreeMap::new();
    let own = docs.join("ledger.md");
    assert_eq!(
        check_target(&docs, "ledger.md", Some("invariants"), &own, &mut headings),
        None
    );
    assert!(check_target(&docs, "", Some("no-such-heading"), &own, &mut headings).is_some());
    assert!(check_target(&docs, "no-such-page.md", None, &own, &mut headings).is_some());
    assert!(check_target(&docs, "../../shared/STYLE.md", None, &own, &mut headings).is_some());
}
