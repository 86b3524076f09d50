"use strict";
// The record view: values with nested ones folded, references as links, the records that reference
// this one, and edits (set, remove, add a key, delete) through the store's write path.

const record = {
  ref: null, data: null,

  async open(ref) {
    record.ref = ref;
    record.data = null;
    await record.load();
  },

  async load(live = false) {
    const section = document.getElementById("record");
    try {
      const data = await api.get("record", { ref: record.ref, asOf: studio.asOf });
      const previous = live ? record.data : null;
      record.data = data;
      record.render(data, previous);
    } catch (error) {
      record.data = null;
      section.replaceChildren(record.head(), el("div", { class: "error", id: "record-error" }, error.message));
    }
  },

  head() {
    const [kind] = record.ref.split("/");
    return el("div", { class: "record-head" },
      el("h1", { id: "record-ref" }, record.ref),
      el("a", { href: `#/kind/${encodeURIComponent(kind)}` }, `all ${kind} records`));
  },

  render(data, previous) {
    const editable = !studio.readOnly && studio.asOf === null;
    const changed = new Set(data.changedKeys || []);
    const notes = [];
    if (data.asOf !== undefined) notes.push(`as of sequence ${data.asOf}; highlighted: changed since`);
    if (!data.exists) notes.push("deleted since");
    const rows = Object.keys(data.values).sort().flatMap((key) => {
      const value = data.values[key];
      const cell = el("div", { class: changed.has(key) ? "value changed" : "value", dataset: { key } }, values.tree(value, 1));
      if (previous && !values.same(previous.values[key], value)) flash(cell);
      return [
        el("div", { class: changed.has(key) ? "key changed" : "key" }, key), cell,
        el("div", {}, editable ? [
          el("button", { type: "button", class: "edit", dataset: { key }, onclick: () => record.edit(key, cell) }, "edit"),
          " ",
          el("button", { type: "button", class: "remove", dataset: { key }, onclick: () => record.write("remove", { keyPath: key }) }, "remove"),
        ] : []),
      ];
    });
    const adding = editable ? el("form", { class: "inline-form", id: "add-key-form", onsubmit: record.addKey },
      el("input", { type: "text", id: "new-key", placeholder: "key or key path" }),
      el("input", { type: "text", id: "new-value", placeholder: '"value" (typed JSON)' }),
      el("button", { type: "submit" }, "Set"),
      el("button", { type: "button", id: "delete-record", onclick: () => record.write("remove", {}) }, "Delete record")) : null;
    const referencing = (data.referencedBy || []).map((group) => el("li", {},
      `${group.kind}.${group.keyPath}: `,
      group.ids.map((id) => [values.refLink(`${group.kind}/${id}`), " "]),
      group.more ? "…" : ""));
    document.getElementById("record").replaceChildren(...[
      record.head(),
      notes.length ? el("p", { class: "note", id: "record-note" }, notes.join(" · ")) : null,
      el("div", { class: "kv", id: "record-values" }, rows),
      adding,
      el("h2", { class: "note" }, "Referenced by"),
      referencing.length ? el("ul", { id: "referenced-by" }, referencing)
        : el("p", { class: "note", id: "referenced-by" }, "no references found through an index"),
    ].filter(Boolean));
  },

  /** Replaces a value with an edit box of its typed JSON. */
  edit(key, cell) {
    const box = el("textarea", { rows: 3, class: "edit-value" });
    box.value = record.data.texts[key];
    cell.replaceChildren(box,
      el("button", { type: "button", class: "save", onclick: () => record.save(key, box.value) }, "Save"),
      el("button", { type: "button", onclick: () => record.render(record.data, null) }, "Cancel"));
    box.focus();
  },

  async save(keyPath, text) {
    try {
      JSON.parse(text);
    } catch (error) {
      return toast(`not typed JSON (a string needs its quotes): ${error.message}`);
    }
    await record.write("set", { keyPath }, { value: text });  // the text as typed: 3.0 stays a double
  },

  addKey(event) {
    event.preventDefault();
    record.save(document.getElementById("new-key").value.trim(), document.getElementById("new-value").value);
  },

  async write(path, body, typed = {}) {
    try {
      await api.post(path, Object.assign({ ref: record.ref }, body), typed);
      await record.load(true);
    } catch (error) {
      toast(error.message);
    }
  },

  changed(entries) {
    if (studio.asOf !== null || !record.ref || document.getElementById("record").hidden) return;
    if (entries.some((entry) => entry.ref === record.ref)) record.load(true);
  },

  setUp() { studio.listeners.push(record.changed); },
};
