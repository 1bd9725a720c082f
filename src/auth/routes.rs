//! `/api/auth/*`: signup, login, logout, me.

use rocket::http::CookieJar;
use rocket::serde::json::Json;
use rocket::{get, post, routes, Route, State};
use rusqlite::params;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    clear_cookie, create_session, password, session_cookie, user_by_email, SessionUser, User,
    THROTTLE_MAX_FAILURES, THROTTLE_WINDOW_SECS,
};
use crate::clock::{rfc3339, Clock};
use crate::config::{AppConfig, SignupMode};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;
use crate::http::Created;

pub fn routes() -> Vec<Route> {
    routes![signup, login, logout, me]
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
    let hash = rocket::tokio::task::spawn_blocking(move || password::hash(&pw))
        .await
        .map_err(|e| AppError::internal(e.to_string()))??;
    let mode = config.signup;
    let clock = clock.inner().clone();
    let days = config.session_days;
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
            let token = create_session(tx, &user.id, &clock, days)?;
            Ok((user, token))
        })
        .await?;
    jar.add(session_cookie(token, days));
    Ok(Created(json!(user)))
}

#[post("/auth/login", data = "<body>")]
async fn login(
    body: JsonBody<LoginBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
    clock: &State<Clock>,
    jar: &CookieJar<'_>,
) -> AppResult<Json<Value>> {
    let body = body.into_inner();
    let wrong = || AppError::Unauthorized("Invalid email or password".into());
    let Some(email) = normalise_email(&body.email) else {
        return Err(wrong());
    };
    let clock = clock.inner().clone();
    let days = config.session_days;
    let db = db.inner().clone();

    // The throttle is checked before the password, so a locked email learns nothing. The
    // check and the record of this attempt are one transaction: the attempt counts as a
    // failure from here on (a correct password clears the count), so parallel wrong
    // attempts cannot slip past the limit while their passwords are being checked.
    let (found, refused) = {
        let email = email.clone();
        let clock = clock.clone();
        db.write(move |tx| {
            let now = clock.now().unix_timestamp();
            // Failures older than the window no longer count: keep the table small.
            tx.execute(
                "DELETE FROM login_failures WHERE at <= ?1",
                [now - THROTTLE_WINDOW_SECS],
            )?;
            let (n, oldest): (i64, Option<i64>) = tx.query_row(
                "SELECT COUNT(*), MIN(at) FROM login_failures WHERE email = ?1",
                [&email],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            if n >= THROTTLE_MAX_FAILURES {
                let retry_after = (oldest.unwrap_or(now) + THROTTLE_WINDOW_SECS - now).max(1);
                return Ok((None, Some(retry_after)));
            }
            tx.execute(
                "INSERT INTO login_failures (email, at) VALUES (?1, ?2)",
                params![email, now],
            )?;
            Ok((user_by_email(tx, &email)?, None))
        })
        .await?
    };
    if let Some(retry_after) = refused {
        return Err(AppError::TooManyRequests {
            message: "Too many failed sign-in attempts for this email; try again later".into(),
            retry_after: u64::try_from(retry_after).unwrap_or(1),
        });
    }
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

    match (ok, found) {
        (true, Some((user, _))) => {
            let uid = user.id.clone();
            let token = db
                .write(move |tx| {
                    tx.execute("DELETE FROM login_failures WHERE email = ?1", [&email])?;
                    // Expired sessions can never be used again; sign-in is when they go.
                    tx.execute(
                        "DELETE FROM sessions WHERE expires_at <= ?1",
                        [clock.now().unix_timestamp()],
                    )?;
                    create_session(tx, &uid, &clock, days)
                })
                .await?;
            jar.add(session_cookie(token, days));
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
    cache: &State<super::SessionCache>,
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

#[get("/auth/me")]
fn me(user: SessionUser) -> Json<Value> {
    let u = user.user;
    Json(json!({ "data": { "id": u.id, "email": u.email, "name": u.name } }))
}
