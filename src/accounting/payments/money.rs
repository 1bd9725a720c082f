//! The money of a document: recording a payment against it after its guards, keeping
//! its `amount_paid` equal to the sum of its payments and its status following the money,
//! and the compatibility path of documents that send `amount_paid` or status `paid`
//! (docs/accounting.md#payments). It reads only the document's kind and record, so the
//! documents' own rules call it without a cycle.

use rusqlite::{params, Transaction};
use serde::Serialize;
use time::Date;

use crate::accounting::common::{date_or, date_text, new_id, non_negative};
use crate::accounting::documents::{DocKind, Document};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct Payment {
    pub id: String,
    pub entity_id: Option<String>,
    pub document_id: String,
    /// `invoice`, `bill`, ...: [`DocKind::document_type`].
    pub document_type: String,
    pub date: String,
    pub amount: Money,
    pub method: Option<String>,
    pub reference: Option<String>,
    pub created_at: String,
    /// A payment is never changed: the time it was recorded
    /// (docs/public-api.md#incremental-sync).
    pub updated_at: String,
}

/// `INV-0001` or the id: how messages name a document.
pub(super) fn name(kind: DocKind, d: &Document) -> String {
    format!("{} {}", kind.label(), d.number.as_deref().unwrap_or(&d.id))
}

pub(super) fn pounds(m: Money) -> String {
    format!("{:.2}", m.value())
}

/// A payment's date: today when omitted, never after today (400).
pub(super) fn payment_date(
    field: &str,
    raw: Option<&str>,
    default: Date,
    ctx: &Ctx,
) -> AppResult<Date> {
    let d = date_or(field, raw, default)?;
    if d > ctx.today {
        return Err(AppError::invalid(
            field,
            format!(
                "must not be in the future (today is {})",
                date_text(ctx.today)
            ),
        ));
    }
    Ok(d)
}

/// What is recorded: the document's guards have still to pass ([`record`]).
pub(super) struct NewPayment {
    pub date: Date,
    pub amount: Money,
    pub method: Option<String>,
    pub reference: Option<String>,
}

/// Records a payment on `d` (a document of `kind` the caller sees) after its guards:
/// posted (409), not beyond `amount_due` (409). Keeps `amount_paid` and the status; does
/// not emit the event (the caller does, once).
pub(super) fn record(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    d: &Document,
    p: NewPayment,
    ctx: &Ctx,
) -> AppResult<Payment> {
    if !kind.is_posted(&d.status) {
        return Err(AppError::refused(
            "invalid_state",
            format!(
                "{} is {}: payments are recorded on posted documents only",
                name(kind, d),
                d.status
            ),
        ));
    }
    // Payments are dated records of the books (docs/accounting.md#lock-date).
    crate::entities::lock::check_unlocked(tx, d.entity_id.as_deref(), &date_text(p.date))?;
    if p.amount > d.amount_due {
        return Err(AppError::refused(
            "overpayment",
            format!(
                "A payment of {} is more than the {} due on {}",
                pounds(p.amount),
                pounds(d.amount_due),
                name(kind, d)
            ),
        ));
    }
    let payment = Payment {
        id: new_id(),
        entity_id: d.entity_id.clone(),
        document_id: d.id.clone(),
        document_type: kind.document_type().to_owned(),
        date: date_text(p.date),
        amount: p.amount,
        method: p.method,
        reference: p.reference,
        created_at: ctx.now.clone(),
        updated_at: ctx.now.clone(),
    };
    tx.prepare_cached(
        "INSERT INTO payments (id, owner_id, entity_id, document_id, document_type, date,
             amount, method, reference, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        payment.id,
        scope.owner_for(tx, payment.entity_id.as_deref())?,
        payment.entity_id,
        payment.document_id,
        payment.document_type,
        payment.date,
        payment.amount,
        payment.method,
        payment.reference,
        payment.created_at
    ])?;
    sync_paid(tx, kind, &d.id, ctx)?;
    follow_money(tx, kind, &d.id)?;
    Ok(payment)
}

/// Writes the document's `amount_paid`: the sum of its payments (docs/accounting.md#payments).
pub(super) fn sync_paid(tx: &Transaction, kind: DocKind, id: &str, ctx: &Ctx) -> AppResult<()> {
    tx.prepare_cached(&format!(
        "UPDATE {} SET amount_paid =
             (SELECT COALESCE(SUM(amount), 0) FROM payments WHERE document_id = ?1),
             updated_at = ?2
         WHERE id = ?1",
        kind.table()
    ))?
    .execute(params![id, ctx.now])?;
    Ok(())
}

/// Status follows money (docs/accounting.md#status-follows-money): a posted document of a
/// kind with [`DocKind::money_statuses`] becomes `paid` when payments and credits leave
/// nothing due, and a `paid` one with something due again goes back to owing (`sent`,
/// `awaiting_payment`). Call it whenever `amount_paid`, `amount_credited` or the total
/// of a document changes; it returns the status the document has afterwards.
pub fn follow_money(tx: &Transaction, kind: DocKind, id: &str) -> AppResult<String> {
    let (status, total, paid, credited): (String, Money, Money, Money) = tx
        .prepare_cached(&format!(
            "SELECT status, total, amount_paid, amount_credited FROM {} WHERE id = ?1",
            kind.table()
        ))?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    let Some((owing, settled)) = kind.money_statuses() else {
        return Ok(status);
    };
    let due = total - paid - credited;
    let moved = !(paid + credited).is_zero();
    let next = if kind.is_posted(&status) && status != settled && due.is_zero() && moved {
        settled
    } else if status == settled && due > Money::ZERO {
        owing
    } else {
        return Ok(status);
    };
    tx.prepare_cached(&format!(
        "UPDATE {} SET status = ?2 WHERE id = ?1",
        kind.table()
    ))?
    .execute(params![id, next])?;
    Ok(next.to_owned())
}

/// Deletes the payments of a document being deleted (docs/accounting.md#payments).
pub fn forget_document(tx: &Transaction, id: &str) -> AppResult<()> {
    tx.prepare_cached("DELETE FROM payments WHERE document_id = ?1")?
        .execute([id])?;
    Ok(())
}

/// What a create or update of a document sent about money.
#[derive(Debug, Clone, Copy)]
pub struct Sent<'a> {
    /// `amount_paid`, when sent.
    pub amount_paid: Option<Money>,
    /// `paid_date`, when sent.
    pub paid_date: Option<&'a str>,
    /// The request set the status (to what the document now has).
    pub status_sent: bool,
}

/// The payment date when `paid_date` is omitted: today, or the issue date on import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaidDate {
    Today,
    IssueDate,
}

/// Checks `amount_paid` sent with a document, before anything is written: not negative
/// (400); the date sent with it a real past day (400).
pub fn check_sent(sent: Sent<'_>, ctx: &Ctx) -> AppResult<()> {
    if let Some(p) = sent.amount_paid {
        non_negative("amount_paid", p)?;
    }
    payment_date("paid_date", sent.paid_date, ctx.today, ctx)?;
    Ok(())
}

/// The compatibility path of a document create or update
/// (docs/accounting.md#amount_paid-and-status-paid-on-documents), run once the
/// document's row holds its new status and totals; `d` is refreshed with the money and
/// status it ends with.
///
/// - `amount_paid` below the payments' sum: 409; above it: one payment of the
///   difference, dated `paid_date` (default today, or the issue date on import).
/// - Status `paid` sent without `amount_paid`: a payment of what is due.
/// - Status `paid` that leaves something due: 409. A total below what is paid and
///   credited: 409 (a document with neither may have a negative total: credit lines).
pub fn on_document_write(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    d: &mut Document,
    sent: Sent<'_>,
    default_date: PaidDate,
    ctx: &Ctx,
) -> AppResult<()> {
    check_sent(sent, ctx)?;
    let settled = kind.money_statuses().map(|(_, paid)| paid);
    let wants_paid = sent.status_sent && settled == Some(d.status.as_str());
    let settled_so_far = d.amount_paid + d.amount_credited;
    if d.amount_due.is_sign_negative() && !settled_so_far.is_zero() {
        return Err(AppError::refused(
            "below_paid",
            format!(
                "{}'s total of {} is below the {} paid and credited: delete a payment first",
                name(kind, d),
                pounds(d.total),
                pounds(settled_so_far)
            ),
        ));
    }
    let target = match sent.amount_paid {
        Some(p) if p < d.amount_paid => {
            return Err(AppError::refused(
                "below_paid",
                format!(
                    "amount_paid {} is below the {} of {}'s payments: delete a payment instead",
                    pounds(p),
                    pounds(d.amount_paid),
                    name(kind, d)
                ),
            ));
        }
        Some(p) => p,
        None if wants_paid => d.amount_paid + d.amount_due,
        None => d.amount_paid,
    };
    if wants_paid && target < d.amount_paid + d.amount_due {
        return Err(AppError::refused(
            "not_fully_paid",
            format!(
                "{} cannot be paid with {} still due",
                name(kind, d),
                pounds(d.amount_paid + d.amount_due - target)
            ),
        ));
    }
    if target > d.amount_paid {
        let default = match default_date {
            PaidDate::Today => ctx.today,
            PaidDate::IssueDate => crate::http::body::parse_date("issue_date", &d.issue_date)?,
        };
        let date = payment_date("paid_date", sent.paid_date, default.min(ctx.today), ctx)?;
        record(
            tx,
            scope,
            kind,
            d,
            NewPayment {
                date,
                amount: target - d.amount_paid,
                method: None,
                reference: None,
            },
            ctx,
        )?;
        d.amount_paid = target;
        d.amount_due = d.total - d.amount_paid - d.amount_credited;
    }
    d.status = follow_money(tx, kind, &d.id)?;
    Ok(())
}
