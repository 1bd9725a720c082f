// The hash router: `#/products`, `#/warehouses/<id>`, `#/movements?type=sale`. Each route
// is a page module under `pages/`, loaded on first use, with
// `render(view, ctx)`; `ctx.alive()` turns false once the user has moved on, so a slow
// answer never draws over the next page.

import { mayChange, mayOpen, role } from "./roles.js";
import { h, loadError } from "./ui.js";

const ROUTES = {
  dashboard: () => import("./pages/dashboard.js"),
  products: () => import("./pages/products.js"),
  warehouses: () => import("./pages/warehouses.js"),
  movements: () => import("./pages/movements.js"),
  transfers: () => import("./pages/transfers.js"),
  "stock-takes": () => import("./pages/stock_takes.js"),
  valuation: () => import("./pages/valuation.js"),
  contacts: () => import("./pages/contacts.js"),
  invoices: () => import("./pages/invoices.js"),
  bills: () => import("./pages/bills.js"),
  "credit-notes": () => import("./pages/credit_notes.js"),
  "supplier-credits": () => import("./pages/supplier_credits.js"),
  "gross-margin": () => import("./pages/gross_margin.js"),
  expenses: () => import("./pages/expenses.js"),
  projects: () => import("./pages/projects.js"),
  time: () => import("./pages/time.js"),
  recurring: () => import("./pages/recurring.js"),
  vat: () => import("./pages/vat.js"),
  import: () => import("./pages/import.js"),
  settings: () => import("./pages/settings.js"),
  print: () => import("./pages/print.js"),
  invite: () => import("./pages/invite.js"),
  activity: () => import("./pages/activity.js"),
};

let generation = 0;
let view = null;

export function parseHash(hash = location.hash) {
  const raw = hash.replace(/^#\/?/, "");
  const [path, qs = ""] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { name: parts[0] || "dashboard", params: parts.slice(1), query: new URLSearchParams(qs) };
}

export function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

/** Re-renders the current page (after an entity switch, for example). */
export async function render({ focus = true } = {}) {
  const gen = ++generation;
  const route = parseHash();
  const load = ROUTES[route.name];
  for (const a of document.querySelectorAll(".sidenav a")) {
    const target = a.getAttribute("href").slice(2);
    if (target === route.name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  // A page the role cannot change shows no buttons that change it (docs/auth.md#members-and-roles).
  document.body.dataset.readOnly = String(!mayChange(route.name));
  if (load && !mayOpen(route.name)) {
    view.replaceChildren(h("h1", { tabindex: "-1" }, "Not for your role"),
      h("p", {}, `Your role in this business (${role()}) does not include this page. `,
        h("a", { href: "#/dashboard" }, "Go to the dashboard"), "."));
    return;
  }
  if (!load) {
    view.replaceChildren(h("h1", { tabindex: "-1" }, "Page not found"),
      h("p", {}, "There is no page at this address. ", h("a", { href: "#/dashboard" }, "Go to the dashboard"), "."));
    return;
  }
  view.setAttribute("aria-busy", "true");
  const ctx = {
    ...route,
    alive: () => gen === generation,
    go,
    refresh: () => render({ focus: false }),
  };
  try {
    const page = await load();
    if (!ctx.alive()) return;
    const root = h("div", { class: `page page-${route.name}` });
    view.replaceChildren(root);
    document.title = `${page.title || "Stockbook"} · Stockbook`;
    await page.render(root, ctx);
  } catch (e) {
    console.error(e);
    if (ctx.alive()) view.replaceChildren(h("h1", { tabindex: "-1" }, "Something went wrong"), loadError(e));
  } finally {
    if (ctx.alive()) {
      view.removeAttribute("aria-busy");
      if (focus) {
        const h1 = view.querySelector("h1");
        if (h1) h1.focus({ preventScroll: true });
      }
    }
  }
}

export function start(viewEl) {
  view = viewEl;
  window.addEventListener("hashchange", () => render());
  render();
}
