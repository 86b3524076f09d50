"use strict";
// Health: `kvstore stat`'s figures — map use, file size, readers, the journal's range, consumers
// and replication sources with their lag — and a chart of commits per second.

const health = {
  timer: null,

  bytes(n) {
    const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let unit = 0;
    while (n >= 1024 && unit < units.length - 1) { n /= 1024; unit += 1; }
    return `${unit ? n.toFixed(1) : n} ${units[unit]}`;
  },

  figure(label, value, fraction) {
    const bar = fraction === undefined ? null : el("div", { class: "bar" }, el("div"));
    if (bar) bar.firstChild.style.width = `${Math.min(100, fraction * 100).toFixed(1)}%`;
    return el("div", { class: "figure" }, el("div", { class: "label" }, label), el("div", { class: "value" }, value), bar);
  },

  table(id, headings, rows, empty) {
    if (!rows.length) return el("p", { class: "note", id }, empty);
    return el("table", { id }, el("thead", {}, el("tr", {}, headings.map((h) => el("th", { class: "id-column" }, h)))),
      el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) => el("td", {}, cell))))));
  },

  async load() {
    let report;
    try {
      report = await api.get("health");
    } catch (error) {
      return toast(error.message);
    }
    const s = report.storage, j = report.journal;
    const range = j.first === null ? `empty (last ${j.last})` : `${j.first} … ${j.last}`;
    const rate = report.commitsPerSecond;
    document.getElementById("health").replaceChildren(
      el("h1", {}, "Health"),
      el("div", { class: "figures", id: "health-figures" },
        health.figure("records", report.records.toLocaleString()),
        health.figure("file size", health.bytes(s.fileSize)),
        health.figure("map used", `${health.bytes(s.mapUsed)} of ${health.bytes(s.mapSize)}`, s.mapUsed / s.mapSize),
        health.figure("journal", `${range} · ${j.entries.toLocaleString()} entries`),
        health.figure("readers", `${report.readers.length} of ${report.maxReaders}`),
        health.figure("commits/s (last)", `${rate[rate.length - 1]} · peak ${Math.max(...rate)}`),
        health.figure("live", report.following)),
      el("h2", { class: "note" }, "Commits per second, last minute"),
      el("canvas", { id: "commit-chart", width: 720, height: 140 }),
      el("h2", { class: "note" }, "Consumers"),
      health.table("consumers", ["name", "cursor", "lag", "expired"],
        report.consumers.map((c) => [c.name, c.cursor, c.lag, c.expired ? "yes" : "no"]), "no durable consumers"),
      el("h2", { class: "note" }, "Replication sources"),
      health.table("replicas", ["source", "applied through", "lag"],
        report.replication.map((r) => [r.source, r.applied, r.lag === null ? "unknown" : r.lag]), "nothing replicated into this store"),
      el("h2", { class: "note" }, "Readers (other processes' and threads' read transactions)"),
      health.table("readers", ["pid", "thread", "txn", "transactions behind", "seen for"],
        report.readers.map((r) => [r.pid, r.thread, r.txn, r.behind === null ? "idle" : r.behind, `${Math.round(r.seenFor)} s`]), "no active readers"));
    health.chart(document.getElementById("commit-chart"), rate);
  },

  chart(canvas, counts) {
    const g = canvas.getContext("2d"), w = canvas.width, h = canvas.height, pad = 18;
    const top = Math.max(1, ...counts);
    g.clearRect(0, 0, w, h);
    g.fillStyle = "#6e6e73";
    g.font = "11px system-ui";
    g.fillText(String(top), 2, 12);
    g.fillText("0", 2, h - 4);
    const step = (w - pad) / counts.length;
    g.fillStyle = "#2a62c9";
    counts.forEach((n, i) => {
      const bar = (h - 8) * n / top;
      g.fillRect(pad + i * step + 1, h - 4 - bar, Math.max(1, step - 2), bar);
    });
  },

  show() {
    health.load();
    clearInterval(health.timer);
    health.timer = setInterval(() => {
      if (document.getElementById("health").hidden) clearInterval(health.timer);
      else health.load();
    }, 2000);
  },
};
