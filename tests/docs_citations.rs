//! Every rule the code cites is in the repository (docs/README.md#how-the-code-cites-this-reference).
//!
//! Reads the source files of `src/`, `tests/` and `static/`, finds every citation of the
//! form `docs/<page>.md` or `docs/<page>.md#<anchor>`, and fails when the page does not
//! exist or has no heading with that anchor. It also fails on a citation of the two
//! design documents the code used to cite, which are not in the repository: a section
//! sign followed by a digit, or the name of the decisions document.

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
