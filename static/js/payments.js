// The payments of an invoice or bill (docs/accounting.md#payments): the amount due, the
// history with a delete per payment, and a form to record one (date, amount, method,
// reference). The server keeps amount_paid and the status (docs/accounting.md#status-follows-money);
// after every change the panel reads the document again and hands it to `changed`.

import { del, get, post } from "./api.js";
import { money } from "./decimal.js";
import { scoped } from "./state.js";
import { confirmDialog, date, field, fill, h, numberOrText, table, toast, today } from "./ui.js";

/**
 * `kind`: the document page's `{path, noun}`; `doc`: the document as listed; `changed(doc)`
 * is told the document after a payment was recorded or deleted. The inputs carry no
 * `required` and `payment_` names, so the form around them ignores them.
 */
export function paymentsPanel(kind, doc, changed) {
  const summary = h("p", { id: "doc-amount-due" });
  const history = h("div", { id: "doc-payments" }, h("p", { class: "muted" }, "Loading…"));
  const dateField = field({ label: "Date", name: "payment_date", type: "date", value: today(), max: today() });
  const amountField = field({ label: "Amount (£)", name: "payment_amount", inputmode: "decimal" });
  const methodField = field({ label: "Method", name: "payment_method", hint: "bank, card, cash, …" });
  const refField = field({ label: "Reference", name: "payment_reference" });
  const record = h("button", { type: "button", class: "secondary" }, "Record payment");
  const panel = h("section", { class: "payments", "aria-label": "Payments" },
    summary, history,
    h("div", { class: "form-grid" }, dateField, amountField, methodField, refField),
    record);
  let current = doc;

  function showSummary() {
    fill(summary, `Total ${money(current.total)}, paid ${money(current.amount_paid)}`,
      Number(current.amount_credited) ? `, credited ${money(current.amount_credited)}` : "",
      ": ", h("strong", {}, `${money(current.amount_due)} due`), ".");
    amountField.control.placeholder = String(current.amount_due);
  }

  async function load() {
    try {
      const [payments, [fresh]] = await Promise.all([
        get("/api/payments", { documentId: doc.id }).then((r) => r.data),
        get(kind.path, scoped({ id: doc.id })).then((r) => r.data)]);
      if (fresh) current = fresh;
      showSummary();
      fill(history, table({
        caption: "Payments",
        rows: payments,
        empty: "No payments yet.",
        columns: [
          { label: "Date", cell: (p) => date(p.date) },
          { label: "Amount", num: true, cell: (p) => money(p.amount) },
          { label: "Method", cell: (p) => p.method ?? "—" },
          { label: "Reference", cell: (p) => p.reference ?? "—" },
          { label: "Actions", class: "num", cell: (p) => h("button", {
            type: "button", class: "danger secondary small", "aria-label": `Delete the payment of ${money(p.amount)} on ${p.date}`,
            onclick: () => remove(p) }, "Delete") },
        ],
      }));
      return current;
    } catch (e) {
      fill(history, h("p", { class: "field-error" }, e.message));
      return null;
    }
  }

  async function after() {
    const fresh = await load();
    if (fresh) changed(fresh);
  }

  async function remove(p) {
    if (!(await confirmDialog(`Delete the payment of ${money(p.amount)}?`, {
      confirm: "Delete", danger: true, detail: "A payment is corrected by deleting it and recording another." }))) return;
    try {
      await del("/api/payments", { id: p.id });
      toast("Payment deleted.");
      await after();
    } catch (e) {
      toast(e.message, "error");
    }
  }

  record.addEventListener("click", async () => {
    const body = { document_id: doc.id, amount: numberOrText(amountField.control.value || "") };
    const d = dateField.control.value.trim();
    if (d) body.date = d;
    for (const [name, f] of [["method", methodField], ["reference", refField]]) {
      const v = f.control.value.trim();
      if (v) body[name] = v;
    }
    record.disabled = true;
    try {
      await post("/api/payments", body);
      toast(`Payment of £${amountField.control.value} recorded.`);
      amountField.control.value = "";
      refField.control.value = "";
      await after();
    } catch (e) {
      toast(e.message, "error");
    } finally {
      record.disabled = false;
    }
  });

  showSummary();
  load();
  return panel;
}
