// Record forms and list pages built from a field list: the accounting records (contacts,
// expenses, projects, time entries) and the simple parts of the inventory pages.
//
// A field: `{name, label, type, required, options, nullable, hint, wide, default, create,
// edit}`. `type` is `text` (default), `decimal` (sent as an exact JSON number), `integer`,
// `date`, `email`, `select`, `textarea` or `checkbox`. `options` may be a function
// returning a promise of options. `create: false` / `edit: false` leave a field out of
// one of the two forms. `nullable`: a cleared field is sent as null on edit.
// `shownWhen(form)`: the field is shown (and sent) only while it answers true, asked again
// on every change of the form.

import { del, get, post, put } from "./api.js";
import { compare, isDecimal } from "./decimal.js";
import { scoped, state } from "./state.js";
import {
  confirmDialog, field, fill, formDialog, h, loadError, numberOrText, pageHeader, pagedList, table,
  toast, val,
} from "./ui.js";

/** Records a list page shows at once. */
export const LIST_PAGE = 100;

/** Appends the fields to `form`, filled from `record` (or defaults). */
export async function recordFields(form, fields, record, editing) {
  const grid = h("div", { class: "form-grid" });
  form.append(grid);
  for (const f of fields) {
    if (editing && f.edit === false) continue;
    if (!editing && f.create === false) continue;
    let value = record ? record[f.name] : typeof f.default === "function" ? f.default() : f.default;
    if (value && typeof value === "object" && "id" in value) value = value.id;
    let options = f.options;
    if (typeof options === "function") options = await options();
    const inputType = { decimal: "text", integer: "text" }[f.type] || f.type || "text";
    const extra = {};
    if (f.type === "decimal") extra.inputmode = "decimal";
    if (f.type === "integer") extra.inputmode = "numeric";
    if (f.autocomplete) extra.autocomplete = f.autocomplete;
    if (f.placeholder) extra.placeholder = f.placeholder;
    if (f.list) extra.list = f.list;
    const w = field({
      label: f.label, name: f.name, type: inputType, required: f.required, options,
      hint: f.hint, wide: f.wide || f.type === "textarea",
      value: value === null || value === undefined ? (f.type === "checkbox" ? false : "") : value,
      ...extra,
    });
    grid.append(w);
    if (f.shownWhen) {
      const sync = () => { w.hidden = !f.shownWhen(form); };
      form.addEventListener("change", sync);
      sync();
    }
  }
  return grid;
}

/** The JSON body of a record form. */
export function recordBody(form, fields, editing, record) {
  const body = {};
  for (const f of fields) {
    if (editing && f.edit === false) continue;
    if (!editing && f.create === false) continue;
    if (f.shownWhen && !f.shownWhen(form)) continue;
    const v = val(form, f.name);
    // A field sent only when changed (a stock total another user may be moving).
    if (editing && f.onlyChanged && record && isDecimal(v) && compare(v, record[f.name], 4) === 0) continue;
    if (f.type === "checkbox") {
      body[f.name] = !!v;
      continue;
    }
    if (v === "") {
      if (editing && f.nullable) body[f.name] = null;
      continue;
    }
    if (f.type === "decimal") body[f.name] = numberOrText(v);
    else if (f.type === "integer") body[f.name] = /^-?\d+$/.test(v) ? Number(v) : v;
    else body[f.name] = v;
  }
  return body;
}

/** Opens the create or edit dialog of a record; resolves with the saved record. */
export function editRecord({ path, noun, fields, record, wide, extraBody }) {
  const editing = !!record;
  return formDialog({
    title: editing ? `Edit ${noun}` : `New ${noun}`,
    submitLabel: editing ? "Save changes" : `Create ${noun}`,
    wide,
    build: (form) => recordFields(form, fields, record, editing),
    submit: async (form) => {
      const body = recordBody(form, fields, editing, record);
      if (extraBody) Object.assign(body, extraBody(form, editing));
      if (editing) {
        body.id = record.id;
        return (await put(path, body)).data;
      }
      body.entity_id = state.entity.id;
      return (await post(path, body)).data;
    },
  });
}

/**
 * A list page with New, Edit and Delete: `{title, noun, path, fields, columns, intro,
 * prepare}`. `prepare()` may load lookups (contacts, projects) before the list draws;
 * its result is passed to `columns(lookups)` and `fields(lookups)`.
 */
export async function crudPage(root, ctx, spec) {
  const { title, noun, path, intro } = spec;
  // Enabled once its form can open (what `prepare` reads has loaded).
  const newButton = h("button", { type: "button", disabled: true }, `New ${noun}`);
  root.append(pageHeader(title, newButton));
  if (intro) root.append(h("p", { class: "lead" }, intro));
  const listArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(listArea);

  let lookups = {};
  try {
    lookups = spec.prepare ? await spec.prepare() : {};
  } catch (e) {
    if (ctx.alive()) fill(listArea, loadError(e, `the ${title.toLowerCase()}`));
    newButton.disabled = true;
    return;
  }
  const fields = typeof spec.fields === "function" ? spec.fields(lookups) : spec.fields;

  // A page at a time (docs/conventions.md#lists).
  const list = pagedList({
    size: LIST_PAGE,
    what: `the ${title.toLowerCase()}`,
    read: async (limit, offset) => (await get(path, scoped({ limit, offset }))).data,
    show: (rows) => {
      const columns = [...spec.columns(lookups), {
        label: "Actions", class: "num", cell: (r) => h("div", { class: "row-actions" },
          h("button", { type: "button", class: "secondary small", onclick: () => edit(r), "aria-label": `Edit ${label(r)}` }, "Edit"),
          h("button", { type: "button", class: "danger secondary small", onclick: () => remove(r), "aria-label": `Delete ${label(r)}` }, "Delete")),
      }];
      return table({ caption: title, columns, rows, empty: `No ${title.toLowerCase()} yet.` });
    },
  });
  fill(listArea, list.element);
  const load = list.load;
  const label = (r) => r.name || r.description || r.number || noun;

  async function edit(record) {
    const saved = await editRecord({ path, noun, fields, record, wide: spec.wide });
    if (saved) {
      toast(`${capital(noun)} saved.`);
      load();
    }
  }
  async function remove(record) {
    if (!(await confirmDialog(`Delete ${label(record)}?`, { confirm: "Delete", danger: true }))) return;
    try {
      await del(path, { id: record.id });
      toast(`${capital(noun)} deleted.`);
      load();
    } catch (e) {
      toast(e.message, "error");
    }
  }
  newButton.addEventListener("click", () => edit(null));
  newButton.disabled = false;
  await load();
  // `#/expenses?open=<id>` (a line of the VAT page's drill-down) opens that record's
  // form, on whichever page of the list it is.
  const wanted = ctx.query.get("open");
  if (!wanted) return;
  try {
    const [record] = (await get(path, scoped({ id: wanted }))).data;
    if (record && ctx.alive()) edit(record);
  } catch (e) {
    toast(e.message, "error");
  }
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** Options of a select from a list endpoint: `[{value, label}]`, with an optional blank. */
export async function optionsFrom(path, labelOf, blank) {
  const { data } = await get(path, scoped());
  const opts = data.map((r) => ({ value: r.id, label: labelOf(r) }));
  return blank === undefined ? opts : [{ value: "", label: blank }, ...opts];
}
