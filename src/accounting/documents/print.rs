//! What an invoice or a credit note shows its customer, printed or emailed
//! (docs/accounting.md#printing-and-sending-invoices): HMRC's full VAT invoice (VAT
//! Notice 700/21 section 16) read from the document, its entity (the seller, with its
//! logo) and its contact (the customer), and the record of each time it was emailed.
//!
//! The print view of the web app, the PDF ([`super::pdf`]) and the email
//! ([`super::send`]) all show a [`Printable`]: one source for the fields.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use super::kind::DocKind;
use super::rules;
use crate::accounting::lines::Line;
use crate::ctx::Ctx;
use crate::db::decimal::{Money, Percent, Price, Qty};
use crate::error::{AppError, AppResult};
use crate::scope::Scope;
use crate::vat::Treatment;

/// The kinds a customer receives: invoices and credit notes.
pub fn printable_kind(kind: DocKind) -> bool {
    matches!(kind, DocKind::Invoice | DocKind::CreditNote)
}

/// A seller or a customer as the document names them.
#[derive(Debug, Clone, Serialize)]
pub struct Party {
    pub name: String,
    pub address: Option<String>,
    pub vat_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// One line as printed.
#[derive(Debug, Clone, Serialize)]
pub struct PrintLine {
    pub description: String,
    pub quantity: Qty,
    pub unit_price: Price,
    pub discount: Percent,
    pub vat_rate: Percent,
    pub vat_treatment: Treatment,
    /// `20%`, `0% (zero-rated)`, `Exempt`, ...: the rate as the customer reads it.
    pub vat_label: String,
    pub net: Money,
    pub vat: Money,
}

/// The net and VAT of every line at one rate (and treatment).
#[derive(Debug, Clone, Serialize)]
pub struct RateTotal {
    pub vat_label: String,
    pub vat_rate: Percent,
    pub net: Money,
    pub vat: Money,
}

/// The invoice a credit note credits.
#[derive(Debug, Clone, Serialize)]
pub struct Credited {
    pub id: String,
    pub number: Option<String>,
    pub issue_date: String,
}

/// One email of the document.
#[derive(Debug, Clone, Serialize)]
pub struct Sent {
    pub sent_at: String,
    pub recipient: String,
}

/// Everything the printed document shows, and the record of its emails.
#[derive(Debug, Clone, Serialize)]
pub struct Printable {
    pub id: String,
    /// `invoice` or `credit_note`.
    pub kind: &'static str,
    /// `VAT invoice` (a seller with a VAT number), `Invoice`, or `Credit note`.
    pub title: &'static str,
    pub number: Option<String>,
    pub status: String,
    pub issue_date: String,
    /// The time of supply (tax point): the issue date, as Stockbook records no other.
    pub time_of_supply: String,
    pub due_date: String,
    pub currency: String,
    pub seller: Party,
    /// `/api/entities/<id>/logo` when the seller has a logo.
    pub logo_url: Option<String>,
    pub customer: Party,
    pub lines: Vec<PrintLine>,
    pub vat_by_rate: Vec<RateTotal>,
    pub subtotal: Money,
    pub vat_total: Money,
    pub total: Money,
    /// Amounts in another currency: the VAT in pounds, as HMRC requires.
    pub vat_total_gbp: Option<Money>,
    pub amount_due: Money,
    /// A line a reverse-charge supply must carry, when a line is one.
    pub reverse_charge_note: Option<&'static str>,
    /// Credit notes: the invoice credited, and the reason (the note's `notes`).
    pub credited_invoice: Option<Credited>,
    pub reason: Option<String>,
    /// Invoices: the notes printed under the lines.
    pub notes: Option<String>,
    /// Each email sent, oldest first.
    pub sends: Vec<Sent>,
    /// The entity whose logo to draw (not shown).
    #[serde(skip)]
    pub entity_id: Option<String>,
}

/// The words of the document's kind: `invoice`, `credit_note`.
pub fn kind_name(kind: DocKind) -> &'static str {
    match kind {
        DocKind::CreditNote => "credit_note",
        _ => "invoice",
    }
}

/// `20%`, `5%`, `0% (zero-rated)`, `Exempt`, `Outside the scope of VAT`,
/// `Reverse charge (20%)`.
fn vat_label(treatment: Treatment, rate: Percent) -> String {
    match treatment {
        Treatment::Standard | Treatment::Reduced => format!("{rate}%"),
        Treatment::Zero => "0% (zero-rated)".to_owned(),
        Treatment::Exempt => "Exempt".to_owned(),
        Treatment::OutsideScope => "Outside the scope of VAT".to_owned(),
        Treatment::ReverseCharge => format!("Reverse charge ({rate}%)"),
    }
}

fn print_line(l: &Line) -> PrintLine {
    PrintLine {
        description: l.description.clone(),
        quantity: l.quantity,
        unit_price: l.unit_price,
        discount: l.discount,
        vat_rate: l.vat_rate,
        vat_treatment: l.vat_treatment,
        vat_label: vat_label(l.vat_treatment, l.vat_rate),
        net: l.net,
        vat: l.vat,
    }
}

/// The lines' net and VAT per rate label, highest rate first.
fn by_rate(lines: &[PrintLine]) -> Vec<RateTotal> {
    let mut groups: BTreeMap<(std::cmp::Reverse<rust_decimal::Decimal>, String), RateTotal> =
        BTreeMap::new();
    for l in lines {
        let key = (std::cmp::Reverse(l.vat_rate.value()), l.vat_label.clone());
        let g = groups.entry(key).or_insert_with(|| RateTotal {
            vat_label: l.vat_label.clone(),
            vat_rate: l.vat_rate,
            net: Money::from_i64(0),
            vat: Money::from_i64(0),
        });
        g.net = g.net + l.net;
        g.vat = g.vat + l.vat;
    }
    groups.into_values().collect()
}

/// The seller: the document's entity, or without one the signed-in owner's name.
fn seller(conn: &Connection, scope: &Scope, entity: Option<&str>) -> AppResult<Party> {
    let owner = scope.owner_id.as_str();
    if let Some(entity) = entity {
        let e = crate::entities::get_as(conn, scope, entity, crate::scope::Cap::ReadBooks)?;
        return Ok(Party {
            name: e.name,
            address: e.address,
            vat_number: e.vat_number,
            email: None,
        });
    }
    let (name, email): (Option<String>, String) = conn.query_row(
        "SELECT name, email FROM users WHERE id = ?1",
        [owner],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(Party {
        name: name.unwrap_or(email),
        address: None,
        vat_number: None,
        email: None,
    })
}

fn customer(conn: &Connection, contact: &str) -> AppResult<Party> {
    Ok(conn.query_row(
        "SELECT name, address, vat_number, email FROM contacts WHERE id = ?1",
        [contact],
        |r| {
            Ok(Party {
                name: r.get(0)?,
                address: r.get(1)?,
                vat_number: r.get(2)?,
                email: r.get(3)?,
            })
        },
    )?)
}

/// Every email of a document, oldest first.
fn sends(conn: &Connection, kind: DocKind, id: &str) -> AppResult<Vec<Sent>> {
    let mut stmt = conn.prepare_cached(
        "SELECT sent_at, recipient FROM document_sends
         WHERE document_id = ?1 AND kind = ?2 ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![id, kind_name(kind)], |r| {
        Ok(Sent {
            sent_at: r.get(0)?,
            recipient: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The printable document `id` of `kind` (an invoice or a credit note) in `scope`: 404
/// when unknown or foreign.
pub fn printable(
    conn: &Connection,
    scope: &Scope,
    kind: DocKind,
    id: &str,
) -> AppResult<Printable> {
    if !printable_kind(kind) {
        return Err(AppError::not_found(format!(
            "{} is not sent to a customer",
            kind.label()
        )));
    }
    let d = rules::get(conn, scope, kind, id)?;
    let seller = seller(conn, scope, d.entity_id.as_deref())?;
    let customer = customer(conn, &d.contact_id)?;
    let lines: Vec<PrintLine> = d.lines.iter().map(print_line).collect();
    let credited_invoice = match &d.link.id {
        Some(invoice) if kind == DocKind::CreditNote => conn
            .query_row(
                "SELECT id, number, issue_date FROM invoices WHERE id = ?1",
                [invoice],
                |r| {
                    Ok(Credited {
                        id: r.get(0)?,
                        number: r.get(1)?,
                        issue_date: r.get(2)?,
                    })
                },
            )
            .optional()?,
        _ => None,
    };
    let logo_url = match &d.entity_id {
        Some(e) if crate::entities::logo::has_logo(conn, e)? => {
            Some(format!("/api/entities/{e}/logo"))
        }
        _ => None,
    };
    let title = match kind {
        DocKind::CreditNote => "Credit note",
        _ if seller.vat_number.is_some() => "VAT invoice",
        _ => "Invoice",
    };
    let reverse_charge = lines
        .iter()
        .any(|l| l.vat_treatment == Treatment::ReverseCharge);
    let (reason, notes) = match kind {
        DocKind::CreditNote => (d.notes.clone(), None),
        _ => (None, d.notes.clone()),
    };
    Ok(Printable {
        vat_by_rate: by_rate(&lines),
        sends: sends(conn, kind, &d.id)?,
        id: d.id,
        kind: kind_name(kind),
        title,
        number: d.number,
        status: d.status,
        time_of_supply: d.issue_date.clone(),
        issue_date: d.issue_date,
        due_date: d.due_date,
        vat_total_gbp: (d.currency != "GBP")
            .then(|| Money::rounded(d.exchange_rate.to_pounds(d.vat_total.value()))),
        currency: d.currency,
        seller,
        logo_url,
        customer,
        lines,
        subtotal: d.subtotal,
        vat_total: d.vat_total,
        total: d.total,
        amount_due: d.amount_due,
        reverse_charge_note: reverse_charge
            .then_some("Reverse charge: customer to account for the VAT to HMRC"),
        credited_invoice,
        reason,
        notes,
        entity_id: d.entity_id,
    })
}

/// Records that the document was emailed to `recipient` now. Called after the mail
/// server took the message, in a transaction of its own.
pub fn record_send(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    id: &str,
    recipient: &str,
    ctx: &Ctx,
) -> AppResult<Sent> {
    rules::get(tx, scope, kind, id)?;
    tx.prepare_cached(
        "INSERT INTO document_sends (owner_id, kind, document_id, recipient, sent_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        scope.owner_id,
        kind_name(kind),
        id,
        recipient,
        ctx.now
    ])?;
    Ok(Sent {
        sent_at: ctx.now.clone(),
        recipient: recipient.to_owned(),
    })
}
