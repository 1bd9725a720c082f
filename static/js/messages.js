// Refusals in words for people. The server's messages are exact for programs
// (docs/conventions.md#errors: "Missing required field: x", "Invalid value for field `x`:
// ..."); the web app shows them beside their field in plain words, and checks the
// numbers typed before sending, so that every such mistake shows at once.

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * What is wrong with a typed number, in words, or null when it is one (or blank):
 * "4,50" → "Use a point for decimals: 4.50"; "twelve" → "Enter a number". `whole`: a
 * whole number is wanted.
 */
export function numberProblem(text, { whole = false } = {}) {
  const t = String(text).trim();
  if (t === "") return null;
  if (NUMBER.test(t)) {
    return whole && /\.\d*[1-9]/.test(t) ? "Enter a whole number." : null;
  }
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) return `Leave out the commas: ${t.replace(/,/g, "")}`;
  if (/^[+-]?\d*,\d+$/.test(t)) return `Use a point for decimals: ${t.replace(",", ".")}`;
  const bare = t.replace(/^[£$€]\s*/, "").replace(/\s*%$/, "");
  if (bare !== t && NUMBER.test(bare)) return `Enter the number alone: ${bare}`;
  return whole ? "Enter a whole number." : "Enter a number.";
}

/** The "why" of ``Invalid value for field `x`: why`` in words. */
function whyInWords(why) {
  if (/invalid type: .*expected .*(number|decimal|integer)/i.test(why)) return "Enter a number.";
  if (/invalid type: .*expected .*bool/i.test(why)) return "Choose yes or no.";
  let m = /at most (\d+) decimal places/.exec(why);
  if (m) return m[1] === "0" ? "Enter a whole number." : `Use at most ${m[1]} decimal places.`;
  if (/magnitude above/.test(why)) return "That number is too large.";
  if (/is not a date in the form YYYY-MM-DD/.test(why)) return "Enter a date.";
  if (/^not a UUID$/.test(why)) return "Choose one from the list.";
  if (/^must be true or false$/.test(why)) return "Choose yes or no.";
  m = /must be at most (\d+) characters/.exec(why);
  if (m) return `Use at most ${Number(m[1]).toLocaleString("en-GB")} characters.`;
  // Otherwise the rule's own words, as a sentence.
  const s = why.trim();
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? "" : "."}`;
}

/**
 * A server message as `{field, words}`: the field it names (null for a rule's refusal)
 * and what to show beside it.
 */
export function plainWords(message) {
  let m = /^Missing required field: ([\w.[\]]+)$/.exec(message);
  if (m) return { field: m[1], words: "This is required." };
  m = /^Invalid value for field `([^`]+)`: ([\s\S]*)$/.exec(message);
  if (m) return { field: m[1], words: whyInWords(m[2]) };
  return { field: null, words: message };
}

/** A field's name in words when no label says it: `lines[1].unit_price` → "Line 2, unit price". */
export function fieldWords(name) {
  const m = /^lines\[(\d+)\]\.(\w+)$/.exec(name);
  const words = (n) => n.replace(/_id$/, "").replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  if (m) return `Line ${Number(m[1]) + 1}, ${words(m[2])}`;
  const w = words(name);
  return w.charAt(0).toUpperCase() + w.slice(1);
}
