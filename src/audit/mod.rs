//! The audit trail (docs/audit.md): who changed what, written with every change, read by
//! `GET /api/audit`, checked by `stockbook check`.

pub mod check;
pub mod openapi;
pub mod trail;

use rocket::futures::Stream;
use rocket::{get, routes, FromForm, Route, State};

use crate::auth::SessionUser;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::stream::{stream_json, ChunkWriter, JsonOrCsv, CHUNK};

pub use crate::db::audit::{role_changed, sign_in, Entry};

pub fn routes() -> Vec<Route> {
    routes![list]
}

/// The query of `GET /api/audit`.
#[derive(Debug, Default, FromForm)]
pub struct AuditQuery {
    #[field(name = "entityId")]
    entity_id: Option<String>,
    #[field(name = "recordId")]
    record_id: Option<String>,
    #[field(name = "userId")]
    user_id: Option<String>,
    #[field(name = "dateFrom")]
    date_from: Option<String>,
    #[field(name = "dateTo")]
    date_to: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
    format: Option<String>,
}

/// `GET /api/audit`: the trail the caller may read, newest first
/// (docs/audit.md#reading-the-trail); `format=csv` as a download.
#[get("/audit?<q..>")]
async fn list(
    user: SessionUser,
    q: AuditQuery,
    db: &State<Db>,
) -> AppResult<JsonOrCsv<impl Stream<Item = Vec<u8>> + Send>> {
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(AppError::invalid("format", "must be json or csv")),
    };
    let scope = user.scope();
    let body = stream_json(db, move |conn, send| {
        let f = trail::Filters::check(
            conn,
            &scope,
            q.entity_id.as_deref(),
            q.record_id.as_deref(),
            q.user_id.as_deref(),
            q.date_from.as_deref(),
            q.date_to.as_deref(),
            q.limit.as_deref(),
            q.offset.as_deref(),
            csv,
        )?;
        let mut w = ChunkWriter::new(CHUNK, send);
        if csv {
            w.out.extend_from_slice(trail::CSV_HEADER.as_bytes());
            w.out.extend_from_slice(b"\r\n");
        } else {
            w.out.extend_from_slice(b"{\"data\":[");
        }
        let mut first = true;
        let mut gone = false;
        trail::list(conn, &scope, &f, &mut |e| {
            if csv {
                trail::push_csv(&mut w.out, &e);
            } else {
                if !first {
                    w.out.push(b',');
                }
                first = false;
                w.json(&e)?;
            }
            gone = !w.flush_if_full();
            Ok(!gone)
        })?;
        if gone {
            return Ok(());
        }
        if !csv {
            w.out.extend_from_slice(b"]}");
        }
        w.flush();
        Ok(())
    })
    .await?;
    Ok(JsonOrCsv {
        body,
        csv_file: csv.then(|| "audit.csv".to_owned()),
    })
}
