//! The rules of payments, beside their SQL (docs/accounting.md#payments).
//!
//! - `document_id` names a priced document of the caller, of any [`DocKind`] (404
//!   otherwise); `document_type` is the kind's [`DocKind::document_type`].
//! - `amount` above 0, 2 places; `date` defaults to today and may not be in the future
//!   (400); `method` and `reference` free text.
//! - Payments are recorded on posted documents only (a draft or void one: 409) and never
//!   beyond `amount_due` (409).
//! - The document's `amount_paid` column is the sum of its payments, written by the same
//!   transaction that records or deletes one; then its status follows the money
//!   ([`super::money`]) and its webhook event fires.
//! - A create or update of the document that sends `amount_paid` or status `paid` goes
//!   through [`super::money::on_document_write`].

use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Row, Transaction};
use serde::Deserialize;

use super::money::{follow_money, payment_date, pounds, record, sync_paid, NewPayment, Payment};
use crate::accounting::common::{not_found, Which};
use crate::accounting::documents::{self, DocKind, Document};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, parse_id};
use crate::http::paging::{Order, Page};
use crate::scope::Scope;

#[derive(Debug, Deserialize)]
pub struct CreatePayment {
    pub document_id: String,
    #[serde(default)]
    pub date: Option<String>,
    pub amount: Money,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub reference: Option<String>,
}

const COLUMNS: &str = "t.id, t.entity_id, t.document_id, t.document_type, t.date, t.amount,
    t.method, t.reference, t.created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Payment> {
    Ok(Payment {
        id: r.get(0)?,
        entity_id: r.get(1)?,
        document_id: r.get(2)?,
        document_type: r.get(3)?,
        date: r.get(4)?,
        amount: r.get(5)?,
        method: r.get(6)?,
        reference: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(8)?,
    })
}

/// Payments visible to `scope`, of one entity, one record, one document when asked; in
/// `order` (session: newest date first), paged.
pub fn list(
    conn: &Connection,
    scope: &Scope,
    which: Which<'_>,
    document_id: Option<&str>,
    page: Page,
    order: Order,
) -> AppResult<Vec<Payment>> {
    let (cond, mut values) = scope.condition(conn, "t");
    let mut sql = format!("SELECT {COLUMNS} FROM payments t WHERE {cond}");
    for (column, value) in [
        ("entity_id", which.entity),
        ("id", which.id),
        ("document_id", document_id),
    ] {
        if let Some(v) = value {
            sql.push_str(&format!(" AND t.{column} = ?"));
            values.push(v.to_owned());
        }
    }
    // A payment is never changed, only recorded or deleted: it changed when it was made.
    if let Some(since) = which.updated_since {
        sql.push_str(" AND t.created_at >= ?");
        values.push(since.to_owned());
    }
    sql.push_str(match order {
        Order::Session => " ORDER BY t.date DESC, t.seq DESC",
        Order::Creation => " ORDER BY t.seq",
    });
    sql.push_str(" LIMIT ? OFFSET ?");
    let limit = page.sql_limit();
    let mut args: Vec<&dyn ToSql> = values.iter().map(|v| v as &dyn ToSql).collect();
    args.push(&limit);
    args.push(&page.offset);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(args.as_slice(), crate::db::damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The document `raw` names among every kind the caller sees: 400 when not a UUID, 404
/// when none.
fn document(conn: &Connection, scope: &Scope, raw: &str) -> AppResult<(DocKind, Document)> {
    let id = parse_id("document_id", raw)?;
    let (cond, params) = scope.condition(conn, "t");
    for kind in DocKind::ALL {
        let sql = format!("SELECT 1 FROM {} t WHERE t.id = ? AND {cond}", kind.table());
        let mut values: Vec<&dyn ToSql> = vec![&id];
        values.extend(params.iter().map(|p| p as &dyn ToSql));
        let found: Option<i64> = conn
            .prepare_cached(&sql)?
            .query_row(values.as_slice(), |r| r.get(0))
            .optional()?;
        if found.is_some() {
            return Ok((kind, documents::get(conn, scope, kind, &id)?));
        }
    }
    for kind in DocKind::ALL {
        if let Some(refused) = scope.refusal(conn, kind.table(), &id)? {
            return Err(refused);
        }
    }
    Err(not_found("Document", &id))
}

/// The kind whose [`DocKind::document_type`] is `t`.
fn kind_of(t: &str) -> AppResult<DocKind> {
    DocKind::ALL
        .into_iter()
        .find(|k| k.document_type() == t)
        .ok_or_else(|| AppError::internal(format!("a payment names document type {t}")))
}

/// The document's `<kind>.updated` event, with the document as it now is
/// (docs/webhooks.md#events).
fn changed(tx: &Transaction, scope: &Scope, kind: DocKind, id: &str, ctx: &Ctx) -> AppResult<()> {
    let d = documents::get(tx, scope, kind, id)?;
    crate::webhooks::outbox::emit(
        tx,
        &scope.owner_for(tx, d.entity_id.as_deref())?,
        d.entity_id.as_deref(),
        kind.event(),
        &d,
        &ctx.now,
    )
}

/// `POST /api/payments`, `POST /api/v1/payments`: records a payment.
pub fn create(tx: &Transaction, scope: &Scope, b: CreatePayment, ctx: &Ctx) -> AppResult<Payment> {
    let (kind, d) = document(tx, scope, &b.document_id)?;
    let date = payment_date("date", b.date.as_deref(), ctx.today, ctx)?;
    if b.amount <= Money::ZERO {
        return Err(AppError::invalid("amount", "must be above 0"));
    }
    let p = record(
        tx,
        scope,
        kind,
        &d,
        NewPayment {
            date,
            amount: b.amount,
            method: clean(b.method),
            reference: clean(b.reference),
        },
        ctx,
    )?;
    changed(tx, scope, kind, &d.id, ctx)?;
    Ok(p)
}

/// `DELETE /api/payments`: a payment is corrected by deleting it and recording another.
/// The document's `amount_paid` drops by its amount, and a `paid` document owes again.
pub fn delete(tx: &Transaction, scope: &Scope, id: &str, ctx: &Ctx) -> AppResult<()> {
    let p = list(
        tx,
        scope,
        Which {
            id: Some(id),
            ..Which::default()
        },
        None,
        Page {
            limit: Some(1),
            offset: 0,
        },
        Order::Creation,
    )?
    .pop()
    .ok_or_else(|| not_found("Payment", id))?;
    let kind = kind_of(&p.document_type)?;
    crate::entities::lock::check_unlocked(tx, p.entity_id.as_deref(), &p.date)?;
    tx.prepare_cached("DELETE FROM payments WHERE id = ?1")?
        .execute([&p.id])?;
    sync_paid(tx, kind, &p.document_id, ctx)?;
    follow_money(tx, kind, &p.document_id)?;
    changed(tx, scope, kind, &p.document_id, ctx)
}

/// `stockbook check`: every document whose `amount_paid` is not the sum of its payments,
/// and every payment whose document is gone (docs/operations.md#check).
pub fn breaches(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut found = Vec::new();
    for kind in DocKind::ALL {
        let sql = format!(
            "SELECT d.id, d.amount_paid, COALESCE(SUM(p.amount), 0)
             FROM {} d LEFT JOIN payments p ON p.document_id = d.id
             GROUP BY d.id HAVING d.amount_paid <> COALESCE(SUM(p.amount), 0)",
            kind.table()
        );
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map([], |r| {
            Ok(format!(
                "payments: {} {} shows amount_paid {} but its payments come to {}",
                kind.document_type(),
                r.get::<_, String>(0)?,
                pounds(Money::from_scaled(r.get(1)?)),
                pounds(Money::from_scaled(r.get(2)?)),
            ))
        })?;
        for row in rows {
            found.push(row?);
        }
        let mut stmt = conn.prepare(&format!(
            "SELECT p.id FROM payments p WHERE p.document_type = ?1
               AND NOT EXISTS (SELECT 1 FROM {} d WHERE d.id = p.document_id)",
            kind.table()
        ))?;
        let rows = stmt.query_map([kind.document_type()], |r| {
            Ok(format!(
                "payments: payment {} names {} that does not exist",
                r.get::<_, String>(0)?,
                kind.a_noun(),
            ))
        })?;
        for row in rows {
            found.push(row?);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    /// document_id, document_type, date, amount, method, entity_id, id
    type Upgraded = (
        String,
        String,
        String,
        i64,
        Option<String>,
        Option<String>,
        String,
    );

    #[test]
    fn the_upgrade_gives_every_paid_document_one_payment_dated_its_issue_date() {
        let (db, dir) = crate::db::upgraded_from(
            21,
            "INSERT INTO users (id, email, password_hash, created_at) VALUES ('u1', 'a@b', 'x', 't');
             INSERT INTO entities (id, owner_id, name, created_at) VALUES ('e1', 'u1', 'E', 't');
             INSERT INTO invoices (id, owner_id, entity_id, contact_id, issue_date, due_date,
                 status, total, amount_paid, created_at, updated_at)
             VALUES ('i1', 'u1', 'e1', 'c1', '2025-03-01', '2025-03-31', 'paid', 1200, 1200,
                     't', '2025-03-02T00:00:00Z'),
                    ('i2', 'u1', 'e1', 'c1', '2025-04-01', '2025-05-01', 'sent', 1000, 0,
                     't', 't');
             INSERT INTO bills (id, owner_id, entity_id, contact_id, issue_date, due_date,
                 status, total, amount_paid, created_at, updated_at)
             VALUES ('b1', 'u1', NULL, 'c2', '2025-02-01', '2025-03-01', 'awaiting_payment',
                     5000, 1234, 't', 't');",
        );
        let rows: Vec<Upgraded> = db
            .read_sync(|c| {
                let mut s = c.prepare(
                    "SELECT document_id, document_type, date, amount, method, entity_id, id
                     FROM payments ORDER BY seq",
                )?;
                let rows = s
                    .query_map([], |r| {
                        Ok((
                            r.get(0)?,
                            r.get(1)?,
                            r.get(2)?,
                            r.get(3)?,
                            r.get(4)?,
                            r.get(5)?,
                            r.get(6)?,
                        ))
                    })?
                    .collect::<Result<_, _>>()?;
                Ok(rows)
            })
            .unwrap();
        let shown: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.0.as_str(),
                    r.1.as_str(),
                    r.2.as_str(),
                    r.3,
                    r.4.clone(),
                    r.5.clone(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "i1",
                    "invoice",
                    "2025-03-01",
                    1200,
                    None,
                    Some("e1".to_owned())
                ),
                ("b1", "bill", "2025-02-01", 1234, None, None),
            ]
        );
        for r in &rows {
            assert!(crate::http::body::parse_id("id", &r.6).is_ok(), "{}", r.6);
        }
        let breaches = db.read_sync(|c| Ok(super::breaches(c)?)).unwrap();
        assert!(breaches.is_empty(), "{breaches:?}");
        drop(db);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn check_names_a_document_whose_amount_paid_is_not_its_payments_sum() {
        let (db, dir) = crate::db::upgraded_from(
            22,
            "INSERT INTO invoices (id, owner_id, contact_id, issue_date, due_date, status,
                 total, amount_paid, created_at, updated_at)
             VALUES ('i1', 'u1', 'c1', '2025-03-01', '2025-03-31', 'sent', 1200, 500, 't', 't');
             INSERT INTO payments (id, owner_id, document_id, document_type, date, amount,
                 created_at)
             VALUES ('p1', 'u1', 'i1', 'invoice', '2025-03-02', 300, 't'),
                    ('p2', 'u1', 'gone', 'bill', '2025-03-02', 300, 't');",
        );
        let breaches = db.read_sync(|c| Ok(super::breaches(c)?)).unwrap();
        assert_eq!(
            breaches,
            [
                "payments: invoice i1 shows amount_paid 5.00 but its payments come to 3.00",
                "payments: payment p2 names a bill that does not exist",
            ]
        );
        drop(db);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
