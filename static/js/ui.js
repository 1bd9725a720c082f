// Shared building blocks of the pages: an element builder, labelled fields, forms that
// put the server's message beside the field it names, dialogs, tables and notices.
// Text always goes in as text nodes, never as HTML.

import { ApiError } from "./api.js";
import { fieldWords, numberProblem, plainWords } from "./messages.js";

/**
 * `h("button", {class: "x", onclick: fn}, "Save")`. Props starting with `on` are event
 * listeners; `class`, `for`, `aria-*`, `data-*` and the rest are attributes, except the
 * DOM properties `value`, `checked`, `hidden`, `disabled` and `selected`.
 */
export function h(tag, props, ...children) {
  const el = tag instanceof Element ? tag : document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) {
      if (k === "hidden" || k === "disabled" || k === "checked") el[k] = false;
      continue;
    }
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (["value", "checked", "hidden", "disabled", "selected"].includes(k)) {
      el[k] = v;
    } else if (k === "dataset") {
      Object.assign(el.dataset, v);
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
export const nextId = (prefix = "f") => `${prefix}-${++uid}`;

/**
 * A labelled field: `{label, name, type, value, required, options, hint, ...attrs}`.
 * `type` may be `select` (with `options: [{value, label}]` or strings), `textarea`,
 * `checkbox`, or any input type. Returns the wrapper; its control is `.control`.
 */
export function field(opts) {
  const {
    label, name, type = "text", value, required, options, hint, wide, ...attrs
  } = opts;
  const id = attrs.id || nextId(name ? name.replace(/[^\w-]/g, "_") : "f");
  delete attrs.id;
  const errId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : null;
  const described = [hintId, errId].filter(Boolean).join(" ");
  let control;
  if (type === "select") {
    control = h("select", { id, name, required, "aria-describedby": described, ...attrs });
    for (const o of options || []) {
      const opt = typeof o === "string" ? { value: o, label: o } : o;
      control.append(h("option", { value: opt.value, disabled: opt.disabled }, opt.label));
    }
    if (value !== undefined && value !== null) control.value = String(value);
  } else if (type === "textarea") {
    control = h("textarea", { id, name, required, rows: 3, "aria-describedby": described, ...attrs });
    if (value !== undefined && value !== null) control.value = String(value);
  } else if (type === "checkbox") {
    control = h("input", { id, name, type, checked: !!value, "aria-describedby": described, ...attrs });
  } else {
    control = h("input", {
      id, name, type, required, "aria-describedby": described, ...attrs,
    });
    if (value !== undefined && value !== null) control.value = String(value);
  }
  const labelEl = h("label", { for: id }, label,
    required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null);
  const wrap = type === "checkbox"
    ? h("div", { class: "field check" }, control, labelEl)
    : h("div", { class: `field${wide ? " wide" : ""}` }, labelEl, control);
  if (hint) wrap.append(h("p", { id: hintId, class: "hint" }, hint));
  wrap.append(h("p", { id: errId, class: "field-error", "aria-live": "polite" }));
  wrap.control = control;
  return wrap;
}

/**
 * The field an error message (docs/conventions.md#errors) names: ``Invalid value for
 * field `x`: ...``, `Missing required field: x`, or the first backticked word.
 */
export function fieldFromMessage(message) {
  const m = /Missing required field: ([\w.[\]]+)/.exec(message)
    || /field `([^`]+)`/.exec(message)
    || /`([\w.[\]]+)`/.exec(message);
  return m ? m[1] : null;
}

function controlFor(form, name) {
  if (!name) return null;
  const candidates = [name];
  // `entityId` in a query is `entity_id` in a form, and the other way round.
  candidates.push(name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  candidates.push(name.replace(/_([a-z])/g, (_, c) => c.toUpperCase()));
  for (const n of candidates) {
    const el = form.querySelector(`[data-error-for="${CSS.escape(n)}"]`)
      || form.querySelector(`[name="${CSS.escape(n)}"]`);
    if (el) return el;
  }
  return null;
}

/** Marks a control with a message beside it (a refusal the app makes itself) and focuses it. */
export function fieldError(form, name, message) {
  const control = controlFor(form, name);
  if (!control) throw new Error(message);
  control.setAttribute("aria-invalid", "true");
  const errEl = control.closest(".field, td, .cell")?.querySelector(".field-error");
  if (errEl) errEl.textContent = message;
  control.focus();
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll(".field-error")) el.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  const alert = form.querySelector(".form-error");
  if (alert) alert.replaceChildren();
}

/** What a control is called in a refusal: `data-error-label`, else its label's words. */
function labelOf(control, name) {
  if (control?.dataset.errorLabel) return control.dataset.errorLabel;
  const label = control?.id ? control.ownerDocument.querySelector(`label[for="${CSS.escape(control.id)}"]`) : null;
  const text = label ? label.textContent.replace(/\s*\*$/, "").trim() : "";
  return text || (name ? fieldWords(name) : "");
}

/** Puts `words` beside `control`; false when it has no place for them. */
function markField(control, words) {
  control.setAttribute("aria-invalid", "true");
  const errEl = control.closest(".field, td, .cell")?.querySelector(".field-error");
  if (!errEl) return false;
  errEl.textContent = words;
  return true;
}

/**
 * The refusal line at the top of a form (created there when the form has none): it is
 * where the eye is in a long dialog, is announced (role=alert) and takes the focus.
 */
function showAlert(form, items) {
  let alert = form.querySelector(".form-error");
  if (!alert) {
    alert = formError();
    form.prepend(alert);
  }
  if (items.length === 1) {
    alert.replaceChildren(items[0]);
  } else {
    alert.replaceChildren(h("p", {}, `${items.length} things to put right:`),
      h("ul", {}, items.map((t) => h("li", {}, t))));
  }
  alert.focus({ preventScroll: true });
  alert.scrollIntoView({ block: "nearest" });
}

/**
 * Shows errors, all at once: each `{name, words, control?}` beside its field (named by
 * `name` when no control is given) and every one of them in the form's refusal line at
 * its top, which takes the focus. A message the form has no field for shows there alone.
 */
export function showErrors(form, errors) {
  const items = [];
  for (const e of errors) {
    const control = e.control || controlFor(form, e.name);
    const placed = control ? markField(control, e.words) : false;
    const label = placed || control ? labelOf(control, e.name) : (e.name ? fieldWords(e.name) : "");
    items.push(label ? `${label}: ${e.words}` : e.words);
  }
  if (items.length) showAlert(form, items);
}

/**
 * Shows a refusal: in plain words beside the field its message names when the form has
 * it (docs/conventions.md#errors), and at the top of the form, focused. Returns the
 * field or null.
 */
export function showError(form, err) {
  const message = err instanceof Error ? err.message : String(err);
  const { field: named, words } = plainWords(message);
  // A message may also start with the field it is about: "SKU already exists: X",
  // "stock_qty 3 is below ...".
  const lead = /^([A-Za-z_]+)\b/.exec(message)?.[1]?.toLowerCase();
  const control = controlFor(form, named || fieldFromMessage(message))
    || (lead && lead.length > 1 ? controlFor(form, lead) : null);
  if (control && markField(control, words)) {
    showAlert(form, [`${labelOf(control, named)}: ${words}`]);
    return control;
  }
  showAlert(form, [named ? `${fieldWords(named)}: ${words}` : message]);
  return control;
}

/**
 * The numbers typed in `form` that are not numbers, as errors for `showErrors`: every
 * visible box that asks for a number (`inputmode` decimal or numeric).
 */
export function numberErrors(form) {
  const out = [];
  for (const c of form.querySelectorAll("input[inputmode=decimal], input[inputmode=numeric]")) {
    if (c.disabled || c.closest("[hidden]")) continue;
    const words = numberProblem(c.value, { whole: c.inputMode === "numeric" });
    if (words) out.push({ control: c, name: c.name, words });
  }
  return out;
}

/** The refusal line of a form: put it at the top, where a refusal is seen at once. */
export const formError = () => h("div", { class: "form-error", role: "alert", tabindex: "-1" });

/**
 * Runs `action()` on submit: clears old errors, disables the submit buttons while it runs
 * and shows a refusal with `showError`. `action` may return a promise.
 */
export function onSubmit(form, action) {
  form.noValidate = true;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const buttons = form.querySelectorAll("button[type=submit]");
    clearErrors(form);
    // Every number typed wrong is shown at once, before anything is sent.
    const wrong = numberErrors(form);
    if (wrong.length) {
      showErrors(form, wrong);
      return;
    }
    for (const b of buttons) b.disabled = true;
    form.setAttribute("aria-busy", "true");
    try {
      await action(ev.submitter);
    } catch (e) {
      if (!(e instanceof ApiError)) console.error(e);
      showError(form, e);
    } finally {
      for (const b of buttons) b.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });
  return form;
}

/** Value of a named control, trimmed; "" when absent. */
export function val(form, name) {
  const el = form.elements.namedItem(name);
  if (!el) return "";
  if (el.type === "checkbox") return el.checked;
  return typeof el.value === "string" ? el.value.trim() : "";
}

/** Sets `body[name]` from the form when the control has a value (or `nullable` for ""). */
export function pick(body, form, names, { nullable = false, number = [] } = {}) {
  for (const n of names) {
    const v = val(form, n);
    if (v === "" || v === undefined) {
      if (nullable) body[n] = null;
      continue;
    }
    body[n] = number.includes(n) ? numberOrText(v) : v;
  }
  return body;
}

/**
 * A typed number for the JSON body, exactly as typed: `JSON.rawJSON` writes the decimal
 * text itself into the JSON (no binary float in between). Text that is not a number is
 * sent as typed, so the server's refusal names the field.
 */
export function numberOrText(v) {
  const t = String(v).trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[2] === "" && !m[3])) return t;
  const int = m[2].replace(/^0+(?=\d)/, "") || "0";
  const frac = m[3] ? `.${m[3]}` : "";
  const text = `${m[1] === "-" ? "-" : ""}${int}${frac}`;
  if (typeof JSON.rawJSON === "function") return JSON.rawJSON(text);
  return Number(text);
}

// ---------------------------------------------------------------------------------------
// Notices, badges, tables
// ---------------------------------------------------------------------------------------

export function notice(kind, ...children) {
  return h("div", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, ...children);
}

/** A page-level explanation of a failed load; a missing endpoint says so plainly. */
export function loadError(err, what = "this page") {
  if (err instanceof ApiError && err.missingEndpoint) {
    return notice("error",
      h("strong", {}, `${capital(what)} is not available on this server yet.`), " ",
      "This Stockbook server does not offer it (", h("code", {}, err.message), "). ",
      "Ask whoever runs it to update, then reload the page.");
  }
  if (err instanceof ApiError && err.status === 403) {
    return notice("error", h("strong", {}, "Not allowed. "), err.message);
  }
  return notice("error", h("strong", {}, `Could not load ${what}. `),
    err instanceof Error ? err.message : String(err));
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** A small label; `text` is shown as given. */
export function badge(text, kind = "") {
  return h("span", { class: `badge ${kind}` }, text);
}

export function statusBadge(status) {
  const kinds = {
    active: "ok", completed: "ok", paid: "ok", in_transit: "warn", in_progress: "warn",
    sent: "warn", awaiting_payment: "warn", draft: "", inactive: "muted", cancelled: "muted",
    void: "muted", archived: "muted", revoked: "muted",
  };
  const text = status.replace(/_/g, " ");
  return badge(text.charAt(0).toUpperCase() + text.slice(1), kinds[status] ?? "");
}

/**
 * `columns: [{label, cell: (row) => node|text, num?: bool, class?}]`. A caption is
 * required for screen readers; `captionHidden` keeps it off screen.
 */
export function table({ caption, captionHidden = true, columns, rows, empty = "Nothing here yet.", rowProps }) {
  const t = h("table", { class: "grid" },
    h("caption", { class: captionHidden ? "sr-only" : "" }, caption),
    h("thead", {}, h("tr", {}, columns.map((c) =>
      h("th", { scope: "col", class: [c.num ? "num" : "", c.class || ""].join(" ").trim() || null }, c.label)))));
  const body = h("tbody");
  if (!rows.length) {
    body.append(h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, empty)));
  }
  for (const r of rows) {
    body.append(h("tr", rowProps ? rowProps(r) : {}, columns.map((c) =>
      h(c.header ? "th" : "td", {
        class: [c.num ? "num" : "", c.class || ""].join(" ").trim() || null,
        scope: c.header ? "row" : null,
      }, c.cell(r)))));
  }
  t.append(body);
  return h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": caption }, t);
}

/**
 * A list read `size` rows at a time with ← Previous / Next →: `read(limit, offset)`
 * resolves with the rows (it is asked for one more than `size`, to know whether there is
 * a next page), `show(rows)` draws a page. Returns `{ element, load }`; `load()` reads
 * the current page again. A refusal shows in place of the rows.
 */
export function pagedList({ size, read, show, what }) {
  let offset = 0;
  let seq = 0;
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const prev = h("button", { type: "button", class: "secondary" }, "← Previous");
  const next = h("button", { type: "button", class: "secondary" }, "Next →");
  const bar = h("div", { class: "pager" }, prev, status, next);
  async function load() {
    const mine = ++seq;
    area.setAttribute("aria-busy", "true");
    try {
      const data = await read(size + 1, offset);
      if (mine !== seq) return;
      const more = data.length > size;
      const rows = data.slice(0, size);
      fill(area, show(rows));
      prev.disabled = offset === 0;
      next.disabled = !more;
      bar.hidden = offset === 0 && !more;
      status.textContent = rows.length ? `Showing ${offset + 1}–${offset + rows.length}` : "";
    } catch (e) {
      if (mine === seq) fill(area, loadError(e, what));
    } finally {
      area.removeAttribute("aria-busy");
    }
  }
  prev.addEventListener("click", () => { offset = Math.max(0, offset - size); load(); });
  next.addEventListener("click", () => { offset += size; load(); });
  return { element: h("div", {}, area, bar), load };
}

// ---------------------------------------------------------------------------------------
// Dialogs
// ---------------------------------------------------------------------------------------

/**
 * A modal form. `build(form)` adds fields; `submit(form)` runs on submit and closes the
 * dialog when it resolves; a refusal stays on screen beside its field. Resolves with the
 * submit's result, or undefined when cancelled. A submit that resolves with `STAY` keeps the
 * dialog open (the user went back from a confirmation, or a field was marked).
 */
export const STAY = Symbol("stay");

export function formDialog({ title, build, submit, submitLabel = "Save", wide = false }) {
  return new Promise((resolve) => {
    const titleId = nextId("dlg");
    // The refusal line is the form's first child: a long dialog shows it at its top.
    const form = h("form", { class: "dialog-form", method: "dialog" }, formError());
    const dlg = h("dialog", { class: wide ? "wide" : "", "aria-labelledby": titleId },
      h("h2", { id: titleId }, title), form);
    const built = build(form);
    form.append(h("div", { class: "actions" },
      h("button", { type: "submit" }, submitLabel),
      h("button", { type: "button", class: "secondary", onclick: () => dlg.close() }, "Cancel")));
    let result;
    onSubmit(form, async () => {
      const done = await submit(form);
      if (done === STAY) return;
      result = done;
      dlg.close();
    });
    dlg.addEventListener("close", () => {
      dlg.remove();
      resolve(result);
    });
    document.body.append(dlg);
    dlg.showModal();
    Promise.resolve(built).then(() => {
      const first = form.querySelector("input:not([type=hidden]), select, textarea");
      if (first) first.focus();
    }, (e) => showError(form, e));
  });
}

/** Asks a yes/no question; resolves true when confirmed. */
export function confirmDialog(question, { confirm = "Confirm", cancel = "Cancel", danger = false, detail } = {}) {
  return new Promise((resolve) => {
    const titleId = nextId("dlg");
    let ok = false;
    const yes = h("button", { type: "button", class: danger ? "danger" : "" }, confirm);
    const dlg = h("dialog", { role: "alertdialog", "aria-labelledby": titleId },
      h("h2", { id: titleId }, question),
      detail ? h("p", {}, detail) : null,
      h("div", { class: "actions" }, yes,
        h("button", { type: "button", class: "secondary", onclick: () => dlg.close() }, cancel)));
    yes.addEventListener("click", () => { ok = true; dlg.close(); });
    dlg.addEventListener("close", () => { dlg.remove(); resolve(ok); });
    document.body.append(dlg);
    dlg.showModal();
    yes.focus();
  });
}

/** A short message in the status region at the bottom of the screen. */
export function toast(message, kind = "ok") {
  const region = document.getElementById("toasts");
  if (!region) return;
  const el = h("div", { class: `toast ${kind}` }, message);
  region.append(el);
  setTimeout(() => el.remove(), kind === "error" ? 8000 : 4000);
}

/**
 * Runs an action from a button (ship, revoke, ...): the button is disabled while it runs;
 * a refusal is shown in `where` (an element) or as a toast.
 */
export async function act(button, action, where) {
  if (button) button.disabled = true;
  if (where) where.textContent = "";
  try {
    return await action();
  } catch (e) {
    if (where) {
      where.textContent = e.message;
    } else {
      toast(e.message, "error");
    }
    return undefined;
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------------------

/** Today's date (UTC, as the server counts days) as `YYYY-MM-DD`. */
export const today = () => new Date().toISOString().slice(0, 10);

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `2025-03-07` or an RFC 3339 timestamp as `7 Mar 2025`. */
export function date(s) {
  if (!s) return "—";
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return s;
  return `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
}

/** A page heading with optional action buttons beside it. */
export function pageHeader(title, ...actions) {
  return h("div", { class: "page-head" },
    h("h1", { tabindex: "-1" }, title),
    actions.length ? h("div", { class: "page-actions" }, actions) : null);
}

export const sr = (text) => h("span", { class: "sr-only" }, text);
