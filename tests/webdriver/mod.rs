//! A minimal W3C WebDriver client over `std::net::TcpStream` and `serde_json`, and the
//! harness the browser tests share: the real `stockbook` binary on a free loopback port
//! with a fresh database file, `chromedriver` on another, and one headless Chromium
//! session. Everything is torn down when the [`Browser`] is dropped, also when a test
//! fails.
//!
//! No WebDriver crate: the few commands needed (navigate, find, click, type, run a
//! script, screenshot) are plain JSON over HTTP/1.1, and every maintained crate is async
//! (tokio) or pulls a large HTTP stack for that. Twenty lines of HTTP keep the test
//! dependencies at zero.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How long a page may take to show what a test waits for. Only a bound: a test that
/// passes never waits it out, and two Chromiums at once on a loaded 2-core machine have
/// taken more than 10 s to show a dialog.
const UI_WAIT: Duration = Duration::from_secs(30);

/// The browser tests run one at a time: the machine may have two cores, and one Chromium
/// at a time keeps every test's timing honest.
static SERIAL: Mutex<()> = Mutex::new(());

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// One HTTP/1.1 request with `Connection: close`; returns status and JSON body.
pub fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).ok();
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nAccept: application/json\r\n"
    );
    if body.is_some() {
        req.push_str("Content-Type: application/json; charset=utf-8\r\n");
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n", payload.len()));
    s.write_all(req.as_bytes()).expect("write request");
    s.write_all(payload.as_bytes()).expect("write body");
    // chromedriver answers `Connection: close` and keeps the socket open anyway, so the
    // body is read by its length, never to the end of the stream.
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let split = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut buf).expect("read response head");
        assert!(n > 0, "connection closed before the response head");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status code");
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < len {
            let n = s.read(&mut buf).expect("read response body");
            if n == 0 {
                break;
            }
            body.extend_from_slice(&buf[..n]);
        }
        body.truncate(len);
    } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        while !body.ends_with(b"0\r\n\r\n") {
            let n = s.read(&mut buf).expect("read chunked body");
            if n == 0 {
                break;
            }
            body.extend_from_slice(&buf[..n]);
        }
        body = dechunk(&body);
    } else {
        s.read_to_end(&mut body).expect("read response body");
    }
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into()));
    (status, v)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = b.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&b[..end])
                .split(';')
                .next()
                .unwrap_or("0")
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 || end + 4 + size > b.len() {
            break;
        }
        out.extend_from_slice(&b[end + 2..end + 2 + size]);
        b = &b[end + 2 + size + 2..];
    }
    out
}

fn find_program(env: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        let p = PathBuf::from(p);
        return p.exists().then_some(p);
    }
    for c in candidates {
        let p = Path::new(c);
        if p.is_absolute() {
            if p.exists() {
                return Some(p.to_path_buf());
            }
        } else if let Some(paths) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&paths) {
                let full = dir.join(c);
                if full.exists() {
                    return Some(full);
                }
            }
        }
    }
    None
}

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A running browser session against a running Stockbook server.
pub struct Browser {
    pub base: String,
    pub server_port: u16,
    driver_port: u16,
    session: String,
    pub downloads: PathBuf,
    dir: PathBuf,
    // Field order is drop order after `Drop::drop`: the driver goes before the server.
    driver: Proc,
    server: Proc,
    _serial: MutexGuard<'static, ()>,
}

/// Extra server settings, as `ROCKET_<KEY>` variables.
#[derive(Default)]
pub struct Options {
    pub env: Vec<(&'static str, String)>,
}

impl Browser {
    /// Starts everything, or returns `None` (with a message) when Chromium or
    /// chromedriver is missing on a developer machine. Under `CI=true` that is a failure.
    pub fn start() -> Option<Self> {
        Self::start_with(Options::default())
    }

    pub fn start_with(opts: Options) -> Option<Self> {
        let chromium = find_program(
            "STOCKBOOK_CHROMIUM",
            &["/usr/bin/chromium", "chromium", "chromium-browser"],
        );
        let driver = find_program(
            "STOCKBOOK_CHROMEDRIVER",
            &["/usr/bin/chromedriver", "chromedriver"],
        );
        let (Some(chromium), Some(driver_bin)) = (chromium, driver) else {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            let msg = "browser tests need Chromium and chromedriver \
                       (Debian: apt-get install chromium chromium-driver; \
                       or set STOCKBOOK_CHROMIUM and STOCKBOOK_CHROMEDRIVER)";
            assert!(!ci, "{msg}: missing under CI");
            // Straight to the terminal (the test harness captures `eprintln!`), once.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                let _ = writeln!(std::io::stderr(), "\nSKIPPED browser tests: {msg}\n");
            });
            return None;
        };
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());

        let dir = std::env::temp_dir().join(format!(
            "stockbook-browser-{}-{}",
            std::process::id(),
            free_port()
        ));
        let downloads = dir.join("downloads");
        let profile = dir.join("profile");
        std::fs::create_dir_all(&downloads).expect("temp dir");
        std::fs::create_dir_all(&profile).expect("profile dir");

        // The server: the real binary, a database file of its own, open sign-up.
        let server_port = free_port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stockbook"));
        cmd.current_dir(&dir)
            .env("ROCKET_ADDRESS", "127.0.0.1")
            .env("ROCKET_PORT", server_port.to_string())
            .env("ROCKET_DATABASE", dir.join("stockbook.db"))
            .env("ROCKET_SIGNUP", "open")
            .env("ROCKET_LOG_LEVEL", "off")
            .env("ROCKET_SYNCHRONOUS", "normal")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (k, v) in &opts.env {
            cmd.env(format!("ROCKET_{k}"), v);
        }
        let server = Proc(cmd.spawn().expect("start the stockbook binary"));
        wait_until("the server to answer", Duration::from_secs(30), || {
            TcpStream::connect(("127.0.0.1", server_port)).is_ok()
                && http(server_port, "GET", "/api/health", None).0 == 200
        });

        let driver_port = free_port();
        let driver = Proc(
            Command::new(&driver_bin)
                .arg(format!("--port={driver_port}"))
                // British dates in date inputs, as a UK user sees them.
                .env("LANGUAGE", "en_GB")
                .env("LANG", "en_GB.UTF-8")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start chromedriver"),
        );
        wait_until("chromedriver to answer", Duration::from_secs(30), || {
            TcpStream::connect(("127.0.0.1", driver_port)).is_ok()
                && http(driver_port, "GET", "/status", None).1["value"]["ready"] == json!(true)
        });

        let caps = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "unhandledPromptBehavior": "accept",
                    "goog:chromeOptions": {
                        "binary": chromium.to_string_lossy(),
                        "args": [
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-dev-shm-usage",
                            "--disable-background-networking",
                            "--disable-component-update",
                            "--disable-sync",
                            "--no-first-run",
                            "--window-size=1280,900",
                            "--lang=en-GB",
                            format!("--user-data-dir={}", profile.display()),
                        ],
                        "prefs": {
                            "download.default_directory": downloads.to_string_lossy(),
                            "download.prompt_for_download": false,
                            "intl.accept_languages": "en-GB",
                        },
                    },
                },
            },
        });
        let (status, v) = http(driver_port, "POST", "/session", Some(&caps));
        assert_eq!(status, 200, "new session: {v}");
        let session = v["value"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_owned();
        let b = Browser {
            base: format!("http://127.0.0.1:{server_port}"),
            server_port,
            driver_port,
            session,
            downloads,
            dir,
            driver,
            server,
            _serial: serial,
        };
        // Downloads land in our directory without asking (headless Chromium needs the
        // DevTools command as well as the preference).
        b.cmd(
            "POST",
            "/goog/cdp/execute",
            json!({"cmd": "Browser.setDownloadBehavior", "params": {
                "behavior": "allow", "downloadPath": b.downloads.to_string_lossy(), "eventsEnabled": true}}),
        );
        Some(b)
    }

    /// A WebDriver command on this session; panics with the driver's message on error.
    pub fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if method == "GET" || method == "DELETE" {
            None
        } else {
            Some(&body)
        };
        let (status, v) = http(
            self.driver_port,
            method,
            &format!("/session/{}{path}", self.session),
            body,
        );
        assert!(
            status == 200,
            "webdriver {method} {path}: {status} {}",
            v["value"]
        );
        v["value"].clone()
    }

    fn try_cmd(&self, method: &str, path: &str, body: Value) -> Result<Value, String> {
        let (status, v) = http(
            self.driver_port,
            method,
            &format!("/session/{}{path}", self.session),
            Some(&body),
        );
        if status == 200 {
            Ok(v["value"].clone())
        } else {
            Err(format!("{status} {}", v["value"]))
        }
    }

    pub fn goto(&self, path: &str) {
        self.cmd(
            "POST",
            "/url",
            json!({ "url": format!("{}{path}", self.base) }),
        );
    }

    /// Runs JavaScript in the page and returns its result.
    pub fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": args }),
        )
    }

    /// Runs an async function body in the page (`return await ...` works) and returns its
    /// result. Used to call the session API with the browser's own cookie.
    pub fn js_async(&self, body: &str, args: Value) -> Value {
        let script = format!(
            "const done = arguments[arguments.length - 1];\
             (async (...args) => {{ {body} }})(...Array.from(arguments).slice(0, -1))\
               .then(done, (e) => done({{ __error: String(e && e.stack || e) }}));"
        );
        let v = self.cmd(
            "POST",
            "/execute/async",
            json!({ "script": script, "args": args }),
        );
        assert!(
            v.get("__error").is_none(),
            "script failed: {}",
            v["__error"]
        );
        v
    }

    /// `fetch` of the session API from the page; returns `{status, body}`.
    pub fn api(&self, method: &str, path: &str, body: Value) -> Value {
        self.js_async(
            "const [method, path, body] = args;\
             const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };\
             if (method !== 'GET') { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }\
             const r = await fetch(path, init);\
             const text = await r.text();\
             let parsed; try { parsed = JSON.parse(text); } catch { parsed = text; }\
             return { status: r.status, body: parsed };",
            json!([method, path, body]),
        )
    }

    /// The data of a successful API call; panics with the server's message otherwise.
    pub fn api_ok(&self, method: &str, path: &str, body: Value) -> Value {
        let r = self.api(method, path, body);
        let status = r["status"].as_u64().unwrap_or(0);
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {}",
            r["body"]
        );
        r["body"]["data"].clone()
    }

    pub fn find(&self, css: &str) -> Option<String> {
        self.try_cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        )
        .ok()
        .and_then(|v| v[ELEMENT].as_str().map(str::to_owned))
    }

    pub fn find_all(&self, css: &str) -> Vec<String> {
        self.cmd(
            "POST",
            "/elements",
            json!({"using": "css selector", "value": css}),
        )
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e[ELEMENT].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
    }

    /// Waits for a visible element matching `css`.
    pub fn wait(&self, css: &str) -> String {
        let mut found = None;
        wait_until(&format!("`{css}` to show"), UI_WAIT, || {
            found = self.find(css).filter(|e| self.displayed(e));
            found.is_some()
        });
        found.unwrap()
    }

    /// Waits until the text of the first element matching `css` contains `text`.
    pub fn wait_text(&self, css: &str, text: &str) -> String {
        let mut last = String::new();
        let mut found = None;
        let ok = poll(UI_WAIT, || {
            if let Some(e) = self.find(css) {
                last = self.text(&e);
                if last.contains(text) {
                    found = Some(e);
                    return true;
                }
            }
            false
        });
        assert!(
            ok,
            "waited for `{css}` to contain {text:?}; it shows {last:?}"
        );
        found.unwrap()
    }

    /// Waits until the page's visible text contains `text`.
    pub fn wait_page_text(&self, text: &str) {
        let mut last = String::new();
        let ok = poll(UI_WAIT, || {
            last = self
                .js("return document.body.innerText", json!([]))
                .as_str()
                .unwrap_or("")
                .to_owned();
            last.contains(text)
        });
        assert!(
            ok,
            "waited for the page to show {text:?}; it shows:\n{last}"
        );
    }

    /// Reloads the page (a new hash alone does not).
    pub fn reload(&self) {
        self.cmd("POST", "/refresh", json!({}));
    }

    /// Waits until exactly `n` elements match `css`.
    pub fn wait_count(&self, css: &str, n: usize) {
        let mut last = 0;
        let ok = poll(UI_WAIT, || {
            last = self.find_all(css).len();
            last == n
        });
        assert!(ok, "waited for {n} of `{css}`; there are {last}");
    }

    pub fn displayed(&self, el: &str) -> bool {
        self.try_cmd("GET", &format!("/element/{el}/displayed"), json!({}))
            .map(|v| v == json!(true))
            .unwrap_or(false)
    }

    pub fn text(&self, el: &str) -> String {
        self.try_cmd("GET", &format!("/element/{el}/text"), json!({}))
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    pub fn prop(&self, el: &str, name: &str) -> Value {
        self.cmd("GET", &format!("/element/{el}/property/{name}"), json!({}))
    }

    pub fn click(&self, css: &str) {
        let el = self.wait(css);
        self.click_el(&el);
    }

    pub fn click_el(&self, el: &str) {
        self.cmd("POST", &format!("/element/{el}/click"), json!({}));
    }

    /// Clicks the first visible button or link whose text is `label`, inside `scope`.
    pub fn click_button(&self, scope: &str, label: &str) {
        let mut target = None;
        wait_until(&format!("a button {label:?} in `{scope}`"), UI_WAIT, || {
            target = self
                    .js(
                        "const [scope, label] = arguments;\
                         for (const root of document.querySelectorAll(scope)) {\
                           for (const b of root.querySelectorAll('button, a')) {\
                             if (b.textContent.trim() === label && b.offsetParent !== null && !b.disabled) return b;\
                           }\
                         }\
                         return null;",
                        json!([scope, label]),
                    )
                    .get(ELEMENT)
                    .and_then(|v| v.as_str().map(str::to_owned));
            target.is_some()
        });
        self.click_el(&target.unwrap());
    }

    /// Types into the control: clears it first.
    pub fn type_into(&self, css: &str, text: &str) {
        let el = self.wait(css);
        self.cmd("POST", &format!("/element/{el}/clear"), json!({}));
        self.keys(&el, text);
    }

    pub fn keys(&self, el: &str, text: &str) {
        self.cmd(
            "POST",
            &format!("/element/{el}/value"),
            json!({ "text": text }),
        );
    }

    /// Picks the option with this visible label in a select.
    pub fn select(&self, css: &str, label: &str) {
        let el = self.wait(css);
        let ok = self.js(
            "const [s, label] = arguments;\
             const o = [...s.options].find((o) => o.textContent.trim() === label);\
             if (!o) return [...s.options].map((o) => o.textContent.trim());\
             s.value = o.value; s.dispatchEvent(new Event('input', {bubbles: true}));\
             s.dispatchEvent(new Event('change', {bubbles: true})); return true;",
            json!([{ (ELEMENT): el }, label]),
        );
        assert_eq!(ok, json!(true), "no option {label:?} in `{css}`: {ok}");
    }

    /// Saves a PNG of the viewport as `<name>.png` in the test's scratch directory under
    /// `target/`, or in `docs/screenshots/` when `STOCKBOOK_UPDATE_SCREENSHOTS=1` (so an
    /// ordinary test run leaves the working tree as it was).
    pub fn screenshot(&self, name: &str) {
        let b64 = self.cmd("GET", "/screenshot", json!({}));
        let png = base64_decode(b64.as_str().expect("screenshot data"));
        let dir = if std::env::var("STOCKBOOK_UPDATE_SCREENSHOTS").as_deref() == Ok("1") {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots")
        } else {
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
        };
        std::fs::create_dir_all(&dir).expect("screenshot dir");
        std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
    }

    /// Waits for a finished download named `name` and returns its bytes.
    pub fn download(&self, name: &str) -> Vec<u8> {
        let path = self.downloads.join(name);
        wait_until(&format!("the download {name}"), UI_WAIT, || path.exists());
        std::fs::read(&path).expect("read download")
    }

    /// Signs up through the page and creates the first business; ends on the dashboard.
    pub fn sign_up(&self, email: &str, business: &str) {
        self.goto("/");
        // A fresh installation opens on sign-up; one with an account on sign-in.
        let form = self.wait("#sign-in:not([hidden]), #sign-up:not([hidden])");
        if self.prop(&form, "id") == json!("sign-in") {
            self.click_button("#sign-in", "Create one");
        }
        self.type_into("#sign-up-name", "Sam Owner");
        self.type_into("#sign-up-email", email);
        self.type_into("#sign-up-password", "correct horse battery");
        self.click_button("#sign-up-form", "Create account");
        self.type_into("#first-entity-form input[name=name]", business);
        self.click_button("#first-entity-form", "Create business");
        self.wait_text(".page-head h1", "dashboard");
    }

    /// The current entity's id (as the app chose it).
    pub fn entity_id(&self) -> String {
        self.js("return localStorage.getItem('stockbook.entity')", json!([]))
            .as_str()
            .expect("an entity is chosen")
            .to_owned()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ends Chromium; the driver and server are killed by their own drops.
        let _ = http(
            self.driver_port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn poll(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if f() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_until(what: &str, limit: Duration, f: impl FnMut() -> bool) {
    assert!(poll(limit, f), "timed out waiting for {what}");
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let Some(v) = val(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
