"use strict";
// The studio's HTTP API (typed JSON in and out), a DOM helper, and the page's shared state.

const studio = {
  kinds: [], readOnly: false, journal: { first: null, last: 0 },
  asOf: null,          // null: live; a sequence: the store as of it
  listeners: [],       // functions called with each batch of live journal entries
  latencies: [],       // { commit, receivedMs, renderedMs }: commit → page, measured here
};
window.studio = studio;

const api = {
  /** GET /api/PATH?params → the body; throws an Error carrying the body on a refusal. */
  async get(path, params = {}) {
    const query = Object.entries(params)
      .filter(([, v]) => v !== null && v !== undefined && v !== "")
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
    return api.answer(await fetch(`/api/${path}${query ? "?" + query : ""}`, { credentials: "same-origin" }));
  },

  /** POST /api/PATH with a typed JSON object: `body`'s fields, and `typed`'s fields given as
   *  typed JSON texts, sent as they are (a JavaScript number would turn `3.0` into the integer 3
   *  and round an integer past 2^53). */
  async post(path, body, typed = {}) {
    const fields = Object.entries(body).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
      .concat(Object.entries(typed).map(([key, text]) => `${JSON.stringify(key)}:${text}`));
    return api.answer(await fetch(`/api/${path}`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: `{${fields.join(",")}}`,
    }));
  },

  async answer(response) {
    const body = await response.json();
    if (!response.ok) {
      const error = new Error(body.error || `HTTP ${response.status}`);
      error.body = body;
      error.status = response.status;
      throw error;
    }
    return body;
  },
};

/** el("td", {class: "x", onclick: f}, child, "text") → an element. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Shows an error for a few seconds at the bottom of the page. */
function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

/** Marks `node` as just changed (a short highlight), restarting the animation if running. */
function flash(node) {
  node.classList.remove("flash");
  void node.offsetWidth;
  node.classList.add("flash");
}
