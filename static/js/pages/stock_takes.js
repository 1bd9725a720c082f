// Stock takes (docs/documents.md#stock-takes, docs/documents.md#stock-take-states):
// create for a location; a count sheet made for fast keyboard entry (Enter moves to
// the next line), progress, variance highlighted; start, complete, cancel, delete.
//
// A location may hold 20,000 stock rows, so the sheet draws one page of lines at a time
// (Enter on a page's last line opens the next page) and keeps every typed count in a map,
// not in the page's inputs; saving sends the changed counts in PUTs of at most MAX_LINES.

import { del, get, post, put } from "../api.js";
import { format, isDecimal, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import { numberProblem, plainWords } from "../messages.js";
import {
  act, confirmDialog, date, field, fill, formDialog, formError, h, loadError, numberOrText,
  pageHeader, pagedList, statusBadge, table, toast, val,
} from "../ui.js";
import { locationSelect, locations } from "../widgets.js";

export const title = "Stock takes";

/** Stock takes listed at once. */
const LIST_PAGE = 100;
/** Lines drawn at once on the count sheet. */
export const SHEET_PAGE = 200;
/** Lines one PUT may carry (docs/limits.md#lists). */
const MAX_LINES = 10_000;

const counted = (t) => t.lines.filter((l) => l.counted_quantity !== null && l.counted_quantity !== undefined).length;

export async function render(root, ctx) {
  if (ctx.params[0]) return detail(root, ctx, ctx.params[0]);
  const newButton = h("button", { type: "button" }, "New stock take");
  root.append(pageHeader("Stock takes", newButton),
    h("p", { class: "lead" }, "Count what is on the shelves; completing the count sets the stock to what you counted and records the differences."));
  // A page at a time, without their lines: a count sheet may have 20,000 of them
  // (docs/documents.md#lists).
  const list = pagedList({
    size: LIST_PAGE,
    what: "the stock takes",
    read: async (limit, offset) => (await get("/api/stock-takes", scoped({ lines: false, limit, offset }))).data,
    show: (rows) => table({
      caption: "Stock takes",
      rows,
      empty: "No stock takes yet.",
      columns: [
        { label: "Number", header: true, cell: (t) => h("a", { href: `#/stock-takes/${t.id}` }, t.number) },
        { label: "Location", cell: (t) => t.location_id.name },
        { label: "Created", cell: (t) => date(t.date_created) },
        { label: "Counted", num: true, cell: (t) => `${t.counted_count} of ${t.line_count}` },
        { label: "Status", cell: (t) => statusBadge(t.status) },
        { label: "Completed", cell: (t) => (t.date_completed ? date(t.date_completed) : "") },
      ],
    }),
  });
  root.append(list.element);
  newButton.addEventListener("click", async () => {
    const created = await createDialog();
    if (created) ctx.go(`#/stock-takes/${created.id}`);
  });
  await list.load();
}

async function createDialog() {
  const locs = await locations();
  return formDialog({
    title: "New stock take",
    submitLabel: "Create count sheet",
    build: (form) => form.append(
      locationSelect({ label: "Location", name: "location_id", locs, activeOnly: true, blank: "Choose…", required: true,
        hint: "The sheet lists every active product held there, with the quantity on record now." }),
      field({ label: "Notes", name: "notes", type: "textarea" })),
    submit: async (form) => {
      const body = { location_id: val(form, "location_id"), entity_id: state.entity.id };
      if (!body.location_id) throw new Error("Missing required field: location_id");
      if (val(form, "notes")) body.notes = val(form, "notes");
      const { data } = await post("/api/stock-takes", body);
      toast(`${data.number} created with ${data.lines.length} lines.`);
      return data;
    },
  });
}

async function detail(root, ctx, id) {
  root.append(h("p", {}, h("a", { href: "#/stock-takes" }, "← All stock takes")));
  let take;
  try {
    take = (await get("/api/stock-takes", scoped({ id }))).data[0];
  } catch (e) {
    // An address whose id is not an id at all (400) shows as not found, like any other.
    if (e.status !== 400) {
      root.append(pageHeader("Stock take"), loadError(e, "the stock take"));
      return;
    }
  }
  if (!ctx.alive()) return;
  if (!take) {
    root.append(pageHeader("Stock take not found"), h("p", {}, "It may have been deleted, or it belongs to another business."));
    return;
  }
  const editable = take.status === "draft" || take.status === "in_progress";
  const refusal = h("div", { class: "notice error", role: "alert", tabindex: "-1", hidden: true });
  const form = h("form", { class: "count-form" });
  const buttons = [];

  // Every line's count as typed (or as saved), by line id; the page's inputs show a
  // slice of it.
  const values = new Map(take.lines.map((l) => [l.id, l.counted_quantity === null || l.counted_quantity === undefined ? "" : String(l.counted_quantity)]));
  const index = new Map(take.lines.map((l, i) => [l.id, i]));
  const inputs = new Map();
  function changedLines() {
    const out = [];
    for (const l of take.lines) {
      const v = values.get(l.id).trim();
      const before = l.counted_quantity === null || l.counted_quantity === undefined ? "" : String(l.counted_quantity);
      const same = v === "" ? before === "" : before !== "" && isDecimal(v) && scaled(v, 3) === scaled(before, 3);
      if (!same) out.push({ id: l.id, counted_quantity: v === "" ? null : numberOrText(v) });
    }
    return out;
  }
  /** Shows refusals at the top of the page, naming each line's product, and beside the
   * counts on the page: `[{i, words}]` (`i` the line's index) or a message alone. */
  function refuse(items) {
    for (const el of form.querySelectorAll(".field-error")) el.textContent = "";
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    const text = items.map(({ i, words }) => (i === null ? words : `${take.lines[i].product_id.name}: ${words}`));
    refusal.hidden = false;
    fill(refusal, text.length === 1 ? text[0]
      : [h("p", {}, `${text.length} counts to put right:`), h("ul", {}, text.map((t) => h("li", {}, t)))]);
    const lined = items.filter((x) => x.i !== null);
    if (lined.length) showLine(lined[0].i);
    for (const { i, words } of lined) {
      const input = inputs.get(take.lines[i].id);
      if (!input) continue;
      input.setAttribute("aria-invalid", "true");
      const errEl = input.closest(".field")?.querySelector(".field-error");
      if (errEl) errEl.textContent = words;
    }
    // Where the eye is: the top of the page, announced and focused.
    refusal.focus();
  }
  async function send(status, label) {
    refusal.hidden = true;
    // Every count that is not a number, all at once, before anything is sent.
    const wrong = [];
    take.lines.forEach((l, i) => {
      const words = numberProblem(values.get(l.id));
      if (words) wrong.push({ i, words });
    });
    if (editable && wrong.length) {
      refuse(wrong);
      return;
    }
    const lines = editable ? changedLines() : [];
    if (!status && !lines.length) { toast("No changes to save."); return; }
    // The counts in PUTs of at most MAX_LINES lines; the last one carries the status, so
    // a refused transition keeps none of its own counts.
    const batches = [];
    for (let i = 0; i < lines.length; i += MAX_LINES) batches.push(lines.slice(i, i + MAX_LINES));
    if (!batches.length) batches.push([]);
    for (const [n, batch] of batches.entries()) {
      const body = { id: take.id };
      if (batch.length) body.lines = batch;
      if (status && n === batches.length - 1) body.status = status;
      try {
        await put("/api/stock-takes", body);
      } catch (e) {
        // The server names a line of this PUT (`lines[1].counted_quantity`): the product
        // on it is named instead, with the refusal in words.
        const { field: named, words } = plainWords(e.message);
        const m = /^lines\[(\d+)\]/.exec(named ?? "") || /lines\[(\d+)\]/.exec(e.message);
        const line = m ? batch[Number(m[1])] : null;
        refuse([line ? { i: index.get(line.id), words: named ? words : e.message.replace(/lines\[\d+\]\.?\w*:?\s*/g, "") } : { i: null, words: e.message }]);
        // Earlier batches are saved (and marked so below); this one's counts stay typed.
        return;
      }
      for (const l of batch) take.lines[index.get(l.id)].counted_quantity = l.counted_quantity;
    }
    toast(label);
    if (status === "completed") window.dispatchEvent(new Event("stockbook:stock-changed"));
    ctx.refresh();
  }
  const button = (label, handler, cls = "") => {
    const b = h("button", { type: "button", class: cls }, label);
    b.addEventListener("click", () => act(b, handler));
    buttons.push(b);
    return b;
  };
  if (editable) {
    button("Save counts", () => send(null, "Counts saved."), "secondary").id = "save-counts";
  }
  if (take.status === "draft") {
    button("Start counting", () => send("in_progress", `${take.number} started.`));
  }
  if (take.status === "in_progress") {
    button("Complete", async () => {
      const n = counted(take) + changedLines().filter((l) => l.counted_quantity !== null).length;
      if (!(await confirmDialog(`Complete ${take.number}?`, {
        confirm: "Complete",
        detail: "Stock at the location is set to the counted quantities and the differences are recorded as stock take movements. Lines left blank are not changed.",
      }))) return;
      await send("completed", `${take.number} completed.`);
      return n;
    });
  }
  if (editable) {
    button("Cancel stock take", async () => {
      if (!(await confirmDialog(`Cancel ${take.number}?`, { confirm: "Cancel stock take", danger: true, detail: "No stock changes are made." }))) return;
      await send("cancelled", `${take.number} cancelled.`);
    }, "secondary");
  }
  if (take.status === "draft" || take.status === "cancelled") {
    button("Delete", async () => {
      if (!(await confirmDialog(`Delete ${take.number}?`, { confirm: "Delete", danger: true }))) return;
      try {
        await del("/api/stock-takes", { id: take.id });
      } catch (e) {
        refusal.hidden = false;
        refusal.textContent = e.message;
        return;
      }
      toast(`${take.number} deleted.`);
      ctx.go("#/stock-takes");
    }, "danger secondary");
  }

  const bar = h("progress", { max: String(take.lines.length || 1), value: "0", "aria-label": "Lines counted" });
  const progressText = h("span", { "aria-live": "polite" });
  function progress() {
    let n = 0;
    for (const v of values.values()) if (v.trim() !== "") n++;
    bar.value = n;
    progressText.textContent = `${n} of ${take.lines.length} lines counted`;
  }

  h(root, {}, pageHeader(`Stock take ${take.number}`, ...buttons), refusal,
    h("dl", { class: "facts card" },
      h("dt", {}, "Location"), h("dd", {}, take.location_id.name),
      h("dt", {}, "Status"), h("dd", {}, statusBadge(take.status)),
      h("dt", {}, "Created"), h("dd", {}, date(take.date_created)),
      h("dt", {}, "Completed"), h("dd", {}, take.date_completed ? date(take.date_completed) : "—"),
      h("dt", {}, "Notes"), h("dd", {}, take.notes || "—")),
    h("div", { class: "progress" }, bar, progressText),
    editable ? h("p", { class: "hint" }, "Type each count and press Enter to go to the next line. Leave a line blank to leave its stock unchanged.") : null,
    form);

  // One page of the sheet: the lines from `first`.
  const tbody = h("tbody");
  const pageText = h("span", { class: "muted", "aria-live": "polite" });
  const prevPage = h("button", { type: "button", class: "secondary" }, "← Previous lines");
  const nextPage = h("button", { type: "button", class: "secondary" }, "Next lines →");
  let first = 0;

  function row(l, i) {
    const varCell = h("td", { class: "num var" });
    const tr = h("tr", { "data-line": l.id });
    let countCell;
    if (editable) {
      const f = field({
        label: `Counted ${l.product_id.name}`, name: `lines[${i}].counted_quantity`,
        value: values.get(l.id), inputmode: "decimal", autocomplete: "off", class: "count",
        "data-error-label": l.product_id.name,
      });
      f.querySelector("label").classList.add("sr-only");
      f.classList.add("cell");
      inputs.set(l.id, f.control);
      f.control.addEventListener("input", () => { values.set(l.id, f.control.value); variance(); progress(); });
      f.control.addEventListener("keydown", (ev) => {
        if (ev.key !== "Enter") return;
        ev.preventDefault();
        const to = i + (ev.shiftKey ? -1 : 1);
        if (to >= 0 && to < take.lines.length) showLine(to);
        else document.getElementById("save-counts")?.focus();
      });
      countCell = h("td", {}, f);
    } else {
      countCell = h("td", { class: "num" }, l.counted_quantity === null || l.counted_quantity === undefined ? h("span", { class: "muted" }, "not counted") : qty(l.counted_quantity));
    }
    function variance() {
      const raw = values.get(l.id).trim();
      const c = raw === "" || !isDecimal(raw) ? null : scaled(raw, 3);
      tr.classList.toggle("counted", c !== null);
      if (c === null) {
        varCell.textContent = "";
        varCell.classList.remove("zero");
        tr.classList.remove("variance");
        return;
      }
      const d = c - scaled(l.system_quantity, 3);
      varCell.textContent = d > 0n ? `+${format(d, 3, { trim: true })}` : format(d, 3, { trim: true });
      varCell.classList.toggle("zero", d === 0n);
      tr.classList.toggle("variance", d !== 0n);
    }
    tr.append(h("th", { scope: "row" }, l.product_id.name, h("span", { class: "sub" }, l.product_id.sku)),
      h("td", { class: "num" }, qty(l.system_quantity)), countCell, varCell);
    variance();
    return tr;
  }

  function drawPage(from) {
    first = Math.max(0, Math.min(from, Math.floor(Math.max(0, take.lines.length - 1) / SHEET_PAGE) * SHEET_PAGE));
    inputs.clear();
    const shown = take.lines.slice(first, first + SHEET_PAGE);
    fill(tbody, shown.length
      ? shown.map((l, n) => row(l, first + n))
      : h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No active products are held at this location.")));
    prevPage.disabled = first === 0;
    nextPage.disabled = first + SHEET_PAGE >= take.lines.length;
    pageText.textContent = take.lines.length > SHEET_PAGE
      ? `Lines ${first + 1}–${first + shown.length} of ${take.lines.length}`
      : "";
  }

  /** Shows the page holding line `i` and puts the cursor in its count. */
  function showLine(i) {
    if (i < first || i >= first + SHEET_PAGE) drawPage(Math.floor(i / SHEET_PAGE) * SHEET_PAGE);
    const input = inputs.get(take.lines[i]?.id);
    if (input) { input.focus(); input.select(); }
  }

  prevPage.addEventListener("click", () => drawPage(first - SHEET_PAGE));
  nextPage.addEventListener("click", () => drawPage(first + SHEET_PAGE));
  form.append(h("div", { class: "table-wrap count-sheet" }, h("table", { class: "grid" },
    h("caption", { class: "sr-only" }, `Count sheet of ${take.number}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Product"), h("th", { scope: "col", class: "num" }, "On record"),
      h("th", { scope: "col" }, "Counted"), h("th", { scope: "col", class: "num" }, "Variance"))),
    tbody)),
  ...(take.lines.length > SHEET_PAGE ? [h("div", { class: "pager" }, prevPage, pageText, nextPage)] : []),
  formError());
  form.addEventListener("submit", (ev) => ev.preventDefault());
  progress();
  const blank = take.lines.findIndex((l) => l.counted_quantity === null || l.counted_quantity === undefined);
  drawPage(blank > 0 ? Math.floor(blank / SHEET_PAGE) * SHEET_PAGE : 0);
  if (editable && blank >= 0) setTimeout(() => showLine(blank), 0);
}
