//! Two-factor sign-in (docs/auth.md#two-factor-sign-in): TOTP as RFC 6238 has it (30 s
//! steps, HMAC-SHA-1, 6 digits; `totp-rs` computes the codes), set up with a QR code of
//! the `otpauth://` URI, confirmed with a first code, and ten single-use recovery codes.
//!
//! The secret is sealed at rest under the database's key file (`seal`/`unseal`,
//! `crate::db::secrets`), so a copy of the database alone cannot make codes. A code is
//! accepted within one step either side of now, and a step once: the step of the last
//! code accepted is kept. Recovery codes are stored as SHA-256 digests.

use qrcode::render::svg;
use qrcode::QrCode;
use rocket::serde::json::Json;
use rocket::{get, post, routes, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Deserialize;
use serde_json::{json, Value};
use totp_rs::{Algorithm, Secret, TOTP};

use super::{throttle, token, SessionUser};
use crate::clock::{rfc3339, Clock};
use crate::db::audit;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;

/// The label the secret is sealed under.
pub const SEAL_LABEL: &str = "users.totp_secret";
/// How many recovery codes `enable` gives.
pub const RECOVERY_CODES: usize = 10;
/// Steps either side of now a code is accepted in (clocks drift; people type slowly).
const SKEW: u8 = 1;
const STEP: u64 = 30;
const DIGITS: usize = 6;
/// Bytes of a new secret: 160 bits, the length RFC 4226 recommends.
const SECRET_BYTES: usize = 20;

pub fn routes() -> Vec<Route> {
    routes![status, setup, enable, disable]
}

/// The TOTP of `secret` for `account` (the user's email).
pub fn totp(secret: Vec<u8>, account: &str) -> TOTP {
    TOTP::new_unchecked(
        Algorithm::SHA1,
        DIGITS,
        SKEW,
        STEP,
        secret,
        Some("Stockbook".to_owned()),
        account.replace(':', ""),
    )
}

/// The step of `code` for `secret` at `now` (Unix seconds) when it is right and newer
/// than `last_step`; `None` otherwise.
pub fn accepted_step(secret: &[u8], code: &str, now: u64, last_step: Option<i64>) -> Option<i64> {
    let code = code.trim().replace(' ', "");
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let t = totp(secret.to_vec(), "");
    let now_step = now / STEP;
    (now_step.saturating_sub(u64::from(SKEW))..=now_step + u64::from(SKEW))
        .find(|step| constant_eq(&t.generate(step * STEP), &code))
        .and_then(|step| i64::try_from(step).ok())
        .filter(|step| last_step.is_none_or(|last| *step > last))
}

fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A recovery code as given: five and five characters, easy to read aloud.
fn new_recovery_code() -> String {
    let raw = token::random_base62(10).to_lowercase();
    format!("{}-{}", &raw[..5], &raw[5..])
}

/// How a recovery code is compared: lower case, without spaces or dashes.
fn recovery_key(code: &str) -> String {
    token::digest(&code.trim().to_lowercase().replace(['-', ' '], ""))
}

/// A user's two-factor state.
#[derive(Debug, Clone)]
pub struct State2fa {
    /// The secret (unsealed), set up or enabled.
    pub secret: Option<Vec<u8>>,
    pub enabled: bool,
    pub last_step: Option<i64>,
}

/// Reads `user_id`'s two-factor state.
pub fn state(conn: &Connection, user_id: &str) -> AppResult<State2fa> {
    let row: Option<(Option<String>, Option<String>, Option<i64>)> = conn
        .prepare_cached(
            "SELECT unseal(totp_secret, 'users.totp_secret'), totp_enabled_at, totp_last_step
             FROM users WHERE id = ?1",
        )?
        .query_row([user_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let (secret, enabled, last_step) = row.unwrap_or((None, None, None));
    let secret = secret
        .map(|s| {
            Secret::Encoded(s)
                .to_bytes()
                .map_err(|_| AppError::internal("a stored two-factor secret is not base32"))
        })
        .transpose()?;
    Ok(State2fa {
        secret,
        enabled: enabled.is_some(),
        last_step,
    })
}

/// The second factor a sign-in was made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Factor {
    /// The user has no two-factor sign-in.
    None,
    Totp {
        reference: String,
    },
    RecoveryCode {
        reference: String,
    },
}

impl Factor {
    /// `password`, `totp` or `recovery_code`: the trail's and the session's word.
    pub fn method(&self) -> &'static str {
        match self {
            Factor::None => "password",
            Factor::Totp { .. } => "totp",
            Factor::RecoveryCode { .. } => "recovery_code",
        }
    }
}

/// What a code sent with a sign-in (or with `disable`) proved.
#[derive(Debug)]
pub enum Proof {
    Passed(Factor),
    /// No code, and one is needed.
    Missing,
    /// A code that is wrong, used, or too old.
    Wrong,
}

/// Checks the second factor of `user_id` at `now` (Unix seconds) and, when it passes,
/// spends it (the TOTP step, or the recovery code).
pub fn prove(
    tx: &Transaction,
    user_id: &str,
    totp_code: Option<&str>,
    recovery_code: Option<&str>,
    now: u64,
    at: &str,
) -> AppResult<Proof> {
    let st = state(tx, user_id)?;
    let (true, Some(secret)) = (st.enabled, st.secret) else {
        return Ok(Proof::Passed(Factor::None));
    };
    let totp_code = totp_code.filter(|c| !c.trim().is_empty());
    let recovery_code = recovery_code.filter(|c| !c.trim().is_empty());
    if let Some(code) = totp_code {
        let Some(step) = accepted_step(&secret, code, now, st.last_step) else {
            return Ok(Proof::Wrong);
        };
        tx.prepare_cached("UPDATE users SET totp_last_step = ?1 WHERE id = ?2")?
            .execute(params![step, user_id])?;
        return Ok(Proof::Passed(Factor::Totp {
            reference: token::digest(&format!("totp:{user_id}:{}", secret_b32(&secret))),
        }));
    }
    if let Some(code) = recovery_code {
        let key = recovery_key(code);
        let used = tx
            .prepare_cached(
                "UPDATE recovery_codes SET used_at = ?1
                 WHERE user_id = ?2 AND code_hash = ?3 AND used_at IS NULL",
            )?
            .execute(params![at, user_id, key])?;
        if used == 0 {
            return Ok(Proof::Wrong);
        }
        return Ok(Proof::Passed(Factor::RecoveryCode {
            reference: token::digest(&format!("recovery:{key}")),
        }));
    }
    Ok(Proof::Missing)
}

fn secret_b32(secret: &[u8]) -> String {
    Secret::Raw(secret.to_vec()).to_encoded().to_string()
}

/// Records on session `token_hash` that it was opened with `factor` at `at`.
pub fn mark_session(
    tx: &Transaction,
    token_hash: &str,
    factor: &Factor,
    at: &str,
) -> AppResult<()> {
    let reference = match factor {
        Factor::None => return Ok(()),
        Factor::Totp { reference } | Factor::RecoveryCode { reference } => reference,
    };
    tx.prepare_cached(
        "UPDATE sessions SET mfa_method = ?1, mfa_at = ?2, mfa_reference = ?3
         WHERE token_hash = ?4",
    )?
    .execute(params![factor.method(), at, reference, token_hash])?;
    Ok(())
}

/// How a session was opened with a second factor, for HMRC's `Gov-Client-Multi-Factor`
/// header (docs/auth.md#two-factor-sign-in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMfa {
    /// HMRC's type: `TOTP`, or `OTHER` for a recovery code.
    pub kind: &'static str,
    /// When the factor was given (RFC 3339, UTC).
    pub at: String,
    /// A reference unique to the factor (a digest; never the secret).
    pub reference: String,
}

/// The second factor session `token_hash` was opened with, if any.
pub fn session_mfa(conn: &Connection, token_hash: &str) -> AppResult<Option<SessionMfa>> {
    let row: Option<(Option<String>, Option<String>, Option<String>)> = conn
        .prepare_cached(
            "SELECT mfa_method, mfa_at, mfa_reference FROM sessions WHERE token_hash = ?1",
        )?
        .query_row([token_hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    Ok(match row {
        Some((Some(method), Some(at), Some(reference))) => Some(SessionMfa {
            kind: if method == "totp" { "TOTP" } else { "OTHER" },
            at,
            reference,
        }),
        _ => None,
    })
}

/// Starts (or starts again) setting up two-factor sign-in for `user_id`: a new secret,
/// sealed, not yet in force. 409 when it already is.
pub fn begin_setup(tx: &Transaction, user_id: &str) -> AppResult<String> {
    if state(tx, user_id)?.enabled {
        return Err(AppError::conflict(
            "Two-factor sign-in is already on: turn it off first to set it up again",
        ));
    }
    let mut secret = [0u8; SECRET_BYTES];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut secret);
    let b32 = secret_b32(&secret);
    tx.prepare_cached(
        "UPDATE users SET totp_secret = seal(?1, 'users.totp_secret'), totp_enabled_at = NULL,
                          totp_last_step = NULL
         WHERE id = ?2",
    )?
    .execute(params![b32, user_id])?;
    Ok(b32)
}

/// Confirms the set-up with a first `code`: two-factor sign-in is on, and the ten
/// recovery codes (replacing any) are answered, once. 409 when not set up, 400 for a
/// wrong code.
pub fn confirm_setup(
    tx: &Transaction,
    user_id: &str,
    code: &str,
    now: u64,
    at: &str,
) -> AppResult<Vec<String>> {
    let st = state(tx, user_id)?;
    if st.enabled {
        return Err(AppError::conflict("Two-factor sign-in is already on"));
    }
    let Some(secret) = st.secret else {
        return Err(AppError::conflict(
            "Two-factor sign-in is not being set up: start with POST /api/auth/2fa/setup",
        ));
    };
    let Some(step) = accepted_step(&secret, code, now, None) else {
        return Err(AppError::invalid(
            "code",
            "is not the current code of this set-up",
        ));
    };
    tx.prepare_cached("UPDATE users SET totp_enabled_at = ?1, totp_last_step = ?2 WHERE id = ?3")?
        .execute(params![at, step, user_id])?;
    tx.prepare_cached("DELETE FROM recovery_codes WHERE user_id = ?1")?
        .execute([user_id])?;
    let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
    for c in &codes {
        tx.prepare_cached("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?1, ?2)")?
            .execute(params![user_id, recovery_key(c)])?;
    }
    audit::record(
        tx,
        &audit::Entry {
            user_id,
            action: "update",
            record_type: "user",
            record_id: Some(user_id),
            entity_id: None,
            owner_id: user_id,
            changes: json!({ "two_factor": { "before": false, "after": true } }),
        },
    )?;
    Ok(codes)
}

/// Turns two-factor sign-in off for `user_id` and forgets the secret and recovery codes.
pub fn turn_off(tx: &Transaction, user_id: &str) -> AppResult<()> {
    tx.prepare_cached(
        "UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL
         WHERE id = ?1",
    )?
    .execute([user_id])?;
    tx.prepare_cached("DELETE FROM recovery_codes WHERE user_id = ?1")?
        .execute([user_id])?;
    audit::record(
        tx,
        &audit::Entry {
            user_id,
            action: "update",
            record_type: "user",
            record_id: Some(user_id),
            entity_id: None,
            owner_id: user_id,
            changes: json!({ "two_factor": { "before": true, "after": false } }),
        },
    )
}

/// How many of `user_id`'s recovery codes are still unused.
pub fn recovery_codes_left(conn: &Connection, user_id: &str) -> AppResult<i64> {
    Ok(conn
        .prepare_cached(
            "SELECT COUNT(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL",
        )?
        .query_row([user_id], |r| r.get(0))?)
}

/// The QR code of `uri` as an SVG image.
pub fn qr_svg(uri: &str) -> AppResult<String> {
    let code = QrCode::new(uri.as_bytes())
        .map_err(|e| AppError::internal(format!("the QR code of a set-up: {e}")))?;
    Ok(code
        .render::<svg::Color<'_>>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build())
}

#[derive(Deserialize)]
struct CodeBody {
    #[serde(default)]
    code: Option<String>,
}

impl CodeBody {
    /// The code sent: 400 naming `code` without one.
    fn code(self) -> AppResult<String> {
        self.code
            .ok_or_else(|| AppError::invalid("code", "is required"))
    }
}

/// `GET /api/auth/2fa`: whether two-factor sign-in is on, and how many recovery codes
/// are left.
#[get("/auth/2fa")]
async fn status(user: SessionUser, db: &State<Db>) -> AppResult<Json<Value>> {
    let uid = user.user.id;
    let (enabled, left) = db
        .read(move |c| Ok((state(c, &uid)?.enabled, recovery_codes_left(c, &uid)?)))
        .await?;
    Ok(Json(
        json!({ "data": { "enabled": enabled, "recovery_codes_left": left } }),
    ))
}

/// `POST /api/auth/2fa/setup`: a new secret, its `otpauth://` URI and that as a QR code.
#[post("/auth/2fa/setup", data = "<_body>")]
async fn setup(
    user: SessionUser,
    _body: JsonBody<serde::de::IgnoredAny>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let uid = user.user.id.clone();
    let b32 = db.write(move |tx| begin_setup(tx, &uid)).await?;
    let secret = Secret::Encoded(b32.clone())
        .to_bytes()
        .map_err(|_| AppError::internal("a new secret is not base32"))?;
    let url = totp(secret, &user.user.email).get_url();
    let svg = qr_svg(&url)?;
    Ok(Json(
        json!({ "data": { "secret": b32, "otpauth_url": url, "qr_svg": svg } }),
    ))
}

/// `POST /api/auth/2fa/enable {code}`: turns it on; answers the recovery codes, once.
#[post("/auth/2fa/enable", data = "<body>")]
async fn enable(
    user: SessionUser,
    body: JsonBody<CodeBody>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Json<Value>> {
    let code = body.into_inner().code()?;
    let now = clock.now();
    let uid = user.user.id;
    let codes = db
        .write(move |tx| {
            confirm_setup(
                tx,
                &uid,
                &code,
                u64::try_from(now.unix_timestamp()).unwrap_or(0),
                &rfc3339(now),
            )
        })
        .await?;
    Ok(Json(json!({ "data": { "recovery_codes": codes } })))
}

/// `POST /api/auth/2fa/disable {code}`: a current code or a recovery code turns it off.
/// A wrong one counts against the sign-in throttle of the user's email.
#[post("/auth/2fa/disable", data = "<body>")]
async fn disable(
    user: SessionUser,
    body: JsonBody<CodeBody>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Json<Value>> {
    let code = body.into_inner().code()?;
    let now = clock.now();
    let uid = user.user.id;
    let email = user.user.email;
    // Ok(Err(..)): refused, with the failure kept for the throttle.
    let outcome = db
        .write(move |tx| {
            if !state(tx, &uid)?.enabled {
                return Err(AppError::conflict("Two-factor sign-in is not on"));
            }
            if let throttle::Attempt::Refused { retry_after } =
                throttle::begin(tx, &email, now.unix_timestamp())?
            {
                return Ok(Err(AppError::TooManyRequests {
                    message: "Too many wrong codes; try again later".into(),
                    retry_after,
                }));
            }
            let secs = u64::try_from(now.unix_timestamp()).unwrap_or(0);
            let at = rfc3339(now);
            let (totp_code, recovery) = if code.trim().replace(' ', "").len() == DIGITS {
                (Some(code.as_str()), None)
            } else {
                (None, Some(code.as_str()))
            };
            match prove(tx, &uid, totp_code, recovery, secs, &at)? {
                Proof::Passed(_) => {
                    throttle::succeeded(tx, &email)?;
                    turn_off(tx, &uid)?;
                    Ok(Ok(()))
                }
                Proof::Missing | Proof::Wrong => Ok(Err(AppError::invalid(
                    "code",
                    "is not a current code or an unused recovery code",
                ))),
            }
        })
        .await?;
    outcome?;
    Ok(Json(json!({ "data": { "success": true } })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 Appendix B: the SHA-1 rows (8 digits, the 20-byte ASCII secret).
    #[test]
    fn the_codes_are_rfc_6238_appendix_b_sha1_vectors() {
        let secret = b"12345678901234567890".to_vec();
        let t = TOTP::new_unchecked(Algorithm::SHA1, 8, 0, 30, secret, None, String::new());
        for (time, code) in [
            (59, "94287082"),
            (1_111_111_109, "07081804"),
            (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"),
            (20_000_000_000, "65353130"),
        ] {
            assert_eq!(t.generate(time), code, "T = {time}");
        }
        // Our six digits are the last six of the same value (RFC 4226's truncation).
        let ours = totp(b"12345678901234567890".to_vec(), "a@example.com");
        assert_eq!(ours.generate(59), "287082");
        assert_eq!(ours.generate(1_111_111_109), "081804");
    }

    #[test]
    fn a_code_is_accepted_one_step_either_side_and_each_step_once() {
        let secret = b"12345678901234567890";
        let t = totp(secret.to_vec(), "");
        let now = 1_111_111_111;
        let code = t.generate(now);
        let step = i64::try_from(now / 30).unwrap();
        assert_eq!(accepted_step(secret, &code, now, None), Some(step));
        assert_eq!(accepted_step(secret, &code, now + 30, None), Some(step));
        assert_eq!(accepted_step(secret, &code, now - 30, None), Some(step));
        assert_eq!(accepted_step(secret, &code, now + 60, None), None);
        // Used once: not again.
        assert_eq!(accepted_step(secret, &code, now, Some(step)), None);
        assert_eq!(accepted_step(secret, "12345", now, None), None);
        assert_eq!(accepted_step(secret, "abcdef", now, None), None);
    }

    #[test]
    fn the_qr_code_is_an_svg_image() {
        let svg =
            qr_svg("otpauth://totp/Stockbook:a%40example.com?secret=ABC&issuer=Stockbook").unwrap();
        assert!(svg.contains("<svg"), "{svg}");
    }
}
