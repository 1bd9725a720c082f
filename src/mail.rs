//! Sending email through the operator's SMTP server (`smtp` key, docs/configuration.md#keys),
//! for invoices and credit notes (docs/accounting.md#sending-by-email).
//!
//! Blocking, and called off the async threads and outside any transaction: a send may
//! wait on the network for up to [`TIMEOUT`], and no database lock is held meanwhile. A
//! bottom-layer module: it knows the configuration and nothing of the documents it sends.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};

use crate::config::{SmtpConfig, SmtpTls};
use crate::error::AppError;

/// Longest one SMTP exchange (connect, each command) may wait for the server.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// One message to send: a plain-text body and one attachment.
pub struct Outgoing<'a> {
    pub to: &'a str,
    pub subject: &'a str,
    pub body: &'a str,
    pub attachment_name: &'a str,
    pub attachment_type: &'a str,
    pub attachment: Vec<u8>,
}

/// A recipient address as the mail library reads it: 400 naming `field` when it is not one.
pub fn parse_address(field: &str, raw: &str) -> Result<Mailbox, AppError> {
    raw.trim()
        .parse::<Mailbox>()
        .map_err(|e| AppError::invalid(field, format!("not an email address ({e})")))
}

/// Sends `m` through `config`'s server. A refusal or a failure to reach the server is a
/// 502 that names the server and its answer; the password never appears in it.
pub fn send(config: &SmtpConfig, m: Outgoing<'_>) -> Result<(), AppError> {
    let from: Mailbox = config.from.parse().map_err(|e| {
        AppError::internal(format!(
            "smtp.from was checked at start and is not an address: {e}"
        ))
    })?;
    let to = parse_address("to", m.to)?;
    let content_type = ContentType::parse(m.attachment_type)
        .map_err(|e| AppError::internal(format!("attachment type: {e}")))?;
    let message = Message::builder()
        .from(from)
        .to(to)
        .subject(m.subject)
        .multipart(
            MultiPart::mixed()
                .singlepart(SinglePart::plain(m.body.to_owned()))
                .singlepart(
                    Attachment::new(m.attachment_name.to_owned()).body(m.attachment, content_type),
                ),
        )
        .map_err(|e| AppError::internal(format!("building the message: {e}")))?;
    let transport = transport(config)?;
    transport.send(&message).map(|_| ()).map_err(|e| {
        let code = e.status().map(|c| format!(" ({c})")).unwrap_or_default();
        AppError::BadGateway(format!(
            "The mail server {}:{} did not take the message{code}: {}",
            config.host,
            config.port,
            answer(&e)
        ))
    })
}

/// The server's answer, or what stopped the exchange, in one line.
fn answer(e: &lettre::transport::smtp::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text.replace(['\r', '\n'], " ")
}

fn transport(config: &SmtpConfig) -> Result<SmtpTransport, AppError> {
    let tls = |host: &str| {
        TlsParameters::new(host.to_owned())
            .map_err(|e| AppError::internal(format!("TLS parameters for {host}: {e}")))
    };
    let tls = match config.tls {
        SmtpTls::None => Tls::None,
        SmtpTls::StartTls => Tls::Required(tls(&config.host)?),
        SmtpTls::Tls => Tls::Wrapper(tls(&config.host)?),
    };
    let mut builder = SmtpTransport::builder_dangerous(&config.host)
        .port(config.port)
        .tls(tls)
        .timeout(Some(TIMEOUT));
    if let Some(user) = &config.username {
        builder = builder.credentials(Credentials::new(
            user.clone(),
            config.password.clone().unwrap_or_default(),
        ));
    }
    Ok(builder.build())
}
