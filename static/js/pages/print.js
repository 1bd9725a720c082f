// The print view of an invoice or a credit note (docs/accounting.md#printing-and-sending-invoices):
// `#/print/invoices/<id>` or `#/print/credit-notes/<id>`. An A4 sheet holding what HMRC asks of
// a full VAT invoice, which the browser prints or saves as PDF (the print stylesheet hides
// everything else); the PDF to download; and, when the operator configured mail, "Send by
// email" (docs/accounting.md#sending-by-email).

import { get, post } from "../api.js";
import { amountIn } from "../currency.js";
import { qty, price, percent } from "../decimal.js";
import {
  h, fill, field, formDialog, pageHeader, toast, date, loadError, notice,
} from "../ui.js";

export const title = "Print";

const KINDS = {
  invoices: { path: "/api/invoices", back: "#/invoices", noun: "invoice" },
  "credit-notes": { path: "/api/credit-notes", back: "#/credit-notes", noun: "credit note" },
};

const lines = (text) => (text || "").split("\n").map((l) => l.trim()).filter(Boolean)
  .flatMap((l, i) => (i ? [h("br"), l] : [l]));

function party(role, p) {
  return h("div", { class: `party party-${role}` },
    h("p", { class: "party-name" }, p.name),
    p.address ? h("p", { class: "party-address" }, lines(p.address)) : null,
    p.vat_number ? h("p", { class: "party-vat" }, `VAT registration number: ${p.vat_number}`) : null);
}

/** The A4 sheet: everything the customer receives, nothing else. */
function sheet(d) {
  const money = (v) => amountIn(v, d.currency);
  const discount = d.lines.some((l) => Number(l.discount) !== 0);
  const facts = [
    [d.kind === "credit_note" ? "Credit note number" : "Invoice number", d.number || "(none)"],
    ["Date of issue", date(d.issue_date)],
    ...(d.time_of_supply !== d.issue_date ? [["Time of supply", date(d.time_of_supply)]] : []),
    ...(d.kind === "invoice" ? [["Due date", date(d.due_date)]] : []),
    ["Currency", d.currency],
  ];
  const totals = [
    ...d.vat_by_rate.map((g) => [`VAT at ${g.vat_label} on ${money(g.net)}`, money(g.vat), ""]),
    ["Total net", money(d.subtotal), ""],
    ["Total VAT", money(d.vat_total), ""],
    [`Total ${d.currency}`, money(d.total), "grand"],
    ...(d.vat_total_gbp !== null ? [["Total VAT in GBP", amountIn(d.vat_total_gbp, "GBP"), ""]] : []),
    ...(d.kind === "invoice" && d.amount_due !== d.total && d.status !== "void"
      ? [["Amount due", money(d.amount_due), "grand"]] : []),
  ];
  return h("article", { class: "print-sheet", "aria-label": `${d.title} ${d.number || ""}` },
    h("header", { class: "sheet-head" },
      h("div", {},
        h("h2", { class: "sheet-title" }, d.title,
          d.status === "draft" || d.status === "void"
            ? h("span", { class: "sheet-status" }, d.status.toUpperCase()) : null),
        party("seller", d.seller)),
      d.logo_url ? h("img", { class: "sheet-logo", src: d.logo_url, alt: `${d.seller.name} logo` }) : null),
    h("div", { class: "sheet-parties" },
      h("div", {}, h("p", { class: "sheet-label" }, "To"), party("customer", d.customer)),
      h("dl", { class: "sheet-facts" }, facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
    d.credited_invoice
      ? h("p", { class: "sheet-credits" },
        `Credits invoice ${d.credited_invoice.number || "(unnumbered)"} of ${date(d.credited_invoice.issue_date)}`)
      : null,
    d.reason ? h("p", { class: "sheet-reason" }, `Reason: ${d.reason}`) : null,
    h("table", { class: "sheet-lines" },
      h("caption", { class: "sr-only" }, "Lines"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Description"),
        h("th", { scope: "col", class: "num" }, "Qty"),
        h("th", { scope: "col", class: "num" }, "Unit price"),
        discount ? h("th", { scope: "col", class: "num" }, "Discount") : null,
        h("th", { scope: "col", class: "num" }, "VAT rate"),
        h("th", { scope: "col", class: "num" }, "Net"))),
      h("tbody", {}, d.lines.map((l) => h("tr", {},
        h("td", { class: "desc" }, l.description),
        h("td", { class: "num" }, qty(l.quantity)),
        h("td", { class: "num" }, d.currency === "GBP" ? price(l.unit_price) : `${l.unit_price} ${d.currency}`),
        discount ? h("td", { class: "num" }, Number(l.discount) ? percent(l.discount) : "") : null,
        h("td", { class: "num" }, l.vat_label),
        h("td", { class: "num" }, money(l.net)))))),
    h("table", { class: "sheet-totals" },
      h("caption", { class: "sr-only" }, "Totals"),
      h("tbody", {}, totals.map(([k, v, cls]) => h("tr", { class: cls },
        h("th", { scope: "row" }, k), h("td", { class: "num" }, v))))),
    d.reverse_charge_note ? h("p", { class: "sheet-note" }, d.reverse_charge_note) : null,
    d.notes ? h("p", { class: "sheet-note" }, lines(d.notes)) : null);
}

function sendDialog(kind, d) {
  return formDialog({
    title: `Send ${kind.noun} ${d.number || ""} by email`,
    submitLabel: "Send",
    build: (form) => form.append(
      field({ label: "To", name: "to", type: "email", value: d.customer.email || "", required: true,
        hint: "The PDF is attached." }),
      field({ label: "Subject", name: "subject", value: `${d.title} ${d.number || ""} from ${d.seller.name}` }),
      field({ label: "Message", name: "message", type: "textarea",
        hint: "Left blank: a line naming the document, its total and due date." })),
    submit: async (form) => {
      const body = {};
      for (const name of ["to", "subject", "message"]) {
        const v = form.elements[name].value.trim();
        if (v) body[name] = v;
      }
      return (await post(`${kind.path}/${encodeURIComponent(d.id)}/send`, body)).data;
    },
  });
}

export async function render(root, ctx) {
  const [which, id] = ctx.params;
  const kind = KINDS[which];
  if (!kind || !id) {
    fill(root, pageHeader("Print"), notice("error", "There is no document at this address."));
    return;
  }
  let answer;
  try {
    answer = await get(`${kind.path}/${encodeURIComponent(id)}/print`);
  } catch (e) {
    if (ctx.alive()) fill(root, pageHeader("Print"), loadError(e, `this ${kind.noun}`));
    return;
  }
  if (!ctx.alive()) return;
  const d = answer.data;
  const pdf = `${kind.path}/${encodeURIComponent(d.id)}/pdf`;
  const sendButton = answer.mail_configured
    ? h("button", { type: "button", class: "secondary", id: "send-email" }, "Send by email")
    : null;
  const sends = h("section", { class: "print-sends", "aria-label": "Emails sent" },
    d.sends.length
      ? h("p", { class: "muted" }, "Emailed: ",
        d.sends.map((s, i) => [i ? "; " : "", `${date(s.sent_at)} to ${s.recipient}`]))
      : null);
  document.title = `${d.title} ${d.number || ""} · Stockbook`;
  fill(root,
    h("div", { class: "print-toolbar" },
      pageHeader(`${d.title} ${d.number || ""}`,
        h("button", { type: "button", id: "print-now", onclick: () => window.print() }, "Print or save as PDF"),
        h("a", { class: "button secondary", href: pdf, download: "" }, "Download PDF"),
        sendButton,
        h("a", { class: "button secondary", href: kind.back }, `Back to ${kind.noun}s`)),
      answer.mail_configured ? null : h("p", { class: "muted" },
        "Sending by email needs a mail server, which the operator sets up (the smtp setting)."),
      sends),
    sheet(d));
  if (sendButton) {
    sendButton.addEventListener("click", async () => {
      const sent = await sendDialog(kind, d);
      if (sent) {
        toast(`Sent to ${sent.recipient}.`);
        ctx.refresh();
      }
    });
  }
}
