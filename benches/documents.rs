//! Documents that move stock, at scale (issue 12, docs/documents-stock.md):
//!
//! - the stock valuation as at a past date beside the current valuation, in the same run,
//!   over 100,000 products x 5 locations and 1,500,000 movements;
//! - posting (`status: sent`) a 50-line invoice, which writes 50 sales through the ledger;
//! - the gross-margin report over a year of 100,000 invoice lines (2,000 invoices).
//!
//! Run: `cargo bench --bench documents`.

mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::*;

const PRODUCTS: usize = 100_000;
const LOCATIONS: usize = 5;
const INVOICES: usize = 2_000;
const LINES: usize = 50;
const RUNS: usize = 7;
/// The year the invoices are spread over, and the "as at" date in it.
const YEAR_FROM: &str = "2025-12-01";
const YEAR_TO: &str = "2026-11-20";
const AS_OF: &str = "2026-06-30";

fn main() {
    println!("machine: {}", machine());
    let db = temp_db("documents");
    let mut server = start(&db, "normal");
    let mut c = server.conn();
    let (_, e) = c.json(
        "POST",
        "/api/entities",
        &json!({"name": "Bench"}).to_string(),
    );
    let entity = e["data"]["id"].as_str().unwrap().to_owned();
    let locations: Vec<String> = (0..LOCATIONS)
        .map(|i| {
            let (_, l) = c.json(
                "POST",
                "/api/warehouse-locations",
                &json!({"name": format!("Warehouse {i}"), "entity_id": entity}).to_string(),
            );
            l["data"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let (_, ct) = c.json(
        "POST",
        "/api/contacts",
        &json!({"name": "Customer", "type": "customer", "entity_id": entity}).to_string(),
    );
    let customer = ct["data"]["id"].as_str().unwrap().to_owned();
    let owner = server.user_id();

    let t = std::time::Instant::now();
    seed_products(&db, &owner, &entity, &locations, PRODUCTS);
    let history = seed_history(&db, &owner, &entity);
    println!(
        "seeded {PRODUCTS} products x {LOCATIONS} locations, {history} movements in all, \
         in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    // The seeding wrote ~2.6 GB of WAL behind the running server in one transaction,
    // which no shop's database starts from: restart the server over the database with
    // its log checkpointed and emptied, as it would be after being opened again.
    drop(server);
    rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|busy| assert_eq!(busy, 0, "checkpoint blocked"))
        .unwrap();
    server = start(&db, "normal");
    c = server.conn();
    let products = product_ids(&db);

    // Posting: 2,000 invoices of 50 lines, issued over a year, each at one location.
    let mut post_ms = Vec::with_capacity(INVOICES);
    let days = day_list(YEAR_FROM, YEAR_TO);
    for i in 0..INVOICES {
        let lines: Vec<Value> = (0..LINES)
            .map(|j| {
                let p = &products[(i * LINES + j) * 7 % products.len()];
                json!({"product_id": p, "quantity": 1, "unit_price": 24.99})
            })
            .collect();
        let body = json!({
            "contact_id": customer, "entity_id": entity, "location_id": locations[i % LOCATIONS],
            "status": "sent", "issue_date": days[i % days.len()], "lines": lines,
        })
        .to_string();
        let t = std::time::Instant::now();
        let (s, b) = c.request("POST", "/api/invoices", &body, Some("application/json"));
        post_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
    }
    let mut sorted = post_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let (first, last) = post_ms.split_at(INVOICES / 2);
    println!(
        "post a {LINES}-line invoice (sent): median {:.2} ms, p90 {:.2} ms, p99 {:.2} ms over \
         {INVOICES} invoices (first half median {:.2} ms, second half {:.2} ms)",
        percentile(&sorted, 0.5),
        percentile(&sorted, 0.9),
        percentile(&sorted, 0.99),
        median(&mut first.to_vec()),
        median(&mut last.to_vec()),
    );

    // Gross margin over the year of 100,000 lines.
    let path = format!(
        "/api/reports/gross-margin?entityId={entity}&dateFrom={YEAR_FROM}&dateTo={YEAR_TO}"
    );
    let (s, v) = c.json("GET", &path, "");
    assert_eq!(s, 200, "{v}");
    let rows = v["data"].as_array().map_or(0, Vec::len);
    let mut size = 0;
    // Timed to the last byte of the body, without parsing it (as a browser would).
    let (med, samples) = time_ms(RUNS, || {
        let (s, b) = c.request("GET", &path, "", None);
        assert_eq!(s, 200);
        size = b.len();
    });
    println!(
        "gross margin over {} lines ({rows} product rows, {:.1} MB): median {med:.1} ms {:?}",
        INVOICES * LINES,
        size as f64 / 1e6,
        rounded(&samples)
    );

    // The same report in-process: the queries and sums alone, then with serialisation.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let scope = stockbook::scope::Scope::user(owner.clone());
        let mut json_len = 0;
        let (mut query, mut whole) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let t = std::time::Instant::now();
            let (rows, summary) = stockbook::inventory::margin::gross_margin(
                &conn,
                &scope,
                Some(&entity),
                Some(YEAR_FROM),
                Some(YEAR_TO),
            )
            .unwrap();
            query.push(t.elapsed().as_secs_f64() * 1000.0);
            json_len = serde_json::to_vec(&(&rows, &summary)).unwrap().len();
            whole.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        println!(
            "gross margin in-process: queries and sums median {:.1} ms, with serialisation \
             ({:.1} MB) {:.1} ms",
            median(&mut query),
            json_len as f64 / 1e6,
            median(&mut whole)
        );
    }

    // Valuation now and as at a date, alternating in one run, each read whole by curl
    // as a client would (the body is ~165 MB).
    let now = format!("/api/reports/stock-valuation?entityId={entity}");
    let as_of = format!("{now}&asOf={AS_OF}");
    let (mut cur, mut past) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        cur.push(read_whole(&server, &mut c, &now));
        past.push(read_whole(&server, &mut c, &as_of));
    }
    let (mc, mp) = (median(&mut cur.clone()), median(&mut past.clone()));
    println!(
        "valuation now: median {mc:.0} ms {:?}; as at {AS_OF}: median {mp:.0} ms {:?}; \
         as-at / now = {:.2}; server peak RSS {} MB",
        rounded(&cur),
        rounded(&past),
        mp / mc,
        server.peak_rss_kib() / 1024
    );
    drop(server);
    cleanup();
}

fn rounded(v: &[f64]) -> Vec<f64> {
    v.iter().map(|s| (s * 10.0).round() / 10.0).collect()
}

/// Milliseconds to read `path` whole: with curl into /dev/null where there is one, else
/// with our own client.
fn read_whole(server: &Server, c: &mut Conn, path: &str) -> f64 {
    let url = format!("http://127.0.0.1:{}{path}", server.port);
    let out = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}"])
        .args(["-H", &format!("Cookie: {}", server.cookie), &url])
        .output();
    if let Ok(out) = out {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut parts = text.split_whitespace();
        assert_eq!(parts.next(), Some("200"), "curl: {text}");
        return parts.next().unwrap().parse::<f64>().unwrap() * 1000.0;
    }
    let t = std::time::Instant::now();
    let (s, _) = c.request("GET", path, "", None);
    assert_eq!(s, 200);
    t.elapsed().as_secs_f64() * 1000.0
}

/// Every day from `from` to `to`, as `YYYY-MM-DD`.
fn day_list(from: &str, to: &str) -> Vec<String> {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let mut d = time::Date::parse(from, &fmt).unwrap();
    let end = time::Date::parse(to, &fmt).unwrap();
    let mut out = Vec::new();
    while d <= end {
        out.push(d.format(&fmt).unwrap());
        d = d.next_day().unwrap();
    }
    out
}

fn product_ids(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut s = c.prepare("SELECT id FROM products ORDER BY seq").unwrap();
    let ids = s
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    ids
}

/// A year of history behind the seeded stock: for each stock row a sale and a purchase
/// of the same quantity on two days of the year (so every stock row still equals the sum
/// of its movements), and four cost prices per product over the year. Returns the number
/// of movements in the database.
fn seed_history(db: &Path, owner: &str, entity: &str) -> i64 {
    let days = day_list(YEAR_FROM, YEAR_TO);
    let mut c = rusqlite::Connection::open(db).unwrap();
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    let tx = c.transaction().unwrap();
    {
        let rows: Vec<(String, String, i64)> = tx
            .prepare("SELECT product_id, location_id, quantity FROM warehouse_stock")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut m = tx
            .prepare(
                "INSERT INTO stock_movements (id, owner_id, entity_id, product_id, location_id,
                     qty, type, unit_cost, date, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9 || 'T12:00:00Z')",
            )
            .unwrap();
        for (i, (product, location, qty)) in rows.iter().enumerate() {
            let q = qty / 10;
            let sale = &days[i % days.len()];
            let buy = &days[(i * 7 + 3) % days.len()];
            for (qty, kind, cost, date) in [
                (-q, "sale", None, sale),
                (q, "purchase", Some(5_000_i64 + (i as i64 % 900) * 100), buy),
            ] {
                m.execute(rusqlite::params![
                    uuid::Uuid::new_v4().to_string(),
                    owner,
                    entity,
                    product,
                    location,
                    qty,
                    kind,
                    cost,
                    date
                ])
                .unwrap();
            }
        }
        let mut h = tx
            .prepare(
                "INSERT OR REPLACE INTO product_cost_history (product_id, date, cost_price)
                 SELECT id, ?1, cost_price + ?2 FROM products",
            )
            .unwrap();
        for (k, date) in ["2026-02-14", "2026-05-01", "2026-08-19", "2026-10-31"]
            .iter()
            .enumerate()
        {
            h.execute(rusqlite::params![date, k as i64 * 100]).unwrap();
        }
    }
    tx.commit().unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    c.query_row("SELECT COUNT(*) FROM stock_movements", [], |r| r.get(0))
        .unwrap()
}
