//! The upgrade of a database written by the release before the books (issue 24, commit
//! 22d82bb): schema V1-V18 holding what that release's code wrote, opened by this one.
//! Every answer an older client reads stays the same, the new fields say what the old
//! rows imply, and
//! `stockbook check` finds nothing (docs/accounting.md#vat-treatment).
//!
//! [`write_old_books`] writes the old database: the schema through refinery up to
//! [`OLD_VERSION`] only, then the rows as that release wrote them (its totals included),
//! by hand, since its code is gone. Each part of the books adds its rows and its answers
//! here.

mod common;

use std::path::PathBuf;
use std::str::FromStr;

use common::*;
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

mod schema {
    refinery::embed_migrations!("migrations");
}

/// The last migration of the release before issue 24.
const OLD_VERSION: i32 = 18;

const OWNER: &str = "owner@example.com";
const USER: &str = "018f0000-0000-7000-8000-000000000001";
const ENTITY: &str = "018f0000-0000-7000-8000-000000000002";
const CUSTOMER: &str = "018f0000-0000-7000-8000-000000000003";
const SUPPLIER: &str = "018f0000-0000-7000-8000-000000000004";
const INV_1: &str = "018f0000-0000-7000-8000-000000000010";
const INV_2: &str = "018f0000-0000-7000-8000-000000000011";
const BILL: &str = "018f0000-0000-7000-8000-000000000012";
const TEMPLATE: &str = "018f0000-0000-7000-8000-000000000013";
const BOOKS: &str = "018f0000-0000-7000-8000-000000000020";
const SEAT: &str = "018f0000-0000-7000-8000-000000000021";
const MUG: &str = "018f0000-0000-7000-8000-000000000022";
const STAFF: &str = "018f0000-0000-7000-8000-000000000030";
const INSURANCE: &str = "018f0000-0000-7000-8000-000000000031";
const OFFICE: &str = "018f0000-0000-7000-8000-000000000032";
const POSTAGE: &str = "018f0000-0000-7000-8000-000000000033";
const EXP_TAXED: &str = "018f0000-0000-7000-8000-000000000040";
const EXP_PLAIN: &str = "018f0000-0000-7000-8000-000000000041";
const EXP_INSURED: &str = "018f0000-0000-7000-8000-000000000042";

const AT: &str = "2026-01-10T09:00:00Z";

/// A database file in its own temporary directory, removed on drop.
pub struct OldBooks {
    dir: PathBuf,
    pub path: String,
}

impl Drop for OldBooks {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Writes the database the release before issue 24 left: schema V1-V18 and its rows, owned
/// by [`OWNER`] (password [`PASSWORD`]). Amounts are stored scaled as that release stored
/// them: money in pence, rates and discounts in hundredths of a percent, quantities in
/// thousandths, prices in ten-thousandths.
pub fn write_old_books() -> OldBooks {
    let dir = std::env::temp_dir().join(format!("stockbook-upgrade-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("books.db").to_string_lossy().into_owned();
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    schema::migrations::runner()
        .set_target(refinery::Target::Version(OLD_VERSION))
        .run(&mut conn)
        .unwrap();
    let hash = stockbook::auth::password::hash(PASSWORD).unwrap();
    conn.execute(
        "INSERT INTO users (id, email, password_hash, created_at) VALUES (?1, ?2, ?3, ?4)",
        rusqlite::params![USER, OWNER, hash, AT],
    )
    .unwrap();
    conn.execute_batch(&format!(
        "INSERT INTO entities (id, owner_id, name, currency, created_at)
             VALUES ('{ENTITY}', '{USER}', 'Acme Ltd', 'GBP', '{AT}');
         INSERT INTO expense_categories (id, owner_id, entity_id, name, code, standard, created_at)
             VALUES ('{STAFF}', '{USER}', '{ENTITY}', 'Staff costs', '7000', 1, '{AT}'),
                    ('{INSURANCE}', '{USER}', '{ENTITY}', 'Insurance', '7800', 1, '{AT}'),
                    ('{OFFICE}', '{USER}', '{ENTITY}', 'Office costs and stationery', '7500', 1, '{AT}'),
                    ('{POSTAGE}', '{USER}', '{ENTITY}', 'Postage', '7510', 0, '{AT}');
         INSERT INTO contacts (id, owner_id, entity_id, name, type, created_at, updated_at)
             VALUES ('{CUSTOMER}', '{USER}', '{ENTITY}', 'Jane Smith', 'customer', '{AT}', '{AT}'),
                    ('{SUPPLIER}', '{USER}', '{ENTITY}', 'Wholesale Co', 'supplier', '{AT}', '{AT}');
         INSERT INTO products (id, owner_id, entity_id, name, sku, sku_key, unit_price,
                 cost_price, vat_rate, created_at, updated_at)
             VALUES ('{BOOKS}', '{USER}', '{ENTITY}', 'Books', 'BK-1', 'bk-1', 75000, 40000, 0, '{AT}', '{AT}'),
                    ('{SEAT}', '{USER}', '{ENTITY}', 'Child seat', 'CS-1', 'cs-1', 400000, 250000, 500, '{AT}', '{AT}'),
                    ('{MUG}', '{USER}', '{ENTITY}', 'Mug', 'MG-1', 'mg-1', 99900, 40000, 2000, '{AT}', '{AT}');

         -- INV-0001, sent, part paid: lines at 0, 5 and 20 %.
         -- 2 × 7.50 = 15.00, VAT 0; 1 × 40.00 = 40.00, VAT 2.00;
         -- 3 × 9.99 × 0.9 = 26.973 → 26.97, VAT 5.394 → 5.39.
         INSERT INTO invoices (id, owner_id, entity_id, number, number_seq, contact_id,
                 issue_date, due_date, status, subtotal, vat_total, total, amount_paid,
                 created_at, updated_at, moves_stock)
             VALUES ('{INV_1}', '{USER}', '{ENTITY}', 'INV-0001', 1, '{CUSTOMER}',
                 '2026-01-10', '2026-02-09', 'sent', 8197, 739, 8936, 5000, '{AT}', '{AT}', 1),
                    ('{INV_2}', '{USER}', '{ENTITY}', 'INV-0002', 2, '{CUSTOMER}',
                 '2026-01-11', '2026-02-10', 'paid', 10000, 2000, 12000, 12000, '{AT}', '{AT}', 1);
         INSERT INTO invoice_lines (id, document_id, position, description, product_id,
                 quantity, unit_price, discount, vat_rate, net, vat)
             VALUES ('018f0000-0000-7000-8000-000000000101', '{INV_1}', 0, 'Books', '{BOOKS}',
                     2000, 75000, 0, 0, 1500, 0),
                    ('018f0000-0000-7000-8000-000000000102', '{INV_1}', 1, 'Child seat', '{SEAT}',
                     1000, 400000, 0, 500, 4000, 200),
                    ('018f0000-0000-7000-8000-000000000103', '{INV_1}', 2, 'Mug', '{MUG}',
                     3000, 99900, 1000, 2000, 2697, 539),
                    ('018f0000-0000-7000-8000-000000000104', '{INV_2}', 0, 'Consulting', NULL,
                     1000, 1000000, 0, 2000, 10000, 2000);

         -- A bill awaiting payment, part paid: 10 × 4.00 = 40.00, VAT 8.00;
         -- 1 × 21.00 = 21.00, VAT 1.05.
         INSERT INTO bills (id, owner_id, entity_id, number, contact_id, issue_date, due_date,
                 status, subtotal, vat_total, total, amount_paid, created_at, updated_at,
                 moves_stock)
             VALUES ('{BILL}', '{USER}', '{ENTITY}', 'B-77', '{SUPPLIER}', '2026-01-12',
                 '2026-02-11', 'awaiting_payment', 6100, 905, 7005, 2000, '{AT}', '{AT}', 1);
         INSERT INTO bill_lines (id, document_id, position, description, product_id,
                 quantity, unit_price, discount, vat_rate, net, vat)
             VALUES ('018f0000-0000-7000-8000-000000000111', '{BILL}', 0, 'Stock', NULL,
                     10000, 40000, 0, 2000, 4000, 800),
                    ('018f0000-0000-7000-8000-000000000112', '{BILL}', 1, 'Fuel', NULL,
                     1000, 210000, 0, 500, 2100, 105);

         -- A monthly template: 1 × 12.50 at 0 %.
         INSERT INTO recurring_invoices (id, owner_id, entity_id, contact_id, interval,
                 next_date, subtotal, vat_total, total, created_at, updated_at)
             VALUES ('{TEMPLATE}', '{USER}', '{ENTITY}', '{CUSTOMER}', 'month', '2026-02-01',
                 1250, 0, 1250, '{AT}', '{AT}');
         INSERT INTO recurring_invoice_lines (id, document_id, position, description,
                 quantity, unit_price, discount, vat_rate, net, vat)
             VALUES ('018f0000-0000-7000-8000-000000000121', '{TEMPLATE}', 0, 'Magazine',
                     1000, 125000, 0, 0, 1250, 0);

         INSERT INTO expenses (id, owner_id, entity_id, date, description, amount, vat_amount,
                 category_id, created_at, updated_at)
             VALUES ('{EXP_TAXED}', '{USER}', '{ENTITY}', '2026-01-05', 'Printer', 12000, 2000,
                     '{OFFICE}', '{AT}', '{AT}'),
                    ('{EXP_PLAIN}', '{USER}', '{ENTITY}', '2026-01-06', 'Stamps', 850, 0,
                     '{POSTAGE}', '{AT}', '{AT}'),
                    ('{EXP_INSURED}', '{USER}', '{ENTITY}', '2026-01-07', 'Cover', 30000, 0,
                     '{INSURANCE}', '{AT}', '{AT}');"
    ))
    .unwrap();
    drop(conn);
    OldBooks { dir, path }
}

/// Asserts that `answer` holds every field of `expected` with its value (numbers compared
/// as decimals, so 15 and 15.00 agree), at any depth; fields the answer has besides are
/// new ones, checked apart.
fn assert_has(answer: &Value, expected: &Value, at: &str) {
    match expected {
        Value::Object(fields) => {
            for (k, v) in fields {
                let Some(got) = answer.get(k) else {
                    panic!("{at}.{k}: missing from {answer}");
                };
                assert_has(got, v, &format!("{at}.{k}"));
            }
        }
        Value::Array(items) => {
            let got = answer
                .as_array()
                .unwrap_or_else(|| panic!("{at}: {answer}"));
            assert_eq!(got.len(), items.len(), "{at}: {answer}");
            for (i, (g, e)) in got.iter().zip(items).enumerate() {
                assert_has(g, e, &format!("{at}[{i}]"));
            }
        }
        Value::Number(n) => {
            let got = answer
                .as_number()
                .unwrap_or_else(|| panic!("{at}: {answer}, not {n}"));
            assert_eq!(
                Decimal::from_str(&got.to_string()).unwrap(),
                Decimal::from_str(&n.to_string()).unwrap(),
                "{at}"
            );
        }
        other => assert_eq!(answer, other, "{at}"),
    }
}

/// The record `id` of the list at `path` (the whole list, as an older client reads it).
fn only(t: &TestApp, path: &str, id: &str) -> Value {
    let (s, v) = t.get(&format!("{path}?limit=100"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {path}: {v}"))
        .clone()
}

fn old_line(id: &str, description: &str, product: Value, figures: [&str; 7]) -> Value {
    let [quantity, unit_price, discount, vat_rate, net, vat, total] = figures;
    let n = |s: &str| Value::Number(s.parse().unwrap());
    json!({
        "id": id, "description": description, "product_id": product,
        "quantity": n(quantity), "unit_price": n(unit_price), "discount": n(discount),
        "vat_rate": n(vat_rate), "net": n(net), "vat": n(vat), "total": n(total),
    })
}

fn treatments(doc: &Value) -> Vec<(String, String)> {
    doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["vat_treatment"].as_str().unwrap().to_owned(),
                l["reverse_charge_vat"].to_string(),
            )
        })
        .collect()
}

fn t(treatment: &str) -> (String, String) {
    (treatment.to_owned(), "0".to_owned())
}

#[test]
fn the_books_of_the_release_before_open_unchanged_with_the_treatments_their_rates_imply() {
    let old = write_old_books();
    {
        let app = app_with(&[("database", json!(old.path))]);
        let (s, v) = app.login(OWNER);
        assert_eq!(s, Status::Ok, "{v}");

        // Invoices: every field an older client reads, as the old release answered.
        let inv = only(&app, "/api/invoices", INV_1);
        assert_has(
            &inv,
            &json!({
                "id": INV_1, "number": "INV-0001", "contact_id": CUSTOMER,
                "contact_name": "Jane Smith", "issue_date": "2026-01-10",
                "due_date": "2026-02-09", "status": "sent", "notes": null,
                "subtotal": 81.97, "vat_total": 7.39, "total": 89.36, "amount_paid": 50,
                "amount_credited": 0, "amount_due": 39.36, "provider": null,
                "provider_ref": null, "entity_id": ENTITY, "location_id": null,
                "cost_of_sales": null, "created_at": AT, "updated_at": AT,
                "lines": [
                    old_line("018f0000-0000-7000-8000-000000000101", "Books", json!(BOOKS),
                        ["2", "7.5", "0", "0", "15", "0", "15"]),
                    old_line("018f0000-0000-7000-8000-000000000102", "Child seat", json!(SEAT),
                        ["1", "40", "0", "5", "40", "2", "42"]),
                    old_line("018f0000-0000-7000-8000-000000000103", "Mug", json!(MUG),
                        ["3", "9.99", "10", "20", "26.97", "5.39", "32.36"]),
                ],
            }),
            "invoice",
        );
        assert_eq!(treatments(&inv), [t("zero"), t("reduced"), t("standard")]);
        let paid = only(&app, "/api/invoices", INV_2);
        assert_has(
            &paid,
            &json!({ "status": "paid", "total": 120, "amount_paid": 120, "amount_due": 0,
                     "lines": [old_line("018f0000-0000-7000-8000-000000000104", "Consulting",
                         Value::Null, ["1", "100", "0", "20", "100", "20", "120"])] }),
            "paid invoice",
        );
        assert_eq!(treatments(&paid), [t("standard")]);

        let bill = only(&app, "/api/bills", BILL);
        assert_has(
            &bill,
            &json!({
                "id": BILL, "number": "B-77", "contact_id": SUPPLIER,
                "contact_name": "Wholesale Co", "status": "awaiting_payment",
                "subtotal": 61, "vat_total": 9.05, "total": 70.05, "amount_paid": 20,
                "amount_credited": 0, "amount_due": 50.05, "cost_of_sales": null,
                "lines": [
                    old_line("018f0000-0000-7000-8000-000000000111", "Stock", Value::Null,
                        ["10", "4", "0", "20", "40", "8", "48"]),
                    old_line("018f0000-0000-7000-8000-000000000112", "Fuel", Value::Null,
                        ["1", "21", "0", "5", "21", "1.05", "22.05"]),
                ],
            }),
            "bill",
        );
        assert_eq!(treatments(&bill), [t("standard"), t("reduced")]);

        let template = only(&app, "/api/recurring-invoices", TEMPLATE);
        assert_has(
            &template,
            &json!({ "subtotal": 12.5, "vat_total": 0, "total": 12.5, "interval": "month",
                     "lines": [old_line("018f0000-0000-7000-8000-000000000121", "Magazine",
                         Value::Null, ["1", "12.5", "0", "0", "12.5", "0", "12.5"])] }),
            "template",
        );
        assert_eq!(treatments(&template), [t("zero")]);

        // Products keep their rates, with the treatment each implies.
        for (id, rate, treatment) in [
            (BOOKS, "0", "zero"),
            (SEAT, "5", "reduced"),
            (MUG, "20", "standard"),
        ] {
            let p = only(&app, "/api/products", id);
            assert_has(
                &p,
                &json!({ "vat_rate": Value::Number(rate.parse().unwrap()) }),
                id,
            );
            assert_eq!(p["vat_treatment"], treatment, "{id}");
        }

        // Expenses: treatment by their VAT (the upgrade does not read the category), VAT
        // reclaimable, no supplier, no reverse charge.
        for (id, amount, vat, treatment) in [
            (EXP_TAXED, "120", "20", "standard"),
            (EXP_PLAIN, "8.5", "0", "zero"),
            (EXP_INSURED, "300", "0", "zero"),
        ] {
            let e = only(&app, "/api/expenses", id);
            assert_has(
                &e,
                &json!({ "amount": Value::Number(amount.parse().unwrap()),
                         "vat_amount": Value::Number(vat.parse().unwrap()) }),
                id,
            );
            assert_eq!(e["vat_treatment"], treatment, "{id}");
            assert_eq!(e["vat_reclaimable"], true, "{id}");
            assert_eq!(e["reverse_charge_vat"], json!(0), "{id}");
            assert!(e["contact_id"].is_null(), "{id}");
        }

        // Standard categories get their treatment; the others none.
        for (id, treatment) in [
            (STAFF, json!("outside_scope")),
            (INSURANCE, json!("exempt")),
            (OFFICE, Value::Null),
            (POSTAGE, Value::Null),
        ] {
            let c = only(&app, "/api/expense-categories", id);
            assert_eq!(c["vat_treatment"], treatment, "{id}");
        }

        // The next invoice number follows on.
        let (s, v) = app.post(
            "/api/invoices",
            json!({ "contact_id": CUSTOMER, "lines": [{ "description": "More", "unit_price": 1 }] }),
        );
        assert_eq!(s, Status::Created, "{v}");
        assert_eq!(v["data"]["number"], "INV-0003");

        // The entity is on the standard VAT scheme, with no registration date or flat
        // rate (docs/vat.md#the-entitys-vat-settings), and has filed nothing.
        let (_, v) = app.get("/api/entities");
        assert_has(
            &v["data"][0],
            &json!({ "id": ENTITY, "vat_scheme": "standard", "vat_registered_from": null,
                     "flat_rate_percent": null, "lock_date": null, "role": "owner" }),
            "entity",
        );

        // The entity's creator is its owner, its one member (docs/auth.md#members-and-roles,
        // migration V27), and may invite.
        let (s, v) = app.get(&format!("/api/members?entityId={ENTITY}"));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["data"].as_array().unwrap().len(), 1, "{v}");
        assert_has(
            &v["data"][0],
            &json!({ "user_id": USER, "email": OWNER, "role": "owner", "status": "active" }),
            "member",
        );
        let (s, v) = app.post(
            "/api/members",
            json!({ "entity_id": ENTITY, "email": "sam@example.com", "role": "staff" }),
        );
        assert_eq!(s, Status::Created, "{v}");
    }
    let conn = stockbook::ops::check::open(&old.path).unwrap();
    let found = stockbook::ops::check::breaches(&conn, false).unwrap();
    assert_eq!(found, Vec::<String>::new());
}
