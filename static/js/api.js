// A small fetch wrapper for the session API (`/api`). Every request sends and expects
// JSON; the session cookie travels with it. A failed request throws an `ApiError` whose
// `message` is the server's own (the `message` of the error body).
//
// Amounts arrive as JSON numbers. A number whose decimal text a double cannot hold
// exactly (more than about 15 significant digits) is kept as its source text, a string,
// so `decimal.js` formats the exact value; every other number stays a number.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }

  /** A 404 for a path the server does not serve (a feature it does not have yet). */
  get missingEndpoint() {
    return this.status === 404 && /^Not found: \/api\//.test(this.message);
  }
}

let unauthorizedHandler = null;
let unavailableHandler = null;

/** Called when a request gets 401 (the session ended), except for the auth calls. */
export function onUnauthorized(fn) {
  unauthorizedHandler = fn;
}

function exact(_key, value, context) {
  if (typeof value === "number" && context && typeof context.source === "string") {
    const src = context.source;
    if (String(value) !== src && !Number.isInteger(value)) return src;
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return src;
  }
  return value;
}

/** Called when a request gets 503 (busy, or a storage fault: `storage.js` asks which). */
export function onUnavailable(fn) {
  unavailableHandler = fn;
}

/** JSON.parse keeping the exact text of numbers a double would change. */
export function parseJson(text) {
  return JSON.parse(text, exact);
}

export async function api(method, path, body, headers = {}) {
  const init = {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json", ...headers },
  };
  if (method !== "GET" && method !== "HEAD") {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, "Cannot reach the server. Check your connection and try again.");
  }
  let payload = null;
  try {
    payload = parseJson(await res.text());
  } catch {
    // Not JSON: fall through with a generic message.
  }
  if (!res.ok) {
    const message = payload && typeof payload.message === "string"
      ? payload.message
      : `Request failed (${res.status})`;
    const err = new ApiError(res.status, message);
    if (res.status === 401 && !path.startsWith("/api/auth/") && unauthorizedHandler) {
      unauthorizedHandler(err);
    }
    if (res.status === 503 && unavailableHandler) unavailableHandler(err);
    throw err;
  }
  return payload;
}

/** `?a=1&b=2` from an object, leaving out null, undefined and "" values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

// GETs of the same address at the same time share one request (the menu's alert badge and
// the dashboard both ask for the inventory summary as the app opens, a query over every
// stock row); each caller after the first gets its own copy of the answer.
const inflight = new Map();

export function get(path, params) {
  const url = path + query(params);
  const pending = inflight.get(url);
  if (pending) return pending.then((payload) => structuredClone(payload));
  const p = api("GET", url).finally(() => inflight.delete(url));
  inflight.set(url, p);
  return p;
}
// One Idempotency-Key per submission (docs/idempotency.md#in-the-web-app). Every POST
// gets a new key, so two submissions alike (a barcode scanned twice, say) are two, even
// while the first still runs. Only a POST whose outcome is unknown (no answer reached
// the browser, or a 5xx) leaves its key behind: sending the same body to the same path
// again is the retry of that submission and reuses it, so the server does the work at
// most once and a retry of a request that did succeed gets its answer. (Forms also
// disable their submit buttons while their request runs: `onSubmit` in ui.js.)
const unsettledKeys = new Map();

/** A random UUID; `crypto.randomUUID` exists only on https and localhost. */
function newKey() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((n) => n.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export async function post(path, body) {
  const submission = `${path}\n${JSON.stringify(body ?? {})}`;
  const key = unsettledKeys.get(submission) ?? newKey();
  unsettledKeys.delete(submission);
  try {
    return await api("POST", path, body, { "Idempotency-Key": key });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 0 || err.status >= 500)) {
      unsettledKeys.set(submission, key);
    }
    throw err;
  }
}
export const put = (path, body) => api("PUT", path, body);
export const del = (path, body) => api("DELETE", path, body);
