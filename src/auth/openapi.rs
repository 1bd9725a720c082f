//! The sign-in routes in the OpenAPI document (docs/auth.md).

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::{None as Open, Session as S};
use Shape::{Action, Create, Get};

/// Where two-factor sign-in is written.
const TWO_FACTOR: &[&str] = &["docs/auth.md#two-factor-sign-in"];

/// The operations of `/api/auth`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("post", "/api/auth/signup", "Sign-in", "signup", "Create an account and sign in", Open, Create { body: "SignupBody", record: "User" })
            .answers(&[("400", "A used, expired or unknown invitation"), ("403", "Sign-up is closed"), ("409", "The email is taken")]),
        op("post", "/api/auth/login", "Sign-in", "login", "Sign in (sets the session cookie)", Open, Action { body: "LoginBody", record: "User" })
            .answers(&[("401", "Wrong email or password; or, with two-factor sign-in on, `Two-factor code required` (send `totp` or `recovery_code`) or a wrong code"), ("429", "Too many failed attempts for this email")]),
        op("post", "/api/auth/logout", "Sign-in", "logout", "Sign out", S, Action { body: "EmptyBody", record: "Success" }),
        op("post", "/api/auth/logout-all", "Sign-in", "logoutAll", "Sign out everywhere: end every session of the user", S, Action { body: "EmptyBody", record: "Success" }),
        op("get", "/api/auth/status", "Sign-in", "authStatus", "Whether sign-up is open and whether any account exists (public)", Open, Get("AuthStatus")),
        op("get", "/api/auth/me", "Sign-in", "me", "The signed-in user", S, Get("User")),
        op("get", "/api/auth/2fa", "Sign-in", "twoFactorStatus", "Whether the user's two-factor sign-in is on, and how many recovery codes are left", S, Get("TwoFactorStatus"))
            .rules(TWO_FACTOR),
        op("post", "/api/auth/2fa/setup", "Sign-in", "twoFactorSetup", "Start setting up two-factor sign-in: a new secret, its otpauth URI and that as a QR code (SVG)", S, Action { body: "EmptyBody", record: "TwoFactorSetup" })
            .rules(TWO_FACTOR)
            .answers(&[("409", "Two-factor sign-in is already on")]),
        op("post", "/api/auth/2fa/enable", "Sign-in", "twoFactorEnable", "Turn two-factor sign-in on with a first code; answers ten single-use recovery codes, this once", S, Action { body: "TwoFactorCodeBody", record: "RecoveryCodes" })
            .rules(TWO_FACTOR)
            .answers(&[("409", "Not being set up, or already on")]),
        op("post", "/api/auth/2fa/disable", "Sign-in", "twoFactorDisable", "Turn two-factor sign-in off with a current code or a recovery code", S, Action { body: "TwoFactorCodeBody", record: "Success" })
            .rules(TWO_FACTOR)
            .answers(&[("409", "Two-factor sign-in is not on"), ("429", "Too many wrong codes")]),
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
        ("LoginBody", object(&["email", "password"], vec![
            ("email", string()),
            ("password", string()),
            ("invite_token", invite_token()),
            ("totp", nullable(json!({ "type": "string", "description": "The current six-digit code, when two-factor sign-in is on" }))),
            ("recovery_code", nullable(json!({ "type": "string", "description": "An unused recovery code, instead of `totp`" }))),
        ])),
        ("TwoFactorStatus", object(&["enabled", "recovery_codes_left"], vec![
            ("enabled", boolean()),
            ("recovery_codes_left", integer()),
        ])),
        ("TwoFactorSetup", object(&["secret", "otpauth_url", "qr_svg"], vec![
            ("secret", text("The secret, base32, to type into an authenticator app")),
            ("otpauth_url", text("The otpauth://totp/ URI (SHA-1, 6 digits, 30 s)")),
            ("qr_svg", text("The URI as a QR code: an SVG image")),
        ])),
        ("TwoFactorCodeBody", object(&["code"], vec![("code", json!({ "type": "string", "minLength": 1, "description": "A current six-digit code (disable: or a recovery code)" }))])),
        ("RecoveryCodes", object(&["recovery_codes"], vec![("recovery_codes", array(string()))])),
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
