"use strict";
// The app: the kinds in the sidebar, routing between views (#/kind/K, #/record/K/ID, #/health),
// and starting the live stream.

const app = {
  async loadKinds() {
    const info = await api.get("kinds");
    studio.kinds = info.kinds;
    studio.readOnly = info.readOnly;
    if (studio.journal.last < info.journal.last || studio.journal.first === null) studio.journal = info.journal;
    document.getElementById("store-path").textContent = info.path + (info.readOnly ? " (read-only)" : "");
    const selected = app.route().kind;
    document.getElementById("kinds").replaceChildren(...info.kinds.map((k) => el("li", {},
      el("a", { class: k.kind === selected ? "kind selected" : "kind", href: `#/kind/${encodeURIComponent(k.kind)}`, dataset: { kind: k.kind } },
        el("span", {}, k.kind), el("span", { class: "count" }, k.count.toLocaleString())))));
    travel.show();
  },

  /** The view the URL's fragment names. */
  route() {
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    if (parts[0] === "kind" && parts[1]) return { view: "browse", kind: parts[1] };
    if (parts[0] === "record" && parts.length >= 3) return { view: "record", kind: parts[1], ref: parts.slice(1).join("/") };
    if (parts[0] === "health") return { view: "health" };
    return { view: "welcome" };
  },

  show(view) {
    for (const id of ["browse", "record", "health", "welcome"]) document.getElementById(id).hidden = id !== view;
  },

  /** Shows the view of the URL (again, after time travel). */
  refresh() {
    const route = app.route();
    app.show(route.view);
    for (const link of document.querySelectorAll("#kinds a")) link.classList.toggle("selected", link.dataset.kind === route.kind);
    if (route.view === "browse") browse.open(route.kind);
    if (route.view === "record") record.open(route.ref);
    if (route.view === "health") health.show();
  },

  async start() {
    browse.setUp();
    record.setUp();
    journal.setUp();
    travel.setUp();
    let counting = null;
    studio.listeners.push(() => {  // counts in the sidebar, at most every 300 ms
      if (!counting) counting = setTimeout(() => { counting = null; app.loadKinds().catch(() => {}); }, 300);
    });
    try {
      await app.loadKinds();
    } catch (error) {
      document.getElementById("welcome").replaceChildren(el("div", { class: "error" }, error.message));
      return;
    }
    window.addEventListener("hashchange", app.refresh);
    journal.connect();
    journal.load();
    app.refresh();
    if (location.search.includes("token=")) history.replaceState(null, "", "/" + location.hash);
    document.body.dataset.ready = "true";
  },
};

app.start();
