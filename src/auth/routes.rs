//! `/api/auth/*`: signup, login, logout, logout-all (sign out everywhere), me.

use rocket::http::CookieJar;
use rocket::serde::json::Json;
use rocket::{get, post, routes, Route, State};
use rusqlite::params;
use serde::Deserialize;
use serde_json::{json, Value};

use super::password::HashGate;
use super::throttle::{self, Attempt};
use super::{
    clear_cookie, create_session, password, session_cookie, user_by_email, Lifetime, SecureCookie,
    SessionCache, SessionUser, User,
};
use crate::clock::{rfc3339, Clock};
use crate::config::{AppConfig, SignupMode};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;
use crate::http::Created;

pub fn routes() -> Vec<Route> {
    routes![signup, login, logout, logout_all, me]
}

#[derive(Deserialize)]
struct SignupBody {
    email: String,
    password: String,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct LoginBody {
    email: String,
    password: String,
}

fn normalise_email(raw: &str) -> Option<String> {
    let e = raw.trim().to_lowercase();
    let (local, domain) = e.split_once('@')?;
    let ok = !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && e.len() <= 254
        && !e.chars().any(char::is_whitespace);
    ok.then_some(e)
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
    let email = normalise_email(&body.email)
        .ok_or_else(|| AppError::invalid("email", "not an email address"))?;
    if body.password.chars().count() < 8 {
        return Err(AppError::invalid(
            "password",
            "must be at least 8 characters",
        ));
    }
    if body.password.len() > 1024 {
        return Err(AppError::invalid("password", "must be at most 1024 bytes"));
    }
    let name = body
        .name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    let pw = body.password;
    let permit = gate.enter().await?;
    let hash = rocket::tokio::task::spawn_blocking(move || password::hash(&pw))
        .await
        .map_err(|e| AppError::internal(e.to_string()))??;
    drop(permit);
    let mode = config.signup;
    let clock = clock.inner().clone();
    let lifetime = Lifetime::of(config);
    let (user, token) = db
        .write(move |tx| {
            if mode == SignupMode::FirstUser {
                let n: i64 = tx.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?;
                if n > 0 {
                    return Err(AppError::forbidden(
                        "Sign-up is closed: this installation already has an account",
                    ));
                }
            }
            if user_by_email(tx, &email)?.is_some() {
                return Err(AppError::conflict("An account with this email already exists"));
            }
            let user = User {
                id: uuid::Uuid::new_v4().to_string(),
                email,
                name,
                created_at: rfc3339(clock.now()),
            };
            tx.execute(
                "INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![user.id, user.email, user.name, hash, user.created_at],
            )?;
            let token = create_session(tx, &user.id, &clock, &lifetime)?;
            Ok((user, token))
        })
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
    let Some(email) = normalise_email(&body.email) else {
        return Err(wrong());
    };
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
            let (token, max_age) = db
                .write(move |tx| {
                    throttle::succeeded(tx, &email)?;
                    // Expired sessions can never be used again; sign-in is when they go.
                    tx.execute(
                        "DELETE FROM sessions WHERE expires_at <= ?1",
                        [clock.now().unix_timestamp()],
                    )?;
                    create_session(tx, &uid, &clock, &lifetime)
                })
                .await?;
            jar.add(session_cookie(token, max_age, secure.0));
            Ok(Json(json!({ "data": user })))
        }
        // The attempt is already recorded as a failure.
        _ => Err(wrong()),
    }
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
    db.write(move |tx| {
        tx.execute("DELETE FROM sessions WHERE token_hash = ?1", [hash])?;
        Ok(())
    })
    .await?;
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
    db.write(move |tx| {
        tx.execute("DELETE FROM sessions WHERE user_id = ?1", [uid])?;
        Ok(())
    })
    .await?;
    cache.evict_user(&user.user.id);
    clear_cookie(jar);
    Ok(Json(json!({ "data": { "success": true } })))
}

#[get("/auth/me")]
fn me(user: SessionUser) -> Json<Value> {
    let u = user.user;
    Json(json!({ "data": { "id": u.id, "email": u.email, "name": u.name } }))
}
