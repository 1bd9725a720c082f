// The inventory dashboard (docs/inventory.md#dashboard-figures): KPIs with the low-stock badge,
// stock value by location and by category, units in transit, recent movements and the alert list.

import { get } from "../api.js";
import { barChart, shortMoney } from "../charts.js";
import { format, money, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import { badge, date, field, fill, h, loadError, pageHeader, table } from "../ui.js";
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

export async function render(root, ctx) {
  root.append(pageHeader(`${state.entity.name}: dashboard`));
  const kpis = h("div", { class: "kpis", "aria-label": "Key figures", role: "group" },
    h("p", { class: "muted" }, "Loading figures…"));
  const byLocation = panel("Stock value by location");
  const byCategory = panel("Stock value by category");
  const recent = panel("Recent movements");
  const alertFilter = field({ label: "Show alerts for", name: "alert-location", type: "select", options: [{ value: "", label: "All locations and products" }] });
  const alerts = panel("Low stock alerts", h("div", { class: "filters slim" }, alertFilter));
  root.append(kpis, h("div", { class: "two-col" }, byLocation, byCategory), h("div", { class: "two-col" }, alerts, recent));

  const summaryP = get("/api/inventory/summary", scoped());
  const locationsP = get("/api/inventory/locations", scoped());
  const locationListP = get("/api/warehouse-locations", scoped()).then((r) => r.data).catch(() => []);

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
