// The import wizard (docs/import.md#preview, docs/import.md#platforms): pick a platform
// or upload a CSV; see the detected platform and data type; remap columns; preview with
// row errors and the duplicates count; run it with a progress indicator; a result
// summary listing failed and skipped rows (docs/import.md#the-wizard). Fields are named
// in words. Also the API platform connections and "Connect FreeAgent". An `essential`
// installation answers 403 and the page explains the Pro plan instead.

import { ApiError, del, get, post } from "../api.js";
import { state } from "../state.js";
import {
  act, badge, confirmDialog, date, field, fill, formError, h, loadError, notice, onSubmit,
  pageHeader, table, toast, val,
} from "../ui.js";

export const title = "Import";

export const CSV_PLATFORMS = [
  ["", "Detect from the file"],
  ["xero", "Xero"],
  ["quickbooks", "QuickBooks"],
  ["sage_accounting", "Sage Accounting"],
  ["sage50", "Sage 50"],
  ["freeagent", "FreeAgent"],
  ["kashflow", "KashFlow"],
  ["zoho_books", "Zoho Books"],
  ["freshbooks", "FreshBooks"],
  ["generic", "Another program (map the columns yourself)"],
];

const API_PLATFORMS = {
  stripe: { label: "Stripe", credentials: [["api_key", "Secret API key", "password"]] },
  shopify: { label: "Shopify", credentials: [["shop", "Shop domain (example.myshopify.com)", "text"], ["access_token", "Admin API access token", "password"]] },
  square: { label: "Square", credentials: [["access_token", "Access token", "password"]] },
  paypal: { label: "PayPal", credentials: [["client_id", "Client ID", "text"], ["client_secret", "Client secret", "password"]] },
  gocardless: { label: "GoCardless", credentials: [["access_token", "Access token", "password"]] },
  woocommerce: { label: "WooCommerce", credentials: [["url", "Store address (https://…)", "url"], ["consumer_key", "Consumer key", "text"], ["consumer_secret", "Consumer secret", "password"]] },
};

export const DATA_TYPES = [
  ["contacts", "Contacts (customers and suppliers)"],
  ["products", "Products"],
  ["invoices", "Invoices"],
  ["bills", "Bills"],
  ["credit_notes", "Credit notes"],
  ["supplier_credits", "Supplier credits"],
  ["payments", "Payments (dated, against invoices and bills)"],
  ["expenses", "Expenses"],
  ["projects", "Projects"],
  ["time_entries", "Time entries"],
  ["subscriptions", "Subscriptions (recurring invoices)"],
];

// The import's target fields in words (docs/import.md#fields): a label and a line of
// explanation per field, so the wizard never shows `provider_ref` or `vat_number`.
// FIELD_TEXT_BY_TYPE words a field differently where one data type means it otherwise.
const FIELD_TEXT = {
  name: ["Name", "What the record is called."],
  type: ["Customer or supplier", "customer, supplier or both; customer when left out."],
  email: ["Email address", "Where invoices and reminders go."],
  phone: ["Phone number", "A main phone number."],
  address: ["Address", "Postal address. Several address columns (lines, town, postcode, country) are joined into one."],
  vat_number: ["VAT number", "The contact's VAT registration number, e.g. GB123456789."],
  provider_ref: ["Reference in the old program", "The record's ID or account code there, so a later import recognises it and skips it."],
  sku: ["SKU (stock code)", "Your code for the product; products are matched on it when importing again."],
  description: ["Description", "A longer description."],
  category: ["Category", "A category name; one is created when missing."],
  unit_price: ["Selling price", "Price per unit before VAT."],
  cost_price: ["Cost price", "What one unit costs you."],
  vat_rate: ["VAT rate", "A rate such as 20 or 20%, or the old program's tax code."],
  unit: ["Unit", "How it is counted: each, kg, box…"],
  barcode: ["Barcode", "EAN, UPC or your own barcode."],
  status: ["Status", "The record's status in the old program."],
  notes: ["Notes", "Anything else worth keeping."],
  number: ["Document number", "The invoice's or bill's number, e.g. INV-0042."],
  contact_name: ["Customer or supplier name", "Who the document is for; a contact is created when missing."],
  issue_date: ["Issue date", "The date on the document."],
  due_date: ["Due date", "When payment is due."],
  line_description: ["Line description", "What the line is for."],
  line_quantity: ["Quantity", "How many; 1 when left out."],
  line_unit_price: ["Unit price", "Price of one, before VAT."],
  line_discount: ["Discount", "A discount on the line, in per cent."],
  line_vat_rate: ["VAT rate", "A rate such as 20 or 20%, or the old program's tax code."],
  line_vat_treatment: ["VAT treatment", "Standard, zero-rated, exempt, outside the scope, reverse charge…"],
  line_sku: ["Product SKU", "Links the line to a product with this SKU."],
  total: ["Document total", "The total with VAT: the import checks its lines add up to it."],
  amount_paid: ["Amount paid", "What has been paid already; recorded as one payment."],
  paid_date: ["Date paid", "The date of that payment; the issue date when left out."],
  currency: ["Currency", "A three-letter code such as GBP or EUR."],
  exchange_rate: ["Exchange rate", "Pounds per one unit of the currency."],
  original_number: ["Number of the invoice credited", "The invoice or bill this credit is against."],
  original_ref: ["Reference of the document credited", "The old program's ID of the invoice or bill credited."],
  document_number: ["Invoice or bill number", "The document the payment is for."],
  document_ref: ["Invoice or bill reference", "The old program's ID of the document paid."],
  document_type: ["Invoice or bill", "Whether the payment is for an invoice or a bill."],
  date: ["Date", "The date it happened."],
  amount: ["Amount", "The amount in pounds (or the row's currency)."],
  method: ["Payment method", "Bank transfer, card, cash…"],
  reference: ["Payment reference", "The bank's or payer's reference."],
  vat_amount: ["VAT amount", "The VAT in the amount."],
  vat_treatment: ["VAT treatment", "Standard, zero-rated, exempt, outside the scope, reverse charge…"],
  project_name: ["Project", "The project's name; one is created when missing."],
  hourly_rate: ["Hourly rate", "Price of an hour."],
  budget: ["Budget", "The project's budget."],
  hours: ["Hours", "Time spent, in hours."],
  billable: ["Billable", "Whether the time is charged to the customer."],
  interval: ["How often", "weekly, monthly, quarterly or yearly."],
  interval_count: ["Every how many", "2 with monthly is every two months."],
  next_date: ["Next invoice date", "When the next invoice is made."],
};
const FIELD_TEXT_BY_TYPE = {
  contacts: { name: ["Contact name", "The customer's or supplier's name; contacts are matched on it when importing again."] },
  products: {
    name: ["Product name", "What the product is called."],
    status: ["Active or archived", "An archived or inactive product is imported as inactive."],
  },
  projects: { name: ["Project name", "What the project is called."], contact_name: ["Customer", "The project's customer."] },
  time_entries: { description: ["Work done", "What the time was spent on."] },
  expenses: { description: ["What it was for", "The expense's description."], amount: ["Amount", "The amount with VAT."] },
};
export function fieldText(entityType, name) {
  return FIELD_TEXT_BY_TYPE[entityType]?.[name] ?? FIELD_TEXT[name] ?? [name.replace(/_/g, " "), ""];
}

const platformName = (id) => CSV_PLATFORMS.find(([v]) => v === id)?.[1]
  ?? API_PLATFORMS[id]?.label ?? (id === "freeagent" ? "FreeAgent" : id);
// The platforms that connect over OAuth, by id, and the message for each error code of
// the OAuth callback's redirect (src/import/oauth.rs OAuthFailure).
const OAUTH_PLATFORMS = { freeagent: "FreeAgent" };
const OAUTH_ERRORS = {
  access_denied: (p) => `${p} did not grant access, so nothing was connected. Connect again to retry.`,
  no_code: (p) => `${p} sent no authorisation code, so nothing was connected. Connect again to retry.`,
  exchange_failed: (p) => `${p} did not accept the authorisation, so nothing was connected. Connect again; if it fails again, the server's log says why.`,
};
function oauthError(code, platform) {
  const message = Object.hasOwn(OAUTH_ERRORS, code) ? OAUTH_ERRORS[code] : null;
  if (!message) return "The connection did not complete, so nothing was connected. Connect again to retry.";
  return message(Object.hasOwn(OAUTH_PLATFORMS, platform) ? OAUTH_PLATFORMS[platform] : "The platform");
}
const typeName = (id) => DATA_TYPES.find(([v]) => v === id)?.[1] ?? id;

function proPlan() {
  return h("div", { class: "card" },
    h("h2", {}, "Importing needs the Pro plan"),
    h("p", {}, "This Stockbook installation runs the ", h("strong", {}, "Essential"), " plan. On Essential you enter contacts, products, invoices, bills and expenses yourself, and everything else in Stockbook works as usual."),
    h("p", {}, "The ", h("strong", {}, "Pro"), " plan adds importing from other platforms:"),
    h("ul", {},
      h("li", {}, "CSV exports from Xero, QuickBooks, Sage Accounting, Sage 50, FreeAgent, KashFlow, Zoho Books and FreshBooks, or any CSV with your own column mapping;"),
      h("li", {}, "direct pulls from Stripe, Shopify, Square, PayPal, GoCardless and WooCommerce;"),
      h("li", {}, "connecting FreeAgent once and bringing everything across.")),
    h("p", {}, "Whoever runs this server switches plans with the ", h("code", {}, "plan"), " setting (", h("code", {}, "plan = \"pro\""), " in Rocket.toml, or ", h("code", {}, "ROCKET_PLAN=pro"), ")."));
}

export async function render(root, ctx) {
  root.append(pageHeader("Import"),
    h("p", { class: "lead" }, "Bring your records over from another program. Duplicates are skipped, so importing the same file twice is safe."));
  // The address says how a connection ended, but anyone can write a link: only fixed
  // words are shown, chosen by a known code or platform id (docs/import.md#oauth).
  const connected = ctx.query.get("connected");
  if (connected && Object.hasOwn(OAUTH_PLATFORMS, connected)) root.append(notice("ok", `${OAUTH_PLATFORMS[connected]} is connected.`));
  else if (ctx.query.has("error")) root.append(notice("error", oauthError(ctx.query.get("error"), ctx.query.get("platform"))));

  // The connections list doubles as the plan check.
  let connections;
  try {
    connections = (await get("/api/import/connections", { entityId: state.entity.id })).data;
  } catch (e) {
    if (!ctx.alive()) return;
    if (e instanceof ApiError && e.status === 403) {
      root.append(proPlan());
      return;
    }
    root.append(loadError(e, "importing"));
    return;
  }
  if (!ctx.alive()) return;
  const wizard = h("section", { class: "wizard", "aria-labelledby": "wiz-title" }, h("h2", { id: "wiz-title" }, "Import from a CSV file"));
  const pull = h("section", { "aria-labelledby": "pull-title" }, h("h2", { id: "pull-title" }, "Pull from a connected platform"));
  const conns = h("section", { "aria-labelledby": "conn-title" }, h("h2", { id: "conn-title" }, "Platform connections"));
  root.append(wizard, pull, conns);
  csvWizard(wizard);
  pullForm(pull, connections);
  connectionsPanel(conns, connections, ctx);
}

// ---------------------------------------------------------------------------------------
// CSV wizard
// ---------------------------------------------------------------------------------------

const STEPS = ["Choose a file", "Check and map", "Import", "Result"];

function csvWizard(section) {
  const steps = h("ol", { class: "steps", "aria-label": "Steps" }, STEPS.map((s) => h("li", {}, s)));
  const body = h("div");
  section.append(steps, body);
  const setStep = (n) => {
    [...steps.children].forEach((li, i) => {
      li.classList.toggle("done", i < n);
      if (i === n) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    });
  };
  const job = { csv: "", fileName: "", platform: "", entityType: "", mapping: null, preview: null, fillBlanks: false };

  function stepFile() {
    setStep(0);
    const form = h("form", { class: "card" });
    const fileField = field({ label: "CSV file", name: "file", type: "file", accept: ".csv,text/csv", required: true, hint: "An export from your old program, with a header row." });
    h(form, {},
      h("fieldset", {}, h("legend", {}, "Where does the file come from?"),
        h("div", { class: "platforms", role: "radiogroup" }, CSV_PLATFORMS.map(([v, l]) =>
          h("label", {}, h("input", { type: "radio", name: "platform", value: v, checked: v === job.platform }), l)))),
      h("div", { class: "form-grid" },
        field({ label: "Kind of data", name: "entityType", type: "select", value: job.entityType,
          options: [{ value: "", label: "Detect from the file" }, ...DATA_TYPES.map(([v, l]) => ({ value: v, label: l }))] }),
        fileField),
      formError(),
      h("div", { class: "actions" }, h("button", { type: "submit" }, "Preview")));
    fill(body, form);
    onSubmit(form, async () => {
      const file = fileField.control.files[0];
      if (!file && !job.csv) throw new Error("Missing required field: file");
      if (file) {
        job.csv = await file.text();
        job.fileName = file.name;
      }
      job.platform = form.querySelector("input[name=platform]:checked")?.value ?? "";
      job.entityType = val(form, "entityType");
      job.mapping = null;
      job.fillBlanks = false;
      await preview(form);
    });
  }

  async function preview(form) {
    const req = { mode: "csv", csv: job.csv, entity_id: state.entity.id };
    if (job.platform) req.platform = job.platform;
    if (job.entityType) req.entityType = job.entityType;
    if (job.mapping) req.mapping = job.mapping;
    if (job.fillBlanks && job.entityType === "contacts") req.fillBlanks = true;
    try {
      job.preview = (await post("/api/import/preview", req)).data;
    } catch (e) {
      // The file step names the field `csv`; show it by the file input.
      e.message = e.message.replace("`csv`", "`file`");
      throw e;
    }
    if (form) stepMap();
  }

  function stepMap() {
    setStep(1);
    const p = job.preview;
    job.entityType = p.entityType || job.entityType;
    job.platform = p.platform || job.platform;
    const fields = p.fields || [];
    const mapped = new Set(Object.values(p.mapping || {}).filter(Boolean));
    const missing = Array.isArray(p.missingRequired)
      ? p.missingRequired
      : fields.filter((f) => f.required && !mapped.has(f.name)).map((f) => f.name);
    const detectedText = p.platform === "generic" && !p.detected
      ? "Generic CSV: you map the columns"
      : p.detected
        ? `${platformName(p.platform)}, recognised${p.layout ? ` as ${p.layout}` : ""}`
        : `${platformName(p.platform)}, not recognised: check the column mapping`;

    const form = h("form", { class: "card mapping" });
    const errors = p.errors || [];
    h(form, {},
      h("dl", { class: "facts", id: "import-facts" },
        h("dt", {}, "File"), h("dd", {}, job.fileName || "—"),
        h("dt", {}, "Platform"), h("dd", { id: "import-platform" }, detectedText),
        h("dt", {}, "Kind of data"), h("dd", { id: "import-type" }, typeName(p.entityType)),
        h("dt", {}, "Rows"), h("dd", { id: "import-rows" }, String(p.totalRows)),
        h("dt", {}, "Already in Stockbook"), h("dd", { id: "import-duplicates" }, duplicatesText(p)),
        h("dt", {}, "Rows with errors"), h("dd", { id: "import-errors" }, String(errors.length)),
        Number(p.leftOut) ? [h("dt", {}, "Left out"), h("dd", {}, `${p.leftOut} rows of other kinds of data`)] : null),
      missing.length ? notice("warn", `Required fields not mapped: ${missing.join(", ")}. Choose a column for each below, then update the preview.`) : null,
      (p.notes || []).map((n) => notice("info", n)),
      h("h3", {}, "Columns"),
      h("p", { class: "hint" }, "Each column of the file goes into one Stockbook field, or is ignored."),
      table({
        caption: "Column mapping",
        rows: p.headers || [],
        columns: [
          { label: "Column in the file", header: true, cell: (hd) => hd },
          { label: "Stockbook field", cell: (hd) => {
            const f = field({ label: `Field for column ${hd}`, name: `map:${hd}`, type: "select", value: (p.mapping || {})[hd] ?? "",
              options: [{ value: "", label: "Ignore this column" }, ...fields.map((x) => ({ value: x.name, label: `${fieldText(p.entityType, x.name)[0]}${x.required ? " (required)" : ""}` }))] });
            f.querySelector("label").classList.add("sr-only");
            f.classList.add("cell");
            return f;
          } },
          { label: "What goes there", cell: (hd) => {
            const name = (p.mapping || {})[hd] ?? "";
            return h("span", { class: "hint field-about" }, aboutField(p.entityType, name));
          } },
        ],
      }),
      p.entityType === "contacts" ? field({ label: "Update what is blank in records that already exist", name: "fillBlanks", type: "checkbox", value: job.fillBlanks,
        hint: "A contact already in Stockbook gets the email, phone, address or VAT number it lacks from this file. Nothing already filled in is changed." }) : null,
      errors.length ? [h("h3", {}, "Rows with errors (they will be skipped)"), table({
        caption: "Rows with errors",
        rows: errors.slice(0, 100),
        columns: [{ label: "Row", num: true, cell: (e) => String(e.row) }, { label: "Problem", cell: (e) => e.message }],
      })] : null,
      h("h3", {}, `Preview (first ${Math.min(20, (p.rows || []).length)} rows)`),
      previewTable(p),
      formError(),
      h("div", { class: "actions" },
        h("button", { type: "submit", value: "run", disabled: missing.length > 0 }, `Import ${p.totalRows} rows`),
        h("button", { type: "submit", value: "remap", class: "secondary" }, "Update preview"),
        h("button", { type: "button", class: "secondary", onclick: stepFile }, "Back")));
    fill(body, form);
    // The line of explanation follows the field chosen for the column.
    form.addEventListener("change", (ev) => {
      const t = ev.target;
      if (!t.name?.startsWith("map:")) return;
      const about = t.closest("tr")?.querySelector(".field-about");
      if (about) about.textContent = aboutField(p.entityType, t.value);
    });
    onSubmit(form, async (submitter) => {
      const mapping = {};
      for (const hd of p.headers || []) mapping[hd] = val(form, `map:${hd}`) || null;
      job.mapping = mapping;
      job.fillBlanks = p.entityType === "contacts" && val(form, "fillBlanks") === true;
      if (submitter?.value === "remap") {
        await preview(form);
        return;
      }
      await run();
    });
    form.querySelector("select")?.focus();
  }

  async function run() {
    setStep(2);
    const total = job.preview.totalRows;
    fill(body, h("div", { class: "card", "aria-live": "polite" },
      h("p", {}, `Importing ${total} rows of ${typeName(job.entityType).toLowerCase()}…`),
      h("progress", { "aria-label": "Import progress" }),
      h("p", { class: "hint" }, "The import runs as one step: if anything fails, nothing is kept.")));
    const req = { entityType: job.entityType, csv: job.csv, entity_id: state.entity.id };
    if (job.platform) req.platform = job.platform;
    if (job.mapping) req.mapping = job.mapping;
    if (job.fillBlanks) req.fillBlanks = true;
    let result;
    try {
      result = (await post("/api/import/csv", req)).data;
    } catch (e) {
      setStep(1);
      fill(body, notice("error", h("strong", {}, "The import did not run. "), e.message),
        h("div", { class: "actions" }, h("button", { type: "button", onclick: stepMap }, "Back to the preview")));
      return;
    }
    setStep(3);
    fill(body, resultSummary(result, typeName(job.entityType), true),
      h("div", { class: "actions" }, h("button", { type: "button", onclick: () => { job.csv = ""; job.fileName = ""; job.mapping = null; stepFile(); } }, "Import another file")));
  }

  stepFile();
}

function aboutField(entityType, name) {
  return name ? fieldText(entityType, name)[1] : "Not imported.";
}

function duplicatesText(p) {
  const n = Number(p.duplicates);
  const dups = `${n} duplicate${n === 1 ? "" : "s"} (will be skipped)`;
  if (p.updated === undefined) return dups;
  return `${p.updated} to have blanks filled; ${dups}`;
}

function previewTable(p) {
  const rows = p.rows || [];
  const keys = [];
  for (const r of rows) {
    for (const [k, v] of Object.entries(r || {})) {
      if (k !== "row" && !keys.includes(k) && v !== null && v !== undefined && v !== "") keys.push(k);
    }
  }
  return table({
    caption: "Preview of the mapped rows",
    rows,
    empty: "No rows.",
    columns: [{ label: "Row", num: true, cell: (r) => String(r.row ?? "") },
      ...keys.map((k) => ({ label: fieldText(p.entityType, k)[0], cell: (r) => cellText(r[k]) }))],
  });
}

function cellText(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function resultSummary(r, what, ids = false) {
  const failed = r.failed || [];
  const skipped = r.skippedRows || [];
  const id = (s) => (ids ? s : null);
  return h("div", { class: "card import-result", id: id("import-result") },
    h("h3", {}, `Imported ${what.toLowerCase()}`),
    h("dl", { class: "facts" },
      h("dt", {}, "Imported"), h("dd", { id: id("result-imported") }, String(r.imported)),
      r.updated !== undefined ? [h("dt", {}, "Existing records with blanks filled"), h("dd", { id: id("result-updated") }, String(r.updated))] : null,
      h("dt", {}, "Skipped as duplicates"), h("dd", { id: id("result-skipped") }, String(r.skipped)),
      h("dt", {}, "Failed"), h("dd", { id: id("result-failed") }, String(r.errorCount ?? failed.length))),
    failed.length ? table({
      caption: "Rows that failed",
      rows: failed,
      columns: [{ label: "Row", num: true, cell: (e) => String(e.row) }, { label: "Problem", cell: (e) => e.message }],
    }) : null,
    skipped.length ? [
      h("h4", {}, "Rows skipped"),
      skipped.length < Number(r.skipped) ? h("p", { class: "hint" }, `The first ${skipped.length} of ${r.skipped} are listed.`) : null,
      table({
        caption: "Rows skipped, with the reason",
        rows: skipped,
        columns: [{ label: "Row", num: true, cell: (e) => String(e.row) }, { label: "Why it was skipped", cell: (e) => e.reason }],
      })] : null);
}

// ---------------------------------------------------------------------------------------
// Pulls and connections
// ---------------------------------------------------------------------------------------

function pullForm(section, connections) {
  if (!connections.length) {
    section.append(h("p", { class: "muted" }, "Connect a platform below to pull its customers, products, invoices, orders and subscriptions."));
    return;
  }
  const form = h("form", { class: "card" });
  const platforms = [...new Set(connections.map((c) => c.platform))];
  const out = h("div", { "aria-live": "polite" });
  form.append(h("div", { class: "form-grid" },
    field({ label: "Platform", name: "platform", type: "select", options: platforms.map((p) => ({ value: p, label: platformName(p) })) }),
    field({ label: "Data", name: "entityType", type: "select", options: [{ value: "all", label: "Everything it has" }, ...DATA_TYPES.map(([v, l]) => ({ value: v, label: l }))] })),
  formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Pull now")), out);
  section.append(form);
  onSubmit(form, async () => {
    fill(out, h("p", {}, "Pulling… this can take a while for a large account."), h("progress", { "aria-label": "Pull progress" }));
    const platform = val(form, "platform");
    try {
      const { data } = await post("/api/import/migrate", { mode: platform === "freeagent" ? "oauth" : "api", platform, entityType: val(form, "entityType"), entity_id: state.entity.id });
      if (data && "imported" in data) fill(out, resultSummary(data, typeName(val(form, "entityType"))));
      else fill(out, Object.entries(data || {}).map(([t, r]) => (r && r.unavailable
        ? notice("info", `${typeName(t)}: ${r.unavailable}`)
        : resultSummary(r, typeName(t)))));
    } catch (e) {
      fill(out);
      throw e;
    }
  });
}

function connectionsPanel(section, connections, ctx) {
  section.append(table({
    caption: "Connected platforms",
    rows: connections,
    empty: "No platforms connected yet.",
    columns: [
      { label: "Platform", header: true, cell: (c) => platformName(c.platform) },
      { label: "Connected", cell: (c) => date(c.created_at || c.connected_at) },
      { label: "Last used", cell: (c) => (c.last_used_at ? date(c.last_used_at) : "Never") },
      { label: "Status", cell: (c) => (c.status === "active" ? badge("Active", "ok") : badge(c.status.replace(/_/g, " "), "warn")) },
      { label: "Actions", class: "num", cell: (c) => h("button", {
        type: "button", class: "danger secondary small", "aria-label": `Disconnect ${platformName(c.platform)}`,
        onclick: (ev) => act(ev.currentTarget, async () => {
          if (!(await confirmDialog(`Disconnect ${platformName(c.platform)}?`, { confirm: "Disconnect", danger: true, detail: "Stockbook forgets its credentials. Records already imported stay." }))) return;
          await del("/api/import/connections", { id: c.id });
          toast(`${platformName(c.platform)} disconnected.`);
          ctx.refresh();
        }),
      }, "Disconnect") },
    ],
  }));

  // FreeAgent: OAuth in the provider's own page.
  const oauthError = h("p", { class: "form-error", role: "alert" });
  const freeagent = h("button", { type: "button" }, "Connect FreeAgent");
  freeagent.addEventListener("click", () => act(freeagent, async () => {
    const { data } = await get("/api/import/oauth/start", { platform: "freeagent", entityId: state.entity.id });
    window.location.assign(data.authorize_url);
  }, oauthError));
  section.append(h("div", { class: "card" },
    h("h3", {}, "FreeAgent"),
    h("p", {}, "Sign in to FreeAgent and allow Stockbook to read your account; you come back here when done. The connection lasts until you revoke it in FreeAgent."),
    h("div", { class: "actions" }, freeagent), oauthError));

  // API platforms: credentials.
  const form = h("form", { class: "card" });
  const creds = h("div", { class: "form-grid" });
  const platform = field({ label: "Platform", name: "platform", type: "select",
    options: Object.entries(API_PLATFORMS).map(([v, p]) => ({ value: v, label: p.label })) });
  const drawCreds = () => {
    fill(creds, API_PLATFORMS[platform.control.value].credentials.map(([n, l, t]) =>
      field({ label: l, name: `credentials.${n}`, type: t, required: true, autocomplete: "off" })));
  };
  platform.control.addEventListener("change", drawCreds);
  drawCreds();
  form.append(h("h3", {}, "Connect a payment or shop platform"),
    h("p", { class: "hint" }, "The keys are kept on this server only to pull your data, and are never shown again."),
    h("div", { class: "form-grid" }, platform), creds, formError(),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Connect")));
  section.append(form);
  onSubmit(form, async () => {
    const p = platform.control.value;
    const credentials = {};
    for (const [n] of API_PLATFORMS[p].credentials) credentials[n] = val(form, `credentials.${n}`);
    await post("/api/import/connections", { platform: p, entity_id: state.entity.id, credentials });
    toast(`${API_PLATFORMS[p].label} connected.`);
    ctx.refresh();
  });
}
