//! The print data, the PDF and the email of invoices and credit notes
//! (docs/accounting.md#printing-and-sending-invoices):
//! `GET /api/{invoices,credit-notes}/<id>/print` (the fields, as JSON),
//! `GET …/<id>/pdf` (the PDF to download) and `POST …/<id>/send` (the email).
//!
//! Sending reads the document, writes its PDF and hands it to the mail server with no
//! transaction open; only once the server has taken it is the send recorded, in a write
//! of its own (docs/accounting.md#sending-by-email).

use rocket::http::{ContentType, Header};
use rocket::serde::json::Json;
use rocket::{get, post, Route, State};
use serde::Deserialize;
use serde_json::{json, Value};

use super::kind::DocKind;
use super::pdf;
use super::print::{self, Printable};
use crate::auth::SessionUser;
use crate::config::AppConfig;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    rocket::routes![
        invoice_print,
        invoice_pdf,
        invoice_send,
        credit_note_print,
        credit_note_pdf,
        credit_note_send
    ]
}

/// `POST …/send`: every field optional.
#[derive(Debug, Default, Deserialize)]
pub struct SendBody {
    /// Default: the customer's email.
    #[serde(default)]
    pub to: Option<String>,
    #[serde(default)]
    pub subject: Option<String>,
    /// The text of the email; default a line naming the document, its total and due date.
    #[serde(default)]
    pub message: Option<String>,
}

/// What the print view reads: the fields, and whether mail is configured (the web app
/// shows its send button only then).
async fn print_data(
    user: SessionUser,
    db: &Db,
    config: &AppConfig,
    kind: DocKind,
    id: &str,
) -> AppResult<Json<Value>> {
    let (scope, id) = (user.scope(), crate::http::body::path_id(kind.label(), id)?);
    let p = db
        .read(move |conn| print::printable(conn, &scope, kind, &id))
        .await?;
    Ok(Json(
        json!({ "data": p, "mail_configured": config.smtp.is_some() }),
    ))
}

/// The document and its PDF, read and written on a pooled connection.
fn render(
    conn: &rusqlite::Connection,
    scope: &Scope,
    kind: DocKind,
    id: &str,
) -> AppResult<(Printable, Vec<u8>)> {
    let p = print::printable(conn, scope, kind, id)?;
    let logo = match &p.entity_id {
        Some(e) => crate::entities::logo::logo_of(conn, e)?,
        None => None,
    };
    let bytes = pdf::render(&p, logo.as_ref());
    Ok((p, bytes))
}

/// `INV-0001.pdf`: the number with anything but letters, digits, `-` and `_` dropped.
fn file_name(p: &Printable) -> String {
    let stem: String = p
        .number
        .as_deref()
        .unwrap_or(p.kind)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    format!("{}.pdf", if stem.is_empty() { p.kind } else { &stem })
}

/// A PDF to download.
pub struct PdfFile {
    name: String,
    bytes: Vec<u8>,
}

impl<'r> rocket::response::Responder<'r, 'static> for PdfFile {
    fn respond_to(self, _: &'r rocket::Request<'_>) -> rocket::response::Result<'static> {
        rocket::Response::build()
            .header(ContentType::PDF)
            .header(Header::new(
                "Content-Disposition",
                format!("attachment; filename=\"{}\"", self.name),
            ))
            .header(Header::new("Cache-Control", "private, no-store"))
            .sized_body(self.bytes.len(), std::io::Cursor::new(self.bytes))
            .ok()
    }
}

async fn pdf_file(user: SessionUser, db: &Db, kind: DocKind, id: &str) -> AppResult<PdfFile> {
    let (scope, id) = (user.scope(), crate::http::body::path_id(kind.label(), id)?);
    let (p, bytes) = db.read(move |conn| render(conn, &scope, kind, &id)).await?;
    Ok(PdfFile {
        name: file_name(&p),
        bytes,
    })
}

/// The email of a document: refused (409) when no mail server is configured, or when the
/// document is a draft or void; sent to `to` or the customer's address (400 when neither);
/// recorded once the server took it (a 502 naming the server's answer when it did not).
async fn send(
    user: SessionUser,
    db: &Db,
    config: &AppConfig,
    kind: DocKind,
    id: &str,
    body: SendBody,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let Some(smtp) = config.smtp.clone() else {
        return Err(AppError::conflict(
            "Mail is not configured: the operator sets `smtp` to send documents by email \
             (docs/configuration.md)",
        ));
    };
    let (scope, id) = (user.scope(), crate::http::body::path_id(kind.label(), id)?);
    let (p, bytes) = {
        let (scope, id) = (scope.clone(), id.clone());
        db.read(move |conn| render(conn, &scope, kind, &id)).await?
    };
    if p.status == "draft" || p.status == "void" {
        return Err(AppError::conflict(format!(
            "{} {} is {}: only a document past draft, and not void, is emailed",
            kind.label(),
            p.number.as_deref().unwrap_or(&p.id),
            p.status
        )));
    }
    let to = match body.to.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(to) => to.to_owned(),
        None => p
            .customer
            .email
            .clone()
            .filter(|e| !e.trim().is_empty())
            .ok_or_else(|| {
                AppError::bad_request(format!(
                    "{} has no email address: give `to`",
                    p.customer.name
                ))
            })?,
    };
    crate::mail::parse_address("to", &to)?;
    let what = format!("{} {}", p.title, p.number.as_deref().unwrap_or(""));
    let what = what.trim();
    let subject = body
        .subject
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| format!("{what} from {}", p.seller.name));
    let message = body
        .message
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| {
            let total = format!("{} {}", p.currency, pdf::amount(p.total.value()));
            match p.kind {
                "credit_note" => format!(
                    "Please find attached {what} for {total}.\n\n{}",
                    p.seller.name
                ),
                _ => format!(
                    "Please find attached {what} for {total}, due on {}.\n\n{}",
                    p.due_date, p.seller.name
                ),
            }
        });
    let name = file_name(&p);
    let recipient = to.clone();
    rocket::tokio::task::spawn_blocking(move || {
        crate::mail::send(
            &smtp,
            crate::mail::Outgoing {
                to: &recipient,
                subject: &subject,
                body: &message,
                attachment_name: &name,
                attachment_type: "application/pdf",
                attachment: bytes,
            },
        )
    })
    .await
    .map_err(|e| AppError::internal(format!("sending task failed: {e}")))??;
    let sent = db
        .write(move |tx| print::record_send(tx, &scope, kind, &id, &to, &ctx))
        .await?;
    Ok(crate::http::data(sent))
}

#[get("/invoices/<id>/print")]
async fn invoice_print(
    user: SessionUser,
    id: &str,
    db: &State<Db>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    print_data(user, db, config, DocKind::Invoice, id).await
}

#[get("/invoices/<id>/pdf")]
async fn invoice_pdf(user: SessionUser, id: &str, db: &State<Db>) -> AppResult<PdfFile> {
    pdf_file(user, db, DocKind::Invoice, id).await
}

#[post("/invoices/<id>/send", data = "<body>")]
async fn invoice_send(
    user: SessionUser,
    id: &str,
    body: JsonBody<SendBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    send(
        user,
        db,
        config,
        DocKind::Invoice,
        id,
        body.into_inner(),
        ctx,
    )
    .await
}

#[get("/credit-notes/<id>/print")]
async fn credit_note_print(
    user: SessionUser,
    id: &str,
    db: &State<Db>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    print_data(user, db, config, DocKind::CreditNote, id).await
}

#[get("/credit-notes/<id>/pdf")]
async fn credit_note_pdf(user: SessionUser, id: &str, db: &State<Db>) -> AppResult<PdfFile> {
    pdf_file(user, db, DocKind::CreditNote, id).await
}

#[post("/credit-notes/<id>/send", data = "<body>")]
async fn credit_note_send(
    user: SessionUser,
    id: &str,
    body: JsonBody<SendBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    send(
        user,
        db,
        config,
        DocKind::CreditNote,
        id,
        body.into_inner(),
        ctx,
    )
    .await
}
