//! Line items of invoices, bills and recurring invoice templates, and the totals computed
//! from them (docs/accounting.md#line-totals):
//!
//! - net = round(quantity × unit_price × (1 − discount / 100), 2)
//! - VAT = round(net × vat_rate / 100, 2)
//! - subtotal, vat_total and total are the sums of the lines' net, VAT and net + VAT.
//! - a `reverse_charge` line's VAT is the buyer's to account for: it is the line's
//!   `reverse_charge_vat`, and its `vat` is 0 (docs/accounting.md#vat-treatment).
//!
//! Rounding is half away from zero, per line. The three line tables have one shape, so
//! one set of functions serves them, given the table name.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::common::new_id;
use crate::db::damage;
use crate::db::decimal::{check_percent, round, Money, Percent, Price, Qty, MAX_MAGNITUDE};
use crate::error::{AppError, AppResult};
use crate::http::body::clean;
use crate::http::body::parse_id;
use crate::scope::{same_entity, Scope};
use crate::vat::{self, Treatment};

/// VAT rate of a line without one and without a product: the UK standard rate.
pub const DEFAULT_VAT_RATE: i64 = 20;

/// A line as sent by the client.
#[derive(Debug, Clone, Deserialize)]
pub struct LineInput {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub product_id: Option<String>,
    /// Default 1.
    #[serde(default)]
    pub quantity: Option<Qty>,
    /// Required unless a product gives it.
    #[serde(default)]
    pub unit_price: Option<Price>,
    /// Percentage, default 0.
    #[serde(default)]
    pub discount: Option<Percent>,
    /// Percentage; default the product's, else 20.
    #[serde(default)]
    pub vat_rate: Option<Percent>,
    /// Default: follows the rate, else the product's (docs/accounting.md#vat-treatment).
    #[serde(default)]
    pub vat_treatment: Option<String>,
    /// Bought as a capital asset: bill and supplier-credit lines only, default false
    /// (docs/vat.md#capital-goods).
    #[serde(default)]
    pub capital_goods: Option<bool>,
}

/// A stored line with its computed amounts.
#[derive(Debug, Clone, Serialize)]
pub struct Line {
    pub id: String,
    pub description: String,
    pub product_id: Option<String>,
    pub quantity: Qty,
    pub unit_price: Price,
    pub discount: Percent,
    pub vat_rate: Percent,
    pub vat_treatment: Treatment,
    pub net: Money,
    pub vat: Money,
    pub total: Money,
    /// The VAT of a `reverse_charge` line, not in `vat` nor in the totals; 0 otherwise.
    pub reverse_charge_vat: Money,
    /// Bought as a capital asset (docs/vat.md#capital-goods): on bill and supplier-credit
    /// lines, absent from the other kinds'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capital_goods: Option<bool>,
}

/// Whether the lines of `table` carry `capital_goods` (migration V25): purchases only.
pub fn has_capital_goods(table: &str) -> bool {
    matches!(table, "bill_lines" | "supplier_credit_lines")
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub subtotal: Money,
    pub vat_total: Money,
    pub total: Money,
}

/// Which product price a line takes when it names a product and no `unit_price`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    /// Sales documents: the selling price.
    UnitPrice,
    /// Purchase documents: the cost price.
    CostPrice,
}

/// What the lines of a kind of document may hold besides their shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRules {
    pub price_source: PriceSource,
    /// Whether a line may be `reverse_charge` (purchases: docs/accounting.md#vat-treatment).
    pub reverse_charge: bool,
    /// Whether a line may be `capital_goods` (purchases: docs/vat.md#capital-goods).
    pub capital_goods: bool,
    /// "an invoice line": the refusal names it.
    pub line_noun: &'static str,
}

/// A line's net and VAT, each rounded to 2 dp half away from zero. `None` when the
/// arithmetic leaves the range the service accepts (magnitude above 10^12).
pub fn line_amounts(
    quantity: Qty,
    unit_price: Price,
    discount: Percent,
    vat_rate: Percent,
) -> Option<(Money, Money)> {
    let hundred = Decimal::ONE_HUNDRED;
    let gross = quantity.value().checked_mul(unit_price.value())?;
    let factor = Decimal::ONE - discount.value() / hundred;
    let net = round(gross.checked_mul(factor)?, 2);
    let vat = round(net.checked_mul(vat_rate.value())? / hundred, 2);
    let max = Decimal::from(MAX_MAGNITUDE);
    if net.abs() > max || vat.abs() > max {
        return None;
    }
    Some((Money::rounded(net), Money::rounded(vat)))
}

/// Sums of the lines.
pub fn totals(lines: &[Line]) -> Totals {
    let subtotal: Money = lines.iter().map(|l| l.net).sum();
    let vat_total: Money = lines.iter().map(|l| l.vat).sum();
    Totals {
        subtotal,
        vat_total,
        total: subtotal + vat_total,
    }
}

/// Validates and prices the lines sent for a document of `entity`, resolving products
/// through `scope` (404 unknown or foreign, 400 of another entity).
pub fn build(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    inputs: Vec<LineInput>,
    rules: LineRules,
) -> AppResult<Vec<Line>> {
    crate::http::body::check_line_count("lines", inputs.len())?;
    let mut out = Vec::with_capacity(inputs.len());
    for (i, l) in inputs.into_iter().enumerate() {
        let field = |name: &str| format!("lines[{i}].{name}");
        let product = match l.product_id.as_deref().map(str::trim) {
            Some(raw) if !raw.is_empty() => {
                let id = parse_id(&field("product_id"), raw)?;
                let p = product_for_line(conn, scope, &id)?;
                same_entity(&field("product_id"), p.entity_id.as_deref(), entity)?;
                Some(p)
            }
            _ => None,
        };
        let description = match (clean(l.description), &product) {
            (Some(d), _) => d,
            (None, Some(p)) => p.name.clone(),
            (None, None) => return Err(AppError::missing(&field("description"))),
        };
        let quantity = l.quantity.unwrap_or(Qty::from_i64(1));
        if quantity.value() <= Decimal::ZERO {
            return Err(AppError::invalid(&field("quantity"), "must be above 0"));
        }
        let unit_price = match (l.unit_price, &product) {
            (Some(p), _) => p,
            (None, Some(p)) => match rules.price_source {
                PriceSource::UnitPrice => p.unit_price,
                PriceSource::CostPrice => p.cost_price,
            },
            (None, None) => return Err(AppError::missing(&field("unit_price"))),
        };
        let discount = match l.discount {
            Some(d) => {
                check_percent(&field("discount"), d.value())?;
                d
            }
            None => Percent::ZERO,
        };
        if let Some(r) = l.vat_rate {
            check_percent(&field("vat_rate"), r.value())?;
        }
        let treatment = vat::parse_opt(&field("vat_treatment"), l.vat_treatment.as_deref())?;
        let inherited = match &product {
            Some(p) => (p.vat_rate, p.vat_treatment),
            None => (Percent::from_i64(DEFAULT_VAT_RATE), Treatment::Standard),
        };
        let (vat_rate, vat_treatment) =
            vat::resolve(&field("vat_treatment"), l.vat_rate, treatment, inherited)?;
        vat::check_reverse_charge(
            &field("vat_treatment"),
            vat_treatment,
            rules.reverse_charge,
            rules.line_noun,
        )?;
        let (net, computed) = line_amounts(quantity, unit_price, discount, vat_rate)
            .ok_or_else(|| AppError::invalid(&field("unit_price"), "line amount above 10^12"))?;
        let capital_goods = match (l.capital_goods, rules.capital_goods) {
            (Some(true), false) => {
                return Err(AppError::invalid(
                    &field("capital_goods"),
                    format!(
                        "only purchases are capital goods, not {} (docs/vat.md#capital-goods)",
                        rules.line_noun
                    ),
                ))
            }
            (c, true) => Some(c.unwrap_or(false)),
            (_, false) => None,
        };
        let (vat, reverse_charge_vat) = match vat_treatment {
            Treatment::ReverseCharge => (Money::ZERO, computed),
            _ => (computed, Money::ZERO),
        };
        out.push(Line {
            id: new_id(),
            description,
            product_id: product.map(|p| p.id),
            quantity,
            unit_price,
            discount,
            vat_rate,
            vat_treatment,
            net,
            vat,
            total: net + vat,
            reverse_charge_vat,
            capital_goods,
        });
    }
    let t = totals(&out);
    if t.total.value().abs() > Decimal::from(MAX_MAGNITUDE) {
        return Err(AppError::invalid("lines", "document total above 10^12"));
    }
    Ok(out)
}

struct LineProduct {
    id: String,
    entity_id: Option<String>,
    name: String,
    unit_price: Price,
    cost_price: Price,
    vat_rate: Percent,
    vat_treatment: Treatment,
}

fn product_for_line(conn: &Connection, scope: &Scope, id: &str) -> AppResult<LineProduct> {
    let (cond, params) = scope.condition(conn, "");
    let sql = format!(
        "SELECT id, entity_id, name, unit_price, cost_price, vat_rate, vat_treatment FROM products
         WHERE id = ? AND {cond}"
    );
    let mut values: Vec<&dyn rusqlite::ToSql> = vec![&id];
    values.extend(params.iter().map(|p| p as &dyn rusqlite::ToSql));
    conn.prepare_cached(&sql)?
        .query_row(values.as_slice(), |r| {
            Ok(LineProduct {
                id: r.get(0)?,
                entity_id: r.get(1)?,
                name: r.get(2)?,
                unit_price: r.get(3)?,
                cost_price: r.get(4)?,
                vat_rate: r.get(5)?,
                vat_treatment: r.get(6)?,
            })
        })
        .optional()?
        .ok_or_else(|| AppError::not_found(format!("Product not found: {id}")))
}

/// Replaces the lines of document `document_id` in `table` (`invoice_lines`,
/// `bill_lines`, `recurring_invoice_lines`).
pub fn replace(tx: &Transaction, table: &str, document_id: &str, lines: &[Line]) -> AppResult<()> {
    tx.execute(
        &format!("DELETE FROM {table} WHERE document_id = ?1"),
        [document_id],
    )?;
    let capital = if has_capital_goods(table) {
        ", capital_goods"
    } else {
        ""
    };
    let capital_value = if has_capital_goods(table) {
        ", ?14"
    } else {
        ""
    };
    let mut stmt = tx.prepare_cached(&format!(
        "INSERT INTO {table} (id, document_id, position, description, product_id, quantity,
             unit_price, discount, vat_rate, net, vat, vat_treatment, reverse_charge_vat{capital})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13{capital_value})"
    ))?;
    for (i, l) in lines.iter().enumerate() {
        let capital_goods = l.capital_goods.unwrap_or(false);
        let position = i64::try_from(i).unwrap_or(i64::MAX);
        let mut values = params![
            l.id,
            document_id,
            position,
            l.description,
            l.product_id,
            l.quantity,
            l.unit_price,
            l.discount,
            l.vat_rate,
            l.net,
            l.vat,
            l.vat_treatment,
            l.reverse_charge_vat,
            capital_goods
        ]
        .to_vec();
        if !has_capital_goods(table) {
            values.pop();
        }
        stmt.execute(values.as_slice())?;
    }
    Ok(())
}

/// The lines of one document, in their order.
pub fn load(conn: &Connection, table: &str, document_id: &str) -> AppResult<Vec<Line>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, description, product_id, quantity, unit_price, discount, vat_rate, net, vat,
             vat_treatment, reverse_charge_vat, {capital}
         FROM {table} WHERE document_id = ?1 ORDER BY position",
        capital = if has_capital_goods(table) {
            "capital_goods"
        } else {
            "NULL"
        }
    ))?;
    let lines = stmt
        .query_map(
            [document_id],
            damage::named(|r| {
                let net: Money = r.get(7)?;
                let vat: Money = r.get(8)?;
                Ok(Line {
                    id: r.get(0)?,
                    description: r.get(1)?,
                    product_id: r.get(2)?,
                    quantity: r.get(3)?,
                    unit_price: r.get(4)?,
                    discount: r.get(5)?,
                    vat_rate: r.get(6)?,
                    vat_treatment: r.get(9)?,
                    net,
                    vat,
                    total: net + vat,
                    reverse_charge_vat: r.get(10)?,
                    capital_goods: r.get::<_, Option<bool>>(11)?,
                })
            }),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amounts(q: &str, p: &str, d: &str, r: &str) -> (String, String) {
        let (net, vat) = line_amounts(
            q.parse().unwrap(),
            p.parse().unwrap(),
            d.parse().unwrap(),
            r.parse().unwrap(),
        )
        .unwrap();
        (net.to_string(), vat.to_string())
    }

    #[test]
    fn a_half_penny_rounds_away_from_zero() {
        assert_eq!(
            amounts("1", "0.125", "0", "20"),
            ("0.13".into(), "0.03".into())
        );
        assert_eq!(
            amounts("1", "-0.125", "0", "20"),
            ("-0.13".into(), "-0.03".into())
        );
    }

    #[test]
    fn vat_is_computed_on_the_rounded_net() {
        // 3 × 1.415 = 4.245 → 4.25; 5% of 4.25 = 0.2125 → 0.21.
        assert_eq!(
            amounts("3", "1.415", "0", "5"),
            ("4.25".into(), "0.21".into())
        );
    }

    #[test]
    fn a_discount_applies_before_rounding() {
        // 2 × 9.99 × 0.875 = 17.4825 → 17.48; 20% = 3.496 → 3.5.
        assert_eq!(
            amounts("2", "9.99", "12.5", "20"),
            ("17.48".into(), "3.5".into())
        );
    }

    #[test]
    fn huge_amounts_are_refused_rather_than_overflowing() {
        let q: Qty = "999999999999".parse().unwrap();
        let p: Price = "999999999999".parse().unwrap();
        assert!(line_amounts(q, p, Percent::ZERO, Percent::ZERO).is_none());
    }
}
