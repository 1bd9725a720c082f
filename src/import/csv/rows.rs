//! Turning one CSV record into one typed record of the file's data type, or into the
//! errors that name its row, column and problem.

use csv::StringRecord;
use rust_decimal::Decimal;

use crate::db::decimal::{round, Money, Percent, Price};
use crate::import::fields::{EntityType, Field};
use crate::import::records::{
    ContactRow, ContactType, DocStatus, ExpenseRow, LineRow, PaymentRow, ProductRow, ProjectRow,
    RowData, SubscriptionRow, TimeEntryRow,
};

use super::layouts::Aux;
use super::values::{
    parse_amount, parse_bool, parse_contact_type, parse_count, parse_currency, parse_date,
    parse_doc_status, parse_interval, parse_money, parse_paid_document, parse_percent, parse_price,
    parse_product_status, parse_project_status, parse_qty, parse_rate, parse_tax,
    parse_template_status, parse_treatment, parse_vat_rate, DateOrder,
};
use super::{Mapping, RowError};

/// Column indexes by field and by auxiliary use, from the final mapping.
pub(super) struct Columns {
    by_field: Vec<Vec<usize>>,
    by_aux: Vec<Vec<usize>>,
    /// Short header names ([`super::header::short`]).
    headers: Vec<String>,
}

impl Columns {
    pub fn new(mapping: &Mapping) -> Self {
        let mut by_field = vec![Vec::new(); Field::COUNT];
        let mut by_aux = vec![Vec::new(); Aux::COUNT];
        for c in &mapping.0 {
            if let Some(f) = c.field {
                by_field[f as usize].push(c.column);
            }
            if let Some(a) = c.aux {
                by_aux[a as usize].push(c.column);
            }
        }
        Self {
            by_field,
            by_aux,
            headers: mapping
                .0
                .iter()
                .map(|c| super::header::short(&c.header))
                .collect(),
        }
    }

    pub fn of(&self, f: Field) -> &[usize] {
        &self.by_field[f as usize]
    }

    pub fn aux(&self, a: Aux) -> &[usize] {
        &self.by_aux[a as usize]
    }

    /// Whether a field gets a value from some column, directly or through a fallback.
    pub fn provides(&self, f: Field) -> bool {
        !self.of(f).is_empty()
            || match f {
                Field::Name => {
                    !self.aux(Aux::FirstName).is_empty() || !self.aux(Aux::LastName).is_empty()
                }
                Field::LineUnitPrice => {
                    !self.aux(Aux::LineAmount).is_empty() || !self.aux(Aux::SignedGross).is_empty()
                }
                Field::LineDescription | Field::Description => {
                    !self.aux(Aux::DescriptionFallback).is_empty()
                }
                Field::Hours => !self.aux(Aux::DurationSeconds).is_empty(),
                Field::Amount => !self.aux(Aux::NetAmount).is_empty(),
                _ => false,
            }
    }

    fn header(&self, i: usize) -> String {
        self.headers
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("Column {}", i + 1))
    }
}

/// Everything a record needs to become a typed row.
pub(super) struct Ctx<'a> {
    pub cols: &'a Columns,
    pub entity: EntityType,
    pub order: DateOrder,
    pub contact_type: Option<ContactType>,
    /// The layout's status for documents whose rows give none.
    pub status: Option<DocStatus>,
}

struct Row<'a> {
    ctx: &'a Ctx<'a>,
    rec: &'a StringRecord,
    row: usize,
    errors: Vec<RowError>,
}

impl<'a> Row<'a> {
    fn cell(&self, i: usize) -> Option<&'a str> {
        self.rec.get(i).map(str::trim).filter(|s| !s.is_empty())
    }

    /// The first non-empty cell of the field's columns, with its column.
    fn first(&self, f: Field) -> Option<(usize, &'a str)> {
        self.ctx
            .cols
            .of(f)
            .iter()
            .find_map(|&i| self.cell(i).map(|s| (i, s)))
    }

    fn first_aux(&self, a: Aux) -> Option<(usize, &'a str)> {
        self.ctx
            .cols
            .aux(a)
            .iter()
            .find_map(|&i| self.cell(i).map(|s| (i, s)))
    }

    /// Text of a field; `address` joins all its columns with ", ".
    fn text(&self, f: Field) -> Option<String> {
        if f == Field::Address {
            let parts: Vec<&str> = self
                .ctx
                .cols
                .of(f)
                .iter()
                .filter_map(|&i| self.cell(i))
                .collect();
            return (!parts.is_empty()).then(|| parts.join(", "));
        }
        self.first(f).map(|(_, s)| s.to_owned())
    }

    fn fail(&mut self, column: Option<usize>, message: String) {
        let name = column.map(|i| self.ctx.cols.header(i));
        let message = match &name {
            Some(c) => format!("Column `{c}`: {message}"),
            None => message,
        };
        self.errors.push(RowError {
            row: self.row,
            column: name,
            column_index: column.map(|i| i + 1),
            message,
        });
    }

    fn missing(&mut self, f: Field) {
        let column = self.ctx.cols.of(f).first().copied();
        self.fail(column, format!("required field `{f}` is empty"));
    }

    fn parse<T>(&mut self, f: Field, p: impl Fn(&str) -> Result<T, String>) -> Option<T> {
        let (i, s) = self.first(f)?;
        match p(s) {
            Ok(v) => Some(v),
            Err(why) => {
                self.fail(Some(i), why);
                None
            }
        }
    }

    fn parse_aux<T>(&mut self, a: Aux, p: impl Fn(&str) -> Result<T, String>) -> Option<T> {
        let (i, s) = self.first_aux(a)?;
        match p(s) {
            Ok(v) => Some(v),
            Err(why) => {
                self.fail(Some(i), why);
                None
            }
        }
    }

    fn required_text(&mut self, f: Field) -> Option<String> {
        let v = self.text(f);
        if v.is_none() {
            self.missing(f);
        }
        v
    }

    fn date(&mut self, f: Field) -> Option<time::Date> {
        let order = self.ctx.order;
        self.parse(f, |s| parse_date(s, order))
    }

    fn required_date(&mut self, f: Field) -> Option<time::Date> {
        if self.first(f).is_none() {
            self.missing(f);
            return None;
        }
        self.date(f)
    }

    /// Sum of every column of an auxiliary money use (FreshBooks' two tax columns).
    fn aux_money_sum(&mut self, a: Aux) -> Option<Money> {
        let mut sum: Option<Money> = None;
        for &i in self.ctx.cols.aux(a) {
            if let Some(s) = self.cell(i) {
                match parse_money(s) {
                    Ok(m) => sum = Some(sum.map_or(m, |t| t + m)),
                    Err(why) => self.fail(Some(i), why),
                }
            }
        }
        sum
    }
}

/// Builds the typed row of a record: `Ok` with the row, or `Err` with every problem.
pub(super) fn build(
    ctx: &Ctx<'_>,
    rec: &StringRecord,
    row: usize,
) -> Result<RowData, Vec<RowError>> {
    let mut r = Row {
        ctx,
        rec,
        row,
        errors: Vec::new(),
    };
    let data = match ctx.entity {
        EntityType::Contacts => contact(&mut r).map(RowData::Contact),
        EntityType::Products => product(&mut r).map(RowData::Product),
        EntityType::Invoices
        | EntityType::Bills
        | EntityType::CreditNotes
        | EntityType::SupplierCredits => line(&mut r).map(RowData::Line),
        EntityType::Payments => payment(&mut r).map(RowData::Payment),
        EntityType::Expenses => expense(&mut r).map(RowData::Expense),
        EntityType::Projects => project(&mut r).map(RowData::Project),
        EntityType::TimeEntries => time_entry(&mut r).map(RowData::TimeEntry),
        EntityType::Subscriptions => subscription(&mut r).map(RowData::Subscription),
    };
    match data {
        Some(d) if r.errors.is_empty() => Ok(d),
        _ => {
            if r.errors.is_empty() {
                r.fail(None, "the row could not be read".to_owned());
            }
            Err(r.errors)
        }
    }
}

/// What can still be read of a row that failed, to tell which document or template it
/// belongs to: number, contact, issue date and provider reference (each when readable).
pub(super) struct GroupCells {
    pub number: Option<String>,
    pub contact: Option<String>,
    pub date: Option<time::Date>,
    pub provider_ref: Option<String>,
}

pub(super) fn group_cells(ctx: &Ctx<'_>, rec: &StringRecord, row: usize) -> GroupCells {
    let mut r = Row {
        ctx,
        rec,
        row,
        errors: Vec::new(),
    };
    GroupCells {
        number: r.text(Field::Number),
        contact: r.text(Field::ContactName),
        date: r.date(Field::IssueDate),
        provider_ref: r.text(Field::ProviderRef),
    }
}

fn contact(r: &mut Row<'_>) -> Option<ContactRow> {
    let name = r.text(Field::Name).or_else(|| {
        let first = r.first_aux(Aux::FirstName).map(|(_, s)| s);
        let last = r.first_aux(Aux::LastName).map(|(_, s)| s);
        let full = [first, last]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        (!full.is_empty()).then_some(full)
    });
    if name.is_none() {
        r.missing(Field::Name);
    }
    let contact_type = r
        .parse(Field::Type, parse_contact_type)
        .or(r.ctx.contact_type);
    let phone = r
        .text(Field::Phone)
        .or_else(|| r.first_aux(Aux::PhoneFallback).map(|(_, s)| s.to_owned()));
    Some(ContactRow {
        name: name?,
        contact_type,
        email: r.text(Field::Email),
        phone,
        address: r.text(Field::Address),
        vat_number: r.text(Field::VatNumber),
        provider_ref: r.text(Field::ProviderRef),
    })
}

fn product(r: &mut Row<'_>) -> Option<ProductRow> {
    let name = r.required_text(Field::Name);
    let unit_price = r.parse(Field::UnitPrice, parse_price);
    let cost_price = r.parse(Field::CostPrice, parse_price);
    let vat_rate = r.parse(Field::VatRate, parse_vat_rate);
    Some(ProductRow {
        name: name?,
        sku: r.text(Field::Sku),
        description: r.text(Field::Description),
        category: r.text(Field::Category),
        unit_price,
        cost_price,
        vat_rate,
        unit: r.text(Field::Unit),
        barcode: r.text(Field::Barcode),
        active: r.parse(Field::Status, parse_product_status),
        notes: r.text(Field::Notes),
        provider_ref: r.text(Field::ProviderRef),
    })
}

fn line(r: &mut Row<'_>) -> Option<LineRow> {
    let entity = r.ctx.entity;
    let contact_name = r.required_text(Field::ContactName);
    let issue_date = r.required_date(Field::IssueDate);
    let due_date = r.date(Field::DueDate);
    let status = r
        .parse(Field::Status, |s| parse_doc_status(s, entity))
        .or(r.ctx.status);
    let description = r.text(Field::LineDescription).or_else(|| {
        r.first_aux(Aux::DescriptionFallback)
            .map(|(_, s)| s.to_owned())
    });
    if description.is_none() {
        r.missing(Field::LineDescription);
    }
    let quantity = r.parse(Field::LineQuantity, parse_qty);
    let discount = r.parse(Field::LineDiscount, parse_percent);
    let (mut vat_rate, coded) = r
        .parse(Field::LineVatRate, parse_tax)
        .unwrap_or((None, None));
    let vat_treatment = r.parse(Field::LineVatTreatment, parse_treatment).or(coded);
    // A report's signed gross amount (a credit memo printed negative): its size is the
    // document's total and, without a price, the line's amount.
    let gross = r.parse_aux(Aux::SignedGross, parse_amount).map(|a| a.abs());
    let total = r.parse(Field::Total, parse_money).or_else(|| {
        let g = gross?;
        match Money::new(g) {
            Ok(m) => Some(m),
            Err(why) => {
                let col = r.first_aux(Aux::SignedGross).map(|(i, _)| i);
                r.fail(col, why);
                None
            }
        }
    });
    let line_total = r.parse_aux(Aux::LineTotal, parse_money);
    let mut amount_paid = r.parse(Field::AmountPaid, parse_money);
    let source_vat = r.aux_money_sum(Aux::LineVat);
    let paid_date = r.date(Field::PaidDate);
    let currency = r.parse(Field::Currency, parse_currency);
    let exchange_rate = r.parse(Field::ExchangeRate, parse_rate);
    let line_amount = r.parse_aux(Aux::LineAmount, parse_amount).or(gross);
    let qty = quantity.map_or(Decimal::ONE, |q| q.value());

    let unit_price = match r.parse(Field::LineUnitPrice, parse_price) {
        Some(p) => Some(p),
        None if r.first(Field::LineUnitPrice).is_some() => None,
        None => match line_amount {
            Some(amount) if !qty.is_zero() => match Price::new(amount / qty) {
                Ok(p) => Some(p),
                Err(_) => {
                    let col = r.first_aux(Aux::LineAmount).map(|(i, _)| i);
                    r.fail(col, format!("no unit price, and {amount} ÷ {qty} is not a price of at most 4 decimal places"));
                    None
                }
            },
            _ => {
                r.missing(Field::LineUnitPrice);
                None
            }
        },
    };

    // No rate (no rate column, or a tax code without one): the rate the source's own VAT
    // amount gives.
    if vat_rate.is_none() {
        if let (Some(vat), Some(price)) = (source_vat, unit_price) {
            let disc = discount.map_or(Decimal::ZERO, |d| d.value());
            let net = line_amount.unwrap_or_else(|| {
                round(
                    qty * price.value() * (Decimal::ONE - disc / Decimal::from(100)),
                    2,
                )
            });
            if vat.is_zero() {
                vat_rate = Some(Percent::ZERO);
            } else if !net.is_zero() {
                let rate = round(vat.value() / net * Decimal::from(100), 2);
                match Percent::new(rate) {
                    Ok(p) if p.value() >= Decimal::ZERO && p.value() <= Decimal::from(100) => {
                        vat_rate = Some(p)
                    }
                    _ => {
                        let col = r.ctx.cols.aux(Aux::LineVat).first().copied();
                        r.fail(
                            col,
                            format!("VAT of {vat} on {net} is not a rate from 0 to 100%"),
                        );
                    }
                }
            }
        }
    }
    if amount_paid.is_none() && r.first(Field::AmountPaid).is_none() {
        if let (Some(total), Some(due)) = (total, r.parse_aux(Aux::AmountDue, parse_money)) {
            amount_paid = Some(total - due);
        }
    }
    Some(LineRow {
        number: r.text(Field::Number),
        contact_name: contact_name?,
        issue_date: issue_date?,
        due_date,
        status,
        line_description: description?,
        line_quantity: quantity,
        line_unit_price: unit_price?,
        line_discount: discount,
        line_vat_rate: vat_rate,
        line_vat_treatment: vat_treatment,
        line_sku: r.text(Field::LineSku),
        total,
        amount_paid,
        paid_date,
        currency,
        exchange_rate,
        original_number: r.text(Field::OriginalNumber),
        original_ref: r.text(Field::OriginalRef),
        provider_ref: r.text(Field::ProviderRef),
        source_vat,
        line_total,
    })
}

fn expense(r: &mut Row<'_>) -> Option<ExpenseRow> {
    let date = r.required_date(Field::Date);
    let description = r.text(Field::Description).or_else(|| {
        r.first_aux(Aux::DescriptionFallback)
            .map(|(_, s)| s.to_owned())
    });
    if description.is_none() {
        r.missing(Field::Description);
    }
    let mut vat_amount = r.parse(Field::VatAmount, parse_money);
    let amount = if r.first(Field::Amount).is_some() {
        r.parse(Field::Amount, parse_money)
    } else if r.first_aux(Aux::NetAmount).is_some() {
        r.parse_aux(Aux::NetAmount, parse_money)
            .map(|net| net + vat_amount.unwrap_or(Money::ZERO))
    } else {
        r.missing(Field::Amount);
        None
    };
    if r.first(Field::VatAmount).is_none() {
        vat_amount = vat_of_gross(r, amount);
    }
    let vat_treatment = r.parse(Field::VatTreatment, parse_treatment);
    let currency = r.parse(Field::Currency, parse_currency);
    let exchange_rate = r.parse(Field::ExchangeRate, parse_rate);
    Some(ExpenseRow {
        date: date?,
        description: description?,
        amount: amount?,
        vat_amount,
        vat_treatment,
        currency,
        exchange_rate,
        category: r.text(Field::Category),
        project_name: r.text(Field::ProjectName),
        provider_ref: r.text(Field::ProviderRef),
    })
}

/// The VAT part of a VAT-inclusive amount at the rate of the row's
/// [`Aux::GrossVatRate`] column; `Auto` (FreeAgent: the category's rate, which only
/// FreeAgent knows) and an empty cell give none.
fn vat_of_gross(r: &mut Row<'_>, amount: Option<Money>) -> Option<Money> {
    let (i, cell) = r.first_aux(Aux::GrossVatRate)?;
    if cell.eq_ignore_ascii_case("auto") {
        return None;
    }
    match parse_vat_rate(cell) {
        Ok(rate) => {
            let rate = rate.value();
            amount.map(|a| Money::rounded(a.value() * rate / (Decimal::from(100) + rate)))
        }
        Err(why) => {
            r.fail(Some(i), why);
            None
        }
    }
}

fn payment(r: &mut Row<'_>) -> Option<PaymentRow> {
    let date = r.required_date(Field::Date);
    let amount = if r.first(Field::Amount).is_some() {
        r.parse(Field::Amount, parse_money)
    } else {
        r.missing(Field::Amount);
        None
    };
    let document_type = r.parse(Field::DocumentType, parse_paid_document);
    let document_number = r.text(Field::DocumentNumber).or_else(|| {
        r.first_aux(Aux::DocumentNumberFallback)
            .map(|(_, s)| s.to_owned())
    });
    let document_ref = r.text(Field::DocumentRef);
    if document_number.is_none() && document_ref.is_none() {
        let column = r.ctx.cols.of(Field::DocumentNumber).first().copied();
        r.fail(
            column,
            "neither `document_number` nor `document_ref` says which document it pays".to_owned(),
        );
    }
    Some(PaymentRow {
        document_number,
        document_ref,
        document_type,
        date: date?,
        amount: amount?,
        method: r.text(Field::Method),
        reference: r.text(Field::Reference),
        provider_ref: r.text(Field::ProviderRef),
    })
}

fn project(r: &mut Row<'_>) -> Option<ProjectRow> {
    let name = r.required_text(Field::Name);
    let status = r.parse(Field::Status, parse_project_status);
    let hourly_rate = r.parse(Field::HourlyRate, parse_money);
    let budget = r.parse(Field::Budget, parse_money);
    let contact_name = r
        .text(Field::ContactName)
        .or_else(|| r.first_aux(Aux::ContactFallback).map(|(_, s)| s.to_owned()));
    Some(ProjectRow {
        name: name?,
        contact_name,
        status,
        hourly_rate,
        budget,
    })
}

/// Hours as a decimal (`1.5`) or as `h:mm` (`1:30`).
fn parse_hours(s: &str) -> Result<Money, String> {
    if let Some((h, m)) = s.trim().split_once(':') {
        let (Ok(h), Ok(m)) = (h.trim().parse::<u32>(), m.trim().parse::<u32>()) else {
            return Err(format!("`{}` is not a number of hours", s.trim()));
        };
        if m >= 60 {
            return Err(format!("`{}` is not a number of hours", s.trim()));
        }
        let hours = Decimal::from(h) + Decimal::from(m) / Decimal::from(60);
        return Ok(Money::rounded(hours));
    }
    parse_money(s)
}

/// A duration in whole seconds (FreshBooks `Seconds`) as hours, rounded to 2 decimal
/// places like an `h:mm` duration.
fn parse_seconds(s: &str) -> Result<Money, String> {
    let secs: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number of seconds", s.trim()))?;
    Ok(Money::rounded(Decimal::from(secs) / Decimal::from(3600)))
}

fn time_entry(r: &mut Row<'_>) -> Option<TimeEntryRow> {
    let project_name = r.required_text(Field::ProjectName);
    let date = r.required_date(Field::Date);
    let hours = if r.first(Field::Hours).is_some() {
        r.parse(Field::Hours, parse_hours)
    } else if r.first_aux(Aux::DurationSeconds).is_some() {
        r.parse_aux(Aux::DurationSeconds, parse_seconds)
    } else {
        r.missing(Field::Hours);
        None
    };
    let billable = r.parse(Field::Billable, parse_bool);
    let hourly_rate = r.parse(Field::HourlyRate, parse_money);
    Some(TimeEntryRow {
        project_name: project_name?,
        date: date?,
        hours: hours?,
        description: r.text(Field::Description),
        billable,
        hourly_rate,
    })
}

fn subscription(r: &mut Row<'_>) -> Option<SubscriptionRow> {
    let contact_name = r.required_text(Field::ContactName);
    let interval = if r.first(Field::Interval).is_some() {
        r.parse(Field::Interval, parse_interval)
    } else {
        r.missing(Field::Interval);
        None
    };
    let count = r.parse(Field::IntervalCount, parse_count);
    let next_date = r.date(Field::NextDate);
    let status = r.parse(Field::Status, parse_template_status);
    let quantity = r.parse(Field::LineQuantity, parse_qty);
    let price = r.parse(Field::LineUnitPrice, parse_price);
    let (vat_rate, coded) = r
        .parse(Field::LineVatRate, parse_tax)
        .unwrap_or((None, None));
    let vat_treatment = r.parse(Field::LineVatTreatment, parse_treatment).or(coded);
    let provider_ref = r.required_text(Field::ProviderRef);
    let (interval, implied) = interval?;
    Some(SubscriptionRow {
        contact_name: contact_name?,
        interval,
        interval_count: count.or(implied),
        next_date,
        status,
        line_description: r.text(Field::LineDescription).or_else(|| {
            r.first_aux(Aux::DescriptionFallback)
                .map(|(_, s)| s.to_owned())
        }),
        line_quantity: quantity,
        line_unit_price: price,
        line_vat_rate: vat_rate,
        line_vat_treatment: vat_treatment,
        provider_ref: provider_ref?,
    })
}
