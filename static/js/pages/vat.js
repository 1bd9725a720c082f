// The VAT page (docs/vat.md#the-vat-page): the entity's VAT settings
// (docs/vat.md#the-entitys-vat-settings), its periods, and for the chosen period the nine
// boxes as HMRC words them, each opening the lines that make it up, the CSV of every line,
// the period's adjustments, and "Record as filed", which keeps the figures and locks the
// period. Below, the returns filed so far with their figures.
//
// `#/vat?from=YYYY-MM-DD&to=YYYY-MM-DD` shows that period's return.
//
// Filing with HMRC (docs/hmrc.md#the-vat-page): "Connect to HMRC"; once connected, HMRC's
// open obligations in place of the computed quarters (`&periodKey=` names the obligation),
// for an obligation HMRC's declaration and "Submit to HMRC", the receipt kept with the
// return, and the liabilities and payments HMRC holds.

import { del, get, post, put, query } from "../api.js";
import { clientInfo, hmrcGet } from "../hmrc.js";
import { format, money, pence } from "../decimal.js";
import { loadEntities, scoped, state } from "../state.js";
import {
  act, badge, confirmDialog, date, field, fill, formError, h, loadError, notice, numberOrText,
  onSubmit, pageHeader, table, toast, today, val,
} from "../ui.js";

export const title = "VAT";

/** The nine boxes: HMRC's name in the VAT API, the box's words on the return, and whether
 * it is whole pounds (boxes 6-9) and has lines of its own (boxes 3 and 5 are sums). */
export const BOXES = [
  { n: 1, key: "vatDueSales", words: "VAT due in the period on sales and other outputs", lines: true },
  { n: 2, key: "vatDueAcquisitions", words: "VAT due in the period on acquisitions of goods made in Northern Ireland from EU Member States", lines: true },
  { n: 3, key: "totalVatDue", words: "Total VAT due (the sum of boxes 1 and 2)" },
  { n: 4, key: "vatReclaimedCurrPeriod", words: "VAT reclaimed in the period on purchases and other inputs (including acquisitions in Northern Ireland from EU Member States)", lines: true },
  { n: 5, key: "netVatDue", words: "Net VAT to pay to HMRC or reclaim (the difference between boxes 3 and 4)" },
  { n: 6, key: "totalValueSalesExVAT", words: "Total value of sales and all other outputs excluding any VAT", whole: true, lines: true },
  { n: 7, key: "totalValuePurchasesExVAT", words: "Total value of purchases and all other inputs excluding any VAT", whole: true, lines: true },
  { n: 8, key: "totalValueGoodsSuppliedExVAT", words: "Total value of dispatches of goods and related costs (excluding VAT) from Northern Ireland to EU Member States", whole: true, lines: true },
  { n: 9, key: "totalAcquisitionsExVAT", words: "Total value of acquisitions of goods and related costs (excluding VAT) made in Northern Ireland from EU Member States", whole: true, lines: true },
];

/** The boxes an adjustment may go in (docs/vat.md). */
const ADJUSTABLE = [1, 2, 4, 6, 7, 8, 9];

/** The schemes an entity may be on, in the words the page uses. */
const SCHEMES = [
  { value: "standard", label: "Standard (invoice-based accounting)" },
  { value: "cash", label: "Cash accounting" },
  { value: "flat_rate", label: "Flat rate" },
];

/** Where a drill-down line's record is shown in the app. */
const RECORDS = {
  invoice: { hash: "#/invoices", noun: "Invoice" },
  bill: { hash: "#/bills", noun: "Bill" },
  credit_note: { hash: "#/credit-notes", noun: "Credit note" },
  supplier_credit: { hash: "#/supplier-credits", noun: "Supplier credit" },
  expense: { hash: "#/expenses", noun: "Expense" },
};

/** Whole pounds (boxes 6-9): the server has dropped the pence already. */
function wholePounds(value) {
  const p = pence(value);
  if (p === null) return "—";
  const pounds = p / 100n;
  return `${pounds < 0n ? "-" : ""}£${format(pounds < 0n ? -pounds : pounds, 0)}`;
}

const boxValue = (box, value) => (box.whole ? wholePounds(value) : money(value));

/** "1 Jan 2026 to 31 Mar 2026". */
export const periodText = (from, to) => `${date(from)} to ${date(to)}`;

/** Box 5 in words: a payment to HMRC, a repayment from HMRC (box 4 above box 3), or nothing. */
export function netInWords(boxes) {
  const due = pence(boxes.totalVatDue) ?? 0n;
  const reclaimed = pence(boxes.vatReclaimedCurrPeriod) ?? 0n;
  if (reclaimed > due) return `HMRC owes you a repayment of ${money(boxes.netVatDue)}: box 4 is more than box 3.`;
  if (due > reclaimed) return `You pay HMRC ${money(boxes.netVatDue)}.`;
  return "Nothing to pay and nothing to reclaim.";
}

const isFiled = (p) => Boolean(p && p.filed);

/** HMRC's declaration, shown before a submission (HMRC's wording for MTD VAT software). */
export const HMRC_DECLARATION = "When you submit this VAT information you are making a legal declaration that the information is true and complete. A false declaration can result in prosecution.";

/** What the callback's `hmrc_error` codes mean (docs/hmrc.md#connecting). */
const HMRC_ERRORS = {
  access_denied: "HMRC did not grant Stockbook access (the request was refused or cancelled at HMRC). Nothing was connected.",
  no_code: "HMRC sent the browser back without an authorisation. Nothing was connected: try again.",
  exchange_failed: "HMRC's authorisation could not be completed (HMRC refused it or could not be reached). Nothing was connected: try again.",
};

/** Days from now to `iso`, rounded down. */
const daysUntil = (iso) => Math.floor((Date.parse(iso) - Date.now()) / 86400000);

/** `YYYY-MM-DD` a year before today. */
function yearAgo() {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return d.toISOString().slice(0, 10);
}

export async function render(root, ctx) {
  const entity = state.entity;
  root.append(pageHeader("VAT"),
    h("p", { class: "lead" }, "Your VAT return drawn from the records: the nine boxes for a period, the invoices, bills and expenses that make each one, and the returns you have filed."));
  const settings = h("section", { "aria-labelledby": "vat-settings-title", id: "vat-settings" },
    h("h2", { id: "vat-settings-title" }, "VAT settings"));
  const periods = h("section", { "aria-labelledby": "vat-periods-title", id: "vat-periods" },
    h("h2", { id: "vat-periods-title" }, "Periods"), h("p", { class: "muted" }, "Loading…"));
  const ret = h("section", { "aria-labelledby": "vat-return-title", id: "vat-return" });
  const filed = h("section", { "aria-labelledby": "vat-filed-title", id: "vat-filed" },
    h("h2", { id: "vat-filed-title" }, "Filed returns"), h("p", { class: "muted" }, "Loading…"));
  const hmrc = h("section", { "aria-labelledby": "vat-hmrc-title", id: "vat-hmrc" },
    h("h2", { id: "vat-hmrc-title" }, "HMRC"), h("p", { class: "muted" }, "Loading…"));
  root.append(settings, hmrc, periods, ret, filed);
  settingsForm(settings, entity, ctx);

  const from = ctx.query.get("from") || "";
  const to = ctx.query.get("to") || "";
  const connection = await hmrcPanel(hmrc, entity, ctx);
  if (!ctx.alive()) return;
  const connected = Boolean(connection?.connected);
  const [periodList, returns] = await Promise.all([
    connected ? loadObligations(periods, entity, ctx, from, to) : loadPeriods(periods, entity, ctx, from, to),
    loadFiled(filed, entity, ctx),
  ]);
  if (!ctx.alive()) return;
  if (connected) {
    const money = h("section", { "aria-labelledby": "vat-hmrc-money-title", id: "vat-hmrc-money" });
    root.append(money);
    hmrcMoney(money, entity, ctx);
  }
  let chosen = from && to ? { from, to, periodKey: ctx.query.get("periodKey") || null } : defaultPeriod(periodList);
  if (!chosen) {
    ret.remove();
    return;
  }
  const known = periodList?.find((p) => p.from === chosen.from && p.to === chosen.to);
  const filedReturn = returns?.find((r) => r.from === chosen.from && r.to === chosen.to);
  chosen = {
    ...chosen,
    periodKey: chosen.periodKey || known?.periodKey || null,
    filed: isFiled(known) || Boolean(filedReturn),
  };
  await showReturn(ret, entity, ctx, chosen, connected);
}

/** Newest first. */
const newestFirst = (list) => [...list].sort((a, b) => (a.from < b.from ? 1 : a.from > b.from ? -1 : 0));

/** The latest period that has ended and is not filed, else the latest; null when none. */
function defaultPeriod(list) {
  if (!list || !list.length) return null;
  const now = today();
  const sorted = newestFirst(list);
  return sorted.find((p) => p.to < now && !isFiled(p)) ?? sorted[0];
}

// ---------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------

function settingsForm(section, e, ctx) {
  const form = h("form", { class: "card", "aria-label": "VAT settings" });
  const scheme = field({ label: "Scheme", name: "vat_scheme", type: "select", options: SCHEMES, value: e.vat_scheme || "standard" });
  const percent = field({
    label: "Flat-rate percentage", name: "flat_rate_percent", inputmode: "decimal",
    value: e.flat_rate_percent ?? "", hint: "Your trade sector's percentage, for example 16.5. The first year of registration uses one point less.",
  });
  const showPercent = () => { percent.hidden = scheme.control.value !== "flat_rate"; };
  scheme.control.addEventListener("change", showPercent);
  showPercent();
  form.append(h("div", { class: "form-grid" },
    field({ label: "VAT number", name: "vat_number", value: e.vat_number ?? "", hint: "Nine digits, optionally after GB. The last two are checked by HMRC's rule." }),
    field({ label: "Registered for VAT from", name: "vat_registered_from", type: "date", value: e.vat_registered_from ?? "", hint: "The periods are quarters from this date." }),
    scheme, percent),
  formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Save VAT settings")));
  section.append(form);
  onSubmit(form, async () => {
    const body = {
      id: e.id,
      vat_number: val(form, "vat_number") || null,
      vat_registered_from: val(form, "vat_registered_from") || null,
      vat_scheme: val(form, "vat_scheme"),
    };
    const pct = val(form, "flat_rate_percent");
    if (body.vat_scheme === "flat_rate" || pct) body.flat_rate_percent = pct ? numberOrText(pct) : null;
    await put("/api/entities", body);
    await loadEntities();
    toast("VAT settings saved.");
    ctx.refresh();
  });
}

// ---------------------------------------------------------------------------------------
// HMRC: the connection, the obligations, liabilities and payments
// ---------------------------------------------------------------------------------------

/** The connection of the entity, with "Connect to HMRC" or its state; the connection or null. */
async function hmrcPanel(section, e, ctx) {
  const area = section.querySelector("p");
  const said = [];
  const back = ctx.query.get("hmrc_error");
  if (ctx.query.get("hmrc") === "connected") said.push(notice("ok", h("p", {}, "Connected to HMRC.")));
  if (back) said.push(notice("error", h("p", {}, HMRC_ERRORS[back] ?? "Connecting to HMRC did not complete. Nothing was connected: try again.")));
  let c;
  try {
    c = (await get("/api/hmrc/connection", { entityId: e.id })).data;
  } catch (err) {
    if (ctx.alive()) fill(area, loadError(err, "the connection to HMRC"));
    return null;
  }
  if (!ctx.alive()) return null;
  const error = h("p", { class: "form-error", role: "alert" });
  const connect = h("button", { type: "button", id: "hmrc-connect", class: c.connected ? "secondary" : "" },
    c.connected ? "Connect again" : "Connect to HMRC");
  if (!e.vat_number) connect.disabled = true;
  connect.addEventListener("click", () => act(connect, async () => {
    const { data } = await get("/api/hmrc/connect", { entityId: e.id });
    window.location.assign(data.authorize_url);
  }, error));
  const parts = [...said];
  if (!c.connected) {
    parts.push(h("p", {}, "Not connected. Connect this business to HMRC to see its VAT obligations and submit its returns from here (Making Tax Digital)."));
    if (!e.vat_number) parts.push(h("p", { class: "hint" }, "Save the VAT number in the settings above first: HMRC is asked about that number."));
    parts.push(h("div", { class: "actions" }, connect), error);
  } else {
    const left = daysUntil(c.refresh_expires_at);
    parts.push(h("p", { id: "hmrc-status" }, `Connected to HMRC on ${date(c.connected_at.slice(0, 10))}. HMRC's authority lasts until ${date(c.refresh_expires_at.slice(0, 10))}.`));
    if (left <= 30) {
      parts.push(notice("warn", h("p", {}, h("strong", {}, left < 0 ? "HMRC's authority has run out. " : `HMRC's authority runs out in ${left} day${left === 1 ? "" : "s"}. `),
        "Connect again to keep filing from Stockbook.")));
    }
    const disconnect = h("button", { type: "button", class: "secondary danger" }, "Disconnect");
    disconnect.addEventListener("click", () => act(disconnect, async () => {
      if (!(await confirmDialog("Disconnect this business from HMRC?", { confirm: "Disconnect", danger: true, detail: "Stockbook forgets HMRC's tokens. Returns already filed stay as they are." }))) return;
      await del("/api/hmrc/connection", { entity_id: e.id });
      toast("Disconnected from HMRC.");
      ctx.go("#/vat");
    }, error));
    parts.push(h("div", { class: "actions" }, connect, disconnect), error);
  }
  area.replaceWith(...parts);
  return c;
}

/** HMRC's open obligations as the periods (`{from, to, periodKey, due}`); null on failure. */
async function loadObligations(section, e, ctx, from, to) {
  const area = section.querySelector("p");
  let list;
  try {
    list = (await hmrcGet("/api/vat/obligations", { entityId: e.id, status: "O" })).data;
  } catch (err) {
    if (!ctx.alive()) return null;
    // HMRC's list is out of reach: say so, and offer the computed quarters meanwhile.
    section.querySelector("h2").after(loadError(err, "HMRC's obligations"));
    return loadPeriods(section, e, ctx, from, to);
  }
  if (!ctx.alive()) return null;
  const rows = newestFirst(list.map((o) => ({ from: o.start, to: o.end, periodKey: o.period_key, due: o.due })));
  const other = otherDates(ctx, from, to);
  area.replaceWith(h("p", { class: "hint" }, "HMRC's open obligations for this business."), table({
    caption: "VAT obligations open at HMRC",
    rows,
    empty: "HMRC lists no open obligation: nothing to file now.",
    columns: [
      { label: "Period", header: true, cell: (p) => {
        const current = p.from === from && p.to === to;
        return h("a", { href: `#/vat?${new URLSearchParams({ from: p.from, to: p.to, periodKey: p.periodKey })}`, "aria-current": current ? "true" : null }, periodText(p.from, p.to));
      } },
      { label: "Due", cell: (p) => date(p.due) },
      { label: "Status", cell: (p) => (p.to < today() ? badge("Open: to file", "warn") : badge("Open", "")) },
    ],
  }), other);
  return rows;
}

/** The liabilities and payments HMRC holds for the past year. */
async function hmrcMoney(section, e, ctx) {
  section.append(h("h2", { id: "vat-hmrc-money-title" }, "At HMRC: liabilities and payments"));
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  section.append(area);
  const params = { entityId: e.id, from: yearAgo(), to: today() };
  let liabilities;
  let payments;
  try {
    [liabilities, payments] = await Promise.all([
      hmrcGet("/api/vat/liabilities", params).then((r) => r.data),
      hmrcGet("/api/vat/payments", params).then((r) => r.data),
    ]);
  } catch (err) {
    if (ctx.alive()) fill(area, loadError(err, "HMRC's liabilities and payments"));
    return;
  }
  if (!ctx.alive()) return;
  fill(area,
    table({
      caption: "Liabilities (the last 12 months)",
      rows: liabilities,
      empty: "HMRC lists no liability in the last 12 months.",
      columns: [
        { label: "Period", header: true, cell: (l) => (l.taxPeriod ? periodText(l.taxPeriod.from, l.taxPeriod.to) : "—") },
        { label: "Type", cell: (l) => l.type ?? "—" },
        { label: "Due", cell: (l) => (l.due ? date(l.due) : "—") },
        { label: "Original amount", num: true, cell: (l) => money(l.originalAmount) },
        { label: "Outstanding", num: true, cell: (l) => (l.outstandingAmount === undefined ? "—" : money(l.outstandingAmount)) },
      ],
    }),
    table({
      caption: "Payments received by HMRC (the last 12 months)",
      rows: payments,
      empty: "HMRC lists no payment in the last 12 months.",
      columns: [
        { label: "Received", header: true, cell: (p) => (p.received ? date(p.received) : "—") },
        { label: "Amount", num: true, cell: (p) => money(p.amount) },
      ],
    }));
}

/** HMRC's receipt of a filed return, as a list of its parts. */
export function receiptView(receipt) {
  if (!receipt) return null;
  if (receipt.recovered) {
    return h("p", { class: "hint", "data-receipt": "recovered" }, "HMRC confirmed it holds this return (the submission was interrupted before its receipt arrived, so HMRC's reference numbers were not received).");
  }
  const item = (term, value) => (value ? [h("dt", {}, term), h("dd", {}, String(value))] : []);
  return h("dl", { class: "facts receipt", "data-receipt": "hmrc" },
    ...item("Processing date", receipt.processingDate),
    ...item("Form bundle number", receipt.formBundleNumber),
    ...item("Charge reference", receipt.chargeRefNumber),
    ...item("Payment indicator", receipt.paymentIndicator),
    ...item("Receipt ID", receipt.receiptId));
}

// ---------------------------------------------------------------------------------------
// Periods
// ---------------------------------------------------------------------------------------

async function loadPeriods(section, e, ctx, from, to) {
  const area = section.querySelector("p");
  let list;
  try {
    list = (await get("/api/vat/periods", { entityId: e.id })).data;
  } catch (err) {
    if (ctx.alive()) fill(area, loadError(err, "the VAT periods"));
    return null;
  }
  if (!ctx.alive()) return null;
  const other = otherDates(ctx, from, to);
  if (!list.length) {
    area.replaceWith(h("p", {}, "No periods yet: the date of registration is still to come."), other);
    return list;
  }
  const rows = newestFirst(list);
  const calendar = e.vat_registered_from ? null
    : h("p", { class: "hint" }, "Calendar quarters: set the date you were registered for VAT from above to list the quarters from it.");
  area.replaceWith(...[calendar, table({
    caption: "VAT periods",
    rows,
    columns: [
      { label: "Period", header: true, cell: (p) => {
        const current = p.from === from && p.to === to;
        return h("a", { href: `#/vat?${new URLSearchParams({ from: p.from, to: p.to })}`, "aria-current": current ? "true" : null }, periodText(p.from, p.to));
      } },
      { label: "Status", cell: (p) => (isFiled(p) ? badge("Filed: locked", "ok") : p.to < today() ? badge("Open: to file", "warn") : badge("Open", "")) },
    ],
  }), other].filter(Boolean));
  return list;
}

/** A form to show the return of any dates (a period HMRC set differently, say). */
function otherDates(ctx, from, to) {
  const form = h("form", { class: "filters slim", "aria-label": "Other dates" },
    field({ label: "From", name: "from", type: "date", value: from }),
    field({ label: "To", name: "to", type: "date", value: to }),
    h("button", { type: "submit", class: "secondary" }, "Show these dates"));
  onSubmit(form, async () => {
    ctx.go(`#/vat?${new URLSearchParams({ from: val(form, "from"), to: val(form, "to") })}`);
  });
  return h("details", {}, h("summary", {}, "Other dates"), form);
}

// ---------------------------------------------------------------------------------------
// The return of a period
// ---------------------------------------------------------------------------------------

async function showReturn(section, e, ctx, period, connected) {
  const { from, to, periodKey } = period;
  const params = { entityId: e.id, from, to };
  section.append(h("h2", { id: "vat-return-title" }, `Return for ${periodText(from, to)}`));
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  section.append(body);
  let data;
  try {
    data = (await get("/api/vat/return", params)).data;
  } catch (err) {
    if (ctx.alive()) fill(body, loadError(err, "the VAT return"));
    return;
  }
  if (!ctx.alive()) return;
  const filedReturn = data.filed || null;
  const locked = period.filed || Boolean(filedReturn);
  const boxes = filedReturn?.boxes ?? data.boxes;
  const scheme = SCHEMES.find((s) => s.value === data.scheme)?.label ?? data.scheme;

  const linesArea = h("div", { id: "vat-lines" });
  const csv = h("a", {
    href: `/api/vat/return/lines${query({ ...params, format: "csv" })}`, download: "", class: "button secondary", id: "vat-csv",
  }, "Download every box's lines (CSV)");
  const status = locked
    ? notice("ok", h("p", {}, h("strong", {}, "Filed: this period is locked. "),
      filedReturn ? `${filedReturn.method === "hmrc" ? "Submitted to HMRC" : "Recorded as filed"} on ${date(filedReturn.filed_at)}. ` : "",
      `The books are locked up to ${date(e.lock_date || to)}: nothing dated in the period can be added, changed or deleted, so these figures stay as filed.`),
      filedReturn?.method === "hmrc" ? receiptView(filedReturn.receipt) : null)
    : null;
  // A period is filed once it has ended (docs/vat.md#filed-returns).
  const ended = to < today();
  const toHmrc = connected && periodKey && !locked && ended ? submitToHmrc(e, ctx, period) : null;
  const recordButton = locked || !ended || toHmrc ? null : h("button", { type: "button", class: "danger" }, "Record as filed…");
  const notYet = locked || ended ? null : h("p", { class: "hint" }, `The period ends on ${date(to)}: it can be recorded as filed after that.`);
  const recordError = h("p", { class: "form-error", role: "alert" });

  fill(body,
    h("p", {}, `Scheme: ${scheme}. `, locked ? "The figures as filed." : "Figures from the records as they are now."),
    status,
    boxesTable(boxes, { id: "vat-boxes", caption: `The nine boxes for ${periodText(from, to)}`, open: (box, button) => showLines(linesArea, params, box, button, ctx) }),
    h("p", { id: "vat-net", class: "notice info" }, h("strong", {}, netInWords(boxes))),
    linesArea,
    h("div", { class: "actions" }, csv, recordButton),
    toHmrc,
    notYet,
    recordError);
  if (recordButton) {
    recordButton.addEventListener("click", () => act(recordButton, async () => {
      const yes = await confirmDialog(`Record the return for ${periodText(from, to)} as filed?`, {
        confirm: "Record as filed and lock the period",
        danger: true,
        detail: `Do this once you have sent these figures to HMRC. Stockbook keeps the nine figures as they are now and locks the books up to ${date(to)}: nothing dated in this period or before it can be added, changed or deleted afterwards.`,
      });
      if (!yes) return;
      await post("/api/vat/returns", { entity_id: e.id, from, to });
      await loadEntities();
      toast(`Return for ${periodText(from, to)} recorded as filed; the period is locked.`);
      ctx.refresh();
    }, recordError));
  }

  const adjustments = h("section", { "aria-labelledby": "vat-adjustments-title", id: "vat-adjustments" },
    h("h3", { id: "vat-adjustments-title" }, "Adjustments in this period"));
  section.append(adjustments);
  await adjustmentsPanel(adjustments, e, ctx, period, locked);
}

/** HMRC's declaration and "Submit to HMRC" for an obligation (docs/hmrc.md#submitting-a-return):
 * the button waits for the declaration, and is disabled while the submission runs. */
function submitToHmrc(e, ctx, period) {
  const { from, to, periodKey } = period;
  const error = h("p", { class: "form-error", role: "alert" });
  const declare = h("input", { type: "checkbox", id: "hmrc-declare" });
  const submit = h("button", { type: "button", id: "hmrc-submit", disabled: true }, "Submit to HMRC");
  declare.addEventListener("change", () => { submit.disabled = !declare.checked; });
  const area = h("div", { class: "card", id: "hmrc-submission", role: "group", "aria-labelledby": "hmrc-submit-title" },
    h("h3", { id: "hmrc-submit-title" }, `Submit to HMRC (period ${periodKey})`),
    h("p", {}, "These nine boxes go to HMRC as they are shown above, as your return for this period."),
    h("p", { id: "hmrc-declaration" }, h("strong", {}, HMRC_DECLARATION)),
    h("div", { class: "field check" }, declare, h("label", { for: "hmrc-declare" }, "I have read the declaration, and the information is true and complete.")),
    h("div", { class: "actions" }, submit),
    error);
  submit.addEventListener("click", () => act(submit, async () => {
    if (!declare.checked) return;
    declare.disabled = true;
    try {
      const r = (await post("/api/vat/returns", {
        entity_id: e.id, from, to, period_key: periodKey, declaration: true, client: clientInfo(),
      })).data;
      await loadEntities();
      fill(area, notice("ok", h("p", {}, h("strong", {}, `HMRC received the return for ${periodText(from, to)}. `), "The period is locked. HMRC's receipt:"), receiptView(r.receipt)));
      toast("Return submitted to HMRC.");
      ctx.refresh();
    } finally {
      declare.disabled = false;
    }
  }, error));
  return area;
}

/** The nine boxes; `open(box, button)` (when given) shows a box's lines. */
function boxesTable(boxes, { id, caption, open }) {
  const buttons = [];
  const t = table({
    caption,
    rows: BOXES,
    columns: [
      { label: "Box", header: true, cell: (b) => `Box\u00a0${b.n}` },
      { label: "Description", cell: (b) => b.words },
      { label: "Amount", num: true, cell: (b) => h("span", { "data-box": b.n }, boxValue(b, boxes[b.key])) },
      ...(open ? [{ label: "Lines", class: "num", cell: (b) => {
        if (!b.lines) return h("span", { class: "muted" }, b.n === 3 ? "Box 1 + box 2" : "Box 3 − box 4");
        const button = h("button", {
          type: "button", class: "secondary small", "aria-expanded": "false", "aria-controls": "vat-lines",
          "aria-label": `Lines of box ${b.n}`,
        }, "Lines");
        buttons.push(button);
        button.addEventListener("click", () => {
          for (const other of buttons) other.setAttribute("aria-expanded", String(other === button));
          open(b, button);
        });
        return button;
      } }] : []),
    ],
  });
  if (id) t.querySelector("table").id = id;
  return t;
}

/** The lines that make up one box, with their total (before the pence are dropped). */
async function showLines(area, params, box, button, ctx) {
  fill(area, h("p", { class: "muted" }, "Loading…"));
  let answer;
  try {
    answer = await get("/api/vat/return/lines", { ...params, box: box.n });
  } catch (err) {
    if (ctx.alive()) fill(area, loadError(err, `the lines of box ${box.n}`));
    return;
  }
  if (!ctx.alive()) return;
  const rows = answer.data;
  const wrap = table({
    caption: `Lines of box ${box.n}`,
    rows,
    empty: "Nothing counts in this box in this period.",
    columns: [
      { label: "Date", cell: (l) => date(l.date) },
      { label: "Document", header: true, cell: (l) => recordLink(l) },
      { label: "Contact", cell: (l) => l.contact_name ?? "—" },
      { label: "Treatment", cell: (l) => treatmentText(l.treatment) },
      { label: "Net", num: true, cell: (l) => money(l.net) },
      { label: "VAT", num: true, cell: (l) => money(l.vat) },
      { label: `Counts in box ${box.n}`, num: true, cell: (l) => money(l.amount) },
    ],
  });
  const t = wrap.querySelector("table");
  t.append(h("tfoot", {}, h("tr", {},
    h("th", { scope: "row", colspan: 6 }, box.whole ? "Total (the box shows it in whole pounds, the pence dropped)" : "Total"),
    h("td", { class: "num", id: "vat-lines-total" }, money(answer.total)))));
  fill(area, h("h3", { tabindex: "-1" }, `Box ${box.n}: ${box.words}`), wrap,
    h("p", {}, h("a", { href: `/api/vat/return/lines${query({ ...params, box: box.n, format: "csv" })}`, download: "" }, `Download the lines of box ${box.n} (CSV)`)),
    h("p", {}, h("button", { type: "button", class: "link", onclick: () => { fill(area); button.setAttribute("aria-expanded", "false"); button.focus(); } }, "Close the lines")));
  area.querySelector("h3").focus();
}

function treatmentText(t) {
  if (!t) return "—";
  const words = String(t).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a payment or refund line (cash accounting) was paid on. */
const PAYMENTS = {
  invoice_payment: "Payment on invoice",
  credit_note_refund: "Refund on credit note",
  bill_payment: "Payment of bill",
  supplier_credit_refund: "Refund on supplier credit",
};

/** The line's record: a document or expense linked to its form, a payment or refund with
 * its document's number, an adjustment with its description. */
function recordLink(line) {
  const rec = RECORDS[line.source_type];
  const text = line.number || "";
  if (rec && line.source_id) {
    const label = line.source_type === "expense" ? `Expense: ${text || "no description"}` : `${rec.noun} ${text}`.trim();
    return h("a", { href: `${rec.hash}?open=${encodeURIComponent(line.source_id)}` }, label);
  }
  if (PAYMENTS[line.source_type]) return `${PAYMENTS[line.source_type]} ${text}`.trim();
  if (line.source_type === "adjustment") return `Adjustment: ${text}`;
  if (line.source_type === "rounding") return "Box 1 rounded to the penny";
  return `${treatmentText(line.source_type)} ${text}`.trim();
}

// ---------------------------------------------------------------------------------------
// Adjustments
// ---------------------------------------------------------------------------------------

async function adjustmentsPanel(section, e, ctx, period, locked) {
  const { from, to } = period;
  section.append(h("p", { class: "hint" }, "Postponed import VAT from HMRC's monthly statement (box 1, box 4 and box 7), bad debt relief, and corrections of errors in earlier returns. Each counts in the period holding its date."));
  const listArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  section.append(listArea);

  async function load() {
    let rows;
    try {
      rows = (await get("/api/vat/adjustments", { entityId: e.id, from, to })).data;
    } catch (err) {
      if (ctx.alive()) fill(listArea, loadError(err, "the list of adjustments"));
      return;
    }
    if (!ctx.alive()) return;
    rows = rows.filter((a) => a.date >= from && a.date <= to);
    fill(listArea, table({
      caption: `Adjustments dated ${periodText(from, to)}`,
      rows,
      empty: "No adjustments in this period.",
      columns: [
        { label: "Date", cell: (a) => date(a.date) },
        { label: "Box", cell: (a) => `Box ${a.box}` },
        { label: "Description", header: true, cell: (a) => a.description },
        { label: "Amount", num: true, cell: (a) => money(a.amount) },
        ...(locked ? [] : [{ label: "Actions", class: "num", cell: (a) => h("button", {
          type: "button", class: "danger secondary small", "aria-label": `Delete the adjustment “${a.description}”`,
          onclick: (ev) => act(ev.currentTarget, async () => {
            if (!(await confirmDialog(`Delete the adjustment “${a.description}”?`, { confirm: "Delete", danger: true }))) return;
            await del("/api/vat/adjustments", { id: a.id });
            toast("Adjustment deleted.");
            ctx.refresh();
          }),
        }, "Delete") }]),
      ],
    }));
  }

  if (locked) {
    section.append(h("p", { class: "muted" }, "The period is filed: its adjustments can no longer change. Correct an error in a later period's return."));
  } else {
    const form = h("form", { class: "card", "aria-labelledby": "vat-adjust-title" },
      h("h4", { id: "vat-adjust-title" }, "Add an adjustment"),
      h("div", { class: "form-grid" },
        field({ label: "Date", name: "date", type: "date", required: true, value: to < today() ? to : today(), min: from, max: to }),
        field({ label: "Box", name: "box", type: "select", required: true, options: ADJUSTABLE.map((n) => ({ value: String(n), label: `Box ${n}: ${BOXES[n - 1].words}` })) }),
        field({ label: "Amount (£)", name: "amount", required: true, inputmode: "decimal", hint: "Negative to reduce the box." }),
        field({ label: "Description", name: "description", required: true, wide: true, hint: "For example “Postponed import VAT, statement for March”." })),
      formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Add adjustment")));
    section.append(form);
    onSubmit(form, async () => {
      await post("/api/vat/adjustments", {
        entity_id: e.id,
        date: val(form, "date"),
        box: Number(val(form, "box")),
        amount: numberOrText(val(form, "amount")),
        description: val(form, "description"),
      });
      toast("Adjustment added.");
      ctx.refresh();
    });
  }
  await load();
}

// ---------------------------------------------------------------------------------------
// Filed returns
// ---------------------------------------------------------------------------------------

async function loadFiled(section, e, ctx) {
  const area = section.querySelector("p");
  let list;
  try {
    list = (await get("/api/vat/returns", { entityId: e.id })).data;
  } catch (err) {
    if (ctx.alive()) fill(area, loadError(err, "the filed returns"));
    return null;
  }
  if (!ctx.alive()) return null;
  if (!list.length) {
    fill(area, "No returns filed yet.");
    return list;
  }
  const sorted = newestFirst(list);
  area.replaceWith(h("div", { id: "vat-filed-list" }, sorted.map((r) => h("details", { class: "totals" },
    h("summary", {}, `${periodText(r.from, r.to)}: ${netInWords(r.boxes)} `,
      h("span", { class: "muted" }, `Filed ${date(r.filed_at)}${r.method === "hmrc" ? " with HMRC" : " (recorded)"}${r.period_key ? `, period ${r.period_key}` : ""}.`)),
    boxesTable(r.boxes, { caption: `The nine boxes as filed for ${periodText(r.from, r.to)}` }),
    r.method === "hmrc" ? receiptView(r.receipt) : null))));
  return list;
}
