//! The operator's commands on real database files (docs/operations.md): `stockbook backup`
//! under write load and a restore that `stockbook check` passes, `check` naming breaches,
//! the command line's errors, a graceful stop on SIGTERM, and a Litestream replica restored
//! after both processes are killed.

#[path = "../benches/support/mod.rs"]
mod support;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Runs `stockbook <args>` over the database at `db` (as its configuration says).
fn stockbook(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stockbook"))
        .args(args)
        .env("ROCKET_DATABASE", db)
        .env("ROCKET_CONFIG", "/nonexistent-test-Rocket.toml")
        .output()
        .expect("run stockbook")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One entity, one location and one product on the server; answers (location, product).
fn seed(server: &support::Server) -> (String, String) {
    let mut c = server.conn();
    let (_, e) = c.json(
        "POST",
        "/api/entities",
        &json!({"name": "Ops Ltd"}).to_string(),
    );
    let entity = e["data"]["id"].as_str().unwrap().to_owned();
    let (_, l) = c.json(
        "POST",
        "/api/warehouse-locations",
        &json!({"name": "Main", "entity_id": entity}).to_string(),
    );
    let (_, p) = c.json(
        "POST",
        "/api/products",
        &json!({"name": "Widget", "entity_id": entity}).to_string(),
    );
    (
        l["data"]["id"].as_str().unwrap().to_owned(),
        p["data"]["id"].as_str().unwrap().to_owned(),
    )
}

/// Acknowledged movements: id and when its 201 arrived.
type Acks = Mutex<Vec<(String, Instant)>>;

/// Four clients post purchases until `stop` is set or the server goes away.
fn load<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    server: &support::Server,
    ids: (&'s str, &'s str),
    stop: &'s AtomicBool,
    acks: &'s Acks,
) -> Vec<std::thread::ScopedJoinHandle<'s, ()>> {
    (0..4)
        .map(|_| {
            let mut c = server.conn();
            scope.spawn(move || {
                let body = json!({"product_id": ids.1, "location_id": ids.0,
                                  "qty": 1, "type": "purchase"})
                .to_string();
                while !stop.load(Ordering::Relaxed) {
                    match c.try_request_full("POST", "/api/stock-movements", &body, None) {
                        Ok((201, b, _)) => {
                            let v: Value = serde_json::from_slice(&b).unwrap();
                            let id = v["data"]["id"].as_str().unwrap().to_owned();
                            acks.lock().unwrap().push((id, Instant::now()));
                        }
                        Ok((status, b, _)) => panic!("{status}: {}", text(&b)),
                        Err(_) => break,
                    }
                }
            })
        })
        .collect()
}

fn movement_ids(db: &Path) -> HashSet<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM stock_movements").unwrap();
    let ids = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    ids
}

fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[test]
fn the_command_line_prints_its_version_and_refuses_bad_arguments_with_the_usage() {
    let db = support::temp_db("cli");
    let version = stockbook(&db, &["--version"]);
    assert!(version.status.success());
    assert_eq!(
        text(&version.stdout).trim(),
        format!("stockbook {}", env!("CARGO_PKG_VERSION"))
    );

    let help = stockbook(&db, &["--help"]);
    assert!(help.status.success());
    for command in ["serve", "backup", "check"] {
        assert!(
            text(&help.stdout).contains(command),
            "{}",
            text(&help.stdout)
        );
    }

    for bad in [
        &["bogus"][..],
        &["backup"],
        &["backup", "a", "b"],
        &["check", "--nope"],
    ] {
        let out = stockbook(&db, bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = text(&out.stderr);
        assert!(err.starts_with("error: "), "{bad:?}: {err}");
        assert!(err.contains("Usage: stockbook"), "{bad:?}: {err}");
    }

    // A command on a database that does not exist says so, and creates nothing.
    let out = stockbook(&db, &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no database at"),
        "{}",
        text(&out.stderr)
    );
    assert!(!db.exists());

    // A bad configuration value stops every command with the key's name.
    let out = Command::new(env!("CARGO_BIN_EXE_stockbook"))
        .arg("check")
        .env("ROCKET_DATABASE", &db)
        .env("ROCKET_SIGNUP", "sometimes")
        .env("ROCKET_CONFIG", "/nonexistent-test-Rocket.toml")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("signup"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_backup_taken_under_write_load_restores_into_a_sound_database_with_every_earlier_write() {
    let db = support::temp_db("backup-live");
    let copy = db.with_file_name("backup-live.copy.db");
    let restored = db.with_file_name("backup-live.restored.db");
    remove_db(&copy);
    remove_db(&restored);
    let server = support::start(&db, "normal");
    let (loc, product) = seed(&server);

    let stop = AtomicBool::new(false);
    let acks = Acks::default();
    let (before_backup, report) = std::thread::scope(|s| {
        let clients = load(s, &server, (&loc, &product), &stop, &acks);
        std::thread::sleep(Duration::from_millis(500));
        let before: Vec<String> = acks
            .lock()
            .unwrap()
            .iter()
            .map(|(id, _)| id.clone())
            .collect();
        let out = stockbook(&db, &["backup", copy.to_str().unwrap()]);
        // Writes go on while the copy is taken, and after it.
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::Relaxed);
        for c in clients {
            c.join().unwrap();
        }
        (before, out)
    });
    assert!(report.status.success(), "{}", text(&report.stderr));
    let line = text(&report.stdout);
    assert!(line.starts_with("stockbook backup: wrote "), "{line}");
    assert!(line.contains(" bytes") && line.contains(" ms"), "{line}");
    assert!(
        before_backup.len() > 20,
        "load too light: {}",
        before_backup.len()
    );
    let all = acks.lock().unwrap().len();
    assert!(
        all > before_backup.len(),
        "no write landed during or after the backup"
    );

    // Restore: the server is stopped, the copy goes in place, check passes, it starts.
    drop(server);
    std::fs::copy(&copy, &restored).unwrap();
    let check = stockbook(&restored, &["check"]);
    assert!(
        check.status.success(),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    assert!(text(&check.stdout).contains("is sound"));
    let present = movement_ids(&restored);
    let missing: Vec<&String> = before_backup
        .iter()
        .filter(|id| !present.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged writes missing",
        missing.len()
    );

    let server = support::start(&restored, "full");
    let (status, v) = server.conn().json("GET", "/api/products", "");
    assert_eq!(status, 200);
    let stock = v["data"][0]["stock_qty"].to_string();
    assert_eq!(
        stock,
        present.len().to_string(),
        "stock_qty is the sum of the movements"
    );
}

#[test]
fn backup_refuses_to_replace_a_file_unless_forced_and_never_leaves_a_partial_copy() {
    let db = support::temp_db("backup-force");
    let copy = db.with_file_name("backup-force.copy.db");
    remove_db(&copy);
    let server = support::start(&db, "full");
    seed(&server);

    std::fs::write(&copy, b"an older backup").unwrap();
    let out = stockbook(&db, &["backup", copy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&copy).unwrap(), b"an older backup");

    let out = stockbook(&db, &["backup", "--force", copy.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(stockbook(&copy, &["check"]).status.code(), Some(0));

    // A backup that cannot be written leaves nothing behind it.
    let dir = db.parent().unwrap();
    let before: HashSet<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let out = stockbook(&db, &["backup", "/nonexistent-dir/x.db"]);
    assert_eq!(out.status.code(), Some(1));
    let after: HashSet<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn check_names_a_reference_that_points_nowhere_and_exits_non_zero() {
    let db = support::temp_db("check-breach");
    {
        let server = support::start(&db, "full");
        seed(&server);
    }
    assert_eq!(stockbook(&db, &["check"]).status.code(), Some(0));
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        conn.execute(
            "UPDATE warehouse_locations SET entity_id = 'no-such-entity'",
            [],
        )
        .unwrap();
    }
    let out = stockbook(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains("warehouse_locations") && report.contains("entities"),
        "{report}"
    );
    assert!(
        text(&out.stderr).contains("1 breach"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn check_names_a_broken_ledger_invariant_and_exits_non_zero() {
    let db = support::temp_db("check-ledger");
    {
        let server = support::start(&db, "full");
        let (loc, product) = seed(&server);
        let body = json!({"product_id": product, "location_id": loc, "qty": 4, "type": "purchase"});
        let (status, _) = server
            .conn()
            .json("POST", "/api/stock-movements", &body.to_string());
        assert_eq!(status, 201);
    }
    assert_eq!(stockbook(&db, &["check"]).status.code(), Some(0));
    {
        // A product's total no longer the sum of its movements (invariant 2).
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute("UPDATE products SET stock_qty = stock_qty + 1000", [])
            .unwrap();
    }
    let out = stockbook(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(report.contains("ledger (product stock)"), "{report}");
}

/// Damage inside records that SQLite's own checks pass (docs/operations.md#damaged-records):
/// `check` reads every row as the server does and names each damaged one.
#[test]
fn check_names_each_record_the_server_could_not_read_and_exits_non_zero() {
    let db = support::temp_db("check-records");
    let (loc, product, movement) = {
        let server = support::start(&db, "full");
        let (loc, product) = seed(&server);
        let body = json!({"product_id": product, "location_id": loc, "qty": 4, "type": "purchase"});
        let (status, m) = server
            .conn()
            .json("POST", "/api/stock-movements", &body.to_string());
        assert_eq!(status, 201, "{m}");
        let movement = m["data"]["id"].as_str().unwrap().to_owned();
        (loc, product, movement)
    };
    assert_eq!(stockbook(&db, &["check"]).status.code(), Some(0));
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        // Past the CHECK constraints, as a disk or another program would write.
        conn.pragma_update(None, "ignore_check_constraints", "ON")
            .unwrap();
        let bad_bytes = format!("CAST(x'{}' AS TEXT)", "ff".repeat(64));
        conn.execute(
            &format!(
                "UPDATE products SET notes = {bad_bytes}, unit_price = 'nine pounds' WHERE id = ?1"
            ),
            [&product],
        )
        .unwrap();
        conn.execute(
            "UPDATE warehouse_locations SET status = 'closed' WHERE id = ?1",
            [&loc],
        )
        .unwrap();
        // The ledger's own trigger refuses any change: it is lifted for the damage only.
        let triggers: Vec<(String, String)> = conn
            .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'stock_movements'")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (name, _) in &triggers {
            conn.execute_batch(&format!("DROP TRIGGER \"{name}\""))
                .unwrap();
        }
        conn.execute(
            "UPDATE stock_movements SET date = '2026-02-30' WHERE id = ?1",
            [&movement],
        )
        .unwrap();
        for (_, sql) in &triggers {
            conn.execute_batch(sql).unwrap();
        }
    }
    // SQLite's integrity check sees the broken CHECK constraint, but not which row, and
    // nothing of the rest: only reading the values finds them.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let integrity: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        integrity,
        ["CHECK constraint failed in warehouse_locations"]
    );
    drop(conn);
    let out = stockbook(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    for line in [
        format!("the record {product} of `products` is damaged: column `notes` holds text that is not valid UTF-8"),
        format!("the record {product} of `products` is damaged: column `unit_price` holds the text `nine pounds`, where a whole number belongs"),
        format!("the record {loc} of `warehouse_locations` is damaged: column `status` holds `closed`, not a location status"),
        format!("the record {movement} of `stock_movements` is damaged: column `date` holds `2026-02-30`, not a date in the form YYYY-MM-DD"),
    ] {
        assert!(report.contains(&line), "{line}\nmissing from:\n{report}");
    }
}

#[cfg(unix)]
#[test]
fn sigterm_lets_writes_in_flight_commit_checkpoints_and_exits_zero() {
    let db = support::temp_db("sigterm");
    let mut server = support::start(&db, "full");
    let (loc, product) = seed(&server);
    let stop = AtomicBool::new(false);
    let acks = Acks::default();
    std::thread::scope(|s| {
        let clients = load(s, &server, (&loc, &product), &stop, &acks);
        std::thread::sleep(Duration::from_millis(400));
        let pid = server.child.id().to_string();
        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        for c in clients {
            c.join().unwrap();
        }
    });
    let status = server.child.wait().expect("the server exits");
    assert_eq!(status.code(), Some(0), "exit status {status:?}");
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    assert!(
        !wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0,
        "the write-ahead log was not checkpointed"
    );
    let present = movement_ids(&db);
    let acked = acks.lock().unwrap();
    assert!(acked.len() > 10);
    assert!(acked.iter().all(|(id, _)| present.contains(id)));
    assert_eq!(stockbook(&db, &["check"]).status.code(), Some(0));
}

fn litestream() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("litestream"))
        .find(|p| p.is_file())
}

/// How often Litestream looks at the WAL, and how often it ships what it found: a write is
/// on the replica at most about `MONITOR + SYNC` after its commit.
const MONITOR: Duration = Duration::from_millis(250);
const SYNC: Duration = Duration::from_millis(500);
/// Scheduling slack on a busy 2-core machine, on top of that.
const SLACK: Duration = Duration::from_secs(2);

/// Litestream streams the WAL to a file replica while four clients write; both processes
/// are killed; the replica restores into a database that `check` passes and that holds
/// every write acknowledged more than the replica's sync interval before the kill.
#[cfg(unix)]
#[test]
fn a_litestream_replica_taken_under_load_restores_every_write_older_than_its_sync_interval() {
    let Some(litestream) = litestream() else {
        assert!(
            std::env::var("CI").is_err(),
            "litestream is not installed (.ci/run installs it)"
        );
        eprintln!("SKIPPED: litestream is not installed");
        return;
    };
    let db = support::temp_db("litestream");
    let dir = db.with_file_name("litestream-replica");
    let restored = db.with_file_name("litestream.restored.db");
    let _ = std::fs::remove_dir_all(&dir);
    remove_db(&restored);
    let _ = std::fs::remove_dir_all(db.with_file_name(".litestream.db-litestream"));
    let config = db.with_file_name("litestream.yml");
    std::fs::write(
        &config,
        format!(
            "dbs:\n  - path: {}\n    monitor-interval: {}ms\n    replica:\n      type: file\n      path: {}\n      sync-interval: {}ms\n",
            db.display(),
            MONITOR.as_millis(),
            dir.display(),
            SYNC.as_millis()
        ),
    )
    .unwrap();

    let mut server = support::start(&db, "full");
    let (loc, product) = seed(&server);
    let mut replicator = Command::new(&litestream)
        .args(["replicate", "-config", config.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start litestream");
    let stop = AtomicBool::new(false);
    let acks = Acks::default();
    let killed_at = std::thread::scope(|s| {
        let clients = load(s, &server, (&loc, &product), &stop, &acks);
        std::thread::sleep(Duration::from_secs(4));
        let at = Instant::now();
        server.child.kill().unwrap();
        replicator.kill().unwrap();
        stop.store(true, Ordering::Relaxed);
        for c in clients {
            c.join().unwrap();
        }
        at
    });
    let _ = server.child.wait();
    let _ = replicator.wait();

    let out = Command::new(&litestream)
        .args(["restore", "-o", restored.to_str().unwrap()])
        .arg(format!("file://{}", dir.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "restore: {}", text(&out.stderr));
    let check = stockbook(&restored, &["check"]);
    assert!(check.status.success(), "{}", text(&check.stdout));

    let present = movement_ids(&restored);
    let acked = acks.lock().unwrap();
    let lost: Vec<Duration> = acked
        .iter()
        .filter(|(id, _)| !present.contains(id))
        .map(|(_, at)| killed_at.duration_since(*at))
        .collect();
    let rpo = lost.iter().max().copied().unwrap_or_default();
    eprintln!(
        "litestream: {} acknowledged, {} restored, {} lost, RPO {} ms",
        acked.len(),
        present.len(),
        lost.len(),
        rpo.as_millis()
    );
    assert!(acked.len() > 100, "load too light: {}", acked.len());
    assert!(
        rpo < MONITOR + SYNC + SLACK,
        "a write acknowledged {} ms before the kill is missing",
        rpo.as_millis()
    );
}
