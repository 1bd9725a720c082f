// Settings → Security (docs/auth.md#two-factor-sign-in): two-factor sign-in set up with
// the QR code the server draws, the recovery codes shown once, turning it off, and the
// current business's "require two-factor sign-in" (docs/auth.md#requiring-two-factor).

import { get, post, put } from "../api.js";
import { loadEntities, state } from "../state.js";
import { field, fill, formError, h, loadError, notice, onSubmit, toast, val } from "../ui.js";

/** Fills `section` (headed "Security") and keeps it up to date. */
export async function securitySection(section, ctx) {
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const shown = h("div", { "aria-live": "polite" });
  const requireArea = h("div");
  section.append(shown, area, requireArea);

  async function load() {
    try {
      const { data } = await get("/api/auth/2fa");
      if (!ctx.alive()) return;
      fill(area, data.enabled ? turnOffCard(data) : setUpCard());
      fill(requireArea, requireCard(data.enabled));
    } catch (e) {
      if (ctx.alive()) fill(area, loadError(e, "two-factor sign-in"));
    }
  }

  function setUpCard() {
    const start = h("button", { type: "button" }, "Set up two-factor sign-in");
    const card = h("div", { class: "card" },
      h("h3", {}, "Two-factor sign-in is off"),
      h("p", {}, "With it on, signing in needs your password and a code from an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password and others)."),
      h("div", { class: "actions" }, start));
    start.addEventListener("click", async () => {
      start.disabled = true;
      try {
        const { data } = await post("/api/auth/2fa/setup", {});
        if (ctx.alive()) fill(card, ...confirmSteps(data));
      } catch (e) {
        fill(card, loadError(e, "the set-up"));
      }
    });
    return card;
  }

  function confirmSteps(setup) {
    const form = h("form", { class: "security-confirm" });
    form.append(
      field({ label: "Code from the app", name: "code", required: true, autocomplete: "one-time-code", inputmode: "numeric", hint: "The six digits the app shows now." }),
      formError(),
      h("div", { class: "actions" }, h("button", { type: "submit" }, "Turn on two-factor sign-in")));
    onSubmit(form, async () => {
      const { data } = await post("/api/auth/2fa/enable", { code: val(form, "code") });
      showCodesOnce(data.recovery_codes);
      await load();
    });
    const qr = h("img", {
      class: "qr-code",
      src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`,
      alt: "QR code to scan with your authenticator app",
      width: "200",
      height: "200",
    });
    return [
      h("h3", {}, "Set up two-factor sign-in"),
      h("ol", {},
        h("li", {}, "Scan this code with your authenticator app."),
        h("li", {}, "Or type this key into it: ", h("code", { class: "totp-secret" }, setup.secret)),
        h("li", {}, "Enter the code the app shows.")),
      qr,
      form,
    ];
  }

  function showCodesOnce(codes) {
    const done = h("button", { type: "button" }, "I have saved them");
    done.addEventListener("click", () => fill(shown));
    fill(shown, notice("warn",
      h("p", {}, h("strong", {}, "Two-factor sign-in is on. "), "Save these recovery codes somewhere safe: each signs you in once without the app. They are shown only this once."),
      h("ul", { class: "recovery-codes" }, codes.map((c) => h("li", {}, h("code", {}, c)))),
      h("div", { class: "actions" }, done)));
    done.focus();
  }

  function turnOffCard(status) {
    const form = h("form", { class: "card" });
    form.append(
      h("h3", {}, "Two-factor sign-in is on"),
      h("p", {}, `Recovery codes left: ${status.recovery_codes_left}.`),
      field({ label: "Code from the app, or a recovery code", name: "code", required: true, autocomplete: "one-time-code" }),
      formError(),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "danger secondary" }, "Turn off two-factor sign-in")));
    onSubmit(form, async () => {
      await post("/api/auth/2fa/disable", { code: val(form, "code") });
      toast("Two-factor sign-in is off.");
      await load();
    });
    return form;
  }

  function requireCard(enabled) {
    const e = state.entity;
    const form = h("form", { class: "card" });
    form.append(
      h("h3", {}, `Require two-factor sign-in for ${e.name}`),
      field({ label: "Everyone working on this business must sign in with a second factor", name: "require_2fa", type: "checkbox", value: !!e.require_2fa,
        hint: enabled ? "People without it are stopped until they turn it on." : "Turn on your own two-factor sign-in first." }),
      formError(),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary" }, "Save")));
    onSubmit(form, async () => {
      await put("/api/entities", { id: e.id, require_2fa: val(form, "require_2fa") });
      await loadEntities();
      toast("Saved.");
    });
    return form;
  }

  await load();
}
