// Settings → Webhooks (docs/webhooks.md): add a webhook choosing its events, see its
// signing secret once, pause, delete or test it, and read the recent deliveries with their
// status and error, redelivering any of them.

import { del, get, post, put } from "../api.js";
import { state } from "../state.js";
import {
  act, badge, confirmDialog, field, fill, formError, h, loadError, notice, onSubmit, table,
  toast, val,
} from "../ui.js";

/** An RFC 3339 timestamp as `2026-11-24 21:59:34 UTC`. */
const when = (s) => (s ? s.replace("T", " ").replace("Z", " UTC") : "—");

const STATUS_KIND = { delivered: "ok", pending: "warn", failed: "danger" };

export async function webhooksSection(section, ctx) {
  section.append(h("p", { class: "lead" },
    "Stockbook can tell other systems when something happens: it POSTs a signed JSON event to "
    + "each webhook's URL, and retries for a day when the receiver is down. The signing secret "
    + "is shown once, when the webhook is added."));
  const shown = h("div", { "aria-live": "polite" });
  const listArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const logTitle = h("h3", { id: "deliveries-title" }, "Recent deliveries");
  const logArea = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  let filter = null; // a webhook whose deliveries alone are shown

  const form = h("form", { class: "card", id: "webhook-form" });
  const scopeOptions = [{ value: "", label: "All my businesses" },
    ...state.entities.map((e) => ({ value: e.id, label: `Only ${e.name}` }))];
  const all = field({ label: "All events, including ones added later", name: "all_events", type: "checkbox", value: true });
  // The event types and their descriptions come from the server, with the webhook list
  // (its `event_types`), in the order the form lists them.
  let eventTypes = [];
  let boxes = [];
  const eventSet = h("fieldset", { "data-error-for": "events" }, h("legend", {}, "Events"), all);
  all.control.defaultChecked = true;
  const sync = () => boxes.forEach((b) => { b.control.disabled = all.control.checked; });
  all.control.addEventListener("change", sync);
  const showEvents = (types) => {
    if (boxes.length) return;
    eventTypes = types;
    boxes = eventTypes.map((e) => field({
      label: h("span", {}, h("code", {}, e.type), ` ${e.description}`), name: `event:${e.type}`, type: "checkbox", value: false,
    }));
    eventSet.append(...boxes);
    sync();
  };
  form.append(h("h3", {}, "Add a webhook"),
    h("div", { class: "form-grid" },
      field({ label: "URL", name: "url", type: "url", required: true, placeholder: "https://example.com/stockbook-events", hint: "An https:// address the receiver listens on.", wide: true }),
      field({ label: "Businesses", name: "entity_id", type: "select", options: scopeOptions, value: "" })),
    eventSet,
    formError(), h("div", { class: "actions" }, h("button", { type: "submit" }, "Add webhook")));
  section.append(shown, form, h("h3", {}, "Your webhooks"), listArea, logTitle, logArea);

  async function loadHooks() {
    try {
      const { data, event_types: types } = await get("/api/webhooks");
      if (!ctx.alive()) return;
      showEvents(types);
      const names = new Map(state.entities.map((e) => [e.id, e.name]));
      fill(listArea, table({
        caption: "Webhooks",
        rows: data,
        empty: "No webhooks yet.",
        rowProps: (w) => ({ class: w.active ? null : "inactive" }),
        columns: [
          { label: "URL", header: true, cell: (w) => h("code", {}, w.url) },
          { label: "Events", cell: (w) => (w.events.includes("*") ? "All events" : w.events.join(", ")) },
          { label: "Businesses", cell: (w) => (w.entity_id ? names.get(w.entity_id) ?? "One business" : "All businesses") },
          { label: "Status", cell: (w) => (w.active ? badge("Active", "ok") : badge("Paused", "muted")) },
          { label: "Actions", class: "num", cell: (w) => h("div", { class: "row-actions" },
            h("button", { type: "button", class: "secondary small", "aria-label": `Deliveries of ${w.url}`, onclick: () => { filter = w; loadLog(); } }, "Deliveries"),
            w.active ? h("button", {
              type: "button", class: "secondary small", "aria-label": `Send a test event to ${w.url}`,
              onclick: (ev) => act(ev.currentTarget, async () => {
                await post("/api/webhooks/test", { id: w.id });
                toast("Test event queued.");
                filter = w;
                loadLog();
              }),
            }, "Send test") : null,
            h("button", {
              type: "button", class: "secondary small", "aria-label": `${w.active ? "Pause" : "Resume"} ${w.url}`,
              onclick: (ev) => act(ev.currentTarget, async () => {
                await put("/api/webhooks", { id: w.id, active: !w.active });
                loadHooks();
              }),
            }, w.active ? "Pause" : "Resume"),
            h("button", {
              type: "button", class: "danger secondary small", "aria-label": `Delete ${w.url}`,
              onclick: (ev) => act(ev.currentTarget, async () => {
                if (!(await confirmDialog("Delete this webhook?", { confirm: "Delete", danger: true, detail: `${w.url} gets no more events; its undelivered events are dropped.` }))) return;
                await del("/api/webhooks", { id: w.id });
                if (filter?.id === w.id) filter = null;
                toast("Webhook deleted.");
                loadHooks();
                loadLog();
              }),
            }, "Delete")) },
        ],
      }));
    } catch (e) {
      if (ctx.alive()) fill(listArea, loadError(e, "the webhooks"));
    }
  }

  async function loadLog() {
    try {
      const query = filter ? { webhookId: filter.id, limit: 50 } : { limit: 50 };
      const { data } = await get("/api/webhooks/deliveries", query);
      if (!ctx.alive()) return;
      logTitle.textContent = filter ? `Recent deliveries to ${filter.url}` : "Recent deliveries";
      const showAll = filter ? h("button", { type: "button", class: "secondary small", onclick: () => { filter = null; loadLog(); } }, "Show every webhook's") : null;
      const refresh = h("button", { type: "button", class: "secondary small", onclick: () => loadLog() }, "Refresh");
      fill(logArea, h("div", { class: "actions" }, refresh, showAll), table({
        caption: "Recent deliveries",
        rows: data,
        empty: "No events sent yet.",
        columns: [
          { label: "Event", header: true, cell: (d) => h("code", {}, d.type) },
          { label: "Created", cell: (d) => when(d.created_at) },
          { label: "Status", cell: (d) => badge(d.status, STATUS_KIND[d.status] ?? "") },
          { label: "Attempts", class: "num", cell: (d) => String(d.attempts) },
          { label: "Last answer", cell: (d) => d.last_error ?? (d.last_status_code ? `HTTP ${d.last_status_code}` : "—") },
          { label: "Next attempt", cell: (d) => (d.next_attempt_at ? when(d.next_attempt_at) : "—") },
          { label: "Actions", class: "num", cell: (d) => (d.type === "ping" ? "" : h("button", {
            type: "button", class: "secondary small", "aria-label": `Redeliver ${d.type} ${d.event_id}`,
            onclick: (ev) => act(ev.currentTarget, async () => {
              await post("/api/webhooks/redeliver", { event_id: d.event_id });
              toast("Event queued again.");
              loadLog();
            }),
          }, "Redeliver")) },
        ],
      }));
    } catch (e) {
      if (ctx.alive()) fill(logArea, loadError(e, "the deliveries"));
    }
  }

  onSubmit(form, async () => {
    const events = val(form, "all_events") ? ["*"]
      : eventTypes.map((e) => e.type).filter((type) => val(form, `event:${type}`));
    const body = { url: val(form, "url"), events };
    if (val(form, "entity_id")) body.entity_id = val(form, "entity_id");
    const { data } = await post("/api/webhooks", body);
    form.reset();
    all.control.checked = true;
    sync();
    showSecretOnce(shown, data);
    loadHooks();
  });
  await Promise.all([loadHooks(), loadLog()]);
}

/** The signing secret, shown once, with a copy button; gone when dismissed or on leaving. */
function showSecretOnce(area, hook) {
  const code = h("code", { id: "new-webhook-secret" }, hook.secret);
  const copy = h("button", { type: "button", class: "secondary" }, "Copy");
  const status = h("span", { class: "muted", "aria-live": "polite" });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(hook.secret);
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
  const done = h("button", { type: "button" }, "I have saved it");
  done.addEventListener("click", () => fill(area));
  fill(area, notice("warn",
    h("p", {}, h("strong", {}, "The signing secret of your new webhook. "),
      "Copy it now: it is shown only this once. Your receiver uses it to check the ",
      h("code", {}, "Stockbook-Signature"), " header of each event."),
    h("div", { class: "key-box" }, code, copy, status),
    h("div", { class: "actions" }, done)));
  copy.focus();
}
