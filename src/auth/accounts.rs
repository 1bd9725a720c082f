//! The rules of sign-up, sign-in and sign-out (docs/auth.md#sign-up,
//! docs/auth.md#sign-in-and-sign-out), beside the SQL they run. Password hashing and its
//! gate, the throttle's timing and the cookie stay with the handlers (`super::routes`):
//! these functions are what runs in the write.

use rusqlite::{params, Transaction};

use super::two_factor::{self, Proof};
use super::{create_session, throttle, user_by_email, Lifetime, User};
use crate::clock::{rfc3339, Clock};
use crate::config::SignupMode;
use crate::db::audit;
use crate::db::ident::compare_key;
use crate::error::{AppError, AppResult};

/// The compare key of an email: what sign-in, the throttle and the uniqueness of accounts
/// go by (docs/auth.md#sign-up); `None` when it is not an address.
pub fn normalise_email(raw: &str) -> Option<String> {
    let e = compare_key(raw);
    let (local, domain) = e.split_once('@')?;
    let ok = !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && e.len() <= 254
        && raw.trim().len() <= 254
        && !e.chars().any(char::is_whitespace);
    ok.then_some(e)
}

/// A sign-up as sent, checked before its password is hashed.
#[derive(Debug)]
pub struct Signup {
    /// As typed (trimmed).
    pub email: String,
    pub email_key: String,
    pub name: Option<String>,
    pub password: String,
}

impl Signup {
    /// 400 for an email that is not an address, or a password shorter than 8
    /// characters or longer than 1,024 bytes; a blank name is none.
    pub fn check(email: &str, password: String, name: Option<String>) -> AppResult<Self> {
        let email_key = normalise_email(email)
            .ok_or_else(|| AppError::invalid("email", "not an email address"))?;
        // Kept as typed for display; compared by its key.
        let email = email.trim().to_owned();
        if password.chars().count() < 8 {
            return Err(AppError::invalid(
                "password",
                "must be at least 8 characters",
            ));
        }
        if password.len() > 1024 {
            return Err(AppError::invalid("password", "must be at most 1024 bytes"));
        }
        let name = name.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
        Ok(Self {
            email,
            email_key,
            name,
            password,
        })
    }
}

/// A checked [`Signup`] with its password hashed.
#[derive(Debug)]
pub struct NewAccount {
    pub email: String,
    pub email_key: String,
    pub name: Option<String>,
    pub password_hash: String,
}

/// Creates an account and signs it in: the user and the session's raw token and
/// `Max-Age`. 403 when sign-up is `first-user` and an account exists, 409 when the
/// email has one.
/// What the sign-in screen may know before anyone signs in (docs/auth.md#sign-up-status):
/// whether sign-up is open, open to the first account only, or closed, and whether any
/// account exists. Nothing else: no count, no email.
pub fn signup_status(
    c: &rusqlite::Connection,
    mode: SignupMode,
) -> AppResult<(&'static str, bool)> {
    let users: bool = c.query_row("SELECT EXISTS (SELECT 1 FROM users)", [], |r| r.get(0))?;
    let signup = match (mode, users) {
        (SignupMode::Open, _) => "open",
        (SignupMode::FirstUser, false) => "first-user",
        (SignupMode::FirstUser, true) => "closed",
    };
    Ok((signup, users))
}

pub fn sign_up(
    tx: &Transaction,
    account: NewAccount,
    mode: SignupMode,
    clock: &Clock,
    lifetime: &Lifetime,
) -> AppResult<(User, (String, i64))> {
    if mode == SignupMode::FirstUser {
        let n: i64 = tx.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?;
        if n > 0 {
            return Err(AppError::forbidden(
                "Sign-up is closed: this installation already has an account",
            ));
        }
    }
    if user_by_email(tx, &account.email_key)?.is_some() {
        return Err(AppError::refused(
            "email_taken",
            "An account with this email already exists",
        ));
    }
    let user = User {
        id: uuid::Uuid::new_v4().to_string(),
        email: account.email,
        name: account.name,
        created_at: rfc3339(clock.now()),
    };
    tx.execute(
        "INSERT INTO users (id, email, name, password_hash, created_at, email_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            user.id,
            user.email,
            user.name,
            account.password_hash,
            user.created_at,
            account.email_key
        ],
    )?;
    let token = create_session(tx, &user.id, clock, lifetime)?;
    audit::sign_in(tx, &user.id, true, "sign_up")?;
    Ok((user, token))
}

/// What a sign-in whose password was right comes to.
#[derive(Debug)]
pub enum SignedIn {
    /// A session: its raw token and `Max-Age`.
    Session(String, i64),
    /// Refused for its second factor (missing or wrong): the answer to give, the failure
    /// kept for the throttle and the trail.
    Refused(AppError),
}

/// Signs in user `user_id`, whose password for `email` was just verified, once its second
/// factor (when it has one, docs/auth.md#two-factor-sign-in) passes: clears the email's
/// failed attempts, removes every expired session (they can never be used again; sign-in
/// is when they go), starts a session and records how it was opened. A missing or wrong
/// code leaves the attempt counted as a failure and writes a failed sign-in to the trail.
pub fn sign_in(
    tx: &Transaction,
    email: &str,
    user_id: &str,
    code: &SecondFactor,
    clock: &Clock,
    lifetime: &Lifetime,
) -> AppResult<SignedIn> {
    let now = clock.now();
    let at = rfc3339(now);
    let secs = u64::try_from(now.unix_timestamp()).unwrap_or(0);
    let factor = match two_factor::prove(
        tx,
        user_id,
        code.totp.as_deref(),
        code.recovery_code.as_deref(),
        secs,
        &at,
    )? {
        Proof::Passed(f) => f,
        Proof::Missing => {
            return Ok(SignedIn::Refused(AppError::Unauthorized(
                "Two-factor code required".into(),
            )))
        }
        Proof::Wrong => {
            audit::sign_in(tx, user_id, false, "second_factor")?;
            return Ok(SignedIn::Refused(AppError::Unauthorized(
                "Invalid two-factor code".into(),
            )));
        }
    };
    throttle::succeeded(tx, email)?;
    tx.execute(
        "DELETE FROM sessions WHERE expires_at <= ?1",
        [now.unix_timestamp()],
    )?;
    let (token, max_age) = create_session(tx, user_id, clock, lifetime)?;
    two_factor::mark_session(tx, &super::token::digest(&token), &factor, &at)?;
    audit::sign_in(tx, user_id, true, factor.method())?;
    Ok(SignedIn::Session(token, max_age))
}

/// The second factor sent with a sign-in.
#[derive(Debug, Default, Clone)]
pub struct SecondFactor {
    pub totp: Option<String>,
    pub recovery_code: Option<String>,
}

/// A wrong password for an existing account: the trail's failed sign-in (the throttle
/// counted it already).
pub fn wrong_password(tx: &Transaction, user_id: &str) -> AppResult<()> {
    audit::sign_in(tx, user_id, false, "password")
}

/// Ends the session whose token hashes to `token_hash` (sign-out).
pub fn end_session(tx: &Transaction, token_hash: &str) -> AppResult<()> {
    tx.execute("DELETE FROM sessions WHERE token_hash = ?1", [token_hash])?;
    Ok(())
}

/// Ends every session of a user (sign-out everywhere).
pub fn end_every_session(tx: &Transaction, user_id: &str) -> AppResult<()> {
    tx.execute("DELETE FROM sessions WHERE user_id = ?1", [user_id])?;
    Ok(())
}
