//! Storage faults (docs/operations.md#storage-faults): what the server knows about the
//! disk under its database, and the checks before it opens the file.
//!
//! - A full disk, a read-only file, an I/O error: the write fails, its answer is a 503
//!   that says so ([`StorageFault`]), and the fault is logged once when it starts and
//!   once when a later write is saved again, not once per request. `GET /api/health`
//!   reads it from here.
//! - The file deleted or replaced while the server runs: the writer (before each batch)
//!   and the checkpoint thread compare the identity of the file opened at start (device
//!   and inode on unix) with what the path names now. From the first difference on,
//!   every write is refused and the server writes a rescue copy of the data it still
//!   holds open beside the path (docs/operations.md#a-deleted-or-replaced-file).
//! - At start, [`before_open`] refuses what would lose data or fail every write later:
//!   a file it cannot write, a missing file whose write-ahead log is still there, a
//!   missing file when `create_database = false`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rusqlite::Connection;

use crate::error::{AppError, AppResult, StorageFault};

/// The identity of a file: device and inode on unix. Elsewhere only whether it exists
/// (Windows does not let an open database file be deleted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId(u64, u64);

#[cfg(unix)]
pub fn file_id(path: &Path) -> std::io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok(FileId(m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub fn file_id(path: &Path) -> std::io::Result<FileId> {
    std::fs::metadata(path).map(|_| FileId(0, 0))
}

/// The storage state of one open database.
pub struct Storage {
    /// The configured path; empty for `:memory:`.
    path: String,
    read_only: bool,
    /// The file opened at start.
    opened: Option<FileId>,
    /// The fault of the last failed write, until a write is saved again.
    fault: Mutex<Option<StorageFault>>,
    /// The file was deleted or replaced: for good, until a restart.
    replaced: AtomicBool,
    /// Where the rescue copy went, or why it could not be written.
    rescue: Mutex<Option<String>>,
    /// The lines logged, for the tests of "logged once".
    #[cfg(test)]
    pub(super) logged: Mutex<Vec<String>>,
}

impl Storage {
    pub fn new(path: &str, read_only: bool, opened: Option<FileId>) -> Self {
        Self {
            path: path.to_owned(),
            read_only,
            opened,
            fault: Mutex::new(None),
            replaced: AtomicBool::new(false),
            rescue: Mutex::new(None),
            #[cfg(test)]
            logged: Mutex::new(Vec::new()),
        }
    }

    fn log(&self, line: String) {
        eprintln!("stockbook: {line}");
        #[cfg(test)]
        self.logged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(line);
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Why writes are not being saved now, if they are not: the file replaced, then the
    /// last write's fault, then the setting.
    pub fn current(&self) -> Option<StorageFault> {
        if self.replaced.load(Ordering::SeqCst) {
            return Some(StorageFault::Replaced);
        }
        let fault = *self
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        fault.or(self.read_only.then_some(StorageFault::ServedReadOnly))
    }

    /// Where the rescue copy of a deleted or replaced file went (or why it could not be
    /// written).
    pub fn rescue(&self) -> Option<String> {
        self.rescue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Refuses a write before it starts when none can be saved: served read-only, or
    /// the file is gone.
    pub fn refuse_writes(&self) -> AppResult<()> {
        let fault = if self.replaced.load(Ordering::SeqCst) {
            StorageFault::Replaced
        } else if self.read_only {
            StorageFault::ServedReadOnly
        } else {
            return Ok(());
        };
        Err(AppError::Storage {
            fault,
            cause: String::new(),
        })
    }

    /// Notes how a write (or, `wrote` false, a read) ended: a storage fault starts (logged
    /// once), or a saved write ends the one before (logged once).
    pub fn note<T>(&self, result: &AppResult<T>, wrote: bool) {
        let mut fault = self
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match result {
            Err(AppError::Storage { fault: f, cause }) => {
                if matches!(f, StorageFault::ServedReadOnly | StorageFault::Replaced) {
                    return;
                }
                if *fault != Some(*f) {
                    *fault = Some(*f);
                    self.log(format!(
                        "storage fault: {} ({cause}). Requests that write answer 503 until it is fixed; logged once.",
                        f.message()
                    ));
                }
            }
            Ok(_) if wrote => {
                if let Some(f) = fault.take() {
                    self.log(format!(
                        "storage fault cleared: writes are saved again ({:?} before)",
                        f
                    ));
                }
            }
            _ => {}
        }
    }

    /// Whether the path still names the file opened at start. On the first difference
    /// (deleted, replaced, unreadable), writes stop for good, it is logged, and a rescue
    /// copy of the data `conn` still reads is written (module doc).
    pub fn still_there(&self, conn: &Connection) -> bool {
        let Some(opened) = self.opened else {
            return true;
        };
        if self.replaced.load(Ordering::SeqCst) {
            return false;
        }
        let what = match file_id(Path::new(&self.path)) {
            Ok(now) if now == opened => return true,
            Ok(_) => "replaced by another file".to_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "deleted".to_owned(),
            Err(e) => format!("unreadable ({e})"),
        };
        if self.replaced.swap(true, Ordering::SeqCst) {
            return false;
        }
        let rescue = match rescue_copy(conn, &self.path) {
            Ok(to) => format!(
                "its data as of the last saved write is in `{}` (restore it with docs/operations.md#restore)",
                to.display()
            ),
            Err(e) => format!(
                "a rescue copy could not be written ({e}); keep the server running and see docs/operations.md#a-deleted-or-replaced-file"
            ),
        };
        self.log(format!(
            "the database file `{}` was {what} while the server ran: writes are refused from now on (503); {rescue}",
            self.path
        ));
        *self
            .rescue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(rescue);
        false
    }
}

/// Writes the database `conn` reads (the file opened at start, even if unlinked since)
/// to `<path>.rescued-<seconds since 1970>` beside the path, or in the system's
/// temporary folder when the path's folder is gone (a pulled drive: the working
/// directory may have gone with it, and a copy must never land inside a checkout).
fn rescue_copy(conn: &Connection, path: &str) -> Result<PathBuf, String> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let beside = PathBuf::from(format!("{path}.rescued-{secs}"));
    let name = std::env::temp_dir().join(
        beside
            .file_name()
            .map_or_else(|| PathBuf::from("stockbook.db.rescued"), PathBuf::from),
    );
    let mut errors = Vec::new();
    for to in [beside, name] {
        // Written under another name and renamed once whole, so that a file named
        // `.rescued-` is never a half-written copy.
        let mut partial = to.clone().into_os_string();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let copied = conn
            .backup(rusqlite::MAIN_DB, &partial, None)
            .map_err(|e| e.to_string())
            .and_then(|()| std::fs::rename(&partial, &to).map_err(|e| e.to_string()));
        match copied {
            Ok(()) => return Ok(to),
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                errors.push(format!("`{}`: {e}", to.display()));
            }
        }
    }
    Err(errors.join("; "))
}

/// The database's write-ahead log beside `path`.
pub fn wal_path(path: &str) -> PathBuf {
    PathBuf::from(format!("{path}-wal"))
}

/// The checks before a database file is opened (module doc); the error is the whole
/// message the server stops with.
pub fn before_open(path: &str, read_only: bool, create: bool) -> Result<(), String> {
    let file = Path::new(path);
    let wal = wal_path(path);
    if !file.exists() {
        if wal.exists() {
            return Err(format!(
                "no database at `{path}`, but its write-ahead log `{}` is there: the file was moved or deleted, and a new empty database would hide what the log holds. Put the file back (or restore a backup, docs/operations.md#restore); remove the log only to start afresh on purpose",
                wal.display()
            ));
        }
        if read_only {
            return Err(format!(
                "no database at `{path}` to serve read-only (`read_only = true`)"
            ));
        }
        if !create {
            return Err(format!(
                "no database at `{path}`, and `create_database = false` says it must exist: check the path (a drive not mounted?)"
            ));
        }
        return Ok(());
    }
    if read_only {
        return Ok(());
    }
    let unwritable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().readonly());
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    let why = if unwritable(file) {
        Some(format!("the file `{path}` is read-only"))
    } else if wal.exists() && unwritable(&wal) {
        Some(format!(
            "its write-ahead log `{}` is read-only",
            wal.display()
        ))
    } else if !wal.exists() && unwritable(dir) {
        Some(format!(
            "its folder `{}` is read-only, so SQLite cannot create the write-ahead log beside it",
            dir.display()
        ))
    } else {
        None
    };
    match why {
        Some(why) => Err(read_only_refusal(path, &why)),
        None => Ok(()),
    }
}

/// The message of a start refused because the database cannot be written.
pub fn read_only_refusal(path: &str, why: &str) -> String {
    format!(
        "cannot write the database `{path}`: {why}. Make it writable, or set `read_only = true` to serve it read-only (docs/operations.md#serving-read-only)"
    )
}
