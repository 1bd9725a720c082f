//! The sign-in routes in the OpenAPI document (docs/auth.md).

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::{None as Open, Session as S};
use Shape::{Action, Create, Get};

/// The operations of `/api/auth`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("post", "/api/auth/signup", "Sign-in", "signup", "Create an account and sign in", Open, Create { body: "SignupBody", record: "User" })
            .answers(&[("400", "A used, expired or unknown invitation"), ("403", "Sign-up is closed"), ("409", "The email is taken")]),
        op("post", "/api/auth/login", "Sign-in", "login", "Sign in (sets the session cookie)", Open, Action { body: "LoginBody", record: "User" })
            .answers(&[("401", "Wrong email or password"), ("429", "Too many failed attempts for this email")]),
        op("post", "/api/auth/logout", "Sign-in", "logout", "Sign out", S, Action { body: "EmptyBody", record: "Success" }),
        op("post", "/api/auth/logout-all", "Sign-in", "logoutAll", "Sign out everywhere: end every session of the user", S, Action { body: "EmptyBody", record: "Success" }),
        op("get", "/api/auth/status", "Sign-in", "authStatus", "Whether sign-up is open and whether any account exists (public)", Open, Get("AuthStatus")),
        op("get", "/api/auth/me", "Sign-in", "me", "The signed-in user", S, Get("User")),
    ]
}

/// An invitation's token, accepted with the sign-up or sign-in (docs/auth.md#members-and-roles).
fn invite_token() -> Value {
    json!({ "type": ["string", "null"], "description": "The `token` of an invitation link: joins its entity (sign-up works even when closed to all but the first account). Used, expired or unknown: 400, and nothing is created." })
}

/// The bodies and record of the sign-in routes.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("SignupBody", object(&["email", "password"], vec![
            ("email", json!({ "type": "string", "format": "email" })),
            ("password", json!({ "type": "string", "minLength": 8 })),
            ("name", nullable(string())),
            ("invite_token", invite_token()),
        ])),
        ("LoginBody", object(&["email", "password"], vec![("email", string()), ("password", string()), ("invite_token", invite_token())])),
        ("AuthStatus", object(&["signup", "users"], vec![
            ("signup", json!({ "type": "string", "enum": ["open", "first-user", "closed"] })),
            ("users", json!({ "type": "boolean" })),
        ])),
        ("User", object(&["id", "email"], vec![
            ("id", uuid()),
            ("email", string()),
            ("name", nullable(string())),
            ("created_at", timestamp()),
        ])),
    ]
}
