//! The CSV run and the preview's dry run, streamed: rows are read from the request's text
//! one at a time and each record is written as soon as it is complete, so memory beyond
//! the text is one record (one document's lines) and the dedup lookups, not a copy of
//! every row.
//!
//! Invoice and bill lines (and subscription rows) are grouped: a first pass notes the
//! last row of each document, the second keeps a document's lines until its last row and
//! then writes it. Export files list a document's lines together, so at most one
//! document is open at a time; lines spread over the file are still grouped.

use std::collections::HashMap;

use rusqlite::Transaction;

use crate::clock::Clock;
use crate::error::AppResult;
use crate::import::apply::{check_complete, doc_kind, ImportOutcome, Options, Writer};
use crate::import::csv::{
    document_key, template_key, Document, ErrorList, GroupKey, LeftOut, MappedRow, ParsedFile,
    Prepared, Template,
};
use crate::import::fields::EntityType;
use crate::import::records::{LineRow, RowData, SubscriptionRow};
use crate::scope::Scope;

/// What a streamed pass gives back besides the writes.
pub struct Streamed {
    /// The file's header, mapping, notes … (`rows` holds the sample).
    pub file: ParsedFile,
    /// What the writer did (`None` without one).
    pub outcome: Option<ImportOutcome>,
    /// Without a writer: how many row errors the file has (`file.errors` lists the
    /// first [`crate::import::csv::MAX_LISTED_ERRORS`]).
    pub error_count: usize,
}

/// Documents and templates: records made of several rows.
trait Group: Sized {
    type Row;
    fn peek(d: &RowData) -> Option<&Self::Row>;
    fn take(d: RowData) -> Option<Self::Row>;
    fn key(r: &Self::Row, entity: EntityType) -> GroupKey;
    /// Started by its first row (`n`: the spreadsheet row).
    fn start(r: &Self::Row, n: usize) -> Self;
    fn add(&mut self, r: &Self::Row, n: usize);
    fn failed_rows(&mut self) -> &mut Vec<usize>;
    fn write(
        &self,
        w: &mut Writer<'_>,
        entity: EntityType,
        rows: &[(usize, &Self::Row)],
    ) -> AppResult<()>;
}

impl Group for Document {
    type Row = LineRow;
    fn peek(d: &RowData) -> Option<&LineRow> {
        d.as_line()
    }
    fn take(d: RowData) -> Option<LineRow> {
        match d {
            RowData::Line(l) => Some(l),
            _ => None,
        }
    }
    fn key(l: &LineRow, entity: EntityType) -> GroupKey {
        document_key(l, entity, false)
    }
    fn start(l: &LineRow, n: usize) -> Self {
        Document::of_line(l, n)
    }
    fn add(&mut self, l: &LineRow, n: usize) {
        self.add_line(l, n);
    }
    fn failed_rows(&mut self) -> &mut Vec<usize> {
        &mut self.failed_rows
    }
    fn write(
        &self,
        w: &mut Writer<'_>,
        entity: EntityType,
        rows: &[(usize, &LineRow)],
    ) -> AppResult<()> {
        w.document(doc_kind(entity), self, rows)
    }
}

impl Group for Template {
    type Row = SubscriptionRow;
    fn peek(d: &RowData) -> Option<&SubscriptionRow> {
        d.as_subscription()
    }
    fn take(d: RowData) -> Option<SubscriptionRow> {
        match d {
            RowData::Subscription(s) => Some(s),
            _ => None,
        }
    }
    fn key(s: &SubscriptionRow, _: EntityType) -> GroupKey {
        template_key(&s.provider_ref)
    }
    fn start(s: &SubscriptionRow, n: usize) -> Self {
        Template::of_row(s, n)
    }
    fn add(&mut self, s: &SubscriptionRow, n: usize) {
        self.add_row(s, n);
    }
    fn failed_rows(&mut self) -> &mut Vec<usize> {
        &mut self.failed_rows
    }
    fn write(
        &self,
        w: &mut Writer<'_>,
        _: EntityType,
        rows: &[(usize, &SubscriptionRow)],
    ) -> AppResult<()> {
        w.template(self, rows)
    }
}

/// A group whose last row has not been read yet.
struct Open<G: Group> {
    head: Option<G>,
    rows: Vec<(usize, G::Row)>,
    failed: Vec<usize>,
}

/// The two passes over a file of grouped rows: the last row of each group, then each
/// group gathered and written at its last row. A group with a row that could not be read
/// is handed to the writer with those rows, which fails it whole.
fn grouped<G: Group>(
    prepared: &Prepared<'_>,
    w: &mut Writer<'_>,
    keep: &mut impl FnMut(&MappedRow),
) -> AppResult<LeftOut> {
    let entity = prepared.file.entity_type;
    let mut last: HashMap<GroupKey, usize> = HashMap::new();
    prepared.each_row(|r| -> AppResult<()> {
        match &r {
            Ok(m) => {
                if let Some(x) = G::peek(&m.data) {
                    last.insert(G::key(x, entity), m.row);
                }
            }
            Err(f) => {
                if let Some(g) = &f.group {
                    last.insert(g.clone(), f.row);
                }
            }
        }
        Ok(())
    })?;
    let mut open: HashMap<GroupKey, Open<G>> = HashMap::new();
    prepared.each_row(|r| -> AppResult<()> {
        let (key, n) = match r {
            Ok(m) => {
                keep(&m);
                let n = m.row;
                let Some(x) = G::take(m.data) else {
                    return Ok(());
                };
                let key = G::key(&x, entity);
                let o = open.entry(key.clone()).or_insert_with(|| Open {
                    head: None,
                    rows: Vec::new(),
                    failed: Vec::new(),
                });
                match &mut o.head {
                    Some(h) => h.add(&x, n),
                    None => o.head = Some(G::start(&x, n)),
                }
                o.rows.push((n, x));
                (key, n)
            }
            Err(f) => {
                w.fail_rows(f.errors);
                let Some(key) = f.group else {
                    return Ok(());
                };
                open.entry(key.clone())
                    .or_insert_with(|| Open {
                        head: None,
                        rows: Vec::new(),
                        failed: Vec::new(),
                    })
                    .failed
                    .push(f.row);
                (key, f.row)
            }
        };
        if last.get(&key) == Some(&n) {
            if let Some(o) = open.remove(&key) {
                if let Some(mut head) = o.head {
                    *head.failed_rows() = o.failed;
                    let refs: Vec<(usize, &G::Row)> = o.rows.iter().map(|(n, x)| (*n, x)).collect();
                    head.write(w, entity, &refs)?;
                }
            }
        }
        Ok(())
    })
}

/// Reads every row of `prepared`; with a writer (`Some(entity_id)`) writes the records
/// in `tx`, else only collects the row errors. Keeps the first `sample` typed rows in
/// `file.rows`. The caller commits `tx` (the run) or drops it (the preview's dry run).
/// `options` are the writer's (skipped records are always listed here).
pub fn stream(
    prepared: Prepared<'_>,
    write: Option<(&Transaction, &Scope, &str, &Clock)>,
    sample: usize,
    options: Options,
) -> AppResult<Streamed> {
    let entity = prepared.file.entity_type;
    let mut rows: Vec<MappedRow> = Vec::new();
    let mut keep = |r: &MappedRow| {
        if rows.len() < sample {
            rows.push(r.clone());
        }
    };
    let Some((tx, scope, entity_id, clock)) = write else {
        let mut errors = ErrorList::default();
        let left = prepared.each_row(|r| -> AppResult<()> {
            match r {
                Ok(row) => keep(&row),
                Err(f) => errors.extend(f.errors),
            }
            Ok(())
        })?;
        let mut file = prepared.file;
        file.add_left_out(&left);
        let (listed, error_count) = errors.finish();
        file.errors = listed;
        file.rows = rows;
        return Ok(Streamed {
            file,
            outcome: None,
            error_count,
        });
    };
    check_complete(&prepared.file)?;
    let f = &prepared.file;
    let mut w = Writer::new(
        tx,
        scope,
        entity_id,
        f.platform,
        f.contact_codes,
        &f.mapping,
        clock,
    )?
    .with_options(Options {
        list_skipped: true,
        ..options
    });
    let left = match entity {
        e if e.is_document() => grouped::<Document>(&prepared, &mut w, &mut keep)?,
        EntityType::Subscriptions => grouped::<Template>(&prepared, &mut w, &mut keep)?,
        _ => prepared.each_row(|r| -> AppResult<()> {
            match r {
                Ok(row) => {
                    keep(&row);
                    w.row(row.row, &row.data)?;
                }
                Err(f) => w.fail_rows(f.errors),
            }
            Ok(())
        })?,
    };
    let outcome = w.finish();
    let mut file = prepared.file;
    file.add_left_out(&left);
    file.rows = rows;
    Ok(Streamed {
        file,
        error_count: outcome.error_count,
        outcome: Some(outcome),
    })
}
