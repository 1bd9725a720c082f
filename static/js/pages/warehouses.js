// Warehouses (docs/inventory.md#locations, docs/inventory.md#per-location-figures): the list with
// product count, units, cost and retail value; a detail view with the location's stock and alerts;
// activate and deactivate.

import { get, put } from "../api.js";
import { editRecord } from "../crud.js";
import { compare, money, qty } from "../decimal.js";
import { loadEntities, scoped, state } from "../state.js";
import { act, badge, fill, h, loadError, pageHeader, statusBadge, table, toast } from "../ui.js";
import { alertTable } from "./dashboard.js";
import { putAway, recordMovement } from "./movements.js";

export const title = "Warehouses";

const FIELDS = [
  { name: "name", label: "Name", required: true, wide: true },
  { name: "address", label: "Address", type: "textarea", nullable: true },
];

export async function render(root, ctx) {
  if (ctx.params[0]) return detail(root, ctx, ctx.params[0]);
  const newButton = h("button", { type: "button" }, "New warehouse");
  root.append(pageHeader("Warehouses", newButton));
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(area);

  async function load() {
    let locs;
    try {
      locs = (await get("/api/warehouse-locations", scoped())).data;
    } catch (e) {
      if (ctx.alive()) fill(area, loadError(e, "the warehouses"));
      return;
    }
    let figures = new Map();
    let figuresError = null;
    try {
      figures = new Map((await get("/api/inventory/locations", scoped())).data.map((f) => [f.location.id, f]));
    } catch (e) {
      figuresError = e;
    }
    if (!ctx.alive()) return;
    const fig = (l, k, fmt) => (figures.has(l.id) ? fmt(figures.get(l.id)[k]) : "—");
    fill(area, figuresError ? loadError(figuresError, "the stock figures per warehouse") : null, table({
      caption: "Warehouses",
      rows: locs,
      empty: "No warehouses yet. Add the first place you keep stock.",
      rowProps: (l) => ({ class: l.status === "inactive" ? "inactive" : null }),
      columns: [
        { label: "Warehouse", header: true, cell: (l) => [h("a", { href: `#/warehouses/${l.id}` }, l.name), l.address ? h("span", { class: "sub" }, l.address) : null] },
        { label: "Status", cell: (l) => statusBadge(l.status) },
        { label: "Products", num: true, cell: (l) => fig(l, "productCount", String) },
        { label: "Units", num: true, cell: (l) => fig(l, "totalUnits", qty) },
        { label: "Cost value", num: true, cell: (l) => fig(l, "costValue", money) },
        { label: "Retail value", num: true, cell: (l) => fig(l, "retailValue", money) },
        { label: "Alerts", num: true, cell: (l) => fig(l, "alertCount", (n) => (Number(n) ? badge(String(n), "danger") : "0")) },
        { label: "Actions", class: "num", cell: (l) => h("div", { class: "row-actions" },
          h("a", { class: "button secondary small", href: `#/warehouses/${l.id}`, "aria-label": `Open ${l.name}` }, "Open"),
          h("button", { type: "button", class: "secondary small", "aria-label": `Edit ${l.name}`, onclick: () => edit(l) }, "Edit"),
          toggleButton(l, load)) },
      ],
    }));
  }
  async function edit(l) {
    const saved = await editRecord({ path: "/api/warehouse-locations", noun: "warehouse", fields: FIELDS, record: l });
    if (!saved) return;
    toast(`${saved.name} saved.`);
    if (!l) await firstIsDefault(saved);
    load();
  }
  newButton.addEventListener("click", () => edit(null));
  await load();
}

/**
 * The business's first location becomes its default location, where new invoices take stock
 * from and new bills bring it (the API leaves that choice to its client); the app says so.
 */
async function firstIsDefault(created) {
  const entity = state.entity;
  if (!entity || entity.default_location_id) return;
  try {
    const all = (await get("/api/warehouse-locations", scoped())).data;
    if (all.length !== 1 || all[0].id !== created.id) return;
    await put("/api/entities", { id: entity.id, default_location_id: created.id });
    await loadEntities();
    toast(`${created.name} is your default location: new invoices take stock from it and new bills bring stock into it. You can change this in Settings.`);
  } catch (e) {
    toast(`${created.name} was created, but could not be made the default location: ${e.message}`, "error");
  }
}

function toggleButton(l, after) {
  const activate = l.status === "inactive";
  return h("button", {
    type: "button", class: "secondary small", "aria-label": `${activate ? "Activate" : "Deactivate"} ${l.name}`,
    onclick: (ev) => act(ev.currentTarget, async () => {
      await put("/api/warehouse-locations", { id: l.id, status: activate ? "active" : "inactive" });
      toast(`${l.name} ${activate ? "activated" : "deactivated"}.`);
      window.dispatchEvent(new Event("stockbook:stock-changed"));
      after();
    }),
  }, activate ? "Activate" : "Deactivate");
}

async function detail(root, ctx, id) {
  let locs;
  try {
    locs = (await get("/api/warehouse-locations", scoped())).data;
  } catch (e) {
    root.append(pageHeader("Warehouse"), loadError(e, "the warehouse"));
    return;
  }
  const loc = locs.find((l) => l.id === id);
  if (!loc) {
    root.append(pageHeader("Warehouse not found"),
      h("p", {}, "This warehouse does not exist in the business you are looking at. ",
        h("a", { href: "#/warehouses" }, "Back to the warehouses"), "."));
    return;
  }
  const editButton = h("button", { type: "button", class: "secondary" }, "Edit");
  const moveButton = h("button", { type: "button" }, "Record movement here");
  const putAwayButton = h("button", { type: "button", class: "secondary" }, "Put stock away here");
  root.append(
    h("p", {}, h("a", { href: "#/warehouses" }, "← All warehouses")),
    pageHeader(loc.name, moveButton, putAwayButton, editButton, toggleButton(loc, () => ctx.refresh())),
    h("p", { class: "lead" }, statusBadge(loc.status), loc.address ? ` ${loc.address}` : ""));
  if (loc.status === "inactive") {
    moveButton.disabled = true;
    putAwayButton.disabled = true;
    root.append(h("div", { class: "notice warn", role: "status" }, "This warehouse is inactive: it takes no new movements, transfers or stock takes. Its stock still counts in reports."));
  }
  editButton.addEventListener("click", async () => {
    const saved = await editRecord({ path: "/api/warehouse-locations", noun: "warehouse", fields: FIELDS, record: loc });
    if (saved) { toast(`${saved.name} saved.`); ctx.refresh(); }
  });
  moveButton.addEventListener("click", async () => {
    if (await recordMovement(locs, { location: id })) ctx.refresh();
  });
  putAwayButton.addEventListener("click", async () => {
    if (await putAway(locs, { location: id })) ctx.refresh();
  });

  const figuresArea = h("div", { class: "kpis" }, h("p", { class: "muted" }, "Loading figures…"));
  const stockArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const alertArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(figuresArea,
    h("div", { class: "two-col" },
      h("section", { class: "panel" }, h("h2", {}, "Stock here"), stockArea),
      h("section", { class: "panel" }, h("h2", {}, "Low stock alerts here"), alertArea)));

  get("/api/inventory/locations", scoped()).then(({ data }) => {
    if (!ctx.alive()) return;
    const f = data.find((x) => x.location.id === id);
    const k = (label, value) => h("div", { class: "kpi" }, h("p", { class: "kpi-label" }, label), h("p", { class: "kpi-value" }, value));
    fill(figuresArea, f ? [
      k("Products", String(f.productCount)), k("Units", qty(f.totalUnits)),
      k("Cost value", money(f.costValue)), k("Retail value", money(f.retailValue)),
      k("Alerts", Number(f.alertCount) ? badge(String(f.alertCount), "danger") : badge("0", "ok")),
    ] : null);
  }).catch((e) => ctx.alive() && fill(figuresArea, loadError(e, "the warehouse figures")));

  get("/api/warehouse-stock", scoped({ locationId: id })).then(({ data }) => {
    if (!ctx.alive()) return;
    fill(stockArea, table({
      caption: `Stock at ${loc.name}`,
      rows: data,
      empty: "No stock here yet.",
      rowProps: (s) => ({ class: compare(s.quantity, s.reorder_point, 3) <= 0 ? "low" : null }),
      columns: [
        { label: "Product", header: true, cell: (s) => [s.product_id.name, h("span", { class: "sub" }, s.product_id.sku)] },
        { label: "On hand", num: true, cell: (s) => qty(s.quantity) },
        { label: "Reserved", num: true, cell: (s) => qty(s.reserved_quantity) },
        { label: "Reorder point", num: true, cell: (s) => [qty(s.reorder_point), compare(s.quantity, s.reorder_point, 3) <= 0 ? [" ", badge("Low", "warn")] : null] },
      ],
    }));
  }).catch((e) => ctx.alive() && fill(stockArea, loadError(e, "the stock")));

  get("/api/inventory/alerts", scoped({ locationId: id })).then(({ data }) => {
    if (ctx.alive()) fill(alertArea, alertTable(data, `Low stock alerts at ${loc.name}`));
  }).catch((e) => ctx.alive() && fill(alertArea, loadError(e, "the alerts")));
}
