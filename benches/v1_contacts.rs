//! `GET /api/v1/contacts?limit=200` over 100,000 contacts, at shallow and deep offsets,
//! with an unscoped and an entity-scoped API key. Run: `cargo bench --bench v1_contacts`.

mod support;

use serde_json::json;
use support::*;

const CONTACTS: usize = 100_000;
const RUNS: usize = 15;

fn main() {
    println!("machine: {}", machine());
    let db = temp_db("v1-contacts");
    let server = start(&db, "normal");
    let mut c = server.conn();
    let (_, e) = c.json(
        "POST",
        "/api/entities",
        &json!({"name": "Bench"}).to_string(),
    );
    let entity = e["data"]["id"].as_str().unwrap().to_owned();
    let owner = server.user_id();
    let keys: Vec<(&str, String)> = [("unscoped", None), ("scoped", Some(entity.clone()))]
        .into_iter()
        .map(|(label, scope)| {
            let (s, k) = c.json(
                "POST",
                "/api/api-keys",
                &json!({"name": label, "entity_id": scope}).to_string(),
            );
            assert_eq!(s, 201, "{k}");
            (label, k["data"]["raw_key"].as_str().unwrap().to_owned())
        })
        .collect();

    let t = std::time::Instant::now();
    let mut conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO contacts (id, owner_id, entity_id, name, type, email, phone, address,
                     created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'customer', ?5, '01632 960000', '1 High Street, Leeds',
                     '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            )
            .unwrap();
        for i in 0..CONTACTS {
            ins.execute(rusqlite::params![
                uuid::Uuid::new_v4().to_string(),
                owner,
                entity,
                format!("Customer {i:06} Ltd"),
                format!("accounts{i}@example.co.uk")
            ])
            .unwrap();
        }
    }
    tx.commit().unwrap();
    println!(
        "seeded {CONTACTS} contacts in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    for (label, key) in &keys {
        let mut k = Conn::open(server.port).unwrap();
        k.bearer = Some(key.clone());
        for offset in [0, 50_000, 90_000, 99_800] {
            let path = format!("/api/v1/contacts?limit=200&offset={offset}");
            let mut n = 0;
            // The rate limit is 60 a minute per key and endpoint: stay under it.
            let (med, samples) = time_ms(RUNS, || {
                let (s, b) = k.request("GET", &path, "", None);
                assert_eq!(s, 200, "{}", String::from_utf8_lossy(&b));
                let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
                n = v["data"].as_array().unwrap().len();
            });
            let max = samples.iter().cloned().fold(0.0, f64::max);
            println!(
                "{label} key, offset {offset}: median {med:.2} ms, max {max:.2} ms ({n} rows)"
            );
        }
    }
}
