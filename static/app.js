// The sign-in page: shows who is signed in, or the sign-in and sign-up forms.

import { ApiError, get, post } from "./js/api.js";

const $ = (id) => document.getElementById(id);
const views = ["loading", "signed-in", "sign-in", "sign-up"];

function show(view) {
  for (const id of views) $(id).hidden = id !== view;
  const first = $(view).querySelector("input, button");
  if (first && view !== "loading") first.focus();
}

function showUser(user) {
  $("who").textContent = user.email;
  show("signed-in");
}

// The form's alert region: setting its text announces it to screen readers.
function setError(form, message) {
  form.querySelector(".error").textContent = message;
}

const field = (form, name) => form.elements.namedItem(name).value;

async function submit(form, path, body) {
  const button = form.querySelector("button[type=submit]");
  setError(form, "");
  button.disabled = true;
  form.setAttribute("aria-busy", "true");
  try {
    const { data } = await post(path, body);
    form.reset();
    showUser(data);
  } catch (e) {
    setError(form, e instanceof ApiError ? e.message : String(e));
  } finally {
    button.disabled = false;
    form.removeAttribute("aria-busy");
  }
}

function start() {
  $("sign-in-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.currentTarget;
    submit(f, "/api/auth/login", {
      email: field(f, "email"),
      password: field(f, "password"),
    });
  });

  $("sign-up-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.currentTarget;
    const body = { email: field(f, "email"), password: field(f, "password") };
    const name = field(f, "name").trim();
    if (name) body.name = name;
    submit(f, "/api/auth/signup", body);
  });

  $("sign-out").addEventListener("click", async () => {
    try {
      await post("/api/auth/logout", {});
    } catch (e) {
      // A session that has already ended is as good as signed out.
      if (!(e instanceof ApiError) || e.status !== 401) {
        alert(e.message);
        return;
      }
    }
    show("sign-in");
  });

  for (const b of document.querySelectorAll("[data-show]")) {
    b.addEventListener("click", () => show(b.dataset.show));
  }

  get("/api/auth/me")
    .then(({ data }) => showUser(data))
    .catch(() => show("sign-in"));
}

start();
