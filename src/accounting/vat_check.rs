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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn a_fresh_database_breaks_no_vat_rule() {
        let db = Db::open(":memory:", crate::config::Synchronous::Normal).unwrap();
        assert_eq!(breaches(&db.conn().unwrap()).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn each_broken_pair_is_named_by_table_and_record() {
        let db = Db::open(":memory:", crate::config::Synchronous::Normal).unwrap();
        let conn = db.conn().unwrap();
        // Rows as damage or another program could leave them: past the references.
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO products (id, owner_id, name, sku, vat_rate, vat_treatment,
                 created_at, updated_at)
                 VALUES ('p-ok', 'u', 'A', 'A', 0, 'exempt', 't', 't'),
                        ('p-bad', 'u', 'B', 'B', 2000, 'exempt', 't', 't');
             INSERT INTO invoice_lines (id, document_id, position, description, quantity,
                 unit_price, vat_rate, net, vat, vat_treatment, reverse_charge_vat)
                 VALUES ('i-rc', 'd', 0, 'x', 1000, 10000, 2000, 100, 0, 'reverse_charge', 20),
                        ('i-zero', 'd', 1, 'x', 1000, 10000, 500, 100, 5, 'zero', 0);
             INSERT INTO bill_lines (id, document_id, position, description, quantity,
                 unit_price, vat_rate, net, vat, vat_treatment, reverse_charge_vat)
                 VALUES ('b-ok', 'd', 0, 'x', 1000, 10000, 2000, 100, 0, 'reverse_charge', 20),
                        ('b-vat', 'd', 1, 'x', 1000, 10000, 2000, 100, 20, 'reverse_charge', 0);
             INSERT INTO expenses (id, owner_id, date, description, amount, vat_amount,
                 vat_treatment, reverse_charge_vat, created_at, updated_at)
                 VALUES ('e-bad', 'u', '2026-01-01', 'x', 1200, 200, 'outside_scope', 0, 't', 't'),
                        ('e-rc', 'u', '2026-01-01', 'x', 1200, 0, 'standard', 240, 't', 't');",
        )
        .unwrap();
        let found = breaches(&conn).unwrap();
        assert_eq!(
            found,
            [
                "vat: the record i-zero of `invoice_lines` is zero with a vat_rate of 5.0",
                "vat: the record i-rc of `invoice_lines` is reverse_charge, which this kind \
                 of line may not be",
                "vat: the record b-vat of `bill_lines` is a reverse_charge line with VAT in \
                 its totals",
                "vat: the record p-bad of `products` is exempt with a vat_rate of 20.0",
                "vat: the record e-bad of `expenses` is outside_scope with a vat_amount of 2.0",
                "vat: the record e-rc of `expenses` is reverse-charge VAT on a standard expense",
            ],
            "{found:#?}"
        );
    }
}
