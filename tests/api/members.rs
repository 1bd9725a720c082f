//! Members, invitations and roles (docs/auth.md#members-and-roles): an owner invites by a
//! single-use link, the invitee joins by signing up (even when sign-up is closed) or
//! signing in, each role reaches what the table says, and a role change or a removal
//! holds from the next request on, for sessions and API keys alike.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};
use stockbook::scope::{members, Cap, Scope};

/// The app's current session, to switch between users.
fn session(t: &TestApp) -> Option<String> {
    t.session.borrow().clone()
}

fn use_session(t: &TestApp, s: &Option<String>) {
    t.session.borrow_mut().clone_from(s);
}

/// Invites `email` into `entity` as `role` (as the signed-in owner); the member and the
/// token of its link.
fn invite(t: &TestApp, entity: &str, email: &str, role: &str) -> (Value, String) {
    let (s, v) = t.post(
        "/api/members",
        json!({ "entity_id": entity, "email": email, "role": role }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let url = v["data"]["invite_url"].as_str().unwrap().to_owned();
    let token = url.split_once("#/invite?token=").unwrap().1.to_owned();
    (v["data"].clone(), token)
}

/// Signs up `email` with an invitation token; keeps the new session.
fn join_by_signup(t: &TestApp, email: &str, token: &str) -> (Status, Value) {
    let res = t
        .client
        .post("/api/auth/signup")
        .header(rocket::http::ContentType::JSON)
        .body(
            json!({ "email": email, "password": PASSWORD, "name": "Sam", "invite_token": token })
                .to_string(),
        )
        .dispatch();
    if let Some(c) = res.cookies().get("stockbook_session") {
        *t.session.borrow_mut() = Some(c.value().to_owned());
    }
    body(res)
}

fn users(t: &TestApp) -> i64 {
    t.db.read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?))
        .unwrap()
}

fn members_of(t: &TestApp, entity: &str) -> Vec<Value> {
    let (s, v) = t.get(&format!("/api/members?entityId={entity}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

/// An owner with entity Acme, and `email` a member of it as `role`, signed in; the
/// owner's session, the member's session, the entity and the member's id.
struct Team {
    t: TestApp,
    owner: Option<String>,
    member: Option<String>,
    entity: String,
    member_id: String,
}

fn team(role: &str) -> Team {
    let (t, entity) = app_with_entity();
    let owner = session(&t);
    let (m, token) = invite(&t, &entity, "sam@example.com", role);
    let (s, v) = join_by_signup(&t, "sam@example.com", &token);
    assert_eq!(s, Status::Created, "{v}");
    Team {
        member: session(&t),
        owner,
        entity,
        member_id: m["id"].as_str().unwrap().to_owned(),
        t,
    }
}

impl Team {
    fn as_owner(&self) {
        use_session(&self.t, &self.owner);
    }

    fn as_member(&self) {
        use_session(&self.t, &self.member);
    }
}

fn product(t: &TestApp, entity: &str, name: &str) -> (Status, Value) {
    t.post(
        "/api/products",
        json!({ "name": name, "entity_id": entity, "unit_price": 5, "cost_price": 2 }),
    )
}

#[test]
fn the_creator_of_an_entity_is_its_owner_and_its_only_member() {
    let (t, entity) = app_with_entity();
    let list = members_of(&t, &entity);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["role"], "owner");
    assert_eq!(list[0]["status"], "active");
    assert_eq!(list[0]["email"], "owner@example.com");
    let (_, v) = t.get("/api/entities");
    assert_eq!(v["data"][0]["role"], "owner");
}

#[test]
fn an_invitation_is_a_single_use_link_valid_seven_days_stored_only_as_a_digest() {
    let (t, entity) = app_with_entity();
    let (m, token) = invite(&t, &entity, "Sam@Example.com", "staff");
    assert_eq!(m["status"], "invited");
    assert_eq!(m["role"], "staff");
    assert!(m["user_id"].is_null());
    assert!(m["invite_url"]
        .as_str()
        .unwrap()
        .contains("/#/invite?token="));
    assert!(token.len() >= 40, "{token}");
    let stored: i64 =
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM members WHERE invite_hash = ?1",
                [&token],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(stored, 0, "the raw token is never stored");
    // The list shows the invitation without its link.
    let list = members_of(&t, &entity);
    assert_eq!(list.len(), 2);
    assert!(list[1].get("invite_url").is_none());
    // A bad role or email is 400.
    let bad = t.post(
        "/api/members",
        json!({ "entity_id": entity, "email": "x@example.com", "role": "boss" }),
    );
    assert!(assert_error(&bad, Status::BadRequest).contains("role"));
    let bad = t.post(
        "/api/members",
        json!({ "entity_id": entity, "email": "nope", "role": "staff" }),
    );
    assert!(assert_error(&bad, Status::BadRequest).contains("email"));
}

#[test]
fn the_invitee_joins_by_signing_up_even_when_sign_up_is_closed_to_all_but_the_first() {
    let t = app_with(&[("signup", json!("first-user"))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    // Closed without an invitation ...
    let closed = signup_with(
        &t,
        json!({ "email": "sam@example.com", "password": PASSWORD }),
    );
    assert_error(&closed, Status::Forbidden);
    let (_, token) = invite(&t, &entity, "sam@example.com", "viewer");
    // ... open with one.
    let (s, v) = join_by_signup(&t, "sam@example.com", &token);
    assert_eq!(s, Status::Created, "{v}");
    let (_, mine) = t.get("/api/entities");
    assert_eq!(mine["data"][0]["id"], json!(entity));
    assert_eq!(mine["data"][0]["role"], "viewer");
    let (s, _) = t.get(&format!("/api/products?entityId={entity}"));
    assert_eq!(s, Status::Ok);
}

#[test]
fn an_existing_account_joins_by_signing_in_with_the_token() {
    let (t, entity) = app_with_entity();
    let owner = session(&t);
    t.signup("sam@example.com");
    use_session(&t, &owner);
    let (_, token) = invite(&t, &entity, "sam@example.com", "accountant");
    let (s, v) = body(
        t.client
            .post("/api/auth/login")
            .header(rocket::http::ContentType::JSON)
            .body(
                json!({ "email": "sam@example.com", "password": PASSWORD, "invite_token": token })
                    .to_string(),
            )
            .dispatch(),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let list = members_of(&t, &entity);
    let sam = list
        .iter()
        .find(|m| m["email"] == "sam@example.com")
        .unwrap();
    assert_eq!(sam["status"], "active");
    assert_eq!(sam["role"], "accountant");
    assert!(sam["joined_at"].is_string());
}

#[test]
fn a_used_expired_or_unknown_token_is_400_and_creates_nothing() {
    let (t, entity) = app_with_entity();
    let owner = session(&t);
    let (_, token) = invite(&t, &entity, "sam@example.com", "staff");
    let before = users(&t);

    // Unknown.
    let unknown = signup_with(
        &t,
        json!({ "email": "eve@example.com", "password": PASSWORD, "invite_token": "nope" }),
    );
    assert!(assert_error(&unknown, Status::BadRequest).contains("invite_token"));
    assert_eq!(users(&t), before);

    // Used: the first sign-up takes it, the second is refused and creates no account.
    let (s, _) = join_by_signup(&t, "sam@example.com", &token);
    assert_eq!(s, Status::Created);
    let used = signup_with(
        &t,
        json!({ "email": "eve@example.com", "password": PASSWORD, "invite_token": token }),
    );
    assert!(assert_error(&used, Status::BadRequest).contains("already been used"));
    assert_eq!(users(&t), before + 1);

    // Expired: seven days on, neither sign-up nor sign-in joins.
    use_session(&t, &owner);
    let (_, late) = invite(&t, &entity, "lee@example.com", "staff");
    t.clock.advance(7 * 86_400);
    let expired = signup_with(
        &t,
        json!({ "email": "lee@example.com", "password": PASSWORD, "invite_token": late }),
    );
    assert!(assert_error(&expired, Status::BadRequest).contains("expired"));
    assert_eq!(users(&t), before + 1);
    let expired = body(
        t.client
            .post("/api/auth/login")
            .header(rocket::http::ContentType::JSON)
            .body(
                json!({ "email": "owner@example.com", "password": PASSWORD, "invite_token": late })
                    .to_string(),
            )
            .dispatch(),
    );
    assert_error(&expired, Status::BadRequest);
    assert!(expired.1.get("data").is_none());
    let list = members_of(&t, &entity);
    assert_eq!(list.len(), 3, "the owner, sam, and lee's open invitation");
}

#[test]
fn a_member_acts_as_their_role_allows_and_their_records_land_in_the_owners_books() {
    let team = team("staff");
    let t = &team.t;
    team.as_member();
    // Staff write stock ...
    let (s, p) = product(t, &team.entity, "Mug");
    assert_eq!(s, Status::Created, "{p}");
    // ... and cannot read the books: 403 naming the role.
    let refused = t.get(&format!("/api/invoices?entityId={}", team.entity));
    let message = assert_error(&refused, Status::Forbidden);
    assert!(message.contains("Your role (staff) cannot"), "{message}");
    let refused = t.post(
        "/api/contacts",
        json!({ "name": "Ann", "entity_id": team.entity }),
    );
    assert!(assert_error(&refused, Status::Forbidden).contains("staff"));
    // Nor manage members or settings.
    let refused = t.get(&format!("/api/members?entityId={}", team.entity));
    assert_error(&refused, Status::Forbidden);
    let refused = t.put(
        "/api/entities",
        json!({ "id": team.entity, "name": "Mine now" }),
    );
    assert_error(&refused, Status::Forbidden);
    // The owner sees the member's product in their books.
    team.as_owner();
    let (_, list) = t.get(&format!("/api/products?entityId={}", team.entity));
    assert_eq!(list["data"][0]["name"], "Mug");
    let (_, all) = t.get("/api/products");
    assert_eq!(all["data"].as_array().unwrap().len(), 1);
}

#[test]
fn a_list_without_an_entity_shows_every_entity_the_caller_belongs_to_and_their_own_records() {
    let team = team("viewer");
    let t = &team.t;
    team.as_owner();
    assert_eq!(product(t, &team.entity, "Mug").0, Status::Created);
    let other = t.entity("Owner's other business");
    assert_eq!(product(t, &other, "Secret").0, Status::Created);
    team.as_member();
    let own = t.entity("Sam's stall");
    assert_eq!(product(t, &own, "Stall item").0, Status::Created);
    let (s, v) = t.get("/api/products");
    assert_eq!(s, Status::Ok, "{v}");
    let mut names: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Mug", "Stall item"]);
    // An entity they are not a member of is 404, as an unknown one.
    assert_error(
        &t.get(&format!("/api/products?entityId={other}")),
        Status::NotFound,
    );
    // A viewer reads but does not write: 403 naming the role, also for a record by id.
    let refused = product(t, &team.entity, "Cup");
    assert!(assert_error(&refused, Status::Forbidden).contains("Your role (viewer)"));
    let mug = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Mug")
        .unwrap()["id"]
        .clone();
    let refused = t.put("/api/products", json!({ "id": mug, "name": "Jug" }));
    assert!(assert_error(&refused, Status::Forbidden).contains("viewer"));
    let (s, _) = t.get(&format!("/api/invoices?entityId={}", team.entity));
    assert_eq!(s, Status::Ok);
}

#[test]
fn a_role_change_holds_from_the_next_request() {
    let team = team("viewer");
    let t = &team.t;
    team.as_member();
    assert_error(&product(t, &team.entity, "Mug"), Status::Forbidden);
    team.as_owner();
    let (s, v) = t.put(
        "/api/members",
        json!({ "id": team.member_id, "role": "manager" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["role"], "manager");
    team.as_member();
    assert_eq!(product(t, &team.entity, "Mug").0, Status::Created);
    team.as_owner();
    t.put(
        "/api/members",
        json!({ "id": team.member_id, "role": "staff" }),
    );
    team.as_member();
    assert_error(
        &t.get(&format!("/api/bills?entityId={}", team.entity)),
        Status::Forbidden,
    );
}

#[test]
fn removal_cuts_the_members_sessions_and_api_keys_at_once() {
    let team = team("manager");
    let t = &team.t;
    team.as_member();
    let (s, k) = t.post(
        "/api/api-keys",
        json!({ "name": "Till", "entity_id": team.entity }),
    );
    assert_eq!(s, Status::Created, "{k}");
    let key = k["data"]["raw_key"].as_str().unwrap().to_owned();
    let (s, u) = t.post("/api/api-keys", json!({ "name": "Everywhere" }));
    assert_eq!(s, Status::Created, "{u}");
    let unscoped = u["data"]["raw_key"].as_str().unwrap().to_owned();
    let (s, _) = t.post_with_key(
        "/api/v1/contacts",
        &key,
        json!({ "name": "Ann", "entity_id": team.entity }),
    );
    assert_eq!(s, Status::Created);
    assert_eq!(
        t.get_with_key("/api/v1/contacts", &unscoped).1["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // The session read its user a moment ago (the session cache keeps it); the removal
    // holds anyway.
    assert_eq!(
        t.get(&format!("/api/products?entityId={}", team.entity)).0,
        Status::Ok
    );

    team.as_owner();
    let (s, v) = t.delete("/api/members", json!({ "id": team.member_id }));
    assert_eq!(s, Status::Ok, "{v}");

    team.as_member();
    assert_error(
        &t.get(&format!("/api/products?entityId={}", team.entity)),
        Status::NotFound,
    );
    let (_, entities) = t.get("/api/entities");
    assert_eq!(entities["data"], json!([]));
    // The scoped key reaches nothing; the unscoped one no longer sees the entity.
    assert_error(&t.get_with_key("/api/v1/contacts", &key), Status::Forbidden);
    let (s, v) = t.get_with_key("/api/v1/contacts", &unscoped);
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"], json!([]));
    assert_error(
        &t.post_with_key(
            "/api/v1/contacts",
            &unscoped,
            json!({ "name": "Bob", "entity_id": team.entity }),
        ),
        Status::NotFound,
    );
}

#[test]
fn a_request_authenticated_before_a_removal_commits_is_refused_in_its_own_transaction() {
    let team = team("manager");
    let t = &team.t;
    let sam: String =
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT id FROM users WHERE email = 'sam@example.com'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    // Authenticated: the scope is built (as a signed-in request builds it, and with the
    // memberships read at once, as a scoped key's is) ...
    let signed_in = Scope::signed_in(sam.clone(), Cap::WriteStock);
    let loaded =
        t.db.read_sync(|c| Scope::load(c, &sam, None, Cap::WriteStock))
            .unwrap();
    // ... the owner removes the member ...
    let owner = Scope::user(
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT id FROM users WHERE email = 'owner@example.com'",
                [],
                |r| r.get::<_, String>(0),
            )?)
        })
        .unwrap(),
    );
    let id = team.member_id.clone();
    t.db.write_sync(|tx| members::remove(tx, &owner, &id))
        .unwrap();
    // ... and the request, going on, reaches nothing.
    team.as_owner();
    assert_eq!(product(t, &team.entity, "Mug").0, Status::Created);
    let entity = team.entity.clone();
    for stale in [signed_in, loaded] {
        let named = t.db.read_sync(|c| stale.entity(c, "entity_id", &entity));
        assert!(
            matches!(named, Err(stockbook::error::AppError::NotFound(_))),
            "{named:?}"
        );
        let seen: i64 =
            t.db.read_sync(|c| {
                let (cond, args) = stale.condition(c, "p");
                Ok(c.query_row(
                    &format!("SELECT COUNT(*) FROM products p WHERE {cond}"),
                    rusqlite::params_from_iter(args),
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert_eq!(seen, 0, "{stale:?}");
    }
}

#[test]
fn an_entity_always_keeps_one_owner() {
    let team = team("owner");
    let t = &team.t;
    team.as_owner();
    let list = members_of(t, &team.entity);
    let me = list
        .iter()
        .find(|m| m["email"] == "owner@example.com")
        .unwrap()["id"]
        .clone();
    // Two owners: one may step down ...
    let (s, v) = t.put("/api/members", json!({ "id": me, "role": "viewer" }));
    assert_eq!(s, Status::Ok, "{v}");
    // ... the other is now the last one: no demotion, no removal.
    team.as_member();
    let last = t.put(
        "/api/members",
        json!({ "id": team.member_id, "role": "manager" }),
    );
    assert!(assert_error(&last, Status::Conflict).contains("owner"));
    let last = t.delete("/api/members", json!({ "id": team.member_id }));
    assert_error(&last, Status::Conflict);
    // The old owner, now a viewer, no longer manages members.
    team.as_owner();
    assert_error(
        &t.get(&format!("/api/members?entityId={}", team.entity)),
        Status::Forbidden,
    );
}

#[test]
fn an_accountant_may_move_the_lock_date_alone_and_nothing_else_of_the_settings() {
    let team = team("accountant");
    let t = &team.t;
    team.as_member();
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": team.entity, "lock_date": "2026-01-31" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["lock_date"], "2026-01-31");
    let refused = t.put(
        "/api/entities",
        json!({ "id": team.entity, "lock_date": "2026-02-28", "name": "Renamed" }),
    );
    assert!(assert_error(&refused, Status::Forbidden).contains("accountant"));
    assert_error(
        &t.delete("/api/entities", json!({ "id": team.entity })),
        Status::Forbidden,
    );
    // Someone not a member at all: 404 as ever.
    t.signup("stranger@example.com");
    assert_error(
        &t.put(
            "/api/entities",
            json!({ "id": team.entity, "lock_date": "2026-01-31" }),
        ),
        Status::NotFound,
    );
}

#[test]
fn only_members_of_an_entity_reach_its_members_and_unknown_ids_are_404() {
    let (t, entity) = app_with_entity();
    let (m, _) = invite(&t, &entity, "sam@example.com", "staff");
    t.signup("stranger@example.com");
    assert_error(
        &t.get(&format!("/api/members?entityId={entity}")),
        Status::NotFound,
    );
    assert_error(
        &t.put("/api/members", json!({ "id": m["id"], "role": "viewer" })),
        Status::NotFound,
    );
    assert_error(
        &t.delete("/api/members", json!({ "id": m["id"] })),
        Status::NotFound,
    );
    assert_error(
        &t.post(
            "/api/members",
            json!({ "entity_id": entity, "email": "x@example.com", "role": "staff" }),
        ),
        Status::NotFound,
    );
    assert_error(&t.get("/api/members"), Status::BadRequest);
}

#[test]
fn a_managers_import_lands_in_the_owners_books_and_finds_the_owners_records_as_duplicates() {
    let team = team("manager");
    let t = &team.t;
    team.as_owner();
    session_contact(t, Some(&team.entity), "Acme Ltd");
    team.as_member();
    let csv = "name,email\nAcme Ltd,a@acme.test\nBeta,\n";
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "contacts", "platform": "generic", "csv": csv, "entity_id": team.entity}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["imported"], 1, "{v}");
    assert_eq!(v["data"]["skipped"], 1, "{v}");
    team.as_owner();
    let (_, list) = t.get(&format!("/api/contacts?entityId={}", team.entity));
    assert_eq!(list["data"].as_array().unwrap().len(), 2, "{list}");
    // Staff may not import.
    t.put(
        "/api/members",
        json!({ "id": team.member_id, "role": "staff" }),
    );
    team.as_member();
    let refused = t.post(
        "/api/import/csv",
        json!({"entityType": "contacts", "platform": "generic", "csv": csv, "entity_id": team.entity}),
    );
    assert!(assert_error(&refused, Status::Forbidden).contains("staff"));
}

#[test]
fn the_webhooks_a_member_made_stop_when_they_leave_or_lose_the_role_that_manages_them() {
    let team = team("manager");
    let t = &team.t;
    team.as_member();
    let hook = |url: &str| {
        let (s, v) = t.post(
            "/api/webhooks",
            json!({ "url": url, "events": ["*"], "entity_id": team.entity }),
        );
        assert_eq!(s, Status::Created, "{v}");
        v["data"]["id"].as_str().unwrap().to_owned()
    };
    let first = hook("https://example.com/one");
    team.as_owner();
    let active = |id: &str| {
        let (_, v) = t.get("/api/webhooks");
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["id"] == id)
            .unwrap()["active"]
            .clone()
    };
    assert_eq!(active(&first), json!(true));
    // Accountants do not manage webhooks: the manager's stops.
    t.put(
        "/api/members",
        json!({ "id": team.member_id, "role": "accountant" }),
    );
    assert_eq!(active(&first), json!(false));
    // A manager again, with a new one; removed, it stops too.
    t.put(
        "/api/members",
        json!({ "id": team.member_id, "role": "manager" }),
    );
    team.as_member();
    let second = hook("https://example.com/two");
    team.as_owner();
    assert_eq!(active(&second), json!(true));
    t.delete("/api/members", json!({ "id": team.member_id }));
    assert_eq!(active(&second), json!(false));
}

/// docs/audit.md#reading-the-trail with members: the trail names the member who made a
/// change; an entity's trail is its owners' and accountants' to read (403 naming the role
/// for staff); invitations, joining, role changes and removals are in it; and an entity
/// that requires two-factor sign-in refuses a member without it (403), lists included.
#[test]
fn a_members_change_is_in_the_trail_under_their_name_and_only_owners_and_accountants_read_it() {
    let (t, e) = app_with_entity();
    let (_, staff_token) = invite(&t, &e, "sam@example.com", "staff");
    let (_, acc_token) = invite(&t, &e, "ada@example.com", "accountant");
    *t.session.borrow_mut() = None;
    let (s, v) = join_by_signup(&t, "sam@example.com", &staff_token);
    assert_eq!(s, Status::Created, "{v}");
    let (s, p) = t.post(
        "/api/products",
        json!({ "entity_id": e, "name": "Made by Sam" }),
    );
    assert_eq!(s, Status::Created, "{p}");
    let pid = p["data"]["id"].as_str().unwrap().to_owned();
    let r = t.get(&format!("/api/audit?entityId={e}"));
    let msg = assert_error(&r, Status::Forbidden);
    assert!(msg.contains("Your role (staff)"), "{msg}");
    // Staff's own view without an entity: their own sign-ins, not the entity's trail.
    let (s, v) = t.get("/api/audit");
    assert_eq!(s, Status::Ok, "{v}");
    assert!(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["entity_id"].is_null()),
        "{v}"
    );

    *t.session.borrow_mut() = None;
    let (s, v) = join_by_signup(&t, "ada@example.com", &acc_token);
    assert_eq!(s, Status::Created, "{v}");
    let (s, v) = t.get(&format!("/api/audit?entityId={e}&recordId={pid}"));
    assert_eq!(s, Status::Ok, "{v}");
    let entries = v["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{v}");
    assert_eq!(entries[0]["action"], "create");
    assert_eq!(entries[0]["user_email"], "sam@example.com");
    let (_, v) = t.get(&format!("/api/audit?entityId={e}"));
    let roles: Vec<String> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"] == "role_change")
        .map(|a| a["changes"]["role"].to_string())
        .collect();
    // Two invitations and two joinings, each with its role.
    assert_eq!(roles.len(), 4, "{roles:?}");

    // The owner requires two-factor sign-in: members without it are refused.
    t.db.write_sync(|tx| {
        tx.execute("UPDATE entities SET require_2fa = 1 WHERE id = ?1", [&e])?;
        Ok(())
    })
    .unwrap();
    t.login("sam@example.com");
    let msg = assert_error(
        &t.get(&format!("/api/products?entityId={e}")),
        Status::Forbidden,
    );
    assert!(msg.contains("two-factor"), "{msg}");
    let (s, v) = t.get("/api/products");
    assert_eq!(
        (s, v["data"].clone()),
        (Status::Ok, json!([])),
        "a list shows nothing of it"
    );
    let msg = assert_error(
        &t.put("/api/products", json!({ "id": pid, "name": "x" })),
        Status::Forbidden,
    );
    assert!(msg.contains("two-factor"), "{msg}");
}

/// docs/auth.md#members-and-roles: inviting an email again renews its open invitation in
/// place: the same member, the new role, a new link; the old link no longer works.
#[test]
fn inviting_an_email_again_renews_the_same_invitation_and_retires_the_old_link() {
    let (t, e) = app_with_entity();
    let (first, old_token) = invite(&t, &e, "sam@example.com", "staff");
    let (second, new_token) = invite(&t, &e, "sam@example.com", "accountant");
    assert_eq!(first["id"], second["id"]);
    assert_eq!(second["role"], "accountant");
    assert_ne!(old_token, new_token);
    assert_eq!(members_of(&t, &e).len(), 2, "the owner and one invitation");
    let (s, v) = t.put(
        "/api/members",
        json!({ "id": first["id"], "role": "viewer" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    *t.session.borrow_mut() = None;
    let (s, v) = join_by_signup(&t, "sam@example.com", &old_token);
    assert_eq!(s, Status::BadRequest, "{v}");
    let (s, v) = join_by_signup(&t, "sam@example.com", &new_token);
    assert_eq!(s, Status::Created, "{v}");
}
