// Stockbook's web app: signs in (or up), makes sure a business (entity) exists, then
// hands the page area to the hash router. Every page lives in `js/pages/`.

import { ApiError, get, onUnauthorized, post } from "./js/api.js";
import { keepFocus } from "./js/focus.js";
import { setUpMenu } from "./js/menu.js";
import { go, render, start } from "./js/router.js";
import { watchStorage } from "./js/storage.js";
import { applyRole } from "./js/roles.js";
import { chooseEntity, forget, loadEntities, state } from "./js/state.js";
import { clearErrors, field, formDialog, formError, h, onSubmit, showError, val } from "./js/ui.js";

const $ = (id) => document.getElementById(id);
const screens = ["loading", "auth", "first-entity", "app"];
let routerStarted = false;

function showScreen(id) {
  for (const s of screens) $(s).hidden = s !== id;
  $("skip-menu").hidden = id !== "app";
}

function showAuth(which = "sign-in") {
  showScreen("auth");
  $("sign-in").hidden = which !== "sign-in";
  $("sign-up").hidden = which !== "sign-up";
  $(which).querySelector("input").focus();
}

/**
 * The signed-out screen as the installation stands (docs/auth.md#sign-up-status): with no
 * account yet it opens on creating the first one (and offers no sign-in); once sign-up is
 * closed there is no "Create one" link. If the status cannot be read, sign-in with both.
 */
async function showSignedOut() {
  if (inviteToken()) {
    showInvited();
    return;
  }
  let status = { signup: "open", users: true };
  try {
    status = (await get("/api/auth/status")).data;
  } catch {
    // Sign-in with every link is the safe default.
  }
  $("sign-up-switch").hidden = status.signup === "closed";
  $("sign-in-switch").hidden = !status.users;
  $("sign-up-first").hidden = status.users;
  showAuth(status.users ? "sign-in" : "sign-up");
}

/** The token of an invitation link (`#/invite?token=...`) this page was opened on. */
function inviteToken() {
  const [path, qs = ""] = location.hash.replace(/^#\/?/, "").split("?");
  return path === "invite" ? new URLSearchParams(qs).get("token") : null;
}

/**
 * Signed out on an invitation link (docs/auth.md#members-and-roles): create an account or
 * sign in to join; either form sends the token. Sign-up is offered even when it is
 * otherwise closed.
 */
function showInvited() {
  const note = $("invite-note");
  note.hidden = false;
  $("sign-up-switch").hidden = false;
  $("sign-in-switch").hidden = false;
  $("sign-up-first").hidden = true;
  showAuth("sign-up");
}

/** Adds the invitation token, if any, to a sign-up or sign-in body. */
function withInvite(body) {
  const token = inviteToken();
  return token ? { ...body, invite_token: token } : body;
}

async function signedIn(user) {
  if (inviteToken()) history.replaceState(null, "", "#/dashboard");
  $("invite-note").hidden = true;
  state.user = user;
  await loadEntities();
  if (!state.entity) {
    showFirstEntity();
    return;
  }
  showApp();
}

function entityFields(form, entity = {}) {
  form.append(
    field({ label: "Business name", name: "name", required: true, value: entity.name, autocomplete: "organization" }),
    field({ label: "VAT number", name: "vat_number", value: entity.vat_number, hint: "Optional, for example GB123456789." }),
    field({ label: "Address", name: "address", type: "textarea", value: entity.address }),
  );
}

function entityBody(form) {
  const body = { name: val(form, "name") };
  if (val(form, "vat_number")) body.vat_number = val(form, "vat_number");
  if (val(form, "address")) body.address = val(form, "address");
  return body;
}

function showFirstEntity() {
  showScreen("first-entity");
  const form = $("first-entity-form");
  if (!form.dataset.ready) {
    form.dataset.ready = "1";
    entityFields(form);
    form.append(formError(), h("button", { type: "submit" }, "Create business"));
    onSubmit(form, async () => {
      const { data } = await post("/api/entities", entityBody(form));
      form.reset();
      await loadEntities();
      chooseEntity(data.id);
      showApp();
    });
  }
  form.querySelector("input").focus();
}

function fillEntitySelect() {
  const sel = $("entity-select");
  sel.replaceChildren(...state.entities.map((e) => h("option", { value: e.id }, e.name)));
  sel.value = state.entity.id;
}

function showApp() {
  showScreen("app");
  $("who").textContent = state.user.name || state.user.email;
  fillEntitySelect();
  applyRole();
  if (!location.hash || location.hash === "#" || location.hash === "#/") {
    history.replaceState(null, "", "#/dashboard");
  }
  if (!routerStarted) {
    routerStarted = true;
    start($("view"));
  } else {
    render();
  }
  refreshAlertBadge();
}

/** The low-stock badge beside "Dashboard" in the menu. */
export async function refreshAlertBadge() {
  const badge = $("alert-badge");
  try {
    const { data } = await get("/api/inventory/summary", { entityId: state.entity?.id });
    const n = Number(data.lowStockAlertCount) || 0;
    badge.hidden = n === 0;
    badge.textContent = String(n);
    badge.setAttribute("aria-label", `${n} low stock alert${n === 1 ? "" : "s"}`);
  } catch {
    badge.hidden = true;
  }
}
window.addEventListener("stockbook:stock-changed", refreshAlertBadge);

async function signOut() {
  try {
    await post("/api/auth/logout", {});
  } catch (e) {
    // A session that has already ended is as good as signed out.
    if (!(e instanceof ApiError) || e.status !== 401) {
      alert(e.message);
      return;
    }
  }
  forget();
  $("view").replaceChildren();
  await showSignedOut();
}

function authForm(id, path, body, refused = () => false) {
  const form = $(id);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const button = form.querySelector("button[type=submit]");
    clearErrors(form);
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    try {
      const { data } = await post(path, body(form));
      form.reset();
      await signedIn(data);
    } catch (e) {
      if (!refused(form, e)) showError(form, e);
    } finally {
      button.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });
}

function boot() {
  authForm("sign-in-form", "/api/auth/login", (f) => {
    const body = withInvite({ email: val(f, "email"), password: f.elements.namedItem("password").value });
    // Two-factor sign-in (docs/auth.md#two-factor-sign-in): six digits are the app's
    // code, anything else a recovery code.
    const code = val(f, "code").replace(/\s+/g, "");
    if (code) body[/^\d{6}$/.test(code) ? "totp" : "recovery_code"] = code;
    return body;
  }, (f, e) => {
    if (!(e instanceof ApiError) || e.status !== 401 || e.message !== "Two-factor code required") return false;
    const field = $("sign-in-code-field");
    field.hidden = false;
    f.elements.namedItem("code").focus();
    return true;
  });
  authForm("sign-up-form", "/api/auth/signup", (f) => {
    const body = { email: val(f, "email"), password: f.elements.namedItem("password").value };
    if (val(f, "name")) body.name = val(f, "name");
    return withInvite(body);
  });
  // The skip links move focus without touching the hash (the router owns it).
  const menu = setUpMenu();
  document.querySelector(".skip[href='#view']").addEventListener("click", (ev) => {
    ev.preventDefault();
    const target = [...document.querySelectorAll("#view, #auth main, #first-entity main")]
      .find((m) => m.offsetParent !== null);
    if (!target) return;
    target.setAttribute("tabindex", "-1");
    target.focus();
  });
  $("skip-menu").addEventListener("click", (ev) => {
    ev.preventDefault();
    if (!$("app").hidden) menu.reveal();
  });
  keepFocus($("view"));
  for (const b of document.querySelectorAll("[data-show]")) {
    b.addEventListener("click", () => showAuth(b.dataset.show));
  }
  for (const b of document.querySelectorAll("[data-sign-out]")) {
    b.addEventListener("click", signOut);
  }
  $("entity-select").addEventListener("change", (ev) => {
    chooseEntity(ev.target.value);
    applyRole();
    render();
    refreshAlertBadge();
  });
  $("entity-new").addEventListener("click", async () => {
    const created = await formDialog({
      title: "New business",
      submitLabel: "Create business",
      build: (form) => entityFields(form),
      submit: async (form) => (await post("/api/entities", entityBody(form))).data,
    });
    if (created) {
      await loadEntities();
      chooseEntity(created.id);
      fillEntitySelect();
      go("#/dashboard");
      refreshAlertBadge();
    }
  });
  onUnauthorized(async () => {
    if (!$("app").hidden) {
      forget();
      await showSignedOut();
      const err = $("sign-in-form").querySelector(".form-error");
      err.textContent = "Your session has ended. Sign in again.";
    }
  });

  watchStorage();
  get("/api/auth/me")
    .then(({ data }) => signedIn(data))
    .catch(() => showSignedOut());
}

boot();
