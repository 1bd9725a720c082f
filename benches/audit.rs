//! The audit trail at a million entries (issue 28): `GET /api/audit` through the release
//! server over a file whose trail holds 1,000,000 entries, and `stockbook check` over it.
//!
//! The shop: one owner with four businesses (A, the busy one, with half the entries; B a
//! quarter; C a fifth; D a shop closed in the year's first week), a manager of A, an
//! accountant of C and D, and an auditor who is the accountant of D alone. Every user
//! signs up and joins through the API, and the products are made and changed through it,
//! so the trail starts with real entries. The rest of the million is a year of changes
//! written straight into the file (oldest first, dated evenly over the last 365 days,
//! 70 % records created, 30 % products changed, each business's entries by the users who
//! work there), each chained with the server's own hash (`stockbook::db::audit::entry_hash`),
//! so `stockbook check` finds the chain whole.
//!
//! Measured client side on loopback, each page the median of 21 reads after one warming
//! read: the filters the Activity page sends (a business, a record, a user, a month, a
//! page deep in a business) and the unfiltered first page of each kind of reader.
//!
//! Run: `cargo bench --bench audit`. `STOCKBOOK_BENCH_AUDIT_ENTRIES=<n>` writes n entries
//! instead of 1,000,000: a quick check in debug is
//! `STOCKBOOK_BENCH_AUDIT_ENTRIES=20000 cargo bench --profile dev --bench audit`.

mod support;

use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};
use stockbook::clock::utc_millis;
use stockbook::db::audit::entry_hash;
use support::*;
use time::{Duration, OffsetDateTime};

const DEFAULT_ENTRIES: usize = 1_000_000;
const PRODUCTS: [usize; 4] = [100, 100, 100, 20];
const RUNS: usize = 21;
const CHECK_RUNS: usize = 3;

fn ok(status: u16, what: &str, v: &Value) {
    assert!((200..300).contains(&status), "{what}: {status} {v}");
}

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// A small, fixed pseudo-random sequence (the same trail on every run).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Shop {
    owner: String,
    entities: Vec<String>,
    products: Vec<Vec<String>>,
    /// Who works in each business besides the owner.
    staff: Vec<Vec<String>>,
}

/// Writes `n` entries after the trail's last one, chained with the server's hash.
fn write_year(db: &std::path::Path, shop: &Shop, n: usize) {
    let mut c = rusqlite::Connection::open(db).unwrap();
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    let tx = c.transaction().unwrap();
    {
        let (mut id, mut prev): (i64, Option<String>) = tx
            .query_row(
                "SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let mut ins = tx
            .prepare(
                "INSERT INTO audit_log (id, at, user_id, action, record_type, record_id,
                     entity_id, owner_id, changes, hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .unwrap();
        let mut rng = Lcg(28);
        let start = OffsetDateTime::now_utc() - Duration::days(365);
        let span_ms = (365 * 24 * 3600 - 3600) as i64 * 1000;
        let kinds = [
            "stock_movement",
            "stock_movement",
            "stock_movement",
            "invoice",
            "payment",
            "bill",
            "contact",
            "expense",
        ];
        for i in 0..n {
            let at = utc_millis(start + Duration::milliseconds(span_ms * i as i64 / n as i64));
            // D traded in the year's first week only; then A, B and C at 50:25:20
            // (D's share taken by A).
            let e = if i < n / 50 && rng.below(2) == 0 {
                3
            } else {
                match rng.below(95) {
                    0..=49 => 0,
                    50..=74 => 1,
                    _ => 2,
                }
            };
            let who = if !shop.staff[e].is_empty() && rng.below(10) < 4 {
                &shop.staff[e][rng.below(shop.staff[e].len())]
            } else {
                &shop.owner
            };
            let (action, kind, record, changes) = if rng.below(10) < 3 {
                let p = &shop.products[e][rng.below(shop.products[e].len())];
                let before = 1000 + rng.below(9000);
                let after = before + 1 + rng.below(500);
                (
                    "update",
                    "product",
                    p.clone(),
                    json!({ "unit_price": { "before": before, "after": after } }),
                )
            } else {
                let kind = kinds[rng.below(kinds.len())];
                let p = &shop.products[e][rng.below(shop.products[e].len())];
                (
                    "create",
                    kind,
                    uuid::Uuid::new_v4().to_string(),
                    json!({
                        "product_id": { "after": p },
                        "qty": { "after": format!("{}", 1 + rng.below(40)) },
                        "reference": { "after": format!("REF-{i}") },
                        "date": { "after": &at[..10] },
                    }),
                )
            };
            id += 1;
            let changes = changes.to_string();
            let hash = entry_hash(
                prev.as_deref(),
                id,
                &at,
                Some(who),
                action,
                kind,
                Some(&record),
                Some(&shop.entities[e]),
                Some(&shop.owner),
                &changes,
            );
            ins.execute(rusqlite::params![
                id,
                at,
                who,
                action,
                kind,
                record,
                shop.entities[e],
                shop.owner,
                changes,
                hash
            ])
            .unwrap();
            prev = Some(hash);
        }
    }
    tx.commit().unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); ANALYZE;")
        .unwrap();
}

/// Times `path` for `c`: the median and the largest of [`RUNS`] reads after a warming
/// one, and the rows of the last answer.
fn page(c: &mut Conn, path: &str) -> (f64, f64, usize) {
    let (s, v) = c.json("GET", path, "");
    ok(s, path, &v);
    let mut rows = 0;
    let (ms, samples) = time_ms(RUNS, || {
        let (s, b) = c.request("GET", path, "", None);
        assert_eq!(s, 200, "{path}");
        rows = if path.contains("format=csv") {
            b.iter().filter(|c| **c == b'\n').count().saturating_sub(1)
        } else {
            serde_json::from_slice::<Value>(&b).unwrap()["data"]
                .as_array()
                .unwrap()
                .len()
        };
    });
    (ms, samples.iter().copied().fold(0.0, f64::max), rows)
}

fn main() {
    println!("machine: {}", machine());
    let n: usize = std::env::var("STOCKBOOK_BENCH_AUDIT_ENTRIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_ENTRIES);
    let db = temp_db("audit");
    let server = start(&db, "normal");
    let owner = server.user_id();
    let mut c = server.conn();

    let entities: Vec<String> = ["A", "B", "C", "D"]
        .iter()
        .map(|name| {
            let (s, v) = c.json(
                "POST",
                "/api/entities",
                &json!({ "name": format!("Shop {name}") }).to_string(),
            );
            ok(s, "entity", &v);
            id(&v)
        })
        .collect();
    // Members join through invitations, as a shop's staff do.
    let mut join = |email: &str, entity: &str, role: &str| -> (Conn, String) {
        let (s, v) = c.json(
            "POST",
            "/api/members",
            &json!({ "entity_id": entity, "email": email, "role": role }).to_string(),
        );
        ok(s, "invite", &v);
        let url = v["data"]["invite_url"].as_str().unwrap();
        let token = url.split("token=").nth(1).unwrap();
        let mut member = server.sign_up(&json!({
            "email": email, "password": "bench password", "invite_token": token,
        }));
        let (_, me) = member.json("GET", "/api/auth/me", "");
        let uid = me["data"]["id"].as_str().unwrap().to_owned();
        (member, uid)
    };
    let (mut manager, manager_id) = join("manager@example.com", &entities[0], "manager");
    let (accountant, accountant_id) = join("accountant@example.com", &entities[2], "accountant");
    let (auditor, auditor_id) = join("auditor@example.com", &entities[3], "accountant");
    let (s, v) = c.json(
        "POST",
        "/api/members",
        &json!({ "entity_id": entities[3], "email": "accountant@example.com",
                 "role": "accountant" })
        .to_string(),
    );
    ok(s, "the accountant into D", &v);

    // Products made by the owner, priced again by the manager in A.
    let mut products = Vec::new();
    for (e, entity) in entities.iter().enumerate() {
        let mut ids = Vec::new();
        for i in 0..PRODUCTS[e] {
            let (s, v) = c.json(
                "POST",
                "/api/products",
                &json!({ "name": format!("Product {e}-{i}"), "entity_id": entity,
                         "unit_price": 10, "cost_price": 6 })
                .to_string(),
            );
            ok(s, "product", &v);
            ids.push(id(&v));
        }
        products.push(ids);
    }
    for p in &products[0][..20] {
        let (s, v) = manager.json(
            "PUT",
            "/api/products",
            &json!({ "id": p, "unit_price": 11 }).to_string(),
        );
        ok(s, "reprice", &v);
    }
    let shop = Shop {
        owner: owner.clone(),
        entities: entities.clone(),
        products,
        staff: vec![
            vec![manager_id.clone()],
            vec![],
            vec![accountant_id.clone()],
            vec![accountant_id.clone(), auditor_id.clone()],
        ],
    };

    let t0 = Instant::now();
    write_year(&db, &shop, n);
    let total: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM audit_log", [], |r| r.get(0))
        .unwrap();
    let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
    println!(
        "trail: {total} entries ({n} written in {:.1} s), database {:.0} MB",
        t0.elapsed().as_secs_f64(),
        size as f64 / 1e6
    );

    // A month in the middle of the year, and a product of A with its changes.
    let mid = OffsetDateTime::now_utc() - Duration::days(180);
    let (from, to) = (mid.date(), (mid + Duration::days(30)).date());
    let record = &shop.products[0][7];
    let [a, _, cc, d] = [&entities[0], &entities[1], &entities[2], &entities[3]];
    let mut conns = [c, manager, accountant, auditor];
    let (owner_c, manager_c, accountant_c, auditor_c) = (0, 1, 2, 3);
    let cases: Vec<(&str, usize, String)> = vec![
        (
            "owner, business A (half the trail)",
            owner_c,
            format!("entityId={a}"),
        ),
        (
            "owner, business A, 1,000 a page",
            owner_c,
            format!("entityId={a}&limit=1000"),
        ),
        (
            "owner, business A, the page at 10,000",
            owner_c,
            format!("entityId={a}&offset=10000"),
        ),
        (
            "owner, business A, one month",
            owner_c,
            format!("entityId={a}&dateFrom={from}&dateTo={to}"),
        ),
        (
            "owner, business D (closed; 1 %)",
            owner_c,
            format!("entityId={d}"),
        ),
        (
            "owner, one product's history",
            owner_c,
            format!("recordId={record}"),
        ),
        (
            "owner, one product's history, CSV",
            owner_c,
            format!("recordId={record}&format=csv"),
        ),
        (
            "owner, the manager's changes",
            owner_c,
            format!("userId={manager_id}"),
        ),
        ("owner, no filter", owner_c, String::new()),
        (
            "owner, no filter, one month",
            owner_c,
            format!("dateFrom={from}&dateTo={to}"),
        ),
        (
            "owner, the manager's changes, one month",
            owner_c,
            format!("userId={manager_id}&dateFrom={from}&dateTo={to}"),
        ),
        (
            "accountant of C and D, business C",
            accountant_c,
            format!("entityId={cc}"),
        ),
        (
            "accountant of C and D, no filter",
            accountant_c,
            String::new(),
        ),
        (
            "accountant of C and D, no filter, one month",
            accountant_c,
            format!("dateFrom={from}&dateTo={to}"),
        ),
        ("auditor of D alone, no filter", auditor_c, String::new()),
        (
            "manager of A, no filter (their sign-ins)",
            manager_c,
            String::new(),
        ),
    ];
    for (what, who, q) in cases {
        let path = format!("/api/audit?{q}");
        let (ms, max, rows) = page(&mut conns[who], &path);
        println!("GET /api/audit {what:<45} median {ms:6.1} ms, max {max:6.1} ms, {rows} rows");
    }
    drop(server);

    let bin = env!("CARGO_BIN_EXE_stockbook");
    let (ms, _) = time_ms(CHECK_RUNS, || {
        let out = Command::new(bin)
            .arg("check")
            .env("ROCKET_DATABASE", &db)
            .env("ROCKET_CONFIG", "/nonexistent-bench-Rocket.toml")
            .output()
            .expect("stockbook check");
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });
    println!(
        "stockbook check over the {total}-entry trail: median {:.1} s over {CHECK_RUNS}",
        ms / 1000.0
    );
    cleanup();
}
