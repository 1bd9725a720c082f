// Recurring invoice templates: a customer, lines, and how often an invoice is due.

import { del, get, post, put } from "../api.js";
import { money } from "../decimal.js";
import { linesEditor } from "../lines.js";
import { scoped, state } from "../state.js";
import {
  confirmDialog, date, field, fill, formDialog, h, loadError, pageHeader, statusBadge, table, toast, today, val,
} from "../ui.js";
import { lineTreatments } from "../vocab.js";

export const title = "Recurring invoices";

const INTERVALS = [{ value: "week", label: "Weekly" }, { value: "month", label: "Monthly" }, { value: "year", label: "Yearly" }];
const every = (r) => {
  const unit = r.interval;
  return Number(r.interval_count) === 1 ? `Every ${unit}` : `Every ${r.interval_count} ${unit}s`;
};

export async function render(root, ctx) {
  const newButton = h("button", { type: "button" }, "New recurring invoice");
  root.append(pageHeader("Recurring invoices", newButton),
    h("p", { class: "lead" }, "Templates for invoices you send on a schedule (subscriptions)."));
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(area);
  let contacts;
  let treatments;
  try {
    [contacts, treatments] = await Promise.all([
      get("/api/contacts", scoped()).then((r) => r.data),
      lineTreatments("RecurringInvoice")]);
  } catch (e) {
    fill(area, loadError(e, "the recurring invoices"));
    newButton.disabled = true;
    return;
  }
  async function load() {
    try {
      const { data } = await get("/api/recurring-invoices", scoped());
      if (!ctx.alive()) return;
      fill(area, table({
        caption: "Recurring invoices",
        rows: data,
        empty: "No recurring invoices yet.",
        columns: [
          { label: "Customer", header: true, cell: (r) => r.contact_name },
          { label: "Schedule", cell: every },
          { label: "Next invoice", cell: (r) => date(r.next_date) },
          { label: "Status", cell: (r) => statusBadge(r.status) },
          { label: "Total", num: true, cell: (r) => money(r.total) },
          { label: "Actions", class: "num", cell: (r) => h("div", { class: "row-actions" },
            h("button", { type: "button", class: "secondary small", onclick: () => edit(r), "aria-label": `Edit the template for ${r.contact_name}` }, "Edit"),
            h("button", { type: "button", class: "danger secondary small", onclick: () => remove(r), "aria-label": `Delete the template for ${r.contact_name}` }, "Delete")) },
        ],
      }));
    } catch (e) {
      if (ctx.alive()) fill(area, loadError(e, "the recurring invoices"));
    }
  }
  async function edit(rec) {
    let editor;
    const saved = await formDialog({
      title: rec ? "Edit recurring invoice" : "New recurring invoice",
      submitLabel: rec ? "Save changes" : "Create",
      wide: true,
      build: (form) => {
        editor = linesEditor({ lines: rec?.lines || [], treatments });
        form.append(h("div", { class: "form-grid" },
          field({ label: "Customer", name: "contact_id", type: "select", required: true, value: rec?.contact_id ?? "",
            options: [{ value: "", label: "Choose…" }, ...contacts.map((c) => ({ value: c.id, label: c.name }))] }),
          field({ label: "Repeats", name: "interval", type: "select", options: INTERVALS, value: rec?.interval ?? "month", required: true }),
          field({ label: "Every how many", name: "interval_count", value: rec ? String(rec.interval_count) : "1", inputmode: "numeric", hint: "2 with Monthly: every two months." }),
          field({ label: "Next invoice date", name: "next_date", type: "date", value: rec?.next_date ?? today() }),
          field({ label: "Status", name: "status", type: "select", options: [{ value: "active", label: "Active" }, { value: "paused", label: "Paused" }, { value: "cancelled", label: "Cancelled" }], value: rec?.status ?? "active" })),
        h("h3", {}, "Lines"), editor);
      },
      submit: async (form) => {
        const body = { lines: await editor.body() };
        for (const n of ["contact_id", "interval", "next_date", "status"]) if (val(form, n)) body[n] = val(form, n);
        if (!body.contact_id) throw new Error("Missing required field: contact_id");
        const count = val(form, "interval_count");
        if (count !== "") body.interval_count = /^\d+$/.test(count) ? Number(count) : count;
        if (rec) return (await put("/api/recurring-invoices", { ...body, id: rec.id })).data;
        return (await post("/api/recurring-invoices", { ...body, entity_id: state.entity.id })).data;
      },
    });
    if (saved) { toast("Recurring invoice saved."); load(); }
  }
  async function remove(rec) {
    if (!(await confirmDialog(`Delete the recurring invoice for ${rec.contact_name}?`, { confirm: "Delete", danger: true }))) return;
    try {
      await del("/api/recurring-invoices", { id: rec.id });
      toast("Recurring invoice deleted.");
      load();
    } catch (e) {
      toast(e.message, "error");
    }
  }
  newButton.addEventListener("click", () => {
    if (!contacts.length) { toast("Add a customer first.", "error"); ctx.go("#/contacts"); return; }
    edit(null);
  });
  await load();
}
