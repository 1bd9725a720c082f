// What the signed-in user's role in the current business lets them use
// (docs/auth.md#members-and-roles). The menu shows only the pages the role may open, and
// on a page whose records the role may read but not change the buttons that change them
// are not shown. The server refuses them anyway: this only spares the user a refusal.

import { state } from "./state.js";

/** The role table of docs/auth.md#members-and-roles: who may what. */
const MAY = {
  readStock: ["owner", "manager", "staff", "accountant", "viewer"],
  writeStock: ["owner", "manager", "staff"],
  readBooks: ["owner", "manager", "accountant", "viewer"],
  writeBooks: ["owner", "manager", "accountant"],
  vat: ["owner", "accountant"],
  admin: ["owner", "manager"],
  owner: ["owner"],
};

/** Each page: what opening it needs, and what changing its records needs. */
const PAGES = {
  dashboard: ["readStock", "writeStock"],
  products: ["readStock", "writeStock"],
  warehouses: ["readStock", "writeStock"],
  movements: ["readStock", "writeStock"],
  transfers: ["readStock", "writeStock"],
  "stock-takes": ["readStock", "writeStock"],
  valuation: ["readBooks", "readBooks"],
  contacts: ["readBooks", "writeBooks"],
  invoices: ["readBooks", "writeBooks"],
  bills: ["readBooks", "writeBooks"],
  "credit-notes": ["readBooks", "writeBooks"],
  "supplier-credits": ["readBooks", "writeBooks"],
  "gross-margin": ["readBooks", "readBooks"],
  expenses: ["readBooks", "writeBooks"],
  projects: ["readBooks", "writeBooks"],
  time: ["readBooks", "writeBooks"],
  recurring: ["readBooks", "writeBooks"],
  vat: ["readBooks", "vat"],
  import: ["admin", "admin"],
  settings: ["readStock", "readStock"],
  invite: ["readStock", "readStock"],
};

/** The user's role in the business the app shows. */
export const role = () => state.entity?.role ?? "owner";

/** Whether the role may `what` (a key of the table). */
export const may = (what) => MAY[what].includes(role());

export const mayOpen = (page) => !PAGES[page] || may(PAGES[page][0]);
export const mayChange = (page) => !PAGES[page] || may(PAGES[page][1]);

/** Shows the menu's pages the role may open, and hides a group left empty. */
export function applyRole() {
  const nav = document.getElementById("main-nav");
  for (const a of nav.querySelectorAll("a")) {
    const page = a.getAttribute("href").slice(2);
    a.closest("li").hidden = !mayOpen(page);
  }
  for (const list of nav.querySelectorAll("ul")) {
    const empty = [...list.children].every((li) => li.hidden);
    list.hidden = empty;
    const heading = list.previousElementSibling;
    if (heading?.classList.contains("nav-group")) heading.hidden = empty;
  }
}
