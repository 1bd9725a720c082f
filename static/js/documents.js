// Invoices and bills (docs/accounting.md#invoices-and-bills, docs/accounting.md#line-totals): the
// list and the form with lines and live totals. Both pages are this one module with their own words
// and status values.

import { del, get, post, put } from "./api.js";
import { money, moneyFromPence, pence } from "./decimal.js";
import { linesEditor } from "./lines.js";
import { scoped, state } from "./state.js";
import {
  confirmDialog, date, field, fill, formDialog, h, loadError, numberOrText, pageHeader,
  statusBadge, table, toast, today, val,
} from "./ui.js";

/**
 * `kind`: `{path, noun, title, statuses, contactLabel, priceOf, numberHint, intro}`.
 */
export async function documentsPage(root, ctx, kind) {
  const newButton = h("button", { type: "button" }, `New ${kind.noun}`);
  root.append(pageHeader(kind.title, newButton));
  if (kind.intro) root.append(h("p", { class: "lead" }, kind.intro));
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(area);

  let contacts = [];
  try {
    contacts = (await get("/api/contacts", scoped())).data;
  } catch (e) {
    if (ctx.alive()) fill(area, loadError(e, `the ${kind.title.toLowerCase()}`));
    newButton.disabled = true;
    return;
  }

  async function load() {
    try {
      const { data } = await get(kind.path, scoped());
      if (!ctx.alive()) return;
      fill(area, table({
        caption: kind.title,
        rows: data,
        empty: `No ${kind.title.toLowerCase()} yet.`,
        columns: [
          { label: "Number", header: true, cell: (d) => d.number || h("span", { class: "muted" }, "no number") },
          { label: kind.contactLabel, cell: (d) => d.contact_name },
          { label: "Issued", cell: (d) => date(d.issue_date) },
          { label: "Due", cell: (d) => date(d.due_date) },
          { label: "Status", cell: (d) => statusBadge(d.status) },
          { label: "Net", num: true, cell: (d) => money(d.subtotal) },
          { label: "VAT", num: true, cell: (d) => money(d.vat_total) },
          { label: "Total", num: true, cell: (d) => money(d.total) },
          { label: "Outstanding", num: true, cell: (d) => (d.status === "void" ? "—" : moneyFromPence((pence(d.total) ?? 0n) - (pence(d.amount_paid) ?? 0n))) },
          { label: "Actions", class: "num", cell: (d) => h("div", { class: "row-actions" },
            h("button", { type: "button", class: "secondary small", "aria-label": `Edit ${d.number || kind.noun}`, onclick: () => edit(d) }, "Edit"),
            h("button", { type: "button", class: "danger secondary small", "aria-label": `Delete ${d.number || kind.noun}`, onclick: () => remove(d) }, "Delete")) },
        ],
      }));
    } catch (e) {
      if (ctx.alive()) fill(area, loadError(e, `the ${kind.title.toLowerCase()}`));
    }
  }

  async function edit(doc) {
    const saved = await documentDialog(kind, contacts, doc);
    if (saved) {
      toast(`${capital(kind.noun)} ${saved.number || ""} saved: total ${money(saved.total)}.`);
      load();
    }
  }
  async function remove(doc) {
    if (!(await confirmDialog(`Delete ${kind.noun} ${doc.number || ""}?`, { confirm: "Delete", danger: true }))) return;
    try {
      await del(kind.path, { id: doc.id });
      toast(`${capital(kind.noun)} deleted.`);
      load();
    } catch (e) {
      toast(e.message, "error");
    }
  }
  newButton.addEventListener("click", () => {
    if (!contacts.length) {
      toast(`Add a contact first: a ${kind.noun} needs a ${kind.contactLabel.toLowerCase()}.`, "error");
      ctx.go("#/contacts");
      return;
    }
    edit(null);
  });
  await load();
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function documentDialog(kind, contacts, doc) {
  const editing = !!doc;
  let editor;
  return formDialog({
    title: editing ? `Edit ${kind.noun} ${doc.number || ""}` : `New ${kind.noun}`,
    submitLabel: editing ? "Save changes" : `Create ${kind.noun}`,
    wide: true,
    build: (form) => {
      const preferred = contacts.filter((c) => kind.contactTypes.includes(c.type));
      const others = contacts.filter((c) => !kind.contactTypes.includes(c.type));
      const options = [{ value: "", label: "Choose…" },
        ...[...preferred, ...others].map((c) => ({ value: c.id, label: `${c.name}${kind.contactTypes.includes(c.type) ? "" : ` (${c.type})`}` }))];
      editor = linesEditor({ lines: doc?.lines || [], priceOf: kind.priceOf });
      form.append(
        h("div", { class: "form-grid" },
          field({ label: kind.contactLabel, name: "contact_id", type: "select", options, value: doc?.contact_id ?? "", required: true }),
          field({ label: "Number", name: "number", value: doc?.number ?? "", hint: kind.numberHint }),
          field({ label: "Issue date", name: "issue_date", type: "date", value: doc?.issue_date ?? today() }),
          field({ label: "Due date", name: "due_date", type: "date", value: doc?.due_date ?? "", hint: editing ? null : "Left blank: 30 days after issue." }),
          field({ label: "Status", name: "status", type: "select", options: kind.statuses, value: doc?.status ?? "draft" }),
          field({ label: "Amount paid (£)", name: "amount_paid", value: doc ? String(doc.amount_paid ?? "0") : "", inputmode: "decimal" })),
        h("h3", {}, "Lines"),
        editor,
        field({ label: "Notes", name: "notes", type: "textarea", value: doc?.notes ?? "", rows: 2 }));
    },
    submit: async (form) => {
      const body = { lines: await editor.body() };
      for (const n of ["contact_id", "number", "issue_date", "due_date", "status", "notes"]) {
        const v = val(form, n);
        if (v !== "") body[n] = v;
        else if (editing && n === "notes") body[n] = null;
      }
      if (!body.contact_id) throw new Error("Missing required field: contact_id");
      if (val(form, "amount_paid") !== "") body.amount_paid = numberOrText(val(form, "amount_paid"));
      if (editing) {
        body.id = doc.id;
        return (await put(kind.path, body)).data;
      }
      body.entity_id = state.entity.id;
      return (await post(kind.path, body)).data;
    },
  });
}
