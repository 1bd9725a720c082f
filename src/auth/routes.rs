//! `/api/auth/*`: signup, login, logout, logout-all (sign out everywhere), me.

use rocket::http::CookieJar;
use rocket::serde::json::Json;
use rocket::{get, post, routes, Route, State};
use serde::Deserialize;
use serde_json::{json, Value};

use super::accounts::{
    end_every_session, end_session, normalise_email, sign_in, sign_up, signup_status,
    wrong_password, NewAccount, SecondFactor, SignedIn, Signup,
};
use super::password::HashGate;
use super::throttle::{self, Attempt};
use super::{
    clear_cookie, password, session_cookie, Lifetime, SecureCookie, SessionCache, SessionUser,
};
use crate::clock::{rfc3339, Clock};
use crate::config::{AppConfig, SignupMode};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;
use crate::http::Created;
use crate::scope::members;

pub fn routes() -> Vec<Route> {
    routes![signup, login, logout, logout_all, me, status]
}

#[derive(Deserialize)]
struct SignupBody {
    email: String,
    password: String,
    #[serde(default)]
    name: Option<String>,
    /// Accepts an invitation (docs/auth.md#members-and-roles).
    #[serde(default)]
    invite_token: Option<String>,
}

#[derive(Deserialize)]
struct LoginBody {
    email: String,
    password: String,
    #[serde(default)]
    invite_token: Option<String>,
    /// The second factor, when the account has two-factor sign-in on.
    #[serde(default)]
    totp: Option<String>,
    #[serde(default)]
    recovery_code: Option<String>,
}

#[post("/auth/signup", data = "<body>")]
async fn signup(
    body: JsonBody<SignupBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
    clock: &State<Clock>,
    gate: &State<HashGate>,
    secure: SecureCookie,
    jar: &CookieJar<'_>,
) -> AppResult<Created<Value>> {
    let body = body.into_inner();
    let invite = invite_digest(body.invite_token.as_deref());
    let Signup {
        email,
        email_key,
        name,
        password,
    } = Signup::check(&body.email, body.password, body.name)?;
    let permit = gate.enter().await?;
    let password_hash = rocket::tokio::task::spawn_blocking(move || password::hash(&password))
        .await
        .map_err(|e| AppError::internal(e.to_string()))??;
    drop(permit);
    let account = NewAccount {
        email,
        email_key,
        name,
        password_hash,
    };
    let mode = config.signup;
    let clock = clock.inner().clone();
    let lifetime = Lifetime::of(config);
    let (user, token) = db
        .write(move |tx| sign_up_invited(tx, account, mode, invite.as_deref(), &clock, &lifetime))
        .await?;
    jar.add(session_cookie(token.0, token.1, secure.0));
    Ok(Created(json!(user)))
}

#[post("/auth/login", data = "<body>")]
async fn login(
    body: JsonBody<LoginBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
    clock: &State<Clock>,
    gate: &State<HashGate>,
    secure: SecureCookie,
    jar: &CookieJar<'_>,
) -> AppResult<Json<Value>> {
    let body = body.into_inner();
    let wrong = || AppError::Unauthorized("Invalid email or password".into());
    if normalise_email(&body.email).is_none() {
        return Err(wrong());
    }
    // As typed: the throttle and the lookup compare its key (docs/auth.md#sign-up).
    let email = body.email.trim().to_owned();
    let clock = clock.inner().clone();
    let lifetime = Lifetime::of(config);
    let db = db.inner().clone();

    // A permit to hash first: when the gate is full the attempt is refused (503) before
    // it costs a write or counts against the email.
    let permit = gate.enter().await?;
    let attempt = {
        let email = email.clone();
        let now = clock.now().unix_timestamp();
        db.write(move |tx| throttle::begin(tx, &email, now)).await?
    };
    let found = match attempt {
        Attempt::Refused { retry_after } => {
            return Err(AppError::TooManyRequests {
                message: "Too many failed sign-in attempts for this email; try again later".into(),
                retry_after,
            })
        }
        Attempt::Counted(found) => found,
    };
    let code = SecondFactor {
        totp: body.totp,
        recovery_code: body.recovery_code,
    };
    let pw = body.password;
    let stored = found.as_ref().map(|(_, h)| h.clone());
    let ok = rocket::tokio::task::spawn_blocking(move || match stored {
        Some(h) => password::verify(&pw, &h),
        None => {
            password::verify(&pw, password::dummy_hash());
            false
        }
    })
    .await
    .map_err(|e| AppError::internal(e.to_string()))?;
    drop(permit);

    match (ok, found) {
        (true, Some((user, _))) => {
            let uid = user.id.clone();
            let invite = invite_digest(body.invite_token.as_deref());
            let signed_in = db
                .write(move |tx| {
                    let signed = sign_in(tx, &email, &uid, &code, &clock, &lifetime)?;
                    // The invitation is taken only by a sign-in that succeeded, second
                    // factor included (docs/auth.md#members-and-roles).
                    if let (SignedIn::Session(..), Some(digest)) = (&signed, &invite) {
                        let now = clock.now();
                        members::accept(tx, digest, &uid, now.unix_timestamp(), &rfc3339(now))?;
                    }
                    Ok(signed)
                })
                .await?;
            let (token, max_age) = match signed_in {
                SignedIn::Session(token, max_age) => (token, max_age),
                SignedIn::Refused(e) => return Err(e),
            };
            jar.add(session_cookie(token, max_age, secure.0));
            Ok(Json(json!({ "data": user })))
        }
        (false, Some((user, _))) => {
            db.write(move |tx| wrong_password(tx, &user.id)).await?;
            Err(wrong())
        }
        // The attempt is already recorded as a failure.
        _ => Err(wrong()),
    }
}

/// The digest of an invitation token sent with a sign-up or sign-in; blank is none.
fn invite_digest(raw: Option<&str>) -> Option<String> {
    raw.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(super::token::digest)
}

/// [`sign_up`] accepting an invitation in the same write: the invitation is checked
/// first (400 creates nothing) and opens sign-up even under `first-user`
/// (docs/auth.md#members-and-roles).
fn sign_up_invited(
    tx: &rusqlite::Transaction,
    account: NewAccount,
    mode: SignupMode,
    invite: Option<&str>,
    clock: &Clock,
    lifetime: &Lifetime,
) -> AppResult<(super::User, (String, i64))> {
    let Some(digest) = invite else {
        return sign_up(tx, account, mode, clock, lifetime);
    };
    let now = clock.now();
    members::open_invitation(tx, digest, now.unix_timestamp())?;
    let (user, token) = sign_up(tx, account, SignupMode::Open, clock, lifetime)?;
    members::accept(tx, digest, &user.id, now.unix_timestamp(), &rfc3339(now))?;
    Ok((user, token))
}

#[post("/auth/logout", data = "<_body>")]
async fn logout(
    user: SessionUser,
    _body: JsonBody<serde::de::IgnoredAny>,
    db: &State<Db>,
    cache: &State<SessionCache>,
    jar: &CookieJar<'_>,
) -> AppResult<Json<Value>> {
    let hash = user.token_hash.clone();
    db.write(move |tx| end_session(tx, &hash)).await?;
    cache.evict(&user.token_hash);
    clear_cookie(jar);
    Ok(Json(json!({ "data": { "success": true } })))
}

/// Sign out everywhere: ends every session of the user, this one included.
#[post("/auth/logout-all", data = "<_body>")]
async fn logout_all(
    user: SessionUser,
    _body: JsonBody<serde::de::IgnoredAny>,
    db: &State<Db>,
    cache: &State<SessionCache>,
    jar: &CookieJar<'_>,
) -> AppResult<Json<Value>> {
    let uid = user.user.id.clone();
    db.write(move |tx| end_every_session(tx, &uid)).await?;
    cache.evict_user(&user.user.id);
    clear_cookie(jar);
    Ok(Json(json!({ "data": { "success": true } })))
}

#[get("/auth/me")]
fn me(user: SessionUser) -> Json<Value> {
    let u = user.user;
    Json(json!({ "data": { "id": u.id, "email": u.email, "name": u.name } }))
}

/// Public: whether the web app opens on sign-up or sign-in (docs/auth.md#sign-up-status).
#[get("/auth/status")]
async fn status(db: &State<Db>, config: &State<AppConfig>) -> AppResult<Json<Value>> {
    let mode = config.signup;
    let (signup, users) = db.read(move |c| signup_status(c, mode)).await?;
    Ok(Json(
        json!({ "data": { "signup": signup, "users": users } }),
    ))
}
