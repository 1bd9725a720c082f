//! Property test of members and roles (docs/auth.md#members-and-roles).
//!
//! An owner's entity holds a product and a contact. Random sequences of invitations
//! (accepted at once by signing in with the token), role changes and removals of three
//! other users, interleaved with those users trying each kind of thing in the entity.
//! After every step, each user's answer is what their current role says and nothing
//! more: not a member, 404 (and lists without `entityId` show none of the entity's
//! records); a role that may, a success; one that may not, 403 naming it. So no sequence
//! lets anyone read or write beyond their current role.

mod common;

use common::{app, body, TestApp, PASSWORD};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};
use rocket::http::{ContentType, Status};
use serde_json::{json, Value};

const ROLES: [&str; 5] = ["owner", "manager", "staff", "accountant", "viewer"];
const USERS: usize = 3;

/// What a user tries.
#[derive(Debug, Clone, Copy)]
enum Try {
    ReadStock,
    WriteStock,
    ReadBooks,
    WriteBooks,
    Vat,
    Admin,
    Owner,
}

const TRIES: [Try; 7] = [
    Try::ReadStock,
    Try::WriteStock,
    Try::ReadBooks,
    Try::WriteBooks,
    Try::Vat,
    Try::Admin,
    Try::Owner,
];

/// The role table, as this test reads it.
fn may(role: &str, what: Try) -> bool {
    match what {
        Try::ReadStock => true,
        Try::WriteStock => ["owner", "manager", "staff"].contains(&role),
        Try::ReadBooks => ["owner", "manager", "accountant", "viewer"].contains(&role),
        Try::WriteBooks => ["owner", "manager", "accountant"].contains(&role),
        Try::Vat => ["owner", "accountant"].contains(&role),
        Try::Admin => ["owner", "manager"].contains(&role),
        Try::Owner => role == "owner",
    }
}

#[derive(Debug, Clone)]
enum Op {
    Invite { user: usize, role: usize },
    Change { user: usize, role: usize },
    Remove { user: usize },
    Act { user: usize, what: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..USERS, 0..5_usize).prop_map(|(user, role)| Op::Invite { user, role }),
        3 => (0..USERS, 0..5_usize).prop_map(|(user, role)| Op::Change { user, role }),
        2 => (0..USERS).prop_map(|user| Op::Remove { user }),
        6 => (0..USERS, 0..7_usize).prop_map(|(user, what)| Op::Act { user, what }),
    ]
}

struct World {
    t: TestApp,
    entity: String,
    product: String,
    contact: String,
    owner: Option<String>,
    /// Each user's session, member id and current role (the model).
    sessions: Vec<Option<String>>,
    members: Vec<Option<(String, &'static str)>>,
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

fn email(user: usize) -> String {
    format!("user{user}@example.com")
}

impl World {
    fn new() -> Self {
        let t = app();
        t.signup("owner@example.com");
        let owner = t.session.borrow().clone();
        let entity = t.entity("Acme Ltd");
        let (_, p) = t.post(
            "/api/products",
            json!({ "name": "Mug", "entity_id": entity, "unit_price": 5 }),
        );
        let (_, c) = t.post(
            "/api/contacts",
            json!({ "name": "Ann", "entity_id": entity }),
        );
        let mut sessions = Vec::new();
        for u in 0..USERS {
            t.signup(&email(u));
            sessions.push(t.session.borrow().clone());
        }
        Self {
            entity,
            product: p["data"]["id"].as_str().unwrap().to_owned(),
            contact: c["data"]["id"].as_str().unwrap().to_owned(),
            owner,
            sessions,
            members: vec![None; USERS],
            t,
        }
    }

    fn as_owner(&self) {
        self.t.session.borrow_mut().clone_from(&self.owner);
    }

    fn as_user(&self, u: usize) {
        self.t.session.borrow_mut().clone_from(&self.sessions[u]);
    }

    /// What `what` is, asked of the entity.
    fn attempt(&self, what: Try) -> (Status, Value) {
        let e = &self.entity;
        let t = &self.t;
        match what {
            Try::ReadStock => t.get(&format!("/api/products?entityId={e}")),
            Try::WriteStock => t.put("/api/products", json!({ "id": self.product, "notes": "x" })),
            Try::ReadBooks => t.get(&format!("/api/contacts?entityId={e}")),
            Try::WriteBooks => t.put("/api/contacts", json!({ "id": self.contact, "phone": "1" })),
            Try::Vat => t.post(
                "/api/vat/adjustments",
                json!({ "entity_id": e, "date": "2026-01-15", "box": 1, "amount": 1,
                        "description": "Correction" }),
            ),
            Try::Admin => t.post("/api/api-keys", json!({ "name": "k", "entity_id": e })),
            Try::Owner => t.get(&format!("/api/members?entityId={e}")),
        }
    }
}

fn step(w: &mut World, op: &Op) -> Result<(), TestCaseError> {
    match *op {
        Op::Invite { user, role } => {
            w.as_owner();
            let (s, v) = w.t.post(
                "/api/members",
                json!({ "entity_id": w.entity, "email": email(user), "role": ROLES[role] }),
            );
            if w.members[user].is_some() {
                prop_assert_eq!(s, Status::Conflict, "{:?}: {}", op, v);
                return Ok(());
            }
            prop_assert_eq!(s, Status::Created, "{:?}: {}", op, v);
            let id = v["data"]["id"].as_str().unwrap().to_owned();
            let url = v["data"]["invite_url"].as_str().unwrap();
            let token = url.split_once("token=").unwrap().1;
            let res = w
                .t
                .client
                .post("/api/auth/login")
                .header(ContentType::JSON)
                .body(
                    json!({ "email": email(user), "password": PASSWORD, "invite_token": token })
                        .to_string(),
                )
                .dispatch();
            let session = res
                .cookies()
                .get("stockbook_session")
                .map(|c| c.value().to_owned());
            let (s, v) = body(res);
            prop_assert_eq!(s, Status::Ok, "{:?}: {}", op, v);
            w.sessions[user] = session;
            w.members[user] = Some((id, ROLES[role]));
        }
        Op::Change { user, role } => {
            let Some((id, _)) = w.members[user].clone() else {
                return Ok(());
            };
            w.as_owner();
            let (s, v) =
                w.t.put("/api/members", json!({ "id": id, "role": ROLES[role] }));
            prop_assert_eq!(s, Status::Ok, "{:?}: {}", op, v);
            w.members[user] = Some((id, ROLES[role]));
        }
        Op::Remove { user } => {
            let Some((id, _)) = w.members[user].clone() else {
                return Ok(());
            };
            w.as_owner();
            let (s, v) = w.t.delete("/api/members", json!({ "id": id }));
            prop_assert_eq!(s, Status::Ok, "{:?}: {}", op, v);
            w.members[user] = None;
        }
        Op::Act { user, what } => {
            w.as_user(user);
            let what = TRIES[what];
            let (s, v) = w.attempt(what);
            match &w.members[user] {
                None => prop_assert_eq!(s, Status::NotFound, "{:?} ({:?}): {}", op, what, v),
                Some((_, role)) if may(role, what) => {
                    prop_assert!(
                        s.code < 300,
                        "{:?} ({:?}) as {}: {} {}",
                        op,
                        what,
                        role,
                        s,
                        v
                    );
                }
                Some((_, role)) => {
                    prop_assert_eq!(
                        s,
                        Status::Forbidden,
                        "{:?} ({:?}) as {}: {}",
                        op,
                        what,
                        role,
                        v
                    );
                    let message = v["message"].as_str().unwrap_or("");
                    prop_assert!(
                        message.contains(&format!("Your role ({role})")),
                        "{}",
                        message
                    );
                }
            }
        }
    }
    Ok(())
}

/// Every user's lists without `entityId` hold the entity's records exactly as far as
/// their current role reads them.
fn check(w: &World, after: &Op) -> Result<(), TestCaseError> {
    for u in 0..USERS {
        w.as_user(u);
        let role = w.members[u].as_ref().map(|(_, r)| *r);
        for (path, id, what) in [
            ("/api/products", &w.product, Try::ReadStock),
            ("/api/contacts", &w.contact, Try::ReadBooks),
        ] {
            let (s, v) = w.t.get(path);
            if s != Status::Ok {
                return Err(fail(format!(
                    "after {after:?}: {path} for user {u}: {s} {v}"
                )));
            }
            let sees = v.to_string().contains(id.as_str());
            let should = role.is_some_and(|r| may(r, what));
            if sees != should {
                return Err(fail(format!(
                    "after {after:?}: user {u} ({role:?}) sees {path} of the entity: {sees}"
                )));
            }
        }
    }
    Ok(())
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut w = World::new();
    for op in ops {
        step(&mut w, op)?;
        check(&w, op)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_sequence_of_invites_role_changes_and_removals_reaches_beyond_the_current_role(
        ops in prop::collection::vec(op(), 1..24)
    ) {
        run(&ops)?;
    }
}
