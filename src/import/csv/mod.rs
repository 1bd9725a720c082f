//! CSV exports: reading, detecting the platform and data type, mapping columns to
//! fields, parsing values and grouping invoice lines into documents.
//!
//! Pure: no database, no HTTP. [`parse`] is the one entry point; the preview and the run
//! steps both call it (the run inside its `db.write` transaction) and store what it
//! returns.
//!
//! The text is read with the `csv` crate straight from the request's `&str`, never
//! copied: once to find the header, once to gather evidence about dates, once to build
//! the rows, and, for files that can hold several data types (Xero sales/bills exports,
//! Sage 50 audit trails) when no type was given, once more to count the rows' types.
//! Memory beyond the text is the parsed rows themselves.

mod generic;
pub mod header;
mod layouts;
mod rows;
pub mod values;

use std::collections::{BTreeMap, HashMap};

use ::csv::{ReaderBuilder, StringRecord};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use time::Date;

use crate::db::decimal::Money;
use crate::import::error::ImportError;
use crate::import::fields::{EntityType, Field, FieldSpec};
use crate::import::platform::Platform;
use crate::import::records::{
    ser_opt_date, DocStatus, Interval, LineRow, RowData, SubscriptionRow, TemplateStatus,
};

pub use layouts::{csv_data_types, Aux};
pub use values::DateOrder;

use header::{display, normalise};
use layouts::{Layout, Target, LAYOUTS};
use values::DateEvidence;

/// How many leading rows may come before the header (report titles of QuickBooks
/// exports, blank lines).
const HEADER_SEARCH_ROWS: usize = 10;

/// One column of the file and what it feeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnMap {
    /// 0-based position in the file.
    pub column: usize,
    /// The header text (BOM and outer spaces removed); for headerless files the
    /// layout's documented column name.
    pub header: String,
    /// The mapping target, if any.
    pub field: Option<Field>,
    /// A helper use of the column that is not a mapping target (see [`Aux`]).
    pub aux: Option<Aux>,
}

/// The `mapping` of the preview: header → field or null, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mapping(pub Vec<ColumnMap>);

impl Mapping {
    /// The field of the first column with this header (exact text, else normalised).
    pub fn field_of(&self, header: &str) -> Option<Field> {
        self.find(header).and_then(|c| c.field)
    }

    fn find(&self, header: &str) -> Option<&ColumnMap> {
        self.0.iter().find(|c| c.header == header).or_else(|| {
            let key = normalise(header);
            self.0.iter().find(|c| normalise(&c.header) == key)
        })
    }

    /// The headers mapped to a field, in file order.
    pub fn headers_for(&self, field: Field) -> Vec<&str> {
        self.0
            .iter()
            .filter(|c| c.field == Some(field))
            .map(|c| c.header.as_str())
            .collect()
    }

    /// The mapping in the shape a caller sends back to remap: header → field name.
    pub fn to_request(&self) -> HashMap<String, Option<String>> {
        self.0
            .iter()
            .map(|c| (c.header.clone(), c.field.map(|f| f.as_str().to_owned())))
            .collect()
    }

    /// Header → field, sorted by header (for tests and logs).
    pub fn to_sorted(&self) -> BTreeMap<String, Option<&'static str>> {
        self.0
            .iter()
            .map(|c| (c.header.clone(), c.field.map(Field::as_str)))
            .collect()
    }
}

impl Serialize for Mapping {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for c in &self.0 {
            m.serialize_entry(&c.header, &c.field)?;
        }
        m.end()
    }
}

/// A problem with one row: its spreadsheet row number (header = row 1), the column when
/// one is to blame (its header, cut to [`header::SHORT_HEADER_CHARS`] characters, and
/// its 1-based position), and a message that names both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowError {
    pub row: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    #[serde(rename = "columnIndex", skip_serializing_if = "Option::is_none")]
    pub column_index: Option<usize>,
    pub message: String,
}

/// Most row errors an import answer lists (docs/limits.md); `errorCount` gives the total.
pub const MAX_LISTED_ERRORS: usize = 1_000;

/// Row errors as an answer lists them: the first [`MAX_LISTED_ERRORS`] in row order, and
/// how many there were. Memory stays bounded whatever the file: at most twice the cap is
/// held before the list is sorted and cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorList {
    list: Vec<RowError>,
    count: usize,
}

impl ErrorList {
    pub fn push(&mut self, e: RowError) {
        self.count += 1;
        self.list.push(e);
        if self.list.len() == 2 * MAX_LISTED_ERRORS {
            self.cut();
        }
    }

    fn cut(&mut self) {
        self.list.sort_by_key(|e| e.row);
        self.list.truncate(MAX_LISTED_ERRORS);
    }

    /// The listed errors in row order, and the total.
    pub fn finish(mut self) -> (Vec<RowError>, usize) {
        self.cut();
        (self.list, self.count)
    }

    pub fn count(&self) -> usize {
        self.count
    }
}

impl Extend<RowError> for ErrorList {
    fn extend<I: IntoIterator<Item = RowError>>(&mut self, iter: I) {
        for e in iter {
            self.push(e);
        }
    }
}

/// A row that passed validation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MappedRow {
    /// Spreadsheet row number.
    pub row: usize,
    #[serde(flatten)]
    pub data: RowData,
}

/// An invoice or bill: the lines of the file that share a number (bills: supplier and
/// number; no number: contact and issue date). Header values come from the first line
/// that has them; when the lines carry their own totals (`line_total`), the document's
/// total is their sum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    pub number: Option<String>,
    pub contact_name: String,
    #[serde(serialize_with = "crate::import::records::ser_date")]
    pub issue_date: Date,
    #[serde(serialize_with = "ser_opt_date")]
    pub due_date: Option<Date>,
    pub status: Option<DocStatus>,
    pub total: Option<Money>,
    pub amount_paid: Option<Money>,
    #[serde(serialize_with = "ser_opt_date")]
    pub paid_date: Option<Date>,
    pub currency: Option<String>,
    pub exchange_rate: Option<crate::db::decimal::Rate>,
    /// Credits: the invoice or bill credited, by number or by the source's reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_ref: Option<String>,
    pub provider_ref: Option<String>,
    /// Indexes into [`ParsedFile::rows`], in file order.
    pub rows: Vec<usize>,
    /// Spreadsheet rows of this document that could not be read: it is not imported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_rows: Vec<usize>,
    /// `total` sums the lines' own totals (see [`LineRow::line_total`]).
    #[serde(skip)]
    sums_line_totals: bool,
    /// Contacts other than `contact_name` that later rows of the same number name: the
    /// rows are not one document, and it is not imported (docs/import.md#imported-documents).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_contacts: Vec<String>,
}

/// A recurring invoice template: the subscription rows that share a provider reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Template {
    pub provider_ref: String,
    pub contact_name: String,
    pub interval: Interval,
    pub interval_count: Option<u32>,
    #[serde(serialize_with = "ser_opt_date")]
    pub next_date: Option<Date>,
    pub status: Option<TemplateStatus>,
    /// Indexes into [`ParsedFile::rows`], in file order.
    pub rows: Vec<usize>,
    /// Spreadsheet rows of this subscription that could not be read: it is not imported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_rows: Vec<usize>,
}

/// Everything [`parse`] learnt from a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedFile {
    pub platform: Platform,
    /// Whether a known layout was recognised (false: the mapping is a suggestion from
    /// header names, to be confirmed or remapped).
    pub detected: bool,
    /// The recognised layout's name.
    pub layout: Option<&'static str>,
    #[serde(rename = "entityType")]
    pub entity_type: EntityType,
    pub headers: Vec<String>,
    /// The file has no header row (Sage 50 reports); `headers` are the layout's names.
    pub headerless: bool,
    pub mapping: Mapping,
    pub fields: &'static [FieldSpec],
    /// Required fields no column provides. When not empty no row was parsed: the
    /// mapping needs fixing first.
    pub missing_required: Vec<Field>,
    pub date_order: DateOrder,
    /// Contacts are named by account code (Sage 50, KashFlow): match them to a
    /// contact's `provider_ref` before its name.
    pub contact_codes: bool,
    pub rows: Vec<MappedRow>,
    /// Invoices and bills: lines grouped into documents.
    pub documents: Vec<Document>,
    /// Subscriptions: rows grouped into templates.
    pub templates: Vec<Template>,
    pub errors: Vec<RowError>,
    /// Data rows in the file (blank rows not counted).
    pub total_rows: usize,
    /// Rows of other transaction types than the file's data type, left out.
    pub left_out: usize,
    /// Plain-language remarks: what was recognised, how dates were read …
    pub notes: Vec<String>,
}

impl ParsedFile {
    /// The typed rows of a document, in file order.
    pub fn lines<'a>(&'a self, doc: &'a Document) -> impl Iterator<Item = &'a MappedRow> + 'a {
        doc.rows.iter().map(move |&i| &self.rows[i])
    }
}

fn is_blank(r: &StringRecord) -> bool {
    r.iter().all(|c| c.trim().is_empty())
}

/// Comma unless the first line has none and has semicolons or tabs.
fn delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    if first.contains(',') {
        b','
    } else if first.contains('\t') {
        b'\t'
    } else if first.contains(';') {
        b';'
    } else {
        b','
    }
}

/// Longest header or cell a file may have, in characters (docs/limits.md#text).
pub const MAX_CELL_CHARS: usize = 1_024;

fn too_long(cell: &str) -> bool {
    cell.len() > MAX_CELL_CHARS && cell.chars().count() > MAX_CELL_CHARS
}

/// The file's records, each with its spreadsheet row number (1-based), skipping none.
struct Records<'t> {
    reader: ::csv::Reader<&'t [u8]>,
    record: StringRecord,
    index: usize,
}

impl<'t> Records<'t> {
    fn new(text: &'t str, delim: u8) -> Self {
        let reader = ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delim)
            .from_reader(text.as_bytes());
        Self {
            reader,
            record: StringRecord::new(),
            index: 0,
        }
    }

    /// The next record and its row number, reusing one buffer. A header or cell longer
    /// than [`MAX_CELL_CHARS`] refuses the file.
    fn next(&mut self) -> Result<Option<(usize, &StringRecord)>, ImportError> {
        match self.reader.read_record(&mut self.record) {
            Ok(true) => {
                self.index += 1;
                if let Some(i) = self.record.iter().position(too_long) {
                    return Err(ImportError::CellTooLong {
                        row: self.index,
                        column: i + 1,
                    });
                }
                Ok(Some((self.index, &self.record)))
            }
            Ok(false) => Ok(None),
            Err(e) => Err(ImportError::Malformed(e.to_string())),
        }
    }
}

/// How the file was recognised.
enum Plan {
    /// A known layout; `header_row` is `None` for headerless files. Several layouts when
    /// the same file can hold several data types (chosen by type or by the kind column).
    Layout {
        header_row: Option<usize>,
        layouts: Vec<&'static Layout>,
    },
    /// No layout: names suggest the mapping.
    Generic { header_row: usize },
}

/// Layouts whose fingerprint the header keys complete: the best-scoring one and those of
/// the same shape (same file, other data types).
fn header_candidates(keys: &[String], platform: Option<Platform>) -> Vec<&'static Layout> {
    let mut scored: Vec<(usize, usize, &'static Layout)> = LAYOUTS
        .iter()
        .enumerate()
        .filter(|(_, l)| platform.is_none_or(|p| p == l.platform))
        .filter_map(|(i, l)| l.score(keys).map(|s| (s, i, l)))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let Some(&(_, _, best)) = scored.first() else {
        return Vec::new();
    };
    let mut out: Vec<&'static Layout> = Vec::new();
    for (_, _, l) in scored {
        if l.same_shape(best) && !out.iter().any(|o| std::ptr::eq(*o, l)) {
            out.push(l);
        }
    }
    out
}

fn positional_candidates(rec: &StringRecord, platform: Option<Platform>) -> Vec<&'static Layout> {
    let first = LAYOUTS
        .iter()
        .filter(|l| platform.is_none_or(|p| p == l.platform))
        .find(|l| l.shape.is_some_and(|shape| shape(rec)));
    match first {
        Some(best) => LAYOUTS
            .iter()
            .filter(|l| l.shape.is_some() && l.same_shape(best))
            .collect(),
        None => Vec::new(),
    }
}

/// Finds the header row and the layout among the first rows of the file.
fn plan(
    text: &str,
    delim: u8,
    platform: Option<Platform>,
) -> Result<(Plan, Vec<String>), ImportError> {
    let mut records = Records::new(text, delim);
    let mut leading: Vec<(usize, StringRecord)> = Vec::new();
    while let Some((row, rec)) = records.next()? {
        if row > HEADER_SEARCH_ROWS {
            break;
        }
        if is_blank(rec) {
            continue;
        }
        leading.push((row, rec.clone()));
        if platform == Some(Platform::Generic) {
            continue;
        }
        let keys: Vec<String> = rec.iter().map(normalise).collect();
        let layouts = header_candidates(&keys, platform);
        if !layouts.is_empty() {
            let headers = rec.iter().map(display).collect();
            return Ok((
                Plan::Layout {
                    header_row: Some(row),
                    layouts,
                },
                headers,
            ));
        }
    }
    let Some((row, rec)) = leading.first().cloned() else {
        return Err(ImportError::Empty);
    };
    if platform != Some(Platform::Generic) {
        let layouts = positional_candidates(&rec, platform);
        if let Some(l) = layouts.first() {
            let headers = (0..rec.len())
                .map(|i| {
                    l.columns
                        .get(i)
                        .map_or_else(|| format!("Column {}", i + 1), |(n, _)| (*n).to_owned())
                })
                .collect();
            return Ok((
                Plan::Layout {
                    header_row: None,
                    layouts,
                },
                headers,
            ));
        }
    }
    let (row, rec) = generic_header(&leading).unwrap_or((row, rec));
    let headers = rec.iter().map(display).collect();
    Ok((Plan::Generic { header_row: row }, headers))
}

/// The header row of a file no layout recognises: the first of the leading rows that
/// names at least two columns and at least half as many as the widest of them. A
/// report's title rows above the header (Invoice Ninja's and QuickBooks' exports: a
/// title, the company, the date range, one cell each) are passed over
/// (docs/import.md#preview).
fn generic_header(leading: &[(usize, StringRecord)]) -> Option<(usize, StringRecord)> {
    let filled = |r: &StringRecord| r.iter().filter(|c| !c.trim().is_empty()).count();
    let widest = leading.iter().map(|(_, r)| filled(r)).max()?;
    leading
        .iter()
        .find(|(_, r)| filled(r) >= 2 && filled(r) * 2 >= widest)
        .cloned()
}

/// The mapping a layout gives a file's columns. A field takes its first column only
/// (`address` takes all of them).
fn layout_mapping(layout: &Layout, headers: &[String], headerless: bool) -> Mapping {
    let mut taken: Vec<Field> = Vec::new();
    let cols = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let target = if headerless {
                layout.columns.get(i).map(|(_, t)| *t)
            } else {
                layout.target(&normalise(h))
            };
            let (mut field, aux) = match target {
                Some(Target::F(f)) => (Some(f), None),
                Some(Target::A(a)) => (None, Some(a)),
                _ => (None, None),
            };
            if let Some(f) = field {
                if f != Field::Address && taken.contains(&f) {
                    field = None;
                } else {
                    taken.push(f);
                }
            }
            ColumnMap {
                column: i,
                header: h.clone(),
                field,
                aux,
            }
        })
        .collect();
    Mapping(cols)
}

fn generic_mapping(headers: &[String], entity: EntityType) -> Mapping {
    let keys: Vec<String> = headers.iter().map(|h| normalise(h)).collect();
    let fields = generic::suggest(&keys, entity);
    let aux = generic::helpers(&keys, &fields, entity);
    Mapping(
        headers
            .iter()
            .zip(fields)
            .zip(aux)
            .enumerate()
            .map(|(i, ((h, field), aux))| ColumnMap {
                column: i,
                header: h.clone(),
                field,
                aux,
            })
            .collect(),
    )
}

/// The type a file without a layout most plausibly holds: the one whose required fields
/// the header names all provide, with the most columns mapped.
fn guess_entity(headers: &[String]) -> Option<EntityType> {
    EntityType::ALL
        .into_iter()
        .filter_map(|e| {
            let m = generic_mapping(headers, e);
            let cols = rows::Columns::new(&m);
            let complete = e
                .fields()
                .iter()
                .filter(|f| f.required)
                .all(|f| cols.provides(f.field));
            complete.then(|| (m.0.iter().filter(|c| c.field.is_some()).count(), e))
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, e)| e)
}

/// Applies a caller's mapping: the columns it names take its field (or none); other
/// columns keep theirs unless the caller gave their field to another column.
fn apply_override(
    mapping: &mut Mapping,
    entity: EntityType,
    overrides: &HashMap<String, Option<String>>,
) -> Result<(), ImportError> {
    let mut chosen: Vec<(usize, Option<Field>)> = Vec::new();
    for (header, field) in overrides {
        let column = mapping
            .find(header)
            .map(|c| c.column)
            .ok_or_else(|| ImportError::UnknownColumn(header.clone()))?;
        let field = match field.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(name) => Some(
                entity
                    .field(name)
                    .ok_or_else(|| ImportError::UnknownField {
                        field: name.to_owned(),
                        entity,
                    })?,
            ),
        };
        if let Some(f) = field {
            if f != Field::Address && chosen.iter().any(|(c, g)| *g == Some(f) && *c != column) {
                return Err(ImportError::DuplicateField(f));
            }
        }
        chosen.push((column, field));
    }
    for c in &mut mapping.0 {
        if let Some((_, f)) = chosen.iter().find(|(col, _)| *col == c.column) {
            if c.field != *f {
                c.aux = None;
            }
            c.field = *f;
        } else if let Some(f) = c.field {
            if f != Field::Address && chosen.iter().any(|(_, g)| *g == Some(f)) {
                c.field = None;
            }
        }
    }
    Ok(())
}

fn kind_column(mapping: &Mapping) -> Option<usize> {
    mapping
        .0
        .iter()
        .find(|c| c.aux == Some(Aux::Kind))
        .map(|c| c.column)
}

/// Reads a CSV export.
///
/// - `entity_type_hint`: the data type the caller says the file holds. A file recognised
///   as another type is refused; files that hold several types (Xero invoices and bills,
///   Sage 50 audit trails) keep only this type's rows.
/// - `platform_hint`: a platform identifier; detection then only considers its layouts,
///   and `generic` skips detection. API-only platforms and types a platform's exports
///   cannot supply are refused.
/// - `mapping_override`: header → field name (or null) from the remap step.
///
/// Rows that fail validation come back as [`RowError`]s; good rows still come through.
pub fn parse(
    csv_text: &str,
    entity_type_hint: Option<EntityType>,
    platform_hint: Option<&str>,
    mapping_override: Option<&HashMap<String, Option<String>>>,
) -> Result<ParsedFile, ImportError> {
    let prepared = prepare(csv_text, entity_type_hint, platform_hint, mapping_override)?;
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let left_out = prepared.each_row(|r| -> Result<(), ImportError> {
        match r {
            Ok(row) => rows.push(row),
            Err(f) => failures.push(f),
        }
        Ok(())
    })?;
    Ok(prepared.into_parsed(rows, failures, left_out))
}

/// A file whose header, layout, mapping and date order are known, ready to hand its rows
/// out one at a time ([`Prepared::each_row`]) without holding them: the streaming form
/// of [`parse`]. `file` has everything but the rows, documents, templates and errors.
pub struct Prepared<'t> {
    text: &'t str,
    delim: u8,
    data_from: usize,
    cols: rows::Columns,
    contact_type: Option<crate::import::records::ContactType>,
    status: Option<DocStatus>,
    kind_col: Option<usize>,
    kind_of: Option<fn(&str) -> Option<EntityType>>,
    pub file: ParsedFile,
}

/// Rows of other transaction types than the file's data type, by their kind cell.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LeftOut(pub BTreeMap<String, usize>);

/// Everything of [`parse`] but the rows: the passes that find the header, the layout,
/// the mapping and the date order.
pub fn prepare<'t>(
    csv_text: &'t str,
    entity_type_hint: Option<EntityType>,
    platform_hint: Option<&str>,
    mapping_override: Option<&HashMap<String, Option<String>>>,
) -> Result<Prepared<'t>, ImportError> {
    let text = csv_text.strip_prefix('\u{feff}').unwrap_or(csv_text);
    let platform_hint = match platform_hint.map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => {
            let p: Platform = s
                .parse()
                .map_err(|()| ImportError::UnknownPlatform(s.to_owned()))?;
            if !p.has_csv() {
                return Err(ImportError::NoCsvImport(p));
            }
            Some(p)
        }
    };
    if let (Some(p), Some(e)) = (platform_hint, entity_type_hint) {
        if !csv_data_types(p).contains(&e) {
            return Err(ImportError::Unsupported {
                platform: p,
                entity: e,
            });
        }
    }
    let delim = delimiter(text);
    let (plan, headers) = plan(text, delim, platform_hint)?;
    let mut notes = Vec::new();

    // The layout (or none), the data type and the mapping.
    let (platform, detected, layout, entity, mut mapping, header_row) = match plan {
        Plan::Layout {
            header_row,
            layouts,
        } => {
            let layout = match entity_type_hint {
                Some(e) => match layouts.iter().find(|l| l.entity == e) {
                    Some(l) => *l,
                    None => {
                        return Err(ImportError::EntityMismatch {
                            layout: layouts[0].name,
                            found: layouts[0].entity,
                            requested: e,
                        })
                    }
                },
                None if layouts.len() > 1 => {
                    choose_by_kind(text, delim, header_row, &layouts, &headers)?
                }
                None => layouts[0],
            };
            let mapping = layout_mapping(layout, &headers, header_row.is_none());
            (
                layout.platform,
                true,
                Some(layout),
                layout.entity,
                mapping,
                header_row,
            )
        }
        Plan::Generic { header_row } => {
            let entity = match entity_type_hint {
                Some(e) => e,
                None => guess_entity(&headers).ok_or(ImportError::EntityTypeNeeded)?,
            };
            let platform = platform_hint.unwrap_or(Platform::Generic);
            notes.push(if platform == Platform::Generic {
                "No known export layout was recognised: the mapping is suggested from the \
                 header names"
                    .to_owned()
            } else {
                format!(
                    "No known {platform} {entity} layout was recognised: the mapping is \
                     suggested from the header names"
                )
            });
            (
                platform,
                false,
                None,
                entity,
                generic_mapping(&headers, entity),
                Some(header_row),
            )
        }
    };
    if let Some(l) = layout {
        notes.push(match header_row {
            None => format!(
                "Recognised layout: {} (no header row; columns read by position)",
                l.name
            ),
            Some(_) => format!("Recognised layout: {}", l.name),
        });
    }
    if let Some(row) = header_row.filter(|r| *r > 1) {
        notes.push(format!(
            "The header is on row {row}; the rows above it were skipped"
        ));
    }
    if let Some(overrides) = mapping_override {
        apply_override(&mut mapping, entity, overrides)?;
    }

    let cols = rows::Columns::new(&mapping);
    let missing_required: Vec<Field> = entity
        .fields()
        .iter()
        .filter(|f| f.required && !cols.provides(f.field))
        .map(|f| f.field)
        .collect();
    let contact_codes = layout.is_some_and(|l| l.contact_codes);
    if contact_codes {
        notes.push(format!(
            "Contacts are named by their account code (column `{}`)",
            mapping
                .headers_for(Field::ContactName)
                .first()
                .copied()
                .unwrap_or("?")
        ));
    }

    // Pass: the file's date order, decided once from every date cell.
    let date_cols: Vec<usize> = mapping
        .0
        .iter()
        .filter(|c| {
            matches!(
                c.field,
                Some(Field::IssueDate | Field::DueDate | Field::Date | Field::NextDate)
            )
        })
        .map(|c| c.column)
        .collect();
    let data_from = header_row.map_or(0, |h| h);
    let kind_col = kind_column(&mapping);
    let kind_of = layout.and_then(|l| l.kind);
    let mut evidence = DateEvidence::default();
    let mut total_rows = 0;
    {
        let mut records = Records::new(text, delim);
        while let Some((row, rec)) = records.next()? {
            if row <= data_from || is_blank(rec) {
                continue;
            }
            total_rows += 1;
            if let (Some(k), Some(kind)) = (kind_col, kind_of) {
                if kind(rec.get(k).unwrap_or("")) != Some(entity) {
                    continue;
                }
            }
            for &c in &date_cols {
                if let Some(cell) = rec.get(c).filter(|s| !s.trim().is_empty()) {
                    evidence.observe(cell, row);
                }
            }
        }
    }
    let (date_order, date_note) = evidence.decide();
    notes.extend(date_note);

    if !missing_required.is_empty() {
        notes.push(format!(
            "No column gives the required field{} {}: map {} before importing",
            if missing_required.len() > 1 { "s" } else { "" },
            missing_required
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if missing_required.len() > 1 {
                "them"
            } else {
                "it"
            },
        ));
    }
    Ok(Prepared {
        text,
        delim,
        data_from,
        cols,
        contact_type: layout.and_then(|l| l.contact_type),
        status: layout.and_then(|l| l.status),
        kind_col,
        kind_of,
        file: ParsedFile {
            platform,
            detected,
            layout: layout.map(|l| l.name),
            entity_type: entity,
            headers,
            headerless: header_row.is_none(),
            mapping,
            fields: entity.fields(),
            missing_required,
            date_order,
            contact_codes,
            rows: Vec::new(),
            documents: Vec::new(),
            templates: Vec::new(),
            errors: Vec::new(),
            total_rows,
            left_out: 0,
            notes,
        },
    })
}

impl Prepared<'_> {
    /// Hands every data row to `f` in file order, as a typed row or as its errors; rows
    /// of other transaction types are left out and counted. Nothing when required fields
    /// have no column. Stops at the first error `f` returns.
    pub fn each_row<E: From<ImportError>>(
        &self,
        mut f: impl FnMut(Result<MappedRow, RowFailure>) -> Result<(), E>,
    ) -> Result<LeftOut, E> {
        let mut left = LeftOut::default();
        if !self.file.missing_required.is_empty() {
            return Ok(left);
        }
        let ctx = rows::Ctx {
            cols: &self.cols,
            entity: self.file.entity_type,
            order: self.file.date_order,
            contact_type: self.contact_type,
            status: self.status,
        };
        let mut records = Records::new(self.text, self.delim);
        while let Some((row, rec)) = records.next()? {
            if row <= self.data_from || is_blank(rec) {
                continue;
            }
            if let (Some(k), Some(kind)) = (self.kind_col, self.kind_of) {
                let cell = rec.get(k).unwrap_or("").trim();
                if kind(cell) != Some(self.file.entity_type) {
                    *left
                        .0
                        .entry(if cell.is_empty() {
                            "(blank)".into()
                        } else {
                            cell.to_owned()
                        })
                        .or_default() += 1;
                    continue;
                }
            }
            f(rows::build(&ctx, rec, row)
                .map(|data| MappedRow { row, data })
                .map_err(|errs| failure(&ctx, rec, row, errs, false)))?;
        }
        Ok(left)
    }

    /// The whole [`ParsedFile`] from the rows `each_row` gave.
    pub fn into_parsed(
        self,
        rows: Vec<MappedRow>,
        failures: Vec<RowFailure>,
        left_out: LeftOut,
    ) -> ParsedFile {
        let mut file = self.file;
        file.add_left_out(&left_out);
        let entity = file.entity_type;
        file.documents = if entity.is_document() {
            group_documents(&rows, entity, false)
        } else {
            Vec::new()
        };
        file.templates = if entity == EntityType::Subscriptions {
            group_templates(&rows)
        } else {
            Vec::new()
        };
        file.rows = rows;
        mark_failed(&mut file, &failures, false);
        file.errors = failures.into_iter().flat_map(|f| f.errors).collect();
        file
    }
}

impl ParsedFile {
    /// Counts and notes the rows of other transaction types that were left out.
    pub fn add_left_out(&mut self, left: &LeftOut) {
        let n: usize = left.0.values().sum();
        self.left_out = n;
        if n > 0 {
            let kinds: Vec<String> = left.0.iter().map(|(k, c)| format!("{k} ×{c}")).collect();
            self.notes.push(format!(
                "Left out {n} row{} of other transaction types ({})",
                if n > 1 { "s" } else { "" },
                kinds.join(", ")
            ));
        }
    }
}

/// For a file that can hold several data types and no type was asked for: the type most
/// of its rows have.
fn choose_by_kind(
    text: &str,
    delim: u8,
    header_row: Option<usize>,
    layouts: &[&'static Layout],
    headers: &[String],
) -> Result<&'static Layout, ImportError> {
    let mapping = layout_mapping(layouts[0], headers, header_row.is_none());
    let (Some(col), Some(kind)) = (kind_column(&mapping), layouts[0].kind) else {
        return Ok(layouts[0]);
    };
    let mut counts: HashMap<EntityType, usize> = HashMap::new();
    let mut records = Records::new(text, delim);
    let data_from = header_row.unwrap_or(0);
    while let Some((row, rec)) = records.next()? {
        if row > data_from {
            if let Some(e) = kind(rec.get(col).unwrap_or("")) {
                *counts.entry(e).or_default() += 1;
            }
        }
    }
    Ok(layouts
        .iter()
        .enumerate()
        .max_by(|(i, a), (j, b)| {
            let ca = counts.get(&a.entity).copied().unwrap_or(0);
            let cb = counts.get(&b.entity).copied().unwrap_or(0);
            ca.cmp(&cb).then(j.cmp(i))
        })
        .map_or(layouts[0], |(_, l)| *l))
}

/// Groups invoice and bill lines: by number (bills: supplier and number, since two
/// suppliers may use the same number), else by contact and issue date. With `by_ref`
/// (API pulls) lines that carry a provider reference are grouped by it first.
fn group_documents(rows: &[MappedRow], entity: EntityType, by_ref: bool) -> Vec<Document> {
    let mut docs: Vec<Document> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        let Some(l) = r.data.as_line() else { continue };
        match index.get(&document_key(l, entity, by_ref)) {
            Some(&d) => docs[d].add_line(l, i),
            None => {
                index.insert(document_key(l, entity, by_ref), docs.len());
                docs.push(Document::of_line(l, i));
            }
        }
    }
    docs
}

/// What the rows of one document (or one subscription) share.
pub type GroupKey = (String, String);

/// The key lines of one document share: the number (bills: supplier and number), else
/// contact and issue date; with `by_ref` (API pulls) the provider reference first.
pub fn document_key(l: &LineRow, entity: EntityType, by_ref: bool) -> GroupKey {
    group_key(
        l.number.as_deref(),
        Some(&l.contact_name),
        Some(l.issue_date),
        l.provider_ref.as_deref(),
        entity,
        by_ref,
    )
    .unwrap_or_default()
}

/// [`document_key`] from what could be read; `None` when that is not enough.
fn group_key(
    number: Option<&str>,
    contact: Option<&str>,
    date: Option<Date>,
    provider_ref: Option<&str>,
    entity: EntityType,
    by_ref: bool,
) -> Option<GroupKey> {
    match (number, provider_ref, entity) {
        (_, Some(r), _) if by_ref => Some(("\u{0}ref".to_owned(), r.to_owned())),
        (Some(n), _, e) if e.numbered_by_supplier() => {
            Some((contact?.to_lowercase(), format!("#{n}")))
        }
        (Some(n), _, _) => Some((String::new(), format!("#{n}"))),
        (None, _, _) => Some((contact?.to_lowercase(), date?.to_string())),
    }
}

/// The key the rows of one subscription share.
pub fn template_key(provider_ref: &str) -> GroupKey {
    ("\u{0}sub".to_owned(), provider_ref.to_owned())
}

/// A row that could not be read: its errors and, for a document or subscription row, the
/// group it belongs to when enough of it could be read to tell.
#[derive(Debug, Clone)]
pub struct RowFailure {
    pub row: usize,
    pub errors: Vec<RowError>,
    pub group: Option<GroupKey>,
}

fn failure(
    ctx: &rows::Ctx<'_>,
    rec: &StringRecord,
    row: usize,
    errors: Vec<RowError>,
    by_ref: bool,
) -> RowFailure {
    let group = match ctx.entity {
        e if e.is_document() => {
            let c = rows::group_cells(ctx, rec, row);
            group_key(
                c.number.as_deref(),
                c.contact.as_deref(),
                c.date,
                c.provider_ref.as_deref(),
                ctx.entity,
                by_ref,
            )
        }
        EntityType::Subscriptions => rows::group_cells(ctx, rec, row)
            .provider_ref
            .map(|r| template_key(&r)),
        _ => None,
    };
    RowFailure { row, errors, group }
}

/// Marks the documents and templates that have rows which could not be read.
fn mark_failed(file: &mut ParsedFile, failures: &[RowFailure], by_ref: bool) {
    let entity = file.entity_type;
    for f in failures {
        let Some(g) = &f.group else { continue };
        for d in &mut file.documents {
            let Some(l) = file.rows[d.rows[0]].data.as_line() else {
                continue;
            };
            if document_key(l, entity, by_ref) == *g {
                d.failed_rows.push(f.row);
            }
        }
        for t in &mut file.templates {
            if template_key(&t.provider_ref) == *g {
                t.failed_rows.push(f.row);
            }
        }
    }
}

impl Document {
    /// A document started by its first line (`index`: the line's place in the rows).
    pub fn of_line(l: &LineRow, index: usize) -> Self {
        Self {
            number: l.number.clone(),
            contact_name: l.contact_name.clone(),
            issue_date: l.issue_date,
            due_date: l.due_date,
            status: l.status,
            total: l.total.or(l.line_total),
            amount_paid: l.amount_paid,
            paid_date: l.paid_date,
            currency: l.currency.clone(),
            exchange_rate: l.exchange_rate,
            original_number: l.original_number.clone(),
            original_ref: l.original_ref.clone(),
            provider_ref: l.provider_ref.clone(),
            rows: vec![index],
            failed_rows: Vec::new(),
            sums_line_totals: l.total.is_none() && l.line_total.is_some(),
            other_contacts: Vec::new(),
        }
    }

    /// Adds a later line: header values the document lacks come from it. Lines with
    /// their own totals add them up; a line without one leaves no total to check.
    pub fn add_line(&mut self, l: &LineRow, index: usize) {
        self.rows.push(index);
        let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
        if !same(&l.contact_name, &self.contact_name)
            && !self.other_contacts.iter().any(|c| same(c, &l.contact_name))
        {
            self.other_contacts.push(l.contact_name.clone());
        }
        self.due_date = self.due_date.or(l.due_date);
        self.status = self.status.or(l.status);
        self.total = if self.sums_line_totals {
            self.total.zip(l.line_total).map(|(a, b)| a + b)
        } else {
            self.total.or(l.total)
        };
        self.amount_paid = self.amount_paid.or(l.amount_paid);
        self.paid_date = self.paid_date.or(l.paid_date);
        if self.currency.is_none() {
            self.currency.clone_from(&l.currency);
        }
        self.exchange_rate = self.exchange_rate.or(l.exchange_rate);
        if self.original_number.is_none() {
            self.original_number.clone_from(&l.original_number);
        }
        if self.original_ref.is_none() {
            self.original_ref.clone_from(&l.original_ref);
        }
        if self.provider_ref.is_none() {
            self.provider_ref.clone_from(&l.provider_ref);
        }
    }
}

impl Template {
    /// A template started by its first row.
    pub fn of_row(s: &SubscriptionRow, index: usize) -> Self {
        Self {
            provider_ref: s.provider_ref.clone(),
            contact_name: s.contact_name.clone(),
            interval: s.interval,
            interval_count: s.interval_count,
            next_date: s.next_date,
            status: s.status,
            rows: vec![index],
            failed_rows: Vec::new(),
        }
    }

    /// Adds a later row of the same subscription.
    pub fn add_row(&mut self, s: &SubscriptionRow, index: usize) {
        self.rows.push(index);
        self.next_date = self.next_date.or(s.next_date);
        self.status = self.status.or(s.status);
        self.interval_count = self.interval_count.or(s.interval_count);
    }
}

/// Typed rows from field-keyed maps (API pulls, see `crate::connectors`): each map's keys
/// are the import field names (docs/import.md#fields) of `entity` and its values
/// canonical text (decimals in major units, ISO dates). The rows go through the same
/// value checks as a CSV's; a row's number is its 1-based position in `rows`. Documents
/// are grouped by `provider_ref` (else as a CSV's), templates by `provider_ref`. Keys
/// that are not fields of the type are ignored (named in `notes`).
pub fn from_field_rows<'a>(
    platform: Platform,
    entity: EntityType,
    rows: impl IntoIterator<Item = &'a BTreeMap<String, String>>,
) -> ParsedFile {
    let headers: Vec<String> = entity
        .fields()
        .iter()
        .map(|f| f.field.as_str().to_owned())
        .collect();
    let mapping = Mapping(
        entity
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| ColumnMap {
                column: i,
                header: f.field.as_str().to_owned(),
                field: Some(f.field),
                aux: None,
            })
            .collect(),
    );
    let cols = rows::Columns::new(&mapping);
    let ctx = rows::Ctx {
        cols: &cols,
        entity,
        order: DateOrder::DayMonth,
        contact_type: None,
        status: None,
    };
    let mut parsed = Vec::new();
    let mut failures = Vec::new();
    let mut unknown: std::collections::BTreeSet<String> = Default::default();
    let mut total_rows = 0;
    let mut rec = StringRecord::new();
    for (i, map) in rows.into_iter().enumerate() {
        let row = i + 1;
        total_rows = row;
        for k in map.keys() {
            if entity.field(k).is_none() && k != crate::connectors::ROW_ERROR {
                unknown.insert(k.clone());
            }
        }
        rec.clear();
        for f in entity.fields() {
            rec.push_field(map.get(f.field.as_str()).map_or("", String::as_str));
        }
        // A record the platform could not complete: a row error, and its document's
        // other rows with it (docs/import.md#row-errors).
        let refused = map.get(crate::connectors::ROW_ERROR).map(|message| {
            vec![RowError {
                row,
                column: None,
                column_index: None,
                message: message.clone(),
            }]
        });
        match (refused, rows::build(&ctx, &rec, row)) {
            (Some(errs), _) | (None, Err(errs)) => {
                failures.push(failure(&ctx, &rec, row, errs, true));
            }
            (None, Ok(data)) => parsed.push(MappedRow { row, data }),
        }
    }
    let mut notes = Vec::new();
    if !unknown.is_empty() {
        notes.push(format!(
            "Ignored keys that are not {entity} fields: {}",
            unknown.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let documents = if entity.is_document() {
        group_documents(&parsed, entity, true)
    } else {
        Vec::new()
    };
    let templates = if entity == EntityType::Subscriptions {
        group_templates(&parsed)
    } else {
        Vec::new()
    };
    let mut file = ParsedFile {
        platform,
        detected: true,
        layout: None,
        entity_type: entity,
        headers,
        headerless: false,
        mapping,
        fields: entity.fields(),
        missing_required: Vec::new(),
        date_order: DateOrder::DayMonth,
        contact_codes: false,
        rows: parsed,
        documents,
        templates,
        errors: Vec::new(),
        total_rows,
        left_out: 0,
        notes,
    };
    mark_failed(&mut file, &failures, true);
    file.errors = failures.into_iter().flat_map(|f| f.errors).collect();
    file
}

/// Groups subscription rows into templates by provider reference.
fn group_templates(rows: &[MappedRow]) -> Vec<Template> {
    let mut out: Vec<Template> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        let Some(s) = r.data.as_subscription() else {
            continue;
        };
        match index.get(&s.provider_ref) {
            Some(&t) => out[t].add_row(s, i),
            None => {
                index.insert(s.provider_ref.clone(), out.len());
                out.push(Template::of_row(s, i));
            }
        }
    }
    out
}
