#![allow(dead_code)]
//! A mail server for the tests: SMTP as RFC 5321 has it (greeting, EHLO, MAIL, RCPT,
//! DATA, QUIT) on a loopback port, keeping every message it takes. `rejecting` answers
//! RCPT with a 550 instead, as a server that refuses the recipient.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One message taken: its envelope and its text (headers and body, dot-unstuffed).
#[derive(Debug, Clone)]
pub struct Taken {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

pub struct FakeSmtp {
    pub port: u16,
    pub taken: Arc<Mutex<Vec<Taken>>>,
}

impl FakeSmtp {
    pub fn start() -> Self {
        Self::serve(false)
    }

    pub fn rejecting() -> Self {
        Self::serve(true)
    }

    fn serve(reject: bool) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().unwrap().port();
        let taken = Arc::new(Mutex::new(Vec::new()));
        let keep = taken.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let keep = keep.clone();
                std::thread::spawn(move || {
                    let _ = session(stream, reject, &keep);
                });
            }
        });
        Self { port, taken }
    }

    /// The `smtp` setting that points Stockbook here, without TLS.
    pub fn config(&self) -> serde_json::Value {
        serde_json::json!({
            "host": "127.0.0.1",
            "port": self.port,
            "from": "Acme Ltd <accounts@acme.test>",
            "tls": "none",
        })
    }

    pub fn messages(&self) -> Vec<Taken> {
        self.taken.lock().unwrap().clone()
    }
}

fn session(stream: TcpStream, reject: bool, keep: &Mutex<Vec<Taken>>) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut lines = BufReader::new(stream);
    out.write_all(b"220 fake.test ESMTP ready\r\n")?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let verb = command
            .split([' ', ':'])
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" | "HELO" => out.write_all(b"250-fake.test greets you\r\n250 8BITMIME\r\n")?,
            "MAIL" => {
                from = command[10..].trim().to_owned();
                out.write_all(b"250 OK\r\n")?;
            }
            "RCPT" if reject => {
                out.write_all(b"550 5.1.1 Mailbox unavailable: no such user here\r\n")?;
            }
            "RCPT" => {
                to.push(command[8..].trim().to_owned());
                out.write_all(b"250 OK\r\n")?;
            }
            "DATA" => {
                out.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line)? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                keep.lock().unwrap().push(Taken {
                    from: std::mem::take(&mut from),
                    to: std::mem::take(&mut to),
                    data,
                });
                out.write_all(b"250 OK: queued\r\n")?;
            }
            "RSET" | "NOOP" => out.write_all(b"250 OK\r\n")?,
            "QUIT" => {
                out.write_all(b"221 Bye\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"502 Command not implemented\r\n")?,
        }
    }
}

/// The attachment of `content_type` in a MIME message, decoded from base64.
pub fn attachment(data: &str, content_type: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    let start = data.find(&format!("Content-Type: {content_type}"))?;
    let part = &data[start..];
    let body = &part[part.find("\r\n\r\n")? + 4..];
    let end = body.find("\r\n--").unwrap_or(body.len());
    let b64: String = body[..end].split_whitespace().collect();
    base64::engine::general_purpose::STANDARD.decode(b64).ok()
}
