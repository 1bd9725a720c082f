// Who is signed in, their entities (businesses) and the one the app is showing. The
// chosen entity is remembered in this browser.

import { get } from "./api.js";

const KEY = "stockbook.entity";

export const state = {
  user: null,
  entities: [],
  entity: null,
};

export async function loadEntities() {
  const { data } = await get("/api/entities");
  state.entities = data;
  const saved = localStorage.getItem(KEY);
  state.entity = data.find((e) => e.id === saved) || data[0] || null;
  return data;
}

export function chooseEntity(id) {
  state.entity = state.entities.find((e) => e.id === id) || state.entity;
  if (state.entity) localStorage.setItem(KEY, state.entity.id);
}

export function forget() {
  state.user = null;
  state.entities = [];
  state.entity = null;
}

/** `{entityId}` for list queries. */
export const scoped = (extra = {}) => ({ entityId: state.entity?.id, ...extra });
