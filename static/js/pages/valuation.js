// The stock valuation report (docs/inventory.md#valuation-report): location filter, an "as at"
// date (docs/documents-stock.md#stock-as-at-a-date), rows and summary, a chart, and a CSV download generated in the browser from the exact figures the server
// sent.

import { get } from "../api.js";
import { barChart } from "../charts.js";
import { money, moneyFromPence, percent, plain, price, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import { date, field, fill, h, loadError, pageHeader, table, today } from "../ui.js";
import { download, toCsv } from "../csv.js";
import { locations } from "../widgets.js";

export const title = "Valuation";

const SHOWN = 500;

export async function render(root, ctx) {
  const csvButton = h("button", { type: "button", disabled: true }, "Download CSV");
  root.append(pageHeader("Stock valuation", csvButton),
    h("p", { class: "lead" }, "Stock on hand valued at cost (weighted average) and at selling price, per product and location."));
  let locs = [];
  try {
    locs = await locations();
  } catch (e) {
    root.append(loadError(e, "the warehouses"));
  }
  const locationId = ctx.query.get("location") || "";
  const asOf = ctx.query.get("asOf") || "";
  const filter = field({
    label: "Location", name: "locationId", type: "select", value: locationId,
    options: [{ value: "", label: "All locations (and unallocated stock)" }, ...locs.map((l) => ({ value: l.id, label: l.name }))],
  });
  const asAt = field({ label: "As at", name: "asOf", type: "date", value: asOf, max: today(), hint: "End of that day; blank for now." });
  const reload = () => {
    const q = new URLSearchParams();
    if (filter.control.value) q.set("location", filter.control.value);
    if (asAt.control.value) q.set("asOf", asAt.control.value);
    ctx.go(`#/valuation${q.size ? `?${q}` : ""}`);
  };
  filter.control.addEventListener("change", reload);
  asAt.control.addEventListener("change", reload);
  const summaryArea = h("div", { class: "kpis" }, h("p", { class: "muted" }, "Loading…"));
  const chartArea = h("section", { class: "panel" }, h("h2", {}, "Cost value by location"));
  const rowsArea = h("div");
  root.append(h("div", { class: "filters" }, filter, asAt),
    asOf ? h("p", { id: "as-at", class: "notice info" }, `As at the end of ${date(asOf)}: quantities and cost prices of that day, today's selling prices; units in transit are not reconstructed.`) : null,
    summaryArea, chartArea, h("h2", {}, "Rows"), rowsArea);

  let report;
  try {
    report = await get("/api/reports/stock-valuation", scoped({ locationId, asOf }));
  } catch (e) {
    if (ctx.alive()) { fill(summaryArea, loadError(e, "the valuation report")); chartArea.remove(); }
    return;
  }
  if (!ctx.alive()) return;
  const { data: rows, summary: s } = report;
  const k = (label, value) => h("div", { class: "kpi" }, h("p", { class: "kpi-label" }, label), h("p", { class: "kpi-value" }, value));
  fill(summaryArea,
    k("Cost value", money(s.totalCostValue)),
    k("Retail value", money(s.totalRetailValue)),
    k("Units", qty(s.totalUnits)),
    k("Average margin", percent(s.avgMargin)),
    s.inTransitUnits !== undefined && !locationId ? k("In transit (units)", qty(s.inTransitUnits)) : null);

  const byLocation = new Map();
  for (const r of rows) {
    const name = r.location_name || "Unallocated";
    byLocation.set(name, (byLocation.get(name) ?? 0n) + (scaled(r.total_cost, 2) ?? 0n));
  }
  chartArea.append(byLocation.size
    ? barChart({ title: "Cost value by location", width: 720, items: [...byLocation].map(([label, p]) => ({ label, value: Number(p), text: moneyFromPence(p) })) })
    : h("p", { class: "chart-empty" }, "No stock to value."));

  fill(rowsArea,
    rows.length > SHOWN ? h("p", { class: "notice info" }, `Showing the first ${SHOWN} of ${rows.length} rows; the CSV download has them all.`) : null,
    table({
      caption: "Stock valuation rows",
      rows: rows.slice(0, SHOWN),
      empty: "No stock on hand.",
      columns: [
        { label: "Product", header: true, cell: (r) => [r.product_name, h("span", { class: "sub" }, r.product_sku)] },
        { label: "Category", cell: (r) => r.category || "—" },
        { label: "Location", cell: (r) => r.location_name },
        { label: "Qty", num: true, cell: (r) => qty(r.quantity) },
        { label: "Cost", num: true, cell: (r) => price(r.cost_price) },
        { label: "Price", num: true, cell: (r) => price(r.unit_price) },
        { label: "Total cost", num: true, cell: (r) => money(r.total_cost) },
        { label: "Total retail", num: true, cell: (r) => money(r.total_retail) },
        { label: "Margin", num: true, cell: (r) => percent(r.margin) },
      ],
    }));

  csvButton.disabled = false;
  csvButton.addEventListener("click", () => {
    const header = ["product_sku", "product_name", "category", "location", "quantity", "cost_price", "unit_price", "total_cost", "total_retail", "margin_percent"];
    const lines = rows.map((r) => [
      r.product_sku, r.product_name, r.category, r.location_name,
      plain(r.quantity, 3), plain(r.cost_price, 4), plain(r.unit_price, 4),
      fixed2(r.total_cost), fixed2(r.total_retail), fixed2(r.margin),
    ]);
    const where = locationId ? `-${slug(locs.find((l) => l.id === locationId)?.name || "location")}` : "";
    download(`stock-valuation-${slug(state.entity.name)}${where}-${asOf || today()}.csv`, toCsv(header, lines));
  });
}

/** Two decimal places, no grouping: `1234.50`. */
function fixed2(v) {
  const p = scaled(v, 2);
  if (p === null) return "";
  const neg = p < 0n;
  const s = (neg ? -p : p).toString().padStart(3, "0");
  return `${neg ? "-" : ""}${s.slice(0, -2)}.${s.slice(-2)}`;
}

const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "x";
