// An invitation link opened while signed in (docs/auth.md#members-and-roles): the user
// confirms with their password and joins the business. Signed out, the sign-up and
// sign-in forms take the invitation instead (app.js).

import { post } from "../api.js";
import { state } from "../state.js";
import { field, formError, h, onSubmit, pageHeader } from "../ui.js";

export const title = "Join a business";

export async function render(root, ctx) {
  const token = ctx.query.get("token");
  root.append(pageHeader("Join a business"));
  if (!token) {
    root.append(h("p", {}, "This invitation link has no token: ask for the link again."));
    return;
  }
  const form = h("form", { class: "card" },
    h("p", {}, `You are signed in as ${state.user.email}. Enter your password to accept the invitation with this account.`),
    field({ label: "Password", name: "password", type: "password", required: true, autocomplete: "current-password" }),
    formError(),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Join")));
  root.append(form);
  onSubmit(form, async () => {
    await post("/api/auth/login", {
      email: state.user.email,
      password: form.elements.namedItem("password").value,
      invite_token: token,
    });
    location.hash = "#/dashboard";
    location.reload();
  });
}
