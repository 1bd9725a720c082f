//! The database layer: an r2d2 pool of rusqlite connections, per-connection pragmas, the
//! embedded refinery migrations, and the two ways to use a connection:
//! [`Db::read`] for queries and [`Db::write`] for a `BEGIN IMMEDIATE` transaction that
//! commits when the closure returns `Ok` and rolls back otherwise.

pub mod decimal;
pub mod ident;
pub mod raw;
mod writer;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use r2d2::{Pool, PooledConnection};
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::config::Synchronous;
use crate::error::{AppError, AppResult};

/// Connections that streamed answers may hold at once (half the file pool's 8 for reads).
const STREAMS: usize = 4;
/// How long a streamed answer waits for a permit before it is a 503.
pub const STREAM_WAIT: Duration = Duration::from_secs(10);
/// How long a streamed answer waits for the client to take a chunk, unless
/// [`Db::set_stream_timeout`] says otherwise (`stream_timeout_secs`).
pub const STREAM_TIMEOUT: Duration = Duration::from_secs(30);

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Migrates `conn` up to `version` only: for tests of an upgrade from an older schema.
#[cfg(test)]
pub(crate) fn migrate_to(conn: &mut Connection, version: i32) {
    embedded::migrations::runner()
        .set_target(refinery::Target::Version(version))
        .run(conn)
        .unwrap();
}

/// For tests of an upgrade: a database file at schema `version` holding `rows` (SQL run
/// with foreign keys off: such a test is about its own tables, not their references),
/// then opened as the server opens it, so migrated to the newest version. Returns it and
/// the folder of its file, for the caller to remove.
#[cfg(test)]
pub(crate) fn upgraded_from(version: i32, rows: &str) -> (Db, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "stockbook-from-v{version}-{}",
        uuid::Uuid::new_v4()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("old.db").to_string_lossy().into_owned();
    let mut conn = Connection::open(&path).unwrap();
    migrate_to(&mut conn, version);
    conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
    conn.execute_batch(rows).unwrap();
    drop(conn);
    let db = Db::open(&path, crate::config::Synchronous::Normal).unwrap();
    (db, dir)
}

/// A write to join to the first [`Db::write`] of a request (see [`with_first_write`]).
pub type FirstWrite = Box<dyn FnOnce(&Transaction) -> AppResult<()> + Send>;

rocket::tokio::task_local! {
    static FIRST_WRITE: std::cell::RefCell<Option<FirstWrite>>;
}

/// Runs `fut` (a request's handler) with `joined` added to the first [`Db::write`] it
/// makes: run in the same savepoint right after that write's closure succeeds, so the
/// two commit together or not at all. A handler that never writes through [`Db::write`]
/// never runs `joined`. The `Idempotency-Key` records its key this way
/// (docs/idempotency.md#what-is-stored).
pub async fn with_first_write<F: std::future::Future>(joined: FirstWrite, fut: F) -> F::Output {
    FIRST_WRITE
        .scope(std::cell::RefCell::new(Some(joined)), fut)
        .await
}

#[derive(Clone)]
pub struct Db {
    pool: Pool<SqliteConnectionManager>,
    in_memory: bool,
    /// Serialises this process's write transactions (the writer thread's batches,
    /// `write_sync` and dry runs). SQLite allows one writer at a time; without this,
    /// concurrent `BEGIN IMMEDIATE`s wait in SQLite's busy handler, which sleeps in steps
    /// of up to 100 ms. `busy_timeout` still covers other processes (a backup tool, say).
    write_lock: Arc<Mutex<()>>,
    /// The queue of the writer thread (see `writer.rs`).
    writer: std::sync::mpsc::Sender<Box<dyn writer::Job>>,
    /// When the writer last found a queue of requests waiting (see [`Db::writer_saturated`]).
    writer_load: Arc<writer::Load>,
    /// Permits to hold a connection for as long as a client takes to read a streamed
    /// answer (see [`Db::streaming_permit`]).
    streams: Arc<rocket::tokio::sync::Semaphore>,
    /// See [`Db::stream_timeout`].
    stream_timeout: Duration,
}

impl Db {
    /// Opens (creating if needed) and migrates the database at `path`; `:memory:` gives a
    /// fresh private in-memory database.
    pub fn open(path: &str, synchronous: Synchronous) -> Result<Self, String> {
        let in_memory = path == ":memory:";
        let sync = synchronous.pragma_value();
        let manager = if in_memory {
            SqliteConnectionManager::memory()
        } else {
            SqliteConnectionManager::file(path)
        }
        .with_init(move |c| init_connection(c, sync, in_memory));
        // An in-memory database is one connection: it serialises everything, which is what
        // the tests want, and nothing can see a half-made database.
        // On a file, the writer thread keeps one connection for itself (`writer.rs`): eight
        // remain for reads.
        let size = if in_memory { 1 } else { 9 };
        let pool = Pool::builder()
            .max_size(size)
            // A local SQLite connection does not go stale; r2d2's check on every checkout
            // would be one more statement per request.
            .test_on_check_out(false)
            .connection_timeout(Duration::from_secs(30))
            .build(manager)
            .map_err(|e| format!("cannot open database `{path}`: {e}"))?;
        let write_lock = Arc::new(Mutex::new(()));
        let writer_load = Arc::new(writer::Load::default());
        let writer = writer::start(
            pool.clone(),
            write_lock.clone(),
            !in_memory,
            writer_load.clone(),
        )?;
        let db = Self {
            pool,
            in_memory,
            write_lock,
            writer,
            writer_load,
            streams: Arc::new(rocket::tokio::sync::Semaphore::new(
                STREAMS.min(size as usize - usize::from(!in_memory)),
            )),
            stream_timeout: STREAM_TIMEOUT,
        };
        db.migrate()
            .map_err(|e| format!("cannot migrate database `{path}`: {e}"))?;
        Ok(db)
    }

    /// How long a streamed answer waits for its client to take the next chunk before it
    /// gives up and releases its connection (`http::stream`).
    pub fn stream_timeout(&self) -> Duration {
        self.stream_timeout
    }

    /// Sets [`Db::stream_timeout`] (before the `Db` is cloned into the app).
    pub fn set_stream_timeout(&mut self, timeout: Duration) {
        self.stream_timeout = timeout;
    }

    /// Whether the writer thread is the bottleneck right now: in the last
    /// [`writer::SATURATED_FOR`] it found [`writer::SATURATED_QUEUE`] or more writes
    /// waiting. Background work that writes (webhook deliveries) yields to requests then
    /// (docs/architecture.md#background-work-yields-to-requests).
    pub fn writer_saturated(&self) -> bool {
        self.writer_load.saturated()
    }

    pub fn is_in_memory(&self) -> bool {
        self.in_memory
    }

    fn migrate(&self) -> Result<(), String> {
        let mut conn = self.pool.get().map_err(|e| e.to_string())?;
        embedded::migrations::runner()
            .run(&mut *conn)
            .map_err(|e| e.to_string())?;
        let unkeyed = ident::fill_missing_keys(&mut conn).map_err(|e| e.to_string())?;
        for (id, sku) in &unkeyed.products {
            eprintln!(
                "stockbook: product {id} has SKU {sku:?}, which another product's SKU looks \
                 the same as: rename one (docs/inventory.md#look-alike-identifiers)"
            );
        }
        for (id, email) in &unkeyed.users {
            eprintln!(
                "stockbook: account {id} has email {email:?}, which another account's email \
                 looks the same as; it can still sign in with it as typed \
                 (docs/auth.md#sign-up)"
            );
        }
        Ok(())
    }

    /// Waits for a permit to keep one connection, and its read snapshot, for as long as a
    /// client takes to read a streamed answer (the stock valuation). Half the pool at
    /// most: slow downloads then never leave other requests without a connection. After
    /// [`STREAM_WAIT`] without one (every permit held by clients still reading), the
    /// answer is 503 with `Retry-After`.
    pub async fn streaming_permit(&self) -> AppResult<rocket::tokio::sync::OwnedSemaphorePermit> {
        self.streaming_permit_within(STREAM_WAIT).await
    }

    /// [`Db::streaming_permit`], waiting at most `limit`.
    pub async fn streaming_permit_within(
        &self,
        limit: Duration,
    ) -> AppResult<rocket::tokio::sync::OwnedSemaphorePermit> {
        let wait = self.streams.clone().acquire_owned();
        match rocket::tokio::time::timeout(limit, wait).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(e)) => Err(AppError::internal(format!("streaming permits: {e}"))),
            Err(_) => Err(AppError::Unavailable(
                "Too many large reports are being downloaded at once; retry the request".into(),
            )),
        }
    }

    pub fn conn(&self) -> AppResult<PooledConnection<SqliteConnectionManager>> {
        Ok(self.pool.get()?)
    }

    /// Starts the read snapshot of `first` (a connection inside a transaction that has not
    /// read yet) and, when the pool has a connection to spare, a second read transaction
    /// that sees exactly the same snapshot: a report can then read two parts of one
    /// table on two threads (docs/architecture.md#two-readers-one-snapshot). Both start
    /// while this process's write lock is held, so no commit falls between them. `None`
    /// for an in-memory database (one connection) or when every connection is in use.
    pub fn twin_snapshot(&self, first: &Connection) -> AppResult<Option<ReadSnapshot>> {
        let spare = if self.in_memory {
            None
        } else {
            self.pool.try_get()
        };
        let Some(conn) = spare else {
            start_snapshot(first)?;
            return Ok(None);
        };
        let _writer = self
            .write_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        start_snapshot(first)?;
        conn.execute_batch("BEGIN")?;
        let twin = ReadSnapshot { conn };
        start_snapshot(&twin)?;
        Ok(Some(twin))
    }

    /// Runs `f` on a pooled connection (reads; no transaction is opened).
    pub fn read_sync<T>(&self, f: impl FnOnce(&Connection) -> AppResult<T>) -> AppResult<T> {
        let conn = self.conn()?;
        f(&conn)
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction: committed on `Ok`, rolled back on `Err`.
    pub fn write_sync<T>(&self, f: impl FnOnce(&Transaction) -> AppResult<T>) -> AppResult<T> {
        let _writer = self
            .write_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// [`Db::read_sync`] off the async worker threads.
    pub async fn read<T, F>(&self, f: F) -> AppResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> AppResult<T> + Send + 'static,
    {
        let db = self.clone();
        rocket::tokio::task::spawn_blocking(move || db.read_sync(f))
            .await
            .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?
    }

    /// Runs `f` as one atomic write on the writer thread (`writer.rs`): inside a savepoint
    /// of a `BEGIN IMMEDIATE` transaction that may carry other requests' writes, answered
    /// after the commit. On `Err` (or a panic) nothing `f` did is kept.
    pub async fn write<T, F>(&self, f: F) -> AppResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> AppResult<T> + Send + 'static,
    {
        // A write joined to the request's first one (`with_first_write`) runs after `f`,
        // in its savepoint: both are kept or neither.
        let joined = FIRST_WRITE
            .try_with(|slot| slot.borrow_mut().take())
            .ok()
            .flatten();
        let answer = match joined {
            None => self.enqueue(f)?,
            Some(joined) => self.enqueue(move |tx| {
                let out = f(tx)?;
                joined(tx)?;
                Ok(out)
            })?,
        };
        answer
            .await
            .map_err(|_| AppError::internal("the writer thread dropped a write"))?
    }

    /// [`Db::write`] from a thread outside the async runtime (the webhook worker): the
    /// same writer thread and shared commits, waited for by blocking.
    pub fn write_blocking<T, F>(&self, f: F) -> AppResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> AppResult<T> + Send + 'static,
    {
        self.enqueue(f)?
            .blocking_recv()
            .map_err(|_| AppError::internal("the writer thread dropped a write"))?
    }

    /// Queues `f` at the writer thread; the receiver gets its answer after the commit.
    fn enqueue<T, F>(&self, f: F) -> AppResult<rocket::tokio::sync::oneshot::Receiver<AppResult<T>>>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> AppResult<T> + Send + 'static,
    {
        let (reply, answer) = rocket::tokio::sync::oneshot::channel();
        self.writer
            .send(Box::new(writer::WriteJob { f, reply }))
            .map_err(|_| AppError::internal("the writer thread has stopped"))?;
        Ok(answer)
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction and rolls it back whatever happens: a
    /// dry run that sees exactly what a real write would (the import preview).
    pub fn dry_run_sync<T>(&self, f: impl FnOnce(&Transaction) -> AppResult<T>) -> AppResult<T> {
        let _writer = self
            .write_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx);
        tx.rollback()?;
        out
    }
}

/// A pooled connection inside a read transaction that started at the same snapshot as
/// another one ([`Db::twin_snapshot`]); the transaction ends when it is dropped.
pub struct ReadSnapshot {
    conn: PooledConnection<SqliteConnectionManager>,
}

impl std::ops::Deref for ReadSnapshot {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl Drop for ReadSnapshot {
    fn drop(&mut self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }
}

/// Makes a connection's open transaction take its read snapshot now (SQLite takes it at
/// the first read).
fn start_snapshot(conn: &Connection) -> AppResult<()> {
    conn.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |_| Ok(()))?;
    Ok(())
}

fn init_connection(c: &mut Connection, synchronous: &str, in_memory: bool) -> rusqlite::Result<()> {
    if !in_memory {
        c.pragma_update(None, "journal_mode", "WAL")?;
    }
    c.pragma_update(None, "foreign_keys", "ON")?;
    c.pragma_update(None, "busy_timeout", 5000)?;
    c.pragma_update(None, "synchronous", synchronous)?;
    // Savepoint journals stay in memory instead of spilling to a temporary file that is
    // created and removed in every large write (docs/architecture.md#the-database-connections).
    c.pragma_update(None, "temp_store", "MEMORY")?;
    // A large import can grow the write-ahead log to gigabytes; once a checkpoint has
    // emptied it, it is cut back to 64 MiB instead of keeping that size on the disk
    // (docs/architecture.md#the-database-connections).
    c.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
    c.set_prepared_statement_cache_capacity(64);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users(conn: &Connection) -> i64 {
        conn.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))
            .unwrap()
    }

    fn add_user(db: &Db, email: &str) {
        db.write_sync(|tx| {
            tx.execute(
                "INSERT INTO users (id, email, password_hash, created_at)
                 VALUES (?1, ?1, 'x', '2026-01-01T00:00:00Z')",
                [email],
            )?;
            Ok(())
        })
        .unwrap();
    }

    /// A fresh database file in a directory of its own, for the caller to remove.
    fn file_db(name: &str) -> (Db, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("stockbook-{name}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir
            .join(format!("{name}.db"))
            .to_string_lossy()
            .into_owned();
        (Db::open(&path, Synchronous::Normal).unwrap(), dir)
    }

    #[test]
    fn twin_snapshots_see_the_same_data_and_no_commit_made_after_them() {
        let (db, dir) = file_db("twin");
        add_user(&db, "a@example.com");
        let mut first = db.conn().unwrap();
        let first = first.transaction().unwrap();
        let twin = db
            .twin_snapshot(&first)
            .unwrap()
            .expect("a spare connection");
        add_user(&db, "b@example.com");
        assert_eq!(users(&first), 1);
        assert_eq!(users(&twin), 1);
        assert_eq!(users(&db.conn().unwrap()), 2);
        drop(twin);
        drop(first);
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_file_connection_cuts_an_emptied_log_back_to_64_mib() {
        let (db, dir) = file_db("jsl");
        let limit: i64 = db
            .conn()
            .unwrap()
            .query_row("PRAGMA journal_size_limit", [], |r| r.get(0))
            .unwrap();
        assert_eq!(limit, 64 * 1024 * 1024);
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_in_memory_database_has_no_twin_and_still_starts_the_snapshot() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let mut conn = db.conn().unwrap();
        let tx = conn.transaction().unwrap();
        assert!(db.twin_snapshot(&tx).unwrap().is_none());
        assert_eq!(users(&tx), 0);
    }
}
