//! The webhook rules called directly, without HTTP (docs/webhooks.md): each test opens a
//! fresh in-memory database, calls the functions the handlers call inside a transaction,
//! and checks the rows written; every refused call is checked to have written nothing.

use std::collections::HashSet;

use serde_json::json;

use stockbook::config::AppConfig;
use stockbook::webhooks::deliveries::{self, Delivery};
use stockbook::webhooks::outbox::{self, EVENTS, EVENT_TYPES, SUBSCRIBABLE};
use stockbook::webhooks::resource::{self, NewWebhook, Webhook, WebhookChange, MAX_WEBHOOKS};

use super::common::test_figment;
use super::rules_support::{Books, ANN, BOB};

fn hook(url: &str, events: &[&str], entity_id: Option<&str>) -> NewWebhook {
    NewWebhook {
        url: url.to_owned(),
        events: events.iter().map(|e| (*e).to_owned()).collect(),
        entity_id: entity_id.map(str::to_owned),
        active: true,
    }
}

fn change(id: &str) -> WebhookChange {
    WebhookChange {
        id: id.to_owned(),
        url: None,
        events: None,
        entity_id: None,
        active: None,
    }
}

impl Books {
    /// A webhook of Ann's for every event.
    fn anns_webhook(&self) -> Webhook {
        self.write(|tx| {
            resource::create_webhook(
                tx,
                &self.ann(),
                hook("https://a.example.com/in", &["*"], None),
                &self.ctx,
            )
        })
        .webhook
    }

    fn bobs_webhook(&self) -> Webhook {
        self.write(|tx| {
            resource::create_webhook(
                tx,
                &self.bob(),
                hook("https://b.example.com/in", &["stock.low"], None),
                &self.ctx,
            )
        })
        .webhook
    }

    fn ping(&self, w: &Webhook) -> Delivery {
        self.write(|tx| deliveries::send_test(tx, &self.ann(), &w.id, &self.ctx))
    }
}

fn config(extra: &[(&str, serde_json::Value)]) -> AppConfig {
    AppConfig::from_figment(&test_figment(extra)).expect("a configuration")
}

#[test]
fn a_new_webhook_is_stored_with_its_secret_and_starts_at_the_end_of_the_ledger() {
    let b = Books::new();
    let created = b.write(|tx| {
        resource::create_webhook(
            tx,
            &b.ann(),
            hook(
                "https://a.example.com/in",
                &["stock.low", "invoice.updated"],
                Some(&b.ann_entity),
            ),
            &b.ctx,
        )
    });
    let w = &created.webhook;
    assert!(created.secret.starts_with("whsec_"));
    assert_eq!(created.secret.len(), "whsec_".len() + 32);
    assert_eq!(w.entity_id.as_deref(), Some(b.ann_entity.as_str()));
    assert!(w.active);
    assert_eq!(w.created_at, b.ctx.now);
    let stored: (String, String, String, String, i64) = b
        .read(|c| {
            Ok(c.query_row(
                "SELECT owner_id, url, events, unseal(secret, 'webhooks.secret'), movement_cursor
                 FROM webhooks WHERE id = ?1",
                [&w.id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )?)
        })
        .unwrap();
    assert_eq!(
        stored,
        (
            ANN.to_owned(),
            "https://a.example.com/in".to_owned(),
            r#"["stock.low","invoice.updated"]"#.to_owned(),
            created.secret.clone(),
            0
        )
    );
    let listed = b
        .read(|c| {
            resource::list_webhooks(
                c,
                &b.ann(),
                stockbook::http::paging::Page {
                    limit: None,
                    offset: 0,
                },
            )
        })
        .unwrap();
    assert_eq!(
        listed.iter().map(|w| w.id.as_str()).collect::<Vec<_>>(),
        [w.id.as_str()]
    );
}

#[test]
fn an_entity_of_another_user_is_refused_and_a_user_holds_at_most_fifty_webhooks() {
    let b = Books::new();
    b.refused(404, |tx| {
        resource::create_webhook(
            tx,
            &b.ann(),
            hook("https://a.example.com/in", &["*"], Some(&b.bob_entity)),
            &b.ctx,
        )
    });
    for _ in 0..MAX_WEBHOOKS {
        b.anns_webhook();
    }
    let msg = b.refused(409, |tx| {
        resource::create_webhook(
            tx,
            &b.ann(),
            hook("https://a.example.com/in", &["*"], None),
            &b.ctx,
        )
    });
    assert!(msg.contains("at most 50 webhooks"), "{msg}");
    // Bob's count is his own.
    b.bobs_webhook();
}

#[test]
fn an_event_list_must_name_known_types_and_is_stored_without_duplicates() {
    let events = |v: &[&str]| Some(v.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>());
    let missing = resource::check_events(None).unwrap_err();
    assert_eq!(missing.status().code, 400);
    assert_eq!(
        resource::check_events(events(&[]))
            .unwrap_err()
            .status()
            .code,
        400
    );
    let unknown = resource::check_events(events(&["stock.low", "order.placed"])).unwrap_err();
    assert_eq!(unknown.status().code, 400);
    assert!(
        unknown.to_string().contains("`order.placed`")
            && unknown.to_string().contains(&EVENT_TYPES.join(", ")),
        "{unknown}"
    );
    assert_eq!(
        resource::check_events(events(&[" stock.low", "stock.low ", "bill.updated"])).unwrap(),
        ["stock.low", "bill.updated"]
    );
    assert_eq!(
        resource::check_events(events(&["stock.low", "*"])).unwrap(),
        ["*"]
    );
}

#[test]
fn a_url_that_breaks_the_outgoing_call_rules_is_refused_naming_the_setting() {
    let strict = config(&[]);
    let refused = |c: &AppConfig, url: &str| {
        let e = resource::check_url_blocking(c, url).unwrap_err();
        assert_eq!(e.status().code, 400, "{url}: {e}");
        e.to_string()
    };
    assert!(refused(&strict, "http://93.184.216.34/in").contains("webhooks_allow_http"));
    assert!(refused(&strict, "https://127.0.0.1/in").contains("webhooks_allow_private"));
    assert!(refused(&strict, "https://10.0.0.8/in").contains("webhooks_allow_private"));
    refused(&strict, "   ");
    refused(
        &strict,
        &format!("https://93.184.216.34/{}", "a".repeat(resource::MAX_URL)),
    );
    assert_eq!(
        resource::check_url_blocking(&strict, " https://93.184.216.34/in ").unwrap(),
        "https://93.184.216.34/in"
    );
    let lax = config(&[
        ("webhooks_allow_http", json!(true)),
        ("webhooks_allow_private", json!(true)),
    ]);
    assert_eq!(
        resource::check_url_blocking(&lax, "http://127.0.0.1:9/in").unwrap(),
        "http://127.0.0.1:9/in"
    );
}

#[test]
fn an_update_changes_only_the_fields_sent_and_an_empty_entity_clears_the_scope() {
    let b = Books::new();
    let w = b.anns_webhook();
    let changed = b.write(|tx| {
        resource::update_webhook(
            tx,
            &b.ann(),
            WebhookChange {
                events: Some(vec!["bill.updated".into()]),
                entity_id: Some(Some(b.ann_entity.clone())),
                active: Some(false),
                ..change(&w.id)
            },
        )
    });
    assert_eq!(changed.url, w.url);
    assert_eq!(changed.events, ["bill.updated"]);
    assert_eq!(changed.entity_id.as_deref(), Some(b.ann_entity.as_str()));
    assert!(!changed.active);
    let stored: (String, Option<String>, bool) = b
        .read(|c| {
            Ok(c.query_row(
                "SELECT events, entity_id, active FROM webhooks WHERE id = ?1",
                [&w.id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?)
        })
        .unwrap();
    assert_eq!(
        stored,
        (
            r#"["bill.updated"]"#.to_owned(),
            Some(b.ann_entity.clone()),
            false
        )
    );
    let cleared = b.write(|tx| {
        resource::update_webhook(
            tx,
            &b.ann(),
            WebhookChange {
                entity_id: Some(Some(String::new())),
                url: Some("https://c.example.com/in".into()),
                ..change(&w.id)
            },
        )
    });
    assert_eq!(cleared.entity_id, None);
    assert_eq!(cleared.url, "https://c.example.com/in");
    assert_eq!(cleared.events, ["bill.updated"]);
    // Another user's entity is as unknown as a missing one.
    b.refused(404, |tx| {
        resource::update_webhook(
            tx,
            &b.ann(),
            WebhookChange {
                entity_id: Some(Some(b.bob_entity.clone())),
                ..change(&w.id)
            },
        )
    });
}

#[test]
fn another_users_webhook_is_not_found_by_any_rule_and_is_left_alone() {
    let b = Books::new();
    let bobs = b.bobs_webhook();
    b.ping_as_bob(&bobs);
    let ann = b.ann();
    b.refused(404, |tx| {
        resource::update_webhook(
            tx,
            &ann,
            WebhookChange {
                active: Some(false),
                ..change(&bobs.id)
            },
        )
    });
    b.refused(404, |tx| resource::delete_webhook(tx, &ann, &bobs.id));
    b.refused(404, |tx| deliveries::send_test(tx, &ann, &bobs.id, &b.ctx));
    let event = b.count_text(
        "SELECT event_id FROM webhook_deliveries WHERE webhook_id = ?1",
        &bobs.id,
    );
    b.refused(404, |tx| deliveries::redeliver_event(tx, &ann, &event));
    let log = b
        .read(|c| deliveries::list_deliveries(c, &ann, Some(&bobs.id), -1, 0))
        .unwrap_err();
    assert_eq!(log.status().code, 404);
    assert!(b
        .read(|c| deliveries::list_deliveries(c, &ann, None, -1, 0))
        .unwrap()
        .is_empty());
    assert_eq!(
        b.read(|c| deliveries::list_deliveries(c, &b.bob(), None, -1, 0))
            .unwrap()
            .len(),
        1
    );
}

impl Books {
    fn ping_as_bob(&self, w: &Webhook) -> Delivery {
        self.write(|tx| deliveries::send_test(tx, &self.bob(), &w.id, &self.ctx))
    }

    fn count_text(&self, sql: &str, arg: &str) -> String {
        self.read(|c| Ok(c.query_row(sql, [arg], |r| r.get(0))?))
            .expect("a value")
    }
}

#[test]
fn a_test_ping_is_queued_for_an_active_webhook_only() {
    let b = Books::new();
    let w = b.anns_webhook();
    let d = b.ping(&w);
    assert_eq!(
        (d.webhook_id.as_str(), d.kind.as_str(), d.status.as_str()),
        (w.id.as_str(), outbox::PING, "pending")
    );
    assert_eq!(d.attempts, 0);
    assert!(d.next_attempt_at.is_some());
    let body: serde_json::Value = serde_json::from_str(&b.count_text(
        "SELECT body FROM webhook_deliveries WHERE event_id = ?1",
        &d.event_id,
    ))
    .unwrap();
    assert_eq!(body["type"], "ping");
    assert_eq!(body["data"], json!({"webhook_id": w.id}));

    b.write(|tx| {
        resource::update_webhook(
            tx,
            &b.ann(),
            WebhookChange {
                active: Some(false),
                ..change(&w.id)
            },
        )
    });
    let msg = b.refused(409, |tx| deliveries::send_test(tx, &b.ann(), &w.id, &b.ctx));
    assert!(msg.contains("inactive"), "{msg}");
}

#[test]
fn redelivering_queues_the_event_again_with_a_fresh_retry_window() {
    let b = Books::new();
    let w = b.anns_webhook();
    let d = b.ping(&w);
    b.write(|tx| {
        tx.execute(
            "UPDATE webhook_deliveries SET status = 'failed', attempts = 7, round_attempts = 7",
            [],
        )?;
        Ok(())
    });
    let queued = b.write(|tx| deliveries::redeliver_event(tx, &b.ann(), &d.event_id));
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].status, "pending");
    assert_eq!(queued[0].attempts, 7, "the log keeps its attempts");
    assert_eq!(
        b.count(
            "SELECT round_attempts FROM webhook_deliveries WHERE event_id = ?1",
            &[d.event_id.as_str()]
        ),
        0
    );
    let unknown = uuid::Uuid::new_v4().to_string();
    b.refused(404, |tx| {
        deliveries::redeliver_event(tx, &b.ann(), &unknown)
    });
}

#[test]
fn deleting_a_webhook_deletes_its_deliveries_and_nothing_else() {
    let b = Books::new();
    let (w, keep) = (b.anns_webhook(), b.anns_webhook());
    b.ping(&w);
    b.ping(&keep);
    b.write(|tx| resource::delete_webhook(tx, &b.ann(), &w.id));
    assert_eq!(
        b.count("SELECT COUNT(*) FROM webhooks WHERE owner_id = ?1", &[ANN]),
        1
    );
    assert_eq!(
        b.count("SELECT COUNT(*) FROM webhook_deliveries", &[]),
        1,
        "the other webhook's delivery stays"
    );
    b.refused(404, |tx| resource::delete_webhook(tx, &b.ann(), &w.id));
    assert_eq!(
        b.count("SELECT COUNT(*) FROM webhooks WHERE owner_id = ?1", &[BOB]),
        0
    );
}

#[test]
fn the_event_types_are_one_table_from_which_every_list_is_derived() {
    let names: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
    assert_eq!(names, EVENT_TYPES);
    assert_eq!(SUBSCRIBABLE[0], "*");
    assert_eq!(SUBSCRIBABLE[1..], EVENT_TYPES);
    assert_eq!(
        names.iter().collect::<HashSet<_>>().len(),
        names.len(),
        "no type twice"
    );
    assert!(
        !names.contains(&outbox::PING),
        "ping cannot be subscribed to"
    );
    for e in &EVENTS {
        assert!(
            !e.description.is_empty() && !e.description.ends_with('.'),
            "{}: one line without a full stop, as the form shows it",
            e.name
        );
    }
    assert_eq!(
        serde_json::to_value(EVENTS[1]).unwrap(),
        json!({"type": "stock.low", "description": "A product or location falls to its low-stock level"})
    );
}
