//! Streamed JSON answers, for bodies too large to build in memory (the stock valuation,
//! the unpaged product list).
//!
//! A blocking thread holds one pooled connection inside one read transaction, so the whole
//! body comes from one snapshot. It writes the JSON into chunks of [`CHUNK`] bytes and
//! sends each as soon as it is full, into a channel four chunks deep that the HTTP
//! response drains. Reading, writing and sending therefore overlap, and memory stays at a
//! few chunks.
//!
//! An error before the first chunk (a bad filter, say) is an ordinary error answer
//! (docs/conventions.md#errors). After the first chunk the status has been sent: an error
//! ends the body early, so the client holds JSON that does not parse, and the server logs
//! the cause. A client that goes away stops the thread at its next chunk.
//!
//! A stream keeps its connection until the client has read the body, so a slow client
//! keeps it longer. Each stream therefore takes a permit first ([`Db::streaming_permit`]).
//!
//! And it has a deadline per chunk, not per answer: each chunk must be taken by the
//! client within [`Db::stream_timeout`] (`stream_timeout_secs`, 30 s by default) of being
//! ready, or the thread gives up as if the client had gone, which ends the body early and
//! releases the permit, the pooled connection and the read snapshot (which would
//! otherwise hold back WAL checkpoints, so the WAL would grow without bound). A client
//! that stops reading is cut off after the timeout; one that reads slower than one
//! chunk per timeout (about 35 KB/s at the default) is too. A deadline for the whole
//! answer would instead cut off a 200 MB download on a slow but honest link, and would
//! let a stalled client hold everything until it ran out.

use rocket::futures::{stream, Stream, StreamExt};
use rocket::http::ContentType;
use rocket::response::{self, Responder};
use rocket::tokio::sync::mpsc;
use rocket::Request;
use rusqlite::Connection;
use serde::Serialize;

use crate::db::Db;
use crate::error::{AppError, AppResult};

/// Body chunks of 1 MiB: 165 hand-offs for the 165 MB valuation of 100,000 × 5.
pub const CHUNK: usize = 1 << 20;
/// Chunks the producer may run ahead of the client.
const AHEAD: usize = 4;

/// Hands a chunk to the client; `false` once the client has gone.
pub type Sink<'a> = &'a mut dyn FnMut(Vec<u8>) -> bool;

/// A JSON body streamed from chunks (already JSON text) as they are produced. Rocket
/// hands a streamed body to the connection in pieces of at most 4 KiB unless told
/// otherwise. A 165 MB report would then be 40,000 HTTP chunks and as many writes, so
/// this passes each chunk on whole (up to `max_chunk` bytes).
pub struct JsonStream<S> {
    pub chunks: S,
    pub max_chunk: usize,
}

impl<'r, S> Responder<'r, 'r> for JsonStream<S>
where
    S: Stream<Item = Vec<u8>> + Send + 'r,
{
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'r> {
        let mut res = rocket::response::stream::ByteStream(self.chunks).respond_to(req)?;
        res.set_header(ContentType::JSON);
        res.set_max_chunk_size(self.max_chunk);
        Ok(res)
    }
}

/// The same streamed body answered as `text/csv`, offered for download as `filename`
/// (the movement history, docs/documents-stock.md#the-movement-history-as-a-spreadsheet):
/// [`stream_json`] writes any text.
pub struct CsvStream<S> {
    pub body: JsonStream<S>,
    pub filename: &'static str,
}

impl<'r, S> Responder<'r, 'r> for CsvStream<S>
where
    S: Stream<Item = Vec<u8>> + Send + 'r,
{
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'r> {
        let mut res = self.body.respond_to(req)?;
        as_csv_download(&mut res, self.filename);
        Ok(res)
    }
}

/// A streamed report answered as JSON, or, with a file name, as a `text/csv` download of
/// that name (the stock valuation, the VAT return's lines): the body is whichever text
/// the producer wrote.
pub struct JsonOrCsv<S> {
    pub body: JsonStream<S>,
    pub csv_file: Option<String>,
}

impl<'r, S> Responder<'r, 'r> for JsonOrCsv<S>
where
    S: Stream<Item = Vec<u8>> + Send + 'r,
{
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'r> {
        let mut res = self.body.respond_to(req)?;
        if let Some(name) = &self.csv_file {
            as_csv_download(&mut res, name);
        }
        Ok(res)
    }
}

/// Marks a response as UTF-8 CSV offered for download as `filename`.
fn as_csv_download(res: &mut rocket::Response<'_>, filename: &str) {
    res.set_header(ContentType::new("text", "csv").with_params(("charset", "utf-8")));
    res.set_raw_header(
        "Content-Disposition",
        format!("attachment; filename=\"{filename}\""),
    );
}

/// Collects JSON text into chunks and sends each once it holds `chunk` bytes.
pub struct ChunkWriter<'a> {
    pub out: Vec<u8>,
    chunk: usize,
    send: Sink<'a>,
}

impl<'a> ChunkWriter<'a> {
    pub fn new(chunk: usize, send: Sink<'a>) -> Self {
        Self {
            out: Vec::with_capacity(chunk.min(CHUNK) + 512),
            chunk,
            send,
        }
    }

    /// Sends what has been written; `false` once the client has gone.
    pub fn flush(&mut self) -> bool {
        let capacity = self.out.capacity();
        let full = std::mem::replace(&mut self.out, Vec::with_capacity(capacity));
        (self.send)(full)
    }

    /// Sends the chunk if it is full; `false` once the client has gone.
    pub fn flush_if_full(&mut self) -> bool {
        self.out.len() < self.chunk || self.flush()
    }

    /// Appends `value` as JSON.
    pub fn json<T: Serialize>(&mut self, value: &T) -> AppResult<()> {
        serde_json::to_writer(&mut self.out, value)
            .map_err(|e| AppError::internal(format!("serialising a response: {e}")))
    }
}

/// Answers with the JSON body `produce` writes, streamed (see the module comment).
pub async fn stream_json<F>(
    db: &Db,
    produce: F,
) -> AppResult<JsonStream<impl Stream<Item = Vec<u8>> + Send>>
where
    F: FnOnce(&Connection, Sink<'_>) -> AppResult<()> + Send + 'static,
{
    stream_json_db(db, move |_, conn, send| produce(conn, send)).await
}

/// [`stream_json`] for a producer that also needs the database (a second connection on
/// the same snapshot, [`Db::twin_snapshot`]).
pub async fn stream_json_db<F>(
    db: &Db,
    produce: F,
) -> AppResult<JsonStream<impl Stream<Item = Vec<u8>> + Send>>
where
    F: FnOnce(&Db, &Connection, Sink<'_>) -> AppResult<()> + Send + 'static,
{
    let db = db.clone();
    let (tx, mut rx) = mpsc::channel::<AppResult<Vec<u8>>>(AHEAD);
    let permit = db.streaming_permit().await?;
    let timeout = db.stream_timeout();
    let runtime = rocket::tokio::runtime::Handle::current();
    rocket::tokio::task::spawn_blocking(move || {
        let _permit = permit;
        // `false` when the client has gone or has not taken a chunk within the timeout.
        let send = |item: AppResult<Vec<u8>>| match runtime
            .block_on(rocket::tokio::time::timeout(timeout, tx.send(item)))
        {
            Ok(sent) => sent.is_ok(),
            Err(_) => {
                eprintln!(
                    "stockbook: a streamed answer was cut off: the client took no data for {} s",
                    timeout.as_secs()
                );
                false
            }
        };
        let run = || -> AppResult<()> {
            let mut conn = db.conn()?;
            // A deferred transaction: its snapshot starts at the first read and holds for
            // every query of the answer.
            let snapshot = conn.transaction()?;
            produce(&db, &snapshot, &mut |chunk| send(Ok(chunk)))
        };
        if let Err(e) = run() {
            // Before the first chunk this becomes the answer; after it, the log line.
            send(Err(e));
        }
    });
    let first = rx
        .recv()
        .await
        .ok_or_else(|| AppError::internal("a streamed answer ended before its first chunk"))??;
    let rest = stream::unfold(rx, |mut rx| async move {
        match rx.recv().await? {
            Ok(chunk) => Some((chunk, rx)),
            Err(e) => {
                eprintln!("stockbook: a streamed answer ended early: {e:?}");
                None
            }
        }
    });
    Ok(JsonStream {
        chunks: stream::iter([first]).chain(rest),
        max_chunk: CHUNK,
    })
}
