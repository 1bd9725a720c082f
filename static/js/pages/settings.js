// Settings: API keys for the public API (the raw key shown once, with a copy button; the
// list; revoke), webhooks (pages/webhooks.js), the current business's details (with its default location for invoices
// and bills, docs/documents-stock.md#where-stock-is-taken-from), and signing out everywhere.

import { del, get, post, put } from "../api.js";
import { loadEntities, scoped, state } from "../state.js";
import { securitySection } from "./security.js";
import { webhooksSection } from "./webhooks.js";
import {
  act, badge, confirmDialog, date, field, fill, formError, h, loadError, notice, onSubmit,
  pageHeader, table, toast, today, val,
} from "../ui.js";

export const title = "Settings";

export async function render(root, ctx) {
  root.append(pageHeader("Settings"));
  const keys = h("section", { "aria-labelledby": "keys-title" }, h("h2", { id: "keys-title" }, "API keys"));
  const hooks = h("section", { "aria-labelledby": "webhooks-title", id: "webhooks" }, h("h2", { id: "webhooks-title" }, "Webhooks"));
  const business = h("section", { "aria-labelledby": "biz-title" }, h("h2", { id: "biz-title" }, "Business details"));
  const sessions = h("section", { "aria-labelledby": "sessions-title" }, h("h2", { id: "sessions-title" }, "Sign-in"));
  const security = h("section", { "aria-labelledby": "security-title", id: "security" }, h("h2", { id: "security-title" }, "Security"));
  root.append(keys, hooks, business, security, sessions);
  signOutEverywhere(sessions);
  await Promise.all([apiKeys(keys, ctx), webhooksSection(hooks, ctx), businessForm(business), securitySection(security, ctx)]);
}

/** Ends every session of this account (other browsers and devices too), then this page. */
function signOutEverywhere(section) {
  const button = h("button", { type: "button", class: "danger secondary" }, "Sign out everywhere");
  button.addEventListener("click", (ev) => act(ev.currentTarget, async () => {
    if (!(await confirmDialog("Sign out on every device?", { confirm: "Sign out everywhere", danger: true, detail: "Every browser signed in to this account, this one included, must sign in again. API keys keep working." }))) return;
    await post("/api/auth/logout-all", {});
    location.reload();
  }));
  section.append(h("div", { class: "card" },
    h("p", {}, "Signed in on a computer you no longer use, or lost a device? End every session of this account."),
    h("div", { class: "actions" }, button)));
}

async function apiKeys(section, ctx) {
  section.append(h("p", { class: "lead" },
    "Other programs use an API key to read and add records through the public API at ",
    h("code", {}, `${location.origin}/api/v1`), ". Send it as ", h("code", {}, "Authorization: Bearer <key>"), "."));
  const shown = h("div", { "aria-live": "polite" });
  const listArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const form = h("form", { class: "card" });
  const scopeOptions = [{ value: "", label: "All my businesses" },
    ...state.entities.map((e) => ({ value: e.id, label: `Only ${e.name}` }))];
  form.append(h("h3", {}, "Create a key"),
    h("div", { class: "form-grid" },
      field({ label: "Name", name: "name", required: true, hint: "What uses it, for example “Shop website”." }),
      field({ label: "Access", name: "entity_id", type: "select", options: scopeOptions, value: state.entity.id })),
    formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Create key")));
  section.append(shown, form, h("h3", {}, "Your keys"), listArea);

  async function load() {
    try {
      const { data } = await get("/api/api-keys");
      if (!ctx.alive()) return;
      const names = new Map(state.entities.map((e) => [e.id, e.name]));
      fill(listArea, table({
        caption: "API keys",
        rows: data,
        empty: "No API keys yet.",
        rowProps: (k) => ({ class: k.revoked_at ? "inactive" : null }),
        columns: [
          { label: "Name", header: true, cell: (k) => k.name },
          { label: "Key", cell: (k) => h("code", {}, `${k.prefix}…`) },
          { label: "Access", cell: (k) => (k.entity_id ? names.get(k.entity_id) ?? "One business" : "All businesses") },
          { label: "Created", cell: (k) => date(k.created_at) },
          { label: "Last used", cell: (k) => (k.last_used_at ? date(k.last_used_at) : "Never") },
          { label: "Status", cell: (k) => (k.revoked_at ? badge(`Revoked ${date(k.revoked_at)}`, "muted") : badge("Active", "ok")) },
          { label: "Actions", class: "num", cell: (k) => (k.revoked_at ? "" : h("button", {
            type: "button", class: "danger secondary small", "aria-label": `Revoke ${k.name}`,
            onclick: (ev) => act(ev.currentTarget, async () => {
              if (!(await confirmDialog(`Revoke the key “${k.name}”?`, { confirm: "Revoke", danger: true, detail: "Programs using it stop working at once. This cannot be undone." }))) return;
              await del("/api/api-keys", { id: k.id });
              toast(`${k.name} revoked.`);
              load();
            }),
          }, "Revoke")) },
        ],
      }));
    } catch (e) {
      if (ctx.alive()) fill(listArea, loadError(e, "the API keys"));
    }
  }

  onSubmit(form, async () => {
    const body = { name: val(form, "name") };
    if (val(form, "entity_id")) body.entity_id = val(form, "entity_id");
    const { data } = await post("/api/api-keys", body);
    form.reset();
    showKeyOnce(shown, data);
    load();
  });
  await load();
}

/** The raw key, shown once, with a copy button; gone when dismissed or on leaving. */
function showKeyOnce(area, key) {
  const code = h("code", { id: "new-key" }, key.raw_key);
  const copy = h("button", { type: "button", class: "secondary" }, "Copy");
  const status = h("span", { class: "muted", "aria-live": "polite" });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(key.raw_key);
      status.textContent = "Copied.";
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  });
  const done = h("button", { type: "button" }, "I have saved it");
  done.addEventListener("click", () => fill(area));
  fill(area, notice("warn",
    h("p", {}, h("strong", {}, `Your new key “${key.name}”. `), "Copy it now: it is shown only this once and cannot be retrieved later."),
    h("div", { class: "key-box" }, code, copy, status),
    h("div", { class: "actions" }, done)));
  copy.focus();
}

async function businessForm(section) {
  const e = state.entity;
  let locations = [];
  try {
    locations = (await get("/api/warehouse-locations", scoped())).data;
  } catch {
    // Without the list the select offers only "None"; the rest of the form still works.
  }
  const locationOptions = [{ value: "", label: "None: documents do not move stock" },
    ...locations.filter((l) => l.status !== "inactive" || l.id === e.default_location_id)
      .map((l) => ({ value: l.id, label: l.name }))];
  const form = h("form", { class: "card" });
  form.append(h("div", { class: "form-grid" },
    field({ label: "Business name", name: "name", required: true, value: e.name }),
    field({ label: "VAT number", name: "vat_number", value: e.vat_number ?? "" }),
    field({ label: "Default location", name: "default_location_id", type: "select", options: locationOptions, value: e.default_location_id ?? "", hint: "New invoices take stock from here and new bills bring it here." }),
    field({ label: "Lock date", name: "lock_date", type: "date", value: e.lock_date ?? "", max: today(), hint: "Nothing dated on or before it can be added, changed or deleted. Leave blank for none." }),
    field({ label: "Address", name: "address", type: "textarea", value: e.address ?? "", wide: true })),
  h("p", { class: "hint" }, `Currency: ${e.currency || "GBP"}. Created ${date(e.created_at)}.`),
  formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Save business details")));
  section.append(form);
  onSubmit(form, async () => {
    const body = { id: e.id, name: val(form, "name"), vat_number: val(form, "vat_number") || null, address: val(form, "address") || null, default_location_id: val(form, "default_location_id") || null, lock_date: val(form, "lock_date") || null };
    await put("/api/entities", body);
    await loadEntities();
    const sel = document.getElementById("entity-select");
    const opt = sel && [...sel.options].find((o) => o.value === e.id);
    if (opt) opt.textContent = body.name;
    toast("Business details saved.");
  });
}
