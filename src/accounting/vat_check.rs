//! `stockbook check`'s VAT rules (docs/accounting.md#vat-treatment,
//! docs/operations.md#check): a stored treatment and rate (or expense VAT) that the rules
//! of [`crate::vat`] would have refused. A value outside the set is found with the other
//! damaged values (`crate::ops::rows`).

use rusqlite::Connection;

use super::documents::DocKind;

/// Every stored pair that breaks a VAT rule, in words.
pub fn breaches(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let no_vat = "('zero', 'exempt', 'outside_scope')";
    let mut checks: Vec<(String, String)> = Vec::new();
    let mut lines: Vec<(&str, bool)> = DocKind::ALL
        .iter()
        .map(|k| (k.lines_table(), k.allows_reverse_charge()))
        .collect();
    // Recurring templates give invoices.
    lines.push((
        "recurring_invoice_lines",
        DocKind::Invoice.allows_reverse_charge(),
    ));
    for (table, reverse_charge) in lines {
        checks.push((
            format!(
                "SELECT id, vat_treatment || ' with a vat_rate of ' || (vat_rate / 100.0)
                 FROM {table} WHERE vat_treatment IN {no_vat} AND vat_rate <> 0"
            ),
            format!("`{table}`"),
        ));
        checks.push((
            format!(
                "SELECT id, 'a ' || vat_treatment || ' line with VAT in its totals'
                 FROM {table} WHERE vat_treatment = 'reverse_charge' AND vat <> 0
                 UNION ALL
                 SELECT id, 'reverse-charge VAT on a ' || vat_treatment || ' line'
                 FROM {table} WHERE vat_treatment <> 'reverse_charge' AND reverse_charge_vat <> 0"
            ),
            format!("`{table}`"),
        ));
        if !reverse_charge {
            checks.push((
                format!(
                    "SELECT id, 'reverse_charge, which this kind of line may not be'
                     FROM {table} WHERE vat_treatment = 'reverse_charge'"
                ),
                format!("`{table}`"),
            ));
        }
    }
    checks.push((
        format!(
            "SELECT id, vat_treatment || ' with a vat_rate of ' || (vat_rate / 100.0)
             FROM products WHERE vat_treatment IN {no_vat} AND vat_rate <> 0"
        ),
        "`products`".to_owned(),
    ));
    checks.push((
        format!(
            "SELECT id, vat_treatment || ' with a vat_amount of ' || (vat_amount / 100.0)
             FROM expenses
             WHERE (vat_treatment IN {no_vat} OR vat_treatment = 'reverse_charge')
               AND vat_amount <> 0
             UNION ALL
             SELECT id, 'reverse-charge VAT on a ' || vat_treatment || ' expense'
             FROM expenses WHERE vat_treatment <> 'reverse_charge' AND reverse_charge_vat <> 0"
        ),
        "`expenses`".to_owned(),
    ));
    let mut found = Vec::new();
    for (sql, table) in checks {
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map([], |r| {
            Ok(format!(
                "vat: the record {} of {table} is {}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?
            ))
        })?;
        for row in rows {
            found.push(row?);
        }
    }
    Ok(found)
}
