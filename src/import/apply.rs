//! The storing step of an import (docs/import.md#storing-records, docs/import.md#dedup,
//! docs/import.md#imported-documents): typed rows in, records out, inside the caller's
//! write transaction.
//!
//! - Every record goes through the accounting and product create functions, so an
//!   imported record gets exactly the validation, defaults and totals of one made by hand.
//! - Dedup compares each record with everything already stored in the entity, however
//!   it got there. Records are written as they are read, so "everything stored" includes
//!   the earlier rows of the same run: no second in-memory copy of the rows is kept.
//! - A record the create functions refuse (400, 404, 409) is a failed row: it is
//!   reported with its spreadsheet row number and nothing of it is kept (a savepoint
//!   wraps records that write more than one row). Any other error (a server error, a
//!   busy database) fails the whole run: the caller's transaction rolls back and nothing
//!   of the run is kept.
//! - `imported` and `skipped` count records (a document or a template is one record
//!   however many lines it has); `failed` lists rows.
//!
//! Dedup keys: contacts by provider reference, else name (case-insensitive); products by
//! provider reference, SKU, and name when the row has no SKU; invoices by provider
//! reference, number, else client + issue date + total; bills by provider reference,
//! supplier + number, else supplier + issue date + total; credit notes as invoices and
//! supplier credits as bills; payments by document + reference equal to the provider
//! reference, else document + date + amount; expenses by provider reference,
//! else date + amount + description; projects and expense categories by name; time
//! entries by project + date + hours + description; subscriptions by provider reference.
//!
//! Documents: the contact a document names is looked up by name (by account code first
//! when the file names contacts by code) and created when missing. A document's total
//! must equal the source's own `total` when the file gives one (else, when every line
//! states its VAT, its VAT total must equal their sum): a document whose lines do not
//! reproduce it fails, every one of its rows reported, rather than being stored with a
//! wrong total. A document whose source has no tax at all takes the VAT its own totals
//! say, never a default rate. Invoices without a number keep a null number. Nothing here
//! touches stock.

use rusqlite::{params, OptionalExtension, Transaction};
use serde::Serialize;

use crate::accounting::common::date_text;
use crate::accounting::contacts::{self, CreateContact};
use crate::accounting::documents::{self, CreateDocument, DocKind, Numbering};
use crate::accounting::expense_categories::{CreateCategory, ExpenseCategories};
use crate::accounting::expenses::{CreateExpense, Expenses};
use crate::accounting::lines::{self, LineInput};
use crate::accounting::projects::{CreateProject, Projects};
use crate::accounting::recurring_invoices::{CreateRecurring, RecurringInvoices};
use crate::accounting::resource::Resource;
use crate::accounting::time_entries::{CreateTimeEntry, TimeEntries};
use crate::clock::{rfc3339, Clock};
use crate::connectors::ImportRow;
use crate::ctx::Ctx;
use crate::db::decimal::{round, Money, Percent, Price};
use crate::db::ident::compare_key;
use crate::error::{AppError, AppResult};
use crate::import::csv::header::short;
use crate::import::csv::{
    Document, ErrorList, Mapping, ParsedFile, RowError, Template, MAX_LISTED_ERRORS,
};
use crate::import::error::ImportError;
use crate::import::fields::{EntityType, Field};
use crate::import::platform::Platform;
use crate::import::records::{
    ContactRow, ContactType, DocStatus, ExpenseRow, Interval, LineRow, PaidDocument, PaymentRow,
    ProductRow, ProjectRow, ProjectStatus, SubscriptionRow, TemplateStatus, TimeEntryRow,
};
use crate::inventory::products::{create_product, NewProduct};
use crate::scope::Scope;
use crate::vat::Treatment;

/// What a run did: `{imported, skipped, failed: [{row, message, column?, columnIndex?}],
/// errorCount, updated?, skippedRows?}`: `failed` lists the first
/// [`crate::import::csv::MAX_LISTED_ERRORS`] row errors in row order, `errorCount` counts
/// them all (docs/limits.md#rates). `updated` is there when the run was asked to fill the
/// blanks of existing records (docs/import.md#filling-blanks-on-re-import);
/// `skippedRows` lists the first skipped records with the reason when the writer lists
/// them (the CSV endpoints) and some were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportOutcome {
    pub imported: usize,
    pub skipped: usize,
    pub failed: Vec<RowError>,
    #[serde(rename = "errorCount")]
    pub error_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<usize>,
    #[serde(rename = "skippedRows", skip_serializing_if = "Vec::is_empty")]
    pub skipped_rows: Vec<SkippedRow>,
}

/// A record the run skipped: its first spreadsheet row and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedRow {
    pub row: usize,
    pub reason: String,
}

/// The writer's options beyond the file (docs/import.md#filling-blanks-on-re-import).
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// A duplicate contact fills the blank fields of the one that exists.
    pub fill_blanks: bool,
    /// List the skipped records in `skippedRows`.
    pub list_skipped: bool,
}

/// Writes a parsed file into `entity_id` inside the caller's transaction: dedups against
/// everything stored and earlier rows of the same run, skips duplicates, reports failed
/// rows (the file's own row errors included, in row order).
///
/// Errors: 400 when required fields have no column (nothing was parsed), 404 when the
/// entity is not the caller's; any server error, after which the caller must roll back.
pub fn apply_parsed(
    tx: &Transaction,
    scope: &Scope,
    entity_id: &str,
    parsed: &ParsedFile,
    clock: &Clock,
) -> AppResult<ImportOutcome> {
    check_complete(parsed)?;
    let mut w = Writer::new(
        tx,
        scope,
        entity_id,
        parsed.platform,
        parsed.contact_codes,
        &parsed.mapping,
        clock,
    )?;
    w.fail_rows(parsed.errors.iter().cloned());
    match parsed.entity_type {
        e if e.is_document() => {
            let kind = doc_kind(parsed.entity_type);
            for doc in &parsed.documents {
                let lines: Vec<(usize, &LineRow)> = parsed
                    .lines(doc)
                    .filter_map(|r| r.data.as_line().map(|l| (r.row, l)))
                    .collect();
                w.document(kind, doc, &lines)?;
            }
        }
        EntityType::Subscriptions => {
            for t in &parsed.templates {
                let lines: Vec<(usize, &SubscriptionRow)> = t
                    .rows
                    .iter()
                    .filter_map(|&i| {
                        let r = &parsed.rows[i];
                        r.data.as_subscription().map(|s| (r.row, s))
                    })
                    .collect();
                w.template(t, &lines)?;
            }
        }
        _ => {
            for r in &parsed.rows {
                w.row(r.row, &r.data)?;
            }
        }
    }
    Ok(w.finish())
}

/// Turns connector rows into the same typed form as a CSV (documents and templates
/// grouped by `provider_ref`), so API pulls go through the same writer. A row's number
/// in `errors` and `failed` is its 1-based position in `rows`.
pub fn parsed_from_rows(
    platform: &str,
    entity_type: EntityType,
    rows: &[ImportRow],
) -> AppResult<ParsedFile> {
    let p: Platform = platform
        .parse()
        .map_err(|()| ImportError::UnknownPlatform(platform.to_owned()))?;
    Ok(crate::import::csv::from_field_rows(p, entity_type, rows))
}

/// 400 when the mapping leaves a required field without a column.
pub fn check_complete(parsed: &ParsedFile) -> AppResult<()> {
    if parsed.missing_required.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = parsed
        .missing_required
        .iter()
        .map(|f| format!("`{f}`"))
        .collect();
    Err(AppError::bad_request(format!(
        "No column gives the required field{} {} of {}: map {} first",
        if names.len() > 1 { "s" } else { "" },
        names.join(", "),
        parsed.entity_type,
        if names.len() > 1 { "them" } else { "it" },
    )))
}

pub fn doc_kind(e: EntityType) -> DocKind {
    match e {
        EntityType::Bills => DocKind::Bill,
        EntityType::CreditNotes => DocKind::CreditNote,
        EntityType::SupplierCredits => DocKind::SupplierCredit,
        _ => DocKind::Invoice,
    }
}

fn paid_kind(d: PaidDocument) -> DocKind {
    match d {
        PaidDocument::Invoice => DocKind::Invoice,
        PaidDocument::Bill => DocKind::Bill,
        PaidDocument::CreditNote => DocKind::CreditNote,
        PaidDocument::SupplierCredit => DocKind::SupplierCredit,
    }
}

/// Why a record is skipped: dedup found it stored already (docs/import.md#dedup).
pub const SKIPPED_REASON: &str = "already imported or entered (a duplicate), so it was skipped";

/// How one record ended.
enum Done {
    Imported,
    Skipped,
    /// A duplicate whose blank fields were filled.
    Updated,
}

/// Why a record was not written.
enum Fail {
    /// A create function's refusal (a row error when 400, 404 or 409), or a server
    /// error (the run's).
    App(AppError),
    /// The writer's own refusal, naming the field whose column is to blame.
    Field(Field, String),
}

impl From<AppError> for Fail {
    fn from(e: AppError) -> Self {
        Self::App(e)
    }
}

impl Fail {
    /// Errors that are the row's (refused by validation), as opposed to the run's.
    fn is_row_error(&self) -> bool {
        matches!(
            self,
            Self::Field(..)
                | Self::App(
                    AppError::BadRequest(_) | AppError::NotFound(_) | AppError::Conflict(_)
                )
        )
    }
}

/// A document or template with rows that could not be read is not imported at all
/// (rather than with some of its lines); those rows carry their own errors.
fn unreadable(failed_rows: &[usize]) -> Result<(), Fail> {
    if failed_rows.is_empty() {
        return Ok(());
    }
    let rows: Vec<String> = failed_rows.iter().map(usize::to_string).collect();
    Err(Fail::App(AppError::bad_request(format!(
        "row{} {} of it could not be read, so nothing of it was imported",
        if rows.len() > 1 { "s" } else { "" },
        rows.join(", ")
    ))))
}

/// Rows that share a document's number but name different contacts are not one
/// document: which contact's it is, the file does not say (docs/import.md#imported-documents).
fn shared_number(doc: &Document) -> Result<(), Fail> {
    if doc.other_contacts.is_empty() {
        return Ok(());
    }
    let mut names = vec![format!("\"{}\"", doc.contact_name)];
    names.extend(doc.other_contacts.iter().map(|c| format!("\"{c}\"")));
    let last = names.pop().unwrap_or_default();
    Err(Fail::Field(
        Field::ContactName,
        format!(
            "its rows share the number {} but name different contacts, {} and {}; \
             nothing of it was imported",
            doc.number.as_deref().unwrap_or("(none)"),
            names.join(", "),
            last
        ),
    ))
}

fn money(m: Money) -> String {
    format!("{:.2}", m.value())
}

fn contact_type(t: ContactType) -> &'static str {
    match t {
        ContactType::Customer => "customer",
        ContactType::Supplier => "supplier",
        ContactType::Both => "both",
    }
}

fn doc_status(s: DocStatus) -> &'static str {
    match s {
        DocStatus::Draft => "draft",
        DocStatus::Sent => "sent",
        DocStatus::AwaitingPayment => "awaiting_payment",
        DocStatus::Paid => "paid",
        DocStatus::Void => "void",
        DocStatus::Posted => "posted",
    }
}

fn project_status(s: ProjectStatus) -> &'static str {
    match s {
        ProjectStatus::Active => "active",
        ProjectStatus::Completed => "completed",
        ProjectStatus::Archived => "archived",
    }
}

fn interval(i: Interval) -> &'static str {
    match i {
        Interval::Week => "week",
        Interval::Month => "month",
        Interval::Year => "year",
    }
}

fn template_status(s: TemplateStatus) -> &'static str {
    match s {
        TemplateStatus::Active => "active",
        TemplateStatus::Paused => "paused",
        TemplateStatus::Cancelled => "cancelled",
    }
}

/// Writes records of one run into one entity. Used by [`apply_parsed`] and by the
/// streaming CSV run, which hands it rows one at a time.
pub struct Writer<'a> {
    tx: &'a Transaction<'a>,
    scope: Scope,
    entity: String,
    provider: Option<String>,
    contact_codes: bool,
    /// The first column of each field (0-based position, short header), to name the
    /// column of a writer-side failure.
    columns: Vec<(Field, usize, String)>,
    ctx: Ctx,
    outcome: ImportOutcome,
    errors: ErrorList,
    options: Options,
}

impl<'a> Writer<'a> {
    /// Resolves the entity through the caller's scope (404 when not theirs).
    pub fn new(
        tx: &'a Transaction<'a>,
        scope: &Scope,
        entity_id: &str,
        platform: Platform,
        contact_codes: bool,
        mapping: &Mapping,
        clock: &Clock,
    ) -> AppResult<Self> {
        let entity = scope.entity(tx, "entity_id", entity_id)?;
        // The run reads and writes the entity's records, in its owner's books.
        let scope = scope.within(tx, &entity)?;
        let now = clock.now();
        let mut columns: Vec<(Field, usize, String)> = Vec::new();
        for c in &mapping.0 {
            if let Some(f) = c.field {
                if !columns.iter().any(|(g, ..)| *g == f) {
                    columns.push((f, c.column, short(&c.header)));
                }
            }
        }
        Ok(Self {
            tx,
            scope,
            entity,
            provider: Some(platform.as_str().to_owned()),
            contact_codes,
            columns,
            ctx: Ctx {
                now: rfc3339(now),
                today: now.date(),
                allow_negative: false,
            },
            outcome: ImportOutcome::default(),
            errors: ErrorList::default(),
            options: Options::default(),
        })
    }

    /// Sets the run's options (`updated` is reported from here on when filling blanks).
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        if options.fill_blanks {
            self.outcome.updated.get_or_insert(0);
        }
        self
    }

    /// The outcome, failures in row order.
    pub fn finish(mut self) -> ImportOutcome {
        (self.outcome.failed, self.outcome.error_count) = self.errors.finish();
        self.outcome
    }

    /// Adds rows that failed before the writer saw them (the parser's row errors).
    pub fn fail_rows(&mut self, errors: impl IntoIterator<Item = RowError>) {
        self.errors.extend(errors);
    }

    fn column(&self, f: Field) -> Option<(usize, String)> {
        self.columns
            .iter()
            .find(|(g, ..)| *g == f)
            .map(|(_, i, h)| (*i, h.clone()))
    }

    /// Runs one record's write. `atomic`: wrap it in a savepoint (records that write more
    /// than one row); a single-statement write that fails leaves nothing anyway.
    fn record(
        &mut self,
        rows: &[usize],
        atomic: bool,
        label: impl FnOnce() -> String,
        write: impl FnOnce(&Self) -> Result<Done, Fail>,
    ) -> AppResult<()> {
        if atomic {
            self.tx
                .prepare_cached("SAVEPOINT import_record")?
                .execute([])?;
        }
        let result = write(self);
        match result {
            Ok(done) => {
                if atomic {
                    self.tx
                        .prepare_cached("RELEASE import_record")?
                        .execute([])?;
                }
                match done {
                    Done::Imported => self.outcome.imported += 1,
                    Done::Skipped => {
                        self.outcome.skipped += 1;
                        if self.options.list_skipped
                            && self.outcome.skipped_rows.len() < MAX_LISTED_ERRORS
                        {
                            if let Some(&row) = rows.first() {
                                self.outcome.skipped_rows.push(SkippedRow {
                                    row,
                                    reason: format!("{}: {SKIPPED_REASON}", label()),
                                });
                            }
                        }
                    }
                    Done::Updated => *self.outcome.updated.get_or_insert(0) += 1,
                }
                Ok(())
            }
            Err(e) if e.is_row_error() => {
                if atomic {
                    self.tx
                        .prepare_cached("ROLLBACK TO import_record")?
                        .execute([])?;
                    self.tx
                        .prepare_cached("RELEASE import_record")?
                        .execute([])?;
                }
                let (column, why) = match e {
                    Fail::Field(f, why) => (self.column(f), why),
                    Fail::App(e) => (None, e.to_string()),
                };
                let message = format!("{}: {why}", label());
                for &row in rows {
                    let message = match &column {
                        Some((_, c)) => format!("Column `{c}`: {message}"),
                        None => message.clone(),
                    };
                    self.errors.push(RowError {
                        row,
                        column: column.as_ref().map(|(_, name)| name.clone()),
                        column_index: column.as_ref().map(|(i, _)| i + 1),
                        message,
                    });
                }
                Ok(())
            }
            Err(Fail::App(e)) => Err(e),
            Err(Fail::Field(..)) => unreachable!("field failures are row errors"),
        }
    }

    // ---------------------------------------------------------------------------------
    // Lookups in the entity.

    fn find(&self, sql: &str, params: impl rusqlite::Params) -> AppResult<Option<String>> {
        Ok(self
            .tx
            .prepare_cached(sql)?
            .query_row(params, |r| r.get(0))
            .optional()?)
    }

    fn contact_by_ref(&self, provider_ref: &str) -> AppResult<Option<String>> {
        self.find(
            sql::CONTACT_BY_REF,
            params![self.scope.owner_id, self.entity, provider_ref],
        )
    }

    fn contact_by_name(&self, name: &str) -> AppResult<Option<String>> {
        self.find(
            sql::CONTACT_BY_NAME,
            params![self.scope.owner_id, self.entity, name],
        )
    }

    /// The contact a document, project or template names: by account code first when
    /// the file names contacts by code, else by name.
    fn named_contact(&self, name: &str) -> AppResult<Option<String>> {
        if self.contact_codes {
            if let Some(id) = self.contact_by_ref(name)? {
                return Ok(Some(id));
            }
        }
        self.contact_by_name(name)
    }

    /// The named contact, created (with `kind`) when missing.
    fn ensure_contact(&self, name: &str, kind: &str) -> AppResult<String> {
        if let Some(id) = self.named_contact(name)? {
            return Ok(id);
        }
        let c = contacts::create(
            self.tx,
            &self.scope,
            CreateContact {
                name: name.to_owned(),
                kind: Some(kind.to_owned()),
                email: None,
                phone: None,
                address: None,
                vat_number: None,
                provider: self.provider.clone(),
                provider_ref: self.contact_codes.then(|| name.to_owned()),
                entity_id: Some(self.entity.clone()),
            },
            &self.ctx,
        )?;
        Ok(c.id)
    }

    fn project_by_name(&self, name: &str) -> AppResult<Option<String>> {
        self.find(
            sql::PROJECT_BY_NAME,
            params![self.scope.owner_id, self.entity, name],
        )
    }

    fn ensure_project(&self, name: &str) -> AppResult<String> {
        if let Some(id) = self.project_by_name(name)? {
            return Ok(id);
        }
        let p = Projects::create(
            self.tx,
            &self.scope,
            CreateProject {
                name: name.to_owned(),
                contact_id: None,
                status: None,
                hourly_rate: None,
                budget: None,
                entity_id: Some(self.entity.clone()),
            },
            &self.ctx,
        )?;
        Ok(p.id)
    }

    /// The category an expense names: by name, else by code (Sage 50 names nominal
    /// codes, which the standard categories carry), created when neither matches.
    fn ensure_category(&self, name: &str) -> AppResult<String> {
        for q in [sql::CATEGORY_BY_NAME, sql::CATEGORY_BY_CODE] {
            if let Some(id) = self.find(q, params![self.scope.owner_id, self.entity, name])? {
                return Ok(id);
            }
        }
        let c = ExpenseCategories::create(
            self.tx,
            &self.scope,
            CreateCategory {
                name: name.to_owned(),
                code: None,
                entity_id: Some(self.entity.clone()),
                vat_treatment: None,
            },
            &self.ctx,
        )?;
        Ok(c.id)
    }

    fn product_by_sku(&self, sku: &str) -> AppResult<Option<String>> {
        self.find(
            sql::PRODUCT_BY_SKU,
            params![self.scope.owner_id, self.entity, compare_key(sku)],
        )
    }

    fn exists(&self, table: &str, provider_ref: &str) -> AppResult<bool> {
        Ok(self
            .find(
                sql::by_ref(table),
                params![self.scope.owner_id, self.entity, provider_ref],
            )?
            .is_some())
    }

    // ---------------------------------------------------------------------------------
    // Records.

    /// One row of a type that is one record per row (not documents or templates).
    pub fn row(&mut self, row: usize, data: &crate::import::records::RowData) -> AppResult<()> {
        use crate::import::records::RowData as R;
        match data {
            R::Contact(c) => self.contact(row, c),
            R::Product(p) => self.product(row, p),
            R::Expense(e) => self.expense(row, e),
            R::Project(p) => self.project(row, p),
            R::TimeEntry(t) => self.time_entry(row, t),
            R::Payment(p) => self.payment(row, p),
            R::Line(_) | R::Subscription(_) => Err(AppError::internal(
                "document and subscription rows are written grouped",
            )),
        }
    }

    pub fn contact(&mut self, row: usize, c: &ContactRow) -> AppResult<()> {
        self.record(
            &[row],
            false,
            || format!("Contact {}", c.name),
            |w| {
                let mut existing = None;
                if let Some(r) = &c.provider_ref {
                    existing = w.contact_by_ref(r)?;
                }
                if existing.is_none() {
                    existing = w.contact_by_name(&c.name)?;
                }
                if let Some(id) = existing {
                    return w.fill_contact(&id, c);
                }
                contacts::create(
                    w.tx,
                    &w.scope,
                    CreateContact {
                        name: c.name.clone(),
                        kind: c.contact_type.map(|t| contact_type(t).to_owned()),
                        email: c.email.clone(),
                        phone: c.phone.clone(),
                        address: c.address.clone(),
                        vat_number: c.vat_number.clone(),
                        provider: w.provider.clone(),
                        provider_ref: c.provider_ref.clone(),
                        entity_id: Some(w.entity.clone()),
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }

    /// A duplicate contact: skipped, or with [`Options::fill_blanks`] its blank email,
    /// phone, address, VAT number and provider reference take the row's values; a filled
    /// field is never overwritten (docs/import.md#filling-blanks-on-re-import).
    fn fill_contact(&self, id: &str, c: &ContactRow) -> Result<Done, Fail> {
        if !self.options.fill_blanks {
            return Ok(Done::Skipped);
        }
        let have = contacts::get(self.tx, &self.scope, id)?;
        fn blank(v: &Option<String>) -> bool {
            v.as_deref().is_none_or(|s| s.trim().is_empty())
        }
        fn fill(have: &Option<String>, row: &Option<String>) -> Option<Option<String>> {
            let row = row.as_deref().map(str::trim).filter(|s| !s.is_empty())?;
            blank(have).then(|| Some(row.to_owned()))
        }
        let ref_blank = blank(&have.provider_ref);
        let update = contacts::UpdateContact {
            id: have.id.clone(),
            name: None,
            kind: None,
            email: fill(&have.email, &c.email),
            phone: fill(&have.phone, &c.phone),
            address: fill(&have.address, &c.address),
            vat_number: fill(&have.vat_number, &c.vat_number),
            provider_ref: fill(&have.provider_ref, &c.provider_ref),
            provider: None,
        };
        let provider = (ref_blank && update.provider_ref.is_some() && blank(&have.provider))
            .then(|| self.provider.clone());
        let update = contacts::UpdateContact { provider, ..update };
        let changes = [
            &update.email,
            &update.phone,
            &update.address,
            &update.vat_number,
            &update.provider_ref,
        ];
        if changes.iter().all(|v| v.is_none()) {
            return Ok(Done::Skipped);
        }
        contacts::Contacts::update(self.tx, &self.scope, update, &self.ctx)?;
        Ok(Done::Updated)
    }

    pub fn product(&mut self, row: usize, p: &ProductRow) -> AppResult<()> {
        self.record(
            &[row],
            false,
            || format!("Product {}", p.name),
            |w| {
                if let Some(r) = &p.provider_ref {
                    if w.exists("products", r)? {
                        return Ok(Done::Skipped);
                    }
                }
                let dup = match &p.sku {
                    Some(sku) => w.product_by_sku(sku)?,
                    None => w.find(
                        sql::PRODUCT_BY_NAME,
                        params![w.scope.owner_id, w.entity, p.name],
                    )?,
                };
                if dup.is_some() {
                    return Ok(Done::Skipped);
                }
                create_product(
                    w.tx,
                    &w.scope,
                    NewProduct {
                        name: p.name.clone(),
                        sku: p.sku.clone(),
                        description: p.description.clone(),
                        category: p.category.clone(),
                        unit_price: p.unit_price,
                        cost_price: p.cost_price,
                        // No rate stated is no VAT, not the 20 % of a product made by
                        // hand (docs/import.md#imported-documents).
                        vat_rate: Some(p.vat_rate.unwrap_or(Percent::ZERO)),
                        vat_treatment: None,
                        stock_qty: None,
                        stock_location_id: None,
                        low_stock_threshold: None,
                        unit: p.unit.clone(),
                        notes: p.notes.clone(),
                        barcode: p.barcode.clone(),
                        active: p.active,
                        entity_id: Some(w.entity.clone()),
                        provider: w.provider.clone(),
                        provider_ref: p.provider_ref.clone(),
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }

    pub fn expense(&mut self, row: usize, e: &ExpenseRow) -> AppResult<()> {
        self.record(
            &[row],
            true,
            || format!("Expense {} of {}", e.description, date_text(e.date)),
            |w| {
                if let Some(r) = &e.provider_ref {
                    if w.exists("expenses", r)? {
                        return Ok(Done::Skipped);
                    }
                }
                let dup = w.find(
                    sql::SAME_EXPENSE,
                    params![
                        w.scope.owner_id,
                        w.entity,
                        date_text(e.date),
                        e.amount,
                        e.description
                    ],
                )?;
                if dup.is_some() {
                    return Ok(Done::Skipped);
                }
                let category_id = e
                    .category
                    .as_deref()
                    .map(|c| w.ensure_category(c))
                    .transpose()?;
                let project_id = e
                    .project_name
                    .as_deref()
                    .map(|p| w.ensure_project(p))
                    .transpose()?;
                Expenses::create(
                    w.tx,
                    &w.scope,
                    CreateExpense {
                        date: Some(date_text(e.date)),
                        description: e.description.clone(),
                        amount: e.amount,
                        vat_amount: e.vat_amount,
                        category_id,
                        project_id,
                        currency: e.currency.clone(),
                        exchange_rate: e.exchange_rate,
                        provider: w.provider.clone(),
                        provider_ref: e.provider_ref.clone(),
                        entity_id: Some(w.entity.clone()),
                        vat_treatment: e.vat_treatment.map(|t| t.as_str().to_owned()),
                        vat_reclaimable: None,
                        reverse_charge_vat: None,
                        contact_id: None,
                        capital_goods: None,
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }

    pub fn project(&mut self, row: usize, p: &ProjectRow) -> AppResult<()> {
        self.record(
            &[row],
            true,
            || format!("Project {}", p.name),
            |w| {
                if w.project_by_name(&p.name)?.is_some() {
                    return Ok(Done::Skipped);
                }
                let contact_id = p
                    .contact_name
                    .as_deref()
                    .map(|c| w.ensure_contact(c, "customer"))
                    .transpose()?;
                Projects::create(
                    w.tx,
                    &w.scope,
                    CreateProject {
                        name: p.name.clone(),
                        contact_id,
                        status: p.status.map(|s| project_status(s).to_owned()),
                        hourly_rate: p.hourly_rate,
                        budget: p.budget,
                        entity_id: Some(w.entity.clone()),
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }

    pub fn time_entry(&mut self, row: usize, t: &TimeEntryRow) -> AppResult<()> {
        self.record(
            &[row],
            true,
            || format!("Time entry of {} on {}", t.project_name, date_text(t.date)),
            |w| {
                let project = w.project_by_name(&t.project_name)?;
                if let Some(pid) = &project {
                    let dup = w.find(
                        sql::SAME_TIME_ENTRY,
                        params![pid, date_text(t.date), t.hours, t.description],
                    )?;
                    if dup.is_some() {
                        return Ok(Done::Skipped);
                    }
                }
                let project_id = match project {
                    Some(p) => p,
                    None => w.ensure_project(&t.project_name)?,
                };
                TimeEntries::create(
                    w.tx,
                    &w.scope,
                    CreateTimeEntry {
                        project_id,
                        date: Some(date_text(t.date)),
                        hours: t.hours,
                        description: t.description.clone(),
                        billable: t.billable,
                        hourly_rate: t.hourly_rate,
                        entity_id: Some(w.entity.clone()),
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }

    /// One invoice or bill: its header and its lines `(row, line)` in file order.
    pub fn document(
        &mut self,
        kind: DocKind,
        doc: &Document,
        lines: &[(usize, &LineRow)],
    ) -> AppResult<()> {
        let rows: Vec<usize> = lines.iter().map(|(r, _)| *r).collect();
        self.record(
            &rows,
            true,
            || match &doc.number {
                Some(n) => format!("{} {n}", kind.label()),
                None => format!(
                    "{} of {} dated {}",
                    kind.label(),
                    doc.contact_name,
                    date_text(doc.issue_date)
                ),
            },
            |w| {
                unreadable(&doc.failed_rows)?;
                shared_number(doc)?;
                w.write_document(kind, doc, lines)
            },
        )
    }

    fn write_document(
        &self,
        kind: DocKind,
        doc: &Document,
        rows: &[(usize, &LineRow)],
    ) -> Result<Done, Fail> {
        if let Some(r) = &doc.provider_ref {
            if self.doc_by_ref(kind, r)?.is_some() {
                return Ok(Done::Skipped);
            }
        }
        let contact = self.named_contact(&doc.contact_name)?;
        let mut inputs = Vec::with_capacity(rows.len());
        for (_, l) in rows {
            let product_id = match &l.line_sku {
                Some(sku) => self.product_by_sku(sku)?,
                None => None,
            };
            inputs.push(LineInput {
                description: Some(l.line_description.clone()),
                product_id,
                quantity: l.line_quantity,
                unit_price: Some(l.line_unit_price),
                discount: l.line_discount,
                vat_rate: l.line_vat_rate,
                vat_treatment: l.line_vat_treatment.map(|t| t.as_str().to_owned()),
                capital_goods: None,
            });
        }
        let untaxed = rows.iter().all(|(_, l)| {
            l.line_vat_rate.is_none() && l.line_vat_treatment.is_none() && l.source_vat.is_none()
        });
        if untaxed {
            inputs = self.vat_from_totals(kind, inputs, doc.total)?;
        }
        let built = lines::build(
            self.tx,
            &self.scope,
            Some(&self.entity),
            inputs.clone(),
            kind.line_rules(),
        )?;
        let totals = lines::totals(&built);
        let total = doc.total.unwrap_or(totals.total);

        // Dedup.
        let dup = match (&doc.number, &contact, kind) {
            (Some(n), _, DocKind::Invoice | DocKind::CreditNote) => self.find(
                sql::by_number(kind),
                params![self.scope.owner_id, self.entity, n],
            )?,
            (Some(n), Some(c), DocKind::Bill | DocKind::SupplierCredit) => self.find(
                sql::by_number(kind),
                params![self.scope.owner_id, self.entity, c, n],
            )?,
            (None, Some(c), _) => self.find(
                sql::same_document(kind),
                params![c, date_text(doc.issue_date), total],
            )?,
            _ => None,
        };
        if dup.is_some() {
            return Ok(Done::Skipped);
        }

        // The source's own totals.
        if let Some(src) = doc.total {
            if src != totals.total {
                return Err(Fail::Field(
                    Field::Total,
                    format!(
                        "its lines come to {} (net {} + VAT {}), not the source's total of {}; \
                         nothing of it was imported",
                        money(totals.total),
                        money(totals.subtotal),
                        money(totals.vat_total),
                        money(src)
                    ),
                ));
            }
        } else if rows.iter().all(|(_, l)| l.source_vat.is_some()) && !rows.is_empty() {
            // A reverse-charge line's VAT, which a source may state (Sage's notional VAT),
            // is the buyer's and not in the document's VAT total.
            let vat: Money = rows
                .iter()
                .filter(|(_, l)| l.line_vat_treatment != Some(Treatment::ReverseCharge))
                .filter_map(|(_, l)| l.source_vat)
                .sum();
            if vat != totals.vat_total {
                return Err(Fail::App(AppError::bad_request(format!(
                    "its lines' VAT comes to {}, not the {} the source states; nothing of it \
                     was imported",
                    money(totals.vat_total),
                    money(vat)
                ))));
            }
        }

        let contact_id = match contact {
            Some(c) => c,
            None => self.ensure_contact(&doc.contact_name, kind.contact_role())?,
        };
        // A credit's original: by number or reference among the entity's invoices (bills);
        // not found, the credit is imported unlinked (docs/import.md#credit-notes).
        let original = match kind {
            DocKind::CreditNote | DocKind::SupplierCredit => {
                self.original(kind, doc, &contact_id)?
            }
            _ => None,
        };
        let amount_paid = match (doc.amount_paid, doc.status) {
            (Some(p), _) => Some(p),
            (None, Some(DocStatus::Paid)) => Some(total),
            (None, _) => None,
        };
        documents::create_with(
            self.tx,
            &self.scope,
            kind,
            CreateDocument {
                number: doc.number.clone(),
                contact_id,
                issue_date: Some(date_text(doc.issue_date)),
                due_date: doc.due_date.map(date_text),
                status: doc.status.map(|s| doc_status(s).to_owned()),
                notes: None,
                lines: Some(inputs),
                amount_paid,
                currency: doc.currency.clone(),
                exchange_rate: doc.exchange_rate,
                paid_date: doc.paid_date.map(date_text),
                provider: self.provider.clone(),
                provider_ref: doc.provider_ref.clone(),
                entity_id: Some(self.entity.clone()),
                location_id: None,
                invoice_id: original.clone().filter(|_| kind == DocKind::CreditNote),
                bill_id: original.filter(|_| kind == DocKind::SupplierCredit),
            },
            &self.ctx,
            Numbering::KeepNull,
        )?;
        Ok(Done::Imported)
    }

    /// A document of `kind` in the entity by the source's reference.
    fn doc_by_ref(&self, kind: DocKind, r: &str) -> AppResult<Option<String>> {
        match kind {
            DocKind::Invoice | DocKind::Bill => self.find(
                sql::by_ref(kind.table()),
                params![self.scope.owner_id, self.entity, r],
            ),
            DocKind::CreditNote | DocKind::SupplierCredit => self.find(
                sql::credit_by_ref(kind),
                params![self.scope.owner_id, self.entity, r, self.provider],
            ),
        }
    }

    /// The invoice (bill) a credit names, by reference, else by number (a bill's among
    /// the supplier's); `None` when the entity holds none.
    fn original(
        &self,
        kind: DocKind,
        doc: &Document,
        contact_id: &str,
    ) -> AppResult<Option<String>> {
        let of = if kind == DocKind::CreditNote {
            DocKind::Invoice
        } else {
            DocKind::Bill
        };
        if let Some(r) = &doc.original_ref {
            if let Some(id) = self.doc_by_ref(of, r)? {
                return Ok(Some(id));
            }
        }
        let Some(n) = &doc.original_number else {
            return Ok(None);
        };
        match of {
            DocKind::Invoice => self.find(
                sql::by_number(of),
                params![self.scope.owner_id, self.entity, n],
            ),
            _ => self.find(
                sql::by_number(of),
                params![self.scope.owner_id, self.entity, contact_id, n],
            ),
        }
    }

    /// Lines of a source with no tax at all (no rate, no treatment, no VAT amount on any
    /// line): the VAT is what the document's own totals say, total − subtotal, never a
    /// default rate (docs/import.md#imported-documents). Every line gets the one rate that
    /// reproduces that VAT; when none does, the nearest rate and an `outside_scope`
    /// adjustment line for the pennies left. Without a source total, a line keeps its
    /// product's rate, and a line without a product is at 0 %.
    fn vat_from_totals(
        &self,
        kind: DocKind,
        mut inputs: Vec<LineInput>,
        total: Option<Money>,
    ) -> AppResult<Vec<LineInput>> {
        let Some(total) = total else {
            for i in &mut inputs {
                if i.product_id.is_none() {
                    i.vat_rate = Some(Percent::ZERO);
                }
            }
            return Ok(inputs);
        };
        let at = |inputs: &[LineInput], rate: Percent| -> Vec<LineInput> {
            inputs
                .iter()
                .cloned()
                .map(|mut i| {
                    i.vat_rate = Some(rate);
                    i.vat_treatment = None;
                    i
                })
                .collect()
        };
        let build = |inputs: Vec<LineInput>| {
            lines::build(
                self.tx,
                &self.scope,
                Some(&self.entity),
                inputs,
                kind.line_rules(),
            )
            .map(|b| lines::totals(&b))
        };
        let net = build(at(&inputs, Percent::ZERO))?.subtotal;
        let vat = total - net;
        if vat.is_zero() {
            return Ok(at(&inputs, Percent::ZERO));
        }
        let implied = if net.is_zero() {
            None
        } else {
            Percent::new(round(
                vat.value() / net.value() * rust_decimal::Decimal::from(100),
                2,
            ))
            .ok()
            .filter(|p| {
                p.value() >= rust_decimal::Decimal::ZERO
                    && p.value() <= rust_decimal::Decimal::from(100)
            })
        };
        let candidates = [
            Some(Percent::from_i64(20)),
            Some(Percent::from_i64(5)),
            implied,
        ];
        for rate in candidates.into_iter().flatten() {
            let lines = at(&inputs, rate);
            if build(lines.clone())?.total == total {
                return Ok(lines);
            }
        }
        let mut lines = at(&inputs, implied.unwrap_or(Percent::ZERO));
        let fitted = build(lines.clone())?;
        let left = total - fitted.total;
        // The adjustment absorbs rounding only, a few pence a line; more is a source
        // that contradicts itself, a row error (docs/import.md#imported-documents).
        let ceiling = rust_decimal::Decimal::new(crate::connectors::lines::PENCE_PER_LINE, 2)
            * rust_decimal::Decimal::from(inputs.len());
        if left.value().abs() > ceiling {
            return Err(AppError::bad_request(format!(
                "its lines come to {} (net {} + VAT {}), not the source's total of {}: {} \
                 more than rounding; nothing of it was imported",
                money(fitted.total),
                money(fitted.subtotal),
                money(fitted.vat_total),
                money(total),
                money(Money::new(left.value().abs()).unwrap_or(left)),
            )));
        }
        if let Ok(price) = Price::new(left.value()) {
            lines.push(LineInput {
                description: Some("Adjustment to the source's total".to_owned()),
                product_id: None,
                quantity: None,
                unit_price: Some(price),
                discount: None,
                vat_rate: Some(Percent::ZERO),
                vat_treatment: Some(Treatment::OutsideScope.as_str().to_owned()),
                capital_goods: None,
            });
        }
        Ok(lines)
    }

    /// One dated payment of a document of the entity (docs/import.md#payments).
    pub fn payment(&mut self, row: usize, p: &PaymentRow) -> AppResult<()> {
        let kind = paid_kind(p.document_type.unwrap_or(PaidDocument::Invoice));
        self.record(
            &[row],
            true,
            || {
                let doc = p.document_number.as_ref().or(p.document_ref.as_ref());
                format!(
                    "Payment of {} {} on {}",
                    kind.label(),
                    doc.map_or("", String::as_str),
                    date_text(p.date)
                )
            },
            |w| {
                let mut id = None;
                if let Some(r) = &p.document_ref {
                    id = w.doc_by_ref(kind, r)?;
                }
                if id.is_none() {
                    if let Some(n) = &p.document_number {
                        id = w.find(
                            sql::any_by_number(kind),
                            params![w.scope.owner_id, w.entity, n],
                        )?;
                    }
                }
                let Some(document_id) = id else {
                    let (field, named) = match (&p.document_ref, &p.document_number) {
                        (_, Some(n)) => (Field::DocumentNumber, n),
                        (Some(r), None) => (Field::DocumentRef, r),
                        (None, None) => unreachable!("the parser requires one"),
                    };
                    return Err(Fail::Field(
                        field,
                        format!(
                            "no {} {named} in this entity or this run",
                            kind.label().to_lowercase()
                        ),
                    ));
                };
                // The payments table has no provider reference of its own: a source's
                // payment id is kept as the payment's `reference` when it gives none,
                // and dedup looks for it there.
                if let Some(r) = &p.provider_ref {
                    if w.find(sql::PAYMENT_BY_REFERENCE, params![document_id, r])?
                        .is_some()
                    {
                        return Ok(Done::Skipped);
                    }
                }
                let same = w.find(
                    sql::SAME_PAYMENT,
                    params![document_id, date_text(p.date), p.amount],
                )?;
                if same.is_some() {
                    return Ok(Done::Skipped);
                }
                crate::accounting::payments::create(
                    w.tx,
                    &w.scope,
                    crate::accounting::payments::CreatePayment {
                        document_id,
                        date: Some(date_text(p.date)),
                        amount: p.amount,
                        method: p.method.clone(),
                        reference: p.reference.clone().or_else(|| p.provider_ref.clone()),
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }

    /// One recurring invoice template and its rows `(row, subscription row)`.
    pub fn template(&mut self, t: &Template, rows: &[(usize, &SubscriptionRow)]) -> AppResult<()> {
        let numbers: Vec<usize> = rows.iter().map(|(r, _)| *r).collect();
        self.record(
            &numbers,
            true,
            || format!("Subscription {}", t.provider_ref),
            |w| {
                unreadable(&t.failed_rows)?;
                if w.exists("recurring_invoices", &t.provider_ref)? {
                    return Ok(Done::Skipped);
                }
                // A subscription that states no tax has none: 0 % (`zero`), never the 20 %
                // a line made by hand defaults to (docs/import.md#imported-documents).
                let untaxed = rows
                    .iter()
                    .all(|(_, s)| s.line_vat_rate.is_none() && s.line_vat_treatment.is_none());
                let lines: Vec<LineInput> = rows
                    .iter()
                    .filter(|(_, s)| s.line_unit_price.is_some())
                    .map(|(_, s)| LineInput {
                        description: Some(
                            s.line_description
                                .clone()
                                .unwrap_or_else(|| "Subscription".to_owned()),
                        ),
                        product_id: None,
                        quantity: s.line_quantity,
                        unit_price: s.line_unit_price,
                        discount: None,
                        vat_rate: if untaxed {
                            Some(Percent::ZERO)
                        } else {
                            s.line_vat_rate
                        },
                        vat_treatment: s.line_vat_treatment.map(|t| t.as_str().to_owned()),
                        capital_goods: None,
                    })
                    .collect();
                let contact_id = w.ensure_contact(&t.contact_name, "customer")?;
                RecurringInvoices::create(
                    w.tx,
                    &w.scope,
                    CreateRecurring {
                        contact_id,
                        interval: interval(t.interval).to_owned(),
                        interval_count: t.interval_count.map(i64::from),
                        next_date: t.next_date.map(date_text),
                        status: t.status.map(|s| template_status(s).to_owned()),
                        lines: Some(lines),
                        provider: w.provider.clone(),
                        provider_ref: Some(t.provider_ref.clone()),
                        entity_id: Some(w.entity.clone()),
                    },
                    &w.ctx,
                )?;
                Ok(Done::Imported)
            },
        )
    }
}

/// The dedup lookups, each served by an index (see `migrations/V6__import_dedup.sql` and
/// the test below).
mod sql {
    use crate::accounting::documents::DocKind;

    pub const CONTACT_BY_REF: &str = "SELECT id FROM contacts
        WHERE owner_id = ?1 AND entity_id = ?2 AND provider_ref = ?3 LIMIT 1";
    pub const CONTACT_BY_NAME: &str = "SELECT id FROM contacts
        WHERE owner_id = ?1 AND entity_id = ?2 AND name = ?3 COLLATE NOCASE
        ORDER BY seq LIMIT 1";
    pub const PROJECT_BY_NAME: &str = "SELECT id FROM projects
        WHERE owner_id = ?1 AND entity_id = ?2 AND name = ?3 COLLATE NOCASE
        ORDER BY seq LIMIT 1";
    pub const CATEGORY_BY_NAME: &str = "SELECT id FROM expense_categories
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND name = ?3 COLLATE NOCASE";
    pub const CATEGORY_BY_CODE: &str = "SELECT id FROM expense_categories
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND code = ?3 COLLATE NOCASE
        ORDER BY standard DESC, seq LIMIT 1";
    pub const PRODUCT_BY_SKU: &str = "SELECT id FROM products
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND sku_key = ?3";
    pub const PRODUCT_BY_NAME: &str = "SELECT id FROM products
        WHERE owner_id = ?1 AND entity_id = ?2 AND name = ?3 COLLATE NOCASE LIMIT 1";
    pub const SAME_EXPENSE: &str = "SELECT id FROM expenses
        WHERE owner_id = ?1 AND entity_id = ?2 AND date = ?3 AND amount = ?4
          AND description = ?5 COLLATE NOCASE
        LIMIT 1";
    pub const SAME_TIME_ENTRY: &str = "SELECT id FROM time_entries
        WHERE project_id = ?1 AND date = ?2 AND hours = ?3
          AND COALESCE(description, '') = COALESCE(?4, '') COLLATE NOCASE
        LIMIT 1";
    const INVOICE_BY_NUMBER: &str = "SELECT id FROM invoices
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND number = ?3 COLLATE NOCASE";
    const BILL_BY_NUMBER: &str = "SELECT id FROM bills
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND contact_id = ?3
          AND number = ?4 COLLATE NOCASE";
    const SAME_INVOICE: &str = "SELECT id FROM invoices
        WHERE contact_id = ?1 AND issue_date = ?2 AND total = ?3 LIMIT 1";
    const SAME_BILL: &str = "SELECT id FROM bills
        WHERE contact_id = ?1 AND issue_date = ?2 AND total = ?3 LIMIT 1";

    const SAME_CREDIT_NOTE: &str = "SELECT id FROM credit_notes
        WHERE contact_id = ?1 AND issue_date = ?2 AND total = ?3 LIMIT 1";
    const SAME_SUPPLIER_CREDIT: &str = "SELECT id FROM supplier_credits
        WHERE contact_id = ?1 AND issue_date = ?2 AND total = ?3 LIMIT 1";

    const CREDIT_NOTE_BY_NUMBER: &str = "SELECT id FROM credit_notes
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND number = ?3 COLLATE NOCASE";
    const SUPPLIER_CREDIT_BY_NUMBER: &str = "SELECT id FROM supplier_credits
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND contact_id = ?3
          AND number = ?4 COLLATE NOCASE";
    /// Bills and supplier credits by number whatever the supplier (a payment row names
    /// no contact): the first such.
    const ANY_BILL_BY_NUMBER: &str = "SELECT id FROM bills
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND number = ?3 COLLATE NOCASE
        ORDER BY seq LIMIT 1";
    const ANY_SUPPLIER_CREDIT_BY_NUMBER: &str = "SELECT id FROM supplier_credits
        WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2 AND number = ?3 COLLATE NOCASE
        ORDER BY seq LIMIT 1";
    const CREDIT_NOTE_BY_REF: &str = "SELECT id FROM credit_notes
        WHERE owner_id = ?1 AND provider IS ?4 AND provider_ref = ?3 AND entity_id = ?2
        LIMIT 1";
    const SUPPLIER_CREDIT_BY_REF: &str = "SELECT id FROM supplier_credits
        WHERE owner_id = ?1 AND provider IS ?4 AND provider_ref = ?3 AND entity_id = ?2
        LIMIT 1";
    pub const PAYMENT_BY_REFERENCE: &str = "SELECT id FROM payments
        WHERE document_id = ?1 AND reference = ?2 LIMIT 1";
    pub const SAME_PAYMENT: &str = "SELECT id FROM payments
        WHERE document_id = ?1 AND date = ?2 AND amount = ?3 LIMIT 1";

    /// A document by its number: `?1` owner, `?2` entity, then (bills, supplier
    /// credits) `?3` supplier and `?4` number, else `?3` number.
    pub fn by_number(kind: DocKind) -> &'static str {
        match kind {
            DocKind::Invoice => INVOICE_BY_NUMBER,
            DocKind::Bill => BILL_BY_NUMBER,
            DocKind::CreditNote => CREDIT_NOTE_BY_NUMBER,
            DocKind::SupplierCredit => SUPPLIER_CREDIT_BY_NUMBER,
        }
    }

    /// A document by its number alone (`?1` owner, `?2` entity, `?3` number).
    pub fn any_by_number(kind: DocKind) -> &'static str {
        match kind {
            DocKind::Invoice => INVOICE_BY_NUMBER,
            DocKind::Bill => ANY_BILL_BY_NUMBER,
            DocKind::CreditNote => CREDIT_NOTE_BY_NUMBER,
            DocKind::SupplierCredit => ANY_SUPPLIER_CREDIT_BY_NUMBER,
        }
    }

    /// A credit by the source's reference (`?4` the provider, served by its index).
    pub fn credit_by_ref(kind: DocKind) -> &'static str {
        match kind {
            DocKind::SupplierCredit => SUPPLIER_CREDIT_BY_REF,
            _ => CREDIT_NOTE_BY_REF,
        }
    }

    pub fn same_document(kind: DocKind) -> &'static str {
        match kind {
            DocKind::Invoice => SAME_INVOICE,
            DocKind::Bill => SAME_BILL,
            DocKind::CreditNote => SAME_CREDIT_NOTE,
            DocKind::SupplierCredit => SAME_SUPPLIER_CREDIT,
        }
    }

    /// The provider-reference lookup of a record table (`contacts` for anything else).
    pub fn by_ref(table: &str) -> &'static str {
        match table {
            "products" => {
                "SELECT id FROM products
                 WHERE owner_id = ?1 AND entity_id = ?2 AND provider_ref = ?3 LIMIT 1"
            }
            "invoices" => {
                "SELECT id FROM invoices
                 WHERE owner_id = ?1 AND entity_id = ?2 AND provider_ref = ?3 LIMIT 1"
            }
            "bills" => {
                "SELECT id FROM bills
                 WHERE owner_id = ?1 AND entity_id = ?2 AND provider_ref = ?3 LIMIT 1"
            }
            "expenses" => {
                "SELECT id FROM expenses
                 WHERE owner_id = ?1 AND entity_id = ?2 AND provider_ref = ?3 LIMIT 1"
            }
            "recurring_invoices" => {
                "SELECT id FROM recurring_invoices
                 WHERE owner_id = ?1 AND entity_id = ?2 AND provider_ref = ?3 LIMIT 1"
            }
            _ => CONTACT_BY_REF,
        }
    }

    #[cfg(test)]
    pub fn all() -> Vec<&'static str> {
        let mut v = vec![
            CONTACT_BY_REF,
            CONTACT_BY_NAME,
            PROJECT_BY_NAME,
            CATEGORY_BY_NAME,
            CATEGORY_BY_CODE,
            PRODUCT_BY_SKU,
            PRODUCT_BY_NAME,
            SAME_EXPENSE,
            SAME_TIME_ENTRY,
            INVOICE_BY_NUMBER,
            BILL_BY_NUMBER,
            SAME_INVOICE,
            SAME_BILL,
            SAME_CREDIT_NOTE,
            SAME_SUPPLIER_CREDIT,
            CREDIT_NOTE_BY_NUMBER,
            SUPPLIER_CREDIT_BY_NUMBER,
            ANY_BILL_BY_NUMBER,
            ANY_SUPPLIER_CREDIT_BY_NUMBER,
            CREDIT_NOTE_BY_REF,
            SUPPLIER_CREDIT_BY_REF,
            PAYMENT_BY_REFERENCE,
            SAME_PAYMENT,
        ];
        for t in [
            "products",
            "invoices",
            "bills",
            "expenses",
            "recurring_invoices",
        ] {
            v.push(by_ref(t));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Synchronous;
    use crate::db::Db;

    /// Every dedup lookup finds its rows through an index: a run's cost per row does not
    /// grow with what is stored.
    #[test]
    fn every_dedup_lookup_is_an_index_search() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        db.read_sync(|conn| {
            for q in super::sql::all() {
                let n = q.matches('?').count();
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {q}")).unwrap();
                let params: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
                let plan: Vec<String> = stmt
                    .query_map(rusqlite::params_from_iter(params.iter()), |r| {
                        r.get::<_, String>(3)
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                let plan = plan.join("; ");
                assert!(plan.contains("USING"), "{q}\n=> {plan}");
                assert!(!plan.contains("SCAN"), "{q}\n=> {plan}");
            }
            Ok(())
        })
        .unwrap();
    }
}
