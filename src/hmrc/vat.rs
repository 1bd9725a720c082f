//! HMRC's VAT API through Stockbook (docs/hmrc.md#the-vat-api): the obligations,
//! submitting a return, viewing a submitted return, the liabilities and the payments.
//!
//! A submission is kept as `submitting` (with the nine boxes, computed as the VAT page
//! shows them) in a committed write before HMRC is called, so the period cannot be
//! filed twice at once and a crash between HMRC's acceptance and our commit leaves a
//! trace. HMRC's answer then either files it (the receipt kept, the period locked) or
//! removes it (a refusal, a fault on HMRC's side: nothing recorded). A `submitting` return
//! that no request is waiting for is resolved at the next call for its entity by reading
//! the return back from HMRC ([`resolve_pending`], docs/hmrc.md#a-submission-interrupted).

use rocket::http::Status;
use rocket::request::{FromRequest, Outcome, Request};
use rocket::serde::json::Json;
use rocket::{get, post, FromForm};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Deserialize;
use serde_json::{json, Value};

use super::client::{Answer, Hmrc, HmrcError};
use super::connection::{access_token, write_apart, HmrcState};
use super::fraud::{self, ClientInfo, RequestOrigin};
use crate::auth::SessionUser;
use crate::clock::Clock;
use crate::config::AppConfig;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::entities::lock;
use crate::error::{AppError, AppResult};
use crate::http::stash::stash;
use crate::http::{data, Created};
use crate::scope::Scope;
use crate::vat_return::boxes::Boxes;
use crate::vat_return::filed::{overlapping, FiledReturn};
use crate::vat_return::returns::{self, RecordReturn};

/// An entity of the caller, ready for HMRC: its id and VAT registration number (the nine
/// digits). 400 when the entity has no VAT number.
pub fn vrn_of(
    conn: &Connection,
    scope: &Scope,
    field: &str,
    raw: &str,
) -> AppResult<(String, String)> {
    let entity = scope.entity(conn, field, raw)?;
    let number: Option<String> = conn
        .prepare_cached("SELECT vat_number FROM entities WHERE id = ?1")?
        .query_row([&entity], |r| r.get(0))?;
    let vrn = number
        .map(|n| n.trim_start_matches("GB").to_owned())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            AppError::bad_request(
                "This business has no VAT number: set it in the VAT settings before using HMRC",
            )
        })?;
    Ok((entity, vrn))
}

/// What every call to HMRC needs, as a request guard: the signed-in caller (401 without a
/// session), where the request came from, the browser's values of a `GET` (400 when the
/// `Stockbook-Client` header is not them), and the app's state.
pub struct Call<'r> {
    pub user: SessionUser,
    pub origin: RequestOrigin,
    pub client: ClientInfo,
    pub db: &'r Db,
    pub config: &'r AppConfig,
    pub clock: &'r Clock,
    pub state: &'r HmrcState,
    /// When the request arrived (`Gov-Client-Public-IP-Timestamp`).
    pub received: time::OffsetDateTime,
    /// The second factor this session was opened with, if any
    /// (`Gov-Client-Multi-Factor`, docs/hmrc.md).
    pub factor: Option<fraud::Factor>,
}

/// The session's second factor as HMRC's header describes one: the type, when it was
/// given, and a reference unique to it (never the secret).
async fn session_factor(db: &Db, token_hash: String) -> Option<fraud::Factor> {
    let mfa = db
        .read(move |conn| crate::auth::two_factor::session_mfa(conn, &token_hash))
        .await
        .ok()??;
    let at = time::OffsetDateTime::parse(&mfa.at, &time::format_description::well_known::Rfc3339)
        .ok()?;
    Some(fraud::Factor {
        kind: if mfa.kind == "TOTP" {
            fraud::FactorKind::Totp
        } else {
            fraud::FactorKind::Other
        },
        at,
        unique_reference: mfa.reference,
    })
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for Call<'r> {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        let user = match req.guard::<SessionUser>().await {
            Outcome::Success(u) => u,
            Outcome::Error(e) => return Outcome::Error(e),
            Outcome::Forward(s) => return Outcome::Forward(s),
        };
        let Outcome::Success(origin) = req.guard::<RequestOrigin>().await else {
            return Outcome::Error((Status::InternalServerError, ()));
        };
        let client = match origin.client() {
            Ok(c) => c,
            Err(e) => {
                let status = e.status();
                stash(req, e);
                return Outcome::Error((status, ()));
            }
        };
        let r = req.rocket();
        match (r.state::<Db>(), r.state(), r.state::<Clock>(), r.state()) {
            (Some(db), Some(config), Some(clock), Some(state)) => {
                let received = clock.now();
                let factor = session_factor(db, user.token_hash.clone()).await;
                Outcome::Success(Call {
                    user,
                    origin,
                    client,
                    db,
                    config,
                    clock,
                    state,
                    received,
                    factor,
                })
            }
            _ => Outcome::Error((Status::InternalServerError, ())),
        }
    }
}

impl Call<'_> {
    /// The fraud-prevention headers of this request.
    fn fraud(&self) -> AppResult<Vec<(&'static str, String)>> {
        fraud::headers(&fraud::Inputs {
            client: &self.client,
            user_id: self.user.id(),
            origin: &self.origin,
            received: self.received,
            vendor_public_ip: self
                .config
                .hmrc
                .vendor_public_ip
                .as_deref()
                .and_then(|ip| ip.trim().parse().ok()),
            factor: self.factor.as_ref(),
        })
    }

    /// One call of the VAT API for `entity`, off the async threads.
    async fn send(
        &self,
        entity: &str,
        method: &'static str,
        path: String,
        body: Option<Value>,
    ) -> AppResult<Result<Answer, HmrcError>> {
        let fraud = self.fraud()?;
        let token =
            access_token(self.db, self.config, self.clock, self.state, entity, None).await?;
        let once = |token: String| {
            let (cfg, fraud, path, body) = (
                self.config.hmrc.clone(),
                fraud.clone(),
                path.clone(),
                body.clone(),
            );
            async move {
                rocket::tokio::task::spawn_blocking(move || {
                    Hmrc::new(&cfg).call(method, &path, &token, &fraud, body.as_ref())
                })
                .await
                .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))
            }
        };
        let answer = once(token.clone()).await?;
        // HMRC no longer takes the access token (withdrawn before its expiry): one refresh,
        // then the call again. A 401 was not acted on, so a submission may be sent again.
        if let Err(HmrcError::Refused { status: 401, .. }) = answer {
            let fresh = access_token(
                self.db,
                self.config,
                self.clock,
                self.state,
                entity,
                Some(&token),
            )
            .await?;
            return once(fresh).await;
        }
        Ok(answer)
    }

    async fn get(&self, entity: &str, path: String) -> AppResult<Answer> {
        Ok(self.send(entity, "GET", path, None).await??)
    }
}

/// A query string of the parameters given.
fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) {
            s.append_pair(k, v);
        }
    }
    let q = s.finish();
    if q.is_empty() {
        q
    } else {
        format!("?{q}")
    }
}

/// A path segment, percent-encoded (a period key may hold `#`).
fn segment(s: &str) -> String {
    fraud::pct(s)
}

/// `entityId`, `from`, `to` and, for the obligations, `status` (`O` or `F`).
#[derive(Debug, Default, FromForm)]
pub struct HmrcQuery {
    #[field(name = "entityId")]
    pub entity_id: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub status: Option<String>,
}

impl HmrcQuery {
    /// The dates checked as dates, and the status as HMRC's.
    fn checked(&self) -> AppResult<()> {
        for (k, v) in [("from", &self.from), ("to", &self.to)] {
            if let Some(v) = v {
                crate::http::body::parse_date(k, v.trim())?;
            }
        }
        if let Some(s) = self.status.as_deref() {
            if !matches!(s, "O" | "F") {
                return Err(AppError::invalid(
                    "status",
                    "must be `O` (open) or `F` (fulfilled)",
                ));
            }
        }
        Ok(())
    }

    async fn entity(&self, call: &Call<'_>) -> AppResult<(String, String)> {
        self.checked()?;
        let raw = self
            .entity_id
            .clone()
            .ok_or_else(|| AppError::missing("entityId"))?;
        let scope = call.user.scope();
        call.db
            .read(move |c| vrn_of(c, &scope, "entityId", &raw))
            .await
    }
}

/// HMRC's obligations as `{period_key, start, end, due, status, received}`.
pub fn obligations_of(body: &Value) -> Vec<Value> {
    body.get("obligations")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|o| {
                    json!({
                        "period_key": o.get("periodKey"),
                        "start": o.get("start"),
                        "end": o.get("end"),
                        "due": o.get("due"),
                        "status": o.get("status"),
                        "received": o.get("received"),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[get("/vat/obligations?<q..>")]
pub(super) async fn route_obligations(call: Call<'_>, q: HmrcQuery) -> AppResult<Json<Value>> {
    let (entity, vrn) = q.entity(&call).await?;
    resolve_pending(&call, &entity, &vrn).await?;
    let path = format!(
        "/organisations/vat/{vrn}/obligations{}",
        query(&[
            ("from", q.from.as_deref()),
            ("to", q.to.as_deref()),
            ("status", q.status.as_deref()),
        ])
    );
    let answer = call.get(&entity, path).await?;
    Ok(data(obligations_of(&answer.body)))
}

/// HMRC's `list` of a liabilities or payments answer, as it is.
async fn pass_on(call: &Call<'_>, q: &HmrcQuery, what: &str) -> AppResult<Json<Value>> {
    let (entity, vrn) = q.entity(call).await?;
    let path = format!(
        "/organisations/vat/{vrn}/{what}{}",
        query(&[("from", q.from.as_deref()), ("to", q.to.as_deref())])
    );
    let answer = call.get(&entity, path).await?;
    Ok(data(answer.body.get(what).cloned().unwrap_or(json!([]))))
}

#[get("/vat/liabilities?<q..>")]
pub(super) async fn route_liabilities(call: Call<'_>, q: HmrcQuery) -> AppResult<Json<Value>> {
    pass_on(&call, &q, "liabilities").await
}

#[get("/vat/payments?<q..>")]
pub(super) async fn route_payments(call: Call<'_>, q: HmrcQuery) -> AppResult<Json<Value>> {
    pass_on(&call, &q, "payments").await
}

/// `GET /api/vat/submitted?entityId&periodKey`: the return HMRC holds for a period key.
#[get("/vat/submitted?<entityId>&<periodKey>")]
#[allow(non_snake_case)]
pub(super) async fn route_submitted(
    call: Call<'_>,
    entityId: Option<String>,
    periodKey: Option<String>,
) -> AppResult<Json<Value>> {
    let key = period_key(
        periodKey
            .as_deref()
            .ok_or_else(|| AppError::missing("periodKey"))?,
    )?;
    let q = HmrcQuery {
        entity_id: entityId,
        ..HmrcQuery::default()
    };
    let (entity, vrn) = q.entity(&call).await?;
    let path = format!("/organisations/vat/{vrn}/returns/{}", segment(&key));
    Ok(data(call.get(&entity, path).await?.body))
}

/// A period key as HMRC writes them: four characters.
fn period_key(raw: &str) -> AppResult<String> {
    let k = raw.trim();
    if k.chars().count() == 4 && k.chars().all(|c| c.is_ascii_graphic()) {
        Ok(k.to_owned())
    } else {
        Err(AppError::invalid(
            "period_key",
            "must be the four characters of HMRC's obligation (like `18A1`)",
        ))
    }
}

/// The body of `POST /api/vat/returns`: a return filed elsewhere, or, with a `period_key`,
/// a submission to HMRC (`declaration` must be true; `client` the browser's values).
#[derive(Debug, Deserialize)]
pub struct ReturnBody {
    pub entity_id: String,
    pub from: String,
    pub to: String,
    pub period_key: Option<String>,
    pub declaration: Option<bool>,
    pub client: Option<ClientInfo>,
}

/// The return of a submission, kept as `submitting`, and its body for HMRC.
pub struct Prepared {
    pub filed: FiledReturn,
    pub hmrc_body: Value,
}

/// HMRC's submission body: the nine boxes and `finalised: true`.
pub fn hmrc_body(period_key: &str, b: &Boxes) -> AppResult<Value> {
    let pounds = |m: crate::db::decimal::Money| {
        m.to_scaled()
            .map(|h| h / 100)
            .ok_or_else(|| AppError::bad_request(format!("A box is too large for HMRC: {m}")))
    };
    Ok(json!({
        "periodKey": period_key,
        "vatDueSales": b.vat_due_sales,
        "vatDueAcquisitions": b.vat_due_acquisitions,
        "totalVatDue": b.total_vat_due,
        "vatReclaimedCurrPeriod": b.vat_reclaimed_curr_period,
        "netVatDue": b.net_vat_due,
        "totalValueSalesExVAT": pounds(b.total_value_sales_ex_vat)?,
        "totalValuePurchasesExVAT": pounds(b.total_value_purchases_ex_vat)?,
        "totalValueGoodsSuppliedExVAT": pounds(b.total_value_goods_supplied_ex_vat)?,
        "totalAcquisitionsExVAT": pounds(b.total_acquisitions_ex_vat)?,
        "finalised": true,
    }))
}

/// Keeps the return of `body`'s period as `submitting`, with the boxes computed now.
/// 400 for a bad period or key; 409 when a return (filed or in flight) shares a day
/// with the period or has the same period key.
pub fn prepare(
    tx: &Transaction,
    scope: &Scope,
    user: &str,
    body: &ReturnBody,
    key: &str,
    ctx: &Ctx,
) -> AppResult<Prepared> {
    let entity = scope.entity(tx, "entity_id", &body.entity_id)?;
    let (from, to) = returns::period(&body.from, &body.to)?;
    if let Some((f, t)) = overlapping(tx, &entity, from, to)? {
        return Err(AppError::conflict(format!(
            "A VAT return is already filed (or being filed) for {f} to {t}, which overlaps {from} to {to}"
        )));
    }
    let same_key: Option<String> = tx
        .prepare_cached(
            "SELECT period_from FROM vat_returns WHERE entity_id = ?1 AND period_key = ?2",
        )?
        .query_row(params![entity, key], |r| r.get(0))
        .optional()?;
    if same_key.is_some() {
        return Err(AppError::conflict(format!(
            "A VAT return is already filed for HMRC's period {key}"
        )));
    }
    let boxes = crate::vat_return::compute::boxes(tx, &entity, from, to)?;
    let scheme: String = tx
        .prepare_cached("SELECT vat_scheme FROM entities WHERE id = ?1")?
        .query_row([&entity], |r| r.get(0))?;
    let filed = FiledReturn {
        id: uuid::Uuid::now_v7().to_string(),
        entity_id: entity,
        from: from.to_string(),
        to: to.to_string(),
        period_key: Some(key.to_owned()),
        scheme,
        boxes,
        filed_at: ctx.now.clone(),
        filed_by: user.to_owned(),
        method: "hmrc".into(),
        receipt: None,
    };
    returns::insert(tx, &filed, "submitting")?;
    Ok(Prepared {
        hmrc_body: hmrc_body(key, &filed.boxes)?,
        filed,
    })
}

/// Files a `submitting` return: its receipt kept, the period locked. `None` when it is
/// no longer there.
pub fn mark_filed(
    tx: &Transaction,
    id: &str,
    receipt: &Value,
    now: &str,
) -> AppResult<Option<FiledReturn>> {
    let row: Option<(String, String)> = tx
        .prepare_cached(
            "UPDATE vat_returns SET status = 'filed', receipt = ?2, filed_at = ?3
             WHERE id = ?1 AND status = 'submitting' RETURNING entity_id, period_to",
        )?
        .query_row(params![id, receipt.to_string(), now], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let Some((entity, to)) = row else {
        return Ok(None);
    };
    let to = crate::http::body::parse_date("period_to", &to)?;
    lock::lock_at_least(tx, &entity, to)?;
    let filed = crate::vat_return::filed::list(tx, &entity)?
        .into_iter()
        .find(|r| r.id == id);
    Ok(filed)
}

/// Removes a `submitting` return HMRC did not take.
pub fn forget_submission(tx: &Transaction, id: &str) -> AppResult<()> {
    tx.execute(
        "DELETE FROM vat_returns WHERE id = ?1 AND status = 'submitting'",
        [id],
    )?;
    Ok(())
}

/// The receipt of an accepted submission: HMRC's answer and its `Receipt-ID`.
fn receipt_of(a: &Answer) -> Value {
    let b = &a.body;
    json!({
        "processingDate": b.get("processingDate"),
        "formBundleNumber": b.get("formBundleNumber"),
        "paymentIndicator": b.get("paymentIndicator"),
        "chargeRefNumber": b.get("chargeRefNumber"),
        "receiptId": a.header("receipt-id"),
        "receiptTimestamp": a.header("receipt-timestamp"),
    })
}

/// Resolves the `submitting` returns of `entity` that no request is waiting for, by
/// reading each back from HMRC: found, it is filed (its receipt says it was recovered);
/// HMRC's 404, it is removed; anything else leaves it for the next call.
pub async fn resolve_pending(call: &Call<'_>, entity: &str, vrn: &str) -> AppResult<()> {
    let e = entity.to_owned();
    let pending: Vec<(String, String)> = call
        .db
        .read(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT id, period_key FROM vat_returns
                 WHERE entity_id = ?1 AND status = 'submitting' AND period_key IS NOT NULL",
            )?;
            let rows = stmt
                .query_map([&e], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await?;
    for (id, key) in pending {
        if call.state.is_in_flight(&id) {
            continue;
        }
        let path = format!("/organisations/vat/{vrn}/returns/{}", segment(&key));
        match call.send(entity, "GET", path, None).await? {
            Ok(a) => {
                let receipt = json!({ "recovered": true, "submitted": a.body });
                let now = crate::clock::rfc3339(call.clock.now());
                write_apart(call.db, move |tx| mark_filed(tx, &id, &receipt, &now)).await?;
            }
            Err(HmrcError::Refused { status: 404, .. }) => {
                write_apart(call.db, move |tx| forget_submission(tx, &id)).await?;
            }
            Err(e) => {
                eprintln!("stockbook: an interrupted HMRC submission stays unresolved: {e:?}")
            }
        }
    }
    Ok(())
}

/// Submits the return of `body` (with its `period_key`) to HMRC, as
/// docs/hmrc.md#submitting-a-return says: kept as `submitting`, sent, then filed with the
/// receipt or removed; a lost answer is settled by reading the return back.
pub async fn submit(call: Call<'_>, body: ReturnBody, ctx: Ctx) -> AppResult<FiledReturn> {
    let key = period_key(body.period_key.as_deref().unwrap_or_default())?;
    if body.declaration != Some(true) {
        return Err(AppError::invalid(
            "declaration",
            "must be true: the user declares the return true and complete, as HMRC's text says",
        ));
    }
    let call = Call {
        client: body.client.clone().unwrap_or_default(),
        ..call
    };
    // Refuse bad browser values before anything is kept.
    call.fraud()?;
    let (scope, raw) = (call.user.scope(), body.entity_id.clone());
    let (entity, vrn) = call
        .db
        .read(move |c| vrn_of(c, &scope, "entity_id", &raw))
        .await?;
    resolve_pending(&call, &entity, &vrn).await?;
    let (scope, by, k) = (call.user.scope(), call.user.user.id.clone(), key.clone());
    // Kept apart from the request's Idempotency-Key, which goes with the filing below.
    let prepared =
        write_apart(call.db, move |tx| prepare(tx, &scope, &by, &body, &k, &ctx)).await?;
    let id = prepared.filed.id.clone();
    let _in_flight = call.state.begin(&id);
    let path = format!("/organisations/vat/{vrn}/returns");
    let sent = call
        .send(&entity, "POST", path, Some(prepared.hmrc_body))
        .await;
    let receipt = match sent {
        Ok(Ok(answer)) => receipt_of(&answer),
        // HMRC may have received it: ask.
        Ok(Err(HmrcError::Unreachable(why))) => {
            let path = format!("/organisations/vat/{vrn}/returns/{}", segment(&key));
            match call.send(&entity, "GET", path, None).await? {
                Ok(a) => json!({ "recovered": true, "submitted": a.body }),
                Err(HmrcError::Refused { status: 404, .. }) => {
                    write_apart(call.db, move |tx| forget_submission(tx, &id)).await?;
                    return Err(HmrcError::Unreachable(why).into());
                }
                Err(_) => {
                    return Err(AppError::Unavailable(format!(
                        "HMRC could not be reached ({why}) and whether it received the return \
                         cannot be told yet: it is checked again at the next call to HMRC for \
                         this business"
                    )))
                }
            }
        }
        // Refused, a fault on HMRC's side, or never sent: nothing is kept.
        Ok(Err(e)) => {
            write_apart(call.db, move |tx| forget_submission(tx, &id)).await?;
            return Err(e.into());
        }
        Err(e) => {
            write_apart(call.db, move |tx| forget_submission(tx, &id)).await?;
            return Err(e);
        }
    };
    let now = crate::clock::rfc3339(call.clock.now());
    // The trail names the member who filed (docs/audit.md).
    call.db
        .write_as(call.user.id().to_owned(), move |tx| {
            mark_filed(tx, &id, &receipt, &now)
        })
        .await?
        .ok_or_else(|| AppError::internal("the submitting return vanished"))
}

/// `POST /api/vat/returns`: a return filed elsewhere without `period_key`
/// (docs/vat.md#filed-returns), else a submission to HMRC.
#[post("/vat/returns", data = "<body>")]
pub(super) async fn route_returns(
    call: Call<'_>,
    body: crate::http::body::JsonBody<ReturnBody>,
    ctx: Ctx,
) -> AppResult<Created<FiledReturn>> {
    let body = body.into_inner();
    if body.period_key.is_some() {
        return Ok(Created(submit(call, body, ctx).await?));
    }
    let (scope, by) = (call.user.scope(), call.user.user.id.clone());
    let record = RecordReturn {
        entity_id: body.entity_id,
        from: body.from,
        to: body.to,
    };
    let r = call
        .db
        .write_as(by.clone(), move |tx| {
            returns::record(tx, &scope, &by, record, &ctx)
        })
        .await?;
    Ok(Created(r))
}
