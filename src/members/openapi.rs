//! The members in the OpenAPI document (docs/auth.md#members-and-roles).

use serde_json::{json, Value};

use crate::http::openapi::*;
use crate::scope::Role;
use Auth::Session as S;
use Filter::Own;
use Shape::{Create, Delete, ReportList, Update};

fn entity_param() -> Value {
    let mut p = query_param("entityId", "The entity.", uuid());
    p["required"] = json!(true);
    p
}

fn roles() -> Vec<&'static str> {
    Role::ALL.iter().map(|r| r.as_str()).collect()
}

/// The operations of `/api/members` (session only, the entity's owners).
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/members", "Members", "listMembers", "List an entity's members and open invitations (owners)", S, ReportList("Member", &[Own(entity_param)])),
        op("post", "/api/members", "Members", "inviteMember", "Invite someone into an entity; invite_url is shown this once (owners)", S, Create { body: "MemberCreate", record: "MemberInvited" })
            .refused("The email is already a member of the entity"),
        op("put", "/api/members", "Members", "changeMemberRole", "Change a member's role (owners; the last owner stays: 409)", S, Update { body: "MemberUpdate", record: "Member" })
            .refused("The entity would be left without an owner"),
        op("delete", "/api/members", "Members", "removeMember", "Remove a member or withdraw an invitation (owners; the last owner stays: 409)", S, Delete)
            .refused("The entity would be left without an owner"),
    ]
}

fn member_props() -> Vec<(&'static str, Value)> {
    vec![
        ("id", uuid()),
        ("entity_id", uuid()),
        ("user_id", nullable(uuid())),
        ("email", string()),
        ("name", nullable(string())),
        (
            "role",
            one_of_values(
                &roles(),
                "The member's role (docs/auth.md#members-and-roles).",
            ),
        ),
        (
            "status",
            one_of_values(
                &["invited", "active"],
                "`invited` until the invitation is accepted.",
            ),
        ),
        ("invited_at", timestamp()),
        ("joined_at", nullable(timestamp())),
    ]
}

/// The member record and its bodies.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    let mut invited = member_props();
    invited.push(("invite_url", json!({
        "type": "string",
        "description": "The link to pass on, shown this once: the web app's `#/invite` with the single-use token as its `token` parameter, valid 7 days.",
    })));
    vec![
        ("Member", record(member_props())),
        ("MemberInvited", record(invited)),
        ("MemberCreate", object(&["entity_id", "email", "role"], vec![
            ("entity_id", uuid()),
            ("email", json!({ "type": "string", "format": "email" })),
            ("role", one_of_values(&roles(), "")),
        ])),
        ("MemberUpdate", object(&["id", "role"], vec![
            ("id", uuid()),
            ("role", one_of_values(&roles(), "")),
        ])),
    ]
}
