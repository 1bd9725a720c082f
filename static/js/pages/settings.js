// Settings: API keys for the public API (the raw key shown once, with a copy button; the
// list; revoke), webhooks (pages/webhooks.js), the current business's details (with its default location for invoices
// and bills, docs/documents-stock.md#where-stock-is-taken-from), the team (members, invitations
// and roles, docs/auth.md#members-and-roles), and signing out everywhere. Each section only
// for a role that may use it.

import { del, get, post, put } from "../api.js";
import { loadEntities, scoped, state } from "../state.js";
import { may } from "../roles.js";
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
  const team = h("section", { "aria-labelledby": "team-title", id: "team" }, h("h2", { id: "team-title" }, "Team"));
  // Only what the role may use (docs/auth.md#members-and-roles): the team and the
  // business details are the owner's (an accountant's: the lock date), keys and
  // webhooks an owner's or a manager's.
  const shown = [
    may("admin") && keys,
    may("admin") && hooks,
    (may("owner") || may("vat")) && business,
    may("owner") && team,
    security,
    sessions,
  ].filter(Boolean);
  root.append(...shown);
  signOutEverywhere(sessions);
  await Promise.all([
    may("owner") && teamSection(team, ctx),
    may("admin") && apiKeys(keys, ctx),
    may("admin") && webhooksSection(hooks, ctx),
    (may("owner") || may("vat")) && businessForm(business),
    securitySection(security, ctx),
  ]);
  // The logo is the owner's, like the rest of the business details.
  if (may("owner")) logoCard(business);
}

/**
 * The business's logo on its invoices and credit notes (docs/accounting.md#the-logo): a PNG
 * or JPEG of at most 512 KiB, sent as it is.
 */
function logoCard(section) {
  const e = state.entity;
  const path = `/api/entities/${encodeURIComponent(e.id)}/logo`;
  const preview = h("img", { class: "logo-preview", alt: `${e.name} logo`, hidden: true });
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const error = h("p", { class: "form-error", role: "alert" });
  const input = h("input", { type: "file", id: "logo-file", accept: "image/png,image/jpeg" });
  const remove = h("button", { type: "button", class: "secondary", hidden: true }, "Remove logo");
  const show = () => {
    preview.hidden = true;
    remove.hidden = true;
    status.textContent = "No logo: invoices show the business name alone.";
    preview.onload = () => {
      preview.hidden = false;
      remove.hidden = false;
      status.textContent = "Shown at the top of every invoice and credit note.";
    };
    preview.src = `${path}?t=${Date.now()}`;
  };
  const send = async (method, file) => {
    error.textContent = "";
    const res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: file ? { "Content-Type": file.type } : { "Content-Type": "application/json" },
      body: file || "{}",
    });
    if (!res.ok) {
      let message = `Request failed (${res.status})`;
      try { message = (await res.json()).message || message; } catch { /* not JSON */ }
      error.textContent = message;
      return false;
    }
    return true;
  };
  input.addEventListener("change", async () => {
    const file = input.files[0];
    if (!file) return;
    if (await send("PUT", file)) {
      toast("Logo saved.");
      show();
    }
    input.value = "";
  });
  remove.addEventListener("click", async () => {
    if (await send("DELETE")) {
      toast("Logo removed.");
      show();
    }
  });
  section.append(h("div", { class: "card logo-card" },
    h("h3", {}, "Logo"),
    preview, status, error,
    h("div", { class: "field" }, h("label", { for: "logo-file" }, "Choose a PNG or JPEG (at most 512 KiB)"), input),
    h("div", { class: "actions" }, remove)));
  show();
}

const ROLES = [
  { value: "manager", label: "Manager: everything but the team, VAT filing and the business's settings" },
  { value: "staff", label: "Staff: stock only" },
  { value: "accountant", label: "Accountant: the books, VAT and the lock date; reads stock" },
  { value: "viewer", label: "Viewer: reads stock and the books" },
  { value: "owner", label: "Owner: everything" },
];
const ROLE_NAMES = ["owner", "manager", "staff", "accountant", "viewer"];

/**
 * Settings → Team: the business's members and open invitations; invite someone (the link
 * is shown to copy and pass on: the server sends no email), change a role, remove.
 */
async function teamSection(section, ctx) {
  const entity = state.entity;
  section.append(h("p", { class: "lead" },
    `Who can use ${entity.name}, and what each may do. Invite someone by a link you pass on yourself; it works once, for 7 days.`));
  const shown = h("div", { "aria-live": "polite" });
  const listArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const form = h("form", { class: "card" });
  const roleField = field({ label: "Role", name: "role", type: "select", options: ROLES, value: "staff" });
  // Staff again after each invitation (a form's reset goes back to the default option).
  roleField.control.querySelector("option[value=staff]").defaultSelected = true;
  form.append(h("h3", {}, "Invite someone"),
    h("div", { class: "form-grid" },
      field({ label: "Email", name: "email", type: "email", required: true }),
      roleField),
    formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Create invitation link")));
  section.append(shown, form, h("h3", {}, "Members"), listArea);

  async function load() {
    try {
      const { data } = await get("/api/members", { entityId: entity.id });
      if (!ctx.alive()) return;
      fill(listArea, table({
        caption: "Members",
        rows: data,
        empty: "No members yet.",
        columns: [
          { label: "Member", header: true, cell: (m) => (m.name ? `${m.name} (${m.email})` : m.email) },
          { label: "Role", cell: (m) => roleSelect(m) },
          { label: "Status", cell: (m) => (m.status === "active" ? badge("Active", "ok") : badge("Invited", "muted")) },
          { label: "Actions", class: "num", cell: (m) => h("button", {
            type: "button", class: "danger secondary small",
            "aria-label": `${m.status === "active" ? "Remove" : "Withdraw"} ${m.email}`,
            onclick: (ev) => act(ev.currentTarget, async () => {
              if (!(await confirmDialog(`Remove ${m.email}?`, { confirm: "Remove", danger: true, detail: "Their sessions and API keys stop reaching this business at once." }))) return;
              await del("/api/members", { id: m.id });
              toast(`${m.email} removed.`);
              load();
            }),
          }, m.status === "active" ? "Remove" : "Withdraw") },
        ],
      }));
    } catch (e) {
      if (ctx.alive()) fill(listArea, loadError(e, "the members"));
    }
  }

  function roleSelect(m) {
    const select = h("select", { "aria-label": `Role of ${m.email}` },
      ...ROLE_NAMES.map((r) => h("option", { value: r }, r)));
    select.value = m.role;
    select.addEventListener("change", () => act(select, async () => {
      try {
        await put("/api/members", { id: m.id, role: select.value });
        toast(`${m.email} is now ${select.value}.`);
      } finally {
        load();
      }
    }));
    return select;
  }

  onSubmit(form, async () => {
    const { data } = await post("/api/members", { entity_id: entity.id, email: val(form, "email"), role: val(form, "role") });
    form.reset();
    showInvite(shown, data);
    load();
  });
  await load();
}

/** The invitation link, with a copy button: shown to the owner to pass on. */
function showInvite(area, member) {
  const code = h("code", { id: "invite-link" }, member.invite_url);
  const copy = h("button", { type: "button", class: "secondary" }, "Copy link");
  const status = h("span", { class: "muted", "aria-live": "polite" });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(member.invite_url);
      status.textContent = "Copied.";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  });
  const done = h("button", { type: "button" }, "Done");
  done.addEventListener("click", () => fill(area));
  fill(area, notice("ok",
    h("p", {}, h("strong", {}, `Invitation for ${member.email} (${member.role}). `), "Send them this link: it works once, for 7 days."),
    h("div", { class: "key-box" }, code, copy, status),
    h("div", { class: "actions" }, done)));
  copy.focus();
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
  if (!may("owner")) {
    // An accountant moves the lock date, and nothing else of the settings.
    form.append(h("div", { class: "form-grid" },
      field({ label: "Lock date", name: "lock_date", type: "date", value: e.lock_date ?? "", max: today(), hint: "Nothing dated on or before it can be added, changed or deleted. Leave blank for none." })),
    formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Save lock date")));
    section.append(form);
    onSubmit(form, async () => {
      await put("/api/entities", { id: e.id, lock_date: val(form, "lock_date") || null });
      await loadEntities();
      toast("Lock date saved.");
    });
    return;
  }
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
