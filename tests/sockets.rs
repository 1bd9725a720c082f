//! Connections on real sockets (docs/operations.md#connections): idle and half-sent
//! connections are closed after `header_timeout_secs`, a new client is still answered
//! when idle ones hold every place and the process's open files, and the open-file limit
//! is raised at start.
#![cfg(unix)]

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts the binary through `sh -c '<ulimit>; exec stockbook'` over a database file of
/// its own, with its output in files, and waits (bounded) for `/api/health`.
fn start(name: &str, ulimit: &str, env: &[(&str, &str)]) -> Server {
    let dir = std::env::temp_dir().join(format!("stockbook-sockets-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("{ulimit} exec \"$0\" serve"))
        .arg(env!("CARGO_BIN_EXE_stockbook"))
        .envs(env.iter().copied())
        .env("ROCKET_DATABASE", dir.join("shop.db"))
        .env("ROCKET_PORT", port.to_string())
        .env("ROCKET_CONFIG", "/nonexistent-test-Rocket.toml")
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .expect("start stockbook");
    let server = Server { child, port, dir };
    let t0 = Instant::now();
    while health(port).is_none() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

impl Server {
    fn output(&self) -> String {
        let read = |f: &str| std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
        format!("{}{}", read("stdout"), read("stderr"))
    }

    fn idle(&self) -> TcpStream {
        let s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        s
    }
}

/// One `GET /api/health` on a new connection: the status line, or `None` when the
/// connection failed or no answer came within a few seconds.
fn health(port: u16) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).ok()?;
    let text = String::from_utf8_lossy(&answer);
    text.lines()
        .next()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
}

/// Whether the server has closed this connection (end of file or reset); a read that
/// times out means it is still open.
fn closed(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// Waits (bounded, as a loop guard only) until every connection is closed by the server.
fn wait_all_closed(conns: &mut [TcpStream], what: &str) {
    let t0 = Instant::now();
    let mut open: Vec<usize> = (0..conns.len()).collect();
    while !open.is_empty() {
        open.retain(|&i| !closed(&mut conns[i]));
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{} of {} {what} connections still open",
            open.len(),
            conns.len()
        );
    }
}

#[test]
fn idle_half_sent_and_kept_alive_connections_are_closed_after_the_header_timeout() {
    let server = start("timeout", "", &[("ROCKET_HEADER_TIMEOUT_SECS", "1")]);

    let mut idle: Vec<TcpStream> = (0..50).map(|_| server.idle()).collect();
    let mut half: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut s = server.idle();
            s.write_all(b"GET /api/health HTTP/1.1\r\nHost: local")
                .unwrap();
            s
        })
        .collect();
    // A connection that had its answer and keeps the connection open, sending nothing more.
    let mut kept = server.idle();
    kept.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    kept.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();

    wait_all_closed(&mut idle, "idle");
    wait_all_closed(&mut half, "half-sent");
    wait_all_closed(std::slice::from_mut(&mut kept), "kept-alive");
    assert_eq!(health(server.port).as_deref(), Some("HTTP/1.1 200 OK"));
}

#[test]
fn a_new_client_is_answered_while_idle_connections_hold_every_open_file_the_process_has() {
    // 96 open files in all (hard and soft), as on a small system: 150 idle connections
    // would take every one of them, and the server could accept nothing more.
    let server = start(
        "limit",
        "ulimit -n 96;",
        &[("ROCKET_HEADER_TIMEOUT_SECS", "1")],
    );
    assert!(
        server
            .output()
            .contains("serving at most 16 connections at once"),
        "{}",
        server.output()
    );
    let mut idle: Vec<TcpStream> = (0..150).map(|_| server.idle()).collect();

    let t0 = Instant::now();
    loop {
        if let Some(status) = health(server.port) {
            assert_eq!(status, "HTTP/1.1 200 OK");
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no answer while idle connections are open"
        );
    }
    wait_all_closed(&mut idle, "idle");
}

#[test]
fn the_open_file_limit_is_raised_to_the_hard_limit_at_start_and_said_so() {
    let hard = Command::new("sh")
        .args(["-c", "ulimit -Hn"])
        .output()
        .unwrap();
    let hard = String::from_utf8_lossy(&hard.stdout).trim().to_owned();
    let Ok(hard) = hard.parse::<u64>() else {
        return; // unlimited: nothing to raise to
    };
    if hard <= 256 {
        return;
    }
    let server = start("rlimit", "ulimit -Sn 256;", &[]);
    let wanted = hard.min(65_536);
    let line = format!("open-file limit raised from 256 to {wanted}");
    let t0 = Instant::now();
    while !server.output().contains(&line) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "no `{line}` in {}",
            server.output()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let limits =
        std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).unwrap_or_default();
    if let Some(row) = limits.lines().find(|l| l.starts_with("Max open files")) {
        assert!(row.contains(&wanted.to_string()), "{row}");
    }
}
