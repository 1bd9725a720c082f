//! The books at a year's scale (issue 24): 100,000 invoices of 5 lines, two thirds of them
//! paid or part paid, then 5,000 credit notes; the time of one request, client side on
//! loopback, for
//!
//! - the invoice list's first page (`GET /api/invoices?limit=100`), read by the build
//!   before the books (`STOCKBOOK_BENCH_BEFORE=<path to that release's binary>`) and by
//!   this one over the same file in the same run: the earlier build seeds and reads it,
//!   then this build opens it, which runs the upgrade (every paid amount becomes one dated
//!   payment) before it reads the same page;
//! - recording a payment (`POST /api/payments`) on an invoice with something due;
//! - raising a posted 50-line credit note that takes stock back (`POST /api/credit-notes`).
//!
//! Without `STOCKBOOK_BENCH_BEFORE` the "before" figure is this build's too (a smoke run).
//! Run: `STOCKBOOK_BENCH_BEFORE=/path/to/old/stockbook cargo bench --bench books`.

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};
use support::*;

const INVOICES: usize = 100_000;
const LINES: usize = 5;
const CONTACTS: usize = 200;
const PRODUCTS: usize = 1_000;
const CREDIT_NOTES: usize = 5_000;
const LIST_RUNS: usize = 30;
const PAYMENT_RUNS: usize = 300;
const CREDIT_RUNS: usize = 100;

fn ok(status: u16, what: &str, v: &Value) {
    assert!((200..300).contains(&status), "{what}: {status} {v}");
}

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn timed(c: &mut Conn, method: &str, path: &str, body: &Value) -> (f64, Value) {
    let t0 = Instant::now();
    let (status, v) = c.json(method, path, &body.to_string());
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    ok(status, &format!("{method} {path}"), &v);
    (ms, v)
}

/// The first page of the session list, newest first, as the web app asks for it (one
/// entity) and owner-wide.
fn list_page(server: &Server, entity: &str) -> (f64, f64) {
    let mut c = server.conn();
    let mut one = |path: &str| {
        // One read to warm the page cache, as a shop's server has long been running.
        let (status, v) = c.json("GET", path, "");
        ok(status, "list", &v);
        assert_eq!(v["data"].as_array().unwrap().len(), 100);
        time_ms(LIST_RUNS, || {
            let (status, _) = c.json("GET", path, "");
            assert_eq!(status, 200);
        })
        .0
    };
    (
        one(&format!("/api/invoices?entityId={entity}&limit=100")),
        one("/api/invoices?limit=100"),
    )
}

/// 100,000 invoices straight into the file, in the shape every release since V13 reads:
/// a third paid in full, a third part paid, a third sent with nothing paid, spread over
/// 2026 with 5 lines at 20, 5 and 0 %.
fn seed_invoices(db: &Path, owner: &str, entity: &str, contacts: &[String]) {
    let mut c = rusqlite::Connection::open(db).unwrap();
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    let tx = c.transaction().unwrap();
    {
        let mut inv = tx
            .prepare(
                "INSERT INTO invoices (id, owner_id, entity_id, number, number_seq, contact_id,
                     issue_date, due_date, status, subtotal, vat_total, total, amount_paid,
                     created_at, updated_at, moves_stock)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9, ?10, ?11, ?12,
                     '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 1)",
            )
            .unwrap();
        let mut line = tx
            .prepare(
                "INSERT INTO invoice_lines (id, document_id, position, description, quantity,
                     unit_price, discount, vat_rate, net, vat)
                 VALUES (?1, ?2, ?3, ?4, 1000, ?5, 0, ?6, ?7, ?8)",
            )
            .unwrap();
        let rates = [2000_i64, 2000, 500, 0, 2000];
        for i in 0..INVOICES {
            let doc = uuid::Uuid::new_v4().to_string();
            let (mut subtotal, mut vat_total) = (0_i64, 0_i64);
            let mut lines = Vec::with_capacity(LINES);
            for (p, rate) in rates.iter().enumerate().take(LINES) {
                let net = ((i + p) % 90 + 10) as i64 * 100; // £10 .. £99 in pence
                let vat = (net * rate + 5000) / 10000;
                subtotal += net;
                vat_total += vat;
                lines.push((p, net, *rate, vat));
            }
            let total = subtotal + vat_total;
            let (status, paid) = match i % 3 {
                0 => ("paid", total),
                1 => ("sent", total / 2),
                _ => ("sent", 0),
            };
            let day = i * 365 / INVOICES;
            let date = time::Date::from_ordinal_date(2026, day as u16 + 1).unwrap();
            inv.execute(rusqlite::params![
                doc,
                owner,
                entity,
                format!("INV-{:06}", i + 1),
                i as i64 + 1,
                contacts[i % contacts.len()],
                date.to_string(),
                status,
                subtotal,
                vat_total,
                total,
                paid
            ])
            .unwrap();
            for (p, net, rate, vat) in lines {
                line.execute(rusqlite::params![
                    uuid::Uuid::new_v4().to_string(),
                    doc,
                    p as i64,
                    format!("Line {p}"),
                    net * 100, // unit price: 4 places
                    rate,
                    net,
                    vat
                ])
                .unwrap();
            }
        }
    }
    tx.commit().unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

/// Invoices still owed something, oldest first: (id, contact, amount_due).
fn owed(db: &Path, n: usize) -> Vec<(String, String, i64)> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut s = c
        .prepare(
            "SELECT id, contact_id, total - amount_paid - amount_credited FROM invoices
             WHERE status = 'sent' AND total - amount_paid - amount_credited > 1000
             ORDER BY seq LIMIT ?1",
        )
        .unwrap();
    let rows = s
        .query_map([n as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    rows
}

fn main() {
    println!("machine: {}", machine());
    let before: PathBuf = std::env::var_os("STOCKBOOK_BENCH_BEFORE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_stockbook")));
    let now = Path::new(env!("CARGO_BIN_EXE_stockbook"));
    println!("before: {}", before.display());
    let db = temp_db("books");

    // The earlier build makes the schema, the user, the entity and its records.
    let (owner, entity, location, contacts) = {
        let server = start_binary(&before, &db, "normal", &[]);
        let mut c = server.conn();
        let (s, e) = c.json(
            "POST",
            "/api/entities",
            &json!({"name": "Bench"}).to_string(),
        );
        ok(s, "entity", &e);
        let entity = id(&e);
        let (s, l) = c.json(
            "POST",
            "/api/warehouse-locations",
            &json!({"name": "Shop", "entity_id": entity}).to_string(),
        );
        ok(s, "location", &l);
        let mut contacts = Vec::new();
        for i in 0..CONTACTS {
            let (s, v) = c.json(
                "POST",
                "/api/contacts",
                &json!({"name": format!("Customer {i}"), "type": "both", "entity_id": entity})
                    .to_string(),
            );
            ok(s, "contact", &v);
            contacts.push(id(&v));
        }
        (server.user_id(), entity, id(&l), contacts)
    };
    seed_products(
        &db,
        &owner,
        &entity,
        std::slice::from_ref(&location),
        PRODUCTS,
    );
    seed_invoices(&db, &owner, &entity, &contacts);
    let products: Vec<String> = {
        let c = rusqlite::Connection::open(&db).unwrap();
        let mut s = c
            .prepare("SELECT id FROM products ORDER BY seq LIMIT 50")
            .unwrap();
        let ids = s
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<Vec<String>, _>>()
            .unwrap();
        ids
    };

    let list_before = {
        let server = start_binary(&before, &db, "normal", &[]);
        list_page(&server, &entity)
    };

    // This build opens the same file: the upgrade runs here.
    let t0 = Instant::now();
    let server = start(&db, "normal");
    let upgrade_s = t0.elapsed().as_secs_f64();
    let list_after = list_page(&server, &entity);
    let mut c = server.conn();

    // 5,000 credit notes of 5 lines, linked to invoices still owed.
    for (i, (inv, contact, _)) in owed(&db, CREDIT_NOTES).into_iter().enumerate() {
        let lines: Vec<Value> = (0..LINES)
            .map(|p| json!({"description": format!("Credit {p}"), "quantity": 1, "unit_price": 1, "vat_rate": 20}))
            .collect();
        let (s, v) = c.json(
            "POST",
            "/api/credit-notes",
            &json!({"contact_id": contact, "invoice_id": inv, "status": "posted",
                    "location_id": null, "issue_date": "2026-06-30", "lines": lines})
            .to_string(),
        );
        ok(s, &format!("credit note {i}"), &v);
    }
    let list_with_credits = list_page(&server, &entity);

    // A payment on each of 300 invoices with something due.
    let mut payments = Vec::new();
    for (inv, _, _) in owed(&db, PAYMENT_RUNS) {
        let (ms, _) = timed(
            &mut c,
            "POST",
            "/api/payments",
            &json!({"document_id": inv, "amount": 10, "date": "2026-11-01", "method": "bank"}),
        );
        payments.push(ms);
    }

    // A posted 50-line credit note taking stock back at the shop, 100 times.
    let mut credits = Vec::new();
    let contact = &contacts[0];
    for _ in 0..CREDIT_RUNS {
        let lines: Vec<Value> = products
            .iter()
            .map(|p| json!({"product_id": p, "description": "Returned", "quantity": 1, "unit_price": 2, "vat_rate": 20}))
            .collect();
        let (ms, _) = timed(
            &mut c,
            "POST",
            "/api/credit-notes",
            &json!({"contact_id": contact, "status": "posted", "location_id": location,
                    "issue_date": "2026-11-01", "lines": lines}),
        );
        credits.push(ms);
    }

    println!(
        "{}",
        json!({
            "invoices": INVOICES,
            "lines_each": LINES,
            "credit_notes": CREDIT_NOTES + CREDIT_RUNS,
            "upgrade_and_start_s": (upgrade_s * 10.0).round() / 10.0,
            "invoice_list_page_ms (entity, owner-wide)": {
                "before": list_before,
                "after": list_after,
                "after_with_credit_notes": list_with_credits,
                "ratio_after_to_before": (list_after.0 / list_before.0, list_after.1 / list_before.1),
            },
            "payment_create_ms_median": median(&mut payments),
            "credit_note_50_lines_create_ms_median": median(&mut credits),
            "binary_before": before.display().to_string(),
            "binary_after": now.display().to_string(),
        })
    );
    drop(server);
    cleanup();
}
