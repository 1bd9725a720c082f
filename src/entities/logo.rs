//! The entity's logo on its invoices and credit notes
//! (docs/accounting.md#the-logo): `PUT`, `GET` and `DELETE /api/entities/<id>/logo`.
//!
//! Only the entity's owner reaches it (another user's entity is a 404, as an unknown one).
//! The body is the image itself, a PNG or a JPEG of at most [`MAX_BYTES`], sent with its
//! `Content-Type` (which no cross-site form can send); its bytes are read, not its type
//! alone: a file that is not the image it says it is, or whose size in pixels cannot be
//! read, is refused. Served back as stored.

use rocket::data::{Data, ToByteUnit};
use rocket::http::{ContentType, Header};
use rocket::{delete, get, put, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::scope::Scope;

/// The largest logo accepted: 512 KiB, plenty for a logo printed a few centimetres wide.
pub const MAX_BYTES: usize = 512 * 1024;
/// The largest side in pixels.
pub const MAX_SIDE: u32 = 8000;

pub fn routes() -> Vec<Route> {
    rocket::routes![route_put, route_get, route_delete]
}

/// A checked logo: its type and its size in pixels, read from its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ImageInfo {
    pub content_type: &'static str,
    pub width: u32,
    pub height: u32,
    /// Colour components per pixel (1 grey, 3 RGB, 4 CMYK or RGBA).
    #[serde(skip)]
    pub components: u8,
}

/// A stored logo.
pub struct Logo {
    pub info: ImageInfo,
    pub bytes: Vec<u8>,
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// What the bytes are: a PNG (signature and `IHDR`) or a JPEG (start of image and a frame
/// header), with a size of 1 to [`MAX_SIDE`] pixels a side; 415 otherwise.
pub fn inspect(bytes: &[u8]) -> AppResult<ImageInfo> {
    let refused = || {
        AppError::UnsupportedMediaType(
            "The logo must be a PNG or JPEG image; these bytes are neither".to_owned(),
        )
    };
    let info = if bytes.starts_with(PNG_SIGNATURE) {
        png(bytes).ok_or_else(refused)?
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        jpeg(bytes).ok_or_else(refused)?
    } else {
        return Err(refused());
    };
    let side = 1..=MAX_SIDE;
    if !side.contains(&info.width) || !side.contains(&info.height) {
        return Err(AppError::bad_request(format!(
            "The logo is {}×{} pixels; each side must be 1 to {MAX_SIDE}",
            info.width, info.height
        )));
    }
    Ok(info)
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn png(b: &[u8]) -> Option<ImageInfo> {
    // The first chunk is IHDR: length 13, then width, height, depth, colour type.
    if be32(b, 8)? != 13 || b.get(12..16)? != b"IHDR" {
        return None;
    }
    let components = match *b.get(25)? {
        0 | 3 => 1,
        2 => 3,
        4 => 2,
        6 => 4,
        _ => return None,
    };
    Some(ImageInfo {
        content_type: "image/png",
        width: be32(b, 16)?,
        height: be32(b, 20)?,
        components,
    })
}

fn jpeg(b: &[u8]) -> Option<ImageInfo> {
    // Markers after SOI: FF xx, then a 2-byte length (inclusive) for all but RST/SOI/EOI;
    // the size is in the first start-of-frame (C0-CF, not C4 DHT, C8 JPG, CC DAC).
    let mut at = 2;
    loop {
        while *b.get(at)? == 0xFF && *b.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *b.get(at)? != 0xFF {
            return None;
        }
        let marker = *b.get(at + 1)?;
        let len = usize::from(be16(b, at + 2)?);
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            return Some(ImageInfo {
                content_type: "image/jpeg",
                height: u32::from(be16(b, at + 5)?),
                width: u32::from(be16(b, at + 7)?),
                components: *b.get(at + 9)?,
            });
        }
        if marker == 0xDA || marker == 0xD9 || len < 2 {
            return None;
        }
        at += 2 + len;
    }
}

/// Stores `bytes` as the logo of `entity` (checked by [`inspect`]), replacing any.
pub fn set_logo(
    tx: &Transaction,
    scope: &Scope,
    entity: &str,
    declared: Option<&str>,
    bytes: &[u8],
    ctx: &Ctx,
) -> AppResult<ImageInfo> {
    let entity = scope.entity(tx, "entity_id", entity)?;
    if bytes.is_empty() {
        return Err(AppError::bad_request(
            "The logo is empty: send the image as the body",
        ));
    }
    let info = inspect(bytes)?;
    match declared {
        Some(declared) if declared == info.content_type => {}
        Some(declared) => {
            return Err(AppError::UnsupportedMediaType(format!(
                "The body is sent as {declared} but its bytes are {}",
                info.content_type
            )))
        }
        None => {
            return Err(AppError::UnsupportedMediaType(format!(
                "Send the logo with `Content-Type: {}`",
                info.content_type
            )))
        }
    }
    tx.prepare_cached(
        "INSERT INTO entity_logos (entity_id, content_type, bytes, updated_at)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (entity_id) DO UPDATE SET content_type = excluded.content_type,
             bytes = excluded.bytes, updated_at = excluded.updated_at",
    )?
    .execute(params![entity, info.content_type, bytes, ctx.now])?;
    Ok(info)
}

/// The logo of `entity` (already resolved through the caller's scope), if one is set.
pub fn logo_of(conn: &Connection, entity: &str) -> AppResult<Option<Logo>> {
    let row: Option<Vec<u8>> = conn
        .prepare_cached("SELECT bytes FROM entity_logos WHERE entity_id = ?1")?
        .query_row([entity], |r| r.get(0))
        .optional()?;
    match row {
        None => Ok(None),
        Some(bytes) => {
            let info = inspect(&bytes)
                .map_err(|e| AppError::internal(format!("stored logo of {entity}: {e}")))?;
            Ok(Some(Logo { info, bytes }))
        }
    }
}

/// Does `entity` have a logo?
pub fn has_logo(conn: &Connection, entity: &str) -> AppResult<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM entity_logos WHERE entity_id = ?1")?
        .exists([entity])?)
}

/// The logo of an entity the caller owns: 404 for an unknown or foreign entity, or none set.
pub fn get_logo(conn: &Connection, scope: &Scope, entity: &str) -> AppResult<Logo> {
    let entity = scope.entity(conn, "entity_id", entity)?;
    logo_of(conn, &entity)?
        .ok_or_else(|| AppError::not_found(format!("Entity {entity} has no logo")))
}

/// Removes the logo (none set: nothing to do).
pub fn delete_logo(tx: &Transaction, scope: &Scope, entity: &str) -> AppResult<()> {
    let entity = scope.entity(tx, "entity_id", entity)?;
    tx.prepare_cached("DELETE FROM entity_logos WHERE entity_id = ?1")?
        .execute([entity])?;
    Ok(())
}

#[put("/entities/<id>/logo", data = "<data>")]
async fn route_put(
    user: SessionUser,
    id: &str,
    content_type: Option<&ContentType>,
    data: Data<'_>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<rocket::serde::json::Json<serde_json::Value>> {
    let bytes = data
        .open(MAX_BYTES.bytes())
        .into_bytes()
        .await
        .map_err(|e| AppError::bad_request(format!("Could not read the request body: {e}")))?;
    if !bytes.is_complete() {
        return Err(AppError::PayloadTooLarge(format!(
            "The logo is larger than the limit of {} KiB",
            MAX_BYTES / 1024
        )));
    }
    let declared = content_type.map(|c| format!("{}/{}", c.top(), c.sub()));
    let (scope, id) = (user.scope(), crate::http::body::path_id("Entity", id)?);
    let bytes = bytes.into_inner();
    let info = db
        .write(move |tx| set_logo(tx, &scope, &id, declared.as_deref(), &bytes, &ctx))
        .await?;
    Ok(crate::http::data(info))
}

/// The stored image, as sent.
pub struct Image(Logo);

impl<'r> rocket::response::Responder<'r, 'static> for Image {
    fn respond_to(self, _: &'r rocket::Request<'_>) -> rocket::response::Result<'static> {
        let ct =
            ContentType::parse_flexible(self.0.info.content_type).unwrap_or(ContentType::Binary);
        rocket::Response::build()
            .header(ct)
            .header(Header::new("Cache-Control", "private, no-cache"))
            .sized_body(self.0.bytes.len(), std::io::Cursor::new(self.0.bytes))
            .ok()
    }
}

#[get("/entities/<id>/logo")]
async fn route_get(user: SessionUser, id: &str, db: &State<Db>) -> AppResult<Image> {
    let (scope, id) = (user.scope(), crate::http::body::path_id("Entity", id)?);
    Ok(Image(
        db.read(move |conn| get_logo(conn, &scope, &id)).await?,
    ))
}

#[delete("/entities/<id>/logo")]
async fn route_delete(
    user: SessionUser,
    id: &str,
    db: &State<Db>,
) -> AppResult<rocket::serde::json::Json<serde_json::Value>> {
    let (scope, id) = (user.scope(), crate::http::body::path_id("Entity", id)?);
    db.write(move |tx| delete_logo(tx, &scope, &id)).await?;
    Ok(crate::http::data(serde_json::json!({ "success": true })))
}
