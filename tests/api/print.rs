//! Invoices a customer can receive (docs/accounting.md#printing-and-sending-invoices):
//! the print data, the PDF, the entity's logo (docs/accounting.md#the-logo) and the email
//! through a mail server written here (docs/accounting.md#sending-by-email), over HTTP.

use super::common;

use common::fake_smtp::{attachment, FakeSmtp};
use common::{app_with, assert_error, body, TestApp};
use rocket::http::{ContentType, Status};
use serde_json::{json, Value};

/// A 1×1 RGB PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

fn png() -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(PNG)
        .unwrap()
}

/// The start of a 2×3 baseline JPEG: SOI, an APP0 segment, then its frame header.
fn jpeg() -> Vec<u8> {
    let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
    b.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    b.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x03, 0x00, 0x02, 0x03]);
    b.extend_from_slice(&[1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
    b
}

struct Shop {
    t: TestApp,
    entity: String,
    customer: String,
}

fn shop(config: &[(&str, Value)]) -> Shop {
    let t = app_with(config);
    t.signup("owner@example.com");
    let (s, v) = t.post(
        "/api/entities",
        json!({ "name": "Acme Roasters Ltd", "vat_number": "GB123456782",
                "address": "1 High St\nLeeds LS1 1AA" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let entity = v["data"]["id"].as_str().unwrap().to_owned();
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": "Ann Buyer Cafe", "entity_id": entity, "email": "ann@buyer.test",
                "address": "2 Low Rd\nYork YO1 2BB", "vat_number": "GB987654321" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let customer = v["data"]["id"].as_str().unwrap().to_owned();
    Shop {
        t,
        entity,
        customer,
    }
}

impl Shop {
    fn invoice(&self, status: &str) -> Value {
        let (s, v) = self.t.post(
            "/api/invoices",
            json!({
                "contact_id": self.customer, "entity_id": self.entity, "status": status,
                "location_id": null, "issue_date": "2026-11-02", "due_date": "2026-12-02",
                "lines": [
                    { "description": "Espresso beans 1kg", "quantity": 3, "unit_price": 12.5, "vat_rate": 0 },
                    { "description": "Grinder", "quantity": 1, "unit_price": 100, "vat_rate": 20 },
                    { "description": "Descaler", "quantity": 2, "unit_price": 5, "vat_rate": 20, "discount": 10 },
                ],
            }),
        );
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn raw_get(&self, path: &str) -> (Status, Option<ContentType>, Vec<u8>) {
        let res = self.t.with_session(self.t.client.get(path)).dispatch();
        let (s, ct) = (res.status(), res.content_type());
        (s, ct, res.into_bytes().unwrap_or_default())
    }

    fn put_logo(&self, entity: &str, ct: ContentType, bytes: Vec<u8>) -> (Status, Value) {
        body(
            self.t
                .with_session(self.t.client.put(format!("/api/entities/{entity}/logo")))
                .header(ct)
                .body(bytes)
                .dispatch(),
        )
    }
}

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap()
}

#[test]
fn the_print_data_holds_what_hmrc_asks_of_a_full_vat_invoice() {
    let shop = shop(&[]);
    let inv = shop.invoice("sent");
    let (s, v) = shop.t.get(&format!("/api/invoices/{}/print", id(&inv)));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["mail_configured"], false);
    let p = &v["data"];
    assert_eq!(p["title"], "VAT invoice");
    assert_eq!(p["number"], inv["number"]);
    assert_eq!(p["issue_date"], "2026-11-02");
    assert_eq!(p["time_of_supply"], "2026-11-02");
    assert_eq!(p["due_date"], "2026-12-02");
    assert_eq!(p["currency"], "GBP");
    assert_eq!(p["seller"]["name"], "Acme Roasters Ltd");
    assert_eq!(p["seller"]["address"], "1 High St\nLeeds LS1 1AA");
    assert_eq!(p["seller"]["vat_number"], "GB123456782");
    assert_eq!(p["customer"]["name"], "Ann Buyer Cafe");
    assert_eq!(p["customer"]["address"], "2 Low Rd\nYork YO1 2BB");
    assert_eq!(p["customer"]["vat_number"], "GB987654321");
    let lines = p["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["description"], "Espresso beans 1kg");
    assert_eq!(lines[0]["quantity"], json!(3));
    assert_eq!(lines[0]["unit_price"], json!(12.5));
    assert_eq!(lines[0]["vat_label"], "0% (zero-rated)");
    assert_eq!(lines[0]["net"], json!(37.5));
    assert_eq!(lines[2]["discount"], json!(10));
    assert_eq!(lines[2]["net"], json!(9));
    // VAT per rate, highest first: 20 % on 109.00 is 21.80; 0 % on 37.50.
    assert_eq!(
        p["vat_by_rate"],
        json!([
            { "vat_label": "20%", "vat_rate": 20, "net": 109, "vat": 21.8 },
            { "vat_label": "0% (zero-rated)", "vat_rate": 0, "net": 37.5, "vat": 0 },
        ])
    );
    assert_eq!(p["subtotal"], json!(146.5));
    assert_eq!(p["vat_total"], json!(21.8));
    assert_eq!(p["total"], json!(168.3));
    assert_eq!(p["logo_url"], Value::Null);
    assert_eq!(p["sends"], json!([]));
}

#[test]
fn a_credit_note_prints_the_invoice_it_credits_and_its_reason() {
    let shop = shop(&[]);
    let inv = shop.invoice("sent");
    let (s, cn) = shop.t.post(
        "/api/credit-notes",
        json!({ "contact_id": shop.customer, "entity_id": shop.entity, "status": "posted",
                "invoice_id": id(&inv), "location_id": null, "notes": "Grinder returned damaged",
                "lines": [{ "description": "Grinder", "quantity": 1, "unit_price": 100 }] }),
    );
    assert_eq!(s, Status::Created, "{cn}");
    let (s, v) = shop
        .t
        .get(&format!("/api/credit-notes/{}/print", id(&cn["data"])));
    assert_eq!(s, Status::Ok, "{v}");
    let p = &v["data"];
    assert_eq!(p["title"], "Credit note");
    assert_eq!(p["credited_invoice"]["number"], inv["number"]);
    assert_eq!(p["credited_invoice"]["issue_date"], "2026-11-02");
    assert_eq!(p["reason"], "Grinder returned damaged");
    // An invoice id is not a credit note.
    let (s, _) = shop.t.get(&format!("/api/credit-notes/{}/print", id(&inv)));
    assert_eq!(s, Status::NotFound);
}

#[test]
fn a_seller_without_a_vat_number_prints_an_invoice_not_a_vat_invoice() {
    let shop = shop(&[]);
    let (s, v) = shop.t.put(
        "/api/entities",
        json!({ "id": shop.entity, "vat_number": null }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let inv = shop.invoice("sent");
    let (_, v) = shop.t.get(&format!("/api/invoices/{}/print", id(&inv)));
    assert_eq!(v["data"]["title"], "Invoice");
}

#[test]
fn the_pdf_is_a_pdf_holding_the_number_seller_customer_and_totals() {
    let shop = shop(&[]);
    let inv = shop.invoice("sent");
    let (s, ct, bytes) = shop.raw_get(&format!("/api/invoices/{}/pdf", id(&inv)));
    assert_eq!(s, Status::Ok);
    assert_eq!(ct, Some(ContentType::PDF));
    assert!(bytes.starts_with(b"%PDF-"), "{:?}", &bytes[..8]);
    let text = String::from_utf8_lossy(&bytes);
    for shown in [
        inv["number"].as_str().unwrap(),
        "VAT invoice",
        "Acme Roasters Ltd",
        "VAT registration number: GB123456782",
        "Ann Buyer Cafe",
        "York YO1 2BB",
        "Espresso beans 1kg",
        "0% (zero-rated)",
        "VAT at 20% on 109.00",
        "21.80",
        "168.30",
        "Total GBP",
        "2026-11-02",
    ] {
        assert!(
            text.contains(&format!("({shown})")),
            "the PDF lacks {shown}"
        );
    }
    assert!(text.contains("/MediaBox [0 0 595.28 841.89]"), "A4");
    assert!(!text.contains("/Im1"), "no logo set, none drawn");
}

#[test]
fn another_users_invoice_has_no_print_data_pdf_or_send() {
    let shop = shop(&[]);
    let inv = shop.invoice("sent");
    shop.t.signup("other@example.com");
    for path in ["print", "pdf"] {
        let (s, _, _) = shop.raw_get(&format!("/api/invoices/{}/{path}", id(&inv)));
        assert_eq!(s, Status::NotFound, "{path}");
    }
    let (s, _) = shop.t.get("/api/invoices/not-a-uuid/print");
    assert!(s == Status::NotFound || s == Status::BadRequest, "{s}");
}

#[test]
fn a_logo_is_checked_stored_served_back_and_printed() {
    let shop = shop(&[]);
    let path = format!("/api/entities/{}/logo", shop.entity);
    let (s, _, _) = shop.raw_get(&path);
    assert_eq!(s, Status::NotFound, "no logo yet");

    let (s, v) = shop.put_logo(&shop.entity, ContentType::PNG, png());
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        v["data"],
        json!({ "content_type": "image/png", "width": 1, "height": 1 })
    );
    let (s, ct, bytes) = shop.raw_get(&path);
    assert_eq!(s, Status::Ok);
    assert_eq!(ct, Some(ContentType::PNG));
    assert_eq!(bytes, png());

    let inv = shop.invoice("sent");
    let (_, v) = shop.t.get(&format!("/api/invoices/{}/print", id(&inv)));
    assert_eq!(v["data"]["logo_url"], json!(path));
    let (_, _, pdf) = shop.raw_get(&format!("/api/invoices/{}/pdf", id(&inv)));
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/Subtype /Image"), "the logo is in the PDF");
    assert!(text.contains("/Im1 Do"), "and drawn");

    // A transparent PNG (grey and alpha, 2×1) is drawn with its transparency as a mask.
    // One row, filter 0: grey 10 opaque-less (alpha 0), grey 200 opaque.
    let rows = [0u8, 10, 0, 200, 255];
    let mut rgba = b"\x89PNG\r\n\x1a\n".to_vec();
    let chunk = |png: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        png.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        png.extend_from_slice(&[0; 4]);
    };
    chunk(&mut rgba, b"IHDR", &[0, 0, 0, 2, 0, 0, 0, 1, 8, 4, 0, 0, 0]);
    chunk(
        &mut rgba,
        b"IDAT",
        &miniz_oxide::deflate::compress_to_vec_zlib(&rows, 6),
    );
    chunk(&mut rgba, b"IEND", &[]);
    let (s, v) = shop.put_logo(&shop.entity, ContentType::PNG, rgba);
    assert_eq!(s, Status::Ok, "{v}");
    let (_, _, pdf) = shop.raw_get(&format!("/api/invoices/{}/pdf", id(&inv)));
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/SMask"), "the transparency is a soft mask");

    // A JPEG replaces it.
    let (s, v) = shop.put_logo(&shop.entity, ContentType::JPEG, jpeg());
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        v["data"],
        json!({ "content_type": "image/jpeg", "width": 2, "height": 3 })
    );
    let (_, ct, _) = shop.raw_get(&path);
    assert_eq!(ct, Some(ContentType::JPEG));

    let (s, _) = shop.t.delete(&path, json!({}));
    assert_eq!(s, Status::Ok);
    let (s, _, _) = shop.raw_get(&path);
    assert_eq!(s, Status::NotFound);
}

#[test]
fn a_logo_that_is_not_a_png_or_jpeg_or_too_large_is_refused() {
    let shop = shop(&[]);
    let e = shop.entity.clone();
    let r = shop.put_logo(&e, ContentType::PNG, b"<svg onload=alert(1)>".to_vec());
    assert!(assert_error(&r, Status::UnsupportedMediaType).contains("PNG or JPEG"));
    let r = shop.put_logo(&e, ContentType::JPEG, png());
    assert!(assert_error(&r, Status::UnsupportedMediaType).contains("image/png"));
    let r = shop.put_logo(&e, ContentType::PNG, png()[..20].to_vec());
    assert_error(&r, Status::UnsupportedMediaType);
    let mut big = png();
    big.resize(512 * 1024 + 1, 0);
    let r = shop.put_logo(&e, ContentType::PNG, big);
    assert_error(&r, Status::PayloadTooLarge);
    let r = shop.put_logo(&e, ContentType::PNG, Vec::new());
    assert_error(&r, Status::BadRequest);
    let r = body(
        shop.t
            .with_session(shop.t.client.put(format!("/api/entities/{e}/logo")))
            .body(png())
            .dispatch(),
    );
    assert!(assert_error(&r, Status::UnsupportedMediaType).contains("Content-Type"));
    let (s, _, _) = shop.raw_get(&format!("/api/entities/{e}/logo"));
    assert_eq!(s, Status::NotFound, "nothing was stored");
}

#[test]
fn another_users_entity_logo_is_a_404_to_read_set_or_remove() {
    let shop = shop(&[]);
    let (s, _) = shop.put_logo(&shop.entity, ContentType::PNG, png());
    assert_eq!(s, Status::Ok);
    shop.t.signup("other@example.com");
    let path = format!("/api/entities/{}/logo", shop.entity);
    let (s, _, _) = shop.raw_get(&path);
    assert_eq!(s, Status::NotFound);
    let r = shop.put_logo(&shop.entity, ContentType::PNG, png());
    assert_error(&r, Status::NotFound);
    let r = shop.t.delete(&path, json!({}));
    assert_error(&r, Status::NotFound);
    // Signed out: 401.
    *shop.t.session.borrow_mut() = None;
    let (s, _, _) = shop.raw_get(&path);
    assert_eq!(s, Status::Unauthorized);
}

#[test]
fn without_smtp_sending_is_a_409_that_says_mail_is_not_configured() {
    let shop = shop(&[]);
    let inv = shop.invoice("sent");
    let r = shop
        .t
        .post(&format!("/api/invoices/{}/send", id(&inv)), json!({}));
    assert!(assert_error(&r, Status::Conflict).contains("Mail is not configured"));
}

#[test]
fn an_invoice_is_emailed_with_its_pdf_attached_and_the_send_is_recorded() {
    let smtp = FakeSmtp::start();
    let shop = shop(&[("smtp", smtp.config())]);
    let inv = shop.invoice("sent");
    let number = inv["number"].as_str().unwrap();
    let (_, v) = shop.t.get(&format!("/api/invoices/{}/print", id(&inv)));
    assert_eq!(v["mail_configured"], true);

    let (s, v) = shop
        .t
        .post(&format!("/api/invoices/{}/send", id(&inv)), json!({}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["recipient"], "ann@buyer.test");

    let messages = smtp.messages();
    assert_eq!(messages.len(), 1);
    let m = &messages[0];
    assert_eq!(m.to, ["<ann@buyer.test>"]);
    assert_eq!(m.from, "<accounts@acme.test>");
    assert!(
        m.data.contains(&format!(
            "Subject: VAT invoice {number} from Acme Roasters Ltd"
        )),
        "{}",
        m.data
    );
    assert!(m.data.contains("To: ann@buyer.test"), "{}", m.data);
    assert!(
        m.data.contains(&format!("filename=\"{number}.pdf\"")),
        "{}",
        m.data
    );
    let pdf = attachment(&m.data, "application/pdf").expect("a PDF attachment");
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(String::from_utf8_lossy(&pdf).contains(&format!("({number})")));

    let (_, v) = shop.t.get(&format!("/api/invoices/{}/print", id(&inv)));
    let sends = v["data"]["sends"].as_array().unwrap();
    assert_eq!(sends.len(), 1);
    assert_eq!(sends[0]["recipient"], "ann@buyer.test");
    assert!(sends[0]["sent_at"].as_str().unwrap().starts_with("20"));
}

#[test]
fn a_send_takes_another_recipient_subject_and_message() {
    let smtp = FakeSmtp::start();
    let shop = shop(&[("smtp", smtp.config())]);
    let inv = shop.invoice("paid");
    let (s, v) = shop.t.post(
        &format!("/api/invoices/{}/send", id(&inv)),
        json!({ "to": "books@buyer.test", "subject": "Your receipt", "message": "Thanks!" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let m = &smtp.messages()[0];
    assert_eq!(m.to, ["<books@buyer.test>"]);
    assert!(m.data.contains("Subject: Your receipt"), "{}", m.data);
    assert!(m.data.contains("Thanks!"), "{}", m.data);
    let r = shop.t.post(
        &format!("/api/invoices/{}/send", id(&inv)),
        json!({ "to": "not an address" }),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("`to`"));
}

#[test]
fn a_refusal_by_the_mail_server_is_a_502_naming_its_answer_and_nothing_is_recorded() {
    let smtp = FakeSmtp::rejecting();
    let shop = shop(&[("smtp", smtp.config())]);
    let inv = shop.invoice("sent");
    let r = shop
        .t
        .post(&format!("/api/invoices/{}/send", id(&inv)), json!({}));
    let message = assert_error(&r, Status::BadGateway);
    assert!(message.contains("127.0.0.1"), "{message}");
    assert!(message.contains("Mailbox unavailable"), "{message}");
    let (_, v) = shop.t.get(&format!("/api/invoices/{}/print", id(&inv)));
    assert_eq!(v["data"]["sends"], json!([]));
}

#[test]
fn an_unreachable_mail_server_is_a_502() {
    // A port that was free a moment ago and is closed now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let shop = shop(&[(
        "smtp",
        json!({ "host": "127.0.0.1", "port": port, "from": "a@acme.test", "tls": "none" }),
    )]);
    let inv = shop.invoice("sent");
    let r = shop
        .t
        .post(&format!("/api/invoices/{}/send", id(&inv)), json!({}));
    assert!(assert_error(&r, Status::BadGateway).contains(&format!("127.0.0.1:{port}")));
}

#[test]
fn a_draft_or_a_customer_without_email_is_not_sent() {
    let smtp = FakeSmtp::start();
    let shop = shop(&[("smtp", smtp.config())]);
    let draft = shop.invoice("draft");
    let r = shop
        .t
        .post(&format!("/api/invoices/{}/send", id(&draft)), json!({}));
    assert!(assert_error(&r, Status::Conflict).contains("draft"));
    let (s, v) = shop.t.put(
        "/api/contacts",
        json!({ "id": shop.customer, "email": null }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let inv = shop.invoice("sent");
    let r = shop
        .t
        .post(&format!("/api/invoices/{}/send", id(&inv)), json!({}));
    assert!(assert_error(&r, Status::BadRequest).contains("no email address"));
    assert!(smtp.messages().is_empty());
}

#[test]
fn a_credit_note_is_emailed_too() {
    let smtp = FakeSmtp::start();
    let shop = shop(&[("smtp", smtp.config())]);
    let (s, cn) = shop.t.post(
        "/api/credit-notes",
        json!({ "contact_id": shop.customer, "entity_id": shop.entity, "status": "posted",
                "location_id": null, "lines": [{ "description": "Refund", "unit_price": 10 }] }),
    );
    assert_eq!(s, Status::Created, "{cn}");
    let (s, v) = shop.t.post(
        &format!("/api/credit-notes/{}/send", id(&cn["data"])),
        json!({}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let m = &smtp.messages()[0];
    let number = cn["data"]["number"].as_str().unwrap();
    assert!(
        m.data.contains(&format!("Subject: Credit note {number}")),
        "{}",
        m.data
    );
}

#[test]
fn a_bad_smtp_setting_stops_the_start_naming_its_key() {
    for (smtp, key) in [
        (
            json!({ "host": "mail.test", "from": "not an address" }),
            "smtp.from",
        ),
        (
            json!({ "host": "mail.test", "from": "a@b.test", "tls": "ssl" }),
            "smtp.tls",
        ),
        (
            json!({ "host": "mail.test", "from": "a@b.test", "port": 70000 }),
            "smtp.port",
        ),
        (json!({ "host": " ", "from": "a@b.test" }), "smtp.host"),
        (json!({ "from": "a@b.test" }), "smtp.host"),
    ] {
        let figment = common::test_figment(&[("smtp", smtp.clone())]);
        let err = stockbook::config::AppConfig::from_figment(&figment).unwrap_err();
        assert!(err.contains(&format!("`{key}`")), "{smtp}: {err}");
    }
}

#[test]
fn an_entity_with_a_logo_and_no_records_is_deleted_with_its_logo() {
    let t = app_with(&[]);
    t.signup("owner@example.com");
    let entity = t.entity("Logo Only Ltd");
    let shop = Shop {
        t,
        entity: entity.clone(),
        customer: String::new(),
    };
    let (s, _) = shop.put_logo(&entity, ContentType::PNG, png());
    assert_eq!(s, Status::Ok);
    let (s, v) = shop.t.delete("/api/entities", json!({ "id": entity }));
    assert_eq!(s, Status::Ok, "{v}");
    let left: i64 = shop
        .t
        .db
        .read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM entity_logos", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(left, 0);
}
