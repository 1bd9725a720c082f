//! The VAT return at a quarter's scale (issue 25): 25,000 invoices of 5 lines at mixed
//! treatments, 5,000 bills (a few capital purchases), 2,000 expenses, and payments on two thirds of the invoices
//! and half the bills, all dated in the last calendar quarter that has ended. Then, client
//! side on loopback against the release server over that file:
//!
//! - `GET /api/vat/return` for the quarter on each scheme (standard, cash, flat rate):
//!   the median of several runs after one warming read;
//! - the full drill-down CSV (`GET /api/vat/return/lines?format=csv`, every box): the
//!   median time to its last byte, its size, and the server's peak resident memory.
//!
//! The books are seeded through the library's own create functions (the rules every API
//! calls: totals, VAT treatment, payments and the status that follows them), in one
//! transaction on the file before the measured reads.
//!
//! Run: `cargo bench --bench vat`. `STOCKBOOK_BENCH_VAT_INVOICES=<n>` seeds n invoices
//! instead of 25,000 (bills n/5, expenses 2n/25): a quick check in debug is
//! `STOCKBOOK_BENCH_VAT_INVOICES=500 cargo run --bench vat` or `cargo bench --profile dev`.

mod support;

use std::path::Path;
use std::time::Instant;

use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{json, Value};
use stockbook::accounting::documents::{Bills, CreateDocument, Invoices};
use stockbook::accounting::expenses::{CreateExpense, Expenses};
use stockbook::accounting::payments::{self, CreatePayment};
use stockbook::accounting::resource::Resource;
use stockbook::config::Synchronous;
use stockbook::ctx::Ctx;
use stockbook::db::Db;
use stockbook::scope::Scope;
use support::*;
use time::{Date, Duration, Month, OffsetDateTime};

const DEFAULT_INVOICES: usize = 25_000;
const LINES: usize = 5;
const CUSTOMERS: usize = 200;
const SUPPLIERS: usize = 50;
const RETURN_RUNS: usize = 9;
const CSV_RUNS: usize = 3;

fn ok(status: u16, what: &str, v: &Value) {
    assert!((200..300).contains(&status), "{what}: {status} {v}");
}

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// The last calendar quarter that has ended before `today`.
fn last_quarter(today: Date) -> (Date, Date) {
    let month0 = (u8::from(today.month()) - 1) / 3 * 3; // this quarter's first month, 0-based
    let this =
        Date::from_calendar_date(today.year(), Month::try_from(month0 + 1).unwrap(), 1).unwrap();
    let to = this.previous_day().unwrap();
    let from_month0 = (u8::from(to.month()) - 1) / 3 * 3;
    let from =
        Date::from_calendar_date(to.year(), Month::try_from(from_month0 + 1).unwrap(), 1).unwrap();
    (from, to)
}

/// Invoice lines: standard at 20 %, reduced at 5 %, zero-rated, exempt and outside the
/// scope, in turn.
fn invoice_line(i: usize, p: usize) -> Value {
    let price = ((i * 7 + p * 13) % 90 + 10) as i64; // £10 .. £99
    let (treatment, rate) = match (i + p) % 5 {
        0 | 1 => ("standard", 20),
        2 => ("reduced", 5),
        3 => ("zero", 0),
        _ => {
            if p.is_multiple_of(2) {
                ("exempt", 0)
            } else {
                ("outside_scope", 0)
            }
        }
    };
    json!({ "description": format!("Line {p}"), "quantity": 1, "unit_price": price,
            "vat_rate": rate, "vat_treatment": treatment })
}

/// Bill lines: mostly standard, some reverse charge, zero-rated and exempt; the first line
/// of every 50th bill a capital purchase of £2,500 (boxes 4 and 7 on the flat rate scheme).
fn bill_line(i: usize, p: usize) -> Value {
    if p == 0 && i.is_multiple_of(50) {
        return json!({ "description": "Machine", "quantity": 1, "unit_price": 2500,
                       "vat_rate": 20, "vat_treatment": "standard", "capital_goods": true });
    }
    let price = ((i * 11 + p * 3) % 150 + 20) as i64;
    let (treatment, rate) = match (i + p) % 6 {
        0..=2 => ("standard", 20),
        3 => ("reverse_charge", 20),
        4 => ("zero", 0),
        _ => ("exempt", 0),
    };
    json!({ "description": format!("Part {p}"), "quantity": 2, "unit_price": price,
            "vat_rate": rate, "vat_treatment": treatment })
}

/// A decimal as an exact JSON number.
fn num(d: Decimal) -> Value {
    serde_json::from_str(&d.normalize().to_string()).unwrap()
}

fn body<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("a valid body")
}

/// Seeds the quarter through the library's create functions in one transaction.
fn seed(
    db: &Path,
    owner: &str,
    entity: &str,
    customers: &[String],
    suppliers: &[String],
    (from, to): (Date, Date),
    n: usize,
) -> (usize, usize, usize, usize) {
    let db = Db::open(db.to_str().unwrap(), Synchronous::Normal).expect("open the bench file");
    let scope = Scope::user(owner);
    let ctx = Ctx::at(OffsetDateTime::now_utc(), true);
    let days = (to - from).whole_days() + 1;
    // Spread over the quarter's days.
    let on = |i: usize| from + Duration::days((i as i64 * 7919) % days);
    let (bills, expenses) = (n / 5, n * 2 / 25);
    let mut paid = 0;
    db.write_sync(|tx| {
        for i in 0..n {
            let date = on(i);
            let lines: Vec<Value> = (0..LINES).map(|p| invoice_line(i, p)).collect();
            let doc = Invoices::create(
                tx,
                &scope,
                body::<CreateDocument>(json!({
                    "entity_id": entity, "contact_id": customers[i % customers.len()],
                    "issue_date": date.to_string(), "status": "sent", "lines": lines,
                })),
                &ctx,
            )?;
            // Two thirds paid: one in full, one in part, some days later inside the quarter.
            if i % 3 != 2 {
                let total: Decimal = serde_json::to_value(&doc).unwrap()["total"]
                    .to_string()
                    .parse()
                    .unwrap();
                let amount = if i.is_multiple_of(3) {
                    total
                } else {
                    (total / Decimal::TWO).round_dp_with_strategy(2, RoundingStrategy::ToZero)
                };
                let day = (date + Duration::days((i % 20) as i64)).min(to);
                payments::create(
                    tx,
                    &scope,
                    body::<CreatePayment>(json!({
                        "document_id": serde_json::to_value(&doc).unwrap()["id"],
                        "amount": num(amount), "date": day.to_string(), "method": "bank",
                    })),
                    &ctx,
                )?;
                paid += 1;
            }
        }
        for i in 0..bills {
            let date = on(i + 1);
            let lines: Vec<Value> = (0..LINES).map(|p| bill_line(i, p)).collect();
            let doc = Bills::create(
                tx,
                &scope,
                body::<CreateDocument>(json!({
                    "entity_id": entity, "contact_id": suppliers[i % suppliers.len()],
                    "number": format!("S-{i}"), "issue_date": date.to_string(),
                    "status": "awaiting_payment", "lines": lines,
                })),
                &ctx,
            )?;
            if i.is_multiple_of(2) {
                let doc = serde_json::to_value(&doc).unwrap();
                let day = (date + Duration::days((i % 30) as i64)).min(to);
                payments::create(
                    tx,
                    &scope,
                    body::<CreatePayment>(json!({
                        "document_id": doc["id"], "amount": doc["total"],
                        "date": day.to_string(), "method": "bank",
                    })),
                    &ctx,
                )?;
                paid += 1;
            }
        }
        for i in 0..expenses {
            let amount = ((i * 17) % 500 + 12) as i64;
            let e = match i % 4 {
                0 | 1 => json!({ "vat_treatment": "standard",
                                 "vat_amount": num((Decimal::from(amount) / Decimal::from(6)).round_dp(2)) }),
                2 => json!({ "vat_treatment": "exempt" }),
                _ => json!({ "vat_treatment": "standard", "vat_amount": 2, "vat_reclaimable": false }),
            };
            let mut b = json!({ "entity_id": entity, "description": format!("Expense {i}"),
                                "amount": amount, "date": on(i + 2).to_string() });
            for (k, v) in e.as_object().unwrap() {
                b[k] = v.clone();
            }
            Expenses::create(tx, &scope, body::<CreateExpense>(b), &ctx)?;
        }
        Ok(())
    })
    .expect("seeding");
    (n, bills, expenses, paid)
}

fn main() {
    println!("machine: {}", machine());
    let n: usize = std::env::var("STOCKBOOK_BENCH_VAT_INVOICES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_INVOICES);
    let db = temp_db("vat");
    let server = start(&db, "normal");
    let owner = server.user_id();
    let mut c = server.conn();
    let (s, e) = c.json(
        "POST",
        "/api/entities",
        &json!({ "name": "Bench" }).to_string(),
    );
    ok(s, "entity", &e);
    let entity = id(&e);
    let contact = |c: &mut Conn, name: String, kind: &str| {
        let (s, v) = c.json(
            "POST",
            "/api/contacts",
            &json!({ "name": name, "type": kind, "entity_id": entity }).to_string(),
        );
        ok(s, "contact", &v);
        id(&v)
    };
    let customers: Vec<String> = (0..CUSTOMERS)
        .map(|i| contact(&mut c, format!("Customer {i}"), "customer"))
        .collect();
    let suppliers: Vec<String> = (0..SUPPLIERS)
        .map(|i| contact(&mut c, format!("Supplier {i}"), "supplier"))
        .collect();

    let quarter = last_quarter(OffsetDateTime::now_utc().date());
    let t0 = Instant::now();
    let (invoices, bills, expenses, paid) =
        seed(&db, &owner, &entity, &customers, &suppliers, quarter, n);
    println!(
        "seeded {invoices} invoices of {LINES} lines, {bills} bills, {expenses} expenses and {paid} payments for {} to {} in {:.1} s",
        quarter.0,
        quarter.1,
        t0.elapsed().as_secs_f64()
    );

    let query = format!("entityId={entity}&from={}&to={}", quarter.0, quarter.1);
    for (scheme, extra) in [
        ("standard", json!({})),
        ("cash", json!({})),
        ("flat_rate", json!({ "flat_rate_percent": 8.5 })),
    ] {
        let mut b = json!({ "id": entity, "vat_scheme": scheme });
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        let (s, v) = c.json("PUT", "/api/entities", &b.to_string());
        ok(s, "scheme", &v);
        let path = format!("/api/vat/return?{query}");
        let (s, v) = c.json("GET", &path, "");
        ok(s, "return", &v);
        let (ms, samples) = time_ms(RETURN_RUNS, || {
            let (s, _) = c.json("GET", &path, "");
            assert_eq!(s, 200);
        });
        let worst = samples.iter().copied().fold(0.0, f64::max);
        println!(
            "GET /api/vat/return on {scheme:>9}: median {ms:.1} ms (max {worst:.1} ms over {RETURN_RUNS}); boxes {}",
            v["data"]["boxes"]
        );
    }

    let rss_before = server.peak_rss_kib() / 1024;
    let path = format!("/api/vat/return/lines?{query}&format=csv");
    let mut size = 0;
    let mut rows = 0;
    let (ms, _) = time_ms(CSV_RUNS, || {
        let (s, body) = c.request("GET", &path, "", None);
        assert_eq!(
            s,
            200,
            "{}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        );
        size = body.len();
        rows = body
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            .saturating_sub(1);
    });
    println!(
        "GET /api/vat/return/lines?format=csv (every box): median {ms:.0} ms over {CSV_RUNS}, {rows} rows, {:.1} MB; server peak RSS {} MiB ({rss_before} MiB before the CSV)",
        size as f64 / 1e6,
        server.peak_rss_kib() / 1024
    );
    drop(server);
    cleanup();
}
