//! The gross-margin report: `GET /api/reports/gross-margin?entityId&dateFrom&dateTo`
//! (docs/documents-stock.md#costs).
//!
//! Over posted invoices (`sent`, `paid`) and posted credit notes issued in the range
//! (inclusive, all bounds optional), one row per product with lines: `quantity` and
//! `sales` (Σ line net in pounds: each line's net × its document's `exchange_rate`, to 2
//! dp, docs/accounting.md#currencies; a credit note's lines count negative) from the
//! lines, `cost_of_sales` from the documents' movements (Σ -qty × unit_cost: a credit
//! note's returns take cost back, docs/documents-stock.md#the-one-rule), `gross_margin` = sales - cost_of_sales and
//! `margin` = gross_margin / sales × 100 (0 without sales). Rows in product name order.
//! Money is rounded to 2 dp once: each row from its exact figures, the summary from the
//! exact sums.
//!
//! Two queries per kind whatever the number of documents (lines, then movements through
//! the document index), summed in exact decimals, and the products' names.

use std::collections::HashMap;

use rocket::serde::json::Json;
use rocket::{get, State};
use rusqlite::{params_from_iter, Connection};
use rust_decimal::Decimal;
use serde::Serialize;

use super::lookup::and_eq;
use super::value::round2;
use crate::auth::SessionUser;
use crate::db::decimal::{ser_decimal, Money, Price, Qty, Rate};
use crate::db::raw::{name_order, text_col};
use crate::db::Db;
use crate::error::AppResult;
use crate::http::body::parse_date;
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct MarginRow {
    pub product_id: String,
    pub product_name: String,
    pub product_sku: String,
    #[serde(serialize_with = "ser_decimal")]
    pub quantity: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub sales: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub cost_of_sales: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub gross_margin: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub margin: Decimal,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MarginSummary {
    #[serde(serialize_with = "ser_decimal")]
    pub sales: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub cost_of_sales: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub gross_margin: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub margin: Decimal,
}

fn margin_pct(gross: Decimal, sales: Decimal) -> Decimal {
    if sales.is_zero() {
        Decimal::ZERO
    } else {
        gross / sales * Decimal::ONE_HUNDRED
    }
}

#[derive(Default)]
struct Sums {
    name: String,
    sku: String,
    seq: i64,
    named: bool,
    quantity: Decimal,
    sales: Decimal,
    cost: Decimal,
}

/// Products looked up one by one beyond this many cost more than one pass over the table.
const SCAN_PRODUCTS_FROM: usize = 2_000;

/// Fills in each product's name, SKU and order, and drops any product that no longer
/// exists (as a join would). A year of sales can name 100,000 products: then one
/// sequential pass over the products table replaces as many random lookups.
fn name_products(
    conn: &Connection,
    by_product: &mut HashMap<String, Sums>,
    scan_from: usize,
) -> AppResult<()> {
    let mut found = 0;
    if by_product.len() >= scan_from {
        let mut stmt = conn.prepare("SELECT id, name, sku, seq FROM products NOT INDEXED")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            if let Some(s) = by_product.get_mut(text_col(r, 0)?) {
                s.name = r.get(1)?;
                s.sku = r.get(2)?;
                s.seq = r.get(3)?;
                s.named = true;
                found += 1;
            }
        }
    } else {
        let mut stmt = conn.prepare_cached("SELECT name, sku, seq FROM products WHERE id = ?1")?;
        for (id, s) in by_product.iter_mut() {
            let mut q = stmt.query([id])?;
            if let Some(r) = q.next()? {
                s.name = r.get(0)?;
                s.sku = r.get(1)?;
                s.seq = r.get(2)?;
                s.named = true;
                found += 1;
            }
        }
    }
    if found < by_product.len() {
        by_product.retain(|_, s| s.named);
    }
    Ok(())
}

/// Where sales come from: posted invoices add them, posted credit notes take them back.
struct Source {
    table: &'static str,
    lines: &'static str,
    posted: &'static str,
    sign: Decimal,
}

const SOURCES: [Source; 2] = [
    Source {
        table: "invoices",
        lines: "invoice_lines",
        posted: "i.status IN ('sent', 'paid')",
        sign: Decimal::ONE,
    },
    Source {
        table: "credit_notes",
        lines: "credit_note_lines",
        posted: "i.status = 'posted'",
        sign: Decimal::NEGATIVE_ONE,
    },
];

/// The report for `scope`, optionally one entity (already resolved) and a date range.
pub fn gross_margin(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
) -> AppResult<(Vec<MarginRow>, MarginSummary)> {
    let mut by_product: HashMap<String, Sums> = HashMap::new();
    for source in SOURCES {
        let (cond, mut args) = scope.condition(conn, "i");
        let mut filter = format!("{} AND {cond}", source.posted);
        and_eq(&mut filter, &mut args, "i.entity_id", entity);
        if let Some(d) = from {
            filter.push_str(" AND i.issue_date >= ?");
            args.push(d.to_owned());
        }
        if let Some(d) = to {
            filter.push_str(" AND i.issue_date <= ?");
            args.push(d.to_owned());
        }
        let mut stmt = conn.prepare(&format!(
            "SELECT l.product_id, l.quantity, l.net, i.exchange_rate
             FROM {} i
             JOIN {} l ON l.document_id = i.id
             WHERE l.product_id IS NOT NULL AND {filter}",
            source.table, source.lines
        ))?;
        let mut q = stmt.query(params_from_iter(args.iter()))?;
        while let Some(r) = q.next()? {
            let qty: Qty = r.get(1)?;
            let net: Money = r.get(2)?;
            let rate: Rate = r.get(3)?;
            let id = text_col(r, 0)?;
            let s = match by_product.get_mut(id) {
                Some(s) => s,
                None => by_product.entry(id.to_owned()).or_default(),
            };
            s.quantity += source.sign * qty.value();
            s.sales += source.sign * rate.to_pounds(net.value());
        }
        drop(q);

        // Sales out are negative and returns in positive: Σ -qty × unit_cost is the cost
        // of sales either way (docs/documents-stock.md#the-one-rule).
        let mut stmt = conn.prepare(&format!(
            "SELECT m.product_id, m.qty, m.unit_cost
             FROM {} i
             JOIN stock_movements m ON m.document_id = i.id
             WHERE m.unit_cost IS NOT NULL AND {filter}",
            source.table
        ))?;
        let mut q = stmt.query(params_from_iter(args.iter()))?;
        while let Some(r) = q.next()? {
            let id = text_col(r, 0)?;
            let qty: Qty = r.get(1)?;
            let cost: Price = r.get(2)?;
            // A product whose lines were all removed no longer has a row; its movements
            // sum to zero anyway (docs/documents-stock.md#the-one-rule).
            if let Some(s) = by_product.get_mut(id) {
                s.cost -= qty.value() * cost.value();
            }
        }
    }
    name_products(conn, &mut by_product, SCAN_PRODUCTS_FROM)?;

    let mut rows: Vec<(String, Sums)> = by_product.into_iter().collect();
    rows.sort_by(|a, b| name_order(&a.1.name, a.1.seq, &b.1.name, b.1.seq));
    let (mut sales, mut cost) = (Decimal::ZERO, Decimal::ZERO);
    let rows = rows
        .into_iter()
        .map(|(id, s)| {
            sales += s.sales;
            cost += s.cost;
            let gross = s.sales - s.cost;
            MarginRow {
                product_id: id,
                product_name: s.name,
                product_sku: s.sku,
                quantity: s.quantity.normalize(),
                sales: round2(s.sales),
                cost_of_sales: round2(s.cost),
                gross_margin: round2(gross),
                margin: round2(margin_pct(gross, s.sales)),
            }
        })
        .collect();
    let gross = sales - cost;
    let summary = MarginSummary {
        sales: round2(sales),
        cost_of_sales: round2(cost),
        gross_margin: round2(gross),
        margin: round2(margin_pct(gross, sales)),
    };
    Ok((rows, summary))
}

#[get("/reports/gross-margin?<entityId>&<dateFrom>&<dateTo>")]
#[allow(non_snake_case)]
pub(super) async fn gross_margin_report(
    user: SessionUser,
    entityId: Option<String>,
    dateFrom: Option<String>,
    dateTo: Option<String>,
    db: &State<Db>,
) -> AppResult<Json<MarginReport>> {
    let date = |field: &str, v: Option<String>| -> AppResult<Option<String>> {
        v.filter(|s| !s.trim().is_empty())
            .map(|s| parse_date(field, s.trim()).map(|d| d.to_string()))
            .transpose()
    };
    let from = date("dateFrom", dateFrom)?;
    let to = date("dateTo", dateTo)?;
    let scope = user.scope();
    let (rows, summary) = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entityId.as_deref())?;
            gross_margin(
                conn,
                &scope,
                entity.as_deref(),
                from.as_deref(),
                to.as_deref(),
            )
        })
        .await?;
    // Serialised straight from the rows: a year of sales can be 100,000 products, and a
    // `serde_json::Value` tree of them would cost more than the report's queries.
    Ok(Json(MarginReport {
        data: rows,
        summary,
    }))
}

#[derive(Serialize)]
pub(super) struct MarginReport {
    data: Vec<MarginRow>,
    summary: MarginSummary,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums() -> HashMap<String, Sums> {
        ["a", "b", "gone"]
            .into_iter()
            .map(|id| (id.to_owned(), Sums::default()))
            .collect()
    }

    fn named(m: &HashMap<String, Sums>) -> Vec<(String, String, String, i64)> {
        let mut v: Vec<_> = m
            .iter()
            .map(|(id, s)| (id.clone(), s.name.clone(), s.sku.clone(), s.seq))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn one_pass_over_the_products_names_them_as_lookups_do_and_drops_missing_ones() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE products (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, name TEXT, sku TEXT);
             INSERT INTO products VALUES (1, 'a', 'Mug', 'M-1'), (2, 'b', 'Jug', 'J-1'),
                                         (3, 'c', 'Cup', 'C-1');",
        )
        .unwrap();
        let (mut looked_up, mut scanned) = (sums(), sums());
        name_products(&conn, &mut looked_up, usize::MAX).unwrap();
        name_products(&conn, &mut scanned, 0).unwrap();
        let want = vec![
            ("a".to_owned(), "Mug".to_owned(), "M-1".to_owned(), 1),
            ("b".to_owned(), "Jug".to_owned(), "J-1".to_owned(), 2),
        ];
        assert_eq!(named(&looked_up), want);
        assert_eq!(named(&scanned), want);
    }
}
