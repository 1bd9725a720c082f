//! `/api/members`: the members of an entity, their invitations and roles
//! (docs/auth.md#members-and-roles). The rules and their SQL are `crate::scope::members`,
//! beside the scope that reads the roles; these handlers parse, call them and answer.

pub mod openapi;

use rocket::request::{FromRequest, Outcome, Request};
use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, Route, State};
use serde::Serialize;
use serde_json::{json, Value};

use crate::auth::{token, SessionUser};
use crate::clock::{rfc3339, Clock};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{IdBody, JsonBody};
use crate::http::{data, Created};
use crate::scope::members::{self, Invite, Member, RoleChange};

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove]
}

/// A new invitation: the member row and the link to pass on, shown this once.
#[derive(Debug, Serialize)]
pub struct Invited {
    #[serde(flatten)]
    pub member: Member,
    pub invite_url: String,
}

/// Where the web app is served, as the browser reached it: the invitation link's start.
pub struct Origin(String);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for Origin {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        let scheme = if crate::auth::cookie_is_secure(req) {
            "https"
        } else {
            "http"
        };
        Outcome::Success(Origin(match req.host() {
            Some(host) => format!("{scheme}://{host}"),
            None => String::new(),
        }))
    }
}

#[get("/members?<entityId>")]
#[allow(non_snake_case)]
async fn list(
    user: SessionUser,
    entityId: Option<String>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let raw = entityId.ok_or_else(|| AppError::missing("entityId"))?;
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let entity = scope.entity(conn, "entityId", &raw)?;
            members::list_members(conn, &scope, &entity)
        })
        .await?;
    Ok(data(rows))
}

#[post("/members", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<Invite>,
    db: &State<Db>,
    clock: &State<Clock>,
    origin: Origin,
) -> AppResult<Created<Invited>> {
    let b = body.into_inner();
    let scope = user.scope();
    let raw = token::random_base62(43);
    let digest = token::digest(&raw);
    let now = clock.now();
    let member = db
        .write(move |tx| {
            members::invite(tx, &scope, b, &digest, now.unix_timestamp(), &rfc3339(now))
        })
        .await?;
    Ok(Created(Invited {
        member,
        invite_url: format!("{}/#/invite?token={raw}", origin.0),
    }))
}

#[put("/members", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<RoleChange>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let b = body.into_inner();
    let scope = user.scope();
    let m = db
        .write(move |tx| members::change_role(tx, &scope, b))
        .await?;
    Ok(data(m))
}

#[delete("/members", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let id = body.id()?;
    let scope = user.scope();
    db.write(move |tx| members::remove(tx, &scope, &id)).await?;
    Ok(data(json!({ "success": true })))
}
