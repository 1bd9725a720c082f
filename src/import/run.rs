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
use crate::import::apply::{check_complete, doc_kind, ImportOutcome, Writer};
use crate::import::csv::{document_key, Document, MappedRow, ParsedFile, Prepared, Template};
use crate::import::fields::EntityType;
use crate::import::records::{LineRow, SubscriptionRow};
use crate::scope::Scope;

/// A document whose last line has not been read yet: its header and `(row, line)`s.
type OpenDocument = (Document, Vec<(usize, LineRow)>);

/// What a streamed pass gives back besides the writes.
pub struct Streamed {
    /// The file's header, mapping, notes … (`rows` holds the sample).
    pub file: ParsedFile,
    /// What the writer did (`None` without one).
    pub outcome: Option<ImportOutcome>,
}

/// Reads every row of `prepared`; with a writer (`Some(entity_id)`) writes the records
/// in `tx`, else only collects the row errors. Keeps the first `sample` typed rows in
/// `file.rows`. The caller commits `tx` (the run) or drops it (the preview's dry run).
pub fn stream(
    prepared: Prepared<'_>,
    write: Option<(&Transaction, &Scope, &str, &Clock)>,
    sample: usize,
) -> AppResult<Streamed> {
    let entity = prepared.file.entity_type;
    let mut rows: Vec<MappedRow> = Vec::new();
    let mut keep = |r: &MappedRow| {
        if rows.len() < sample {
            rows.push(r.clone());
        }
    };
    let Some((tx, scope, entity_id, clock)) = write else {
        let mut errors = Vec::new();
        let left = prepared.each_row(|r| -> AppResult<()> {
            match r {
                Ok(row) => keep(&row),
                Err(errs) => errors.extend(errs),
            }
            Ok(())
        })?;
        let mut file = prepared.file;
        file.add_left_out(&left);
        file.errors = errors;
        file.rows = rows;
        return Ok(Streamed {
            file,
            outcome: None,
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
    )?;
    let left = match entity {
        EntityType::Invoices | EntityType::Bills => {
            let kind = doc_kind(entity);
            let key = |l: &LineRow| document_key(l, entity, false);
            // Pass 1: the last row of each document.
            let mut last: HashMap<(String, String), usize> = HashMap::new();
            prepared.each_row(|r| -> AppResult<()> {
                if let Ok(m) = &r {
                    if let Some(l) = m.data.as_line() {
                        last.insert(key(l), m.row);
                    }
                }
                Ok(())
            })?;
            // Pass 2: gather each document's lines, write it at its last row.
            let mut open: HashMap<(String, String), OpenDocument> = HashMap::new();
            prepared.each_row(|r| -> AppResult<()> {
                let row = match r {
                    Ok(row) => row,
                    Err(errs) => {
                        w.fail_rows(errs);
                        return Ok(());
                    }
                };
                keep(&row);
                let n = row.row;
                let crate::import::records::RowData::Line(l) = row.data else {
                    return Ok(());
                };
                let k = key(&l);
                let done = last.get(&k) == Some(&n);
                let entry = match open.remove(&k) {
                    Some((mut doc, mut lines)) => {
                        doc.add_line(&l, n);
                        lines.push((n, l));
                        (doc, lines)
                    }
                    None => (Document::of_line(&l, n), vec![(n, l)]),
                };
                if done {
                    let (doc, lines) = entry;
                    let refs: Vec<(usize, &LineRow)> = lines.iter().map(|(n, l)| (*n, l)).collect();
                    w.document(kind, &doc, &refs)?;
                } else {
                    open.insert(k, entry);
                }
                Ok(())
            })?
        }
        EntityType::Subscriptions => {
            let mut last: HashMap<String, usize> = HashMap::new();
            prepared.each_row(|r| -> AppResult<()> {
                if let Ok(m) = &r {
                    if let Some(s) = m.data.as_subscription() {
                        last.insert(s.provider_ref.clone(), m.row);
                    }
                }
                Ok(())
            })?;
            let mut open: HashMap<String, (Template, Vec<(usize, SubscriptionRow)>)> =
                HashMap::new();
            prepared.each_row(|r| -> AppResult<()> {
                let row = match r {
                    Ok(row) => row,
                    Err(errs) => {
                        w.fail_rows(errs);
                        return Ok(());
                    }
                };
                keep(&row);
                let n = row.row;
                let crate::import::records::RowData::Subscription(s) = row.data else {
                    return Ok(());
                };
                let done = last.get(&s.provider_ref) == Some(&n);
                let entry = match open.remove(&s.provider_ref) {
                    Some((mut t, mut subs)) => {
                        t.add_row(&s, n);
                        subs.push((n, s));
                        (t, subs)
                    }
                    None => (Template::of_row(&s, n), vec![(n, s)]),
                };
                if done {
                    let (t, subs) = entry;
                    let refs: Vec<(usize, &SubscriptionRow)> =
                        subs.iter().map(|(n, s)| (*n, s)).collect();
                    w.template(&t, &refs)?;
                } else {
                    open.insert(entry.0.provider_ref.clone(), entry);
                }
                Ok(())
            })?
        }
        _ => prepared.each_row(|r| -> AppResult<()> {
            match r {
                Ok(row) => {
                    keep(&row);
                    w.row(row.row, &row.data)?;
                }
                Err(errs) => w.fail_rows(errs),
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
        outcome: Some(outcome),
    })
}
