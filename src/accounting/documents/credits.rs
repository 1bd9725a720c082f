//! Credits against invoices and bills: the link of a credit note (supplier credit) to the
//! invoice (bill) it credits, and the `amount_credited` both sides keep
//! (docs/accounting.md#credit-notes-and-supplier-credits, docs/accounting.md#amount-due).
//!
//! - A credit may name the document it credits ([`DocKind::credits`]): one of the caller's
//!   (404 otherwise), of the credit's entity and contact (400), posted (409).
//! - A credit's own `amount_credited` is the part applied to its original: its total while
//!   posted and linked, else 0; so a posted linked credit has nothing left to refund, and
//!   one with refunds (`amount_paid`) cannot be applied (409). An original's `amount_credited` is the sum of its posted
//!   credits' totals, written by the transaction that changes one of them ([`settle`]);
//!   a change that would take it beyond what the original has due is 409.
//! - An original with posted credits stays as they found it: voiding it, returning it to
//!   draft, giving it another contact or a total below what is paid and credited is 409
//!   ([`guard_original`]); an original with any credit linked cannot be deleted (409).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::kind::DocKind;
use super::record::{one, Document};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::parse_id;
use crate::scope::Scope;

fn name(kind: DocKind, d: &Document) -> String {
    format!("{} {}", kind.label(), d.number.as_deref().unwrap_or(&d.id))
}

/// Resolves the document a credit of `kind` names in its link field: 400 when not a
/// UUID, 404 when unknown or foreign, 400 when of another entity or contact, 409 when
/// not posted.
fn original(
    conn: &Connection,
    scope: &Scope,
    kind: DocKind,
    raw: &str,
    entity: Option<&str>,
    contact_id: &str,
) -> AppResult<String> {
    let Some((original_kind, field)) = kind.credits() else {
        return Err(AppError::internal("a link on a kind that credits nothing"));
    };
    let id = parse_id(field, raw)?;
    let o = one(conn, scope, original_kind, &id)?;
    if o.entity_id.as_deref() != entity {
        return Err(AppError::invalid(
            field,
            format!("{} is of another business", name(original_kind, &o)),
        ));
    }
    if o.contact_id != contact_id {
        return Err(AppError::invalid(
            field,
            format!(
                "{} is of another {} ({})",
                name(original_kind, &o),
                kind.contact_role(),
                o.contact_name
            ),
        ));
    }
    if !original_kind.is_posted(&o.status) {
        return Err(AppError::refused(
            "invalid_state",
            format!(
                "{} is {}: only a posted {} can be credited",
                name(original_kind, &o),
                o.status,
                original_kind.label().to_lowercase()
            ),
        ));
    }
    Ok(o.id)
}

/// The link a create sends (blank: none), resolved by [`original`].
pub(super) fn link_sent(
    conn: &Connection,
    scope: &Scope,
    kind: DocKind,
    sent: Option<&str>,
    entity: Option<&str>,
    contact_id: &str,
) -> AppResult<Option<String>> {
    match sent.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => Ok(Some(original(conn, scope, kind, raw, entity, contact_id)?)),
        None => Ok(None),
    }
}

/// What an update of a document needs to keep its credits right: the link and contact
/// it had, the link the request sent, and (originals) the document as it was.
pub(super) struct Change {
    old_link: Option<String>,
    old_contact: String,
    sent: Option<Option<String>>,
    before: Option<Document>,
}

impl Change {
    /// Taken before the request changes `d`; `sent` is the kind's link field as sent.
    pub(super) fn start(kind: DocKind, d: &Document, sent: Option<Option<&str>>) -> Self {
        Self {
            old_link: d.link.id.clone(),
            old_contact: d.contact_id.clone(),
            sent: sent.map(|l| l.map(str::to_owned)),
            before: kind.credited_by().is_some().then(|| d.clone()),
        }
    }

    /// Applies the link sent (null or blank unlinks) and checks the link against the
    /// credit as it now stands when the link or the contact changed, or the credit is
    /// posted ([`original`]).
    pub(super) fn relink(
        &self,
        conn: &Connection,
        scope: &Scope,
        kind: DocKind,
        d: &mut Document,
    ) -> AppResult<()> {
        if let Some(l) = &self.sent {
            d.link.id = l
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned);
        }
        if let Some(raw) = d.link.id.clone() {
            if d.link.id != self.old_link
                || d.contact_id != self.old_contact
                || kind.is_posted(&d.status)
            {
                let id = original(
                    conn,
                    scope,
                    kind,
                    &raw,
                    d.entity_id.as_deref(),
                    &d.contact_id,
                )?;
                d.link.id = Some(id);
            }
        }
        Ok(())
    }

    /// After the document's row is written: an original's guard ([`guard_original`]), a
    /// credit's link column and [`settle`]. Returns the originals whose `amount_credited`
    /// changed.
    pub(super) fn finish(
        self,
        tx: &Transaction,
        scope: &Scope,
        kind: DocKind,
        d: &mut Document,
        ctx: &Ctx,
    ) -> AppResult<Vec<String>> {
        if let Some(before) = &self.before {
            guard_original(tx, kind, before, d)?;
        }
        write_link(tx, kind, d)?;
        settle(tx, scope, kind, d, self.old_link.as_deref(), ctx)
    }
}

/// The credit's own `amount_credited`: its total while posted and linked, else 0.
fn applied(kind: DocKind, d: &Document) -> Money {
    if d.link.id.is_some() && kind.is_posted(&d.status) {
        d.total
    } else {
        Money::ZERO
    }
}

/// Σ total of the posted credits linked to `original_id`.
fn credited(conn: &Connection, credit: DocKind, original_id: &str) -> AppResult<Money> {
    let Some((_, field)) = credit.credits() else {
        return Ok(Money::ZERO);
    };
    let posted = quoted(credit.posted_statuses());
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT total FROM {} WHERE {field} = ?1 AND status IN ({posted})",
        credit.table()
    ))?;
    let mut rows = stmt.query([original_id])?;
    let mut sum = Money::ZERO;
    while let Some(r) = rows.next()? {
        sum = sum + r.get::<_, Money>(0)?;
    }
    Ok(sum)
}

/// After a credit's row and lines are written: its own `amount_credited`, then that of
/// the original it credited before the request (`before`) and of the one it credits now,
/// each refused (409) when it would go beyond what that original has due. Returns the
/// originals whose `amount_credited` changed (the caller writes their events).
pub(super) fn settle(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    d: &mut Document,
    before: Option<&str>,
    ctx: &Ctx,
) -> AppResult<Vec<String>> {
    let mut changed = Vec::new();
    let Some((original_kind, _)) = kind.credits() else {
        return Ok(changed);
    };
    d.amount_credited = applied(kind, d);
    d.amount_due = d.total - d.amount_paid - d.amount_credited;
    if d.amount_due < Money::ZERO && d.amount_credited > Money::ZERO {
        return Err(AppError::refused(
            "over_credit",
            format!(
                "{} has {} refunded: applied to {} as well, it would credit more than its total",
                name(kind, d),
                d.amount_paid,
                original_kind.a_noun()
            ),
        ));
    }
    tx.prepare_cached(&format!(
        "UPDATE {} SET amount_credited = ?1 WHERE id = ?2",
        kind.table()
    ))?
    .execute(params![d.amount_credited, d.id])?;
    let mut originals: Vec<&str> = before.into_iter().collect();
    if let Some(now) = d.link.id.as_deref() {
        if !originals.contains(&now) {
            originals.push(now);
        }
    }
    for id in originals {
        let o = one(tx, scope, original_kind, id)?;
        // A credit takes off what its original owes in the original's own money
        // (docs/accounting.md#credit-notes-and-supplier-credits).
        if d.link.id.as_deref() == Some(id) && o.currency != d.currency {
            let (_, field) = kind.credits().unwrap_or((original_kind, "link"));
            return Err(AppError::invalid(
                field,
                format!(
                    "{} is in {}: a credit against it must be in {} too, not {}",
                    name(original_kind, &o),
                    o.currency,
                    o.currency,
                    d.currency
                ),
            ));
        }
        let new = credited(tx, kind, id)?;
        if new == o.amount_credited {
            continue;
        }
        if new > o.amount_credited && o.total - o.amount_paid - new < Money::ZERO {
            let others = new - applied_to(kind, d, id);
            return Err(AppError::refused(
                "over_credit",
                format!(
                    "{} has {} due after its payments and other credits: {} of {} goes beyond it",
                    name(original_kind, &o),
                    o.total - o.amount_paid - others,
                    name(kind, d),
                    d.total
                ),
            ));
        }
        tx.prepare_cached(&format!(
            "UPDATE {} SET amount_credited = ?1, updated_at = ?2 WHERE id = ?3",
            original_kind.table()
        ))?
        .execute(params![new, ctx.now, id])?;
        changed.push(id.to_owned());
    }
    Ok(changed)
}

/// What credit `d` applies to original `id`.
fn applied_to(kind: DocKind, d: &Document, id: &str) -> Money {
    if d.link.id.as_deref() == Some(id) {
        applied(kind, d)
    } else {
        Money::ZERO
    }
}

/// The first posted credit linked to `original_id`, by its name, if any.
fn posted_credit(
    conn: &Connection,
    credit: DocKind,
    original_id: &str,
) -> AppResult<Option<String>> {
    first_credit(conn, credit, original_id, true)
}

fn first_credit(
    conn: &Connection,
    credit: DocKind,
    original_id: &str,
    posted_only: bool,
) -> AppResult<Option<String>> {
    let Some((_, field)) = credit.credits() else {
        return Ok(None);
    };
    let status = if posted_only {
        format!(" AND status IN ({})", quoted(credit.posted_statuses()))
    } else {
        String::new()
    };
    let found: Option<(String, Option<String>)> = conn
        .query_row(
            &format!(
                "SELECT id, number FROM {} WHERE {field} = ?1{status} ORDER BY seq LIMIT 1",
                credit.table()
            ),
            [original_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(found
        .map(|(id, number)| format!("{} {}", credit.label().to_lowercase(), number.unwrap_or(id))))
}

/// Refuses (409) a change of an original (`before` → `after`) that its posted credits
/// forbid: leaving the posted statuses, another contact, another currency, or a total
/// below what is paid and credited.
fn guard_original(
    conn: &Connection,
    kind: DocKind,
    before: &Document,
    after: &Document,
) -> AppResult<()> {
    let Some(credit) = kind.credited_by() else {
        return Ok(());
    };
    let Some(c) = posted_credit(conn, credit, &before.id)? else {
        return Ok(());
    };
    let refuse = |what: &str| {
        Err(AppError::refused(
            "in_use",
            format!(
                "{} has a posted {c}: {what}; void the credit first",
                name(kind, before)
            ),
        ))
    };
    if !kind.is_posted(&after.status) {
        return refuse(&format!("it cannot become {}", after.status));
    }
    if after.contact_id != before.contact_id {
        return refuse(&format!("its {} cannot change", kind.contact_role()));
    }
    if after.currency != before.currency {
        return refuse("its currency cannot change");
    }
    if after.amount_due < Money::ZERO {
        return refuse("its total cannot fall below what is paid and credited");
    }
    Ok(())
}

/// Writes a credit's link column (nothing for the other kinds).
pub(super) fn write_link(tx: &Transaction, kind: DocKind, d: &Document) -> AppResult<()> {
    if let Some((_, field)) = kind.credits() {
        tx.prepare_cached(&format!(
            "UPDATE {} SET {field} = ?1 WHERE id = ?2",
            kind.table()
        ))?
        .execute(params![d.link.id, d.id])?;
    }
    Ok(())
}

/// Refuses (409) to delete a posted credit that credits a document (void it first, so its
/// original's `amount_credited` follows), and an original that any credit (of any status)
/// names.
pub(super) fn guard_delete(conn: &Connection, kind: DocKind, d: &Document) -> AppResult<()> {
    if d.link.id.is_some() && kind.is_posted(&d.status) {
        return Err(AppError::refused(
            "in_use",
            format!(
                "{} is posted against {}: void it before deleting it",
                name(kind, d),
                kind.credits().map_or("", |(o, _)| o.a_noun())
            ),
        ));
    }
    let Some(credit) = kind.credited_by() else {
        return Ok(());
    };
    if let Some(c) = first_credit(conn, credit, &d.id, false)? {
        return Err(AppError::refused(
            "in_use",
            format!(
                "{} is credited by {c}: delete the credit first",
                name(kind, d)
            ),
        ));
    }
    Ok(())
}

/// Every document whose `amount_credited` is not what its credits say, in words, for
/// `stockbook check` (docs/operations.md#check): an original's is the sum of its posted
/// credits' totals, a credit's its total while posted and linked, else 0.
pub fn credited_breaches(conn: &Connection) -> AppResult<Vec<String>> {
    let mut out = Vec::new();
    for kind in DocKind::ALL {
        let expected = if let Some(credit) = kind.credited_by() {
            let Some((_, field)) = credit.credits() else {
                continue;
            };
            format!(
                "(SELECT COALESCE(SUM(c.total), 0) FROM {} c
                  WHERE c.{field} = t.id AND c.status IN ({}))",
                credit.table(),
                quoted(credit.posted_statuses())
            )
        } else if let Some((_, field)) = kind.credits() {
            format!(
                "CASE WHEN t.{field} IS NOT NULL AND t.status IN ({}) THEN t.total ELSE 0 END",
                quoted(kind.posted_statuses())
            )
        } else {
            continue;
        };
        let mut stmt = conn.prepare(&format!(
            "SELECT id, number, amount_credited, expected FROM
                 (SELECT t.id, t.number, t.amount_credited, {expected} AS expected FROM {} t)
             WHERE amount_credited <> expected",
            kind.table()
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: String = r.get(0)?;
            let number: Option<String> = r.get(1)?;
            let has: Money = r.get(2)?;
            let should: Money = r.get(3)?;
            out.push(format!(
                "{} {} has amount_credited {has}, but its credits say {should}",
                kind.label(),
                number.unwrap_or(id)
            ));
        }
    }
    Ok(out)
}

/// `'a', 'b'`: statuses for an SQL `IN` list (constants of [`DocKind`], never input).
fn quoted(statuses: &[&str]) -> String {
    statuses
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}
