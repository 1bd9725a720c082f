//! Benchmark support: start the real `stockbook` binary on a loopback port over a database
//! file, a minimal keep-alive HTTP/1.1 client, seeding helpers, and statistics.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub struct Server {
    pub child: Child,
    pub port: u16,
    pub db_path: PathBuf,
    pub cookie: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp_dir() -> PathBuf {
    std::env::temp_dir().join(format!("stockbook-bench-{}", std::process::id()))
}

/// Removes this run's databases (a 100,000-product database is a few hundred MB).
/// `STOCKBOOK_BENCH_KEEP=1` keeps them, to look into afterwards.
pub fn cleanup() {
    if std::env::var_os("STOCKBOOK_BENCH_KEEP").is_some() {
        eprintln!("kept {}", temp_dir().display());
        return;
    }
    let _ = std::fs::remove_dir_all(temp_dir());
}

pub fn temp_db(name: &str) -> PathBuf {
    let dir = temp_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}.db"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts the release binary over `db` and waits for `/api/health`.
pub fn start(db: &Path, synchronous: &str) -> Server {
    start_with(db, synchronous, &[])
}

/// [`start`] with more settings, as `ROCKET_*` environment variables.
pub fn start_with(db: &Path, synchronous: &str, env: &[(&str, &str)]) -> Server {
    start_binary(
        Path::new(env!("CARGO_BIN_EXE_stockbook")),
        db,
        synchronous,
        env,
    )
}

/// [`start_with`] for another build of the server (an earlier release, to compare with
/// in the same run).
pub fn start_binary(bin: &Path, db: &Path, synchronous: &str, env: &[(&str, &str)]) -> Server {
    let port = free_port();
    let child = Command::new(bin)
        .envs(env.iter().copied())
        .env("ROCKET_DATABASE", db)
        .env("ROCKET_PORT", port.to_string())
        .env("ROCKET_SYNCHRONOUS", synchronous)
        .env("ROCKET_SIGNUP", "open")
        .env("ROCKET_CONFIG", "/nonexistent-bench-Rocket.toml")
        .stdout(Stdio::null())
        .spawn()
        .expect("start stockbook");
    let mut s = Server {
        child,
        port,
        db_path: db.to_owned(),
        cookie: String::new(),
    };
    let t0 = Instant::now();
    loop {
        // A connection refused or reset while the server is still starting is a retry,
        // not a failure.
        if let Ok(mut c) = Conn::open(port) {
            if let Ok((200, _, _)) = c.try_request_full("GET", "/api/health", "", None) {
                break;
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    s.login();
    s
}

impl Server {
    fn login(&mut self) {
        let mut c = Conn::open(self.port).unwrap();
        let creds = json!({"email": "bench@example.com", "password": "bench password"}).to_string();
        let (status, _, headers) = c.request_full("POST", "/api/auth/signup", &creds, None);
        let headers = if status == 201 {
            headers
        } else {
            c.request_full("POST", "/api/auth/login", &creds, None).2
        };
        self.cookie = session_cookie(&headers);
    }

    /// Signs another user up with `body` (an email, a password and, say, an
    /// `invite_token`) and returns a connection that carries their session.
    pub fn sign_up(&self, body: &Value) -> Conn {
        let mut c = Conn::open(self.port).unwrap();
        let (status, b, headers) =
            c.request_full("POST", "/api/auth/signup", &body.to_string(), None);
        assert_eq!(status, 201, "sign-up: {}", String::from_utf8_lossy(&b));
        c.cookie = Some(session_cookie(&headers));
        c
    }

    pub fn conn(&self) -> Conn {
        let mut c = Conn::open(self.port).unwrap();
        c.cookie = Some(self.cookie.clone());
        c
    }

    /// Peak resident set size of the server process so far, in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        s.lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    pub fn user_id(&self) -> String {
        let (_, v) = self.conn().json("GET", "/api/auth/me", "");
        v["data"]["id"].as_str().unwrap().to_owned()
    }
}

/// The session cookie (`name=value`, as sent back) of a sign-up or sign-in answer's
/// headers; the value is case-sensitive, so it is taken as the server wrote it.
fn session_cookie(headers: &str) -> String {
    headers
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .expect("session cookie")
        .split_once(':')
        .unwrap()
        .1
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// One keep-alive HTTP/1.1 connection.
pub struct Conn {
    stream: BufReader<TcpStream>,
    pub cookie: Option<String>,
    pub bearer: Option<String>,
    /// Time from sending the last request to reading its status line.
    pub last_ttfb: Duration,
}

impl Conn {
    pub fn open(port: u16) -> std::io::Result<Self> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        Ok(Self {
            stream: BufReader::new(s),
            cookie: None,
            bearer: None,
            last_ttfb: Duration::ZERO,
        })
    }

    pub fn request(
        &mut self,
        method: &str,
        path: &str,
        body: &str,
        ct: Option<&str>,
    ) -> (u16, Vec<u8>) {
        let (s, b, _) = self.request_full(method, path, body, ct);
        (s, b)
    }

    /// [`Conn::request_full`] that reports a broken connection instead of panicking.
    pub fn try_request_full(
        &mut self,
        method: &str,
        path: &str,
        body: &str,
        _ct: Option<&str>,
    ) -> std::io::Result<(u16, Vec<u8>, String)> {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !body.is_empty() || method != "GET" {
            req.push_str("Content-Type: application/json\r\n");
        }
        if let Some(c) = &self.cookie {
            req.push_str(&format!("Cookie: {c}\r\n"));
        }
        if let Some(b) = &self.bearer {
            req.push_str(&format!("Authorization: Bearer {b}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        self.stream.get_mut().write_all(req.as_bytes())?;
        let sent = Instant::now();
        let mut line = String::new();
        self.stream.read_line(&mut line)?;
        self.last_ttfb = sent.elapsed();
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .unwrap_or("0")
            .parse()
            .unwrap_or(0);
        let mut headers = String::new();
        let mut len = 0usize;
        let mut chunked = false;
        loop {
            let mut h = String::new();
            self.stream.read_line(&mut h)?;
            if h == "\r\n" || h.is_empty() {
                break;
            }
            let lower = h.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
            if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            }
            headers.push_str(&h);
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                self.stream.read_line(&mut size)?;
                let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
                // Straight into the body, then the chunk's closing CRLF.
                let start = body.len();
                body.resize(start + n, 0);
                self.stream.read_exact(&mut body[start..])?;
                let mut crlf = [0_u8; 2];
                self.stream.read_exact(&mut crlf)?;
                if n == 0 {
                    break;
                }
            }
        } else {
            body.resize(len, 0);
            self.stream.read_exact(&mut body)?;
        }
        if status == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "no status line",
            ));
        }
        Ok((status, body, headers))
    }

    pub fn request_full(
        &mut self,
        method: &str,
        path: &str,
        body: &str,
        ct: Option<&str>,
    ) -> (u16, Vec<u8>, String) {
        self.try_request_full(method, path, body, ct)
            .expect("HTTP request")
    }

    pub fn json(&mut self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let (s, b) = self.request(method, path, body, Some("application/json"));
        (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
    }
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// Times `f` `runs` times; returns the median in milliseconds and all samples.
pub fn time_ms(runs: usize, mut f: impl FnMut()) -> (f64, Vec<f64>) {
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f();
        samples.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let mut s = samples.clone();
    (median(&mut s), samples)
}

/// One line describing this machine, for BENCHMARKS.md.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines().next().map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse::<u64>()
                    .unwrap_or(0)
                    / 1024
                    / 1024
            })
        })
        .unwrap_or(0);
    format!("{cpu}, {cores} cores, {mem} GiB RAM")
}

/// Inserts `n` products with stock at each of `locations` directly into the database file
/// (fast seeding; the benchmark measures reads, not the seeding).
pub fn seed_products(db: &Path, owner: &str, entity: &str, locations: &[String], n: usize) {
    let mut c = rusqlite::Connection::open(db).unwrap();
    c.pragma_update(None, "journal_mode", "WAL").unwrap();
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    let tx = c.transaction().unwrap();
    {
        let mut p = tx
            .prepare(
                "INSERT INTO products (id, owner_id, entity_id, name, sku, category, unit_price, cost_price,
                     stock_qty, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            )
            .unwrap();
        let mut s = tx
            .prepare(
                "INSERT INTO warehouse_stock (id, owner_id, entity_id, product_id, location_id, quantity,
                     reorder_point, reserved_quantity, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 2000, 0, '2026-01-01T00:00:00Z')",
            )
            .unwrap();
        let mut m = tx
            .prepare(
                "INSERT INTO stock_movements (id, owner_id, entity_id, product_id, location_id, qty, type,
                     date, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'purchase', '2026-01-01', '2026-01-01T00:00:00Z')",
            )
            .unwrap();
        let categories = ["Hardware", "Garden", "Kitchen", "Office", "Toys"];
        for i in 0..n {
            let pid = uuid::Uuid::new_v4().to_string();
            let qty_each = ((i % 40) as i64 + 1) * 1000;
            p.execute(rusqlite::params![
                pid,
                owner,
                entity,
                format!(
                    "Product {i:06} {}",
                    ["bolt", "hinge", "kettle", "stapler", "kite"][i % 5]
                ),
                format!("BENCH-{i:06}"),
                categories[i % 5],
                (i as i64 % 900 + 100) * 100 + 9999,
                (i as i64 % 500 + 50) * 100,
                qty_each * locations.len() as i64
            ])
            .unwrap();
            for l in locations {
                s.execute(rusqlite::params![
                    uuid::Uuid::new_v4().to_string(),
                    owner,
                    entity,
                    pid,
                    l,
                    qty_each
                ])
                .unwrap();
                m.execute(rusqlite::params![
                    uuid::Uuid::new_v4().to_string(),
                    owner,
                    entity,
                    pid,
                    l,
                    qty_each
                ])
                .unwrap();
            }
        }
    }
    tx.commit().unwrap();
    // A database this size has long been checkpointed in real use; without this the
    // seeding leaves a write-ahead log of hundreds of MB that every read must search.
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}
