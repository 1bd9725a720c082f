//! The `stockbook` binary: parse the command line, read the configuration, then serve, back
//! up or check the database (docs/operations.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Inventory and small-business accounting, in one program and one SQLite file.
///
/// Every command reads the same configuration as the server: `Rocket.toml` in the working
/// directory and `ROCKET_*` variables (`ROCKET_DATABASE=/srv/shop.db`, ...).
#[derive(Parser)]
#[command(name = "stockbook", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (what `stockbook` alone does).
    Serve,
    /// Write a consistent copy of the database to PATH, even while the server runs.
    Backup {
        /// The file to write.
        path: PathBuf,
        /// Replace PATH if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Check the database: SQLite's integrity and foreign-key checks and the ledger's
    /// invariants. Exits 1 naming every breach, 0 when the file is sound.
    Check,
}

fn main() -> ExitCode {
    // clap prints a one-line error and the usage, and exits 2, on bad arguments.
    let cli = Cli::parse();
    let figment = stockbook::config::figment();
    let config = match stockbook::config::AppConfig::from_figment(&figment) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("stockbook: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        None => serve(figment, config.max_connections, true),
        Some(Command::Serve) => serve(figment, config.max_connections, false),
        Some(Command::Backup { path, force }) => {
            match stockbook::ops::backup::run(&config.database, &path, force) {
                Ok(report) => {
                    println!("stockbook backup: {report}");
                    let key = stockbook::db::secrets::key_file(&config.database);
                    if key.exists() {
                        println!(
                            "stockbook backup: the copy holds no key: keep {} apart from \
                             it (docs/operations.md#the-key-file)",
                            key.display()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("stockbook backup: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Check) => check(&config.database, config.allow_negative_stock),
    }
}

fn check(database: &str, allow_negative: bool) -> ExitCode {
    let result = stockbook::ops::check::open(database)
        .and_then(|conn| stockbook::ops::check::breaches(&conn, allow_negative));
    match result {
        Ok(found) if found.is_empty() => {
            println!("stockbook check: {database} is sound");
            ExitCode::SUCCESS
        }
        Ok(found) => {
            for breach in &found {
                println!("{breach}");
            }
            eprintln!(
                "stockbook check: {} breach{} in {database}",
                found.len(),
                if found.len() == 1 { "" } else { "es" }
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("stockbook check: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs the server until SIGTERM, SIGINT or Ctrl+C: Rocket then stops taking connections
/// and lets requests in flight finish (their writes commit); the write-ahead log is then
/// checkpointed into the database file and the process exits 0.
fn serve(figment: rocket::figment::Figment, max_connections: usize, bare: bool) -> ExitCode {
    let figment = match connections_within_open_files(max_connections) {
        Some(fitted) => figment.merge(("max_connections", fitted)),
        None => figment,
    };
    rocket::execute(async move {
        let mut app = match stockbook::App::from_figment(&figment) {
            Ok(app) => app,
            Err(e) => {
                eprintln!("stockbook: {e}");
                return ExitCode::from(2);
            }
        };
        // A server that cannot write has no deliveries to record.
        app.webhook_worker = !app.config.read_only;
        let rocket = stockbook::build_rocket(figment, app);
        let rocket = if bare { open_browser(rocket) } else { rocket };
        match rocket.launch().await {
            Ok(rocket) => {
                if let Some(db) = rocket.state::<stockbook::db::Db>() {
                    if let Some(rescue) = db.rescue() {
                        eprintln!(
                            "stockbook: the database file was deleted or replaced while the server ran: {rescue}"
                        );
                    } else if !db.is_in_memory() && !db.is_read_only() {
                        let done = db.conn().map_err(|e| e.to_string()).and_then(|c| {
                            stockbook::ops::checkpoint(&c).map_err(|e| e.to_string())
                        });
                        if let Err(e) = done {
                            eprintln!("stockbook: checkpoint at shutdown: {e}");
                        }
                    }
                }
                println!("Stockbook stopped");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("stockbook: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Open files the server keeps for itself besides its connections: the database, its log
/// and shared-memory files for each pooled connection, outgoing calls, the backup.
const FILES_KEPT: u64 = 128;

/// Raises the open-file limit so that `max_connections` fit, and lowers `max_connections`
/// (the answer, when it must) where the system allows fewer
/// (docs/operations.md#connections). Each change is printed once.
fn connections_within_open_files(max_connections: usize) -> Option<usize> {
    let files = open_file_limit::raise()?;
    let fit = usize::try_from(files.saturating_sub(FILES_KEPT).max(16)).unwrap_or(usize::MAX);
    (fit < max_connections).then(|| {
        eprintln!(
            "stockbook: serving at most {fit} connections at once, not max_connections = \
             {max_connections}: the system allows this process {files} open files"
        );
        fit
    })
}

#[cfg(unix)]
mod open_file_limit {
    use rustix::process::{getrlimit, setrlimit, Resource};

    /// The highest soft limit asked for: enough for any shop, and what most systems allow.
    const CAP: u64 = 65_536;

    /// Raises the soft open-file limit towards the hard one (at most [`CAP`]); the limit in
    /// force afterwards, `None` when unlimited.
    pub fn raise() -> Option<u64> {
        let mut limit = getrlimit(Resource::Nofile);
        let current = limit.current?;
        let wanted = limit.maximum.map_or(CAP, |hard| hard.min(CAP));
        if wanted <= current {
            return Some(current);
        }
        limit.current = Some(wanted);
        match setrlimit(Resource::Nofile, limit) {
            Ok(()) => {
                println!("Stockbook: open-file limit raised from {current} to {wanted}");
                Some(wanted)
            }
            Err(e) => {
                eprintln!(
                    "stockbook: open-file limit stays {current}: raising it to {wanted}: {e}"
                );
                Some(current)
            }
        }
    }
}

/// Elsewhere (Windows) the system has no such per-process limit to raise.
#[cfg(not(unix))]
mod open_file_limit {
    pub fn raise() -> Option<u64> {
        None
    }
}

/// On Windows, `stockbook.exe` started with no command (a double-click) opens the web app
/// in the default browser once the server listens. `stockbook serve` never does.
#[cfg(windows)]
fn open_browser(rocket: rocket::Rocket<rocket::Build>) -> rocket::Rocket<rocket::Build> {
    rocket.attach(rocket::fairing::AdHoc::on_liftoff(
        "open the browser",
        |rocket| {
            Box::pin(async move {
                let c = rocket.config();
                let host = if c.address.is_unspecified() {
                    "127.0.0.1".to_owned()
                } else {
                    c.address.to_string()
                };
                let url = format!("http://{host}:{}/", c.port);
                let _ = std::process::Command::new("rundll32")
                    .args(["url.dll,FileProtocolHandler", &url])
                    .spawn();
            })
        },
    ))
}

#[cfg(not(windows))]
fn open_browser(rocket: rocket::Rocket<rocket::Build>) -> rocket::Rocket<rocket::Build> {
    rocket
}
