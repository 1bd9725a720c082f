// The dashboard (docs/accounting.md#the-dashboard): while the business is not set up, a
// checklist of the first steps, each ticked from the records; once it has invoices or
// bills, the money first (sales this month, owed to you and overdue, bills to pay, the VAT
// estimate of the open quarter); then the inventory (docs/inventory.md#dashboard-figures):
// KPIs with the low-stock badge, stock value by location and by category, units in
// transit, recent movements and the alert list.

import { get } from "../api.js";
import { barChart, shortMoney } from "../charts.js";
import { format, money, moneyFromPence, pence, qty, scaled } from "../decimal.js";
import { may } from "../roles.js";
import { scoped, state } from "../state.js";
import { badge, date, field, fill, h, loadError, pageHeader, table, today } from "../ui.js";
import { movementTypeLabel } from "./movements.js";

export const title = "Dashboard";

function panel(titleText, ...extra) {
  const body = h("div", { class: "panel-body" }, h("p", { class: "muted" }, "Loading…"));
  const el = h("section", { class: "panel", "aria-labelledby": null }, h("h2", {}, titleText), ...extra, body);
  el.body = body;
  return el;
}

function kpi(label, value, { alert = false, id } = {}) {
  return h("div", { class: `kpi${alert ? " alert" : ""}`, id },
    h("p", { class: "kpi-label" }, label), h("p", { class: "kpi-value" }, value));
}

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The first steps, each `[done, label, href, how]`, as a list of links with ticks. */
function checklist(steps) {
  const done = steps.filter((s) => s[0]).length;
  return h("section", { class: "panel checklist", id: "setup-checklist", "aria-labelledby": "setup-title" },
    h("h2", { id: "setup-title" }, "Setting up your business"),
    h("p", { class: "muted" }, `${done} of ${steps.length} done. Each step ticks itself once it is in your records.`),
    h("ol", {}, steps.map(([ok, label, href, how]) =>
      h("li", { class: ok ? "done" : "todo", dataset: { done: ok ? "yes" : "no" } },
        h("span", { class: "tick", "aria-hidden": "true" }, ok ? "✓" : ""),
        h("a", { href }, label),
        h("span", { class: "sr-only" }, ok ? " (done)" : " (to do)"),
        h("span", { class: "sub" }, how)))));
}

/**
 * The money figures, summed by the server (GET /api/dashboard/money,
 * docs/accounting.md#the-dashboard) in pounds, as pence for display.
 */
function moneyFigures(m) {
  const p = (v) => pence(v) ?? 0n;
  return {
    sales: p(m.sales_this_month),
    salesCount: m.sales_count,
    owed: p(m.owed),
    owedCount: m.owed_count,
    overdue: p(m.overdue),
    overdueCount: m.overdue_count,
    bills: p(m.bills_due),
    billsCount: m.bills_count,
    billsOverdue: p(m.bills_overdue),
  };
}

function moneyKpi(label, p, sub, { id, alert = false, href } = {}) {
  return h("div", { class: `kpi${alert ? " alert" : ""}`, id },
    h("p", { class: "kpi-label" }, href ? h("a", { href }, label) : label),
    h("p", { class: "kpi-value" }, moneyFromPence(p)),
    sub ? h("p", { class: "kpi-exact" }, sub) : null);
}

/** The VAT estimate of the period holding today: box 5, to pay or to reclaim. */
async function vatKpi(el, ctx) {
  try {
    const periods = (await get("/api/vat/periods", scoped())).data;
    const open = periods.find((p) => p.from <= today() && today() <= p.to) ?? periods[0];
    if (!open) {
      fill(el, h("p", { class: "kpi-label" }, "VAT estimate"), h("p", { class: "kpi-exact" }, "No VAT period yet."));
      return;
    }
    const r = (await get("/api/vat/return", scoped({ from: open.from, to: open.to }))).data;
    if (!ctx.alive()) return;
    const due = pence(r.boxes.totalVatDue) ?? 0n;
    const back = pence(r.boxes.vatReclaimedCurrPeriod) ?? 0n;
    const net = due - back;
    const href = `#/vat?from=${open.from}&to=${open.to}`;
    fill(el,
      h("p", { class: "kpi-label" }, h("a", { href }, "VAT estimate this quarter")),
      h("p", { class: "kpi-value" }, moneyFromPence(net < 0n ? -net : net)),
      h("p", { class: "kpi-exact" },
        `${net < 0n ? "To reclaim from HMRC" : "To pay HMRC"} for ${date(open.from)} to ${date(open.to)}, so far.`));
  } catch (e) {
    if (ctx.alive()) fill(el, loadError(e, "the VAT estimate"));
  }
}

function moneyPanel(money, ctx) {
  const f = moneyFigures(money);
  const vat = h("div", { class: "kpi", id: "kpi-vat" },
    h("p", { class: "kpi-label" }, "VAT estimate this quarter"), h("p", { class: "muted" }, "Loading…"));
  vatKpi(vat, ctx);
  return h("section", { class: "money", id: "money", "aria-labelledby": "money-title" },
    h("h2", { id: "money-title" }, "Money"),
    h("div", { class: "kpis", role: "group", "aria-labelledby": "money-title" },
      moneyKpi("Sales this month", f.sales,
        `${count(f.salesCount, "invoice")} sent or paid, before VAT`, { id: "kpi-sales", href: "#/invoices" }),
      moneyKpi("Owed to you", f.owed, `${count(f.owedCount, "invoice")} unpaid`, { id: "kpi-owed", href: "#/invoices" }),
      moneyKpi("Overdue", f.overdue, f.overdueCount === 1 ? "1 invoice past its due date" : `${f.overdueCount} invoices past their due date`,
        { id: "kpi-overdue", alert: f.overdue > 0n, href: "#/invoices" }),
      moneyKpi("Bills to pay", f.bills,
        f.billsOverdue > 0n ? `${count(f.billsCount, "bill")}; ${moneyFromPence(f.billsOverdue)} overdue` : count(f.billsCount, "bill"),
        { id: "kpi-bills", href: "#/bills" }),
      vat));
}

/** The checklist and the money, above the inventory; each shown only when it applies. */
async function leadPanels(top, ctx, summaryP, locationListP) {
  const [entities, money, movements, summary, locs] = await Promise.all([
    get("/api/entities").then((r) => r.data),
    get("/api/dashboard/money", scoped()).then((r) => r.data),
    get("/api/stock-movements", scoped({ limit: 1 })).then((r) => r.data),
    summaryP.then((r) => r.data),
    locationListP,
  ]);
  if (!ctx.alive()) return;
  const entity = entities.find((e) => e.id === state.entity.id) ?? state.entity;
  const documents = money.documents;
  const steps = [
    [Boolean(entity.vat_number), "VAT details", "#/vat", "Your VAT number, registration date and scheme, on the VAT page."],
    [locs.length > 0, "Locations", "#/warehouses", "The shop, warehouse or stockroom where stock is kept."],
    [Number(summary.totalProducts) > 0, "Products", "#/products", "What you buy and sell, with prices."],
    [movements.length > 0, "Opening stock", "#/products", "How many of each product you have, and where: on each product."],
    [documents, "First invoice or bill", "#/invoices", "A sale to a customer, or a bill from a supplier (Bills)."],
  ];
  fill(top,
    documents ? moneyPanel(money, ctx) : null,
    steps.every((s) => s[0]) ? null : checklist(steps));
}

export async function render(root, ctx) {
  root.append(pageHeader(`${state.entity.name}: dashboard`));
  const top = h("div", { class: "dashboard-lead" });
  root.append(top);
  const kpis = h("div", { class: "kpis", "aria-label": "Key figures", role: "group" },
    h("p", { class: "muted" }, "Loading figures…"));
  const byLocation = panel("Stock value by location");
  const byCategory = panel("Stock value by category");
  const recent = panel("Recent movements");
  const alertFilter = field({ label: "Show alerts for", name: "alert-location", type: "select", options: [{ value: "", label: "All locations and products" }] });
  const alerts = panel("Low stock alerts", h("div", { class: "filters slim" }, alertFilter));
  const locationListP = get("/api/warehouse-locations", scoped()).then((r) => r.data).catch(() => []);
  if (!may("readBooks")) {
    // Stock without its value (docs/auth.md#members-and-roles): the alerts and the
    // movements only.
    top.remove();
    root.append(h("div", { class: "two-col" }, alerts, recent));
    stockPanels(ctx, recent, alertFilter, alerts, locationListP);
    return;
  }
  root.append(kpis, h("div", { class: "two-col" }, byLocation, byCategory), h("div", { class: "two-col" }, alerts, recent));

  const summaryP = get("/api/inventory/summary", scoped());
  const locationsP = get("/api/inventory/locations", scoped());
  leadPanels(top, ctx, summaryP, locationListP)
    .catch((e) => ctx.alive() && fill(top, loadError(e, "the money and the first steps")));

  // KPIs.
  summaryP.then(({ data: s }) => {
    if (!ctx.alive()) return;
    const n = Number(s.lowStockAlertCount) || 0;
    fill(kpis,
      kpi("Products", format(BigInt(s.totalProducts), 0)),
      Math.abs(Number(s.stockValue)) >= 1e6
        ? h(kpi("Stock value at cost", shortMoney(s.stockValue)), {}, h("p", { class: "kpi-exact" }, money(s.stockValue)))
        : kpi("Stock value at cost", money(s.stockValue)),
      kpi("Warehouses", format(BigInt(s.warehouseCount), 0)),
      kpi("Low stock alerts", badge(String(n), n ? "danger" : "ok"), { alert: true, id: "kpi-alerts" }),
      kpi("Units in transit", qty(s.inTransitUnits)));
  }).catch((e) => ctx.alive() && fill(kpis, loadError(e, "the inventory summary")));

  // Value by location.
  locationsP.then(({ data }) => {
    if (!ctx.alive()) return;
    const items = data.map((l) => ({ label: l.location.name, value: Number(l.costValue), text: money(l.costValue), short: shortMoney(l.costValue) }));
    fill(byLocation.body, items.length
      ? barChart({ title: "Stock value at cost by location", items })
      : h("p", { class: "chart-empty" }, "No warehouses yet. ", h("a", { href: "#/warehouses" }, "Add one"), "."));
  }).catch((e) => ctx.alive() && fill(byLocation.body, loadError(e, "the stock by location")));

  // Value by category, from the summary (the server sums it exactly).
  summaryP.then(({ data: s }) => {
    if (!ctx.alive()) return;
    const items = (s.stockValueByCategory || []).map((c) => ({
      label: c.category || "Uncategorised",
      value: Number(c.stockValue),
      text: money(c.stockValue),
      short: shortMoney(c.stockValue),
    }));
    fill(byCategory.body, items.length
      ? barChart({ title: "Stock value at cost by category", items, barClass: "bar alt" })
      : h("p", { class: "chart-empty" }, "No stock yet."));
  }).catch((e) => ctx.alive() && fill(byCategory.body, loadError(e, "the stock by category")));
  stockPanels(ctx, recent, alertFilter, alerts, locationListP);
}

/** The recent movements and the low stock alerts, which every role reads. */
function stockPanels(ctx, recent, alertFilter, alerts, locationListP) {
  // Recent movements.
  Promise.all([get("/api/stock-movements", scoped({ limit: 10 })), locationListP]).then(([{ data }, locs]) => {
    if (!ctx.alive()) return;
    const names = new Map(locs.map((l) => [l.id, l.name]));
    fill(recent.body, table({
      caption: "Ten most recent stock movements",
      empty: "No movements yet.",
      rows: data,
      columns: [
        { label: "Date", class: "nowrap", cell: (m) => date(m.date) },
        { label: "Product", cell: (m) => m.product_id.name },
        { label: "Type", cell: (m) => movementTypeLabel(m.type) },
        { label: "Location", cell: (m) => (m.location_id ? names.get(m.location_id) ?? "—" : "Unallocated") },
        { label: "Qty", num: true, cell: (m) => signed(m.qty) },
      ],
    }), h("p", {}, h("a", { href: "#/movements" }, "All movements")));
  }).catch((e) => ctx.alive() && fill(recent.body, loadError(e, "the recent movements")));

  // Alerts, global and per location.
  const select = alertFilter.control;
  locationListP.then((locs) => {
    for (const l of locs) select.append(h("option", { value: l.id }, `${l.name} only`));
  });
  const loadAlerts = () => {
    fill(alerts.body, h("p", { class: "muted" }, "Loading…"));
    get("/api/inventory/alerts", scoped({ locationId: select.value })).then(({ data }) => {
      if (!ctx.alive()) return;
      fill(alerts.body, alertTable(data));
    }).catch((e) => ctx.alive() && fill(alerts.body, loadError(e, "the alerts")));
  };
  select.addEventListener("change", loadAlerts);
  loadAlerts();
}

export function signed(v) {
  const n = scaled(v, 3) ?? 0n;
  const text = qty(v);
  return h("span", { class: n < 0n ? "neg" : "pos" }, n > 0n ? `+${text}` : text);
}

export function alertTable(data, caption = "Low stock alerts") {
  return table({
    caption,
    empty: "No low stock. Every product is above its threshold.",
    rows: data,
    columns: [
      { label: "Product", cell: (a) => [a.product_id.name, h("span", { class: "sub" }, a.product_id.sku)] },
      { label: "Where", cell: (a) => (a.level === "global" ? badge("All locations", "warn") : a.location_id?.name ?? "—") },
      { label: "On hand", num: true, cell: (a) => qty(a.quantity) },
      { label: "Threshold", num: true, cell: (a) => qty(a.threshold) },
    ],
  });
}
