//! The database layer: an r2d2 pool of rusqlite connections, per-connection pragmas, the
//! embedded refinery migrations, and the two ways to use a connection:
//! [`Db::read`] for queries and [`Db::write`] for a `BEGIN IMMEDIATE` transaction that
//! commits when the closure returns `Ok` and rolls back otherwise.

pub mod audit;
pub mod damage;
pub mod decimal;
pub mod ident;
pub mod raw;
pub mod secrets;
mod storage;
mod writer;

pub use crate::error::StorageFault;

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
    /// Storage faults and the file's identity (`storage.rs`).
    storage: Arc<storage::Storage>,
}

/// How [`Db::open_with`] opens a database file (docs/operations.md#the-database-file).
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub synchronous: Synchronous,
    /// Serve the file without writing to it (`read_only`).
    pub read_only: bool,
    /// Whether a missing file may be created (`create_database`).
    pub create: bool,
}

impl OpenOptions {
    pub fn new(synchronous: Synchronous) -> Self {
        Self {
            synchronous,
            read_only: false,
            create: true,
        }
    }
}

/// Why a database could not be opened: the whole message, and whether the file is
/// damaged (the caller then says what `stockbook check` finds).
#[derive(Debug)]
pub struct OpenError {
    pub message: String,
    pub damaged: bool,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for OpenError {
    fn from(message: String) -> Self {
        Self {
            message,
            damaged: false,
        }
    }
}

impl Db {
    /// Opens (creating if needed) and migrates the database at `path`; `:memory:` gives a
    /// fresh private in-memory database.
    pub fn open(path: &str, synchronous: Synchronous) -> Result<Self, String> {
        Self::open_with(path, OpenOptions::new(synchronous)).map_err(|e| e.message)
    }

    /// [`Db::open`] with the start-up rules of `options`
    /// (docs/operations.md#the-database-file): a file that cannot be written, a missing
    /// file whose log is still there, or a damaged file stops the start at once, before
    /// any pool is built (r2d2 would retry a failing connection for its whole 30 s
    /// connection timeout). Migrations run on a connection of their own first.
    pub fn open_with(path: &str, options: OpenOptions) -> Result<Self, OpenError> {
        let in_memory = path == ":memory:";
        let read_only = options.read_only && !in_memory;
        let sync = options.synchronous.pragma_value();
        let opened = if in_memory {
            None
        } else {
            storage::before_open(path, read_only, options.create)?;
            open_file(path, sync, read_only)?;
            Some(
                storage::file_id(std::path::Path::new(path))
                    .map_err(|e| format!("cannot read `{path}`: {e}"))?,
            )
        };
        // After the first open, the pool's connections never create the file: one that
        // is opened again later (none is, by design) must not make an empty database.
        let flags = if read_only {
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
        } else {
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE
        } | rusqlite::OpenFlags::SQLITE_OPEN_URI
            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let key = secrets::Key::for_database(path)?;
        let init_key = key.clone();
        let manager = if in_memory {
            SqliteConnectionManager::memory()
        } else {
            SqliteConnectionManager::file(path).with_flags(flags)
        }
        .with_init(move |c| {
            init_connection(c, sync, in_memory, read_only)?;
            audit::register(c)?;
            if !read_only {
                audit::install_triggers(c)?;
            }
            init_key.register(c)
        });
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
            // Every connection is opened at start and kept: one opened again by path
            // after the file was deleted or replaced would read another database
            // (docs/operations.md#a-deleted-or-replaced-file).
            .idle_timeout(None)
            .max_lifetime(None)
            .connection_timeout(Duration::from_secs(30))
            .build(manager)
            .map_err(|e| format!("cannot open database `{path}`: {e}"))?;
        let storage = Arc::new(storage::Storage::new(
            if in_memory { "" } else { path },
            read_only,
            opened,
        ));
        let write_lock = Arc::new(Mutex::new(()));
        let writer_load = Arc::new(writer::Load::default());
        let writer = writer::start(
            pool.clone(),
            write_lock.clone(),
            !in_memory,
            !read_only,
            writer_load.clone(),
            storage.clone(),
        )?;
        let db = Self {
            pool,
            in_memory,
            write_lock,
            writer,
            writer_load,
            storage,
            streams: Arc::new(rocket::tokio::sync::Semaphore::new(
                STREAMS.min(size as usize - usize::from(!in_memory)),
            )),
            stream_timeout: STREAM_TIMEOUT,
        };
        if in_memory {
            db.migrate()
                .map_err(|e| format!("cannot migrate database `{path}`: {e}"))?;
            // Its one connection was made before its tables.
            let conn = db
                .pool
                .get()
                .map_err(|e| format!("cannot open database `{path}`: {e}"))?;
            audit::install_triggers(&conn)
                .map_err(|e| format!("database `{path}`: the audit trail's triggers: {e}"))?;
        }
        let mut conn = db
            .pool
            .get()
            .map_err(|e| format!("cannot open database `{path}`: {e}"))?;
        secrets::prepare(&mut conn, &key, read_only)
            .map_err(|e| format!("database `{path}`: {e}"))?;
        drop(conn);
        if !read_only {
            db.key_identifiers()
                .map_err(|e| format!("database `{path}`: {e}"))?;
        }
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

    /// Served read-only (`read_only = true`): every write is refused.
    pub fn is_read_only(&self) -> bool {
        self.storage.is_read_only()
    }

    /// Why writes are not being saved now, if they are not
    /// (docs/operations.md#storage-faults): what `GET /api/health` reports.
    pub fn storage_fault(&self) -> Option<StorageFault> {
        self.storage.current()
    }

    /// Where the rescue copy of a deleted or replaced database file went
    /// (docs/operations.md#a-deleted-or-replaced-file).
    pub fn rescue(&self) -> Option<String> {
        self.storage.rescue()
    }

    fn migrate(&self) -> Result<(), String> {
        let mut conn = self.pool.get().map_err(|e| e.to_string())?;
        embedded::migrations::runner()
            .run(&mut *conn)
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Gives the rows written before the compare keys existed theirs
    /// (docs/inventory.md#look-alike-identifiers), at every start that may write.
    fn key_identifiers(&self) -> Result<(), String> {
        let mut conn = self.pool.get().map_err(|e| e.to_string())?;
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
        let out = f(&conn);
        self.storage.note(&out, false);
        out
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction: committed on `Ok`, rolled back on `Err`.
    pub fn write_sync<T>(&self, f: impl FnOnce(&Transaction) -> AppResult<T>) -> AppResult<T> {
        self.storage.refuse_writes()?;
        let _writer = self
            .write_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut conn = self.conn()?;
        if !self.storage.still_there(&conn) {
            self.storage.refuse_writes()?;
        }
        let out = (|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let out = f(&tx)?;
            audit::flush(&tx)?;
            tx.commit()?;
            Ok(out)
        })();
        self.storage.note(&out, true);
        out
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

    /// [`Db::write`] as `actor`: the audit trail names that user for every change `f`
    /// makes (docs/audit.md#how-entries-are-written).
    pub async fn write_as<T, F>(&self, actor: String, f: F) -> AppResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> AppResult<T> + Send + 'static,
    {
        self.write(move |tx| audit::acting(&actor, || f(tx))).await
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
        self.storage.refuse_writes()?;
        let (reply, answer) = rocket::tokio::sync::oneshot::channel();
        self.writer
            .send(Box::new(writer::WriteJob { f, reply }))
            .map_err(|_| AppError::internal("the writer thread has stopped"))?;
        Ok(answer)
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction and rolls it back whatever happens: a
    /// dry run that sees exactly what a real write would (the import preview).
    pub fn dry_run_sync<T>(&self, f: impl FnOnce(&Transaction) -> AppResult<T>) -> AppResult<T> {
        self.storage.refuse_writes()?;
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

/// The first connection to a database file, before the pool: opens it (creating it if
/// [`storage::before_open`] allowed), checks it can be read and written, and migrates it
/// (or, served read-only, checks that it needs no migration).
fn open_file(path: &str, sync: &str, read_only: bool) -> Result<(), OpenError> {
    use rusqlite::OpenFlags;
    let flags = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
    } | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let failed = |e: rusqlite::Error| {
        let fault = match &e {
            rusqlite::Error::SqliteFailure(code, _) => StorageFault::of(code.code),
            _ => None,
        };
        match fault {
            Some(StorageFault::ReadOnly) if !read_only => OpenError::from(
                storage::read_only_refusal(path, &format!("SQLite says: {e}")),
            ),
            Some(StorageFault::Damaged) => OpenError {
                message: format!("the database file `{path}` is damaged: {e}"),
                damaged: true,
            },
            _ => OpenError::from(format!("cannot open database `{path}`: {e}")),
        }
    };
    let mut conn = Connection::open_with_flags(path, flags).map_err(failed)?;
    init_connection(&mut conn, sync, false, read_only).map_err(failed)?;
    conn.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |_| Ok(()))
        .map_err(failed)?;
    if !read_only && conn.is_readonly(rusqlite::MAIN_DB).map_err(failed)? {
        return Err(OpenError::from(storage::read_only_refusal(
            path,
            "SQLite could open it only for reading (the file or its disk is write-protected)",
        )));
    }
    let runner = embedded::migrations::runner();
    let migrated = if read_only {
        let newest = runner
            .get_migrations()
            .iter()
            .map(refinery::Migration::version)
            .max();
        match runner.get_last_applied_migration(&mut conn) {
            Ok(last) if last.as_ref().map(refinery::Migration::version) == newest => Ok(()),
            Ok(last) => Err(format!(
                "the database `{path}` is at schema version {}, and this Stockbook needs {}: start it once without `read_only` to upgrade the file",
                last.map_or(0, |m| m.version()),
                newest.unwrap_or(0)
            )),
            Err(e) => Err(format!("cannot read the schema version of `{path}`: {e}")),
        }
    } else {
        runner
            .run(&mut conn)
            .map(drop)
            .map_err(|e| format!("cannot migrate database `{path}`: {e}"))
    };
    migrated.map_err(|message| {
        // A migration reads and writes much of the file: damage it met comes back as
        // refinery's text, so ask SQLite whether the file is sound.
        let sound = conn
            .query_row("PRAGMA quick_check", [], |r| r.get::<_, String>(0))
            .is_ok_and(|v| v == "ok");
        OpenError {
            message,
            damaged: !sound,
        }
    })
}

fn init_connection(
    c: &mut Connection,
    synchronous: &str,
    in_memory: bool,
    read_only: bool,
) -> rusqlite::Result<()> {
    if !in_memory && !read_only {
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

    /// Sets `max_page_count` to the size the in-memory database has now (`full`), so that
    /// the next write needing a page fails with `SQLITE_FULL`, or lifts it.
    fn fill(db: &Db, full: bool) {
        db.read_sync(move |c| {
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

    fn big_write(db: &Db) -> AppResult<()> {
        db.write_blocking(|tx| {
            tx.execute("INSERT INTO t (b) VALUES (randomblob(100000))", [])?;
            Ok(())
        })
    }

    #[test]
    fn a_storage_fault_is_logged_once_when_it_starts_and_once_when_it_clears() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        db.write_blocking(|tx| Ok(tx.execute_batch("CREATE TABLE t (b BLOB NOT NULL)")?))
            .unwrap();
        let logged = || db.storage.logged.lock().unwrap().clone();
        big_write(&db).unwrap();
        fill(&db, true);
        for _ in 0..3 {
            let e = big_write(&db).unwrap_err();
            assert!(
                matches!(
                    e,
                    AppError::Storage {
                        fault: StorageFault::Full,
                        ..
                    }
                ),
                "{e:?}"
            );
        }
        assert_eq!(db.storage_fault(), Some(StorageFault::Full));
        let lines = logged();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains("disk holding the database is full"),
            "{lines:?}"
        );
        assert!(
            lines[0].contains("full"),
            "SQLite's own text too: {lines:?}"
        );
        // A read does not end it: only a saved write says the disk has room again.
        db.read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM t", [], |_| Ok(()))?))
            .unwrap();
        assert_eq!(db.storage_fault(), Some(StorageFault::Full));
        fill(&db, false);
        big_write(&db).unwrap();
        big_write(&db).unwrap();
        assert_eq!(db.storage_fault(), None);
        let lines = logged();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].contains("cleared"), "{lines:?}");
    }
}
