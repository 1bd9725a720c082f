//! The `stockbook` binary: read the configuration, open and migrate the database, serve.

#[rocket::main]
async fn main() {
    let figment = stockbook::config::figment();
    let app = match stockbook::App::from_figment(&figment) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("stockbook: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = stockbook::build_rocket(figment, app).launch().await {
        eprintln!("stockbook: {e}");
        std::process::exit(1);
    }
}
