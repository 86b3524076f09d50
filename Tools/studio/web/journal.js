"use strict";
// The journal: the pane tailing entries (filtered by ref and key path), the live event stream
// that feeds every view, and time travel over the journal's range.

const journal = {
  entries: [], more: false, source: null,

  filter() {
    return { ref: document.getElementById("journal-ref").value.trim(), keyPath: document.getElementById("journal-keypath").value.trim() };
  },

  matches(entry, { ref, keyPath }) {
    if (ref && (ref.includes("/") ? entry.ref !== ref : entry.kind !== ref)) return false;
    if (keyPath && !(entry.keyPath === keyPath || (entry.keyPath || "").startsWith(keyPath + "."))) return false;
    return true;
  },

  async load(older = false) {
    const before = older && journal.entries.length ? journal.entries[journal.entries.length - 1].sequence : null;
    try {
      const page = await api.get("journal", Object.assign({ limit: 100, before }, journal.filter()));
      journal.entries = older ? journal.entries.concat(page.entries) : page.entries;
      journal.more = page.more;
      journal.render();
    } catch (error) {
      toast(error.message);
    }
  },

  item(entry) {
    const change = entry.change === "setting" ? (entry.hasNew ? "set" : "removed") : entry.change;
    const old = entry.hasOld ? values.short(entry.old) : el("span", { class: "null" }, "—");
    const now = entry.hasNew ? values.short(entry.new) : el("span", { class: "null" }, "—");
    const revert = studio.readOnly || entry.change === "kindDeclared" ? null : el("button", { type: "button", class: "revert", dataset: { commit: entry.commit },
      onclick: () => journal.revert(entry.commit) }, "revert commit");
    return el("li", { dataset: { sequence: entry.sequence, commit: entry.commit },
      class: studio.asOf !== null && entry.sequence > studio.asOf ? "after-travel" : null },
      el("span", { class: "seq", title: "show the store as of this entry", onclick: () => travel.to(entry.sequence) }, `#${entry.sequence}`),
      ` commit ${entry.commit} · ${new Date(entry.time).toLocaleTimeString()} `, revert, el("br"),
      values.refLink(entry.ref), entry.keyPath ? ` .${entry.keyPath}` : "", " ", el("span", { class: "change" }, change),
      el("span", { class: "values" }, old, " → ", now));
  },

  render() {
    document.getElementById("journal-entries").replaceChildren(...journal.entries.map(journal.item));
    document.getElementById("journal-more").hidden = !journal.more;
  },

  /** New entries at the top, when they pass the filter. */
  changed(entries) {
    const filter = journal.filter();
    const list = document.getElementById("journal-entries");
    for (const entry of entries.filter((e) => journal.matches(e, filter))) {
      journal.entries.unshift(entry);
      const item = journal.item(entry);
      list.prepend(item);
      flash(item);
    }
    journal.entries.length = Math.min(journal.entries.length, 500);
    while (list.children.length > 500) list.lastChild.remove();
  },

  async revert(commit) {
    try {
      const result = await api.post("revert", { commit });
      toast(result.commit ? `commit ${commit} reverted by commit ${result.commit}` : `commit ${commit}: nothing to revert`);
    } catch (error) {
      toast(error.message);
    }
  },

  /** The server-sent events: each batch of entries goes to every view. */
  connect() {
    const state = document.getElementById("live-state");
    journal.source = new EventSource("/api/events");
    let lost = false;
    journal.source.onopen = () => {
      state.textContent = "live";
      state.className = "live on";
      if (lost) { lost = false; app.loadKinds().then(app.refresh); journal.load(); }  // what was missed meanwhile
    };
    journal.source.onerror = () => { lost = true; state.textContent = "reconnecting…"; state.className = "live off"; };
    journal.source.addEventListener("failure", (event) => toast(JSON.parse(event.data).error));
    journal.source.onmessage = (event) => {
      const batch = JSON.parse(event.data);
      const received = Date.now();
      const commits = new Map(batch.entries.map((entry) => [entry.commit, entry]));
      for (const entry of commits.values()) {
        studio.latencies.push({ commit: entry.commit, receivedMs: received - entry.time });
      }
      if (studio.latencies.length > 5000) studio.latencies.splice(0, 1000);
      for (const listener of studio.listeners) listener(batch.entries);
    };
  },

  setUp() {
    const reload = () => { clearTimeout(journal.timer); journal.timer = setTimeout(() => journal.load(), 200); };
    document.getElementById("journal-ref").addEventListener("input", reload);
    document.getElementById("journal-keypath").addEventListener("input", reload);
    document.getElementById("journal-filter").addEventListener("submit", (event) => { event.preventDefault(); journal.load(); });
    document.getElementById("journal-more").addEventListener("click", () => journal.load(true));
    studio.listeners.push(journal.changed);
  },
};

const travel = {
  /** Shows the store as of `sequence` (null or the last sequence: live). */
  to(sequence) {
    const last = studio.journal.last;
    studio.asOf = sequence === null || sequence >= last ? null : Math.max(sequence, travel.min());
    travel.show();
    app.refresh();
    journal.render();
  },

  min() { return studio.journal.first === null ? studio.journal.last : studio.journal.first - 1; },

  show() {
    const slider = document.getElementById("tt-slider"), box = document.getElementById("tt-seq");
    slider.min = box.min = travel.min();
    slider.max = box.max = studio.journal.last;
    const shown = studio.asOf === null ? studio.journal.last : studio.asOf;
    slider.value = shown;
    if (document.activeElement !== box) box.value = shown;
    document.getElementById("tt-label").textContent = studio.asOf === null ? "live" : `as of sequence ${studio.asOf}`;
    document.body.classList.toggle("travelling", studio.asOf !== null);
  },

  /** The journal grew: the range follows, and a live view stays live. */
  changed(entries) {
    studio.journal.last = Math.max(studio.journal.last, ...entries.map((e) => e.sequence));
    if (studio.journal.first === null && entries.length) studio.journal.first = entries[0].sequence;
    travel.show();
  },

  setUp() {
    const slider = document.getElementById("tt-slider"), box = document.getElementById("tt-seq");
    slider.addEventListener("change", () => travel.to(Number(slider.value)));
    slider.addEventListener("input", () => { box.value = slider.value; });
    box.addEventListener("change", () => travel.to(Number(box.value)));
    document.getElementById("tt-now").addEventListener("click", () => travel.to(null));
    studio.listeners.unshift(travel.changed);
  },
};
