//! `stockbook check` reads the audit trail's hash chain on a real database file
//! (docs/audit.md#tamper-evidence): a trail written by the server is sound; an entry
//! edited, inserted or removed behind its back is named.

use std::path::{Path, PathBuf};

use stockbook::config::Synchronous;
use stockbook::db::Db;

/// A database file whose trail holds a user's sign-up and five products' creations
/// (entries 1 to 7: the user's sign-in, the entity, five products); answers its path.
fn written(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stockbook-audit-{name}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("books.db");
    let db = Db::open(path.to_str().unwrap(), Synchronous::Normal).unwrap();
    db.write_sync(|tx| {
        tx.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at)
             VALUES ('u1', 'ann@example.com', 'h', '2026-01-01T00:00:00Z');",
        )?;
        stockbook::db::audit::sign_in(tx, "u1", true, "password")?;
        tx.execute_batch(
            "INSERT INTO entities (id, owner_id, name, currency, created_at)
             VALUES ('e1', 'u1', 'Acme', 'GBP', '2026-01-01T00:00:00Z');",
        )?;
        for i in 1..=5 {
            tx.execute(
                "INSERT INTO products (id, owner_id, entity_id, name, sku, unit_price, cost_price,
                                       vat_rate, stock_qty, created_at, updated_at)
                 VALUES (?1, 'u1', 'e1', ?2, ?1, 0, 0, 2000, 0, 'x', 'x')",
                rusqlite::params![format!("p{i}"), format!("Product {i}")],
            )?;
        }
        Ok(())
    })
    .unwrap();
    drop(db);
    path
}

fn check(path: &Path) -> Vec<String> {
    let conn = stockbook::ops::check::open(path.to_str().unwrap()).unwrap();
    stockbook::audit::check::breaches(&conn).unwrap()
}

/// Runs `sql` on the file as a tool outside the server would, the trail's guard
/// triggers dropped first.
fn tamper(path: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(&format!(
        "DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete; {sql}"
    ))
    .unwrap();
}

#[test]
fn a_trail_written_by_the_server_is_sound_and_the_whole_check_says_so() {
    let path = written("sound");
    let conn = stockbook::ops::check::open(path.to_str().unwrap()).unwrap();
    let n: i64 = conn
        .query_row("SELECT COUNT(*) FROM audit_log", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 7);
    assert_eq!(check(&path), Vec::<String>::new());
    let all = stockbook::ops::check::breaches(&conn, false).unwrap();
    assert!(all.iter().all(|b| !b.starts_with("audit trail")), "{all:?}");
}

#[test]
fn an_edited_entry_is_named() {
    let path = written("edited");
    tamper(
        &path,
        "UPDATE audit_log SET changes = replace(changes, 'Product 2', 'Product 9') WHERE id = 4",
    );
    let found = check(&path);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("entry 4 was edited"), "{found:?}");
    // Through the whole check too.
    let conn = stockbook::ops::check::open(path.to_str().unwrap()).unwrap();
    let all = stockbook::ops::check::breaches(&conn, false).unwrap();
    assert!(
        all.iter().any(|b| b.contains("entry 4 was edited")),
        "{all:?}"
    );
}

#[test]
fn a_removed_entry_is_named() {
    let path = written("removed");
    tamper(&path, "DELETE FROM audit_log WHERE id = 3");
    let found = check(&path);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("entry 3 is missing"), "{found:?}");
}

#[test]
fn an_inserted_entry_is_named() {
    let path = written("inserted");
    // Room for it: the entries after 4 move up one, keeping their hashes.
    tamper(
        &path,
        "UPDATE audit_log SET id = id + 100 WHERE id > 4;
         UPDATE audit_log SET id = id - 99 WHERE id > 100;
         INSERT INTO audit_log (id, at, user_id, action, record_type, record_id, entity_id,
                                owner_id, changes, hash)
         VALUES (5, '2026-01-01T00:00:00.000Z', 'u1', 'delete', 'product', 'p1', 'e1', 'u1',
                 '{}', 'forged');",
    );
    let found = check(&path);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("entry 5 was inserted"), "{found:?}");
}

#[test]
fn a_sound_trail_is_not_changed_by_a_refused_write() {
    let path = written("refused");
    let db = Db::open(path.to_str().unwrap(), Synchronous::Normal).unwrap();
    let refused = db.write_sync(|tx| {
        tx.execute("UPDATE products SET name = 'Renamed' WHERE id = 'p1'", [])?;
        Err::<(), _>(stockbook::error::AppError::conflict(
            "refused after the change",
        ))
    });
    assert!(refused.is_err());
    drop(db);
    assert_eq!(check(&path), Vec::<String>::new());
    let conn = stockbook::ops::check::open(path.to_str().unwrap()).unwrap();
    let n: i64 = conn
        .query_row("SELECT COUNT(*) FROM audit_log", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 7);
}

/// The audit entries of a shared batch wait in each job's savepoint and are chained
/// into the trail at the commit (docs/audit.md#how-entries-are-written): a refused
/// or panicking job's entry goes with its savepoint, the others are numbered in the
/// order they were made, and the chain checks.
#[test]
fn a_shared_batch_chains_the_entries_of_the_jobs_it_keeps_and_none_of_the_others() {
    let db = Db::open(":memory:", Synchronous::Normal).unwrap();
    let rt = rocket::tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let recorded: Vec<String> = rt.block_on(async {
        let writes: Vec<_> = (0..60_i64)
            .map(|i| {
                let db = db.clone();
                rocket::tokio::spawn(async move {
                    db.write(move |tx| {
                        let id = i.to_string();
                        stockbook::db::audit::record(
                            tx,
                            &stockbook::db::audit::Entry {
                                user_id: "u",
                                action: "update",
                                record_type: "test",
                                record_id: Some(&id),
                                entity_id: None,
                                owner_id: "u",
                                changes: serde_json::json!({ "v": { "after": i } }),
                            },
                        )?;
                        assert!(i != 31, "boom");
                        if i % 3 == 0 {
                            return Err(stockbook::error::AppError::conflict("refused"));
                        }
                        Ok(i)
                    })
                    .await
                })
            })
            .collect();
        for w in writes {
            let _ = w.await.unwrap();
        }
        db.read(|c| {
            let mut s = c.prepare("SELECT record_id FROM audit_log ORDER BY id")?;
            let v = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            Ok(v)
        })
        .await
        .unwrap()
    });
    let mut got: Vec<i64> = recorded.iter().map(|r| r.parse().unwrap()).collect();
    got.sort_unstable();
    let expected: Vec<i64> = (0..60).filter(|i| i % 3 != 0 && *i != 31).collect();
    assert_eq!(got, expected);
    let (ids, breaches) = db
        .read_sync(|c| {
            let ids: Vec<i64> = c
                .prepare("SELECT id FROM audit_log ORDER BY id")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok((ids, stockbook::audit::check::breaches(c)?))
        })
        .unwrap();
    assert_eq!(ids, (1..=expected.len() as i64).collect::<Vec<_>>());
    assert!(breaches.is_empty(), "{breaches:?}");
}
