//! A fake HMRC on 127.0.0.1 for the filing tests (docs/hmrc.md): the OAuth 2.0
//! authorisation and token endpoints (authorisation code with PKCE, single-use refresh
//! tokens) and the VAT (MTD) API's documented paths, headers, JSON and error bodies,
//! as HMRC's published API definition (hmrc/vat-api, `resources/public/api/conf/1.0/
//! application.yaml`) gives them:
//!
//! - `GET /organisations/vat/{vrn}/obligations` → `{obligations: [{periodKey, start,
//!   end, due, status, received?}]}`;
//! - `POST /organisations/vat/{vrn}/returns` → 201 `{processingDate, paymentIndicator,
//!   formBundleNumber, chargeRefNumber}` with `Receipt-ID`, `Receipt-Timestamp` and
//!   `X-CorrelationId`; 403 `TAX_PERIOD_NOT_ENDED`, 403 `DUPLICATE_SUBMISSION` (as the
//!   service sends it, inside a `BUSINESS_ERROR`), 400 `VRN_INVALID`;
//! - `GET /organisations/vat/{vrn}/returns/{periodKey}` → the return, or 404 `NOT_FOUND`;
//! - `GET /organisations/vat/{vrn}/liabilities` and `/payments`;
//! - every API call wants `Accept: application/vnd.hmrc.1.0+json` (406
//!   `ACCEPT_HEADER_INVALID`) and a live bearer token (401 `INVALID_CREDENTIALS`).
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::mock_server::{MockServer, Request, Response};

pub const CLIENT_ID: &str = "fake-client-id";
pub const CLIENT_SECRET: &str = "fake-client-secret";
/// A VAT number (valid by HMRC's check digits) the fake does not know: 400 `VRN_INVALID`.
pub const UNKNOWN_VRN: &str = "999999973";
/// A period key the fake says has not ended: 403 `TAX_PERIOD_NOT_ENDED`.
pub const NOT_ENDED_KEY: &str = "26A4";

#[derive(Default)]
pub struct FakeState {
    /// Authorisation codes issued: code → (PKCE challenge, redirect URI).
    pub codes: HashMap<String, (String, String)>,
    /// Live access tokens.
    pub access: HashSet<String>,
    /// Live refresh tokens (each usable once).
    pub refresh: HashSet<String>,
    /// Every refresh token ever used, in order.
    pub refreshed_with: Vec<String>,
    /// Refresh tokens presented again after use.
    pub reused: Vec<String>,
    /// Returns received: (vrn, periodKey) → body.
    pub returns: HashMap<(String, String), Value>,
    /// The obligations answered.
    pub obligations: Vec<Value>,
    /// The next submissions answer this status (a fault on HMRC's side).
    pub fail_submissions_with: Option<u16>,
    /// Every token the fake issued, to search the database for.
    pub issued: Vec<String>,
    n: u64,
}

impl FakeState {
    fn next(&mut self, prefix: &str) -> String {
        self.n += 1;
        let t = format!("{prefix}-{}-{}", self.n, uuid::Uuid::new_v4().simple());
        self.issued.push(t.clone());
        t
    }

    fn grant(&mut self) -> Value {
        let access = self.next("access");
        let refresh = self.next("refresh");
        self.access.insert(access.clone());
        self.refresh.insert(refresh.clone());
        json!({
            "access_token": access,
            "refresh_token": refresh,
            "expires_in": 14400,
            "scope": "read:vat write:vat",
            "token_type": "bearer"
        })
    }
}

pub struct FakeHmrc {
    pub server: MockServer,
    pub state: Arc<Mutex<FakeState>>,
}

fn error(status: u16, code: &str, message: &str) -> Response {
    Response::json(status, &json!({ "code": code, "message": message }))
}

/// `base64url(sha256(verifier))`, RFC 7636's S256.
fn challenge_of(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

impl FakeHmrc {
    pub fn start() -> Self {
        let state = Arc::new(Mutex::new(FakeState {
            obligations: vec![
                json!({"periodKey": "26A1", "start": "2026-01-01", "end": "2026-03-31", "due": "2026-05-07", "status": "F", "received": "2026-05-01"}),
                json!({"periodKey": "26A2", "start": "2026-04-01", "end": "2026-06-30", "due": "2026-08-07", "status": "O"}),
            ],
            ..FakeState::default()
        }));
        let s = state.clone();
        let server = MockServer::start(move |req| handle(&s, req));
        Self { server, state }
    }

    pub fn url(&self) -> &str {
        self.server.url()
    }

    /// The `hmrc` configuration pointing at the fake.
    pub fn config(&self) -> Value {
        json!({
            "base_url": self.url(),
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uri": "http://stockbook.test/api/hmrc/callback",
        })
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut FakeState) -> T) -> T {
        f(&mut self.state.lock().unwrap())
    }

    /// The user's consent at the authorisation page: the URL the browser is sent back to
    /// (`<redirect_uri>?code&state`). Panics when the authorisation URL is not as HMRC
    /// wants it.
    pub fn consent(&self, authorize_url: &str) -> String {
        let u = url::Url::parse(authorize_url).expect("authorize URL");
        let req = Request {
            method: "GET".into(),
            path: u.path().into(),
            query: u.query().unwrap_or_default().into(),
            headers: Vec::new(),
            body: String::new(),
        };
        let res = handle(&self.state, &req);
        assert_eq!(res.status, 303, "{}", res.body);
        res.headers
            .iter()
            .find(|(k, _)| k == "Location")
            .map(|(_, v)| v.clone())
            .expect("Location")
    }

    /// Requests to the VAT API (not the OAuth endpoints).
    pub fn api_requests(&self) -> Vec<Request> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.path.starts_with("/organisations/"))
            .collect()
    }

    /// Makes every access token the fake issued so far stop working.
    pub fn expire_access_tokens(&self) {
        self.with(|s| s.access.clear());
    }
}

fn handle(state: &Arc<Mutex<FakeState>>, req: &Request) -> Response {
    let mut s = state.lock().unwrap();
    if req.path == "/oauth/authorize" {
        let p = |k: &str| req.param(k).unwrap_or_default();
        if p("response_type") != "code"
            || p("client_id") != CLIENT_ID
            || p("scope") != "read:vat write:vat"
            || p("state").is_empty()
            || p("code_challenge_method") != "S256"
            || p("code_challenge").is_empty()
        {
            return error(400, "INVALID_REQUEST", "bad authorisation request");
        }
        let code = s.next("code");
        s.codes
            .insert(code.clone(), (p("code_challenge"), p("redirect_uri")));
        let mut back = url::Url::parse(&p("redirect_uri")).expect("redirect_uri");
        back.query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &p("state"));
        return Response::status(303).header("Location", back.as_str());
    }
    if req.path == "/oauth/token" && req.method == "POST" {
        let f = |k: &str| req.form_value(k).unwrap_or_default();
        if f("client_id") != CLIENT_ID || f("client_secret") != CLIENT_SECRET {
            return Response::json(401, &json!({"error": "invalid_client"}));
        }
        return match f("grant_type").as_str() {
            "authorization_code" => match s.codes.remove(&f("code")) {
                Some((challenge, redirect))
                    if challenge == challenge_of(&f("code_verifier"))
                        && redirect == f("redirect_uri") =>
                {
                    Response::ok(&s.grant())
                }
                _ => Response::json(
                    400,
                    &json!({"error": "invalid_grant", "error_description": "bad code"}),
                ),
            },
            "refresh_token" => {
                let token = f("refresh_token");
                s.refreshed_with.push(token.clone());
                if s.refresh.remove(&token) {
                    Response::ok(&s.grant())
                } else {
                    s.reused.push(token);
                    Response::json(
                        400,
                        &json!({"error": "invalid_grant", "error_description": "refresh token used or unknown"}),
                    )
                }
            }
            _ => Response::json(400, &json!({"error": "unsupported_grant_type"})),
        };
    }
    let Some(rest) = req.path.strip_prefix("/organisations/vat/") else {
        return error(
            404,
            "MATCHING_RESOURCE_NOT_FOUND",
            "Matching resource not found",
        );
    };
    if req.header("accept") != Some("application/vnd.hmrc.1.0+json") {
        return error(
            406,
            "ACCEPT_HEADER_INVALID",
            "The accept header is missing or invalid",
        );
    }
    let token = req
        .header("authorization")
        .and_then(|a| a.strip_prefix("Bearer "))
        .unwrap_or_default();
    if !s.access.contains(token) {
        return error(
            401,
            "INVALID_CREDENTIALS",
            "Invalid Authentication information provided",
        );
    }
    let parts: Vec<&str> = rest.split('/').collect();
    let vrn = parts[0].to_owned();
    if vrn.len() != 9 || !vrn.bytes().all(|b| b.is_ascii_digit()) || vrn == UNKNOWN_VRN {
        return error(400, "VRN_INVALID", "The provided VRN is invalid");
    }
    match (req.method.as_str(), &parts[1..]) {
        ("GET", ["obligations"]) => {
            let status = req.param("status");
            let list: Vec<Value> = s
                .obligations
                .iter()
                .filter(|o| status.as_deref().is_none_or(|st| o["status"] == st))
                .cloned()
                .collect();
            Response::ok(&json!({ "obligations": list }))
        }
        ("POST", ["returns"]) => {
            let b = req.json();
            let key = b["periodKey"].as_str().unwrap_or_default().to_owned();
            let boxes = [
                "vatDueSales",
                "vatDueAcquisitions",
                "totalVatDue",
                "vatReclaimedCurrPeriod",
                "netVatDue",
                "totalValueSalesExVAT",
                "totalValuePurchasesExVAT",
                "totalValueGoodsSuppliedExVAT",
                "totalAcquisitionsExVAT",
            ];
            if key.chars().count() != 4 || boxes.iter().any(|k| !b[k].is_number()) {
                return error(400, "INVALID_REQUEST", "Invalid request");
            }
            if b["finalised"] != json!(true) {
                return error(
                    403,
                    "NOT_FINALISED",
                    "User has not declared VAT return as final",
                );
            }
            if let Some(st) = s.fail_submissions_with {
                return error(
                    st,
                    "INTERNAL_SERVER_ERROR",
                    "An internal server error occurred",
                );
            }
            if key == NOT_ENDED_KEY {
                return error(403, "TAX_PERIOD_NOT_ENDED", "The remote endpoint has indicated that the submission is for a tax period that has not ended");
            }
            if s.returns.contains_key(&(vrn.clone(), key.clone())) {
                return Response::json(
                    403,
                    &json!({
                        "code": "BUSINESS_ERROR",
                        "message": "Business validation error",
                        "errors": [{"code": "DUPLICATE_SUBMISSION", "message": "The VAT return was already submitted for the given period."}]
                    }),
                );
            }
            s.returns.insert((vrn, key), b);
            Response::json(
                201,
                &json!({
                    "processingDate": "2026-07-16T08:20:27.895Z",
                    "paymentIndicator": "BANK",
                    "formBundleNumber": "256660290587",
                    "chargeRefNumber": "aCxFaNx0FZsCvyWF"
                }),
            )
            .header("Receipt-ID", "2dd537bc-4244-4ebf-bac9-96321be13cdc")
            .header("Receipt-Timestamp", "2026-07-16T08:20:27Z")
            .header("X-CorrelationId", "c75f40a6-a3df-4429-a697-471eeec46435")
        }
        ("GET", ["returns", key]) => {
            let key = url::form_urlencoded::parse(format!("k={key}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            match s.returns.get(&(vrn, key)) {
                Some(b) => {
                    let mut b = b.clone();
                    b.as_object_mut().unwrap().remove("finalised");
                    Response::ok(&b)
                }
                None => error(
                    404,
                    "NOT_FOUND",
                    "The remote endpoint has indicated that no data can be found",
                ),
            }
        }
        ("GET", ["liabilities"]) => Response::ok(&json!({"liabilities": [{
            "taxPeriod": {"from": "2026-01-01", "to": "2026-03-31"},
            "type": "VAT Return Debit Charge",
            "originalAmount": 463872,
            "outstandingAmount": 463872,
            "due": "2026-05-07"
        }]})),
        ("GET", ["payments"]) => Response::ok(&json!({"payments": [
            {"amount": 5, "received": "2026-02-11"}
        ]})),
        _ => error(
            404,
            "MATCHING_RESOURCE_NOT_FOUND",
            "Matching resource not found",
        ),
    }
}
