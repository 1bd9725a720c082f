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
        None => serve(figment, true),
        Some(Command::Serve) => serve(figment, false),
        Some(Command::Backup { path, force }) => {
            match stockbook::ops::backup::run(&config.database, &path, force) {
                Ok(report) => {
                    println!("stockbook backup: {report}");
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
fn serve(figment: rocket::figment::Figment, bare: bool) -> ExitCode {
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
