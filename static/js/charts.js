// Hand-written SVG charts. A horizontal bar chart is all the app needs (stock value by
// location, by category); bar lengths are geometry, so they may be plain numbers, while
// every figure shown as text is formatted exactly by the caller. Large money figures are
// shown short beside the bars (`£12.5bn`, `£1.2m`, `£25.3k`: `shortMoney`), with the exact
// figure in the bar's tooltip and in the chart's text description.

const NS = "http://www.w3.org/2000/svg";
let ids = 0;

function el(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

const UNITS = [[1e12, "tn"], [1e9, "bn"], [1e6, "m"], [1e3, "k"]];

/**
 * A money figure short enough for a chart label: `£12.5bn`, `£1.2m`, `£25.3k` (one
 * decimal, dropped when it is 0), and below £10,000 the figure in pounds and pence,
 * `£1,234.50`. `value` is a JSON number or its exact text.
 */
export function shortMoney(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) return "—";
  const a = Math.abs(n);
  const sign = n < 0 ? "-" : "";
  if (a < 1e4) {
    return `${sign}£${a.toLocaleString("en-GB", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  }
  for (let i = 0; i < UNITS.length; i++) {
    const [size, unit] = UNITS[i];
    if (a < size) continue;
    let shown = Math.round((a / size) * 10) / 10;
    // 999,960 is £1m, not £1000k.
    if (shown >= 1000 && i > 0) return `${sign}£1${UNITS[i - 1][1]}`;
    shown = shown.toLocaleString("en-GB", { maximumFractionDigits: 1 });
    return `${sign}£${shown}${unit}`;
  }
  return `${sign}£${a}`;
}

function clip(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * `items: [{label, value, text, short}]`: `value` a number for the bar length, `text` the
 * exact figure (the bar's tooltip and the description), `short` what to print beside the
 * bar when it differs (see `shortMoney`). Bars are sorted as given. The chart is an image
 * with a title and a text description listing every figure, for screen readers.
 *
 * The chart is drawn at the width it is shown (one unit a CSS pixel, at most `width`),
 * and drawn again when that changes, so its labels stay at the stylesheet's 12 px on a
 * phone instead of shrinking with the picture (WCAG's text size; docs/accessibility.md#charts).
 */
export function barChart({ title, items, width = 520, barClass = "bar" }) {
  const row = 30;
  const top = 6;
  const height = top * 2 + Math.max(1, items.length) * row;
  const id = `chart-${++ids}`;
  const svg = el("svg", {
    class: "chart", role: "img", "aria-labelledby": `${id}-t ${id}-d`, height,
  });
  svg.style.maxWidth = `${width}px`;
  const titleEl = el("title", { id: `${id}-t` }, title);
  const desc = el("desc", { id: `${id}-d` }, items.map((i) => `${i.label}: ${i.text}`).join("; ") || "No data");
  const max = Math.max(0, ...items.map((i) => Math.abs(Number(i.value) || 0)));
  let drawn = 0;

  function draw(w) {
    drawn = w;
    const labelW = Math.min(170, Math.round(w * 0.34));
    const valueW = Math.min(110, Math.round(w * 0.24));
    const barMax = Math.max(0, w - labelW - valueW - 10);
    // About 7 px a character at 12 px.
    const labelChars = Math.max(6, Math.min(22, Math.floor((labelW - 10) / 7)));
    svg.setAttribute("viewBox", `0 0 ${w} ${height}`);
    svg.replaceChildren(titleEl, desc);
    items.forEach((item, n) => {
      const y = top + n * row;
      const v = Math.abs(Number(item.value) || 0);
      const bw = max > 0 ? Math.max(v > 0 ? 2 : 0, Math.round((v / max) * barMax)) : 0;
      const g = el("g");
      g.append(el("title", {}, `${item.label}: ${item.text}`));
      const label = el("text", { x: labelW - 8, y: y + row / 2 + 4, "text-anchor": "end" }, clip(item.label, labelChars));
      if (item.label.length > labelChars) label.append(el("title", {}, item.label));
      g.append(label);
      g.append(el("rect", { class: barClass, x: labelW, y: y + 5, width: bw, height: row - 10, rx: 3 }));
      // A long bar's figure goes inside its end, so that it never runs off the chart.
      const shown = item.short ?? item.text;
      const inside = labelW + bw + 6 + shown.length * 7 > w;
      g.append(el("text", {
        class: inside ? "value inside" : "value", x: inside ? labelW + bw - 6 : labelW + bw + 6,
        y: y + row / 2 + 4, "text-anchor": inside ? "end" : "start",
      }, shown));
      svg.append(g);
    });
    svg.append(el("line", { class: "axis", x1: labelW, x2: labelW, y1: 2, y2: height - 2 }));
  }

  draw(width);
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(() => {
      // Whole units, never more than shown: a unit is at least a pixel.
      const w = Math.floor(svg.getBoundingClientRect().width);
      if (w > 0 && w !== drawn) draw(Math.min(w, width));
    }).observe(svg);
  }
  return svg;
}
