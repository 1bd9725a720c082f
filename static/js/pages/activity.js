// Activity: the audit trail (docs/audit.md#reading-the-trail), newest first, a page at a
// time, filtered by business, record, person and dates, each change's fields side by side
// as before and after; the same as a CSV download.

import { get, query } from "../api.js";
import { state } from "../state.js";
import { date, field, fill, h, onSubmit, pageHeader, pagedList, table, val } from "../ui.js";

export const title = "Activity";

const PAGE = 50;

const ACTIONS = {
  create: "Created",
  update: "Changed",
  delete: "Deleted",
  sign_in: "Signed in",
  sign_in_failed: "Failed sign-in",
  role_change: "Role changed",
};

/** A record type as words: `stock_take` → "stock take". */
function words(type) {
  return String(type).replaceAll("_", " ");
}

/** A stored value as text: null as an em dash, objects as JSON. */
function shown(v) {
  if (v === null || v === undefined) return h("span", { class: "muted" }, "—");
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** The changed fields of an entry: Field | Before | After. */
function changesTable(entry) {
  const fields = Object.entries(entry.changes || {});
  if (!fields.length) return h("span", { class: "muted" }, "—");
  const hasBefore = fields.some(([, c]) => c && "before" in c);
  const hasAfter = fields.some(([, c]) => c && "after" in c);
  // Named by aria-label, not a visually hidden caption: an absolutely placed caption in
  // a cell would stick out of the list's scrolling box on a phone.
  const t = h("table", { class: "changes", "aria-label": `Changes of entry ${entry.id}` },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Field"),
      hasBefore ? h("th", { scope: "col" }, "Before") : null,
      hasAfter ? h("th", { scope: "col" }, "After") : null)));
  const body = h("tbody");
  for (const [name, c] of fields) {
    body.append(h("tr", {},
      h("th", { scope: "row" }, words(name)),
      hasBefore ? h("td", { class: "before" }, c && "before" in c ? shown(c.before) : "") : null,
      hasAfter ? h("td", { class: "after" }, c && "after" in c ? shown(c.after) : "") : null));
  }
  t.append(body);
  return t;
}

export async function render(root, ctx) {
  const filters = {
    entityId: state.entity?.id ?? "",
    recordId: ctx.query.get("recordId") ?? "",
    dateFrom: "",
    dateTo: "",
  };
  const download = h("a", { class: "button secondary", download: "audit.csv" }, "Download CSV");
  root.append(pageHeader("Activity", download));
  root.append(h("p", { class: "lead" }, "Who changed what, newest first. Every change to a record, every sign-in and failed sign-in is kept here and cannot be edited."));

  const form = h("form", { class: "filters card", role: "search", "aria-label": "Filter the activity" });
  form.append(h("div", { class: "form-grid" },
    field({ label: "Business", name: "entityId", type: "select", value: filters.entityId,
      options: [...state.entities.map((e) => ({ value: e.id, label: e.name })), { value: "", label: "All, and my sign-ins" }] }),
    field({ label: "Record id", name: "recordId", value: filters.recordId, hint: "The history of one record." }),
    field({ label: "From", name: "dateFrom", type: "date" }),
    field({ label: "To", name: "dateTo", type: "date" })),
  h("div", { class: "actions" }, h("button", { type: "submit" }, "Show")));
  root.append(form);

  function setDownload() {
    download.setAttribute("href", `/api/audit${query({ ...filters, format: "csv" })}`);
  }
  setDownload();

  const list = pagedList({
    size: PAGE,
    what: "the activity",
    read: async (limit, offset) => (await get("/api/audit", { ...filters, limit, offset })).data,
    show: (rows) => table({
      caption: "Activity",
      rows,
      empty: "Nothing has happened here yet.",
      rowProps: (e) => ({ class: `activity-${e.action}` }),
      columns: [
        { label: "When", header: true, cell: (e) => h("time", { datetime: e.at, title: e.at }, `${date(e.at)} ${e.at.slice(11, 16)}`) },
        { label: "Who", cell: (e) => e.user_email ?? h("span", { class: "muted" }, "—") },
        { label: "What", cell: (e) => `${ACTIONS[e.action] ?? e.action} ${e.action.startsWith("sign_in") ? "" : words(e.record_type)}`.trim() },
        { label: "Record", cell: (e) => (e.record_id ? h("code", { title: e.record_id }, e.record_id.slice(0, 8)) : "") },
        { label: "Changes", cell: changesTable },
      ],
    }),
  });
  root.append(list.element);

  onSubmit(form, async () => {
    for (const k of Object.keys(filters)) filters[k] = val(form, k);
    setDownload();
    await list.load();
  });
  if (!ctx.alive()) return;
  await list.load();
}
