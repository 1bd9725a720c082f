//! `GET /api/vat/return` (the nine boxes) and `GET /api/vat/return/lines` (the
//! drill-down, as JSON or CSV) for an entity and a period (docs/vat.md#the-computation,
//! docs/vat.md#the-drill-down).
//!
//! The period is checked before the database is read: `from` and `to` both required,
//! `to` on or after `from`, at most 366 days (400). The entity goes through the caller's
//! scope (404 when unknown or another user's).

use rocket::futures::Stream;
use rocket::serde::json::Json;
use rocket::{get, FromForm, State};
use rusqlite::Connection;
use serde_json::{json, Value};
use time::Date;

use super::compute::{self, Sums};
use super::line::{push_csv, CSV_HEADER};
use crate::auth::SessionUser;
use crate::db::decimal::{scaled_decimal, ser_decimal};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::parse_date;
use crate::http::data;
use crate::http::stream::{stream_json, ChunkWriter, JsonOrCsv, CHUNK};
use crate::scope::Scope;

/// The longest period a return covers, in days (docs/vat.md#the-computation).
pub const MAX_DAYS: i64 = 366;

/// The boxes a line can be in (3 and 5 are computed from 1, 2 and 4).
pub const LINE_BOXES: [u8; 7] = [1, 2, 4, 6, 7, 8, 9];

/// `entityId`, `from`, `to` (and for the drill-down `box`, `format`).
#[derive(Debug, Default, FromForm)]
pub struct PeriodQuery {
    #[field(name = "entityId")]
    pub entity_id: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    #[field(name = "box")]
    pub box_no: Option<String>,
    pub format: Option<String>,
}

/// A checked period.
#[derive(Debug, Clone)]
pub struct Period {
    pub entity: String,
    pub from: Date,
    pub to: Date,
}

impl PeriodQuery {
    /// 400 unless `entityId`, `from` and `to` are there and make a period of at most
    /// [`MAX_DAYS`] days.
    pub fn period(&self) -> AppResult<Period> {
        let required = |field: &str, v: &Option<String>| -> AppResult<String> {
            v.clone()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| AppError::invalid(field, "is required"))
        };
        let entity = required("entityId", &self.entity_id)?;
        let from = parse_date("from", &required("from", &self.from)?)?;
        let to = parse_date("to", &required("to", &self.to)?)?;
        check_period(from, to)?;
        Ok(Period { entity, from, to })
    }

    /// The drill-down's box: one of [`LINE_BOXES`], or every box when omitted.
    pub fn box_no(&self) -> AppResult<Option<u8>> {
        let Some(raw) = self.box_no.as_deref().filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        raw.parse::<u8>()
            .ok()
            .filter(|b| LINE_BOXES.contains(b))
            .map(Some)
            .ok_or_else(|| {
                AppError::invalid(
                    "box",
                    "must be 1, 2, 4, 6, 7, 8 or 9 (box 3 is box 1 + box 2, box 5 is |box 3 − box 4|)",
                )
            })
    }

    /// `json` (the default) or `csv`: `true` for CSV.
    pub fn csv(&self) -> AppResult<bool> {
        match self.format.as_deref() {
            None | Some("" | "json") => Ok(false),
            Some("csv") => Ok(true),
            Some(_) => Err(AppError::invalid("format", "must be json or csv")),
        }
    }
}

/// A period's dates: `to` on or after `from`, at most [`MAX_DAYS`] days (400).
pub fn check_period(from: Date, to: Date) -> AppResult<()> {
    if to < from {
        return Err(AppError::invalid("to", "must be on or after `from`"));
    }
    if (to - from).whole_days() + 1 > MAX_DAYS {
        return Err(AppError::invalid(
            "to",
            format!("a period is at most {MAX_DAYS} days"),
        ));
    }
    Ok(())
}

/// The return's answer: `{entity_id, from, to, scheme, boxes, filed}` (`filed` is the
/// filed return of exactly this period, else null: filled in by the filed returns).
pub fn return_body(conn: &Connection, scope: &Scope, p: &Period) -> AppResult<Value> {
    let entity = scope.entity(conn, "entityId", &p.entity)?;
    let settings = compute::settings(conn, &entity)?;
    let boxes = compute::boxes(conn, &entity, p.from, p.to)?;
    Ok(json!({
        "entity_id": entity,
        "from": p.from.to_string(),
        "to": p.to.to_string(),
        "scheme": settings.scheme.name(),
        "boxes": boxes,
        "filed": super::filed::filed_exactly(conn, &entity, p.from, p.to)?,
    }))
}

#[get("/vat/return?<q..>")]
pub async fn route_return(
    user: SessionUser,
    q: PeriodQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let period = q.period()?;
    let scope = user.scope();
    Ok(data(
        db.read(move |conn| return_body(conn, &scope, &period))
            .await?,
    ))
}

#[get("/vat/return/lines?<q..>")]
pub async fn route_lines(
    user: SessionUser,
    q: PeriodQuery,
    db: &State<Db>,
) -> AppResult<JsonOrCsv<impl Stream<Item = Vec<u8>> + Send>> {
    let period = q.period()?;
    let box_no = q.box_no()?;
    let csv = q.csv()?;
    if !csv && box_no.is_none() {
        return Err(AppError::invalid("box", "is required unless format=csv"));
    }
    let scope = user.scope();
    let csv_file = csv.then(|| {
        let which = box_no.map_or_else(|| "all".to_owned(), |b| format!("box{b}"));
        format!("vat-{}-{}-{which}.csv", period.from, period.to)
    });
    let body = stream_json(db, move |conn, send| {
        let entity = scope.entity(conn, "entityId", &period.entity)?;
        let settings = compute::settings(conn, &entity)?;
        let mut w = ChunkWriter::new(CHUNK, send);
        let mut sums = Sums::default();
        let mut first = true;
        if csv {
            w.out.extend_from_slice(CSV_HEADER.as_bytes());
            w.out.extend_from_slice(b"\r\n");
        } else {
            w.out.extend_from_slice(b"{\"data\":[");
        }
        let mut gone = false;
        compute::scan(conn, &entity, &settings, period.from, period.to, &mut |l| {
            if box_no.is_some_and(|b| b != l.box_no) {
                return Ok(true);
            }
            sums.add(l);
            if csv {
                push_csv(&mut w.out, l);
            } else {
                if !first {
                    w.out.push(b',');
                }
                first = false;
                w.json(l)?;
            }
            gone = !w.flush_if_full();
            Ok(!gone)
        })?;
        if gone {
            return Ok(());
        }
        if !csv {
            let total: i128 = sums.0.iter().sum();
            w.out.extend_from_slice(b"],\"total\":");
            let mut ser = serde_json::Serializer::new(&mut w.out);
            ser_decimal(&scaled_decimal(total, 6), &mut ser)
                .map_err(|e| AppError::internal(format!("serialising a response: {e}")))?;
            w.out.push(b'}');
        }
        w.flush();
        Ok(())
    })
    .await?;
    Ok(JsonOrCsv { body, csv_file })
}
