// A small fetch wrapper for the session API (`/api`). Every request sends and expects
// JSON; the session cookie travels with it. A failed request throws an `ApiError` whose
// `message` is the server's own (the `message` of the error body).

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

export async function api(method, path, body) {
  const init = {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json" },
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
    payload = await res.json();
  } catch {
    // Not JSON: fall through with a generic message.
  }
  if (!res.ok) {
    const message = payload && typeof payload.message === "string"
      ? payload.message
      : `Request failed (${res.status})`;
    throw new ApiError(res.status, message);
  }
  return payload;
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body);
export const put = (path, body) => api("PUT", path, body);
export const del = (path, body) => api("DELETE", path, body);
