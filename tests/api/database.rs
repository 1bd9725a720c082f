//! A real database file: what the API wrote survives a restart, and the connection
//! pragmas (WAL, foreign keys, `synchronous`) hold on every pooled connection.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::json;

struct TempDb(std::path::PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", ".key"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

#[test]
fn data_written_through_the_api_survives_a_restart() {
    let file =
        TempDb(std::env::temp_dir().join(format!("stockbook-test-{}.db", uuid::Uuid::new_v4())));
    let path = file.0.to_str().unwrap().to_owned();
    let settings = [("database", json!(path))];

    let t = app_with(&settings);
    t.signup("ann@example.com");
    let id = t.entity("Acme Ltd");
    let (mode, fk, sync): (String, i64, i64) =
        t.db.read_sync(|c| {
            Ok((
                c.pragma_query_value(None, "journal_mode", |r| r.get(0))?,
                c.pragma_query_value(None, "foreign_keys", |r| r.get(0))?,
                c.pragma_query_value(None, "synchronous", |r| r.get(0))?,
            ))
        })
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(fk, 1);
    assert_eq!(sync, 2, "synchronous = full by default");
    let token = t.session.borrow().clone().unwrap();
    drop(t);
    assert!(file.0.exists());

    // A new server on the same file: the account, the entity and the session are there.
    let t = app_with(&settings);
    *t.session.borrow_mut() = Some(token);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
    *t.session.borrow_mut() = None;
    let (s, _) = t.login("ann@example.com");
    assert_eq!(s, Status::Ok);
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["id"], json!(id));
    assert_eq!(list["data"][0]["name"], "Acme Ltd");
}

#[test]
fn synchronous_normal_is_applied_to_every_connection() {
    let file =
        TempDb(std::env::temp_dir().join(format!("stockbook-test-{}.db", uuid::Uuid::new_v4())));
    let path = file.0.to_str().unwrap().to_owned();
    let t = app_with(&[("database", json!(path)), ("synchronous", json!("normal"))]);
    // Hold several pooled connections at once so more than one is initialised.
    let conns: Vec<_> = (0..3).map(|_| t.db.conn().unwrap()).collect();
    for c in &conns {
        let sync: i64 = c
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        let fk: i64 = c
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 1);
        assert_eq!(fk, 1);
    }
}
