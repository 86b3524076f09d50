"use strict";
// Typed JSON values on the page: {"$ref":"kind/id"}, {"$date":"…"}, {"$bytes":"…"}, {"$double":"NaN"}.

const values = {
  /** The single special key of a typed JSON wrapper, or null for a plain value. */
  tag(value) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    const keys = Object.keys(value);
    return keys.length === 1 && ["$ref", "$date", "$bytes", "$double"].includes(keys[0]) ? keys[0] : null;
  },

  /** A link to the record a reference names. */
  refLink(ref) {
    return el("a", { class: "ref", href: `#/record/${ref.split("/").map(encodeURIComponent).join("/")}`, dataset: { ref } }, `→ ${ref}`);
  },

  /** A one-line rendering for a table cell or the journal. */
  short(value) {
    if (value === undefined) return el("span", { class: "null" }, "");
    if (value === null) return el("span", { class: "null" }, "null");
    switch (values.tag(value)) {
      case "$ref": return values.refLink(value.$ref);
      case "$date": return el("span", { class: "date" }, value.$date);
      case "$bytes": return el("span", { class: "null" }, `bytes(${Math.floor(value.$bytes.length * 3 / 4)})`);
      case "$double": return el("span", { class: "number" }, value.$double);
    }
    if (Array.isArray(value)) return el("span", { class: "null" }, `[${value.length} items]`);
    if (typeof value === "object") return el("span", { class: "null" }, `{${Object.keys(value).length} keys}`);
    if (typeof value === "string") return el("span", { class: "string", title: value }, value.length > 80 ? value.slice(0, 80) + "…" : value);
    return el("span", { class: typeof value === "boolean" ? "bool" : "number" }, String(value));
  },

  /** A tree: nested arrays and dictionaries folded (open: `depth` levels), references as links. */
  tree(value, depth = 0) {
    const isContainer = value !== null && typeof value === "object" && !values.tag(value);
    if (!isContainer) return values.short(value);
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.keys(value).sort().map((k) => [k, value[k]]);
    const summary = Array.isArray(value) ? `[${entries.length} items]` : `{${entries.length} keys}`;
    return el("details", { class: "tree", open: depth > 0 ? true : undefined },
      el("summary", {}, summary),
      entries.map(([k, v]) => el("div", {}, el("span", { class: "key" }, `${k}: `), values.tree(v, depth - 1))));
  },

  /** Whether two values are the same typed JSON (a row or a value changed). */
  same(a, b) { return JSON.stringify(a) === JSON.stringify(b); },
};
