//! `stockbook backup PATH`: a consistent copy of the database while the server runs, with
//! SQLite's online backup API. The copy is written beside `PATH` under a temporary name and
//! renamed into place only once it is complete and passes `PRAGMA quick_check`, so a failed
//! or interrupted backup never leaves a torn file at `PATH` (nor destroys an older backup
//! there).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

/// What a finished backup wrote.
#[derive(Debug)]
pub struct Report {
    pub path: PathBuf,
    pub bytes: u64,
    pub pages: i32,
    pub elapsed: Duration,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrote {} ({} bytes, {} pages) in {} ms",
            self.path.display(),
            self.bytes,
            self.pages,
            self.elapsed.as_millis()
        )
    }
}

/// Copies the database at `source` to `dest`. Refuses to replace an existing `dest` unless
/// `force`. The copy is taken in one read transaction of the source (all pages in one
/// step), so it is exactly the database as of one commit, whatever the server writes
/// meanwhile: in WAL mode the server's writers are not blocked by it.
pub fn run(source: &str, dest: &Path, force: bool) -> Result<Report, String> {
    let started = Instant::now();
    if source == ":memory:" {
        return Err("the configured database is `:memory:`: there is nothing to back up".into());
    }
    if !Path::new(source).is_file() {
        return Err(format!("no database at `{source}`"));
    }
    if dest.exists() && !force {
        return Err(format!(
            "`{}` already exists; pass --force to replace it",
            dest.display()
        ));
    }
    if dest.is_dir() {
        return Err(format!(
            "`{}` is a directory; give a file name",
            dest.display()
        ));
    }
    let partial = partial_path(dest);
    let result = copy(source, &partial).and_then(|pages| {
        replace(&partial, dest)?;
        Ok(pages)
    });
    let pages = match result {
        Ok(pages) => pages,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    let bytes = std::fs::metadata(dest).map(|m| m.len()).unwrap_or(0);
    Ok(Report {
        path: dest.to_owned(),
        bytes,
        pages,
        elapsed: started.elapsed(),
    })
}

fn partial_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "backup".into());
    dest.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Writes the backup to `partial` and checks it; answers the number of pages copied.
fn copy(source: &str, partial: &Path) -> Result<i32, String> {
    let src = Connection::open_with_flags(
        source,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("cannot open `{source}`: {e}"))?;
    src.busy_timeout(Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(partial);
    let mut dst = Connection::open(partial)
        .map_err(|e| format!("cannot create `{}`: {e}", partial.display()))?;
    let pages = {
        let backup = Backup::new(&src, &mut dst).map_err(|e| format!("backup: {e}"))?;
        // -1: every page in one step, inside one read transaction of the source. Copying
        // in smaller steps would restart from the first page whenever the server commits
        // in between, and might never finish under a steady write load.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match backup.step(-1).map_err(|e| format!("backup: {e}"))? {
                StepResult::Done => break,
                StepResult::More => continue,
                StepResult::Busy | StepResult::Locked => {
                    if Instant::now() > deadline {
                        return Err("backup: the database stayed locked for 60 s".into());
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                _ => continue,
            }
        }
        backup.progress().pagecount
    };
    // A standalone file: no WAL to carry around with it.
    dst.pragma_update(None, "journal_mode", "DELETE")
        .map_err(|e| format!("backup: {e}"))?;
    let verdict: String = dst
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| format!("backup: checking the copy: {e}"))?;
    if verdict != "ok" {
        return Err(format!(
            "backup: the copy fails SQLite's quick_check: {verdict}"
        ));
    }
    drop(dst);
    std::fs::File::open(partial)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("backup: syncing `{}`: {e}", partial.display()))?;
    Ok(pages)
}

/// Moves the finished copy to `dest`. A `-wal` or `-shm` file left beside `dest` belongs
/// to the file being replaced: SQLite would apply it to the new one, so it goes first.
fn replace(partial: &Path, dest: &Path) -> Result<(), String> {
    for suffix in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", dest.display()));
        if side.exists() {
            std::fs::remove_file(&side)
                .map_err(|e| format!("cannot remove `{}`: {e}", side.display()))?;
        }
    }
    std::fs::rename(partial, dest).map_err(|e| {
        format!(
            "cannot move the backup into place at `{}`: {e}",
            dest.display()
        )
    })
}
