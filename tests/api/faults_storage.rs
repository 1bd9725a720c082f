//! Storage faults (docs/operations.md#storage-faults): a full disk, a file that cannot be
//! written, served read-only, deleted or replaced while the server runs, missing with its
//! log beside it, or damaged. The full disk is SQLite's `max_page_count` on the test's
//! in-memory database; the rest are real files in a folder of their own.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

const FULL: &str = "The disk holding the database is full: nothing was saved.";

/// A folder of its own in the temporary directory, removed at the end (made writable
/// again first, for the tests that take that away).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("stockbook-{name}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn db(&self) -> String {
        self.0.join("shop.db").to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        set_mode(&self.0, 0o755);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)]
fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_mode(path: &std::path::Path, mode: u32) {
    if let Ok(m) = std::fs::metadata(path) {
        let mut p = m.permissions();
        p.set_readonly(mode & 0o200 == 0);
        let _ = std::fs::set_permissions(path, p);
    }
}

/// The app over the database file `path`, with more settings.
fn app_on(path: &str, extra: &[(&str, Value)]) -> Result<TestApp, String> {
    let mut settings = vec![("database", json!(path))];
    settings.extend(extra.iter().cloned());
    let figment = test_figment(&settings);
    let app = stockbook::App::from_figment(&figment)?;
    let clock = app.clock.clone();
    let db = app.db.clone();
    let client = rocket::local::blocking::Client::untracked(stockbook::build_rocket(figment, app))
        .expect("valid rocket");
    Ok(TestApp {
        client,
        clock,
        db,
        session: std::cell::RefCell::new(None),
    })
}

/// A product with notes long enough to need new pages of the database.
fn big_product(entity: &str, name: &str) -> Value {
    json!({ "name": name, "entity_id": entity, "notes": "n".repeat(9_000) })
}

fn names(t: &TestApp, entity: &str) -> Vec<String> {
    let (s, v) = t.get(&format!("/api/products?entity_id={entity}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The file stops growing at its present size: the next write that needs a page fails
/// with `SQLITE_FULL`, as on a full disk. `None` lifts the limit.
fn fill_disk(t: &TestApp, full: bool) {
    t.db.read_sync(move |c| {
        let pages: i64 = if full {
            c.query_row("PRAGMA page_count", [], |r| r.get(0))?
        } else {
            1 << 30
        };
        c.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))?;
        Ok(())
    })
    .unwrap();
}

fn health(t: &TestApp) -> (Status, Value, Option<String>) {
    let res = t.client.get("/api/health").dispatch();
    let retry = res.headers().get_one("Retry-After").map(str::to_owned);
    let (s, v) = body(res);
    (s, v, retry)
}

#[test]
fn a_full_disk_is_a_503_that_says_nothing_was_saved_and_health_shows_it_until_a_write_is_saved() {
    let (t, e) = app_with_entity();
    assert_eq!(
        t.post("/api/products", big_product(&e, "Before")).0,
        Status::Created
    );
    fill_disk(&t, true);

    let res = t
        .with_session(t.client.post("/api/products"))
        .header(rocket::http::ContentType::JSON)
        .body(big_product(&e, "Lost").to_string())
        .dispatch();
    assert_eq!(res.status(), Status::ServiceUnavailable);
    assert_eq!(res.headers().get_one("Retry-After"), Some("30"));
    let (_, v) = body(res);
    assert_eq!(v["message"], FULL, "{v}");
    assert_eq!(v["statusCode"], 503);
    // Again: the same answer (the log has one line, `db` unit tests).
    assert_eq!(
        t.post("/api/products", big_product(&e, "Lost")).1["message"],
        FULL
    );

    // Reads go on; nothing of the refused writes is there.
    assert_eq!(names(&t, &e), ["Before"]);
    let (s, v, retry) = health(&t);
    assert_eq!(s, Status::ServiceUnavailable);
    assert_eq!(retry.as_deref(), Some("30"));
    assert_eq!(v["data"]["status"], "degraded");
    assert_eq!(v["data"]["reason"], FULL);
    assert_eq!(v["data"]["version"], env!("CARGO_PKG_VERSION"));

    // Room again: the next write is saved and the fault is over.
    fill_disk(&t, false);
    assert_eq!(
        t.post("/api/products", big_product(&e, "After")).0,
        Status::Created
    );
    let (s, v, _) = health(&t);
    assert_eq!(s, Status::Ok);
    assert_eq!(
        v,
        json!({ "data": { "status": "ok", "version": env!("CARGO_PKG_VERSION") } })
    );
    assert_eq!(names(&t, &e), ["After", "Before"]);
}

#[test]
fn a_read_only_file_stops_the_start_with_a_clear_message_unless_served_read_only() {
    let dir = TempDir::new("read-only");
    let path = dir.db();
    let t = app_on(&path, &[]).unwrap();
    t.signup("ann@example.com");
    let e = t.entity("Acme Ltd");
    assert_eq!(
        t.post("/api/products", json!({"name": "Kept", "entity_id": e}))
            .0,
        Status::Created
    );
    let token = t.session.borrow().clone();
    drop(t);
    set_mode(std::path::Path::new(&path), 0o444);

    // The permissions say read-only: refused even where they would not stop this
    // process (root), because they are what the operator set.
    let refused = app_on(&path, &[])
        .err()
        .expect("a read-only file must stop the start");
    assert!(refused.contains("is read-only"), "{refused}");
    assert!(refused.contains("read_only = true"), "{refused}");

    let t = app_on(&path, &[("read_only", json!(true))]).expect("served read-only");
    *t.session.borrow_mut() = token;
    assert_eq!(names(&t, &e), ["Kept"]);
    // A session used after a pause slides its expiry, a write: here it just does not.
    t.clock.advance(120);
    assert_eq!(names(&t, &e), ["Kept"]);
    let (s, v) = t.post("/api/products", json!({"name": "New", "entity_id": e}));
    assert_eq!(s, Status::ServiceUnavailable, "{v}");
    assert_eq!(
        v["message"],
        "The server is serving the database read-only (read_only = true): nothing was saved."
    );
    // As configured: a 200 that says so.
    let (s, v, _) = health(&t);
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["status"], "degraded");
    assert!(
        v["data"]["reason"].as_str().unwrap().contains("read-only"),
        "{v}"
    );
    // The pool's connections are read-only too, not only the writer's gate.
    let direct =
        t.db.read_sync(|c| Ok(c.execute("DELETE FROM products", [])?))
            .unwrap_err();
    assert_eq!(direct.status(), Status::ServiceUnavailable, "{direct}");
    assert_eq!(names(&t, &e), ["Kept"]);
}

#[test]
fn a_folder_where_the_write_ahead_log_cannot_be_made_stops_the_start() {
    let dir = TempDir::new("read-only-dir");
    let path = dir.db();
    // A database file with no log beside it (a copy, a restored backup).
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t (v INTEGER)")
        .unwrap();
    set_mode(&dir.0, 0o555);
    let refused = app_on(&path, &[])
        .err()
        .expect("a read-only folder must stop the start");
    assert!(refused.contains("folder"), "{refused}");
    assert!(refused.contains("write-ahead log"), "{refused}");
}

#[test]
fn a_missing_file_whose_log_is_there_is_never_replaced_by_an_empty_database() {
    let dir = TempDir::new("lost-file");
    let path = dir.db();
    std::fs::write(format!("{path}-wal"), b"").unwrap();
    let refused = app_on(&path, &[])
        .err()
        .expect("no new database over a log");
    assert!(refused.contains("write-ahead log"), "{refused}");
    assert!(
        !std::path::Path::new(&path).exists(),
        "an empty database was created"
    );
}

#[test]
fn with_create_database_off_a_missing_file_stops_the_start() {
    let dir = TempDir::new("must-exist");
    let path = dir.db();
    let refused = app_on(&path, &[("create_database", json!(false))])
        .err()
        .expect("the database must exist");
    assert!(refused.contains("create_database = false"), "{refused}");
    assert!(!std::path::Path::new(&path).exists());
    // On by default: the first start creates it.
    drop(app_on(&path, &[]).unwrap());
    assert!(std::path::Path::new(&path).exists());
    drop(app_on(&path, &[("create_database", json!(false))]).unwrap());
}

/// A database file with one account, made and closed.
fn made(dir: &TempDir) -> String {
    let path = dir.db();
    let t = app_on(&path, &[]).unwrap();
    t.signup("ann@example.com");
    drop(t);
    path
}

fn overwrite(path: &str, at: u64, bytes: &[u8]) {
    use std::io::{Seek, Write};
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(std::io::SeekFrom::Start(at)).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
}

#[test]
fn a_damaged_header_stops_the_start_with_what_check_says() {
    let dir = TempDir::new("damaged-header");
    let path = made(&dir);
    overwrite(&path, 0, b"not a database at all");
    let refused = app_on(&path, &[])
        .err()
        .expect("a damaged file must stop the start");
    assert!(refused.contains("is damaged"), "{refused}");
    assert!(
        refused.contains("`stockbook check` says:\nintegrity check: file is not a database"),
        "{refused}"
    );
}

#[test]
fn a_damaged_page_stops_the_start_with_what_check_says() {
    let dir = TempDir::new("damaged-page");
    let path = made(&dir);
    // The second page and on: the schema's and the tables' b-tree pages.
    let page: usize = 4096;
    overwrite(&path, page as u64, &vec![0xA5; page * 3]);
    let check = stockbook::ops::check::open(&path)
        .and_then(|c| stockbook::ops::check::breaches(&c, false))
        .map_or_else(|e| e, |found| found.join("\n"));
    let refused = app_on(&path, &[])
        .err()
        .expect("a damaged file must stop the start");
    assert!(
        refused.contains(&format!("`stockbook check` says:\n{check}")),
        "{refused}\n-- check says: {check}"
    );
}

/// Signed up, with a product, on a file of its own; the entity.
fn shop(path: &str) -> (TestApp, String) {
    let t = app_on(path, &[]).unwrap();
    t.signup("ann@example.com");
    let e = t.entity("Acme Ltd");
    assert_eq!(
        t.post("/api/products", json!({"name": "Kept", "entity_id": e}))
            .0,
        Status::Created
    );
    (t, e)
}

fn remove_database(path: &str) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
}

/// The products in the rescue copy the server wrote beside `path`. Writes are refused
/// from the moment the file is missed; the copy, renamed into place once whole, comes
/// just after (the bound only stops a broken build from looping).
fn rescued(dir: &TempDir) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let copy = loop {
        let found = std::fs::read_dir(&dir.0)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.to_string_lossy().ends_with(|c: char| c.is_ascii_digit())
                    && p.to_string_lossy().contains(".rescued-")
            });
        if let Some(copy) = found {
            break copy;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no rescue copy beside the database"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let conn = rusqlite::Connection::open(copy).unwrap();
    let mut s = conn
        .prepare("SELECT name FROM products ORDER BY name")
        .unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

const REPLACED: &str = "The database file was deleted or replaced while the server ran: nothing was saved, and the server takes no more writes until it is restarted.";

#[test]
fn a_database_deleted_while_serving_takes_no_more_writes_and_its_data_is_rescued() {
    let dir = TempDir::new("deleted");
    let path = dir.db();
    let (t, e) = shop(&path);
    remove_database(&path);

    let res = t
        .with_session(t.client.post("/api/products"))
        .header(rocket::http::ContentType::JSON)
        .body(json!({"name": "Lost", "entity_id": e}).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::ServiceUnavailable);
    assert_eq!(res.headers().get_one("Retry-After"), Some("30"));
    assert_eq!(body(res).1["message"], REPLACED);
    // It stays that way, and the open file still answers reads.
    assert_eq!(
        t.post("/api/products", json!({"name": "Lost", "entity_id": e}))
            .1["message"],
        REPLACED
    );
    assert_eq!(names(&t, &e), ["Kept"]);
    let (s, v, _) = health(&t);
    assert_eq!(s, Status::ServiceUnavailable);
    assert_eq!(v["data"]["reason"], REPLACED);

    // What was saved before is in the rescue copy; no empty database was made.
    assert_eq!(rescued(&dir), ["Kept"]);
    assert!(!std::path::Path::new(&path).exists());
    assert!(t.db.rescue().unwrap().contains(".rescued-"));
}

#[test]
fn a_database_replaced_while_serving_takes_no_more_writes_into_either_file() {
    let dir = TempDir::new("replaced");
    let path = dir.db();
    let (t, e) = shop(&path);
    // Another database moved over the path (a USB drive mounted again, a restore by hand).
    let other = dir.0.join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (v INTEGER)")
        .unwrap();
    std::fs::rename(&other, &path).unwrap();

    let (s, v) = t.post("/api/products", json!({"name": "Lost", "entity_id": e}));
    assert_eq!(s, Status::ServiceUnavailable, "{v}");
    assert_eq!(v["message"], REPLACED);
    assert_eq!(rescued(&dir), ["Kept"]);
    // The file now at the path was not written to. Read from a copy: opened in place,
    // SQLite would apply the old server's write-ahead log still beside it (`-wal`,
    // `-shm`) to this other file, which says nothing about what the server wrote.
    let copy = dir.0.join("other-copy.db");
    std::fs::copy(&path, &copy).unwrap();
    let tables: i64 = rusqlite::Connection::open(&copy)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1);
}

#[test]
fn the_checkpoint_thread_notices_a_deleted_file_with_no_write_to_tell_it() {
    let dir = TempDir::new("deleted-idle");
    let path = dir.db();
    let (t, _) = shop(&path);
    remove_database(&path);
    // No request writes: the checkpoint thread's own look (every 2 s) finds it. The bound
    // only stops a broken build from looping.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while health(&t).0 == Status::Ok {
        assert!(std::time::Instant::now() < deadline, "never noticed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(health(&t).1["data"]["reason"], REPLACED);
    assert_eq!(rescued(&dir), ["Kept"]);
}
