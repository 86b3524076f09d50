"use strict";
// Browse: a kind's records as a table — keys as columns, paging, sorting, the query bar, rows that
// change live, and the store as of a sequence when travelling.

const browse = {
  kind: null, where: "", sort: null, pageIndex: 0, cursors: [null], limit: 100,
  rows: [], more: false, total: null, loading: null, pending: false,

  /** Shows `kind` from its first page, keeping the query and sort when it is the same kind. */
  async open(kind) {
    if (kind !== browse.kind) {
      Object.assign(browse, { kind, where: "", sort: null });
      document.getElementById("query").value = "";
    }
    browse.firstPage();
    await browse.load();
  },

  firstPage() { Object.assign(browse, { pageIndex: 0, cursors: [null], rows: [] }); },

  /** The query parameters of the current page. */
  params() {
    const params = { kind: browse.kind, limit: browse.limit };
    if (studio.asOf !== null) return Object.assign(params, { asOf: studio.asOf, after: browse.cursors[browse.pageIndex] });
    if (browse.where.trim() || browse.sort) {
      params.where = browse.where;
      params.sort = browse.sort ? `${browse.sort.key}${browse.sort.desc ? ":desc" : ""}` : "";
      params.offset = browse.pageIndex * browse.limit;
    } else {
      params.after = browse.cursors[browse.pageIndex];
    }
    return params;
  },

  /** Reads the page; `live` marks rows that differ from the ones shown. */
  async load({ live = false, entries = [] } = {}) {
    if (!browse.kind) return;
    if (browse.loading) { browse.pending = { live, entries }; return; }
    const errorBox = document.getElementById("query-error");
    try {
      browse.loading = api.get("records", browse.params());
      const page = await browse.loading;
      errorBox.hidden = true;
      const previous = browse.rows;
      Object.assign(browse, { rows: page.rows, more: page.more, total: page.total });
      browse.render(page, live ? previous : null);
      browse.recordLatency(entries);
    } catch (error) {
      browse.showError(error);
    } finally {
      browse.loading = null;
      if (browse.pending) {
        const next = browse.pending;
        browse.pending = false;
        browse.load(next);
      }
    }
  },

  showError(error) {
    const box = document.getElementById("query-error");
    box.replaceChildren(error.message);
    const column = error.body && error.body.column;
    if (column) {
      const line = browse.where.split("\n")[(error.body.line || 1) - 1] || "";
      box.append(el("span", { class: "caret" }, line), el("span", { class: "caret" }, " ".repeat(column - 1) + "^"));
      const input = document.getElementById("query");
      input.focus();
      input.setSelectionRange(column - 1, column);
    }
    box.dataset.column = column || "";
    box.hidden = false;
  },

  /** The table: the union of the page's keys as columns; `previous` rows: flash what changed. */
  render(page, previous) {
    const columns = [...new Set(browse.rows.flatMap((row) => Object.keys(row.values)))].sort();
    const head = el("tr", {}, el("th", { class: "id-column" }, "id"), columns.map((key) => {
      const sorted = browse.sort && browse.sort.key === key ? (browse.sort.desc ? "sorted-desc" : "sorted-asc") : null;
      return el("th", { class: sorted, dataset: { key }, onclick: () => browse.sortBy(key) }, key);
    }));
    const changed = new Set(page.changed || []), deleted = new Set(page.deletedSince || []);
    const before = previous ? new Map(previous.map((row) => [row.id, row])) : null;
    const rows = browse.rows.map((row) => {
      const ref = `${browse.kind}/${row.id}`;
      const tr = el("tr", { dataset: { id: row.id },
        class: deleted.has(row.id) ? "deleted-since" : changed.has(row.id) ? "changed-since" : null },
        el("td", {}, el("a", { href: `#/record/${encodeURIComponent(browse.kind)}/${encodeURIComponent(row.id)}`, dataset: { ref } }, row.id)),
        columns.map((key) => el("td", { dataset: { key } }, values.short(row.values[key]))));
      if (before && (!before.has(row.id) || !values.same(before.get(row.id).values, row.values))) flash(tr);
      return tr;
    });
    const table = document.getElementById("records");
    table.tHead.replaceChildren(head);
    table.tBodies[0].replaceChildren(...rows);
    if (before) browse.showGone(previous, table.tBodies[0], columns.length);
    const first = browse.pageIndex * browse.limit + 1;
    const range = browse.rows.length ? `rows ${first}–${first + browse.rows.length - 1}` : "no rows";
    const total = page.total !== null && page.total !== undefined ? ` of ${page.total}` : "";
    const travel = studio.asOf !== null ? ` · as of sequence ${studio.asOf}` : "";
    document.getElementById("page-info").textContent = `${range}${total}${travel} · ${page.serverMilliseconds.toFixed(1)} ms on the server`;
    document.getElementById("prev-page").disabled = browse.pageIndex === 0;
    document.getElementById("next-page").disabled = !page.more;
    document.getElementById("query").disabled = studio.asOf !== null;
  },

  /** Rows that a live change removed from the page: struck through for a moment. */
  showGone(previous, body, width) {
    const now = new Set(browse.rows.map((row) => row.id));
    for (const row of previous.filter((row) => !now.has(row.id))) {
      const tr = el("tr", { class: "gone", dataset: { id: row.id, gone: "true" } }, el("td", { colspan: width + 1 }, row.id));
      body.append(tr);
      setTimeout(() => tr.remove(), 1500);
    }
  },

  recordLatency(entries) {
    const now = Date.now();
    for (const entry of entries.filter((e) => e.kind === browse.kind)) {
      const mark = studio.latencies.find((m) => m.commit === entry.commit && m.renderedMs === undefined);
      if (mark) mark.renderedMs = now - entry.time;
    }
  },

  sortBy(key) {
    if (studio.asOf !== null) return toast("time travel shows records in id order: go back to now to sort");
    const sort = browse.sort;
    browse.sort = !sort || sort.key !== key ? { key, desc: false } : !sort.desc ? { key, desc: true } : null;
    browse.firstPage();
    browse.load();
  },

  page(step) {
    if (step > 0) {
      if (!browse.more) return;
      browse.cursors[browse.pageIndex + 1] = browse.rows.length ? browse.rows[browse.rows.length - 1].id : null;
    }
    browse.pageIndex = Math.max(0, browse.pageIndex + step);
    browse.load();
  },

  /** Live entries: reloads the page (marking what changed) when one touches the kind shown. */
  changed(entries) {
    if (studio.asOf !== null || !browse.kind || document.getElementById("browse").hidden) return;
    const mine = entries.filter((entry) => entry.kind === browse.kind);
    if (mine.length) browse.load({ live: true, entries: mine });
  },

  async insert(event) {
    event.preventDefault();
    const id = document.getElementById("insert-id").value.trim();
    const text = document.getElementById("insert-values").value.trim() || "{}";
    try {
      JSON.parse(text);
    } catch (error) {
      return toast(`the values are not JSON: ${error.message}`);
    }
    try {
      await api.post("insert", { ref: `${browse.kind}/${id}` }, { values: text });  // as typed: 3.0 stays a double
      document.getElementById("insert-form").hidden = true;
    } catch (error) {
      toast(error.message);
    }
  },

  setUp() {
    document.getElementById("query-form").addEventListener("submit", (event) => {
      event.preventDefault();
      browse.where = document.getElementById("query").value;
      browse.firstPage();
      browse.load();
    });
    document.getElementById("prev-page").addEventListener("click", () => browse.page(-1));
    document.getElementById("next-page").addEventListener("click", () => browse.page(1));
    document.getElementById("new-record").addEventListener("click", () => {
      document.getElementById("insert-form").hidden = studio.readOnly;
      if (studio.readOnly) toast("the studio is read-only");
    });
    document.getElementById("insert-cancel").addEventListener("click", () => { document.getElementById("insert-form").hidden = true; });
    document.getElementById("insert-form").addEventListener("submit", browse.insert);
    studio.listeners.push(browse.changed);
  },
};
