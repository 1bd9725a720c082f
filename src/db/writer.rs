//! Group commit: one thread runs the service's write transactions.
//!
//! Handlers hand their write closures to this thread ([`Db::write`](super::Db::write)).
//! It takes every job waiting in the queue (up to [`MAX_BATCH`]), opens one
//! `BEGIN IMMEDIATE` transaction, runs each job inside its own savepoint (a job that fails
//! or panics is rolled back to its savepoint and changes nothing), commits once, and only
//! then answers each caller. So every request is still atomic and isolated (jobs run one
//! after another, each seeing the ones before it) and durable before it is answered, but
//! concurrent requests share one commit (one WAL append, one fsync under
//! `synchronous = full`) and no request waits for a sleeping thread to be woken to take
//! the lock.
//!
//! A batch of one job needs no savepoint: if it fails, the whole transaction is rolled
//! back instead of committed, which undoes exactly that job.
//!
//! On a database file the thread keeps one connection of its own for its whole life, so
//! its prepared statements (every hot statement is `prepare_cached`) stay compiled from
//! one batch to the next; an in-memory database has a single connection, which the thread
//! takes from the pool for each batch and gives back.
//!
//! That connection does not checkpoint the write-ahead log itself (SQLite's automatic
//! checkpoint would run inside a commit, on this thread, with two fsyncs even under
//! `synchronous = normal`, and every job of the next batch would wait for it). A second
//! thread does it instead: woken by a commit, it waits [`CHECKPOINT_EVERY`] for more, then
//! runs a `PASSIVE` checkpoint on a pooled connection, which copies the committed pages
//! into the database file while the writer goes on appending to the log.
//!
//! SQLite starts the log again from the top only when a write begins on a log whose every
//! frame has been copied. Under a steady stream of writes a `PASSIVE` checkpoint never
//! ends that way (the writer appends while it copies), and the log grew for as long as
//! the stream lasted: 2 GB over a run of 2,000 invoices, each write extending the file.
//! So once the log is longer than [`RESTART_ABOVE_FRAMES`], the checkpoint thread repeats
//! its pass beside the writer (each copies what was appended during the one before, a
//! shrinking amount) until one takes under [`CATCH_UP_QUICK`], at most
//! [`CATCH_UP_PASSES`] times, and then copies the last few frames with the writer held
//! off (the write lock), after which the next batch restarts the log (unless a reader
//! still reads an older snapshot from it). That last copy syncs the log and the database
//! file, which can take tens of milliseconds while the disk is busy, so it happens only
//! once per 256 MiB written, not at every checkpoint.
//!
//! Some errors make SQLite roll back the whole transaction by itself, not only the
//! statement (`SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_NOMEM`, a job that runs `ROLLBACK`).
//! After each job the thread checks that the transaction is still open
//! (`is_autocommit()` is false inside one). If it is gone, the jobs run so far lost their
//! writes with it and the jobs not yet run are never started: every one of them is answered
//! with an error (503, so the client retries once, against a fresh transaction), and
//! nothing of the batch commits, so no write runs outside a transaction and no client is
//! told "failed" about a write that was in fact kept.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use r2d2::{Pool, PooledConnection};
use r2d2_sqlite::SqliteConnectionManager;
use rocket::tokio::sync::oneshot;
use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::storage::Storage;
use crate::error::{AppError, AppResult};

/// The most jobs one transaction carries.
pub const MAX_BATCH: usize = 64;

/// How long the checkpoint thread lets commits gather after the first one that wakes it.
pub const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// A write waiting for the writer thread.
pub(super) trait Job: Send {
    /// Runs the job inside its own savepoint of `tx` (or, when `alone` in its batch,
    /// directly in `tx`); returns how to answer its caller once the batch's commit has
    /// succeeded or failed, and whether the job succeeded (a job run `alone` that failed
    /// has left its writes in `tx`, which must then be rolled back), with its error when
    /// that is a storage fault.
    fn run(self: Box<Self>, tx: &Transaction, alone: bool) -> (Box<dyn Done>, Outcome);
    /// Answers the caller without running (the batch could not start, or its transaction
    /// was lost before this job's turn).
    fn fail(self: Box<Self>, e: AppError);
}

/// How a job ended, as the batch needs to know.
pub(super) enum Outcome {
    Saved,
    Refused,
    /// Refused by the storage (a full disk, say): its error, for the rest of the batch.
    Storage(AppError),
}

pub(super) trait Done: Send {
    fn finish(self: Box<Self>, commit: AppResult<()>);
}

pub(super) struct WriteJob<T, F> {
    pub f: F,
    pub reply: oneshot::Sender<AppResult<T>>,
}

struct Reply<T> {
    result: AppResult<T>,
    reply: oneshot::Sender<AppResult<T>>,
}

impl<T, F> Job for WriteJob<T, F>
where
    T: Send + 'static,
    F: FnOnce(&Transaction) -> AppResult<T> + Send + 'static,
{
    fn run(self: Box<Self>, tx: &Transaction, alone: bool) -> (Box<dyn Done>, Outcome) {
        let WriteJob { f, reply } = *self;
        let result = if alone {
            guarded(tx, f)
        } else {
            in_savepoint(tx, f)
        };
        let outcome = match &result {
            Ok(_) => Outcome::Saved,
            Err(e @ AppError::Storage { .. }) => Outcome::Storage(e.clone()),
            Err(_) => Outcome::Refused,
        };
        (Box::new(Reply { result, reply }), outcome)
    }

    fn fail(self: Box<Self>, e: AppError) {
        let _ = self.reply.send(Err(e));
    }
}

fn transaction_lost() -> AppError {
    AppError::Unavailable(
        "The database could not complete the write (its transaction was rolled back); retry the request"
            .into(),
    )
}

impl<T: Send> Done for Reply<T> {
    fn finish(self: Box<Self>, commit: AppResult<()>) {
        let answer = match (self.result, commit) {
            // A refused job changed nothing, whatever happened to the batch.
            (Err(e), _) => Err(e),
            (Ok(v), Ok(())) => Ok(v),
            (Ok(_), Err(e)) => Err(e),
        };
        // The caller may have gone away (a closed connection): nothing to answer.
        let _ = self.reply.send(answer);
    }
}

/// Runs `f`, turning a panic into an error.
fn guarded<T>(tx: &Transaction, f: impl FnOnce(&Transaction) -> AppResult<T>) -> AppResult<T> {
    catch_unwind(AssertUnwindSafe(|| f(tx))).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(ToString::to_string)
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(AppError::internal(format!("a write panicked: {what}")))
    })
}

/// Runs `f` in a savepoint, rolled back when `f` fails. The savepoint statements are
/// prepared once per connection, like the jobs' own.
fn in_savepoint<T>(tx: &Transaction, f: impl FnOnce(&Transaction) -> AppResult<T>) -> AppResult<T> {
    tx.prepare_cached("SAVEPOINT write_job")?.execute([])?;
    let result = guarded(tx, f);
    if tx.is_autocommit() {
        // SQLite rolled the whole transaction back (a full disk, say): the savepoint went
        // with it, and the job's own error says why (the batch sees the loss).
        return result;
    }
    if result.is_err() {
        tx.prepare_cached("ROLLBACK TO write_job")?.execute([])?;
    }
    tx.prepare_cached("RELEASE write_job")?.execute([])?;
    result
}

/// Starts the writer thread; it stops when every sender (every clone of the `Db`) is gone.
/// With `keep_connection` (a database file) it keeps the connection it first takes.
/// A batch of at least this many writes means requests are queueing for the writer.
pub const SATURATED_QUEUE: usize = 4;
/// How long after such a batch the writer still counts as saturated.
pub const SATURATED_FOR: std::time::Duration = std::time::Duration::from_millis(50);

/// The writer's load, as background work asks about it ([`super::Db::writer_saturated`]).
#[derive(Default)]
pub struct Load {
    /// When a batch of [`SATURATED_QUEUE`] or more writes last started, in milliseconds
    /// since [`load_epoch`]; 0 for never.
    busy_at_ms: std::sync::atomic::AtomicU64,
    /// Checkpoint passes that held the writer off so that the log restarts (module doc).
    held_checkpoints: std::sync::atomic::AtomicU64,
}

/// The clock of [`Load`]: a monotonic start, shared by every database of the process.
fn load_epoch() -> std::time::Instant {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(std::time::Instant::now)
}

fn load_now_ms() -> u64 {
    // +1 so that a batch at the very start is not taken for "never".
    u64::try_from(load_epoch().elapsed().as_millis()).unwrap_or(u64::MAX) + 1
}

impl Load {
    fn note_batch(&self, jobs: usize) {
        if jobs >= SATURATED_QUEUE {
            self.busy_at_ms
                .store(load_now_ms(), std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn saturated(&self) -> bool {
        let at = self.busy_at_ms.load(std::sync::atomic::Ordering::Relaxed);
        let window = u64::try_from(SATURATED_FOR.as_millis()).unwrap_or(u64::MAX);
        at != 0 && load_now_ms().saturating_sub(at) < window
    }
}

/// `checkpoints` starts the checkpoint thread (a database file served for writing).
/// Before each batch on a file, the writer checks that the path still names the file it
/// writes (`storage.rs`), and every batch's end is noted there.
pub(super) fn start(
    pool: Pool<SqliteConnectionManager>,
    lock: Arc<Mutex<()>>,
    keep_connection: bool,
    checkpoints: bool,
    load: Arc<Load>,
    storage: Arc<Storage>,
) -> Result<mpsc::Sender<Box<dyn Job>>, String> {
    let (sender, queue) = mpsc::channel::<Box<dyn Job>>();
    let committed = if keep_connection && checkpoints {
        Some(start_checkpoints(
            pool.clone(),
            lock.clone(),
            load.clone(),
            storage.clone(),
        )?)
    } else {
        None
    };
    std::thread::Builder::new()
        .name("stockbook-writer".into())
        .spawn(move || {
            let mut kept: Option<PooledConnection<SqliteConnectionManager>> = None;
            while let Ok(first) = queue.recv() {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match queue.try_recv() {
                        Ok(job) => batch.push(job),
                        Err(_) => break,
                    }
                }
                load.note_batch(batch.len());
                let guard = lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let conn = match kept.take() {
                    Some(c) => Ok(c),
                    None => pool.get().map_err(AppError::from).and_then(|c| {
                        if keep_connection {
                            // Checkpoints are the checkpoint thread's (module doc).
                            c.pragma_update(None, "wal_autocheckpoint", 0)?;
                            // Every write rereads the indexes' upper pages: keep 16 MiB
                            // of them (docs/architecture.md#the-database-connections).
                            c.pragma_update(None, "cache_size", -16384)?;
                        }
                        Ok(c)
                    }),
                };
                match conn {
                    Ok(conn) if keep_connection && !storage.still_there(&conn) => {
                        let e = storage
                            .refuse_writes()
                            .expect_err("a replaced file refuses writes");
                        batch.into_iter().for_each(|j| j.fail(e.clone()));
                        kept = Some(conn);
                    }
                    Ok(mut conn) => {
                        run_batch(&mut conn, batch, &|end| storage.note(end, true));
                        if keep_connection {
                            kept = Some(conn);
                        }
                    }
                    Err(e) => {
                        storage.note(&Err::<(), _>(e.clone()), true);
                        batch.into_iter().for_each(|j| j.fail(e.clone()));
                    }
                }
                drop(guard);
                if let Some(c) = &committed {
                    // Full: a wake-up is already pending.
                    let _ = c.try_send(());
                }
            }
        })
        .map_err(|e| format!("cannot start the writer thread: {e}"))?;
    Ok(sender)
}

/// Starts the checkpoint thread (module doc); it stops when the returned sender is gone.
/// A log this long (in frames of one page: 256 MiB at 4 KiB) is restarted from the top
/// once it has been copied, at the cost of one short pause of the writer.
const RESTART_ABOVE_FRAMES: i64 = 65_536;
/// [`RESTART_ABOVE_FRAMES`], lowered by a test to see restarts without writing 256 MiB.
static RESTART_ABOVE: std::sync::atomic::AtomicI64 =
    std::sync::atomic::AtomicI64::new(RESTART_ABOVE_FRAMES);
/// Checkpoint passes beside the writer before the last one, which holds it off.
const CATCH_UP_PASSES: usize = 4;
/// A pass this quick leaves little for the pass that holds the writer off.
const CATCH_UP_QUICK: std::time::Duration = std::time::Duration::from_millis(10);

/// How often the checkpoint thread, with no commit to wake it, checks that the path
/// still names the database file (`storage.rs`).
pub const IDENTITY_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

fn start_checkpoints(
    pool: Pool<SqliteConnectionManager>,
    lock: Arc<Mutex<()>>,
    load: Arc<Load>,
    storage: Arc<Storage>,
) -> Result<mpsc::SyncSender<()>, String> {
    let (committed, woken) = mpsc::sync_channel::<()>(1);
    std::thread::Builder::new()
        .name("stockbook-checkpoint".into())
        .spawn(move || loop {
            match woken.recv_timeout(IDENTITY_EVERY) {
                Ok(()) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Only a spare connection: never wait behind slow readers for this.
                    if let Some(c) = pool.try_get() {
                        storage.still_there(&c);
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            {
                std::thread::sleep(CHECKPOINT_EVERY);
                while woken.try_recv().is_ok() {}
                let done = pool.get().map_err(|e| e.to_string()).and_then(|c| {
                    if !storage.still_there(&c) {
                        // Copying the log into an unlinked file saves nothing.
                        return Ok(());
                    }
                    let passive = |c: &Connection| {
                        c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                            Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
                        })
                        .map_err(|e| e.to_string())
                    };
                    let (log, _) = passive(&c)?;
                    let restart_above = RESTART_ABOVE.load(std::sync::atomic::Ordering::Relaxed);
                    if log < restart_above {
                        // Not yet worth a pause of the writer.
                        return Ok(());
                    }
                    // More passes beside the writer until one is quick, so that little
                    // was appended while it ran (each copies what the last one left). A
                    // pass beside the writer may stop short of the log's end: SQLite copies
                    // no frame past the oldest snapshot still being read, and the writer's
                    // open transaction can read one older than the newest commit. Under a
                    // loaded machine that was every pass, and the log never restarted; only
                    // the pass that holds the writer off can be counted on to finish.
                    for _ in 1..CATCH_UP_PASSES {
                        let started = std::time::Instant::now();
                        passive(&c)?;
                        if started.elapsed() < CATCH_UP_QUICK {
                            break;
                        }
                    }
                    // Then what was appended since, with the writer held off, so that the
                    // log is empty when the next batch begins and SQLite starts it again
                    // from the top (module doc). With nothing appended it returns at once.
                    let _writer = lock
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    passive(&c)?;
                    load.held_checkpoints
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Ok(())
                });
                if let Err(e) = done {
                    eprintln!("stockbook: checkpoint: {e}");
                }
            }
        })
        .map_err(|e| format!("cannot start the checkpoint thread: {e}"))?;
    Ok(committed)
}

/// Runs one batch in one transaction on `conn` (the caller holds the write lock), and
/// answers every job once the transaction has ended. How the batch ended goes to `note`
/// (the storage's record, `storage.rs`: its storage fault, or `Ok` when a write was
/// saved; nothing when every job was refused by a rule) BEFORE any job is answered, so
/// that a client who has its answer never reads an older fault from `GET /api/health`.
fn run_batch(conn: &mut Connection, jobs: Vec<Box<dyn Job>>, note: &dyn Fn(&AppResult<()>)) {
    let alone = jobs.len() == 1;
    let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => {
            let e = AppError::from(e);
            note(&Err(e.clone()));
            jobs.into_iter().for_each(|j| j.fail(e.clone()));
            return;
        }
    };
    let mut done: Vec<Box<dyn Done>> = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    let mut lost = false;
    let mut failed_alone = false;
    let mut saved = false;
    let mut storage_fault = None;
    for job in jobs.by_ref() {
        let (d, outcome) = job.run(&tx, alone);
        done.push(d);
        match outcome {
            Outcome::Saved => saved = true,
            Outcome::Refused => {}
            Outcome::Storage(e) => storage_fault = Some(e),
        }
        failed_alone = alone && !saved;
        if tx.is_autocommit() {
            lost = true;
            break;
        }
    }
    let mut unrun = Vec::new();
    let commit = if failed_alone {
        // The one job's error is its answer; its writes go with the transaction.
        tx.rollback().map_err(AppError::from)
    } else if lost {
        // A full disk (say) that took the transaction with it is the answer of every job
        // of the batch, not a bare "retry". Never run outside the transaction: the rest
        // of the batch is answered unrun.
        unrun.extend(jobs);
        // Nothing to roll back; dropping `tx` would try and fail quietly.
        let _ = tx.rollback();
        Err(storage_fault.clone().unwrap_or_else(transaction_lost))
    } else {
        // The batch's audit entries are numbered and chained into the trail in the same
        // transaction, once every job has run (`audit::flush`); if that fails, dropping
        // `tx` rolls the whole batch back and every job gets the error.
        super::audit::flush(&tx)
            .and_then(|()| tx.commit())
            .map_err(AppError::from)
    };
    match (&storage_fault, &commit) {
        (Some(e), _) | (None, Err(e)) => note(&Err(e.clone())),
        (None, Ok(())) if saved && !failed_alone => note(&Ok(())),
        (None, Ok(())) => {}
    }
    if let Err(e) = &commit {
        unrun.into_iter().for_each(|j| j.fail(e.clone()));
    }
    for d in done {
        d.finish(commit.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::{Load, SATURATED_FOR, SATURATED_QUEUE};
    use crate::config::Synchronous;
    use crate::db::Db;
    use crate::error::AppError;

    /// The storage's record of a batch is written before any of its jobs is answered:
    /// a client holding the answer of the write that cleared a full disk never reads the
    /// old fault from `GET /api/health` (seen as a flaky health check under load when the
    /// record came after the answers).
    #[test]
    fn a_batch_is_noted_before_any_of_its_jobs_is_answered() {
        use super::{run_batch, Job, WriteJob};
        use rocket::tokio::sync::oneshot;
        use std::cell::{Cell, RefCell};
        for failing in [false, true] {
            let mut conn = rusqlite::Connection::open_in_memory().unwrap();
            conn.execute_batch("CREATE TABLE t (v INTEGER)").unwrap();
            let (tx1, rx1) = oneshot::channel::<crate::error::AppResult<()>>();
            let (tx2, rx2) = oneshot::channel::<crate::error::AppResult<()>>();
            let (rx1, rx2) = (RefCell::new(rx1), RefCell::new(rx2));
            let write = move |tx: &rusqlite::Transaction| -> crate::error::AppResult<()> {
                if failing {
                    return Err(AppError::Storage {
                        fault: crate::db::StorageFault::Full,
                        cause: "database or disk is full".into(),
                    });
                }
                tx.execute("INSERT INTO t (v) VALUES (1)", [])?;
                Ok(())
            };
            let jobs: Vec<Box<dyn Job>> = vec![
                Box::new(WriteJob {
                    f: write,
                    reply: tx1,
                }),
                Box::new(WriteJob {
                    f: write,
                    reply: tx2,
                }),
            ];
            let noted = Cell::new(false);
            run_batch(&mut conn, jobs, &|end| {
                assert_eq!(end.is_ok(), !failing);
                // No job has its answer yet.
                assert!(rx1.borrow_mut().try_recv().is_err());
                assert!(rx2.borrow_mut().try_recv().is_err());
                noted.set(true);
            });
            assert!(noted.get(), "the batch was noted");
            assert_eq!(rx1.borrow_mut().try_recv().unwrap().is_ok(), !failing);
        }
    }

    #[test]
    fn the_writer_counts_as_saturated_for_a_moment_after_a_queue_of_writes() {
        let load = Load::default();
        assert!(!load.saturated(), "never busy");
        load.note_batch(SATURATED_QUEUE - 1);
        assert!(!load.saturated(), "a short batch is not a queue");
        load.note_batch(SATURATED_QUEUE);
        assert!(load.saturated());
        std::thread::sleep(SATURATED_FOR + std::time::Duration::from_millis(20));
        assert!(!load.saturated(), "it passes once no queue has been seen");
    }

    #[test]
    fn under_a_steady_stream_of_writes_the_log_restarts_instead_of_growing() {
        use std::sync::atomic::Ordering;
        // Other tests of this binary only checkpoint more often for it.
        super::RESTART_ABOVE.store(256, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("stockbook-wal-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wal.db").to_string_lossy().into_owned();
        let db = Db::open(&path, Synchronous::Normal).unwrap();
        db.write_blocking(|tx| Ok(tx.execute_batch("CREATE TABLE t (b BLOB NOT NULL)")?))
            .unwrap();
        // SQLite counts every restart of the log in its header (bytes 12-15, the
        // "checkpoint sequence number" of the WAL file format).
        let restarts = || -> u32 {
            use std::io::Read;
            let mut header = [0u8; 16];
            let read = std::fs::File::open(format!("{path}-wal"))
                .and_then(|mut f| f.read_exact(&mut header));
            match read {
                Ok(()) => u32::from_be_bytes([header[12], header[13], header[14], header[15]]),
                Err(_) => 0,
            }
        };
        let held = || db.writer_load.held_checkpoints.load(Ordering::Relaxed);
        let before = restarts();
        // Commits one after another with no pause, until the checkpoint thread has held
        // the writer off three times. Each of those must be followed by a restart at the
        // next commit (nothing else reads this file), so the log starts again from the
        // top instead of growing for as long as the stream lasts. How many commits that
        // takes depends on the machine (a checkpoint copying 30 MB on a busy disk once
        // took longer than 10,000 commits of two pages; three took 6,680 to 46,100
        // commits while other builds loaded the disk), so the test counts events, not
        // frames; the bounds only stop a broken build from looping or filling the disk.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let mut written = 0;
        while held() < 3 {
            assert!(
                std::time::Instant::now() < deadline && written < 200_000,
                "{written} commits and the checkpoint thread held the writer off {} times",
                held()
            );
            for _ in 0..20 {
                db.write_blocking(|tx| {
                    Ok(tx.execute("INSERT INTO t (b) VALUES (randomblob(1000))", [])?)
                })
                .unwrap();
            }
            written += 20;
        }
        db.write_blocking(|tx| Ok(tx.execute("INSERT INTO t (b) VALUES (x'00')", [])?))
            .unwrap();
        let (held, restarted) = (held(), restarts() - before);
        assert!(
            u64::from(restarted) >= held,
            "the writer was held off {held} times and the log restarted {restarted} times"
        );
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_refused_or_panicking_write_in_a_shared_batch_changes_nothing_and_the_rest_commit() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let rt = rocket::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (answers, kept) = rt.block_on(async {
            db.write(|tx| Ok(tx.execute_batch("CREATE TABLE t (v INTEGER NOT NULL)")?))
                .await
                .unwrap();
            // Sixty writes at once share batches. Each writes its row first; every third
            // is then refused and one panics.
            let writes: Vec<_> = (0..60_i64)
                .map(|i| {
                    let db = db.clone();
                    rocket::tokio::spawn(async move {
                        db.write(move |tx| {
                            tx.execute("INSERT INTO t (v) VALUES (?1)", [i])?;
                            assert!(i != 31, "boom");
                            if i % 3 == 0 {
                                return Err(AppError::conflict("refused"));
                            }
                            Ok(i)
                        })
                        .await
                    })
                })
                .collect();
            let mut answers = Vec::new();
            for w in writes {
                answers.push(w.await.unwrap());
            }
            let kept: Vec<i64> = db
                .read(|c| {
                    let mut s = c.prepare("SELECT v FROM t ORDER BY v")?;
                    let v = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
                    Ok(v)
                })
                .await
                .unwrap();
            (answers, kept)
        });
        let expected: Vec<i64> = (0..60).filter(|i| i % 3 != 0 && *i != 31).collect();
        assert_eq!(kept, expected);
        for (i, a) in (0_i64..).zip(&answers) {
            match a {
                Ok(v) => assert_eq!(*v, i),
                Err(AppError::Conflict(_)) => assert_eq!(i % 3, 0),
                Err(AppError::Internal(m)) => assert!(i == 31 && m.contains("boom"), "{m}"),
                Err(e) => panic!("{i}: {e}"),
            }
        }
        // The writer survived the panic.
        assert!(rt.block_on(db.write(|_| Ok(1))).is_ok());
    }

    #[test]
    fn on_a_file_a_lone_refused_write_changes_nothing_and_commits_are_checkpointed_off_the_writer()
    {
        let dir = std::env::temp_dir().join(format!(
            "stockbook-writer-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.db");
        let db = Db::open(path.to_str().unwrap(), Synchronous::Normal).unwrap();
        let rt = rocket::tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            db.write(|tx| Ok(tx.execute_batch("CREATE TABLE t (v INTEGER NOT NULL)")?))
                .await
                .unwrap();
            // Alone in its batch (nothing else is queued), so it runs without a savepoint:
            // its insert must go with the rolled-back transaction.
            let refused = db
                .write(|tx| {
                    tx.execute("INSERT INTO t (v) VALUES (1)", [])?;
                    Err::<(), _>(AppError::conflict("refused"))
                })
                .await;
            assert!(matches!(refused, Err(AppError::Conflict(_))));
            let panicked = db
                .write(|tx| -> crate::error::AppResult<()> {
                    tx.execute("INSERT INTO t (v) VALUES (2)", [])?;
                    panic!("boom");
                })
                .await;
            assert!(matches!(panicked, Err(AppError::Internal(_))));
            for v in 3..=4_i64 {
                db.write(move |tx| Ok(tx.execute("INSERT INTO t (v) VALUES (?1)", [v])?))
                    .await
                    .unwrap();
            }
            // About 100 pages, far below SQLite's automatic checkpoint (1,000), which the
            // writer's connection has off anyway.
            db.write(|tx| {
                tx.execute_batch(
                    "CREATE TABLE big (b BLOB NOT NULL);
                     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
                     INSERT INTO big SELECT randomblob(1000) FROM n;",
                )?;
                Ok(())
            })
            .await
            .unwrap();
        });
        let kept: Vec<i64> = db
            .read_sync(|c| {
                let mut s = c.prepare("SELECT v FROM t ORDER BY v")?;
                let v = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
                Ok(v)
            })
            .unwrap();
        assert_eq!(kept, [3, 4]);
        // The commits are in the log; the checkpoint thread copies them into the file
        // soon after, with no checkpoint asked for here.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::fs::metadata(&path).unwrap().len() < 400_000 {
            assert!(
                std::time::Instant::now() < deadline,
                "the commits were never checkpointed into the database file"
            );
            std::thread::sleep(super::CHECKPOINT_EVERY);
        }
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn after_a_job_loses_the_transaction_the_rest_of_its_batch_neither_runs_nor_commits() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let rt = rocket::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (answers, kept, ran_after) = rt.block_on(async {
            db.write(|tx| Ok(tx.execute_batch("CREATE TABLE t (v INTEGER NOT NULL)")?))
                .await
                .unwrap();
            // The first write holds the writer thread, so the next three queue up and
            // share one batch, in order.
            let hold = {
                let db = db.clone();
                rocket::tokio::spawn(async move {
                    db.write(|_| {
                        std::thread::sleep(std::time::Duration::from_millis(300));
                        Ok(())
                    })
                    .await
                })
            };
            rocket::tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let ran_after = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let mut writes = Vec::new();
            for i in 0..3_i64 {
                let db = db.clone();
                let ran_after = ran_after.clone();
                writes.push(rocket::tokio::spawn(async move {
                    db.write(move |tx| {
                        tx.execute("INSERT INTO t (v) VALUES (?1)", [i])?;
                        match i {
                            // What SQLITE_FULL or IOERR does: the whole transaction is gone.
                            1 => tx.execute_batch("ROLLBACK")?,
                            2 => ran_after.store(true, std::sync::atomic::Ordering::SeqCst),
                            _ => {}
                        }
                        Ok(i)
                    })
                    .await
                }));
                rocket::tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            hold.await.unwrap().unwrap();
            let mut answers = Vec::new();
            for w in writes {
                answers.push(w.await.unwrap());
            }
            let kept: i64 = db
                .read(|c| Ok(c.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))?))
                .await
                .unwrap();
            (answers, kept, ran_after)
        });
        assert_eq!(kept, 0, "nothing of the batch may commit");
        assert!(
            !ran_after.load(std::sync::atomic::Ordering::SeqCst),
            "the job after the lost transaction must not run"
        );
        for (i, a) in answers.iter().enumerate() {
            assert!(a.is_err(), "write {i} was answered as a success: {a:?}");
        }
        assert!(matches!(answers[2], Err(AppError::Unavailable(_))));
        // The writer carries on with fresh transactions.
        rt.block_on(db.write(|tx| Ok(tx.execute("INSERT INTO t (v) VALUES (9)", [])?)))
            .unwrap();
        let kept: i64 = db
            .read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(kept, 1);
    }

    #[test]
    fn a_full_disk_in_a_shared_batch_answers_its_jobs_as_a_full_disk_and_keeps_none_half_done() {
        use crate::error::StorageFault;
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let rt = rocket::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (answers, kept) = rt.block_on(async {
            db.write(|tx| {
                tx.execute_batch("CREATE TABLE t (v INTEGER NOT NULL, b BLOB)")?;
                // The file may not grow past its present size: a write needing a new
                // page fails with SQLITE_FULL, as on a full disk.
                let pages: i64 = tx.query_row("PRAGMA page_count", [], |r| r.get(0))?;
                tx.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))?;
                Ok(())
            })
            .await
            .unwrap();
            // The first write holds the writer so that the next three share one batch.
            let hold = {
                let db = db.clone();
                rocket::tokio::spawn(async move {
                    db.write(|_| {
                        std::thread::sleep(std::time::Duration::from_millis(300));
                        Ok(())
                    })
                    .await
                })
            };
            rocket::tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let mut writes = Vec::new();
            for i in 0..3_i64 {
                let db = db.clone();
                writes.push(rocket::tokio::spawn(async move {
                    db.write(move |tx| {
                        let blob = if i == 1 { 200_000 } else { 1 };
                        tx.execute("INSERT INTO t (v, b) VALUES (?1, zeroblob(?2))", [i, blob])?;
                        Ok(i)
                    })
                    .await
                }));
                rocket::tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            hold.await.unwrap().unwrap();
            let mut answers = Vec::new();
            for w in writes {
                answers.push(w.await.unwrap());
            }
            let kept: Vec<i64> = db
                .read(|c| {
                    let mut s = c.prepare("SELECT v FROM t ORDER BY v")?;
                    let v = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
                    Ok(v)
                })
                .await
                .unwrap();
            (answers, kept)
        });
        assert!(
            matches!(
                answers[1],
                Err(AppError::Storage {
                    fault: StorageFault::Full,
                    ..
                })
            ),
            "{:?}",
            answers[1]
        );
        // Each other job is saved, or answered as the full disk (never a bare "retry"),
        // and exactly the saved ones are kept.
        let mut saved = Vec::new();
        for (i, a) in (0_i64..).zip(&answers) {
            match a {
                Ok(v) => saved.push(*v),
                Err(AppError::Storage {
                    fault: StorageFault::Full,
                    ..
                }) => {}
                Err(e) => panic!("write {i}: {e:?}"),
            }
        }
        assert_eq!(kept, saved);
        assert_eq!(db.storage_fault(), Some(StorageFault::Full));
    }
}
