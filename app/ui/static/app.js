// The sal-service dashboard: a hash-routed page over the public JSON API.
// The API key lives in one variable of this page only: never in a URL, cookie or web storage, so
// it is gone when the tab is closed or reloaded. Navigation changes only the hash (no reload).
"use strict";

(function () {
  const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
  const main = document.getElementById("main");
  const statusRegion = document.getElementById("status");
  const authStatus = document.getElementById("auth-status");
  const fmt = (v) => window.Charts.fmt(v);
  // How lambda_="auto" chose, in one line: the reason, and the slopes test that decided which rule ran.
  const lambdaChoice = (sel) => {
    if (!sel || !sel.reason) return null;
    const law = sel.homogeneity && sel.homogeneity.exact_law ? " (one exact linear law: ERM kept)" : "";
    const test = sel.homogeneity ? `; slopes test p = ${fmt(sel.homogeneity.p_value)}${law}` : "";
    return `${sel.reason}${test}`;
  };
  // "+0.0031 ± 0.0012 (ERM 0.4512; within noise)": the job's Mean_Error minus ERM's on the same test rows.
  const versusErm = (ref) => `${ref.difference >= 0 ? "+" : "−"}${fmt(Math.abs(ref.difference))} ± ${fmt(ref.standard_error)} ` +
    `(ERM ${fmt(ref.mean_error)}; ${Math.abs(ref.difference) <= 2 * ref.standard_error ? "within noise" : ref.difference < 0 ? "better than ERM" : "worse than ERM"})`;

  let apiKey = null; // memory only (see top)
  let keyNeeded = null; // null until the first request says
  let timers = [];
  let generation = 0; // bumped on every navigation; stale async work checks it and stops

  // --- DOM and HTTP helpers ---------------------------------------------------------------------

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k in node && typeof v !== "string") node[k] = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
    return node;
  }

  // replaceChildren without the nulls that optional parts leave (the DOM would print "null").
  function fill(node, ...children) {
    node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
    return node;
  }

  function announce(text) {
    statusRegion.textContent = text;
  }

  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
      this.status = status;
      this.problem = problem || {};
    }
  }

  class NeedKey extends Error {}

  async function api(path, options = {}) {
    const headers = new Headers(options.headers || {});
    if (apiKey) headers.set("Authorization", "Bearer " + apiKey);
    let body = options.body;
    if (options.json !== undefined) {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(options.json);
    }
    const response = await fetch(path, { method: options.method || "GET", headers, body, cache: "no-store" });
    if (response.status === 401) {
      keyNeeded = true;
      const hadKey = apiKey !== null;
      apiKey = null;
      showAuth();
      renderKeyForm(hadKey ? "The key was refused; enter a valid key." : null);
      throw new NeedKey();
    }
    if (!response.ok) {
      let problem = null;
      try { problem = await response.json(); } catch (e) { problem = { title: response.statusText }; }
      throw new ApiError(response.status, problem);
    }
    if (options.raw) return response;
    if (response.status === 204) return null;
    return response.json();
  }

  function problemBox(error) {
    const box = h("div", { class: "problem", role: "alert" });
    if (!(error instanceof ApiError)) {
      box.append(h("p", { text: String(error && error.message ? error.message : error) }));
      return box;
    }
    const p = error.problem;
    box.append(h("p", {}, h("strong", { text: `${error.status} ${p.title || ""}`.trim() }), p.detail ? ": " + p.detail : ""));
    if (Array.isArray(p.errors) && p.errors.length) {
      box.append(h("ul", {}, p.errors.map((e) => h("li", {}, e.field ? h("code", { text: e.field }) : "", e.field ? " " : "", e.message || ""))));
    }
    return box;
  }

  function markInvalid(form, error) {
    for (const n of form.querySelectorAll("[aria-invalid]")) n.removeAttribute("aria-invalid");
    const errors = (error instanceof ApiError && Array.isArray(error.problem.errors)) ? error.problem.errors : [];
    for (const e of errors) {
      const field = String(e.field || "").split(".").pop();
      const input = form.querySelector(`[name="${CSS.escape(String(e.field || ""))}"]`) || form.querySelector(`[name="${CSS.escape(field)}"]`);
      if (input) input.setAttribute("aria-invalid", "true");
    }
  }

  function every(ms, fn) {
    const gen = generation;
    let busy = false;
    const id = setInterval(async () => {
      if (gen !== generation) return clearInterval(id);
      if (busy || document.hidden) return;
      busy = true;
      try { await fn(); } catch (e) { if (!(e instanceof NeedKey)) console.error(e); } finally { busy = false; }
    }, ms);
    timers.push(id);
    return () => clearInterval(id);
  }

  function when(iso) {
    if (!iso) return "–";
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
  }

  const short = (id) => (id ? String(id).slice(0, 8) : "–");
  const badge = (status) => h("span", { class: `badge badge-${status}`, "data-status": status, text: status });

  function table(caption, head, rows, attrs) {
    return h("table", attrs || {},
      caption ? h("caption", { text: caption }) : null,
      h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col", text: c })))),
      h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", {}, c)))))));
  }

  function dl(pairs) {
    return h("dl", { class: "pairs" }, pairs.filter((p) => p).flatMap(([k, v]) => [h("dt", { text: k }), h("dd", {}, v)]));
  }

  // A chart with its caption and its numbers as a table (the accessible, colour-free reading).
  function figure(title, svg, caption, head, rows, name) {
    return h("figure", { class: "figure", "data-chart": name },
      h("figcaption", {}, h("strong", { text: title }), caption ? " " + caption : ""),
      h("div", { class: "chart-scroll" }, svg),
      h("details", {}, h("summary", { text: "Numbers" }), table(null, head, rows)));
  }

  async function download(path, filename) {
    const response = await api(path, { raw: true });
    const url = URL.createObjectURL(await response.blob());
    const a = h("a", { href: url, download: filename, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // --- auth ---------------------------------------------------------------------------------------

  function showAuth() {
    fill(authStatus, );
    if (keyNeeded === false) authStatus.append("Single-user mode (no key needed)");
    if (keyNeeded && apiKey) {
      authStatus.append("Key set for this tab ", h("button", {
        type: "button", class: "link", text: "Forget key",
        onclick: () => { apiKey = null; showAuth(); renderKeyForm("Key forgotten."); },
      }));
    }
  }

  function renderKeyForm(message) {
    generation++;
    timers.forEach(clearInterval);
    timers = [];
    const input = h("input", { id: "api-key", name: "api-key", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
    const out = h("div", { role: "alert" }, message ? h("p", { class: "problem", text: message }) : null);
    const form = h("form", {
      class: "card narrow", "aria-labelledby": "key-title",
      onsubmit: async (ev) => {
        ev.preventDefault();
        apiKey = input.value.trim();
        input.value = "";
        try {
          await api("/datasets?limit=1");
          showAuth();
          route();
        } catch (e) {
          if (!(e instanceof NeedKey)) fill(out, problemBox(e));
        }
      },
    },
    h("h1", { id: "key-title", text: "API key required" }),
    h("p", { text: "This service runs with API keys. The key is kept in this tab's memory only: not in the address, not in storage; closing or reloading the tab forgets it." }),
    h("label", { for: "api-key", text: "API key" }), input,
    h("button", { type: "submit", text: "Use key" }), out);
    fill(main, form);
    input.focus();
  }

  // --- datasets -----------------------------------------------------------------------------------

  function csvHeader(text) {
    const line = text.split(/\r?\n/, 1)[0] || "";
    const cells = [];
    let cell = "", quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
      } else if (c === '"') quoted = true;
      else if (c === ",") { cells.push(cell); cell = ""; } else cell += c;
    }
    cells.push(cell);
    return cells.map((s) => s.trim()).filter(Boolean);
  }

  function columnField(name, label, columns, guess, hint) {
    const id = "upload-" + name;
    const control = columns
      ? h("select", { id, name, required: true }, columns.map((c) => h("option", { value: c, text: c, selected: c === guess })))
      : h("input", { id, name, required: true, autocomplete: "off" });
    return h("div", { class: "field" }, h("label", { for: id, text: label }), control, hint ? h("small", { text: hint }) : null);
  }

  function uploadForm(onDone) {
    const pickers = h("div", { class: "row" });
    const setColumns = (columns) => {
      const lower = (columns || []).map((c) => c.toLowerCase());
      const pick = (names, fallback) => {
        const i = lower.findIndex((c) => names.includes(c));
        return columns && (i >= 0 ? columns[i] : fallback);
      };
      fill(pickers, 
        columnField("target", "Target column", columns, pick(["y", "target", "label", "outcome"], columns && columns[columns.length - 1]), columns ? null : "the label column's name"),
        columnField("environment", "Environment column", columns, pick(["env", "environment", "site", "domain", "group"], columns && columns[0]), columns ? null : "the column naming each row's environment"));
    };
    setColumns(null);
    const out = h("div", { class: "out", "aria-live": "polite" });
    const file = h("input", {
      id: "upload-file", name: "file", type: "file", accept: ".csv,.parquet,.pq,text/csv", required: true,
      onchange: async () => {
        const f = file.files[0];
        if (f && /\.csv$/i.test(f.name)) setColumns(csvHeader(await f.slice(0, 65536).text()));
        else setColumns(null);
      },
    });
    const form = h("form", {
      class: "card", "aria-labelledby": "upload-title",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const data = new FormData(form);
        for (const k of ["features", "name"]) if (!String(data.get(k) || "").trim()) data.delete(k);
        fill(out, h("p", { text: "Uploading…" }));
        try {
          const ds = await api("/datasets", { method: "POST", body: data });
          markInvalid(form, null);
          fill(out, h("p", { class: "ok" }, "Uploaded ", h("a", { href: `#/datasets/${ds.id}`, text: ds.name }),
            ` — ${ds.n_rows} rows, ${ds.environments.length} environments, ${ds.feature_names.length} features.`),
            (ds.warnings || []).length ? h("ul", { class: "upload-warnings" }, ds.warnings.map((w) => h("li", { text: w }))) : null);
          announce(`Dataset ${ds.name} uploaded`);
          onDone(ds);
        } catch (e) {
          if (e instanceof NeedKey) return;
          markInvalid(form, e);
          fill(out, problemBox(e));
        }
      },
    },
    h("h2", { id: "upload-title", text: "Upload a dataset" }),
    h("p", { class: "hint", text: "CSV or Parquet; one row per example, a target column and a column naming each row's environment. Every other numeric column is a feature unless you list them." }),
    h("div", { class: "field" }, h("label", { for: "upload-file", text: "File" }), file),
    pickers,
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "upload-features", text: "Features (optional)" }), h("input", { id: "upload-features", name: "features", placeholder: "comma-separated; default: every other numeric column" })),
      h("div", { class: "field" }, h("label", { for: "upload-name", text: "Name (optional)" }), h("input", { id: "upload-name", name: "name", placeholder: "default: the file name" }))),
    h("button", { type: "submit", text: "Upload" }), out);
    return form;
  }

  async function datasetsPage() {
    const list = h("div");
    const load = async () => {
      const page = await api("/datasets?limit=200");
      fill(list, page.items.length ? table(`${page.items.length} dataset(s), newest first`,
        ["Name", "Rows", "Environments", "Features", "Created", "Id"],
        page.items.map((d) => [h("a", { href: `#/datasets/${d.id}`, text: d.name }), String(d.n_rows), String(d.n_environments),
          String(d.n_features), when(d.created_at), h("code", { text: short(d.id) })]), { id: "datasets-table" })
        : h("p", { text: "No datasets yet: upload one above." }));
    };
    fill(main, h("h1", { text: "Datasets" }), uploadForm(load), h("h2", { text: "Your datasets" }), list);
    await load();
  }

  async function datasetPage(id) {
    const d = await api(`/datasets/${encodeURIComponent(id)}`);
    const envs = d.environments || [];
    const chart = window.Charts.bars({
      title: "Rows per environment", categories: envs.map((e) => e.name), series: [{ name: "rows", values: envs.map((e) => e.n_rows) }], axisLabel: "rows",
    });
    fill(main, 
      h("h1", {}, "Dataset ", h("span", { text: d.name })),
      h("p", {}, h("a", { class: "button", href: `#/submit?dataset=${d.id}`, text: "Train a model on it" }), " ",
        h("a", { class: "button secondary", href: `#/jobs?dataset_id=${d.id}`, text: "Jobs on it" })),
      dl([["Id", h("code", { text: d.id })], ["sha256", h("code", { text: d.sha256 })], ["Rows", String(d.n_rows)], ["Target", d.target], ["Created", when(d.created_at)]]),
      figure("Rows per environment", chart, null, ["Environment", "Rows"], envs.map((e) => [e.name, String(e.n_rows)]), "rows"),
      h("h2", { text: "Columns" }),
      table(null, ["Column", "Role"], [...(d.feature_names || []).map((f) => [f, featureRole(f, d.text_features || {}, d.missing_features || {})]), [d.target, targetRole(d.target_labels)]], { id: "columns-table" }));
  }

  // A one-hot feature "<column>=<value>" of a text column the upload encoded says so, and its reference;
  // a column with missing cells and its "<column> is missing" feature say how they were filled.
  function featureRole(name, textFeatures, missingFeatures) {
    for (const [column, fill] of Object.entries(missingFeatures)) {
      if (name === `${column} is missing`) return `feature: 1 where ${column} is missing`;
      if (name === column && fill !== null) return `feature (missing cells hold its mean, ${fill.toPrecision(6)})`;
    }
    for (const [column, levels] of Object.entries(textFeatures)) {
      if (name.startsWith(`${column}=`) && levels.includes(name.slice(column.length + 1))) {
        return `feature: 1 where ${column} is ${name.slice(column.length + 1)} (text column; reference ${levels[0]})`;
      }
    }
    return "feature";
  }

  function targetRole(labels) {
    return labels ? `target: ${labels[0]} is 0, ${labels[1]} is 1` : "target";
  }

  // --- jobs ---------------------------------------------------------------------------------------

  // GET /datasets lists summaries; a form that needs a dataset's environments reads it by id, once.
  const datasetDetails = {};
  async function datasetDetail(id) {
    if (!datasetDetails[id]) datasetDetails[id] = await api(`/datasets/${encodeURIComponent(id)}`);
    return datasetDetails[id];
  }

  async function datasetNames() {
    try {
      const page = await api("/datasets?limit=200");
      return page.items;
    } catch (e) {
      if (e instanceof NeedKey) throw e;
      return [];
    }
  }

  function meanError(job) {
    // List items (GET /jobs) are summaries: the test summary is job.summary, not job.result.
    const s = job.summary || (job.result && job.result.summary);
    return s ? `${fmt(s.mean_error)} ${s.metric || ""}` : "–";
  }

  function progressCell(job) {
    const p = job.progress || {};
    const total = p.total || null;
    const bar = h("progress", { max: total || 1, value: total ? Math.min(p.step || 0, total) : (TERMINAL.has(job.status) ? 1 : 0), "aria-label": `progress of job ${short(job.id)}` });
    return h("span", { class: "progress" }, bar, ` ${p.step ?? 0}${total ? " / " + total : ""}`);
  }

  async function jobsPage(query) {
    const [algorithms, datasets] = await Promise.all([api("/algorithms"), datasetNames()]);
    const names = Object.fromEntries(datasets.map((d) => [d.id, d.name]));
    const select = (name, label, options) => h("div", { class: "field" },
      h("label", { for: `filter-${name}`, text: label }),
      h("select", { id: `filter-${name}`, name, onchange: apply }, h("option", { value: "", text: "any" }),
        options.map(([v, t]) => h("option", { value: v, text: t, selected: query.get(name) === v }))));
    const text = (name, label, hint) => h("div", { class: "field" }, h("label", { for: `filter-${name}`, text: label }),
      h("input", { id: `filter-${name}`, name, value: query.get(name) || "", placeholder: hint, autocomplete: "off" }));
    function apply() {
      const q = new URLSearchParams();
      for (const n of form.querySelectorAll("select, input")) if (n.value.trim()) q.set(n.name, n.value.trim());
      location.hash = "#/jobs" + (q.toString() ? "?" + q : "");
    }
    const SORTS = [["-created_at", "newest first"], ["created_at", "oldest first"], ["mean_error", "Mean_Error, lowest first"],
      ["-mean_error", "Mean_Error, highest first"], ["worst_error", "worst error, lowest first"], ["name", "name"], ["duration_s", "duration"]];
    const form = h("form", { class: "filters", role: "search", "aria-label": "Filter jobs", onsubmit: (ev) => { ev.preventDefault(); apply(); } },
      text("q", "Search", "name or description"), text("tag", "Tag", "one tag"),
      select("status", "Status", ["queued", "running", "succeeded", "failed", "cancelled"].map((s) => [s, s])),
      select("algorithm", "Algorithm", algorithms.map((a) => [a.name, a.name])),
      select("dataset_id", "Dataset", datasets.map((d) => [d.id, d.name])),
      h("div", { class: "field" }, h("label", { for: "filter-sort", text: "Sort" }),
        h("select", { id: "filter-sort", name: "sort", onchange: apply }, SORTS.map(([v, t]) => h("option", { value: v, text: t, selected: (query.get("sort") || "-created_at") === v })))),
      h("button", { type: "submit", text: "Search" }));
    const body = h("div");
    const more = h("p");
    const picked = new Set();
    const compare = h("button", { type: "button", id: "jobs-compare", class: "secondary", disabled: true, text: "Compare selected",
      onclick: () => { location.hash = `#/compare?ids=${[...picked].join(",")}`; } });
    const q = new URLSearchParams({ limit: "50" });
    for (const k of ["status", "algorithm", "dataset_id", "q", "tag", "sort"]) if (query.get(k)) q.set(k, query.get(k));
    let rows = [];
    let cursor = null;
    const row = (j) => [h("span", {}, h("input", { type: "checkbox", class: "pick", "aria-label": `select job ${short(j.id)} to compare`, checked: picked.has(j.id),
        onchange: (ev) => { if (ev.target.checked) picked.add(j.id); else picked.delete(j.id); compare.disabled = picked.size < 2; } }), " ",
        h("a", { href: `#/jobs/${j.id}`, text: short(j.id) })),
      j.name || "–", (j.tags || []).join(", ") || "–", badge(j.status), j.algorithm,
      j.dataset_id ? h("a", { href: `#/datasets/${j.dataset_id}`, text: names[j.dataset_id] || short(j.dataset_id) }) : "–",
      progressCell(j), meanError(j), when(j.created_at)];
    const render = () => {
      fill(body, rows.length ? table(`${rows.length} job(s) shown${cursor ? ", more below" : ""}`,
        ["Job", "Name", "Tags", "Status", "Algorithm", "Dataset", "Progress", "Mean error", "Created"],
        rows.map(row), { id: "jobs-table" }) : h("p", { text: "No jobs match." }));
      fill(more, cursor ? h("button", { type: "button", id: "jobs-more", class: "secondary", text: "Load more jobs", onclick: async () => {
        const page = await api(`/jobs?${q}&cursor=${encodeURIComponent(cursor)}`);
        rows = rows.concat(page.items); cursor = page.next_cursor; render();
        announce(`${rows.length} jobs shown`);
      } }) : (rows.length ? h("span", { class: "hint", id: "jobs-all", text: "All matching jobs are shown." }) : null));
    };
    const load = async () => {
      // Live refresh of the loaded rows only while one of them can still change.
      const lq = new URLSearchParams(q);
      lq.set("limit", String(Math.min(500, Math.max(50, rows.length))));
      const page = await api(`/jobs?${lq}`);
      rows = page.items; cursor = page.next_cursor; render();
      return page.items.some((j) => !TERMINAL.has(j.status));
    };
    fill(main, h("h1", { text: "Jobs" }), h("p", {}, h("a", { class: "button", href: "#/submit", text: "Submit a job" }), " ", compare), form, body, more);
    if (await load()) { const stop = every(2000, async () => { if (!(await load())) stop(); }); }
  }

  async function comparePage(query) {
    const ids = (query.get("ids") || "").split(",").filter(Boolean);
    const doc = await api(`/jobs/compare?${new URLSearchParams(ids.map((i) => ["ids", i]))}`);
    const heads = ["", ...doc.jobs.map((j) => j.name || short(j.id))];
    const s = (j, k) => (j.summary ? fmt(j.summary[k]) : "–");
    const envNames = Object.keys(doc.environments);
    const svg = window.Charts.bars({ title: `${doc.metric || "error"} per environment by job`, categories: envNames,
      series: doc.jobs.map((j, i) => ({ name: j.name || short(j.id), values: doc.environments[envNames[0]] ? envNames.map((e) => doc.environments[e][i]) : [] })),
      axisLabel: doc.metric || "error" });
    fill(main, h("h1", { text: `Compare ${doc.jobs.length} jobs` }),
      table("Jobs side by side", heads, [
        ["Job", ...doc.jobs.map((j) => h("a", { href: `#/jobs/${j.id}`, text: short(j.id) }))],
        ["Algorithm", ...doc.jobs.map((j) => j.algorithm)], ["Status", ...doc.jobs.map((j) => badge(j.status))],
        ["Mean_Error", ...doc.jobs.map((j) => s(j, "mean_error"))], ["Worst", ...doc.jobs.map((j) => s(j, "worst_error"))],
        ...doc.differing_params.map((k) => [`param ${k}`, ...doc.params[k].map((v) => JSON.stringify(v))])], { id: "compare-table" }),
      envNames.length ? figure("Error per environment", svg, "One bar per job; values printed at the bar ends.", ["Environment", ...heads.slice(1)],
        envNames.map((e) => [e, ...doc.environments[e].map(fmt)]), "compare-environments") : null,
      Object.keys(doc.covariate_weights).length ? table("w per covariate", ["Covariate", ...heads.slice(1)],
        Object.entries(doc.covariate_weights).map(([c, v]) => [c, ...v.map(fmt)]), { id: "compare-weights" }) : null);
  }

  function envChart(job) {
    const envs = (job.result && job.result.environments) || [];
    if (!envs.length) return null;
    const summary = job.result.summary || {};
    const metric = summary.metric || (job.task === "classification" ? "log_loss" : "rmse");
    const rows = envs.filter((e) => typeof e[metric] === "number");
    if (!rows.length) return null;
    const svg = window.Charts.bars({
      title: `${metric} per environment, train and test`, categories: rows.map((e) => e.name),
      series: [{ name: metric, values: rows.map((e) => e[metric]) }],
      barPattern: (i) => (rows[i].split === "test" ? 1 : 0), notes: rows.map((e) => e.split),
      legend: [{ name: "train", pattern: 0 }, { name: "test", pattern: 1 }], axisLabel: metric,
    });
    return figure(`Error per environment (${metric})`, svg, "Solid bars: training environments; hatched: test environments.",
      ["Environment", "Split", "Rows", metric], rows.map((e) => [e.name, e.split, String(e.n_rows ?? "–"), fmt(e[metric])]), "environments");
  }

  // selection.covariate_weights of a SAL fit: w's range over the fold fits and which covariates the
  // data determine (an MLP's sits one level down, under the linear path that learned its w).
  function weightEvidence(job) {
    const sel = job.result && job.result.selection;
    let ev = sel && sel.covariate_weights;
    if (ev && ev.selection && ev.selection.covariate_weights) ev = ev.selection.covariate_weights;
    return ev && Array.isArray(ev.determined) ? ev : null;
  }

  function weightsChart(job) {
    const w = job.result && job.result.covariate_weights;
    if (!w || !Object.keys(w).length) return null;
    const names = Object.keys(w);
    const values = names.map((n) => w[n]);
    const ev = weightEvidence(job);
    const determined = names.map((_, i) => !ev || ev.determined[i] !== false);
    const judged = values.filter((_, i) => determined[i] && values[i] > 0);
    const lo = Math.min(...judged), hi = Math.max(...judged);
    const positive = values.filter((v) => v > 0);
    const log = positive.length === values.length && Math.max(...positive) / Math.min(...positive) >= 100;
    // Stable: in the upper half of the (log) range of w over the covariates the data determine; needs a
    // spread of at least 2x to call. Where y does not depend on a covariate, any w fits alike: no verdict.
    const mid = (Math.log(lo) + Math.log(hi)) / 2;
    const spread = judged.length > 1 && hi / lo >= 2;
    const verdict = values.map((v, i) => (!determined[i] ? "not determined" : !spread ? "uniform" : Math.log(v) >= mid ? "stable" : "unstable"));
    const range = names.map((_, i) => (ev && ev.low && ev.high ? `${fmt(ev.low[i])} – ${fmt(ev.high[i])}` : "–"));
    const svg = window.Charts.bars({
      title: "Learned covariate weight w per covariate", categories: names, series: [{ name: "w", values }], log,
      barPattern: (i) => (verdict[i] === "unstable" ? 1 : 0), notes: verdict,
      legend: [{ name: "stable (large w)", pattern: 0 }, { name: "unstable (w near its floor)", pattern: 1 }], axisLabel: "w",
    });
    const evidence = ev
      ? ' "w over folds": the smallest and largest w over the fold fits of the chosen λ (each without a fifth of the rows). "not determined": y does not depend on that covariate (pooled least-squares |t| < 2), so its w says nothing about stability.'
      : "";
    return figure("Learned w per covariate", svg,
      `A large w means the adversary can barely move that covariate (judged stable); w near 1 leaves it free to break a spurious correlation (judged unstable).${log ? " Log scale: w spans " + Math.round(Math.log10(Math.max(...positive) / Math.min(...positive))) + " decades." : ""}${evidence}`,
      ["Covariate", "w", "w over folds", "Judged"], names.map((n, i) => [n, fmt(values[i]), range[i], verdict[i]]), "weights");
  }

  function coefficientsChart(job) {
    const c = job.result && job.result.coefficients;
    if (!c || !Object.keys(c).length) return null;
    const names = Object.keys(c);
    const svg = window.Charts.bars({ title: "Coefficient θ per covariate", categories: names, series: [{ name: "θ", values: names.map((n) => c[n]) }], axisLabel: "θ (covariate units)" });
    const intercept = job.result.intercept;
    return figure("θ per covariate", svg, `In each covariate's own units${typeof intercept === "number" ? "; intercept " + fmt(intercept) : ""}.`,
      ["Covariate", "θ"], names.map((n) => [n, fmt(c[n])]), "coefficients");
  }

  function historyChart(job) {
    const history = (job.result && job.result.history) || [];
    if (!history.length) return null;
    const trainEnvs = job.train_environments || [];
    const rows = history.map((r, i) => {
      let losses = r.env_losses || {};
      if (Array.isArray(losses)) losses = Object.fromEntries(losses.map((v, k) => [trainEnvs[k] || `env_${k}`, v]));
      const vals = Object.values(losses).filter((v) => typeof v === "number");
      const risk = typeof r.risk === "number" ? r.risk : typeof r.objective === "number" ? r.objective : vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null;
      return { round: typeof r.round === "number" ? r.round : i + 1, risk, losses };
    });
    const envNames = [...new Set(rows.flatMap((r) => Object.keys(r.losses)))];
    const series = [{ name: "risk", values: rows.map((r) => r.risk) }, ...envNames.map((n) => ({ name: `loss: ${n}`, values: rows.map((r) => r.losses[n] ?? null) }))];
    const svg = window.Charts.lines({ title: "Risk per round", xs: rows.map((r) => r.round), series, xLabel: "round", yLabel: "risk / loss" });
    const mlp = job.model && job.model.kind === "mlp";
    return figure("Risk per round", svg, rows.length === 1 ? (mlp ? "The network's fit is recorded as one round: its final risk and each training environment's loss (one point per series)." : "One round (a closed-form or single-stage fit): one point per series.") : `${rows.length} rounds; solid: the risk minimised, dashed: each training environment's loss.`,
      ["Round", "Risk", ...envNames], rows.map((r) => [String(r.round), fmt(r.risk), ...envNames.map((n) => fmt(r.losses[n]))]), "history");
  }

  function reproducibilityBlock(job) {
    const r = job.reproducibility;
    if (!r) return null;
    const versions = r.versions ? Object.entries(r.versions).map(([k, v]) => `${k} ${v}`).join(", ") : "–";
    return h("section", { "aria-labelledby": "repro-title" }, h("h2", { id: "repro-title", text: "Reproducibility record" }),
      dl([["Dataset sha256", h("code", { text: r.dataset_sha256 || "–" })], ["Algorithm", r.algorithm], ["Task", r.task], ["Seed", String(r.seed)],
        ["Parameters", h("code", { text: JSON.stringify(r.params || {}) })], ["Model", h("code", { text: JSON.stringify(r.model || {}) })],
        ["Train environments", (r.train_environments || []).join(", ")], ["Test environments", (r.test_environments || []).join(", ")],
        ["Device", deviceText(job.device)], ["Versions", versions], ["Host", r.hostname || "–"]]));
  }

  // The job's one device record: what was asked, what was chosen at submit and why, where it ran.
  function deviceText(d) {
    if (!d) return "–";
    return `${d.ran_on || d.chosen || "–"} (asked: ${d.requested}${d.reason ? `; ${d.reason}` : ""})`;
  }

  async function jobPage(id) {
    let job = await api(`/jobs/${encodeURIComponent(id)}`);
    const head = h("div", { class: "job-head" });
    const out = h("div", { "aria-live": "polite" });
    const cancel = h("button", { type: "button", id: "job-cancel", text: "Cancel", onclick: async () => {
      try {
        const j = await api(`/jobs/${job.id}/cancel`, { method: "POST" });
        announce(j.status === "cancelled" ? "Job cancelled" : "Cancel requested: the job stops at its next checkpoint");
        fill(out, h("p", { class: "ok", text: j.status === "cancelled" ? "Cancelled." : "Cancel requested: the job stops at its next checkpoint." }));
        await refresh();
      } catch (e) { if (!(e instanceof NeedKey)) fill(out, problemBox(e)); }
    } });
    const rerun = h("button", { type: "button", id: "job-rerun", class: "secondary", text: "Rerun", onclick: async () => {
      try {
        const j = await api(`/jobs/${job.id}/rerun`, { method: "POST" });
        location.hash = `#/jobs/${j.id}`;
      } catch (e) { if (!(e instanceof NeedKey)) fill(out, problemBox(e)); }
    } });
    const weights = h("button", { type: "button", id: "job-weights", class: "secondary", text: "Download weights (safetensors)", onclick: async () => {
      try { await download(`/jobs/${job.id}/weights?format=safetensors`, `${job.algorithm}-${short(job.id)}.safetensors`); } catch (e) { if (!(e instanceof NeedKey)) fill(out, problemBox(e)); }
    } });
    const weightsJson = h("button", { type: "button", id: "job-weights-json", class: "secondary", text: "Download weights (JSON)", onclick: async () => {
      try { await download(`/jobs/${job.id}/weights?format=json`, `${job.algorithm}-${short(job.id)}.json`); } catch (e) { if (!(e instanceof NeedKey)) fill(out, problemBox(e)); }
    } });
    const del = h("button", { type: "button", id: "job-delete", class: "secondary", text: "Delete", onclick: async () => {
      if (!window.confirm(`Delete job ${short(job.id)} and its result?`)) return;
      try { await api(`/jobs/${job.id}`, { method: "DELETE" }); announce("Job deleted"); location.hash = "#/jobs"; }
      catch (e) { if (!(e instanceof NeedKey)) fill(out, problemBox(e)); }
    } });
    const body = h("div");
    const live = h("div", { id: "live-curve" });
    const points = [];
    let shown = null;

    // Live curve: the risk each round reports, read from GET /jobs/{id}/events while the job runs
    // (fetch, not EventSource, so the key goes in a header). The stored history replaces it at the end.
    function drawLive() {
      const svg = window.Charts.lines({ title: "Risk as the fit runs", xs: points.map((p) => p[0]),
        series: [{ name: "risk", values: points.map((p) => p[1]) }], xLabel: "progress step", yLabel: "risk" });
      fill(live, figure("Live: risk per round", svg, `${points.length} round(s) so far, from the job's event stream.`,
        ["Step", "Risk"], points.map((p) => [String(p[0]), fmt(p[1])]), "live"));
    }
    async function follow() {
      const gen = generation;
      const controller = new AbortController();
      const watchdog = setInterval(() => { if (gen !== generation) { controller.abort(); clearInterval(watchdog); } }, 500);
      const headers = new Headers({ Accept: "text/event-stream" });
      if (apiKey) headers.set("Authorization", "Bearer " + apiKey);
      try {
        const response = await fetch(`/jobs/${encodeURIComponent(id)}/events`, { headers, signal: controller.signal, cache: "no-store" });
        if (!response.ok || !response.body) return;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done || gen !== generation) return;
          buffer += value;
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const fields = {};
            for (const line of buffer.slice(0, cut).split("\n")) {
              if (!line || line.startsWith(":")) continue;
              const i = line.indexOf(":");
              fields[line.slice(0, i)] = line.slice(i + 1).replace(/^ /, "");
            }
            buffer = buffer.slice(cut + 2);
            if (!fields.data || fields.event === "final") continue;
            const data = JSON.parse(fields.data);
            const risk = data.metrics && data.metrics.risk;
            const step = data.progress ? data.progress.step : points.length;
            if (typeof risk === "number" && Number.isFinite(risk) && !(points.length && points[points.length - 1][0] === step)) {
              points.push([step, risk]);
              drawLive();
            }
          }
        }
      } catch (e) {
        if (e.name !== "AbortError") console.error(e);
      } finally {
        clearInterval(watchdog);
      }
    }

    function renderHead() {
      const p = job.progress || {};
      const total = p.total || null;
      const pct = total ? Math.round((100 * Math.min(p.step || 0, total)) / total) : null;
      fill(head, 
        h("p", { class: "job-status" }, "Status: ", badge(job.status), job.cancel_requested && !TERMINAL.has(job.status) ? " (cancel requested)" : "",
          job.sweep_id ? h("span", {}, " · trial of ", h("a", { href: `#/sweeps/${job.sweep_id}`, text: `sweep ${short(job.sweep_id)}` })) : "",
          job.rerun_of ? h("span", {}, " · rerun of ", h("a", { href: `#/jobs/${job.rerun_of}`, text: short(job.rerun_of) })) : ""),
        h("div", { class: "field" }, h("label", { for: "job-progress", text: `Progress: step ${p.step ?? 0}${total ? " of " + total : ""}${pct !== null ? ` (${pct}%)` : ""}` }),
          h("progress", { id: "job-progress", max: total || 1, value: total ? Math.min(p.step || 0, total) : (TERMINAL.has(job.status) ? 1 : 0) })),
        job.error ? h("div", { class: "problem", role: "alert" }, h("strong", { text: job.error.type || "error" }), ": ", job.error.message || "") : null);
      cancel.disabled = TERMINAL.has(job.status) || job.cancel_requested;
      del.disabled = !TERMINAL.has(job.status) || Boolean(job.sweep_id);
      rerun.disabled = !TERMINAL.has(job.status);
      weights.disabled = weightsJson.disabled = job.status !== "succeeded";
    }

    function renderBody() {
      const r = job.result;
      const s = r && r.summary;
      const cert = r && r.certificate;
      const attempts = job.attempts || [];
      fill(body, 
        dl([["Name", h("span", { id: "job-name", text: job.name || "–" })], ["Tags", (job.tags || []).join(", ") || "–"],
          job.description ? ["Description", job.description] : null, ["Algorithm", job.algorithm], ["Task", job.task],
          ["Dataset", job.dataset_id ? h("a", { href: `#/datasets/${job.dataset_id}`, text: short(job.dataset_id) }) : "–"],
          ["Train environments", (job.train_environments || []).join(", ")], ["Test environments", (job.test_environments || []).join(", ") || "–"],
          ["Seed", String(job.seed)], ["Parameters", h("code", { text: JSON.stringify(job.params || {}) })],
          ["Created", when(job.created_at)], ["Started", when(job.started_at)], ["Finished", when(job.finished_at)],
          r ? ["Duration", `${fmt(r.duration_s)} s on ${(job.device && (job.device.ran_on || job.device.chosen)) || "?"}`] : null]),
        s ? h("section", { "aria-labelledby": "summary-title" }, h("h2", { id: "summary-title", text: "Test summary" }),
          dl([["Metric", s.metric], ["Mean_Error", h("span", { id: "mean-error", text: fmt(s.mean_error) })], ["Std_Error", fmt(s.std_error)],
            ["Worst", `${fmt(s.worst_error)}${s.worst_environment ? " (" + s.worst_environment + ")" : ""}`],
            r.reference ? ["Against ERM", h("span", { id: "vs-erm", text: versusErm(r.reference) })] : null,
            lambdaChoice(r.selection) ? ["λ chosen", h("span", { id: "lambda-choice", text: lambdaChoice(r.selection) })] : null])) : null,
        r ? h("section", { class: "charts", "aria-label": "Charts" }, envChart(job), weightsChart(job), coefficientsChart(job), historyChart(job)) : null,
        cert ? h("section", { "aria-labelledby": "cert-title" }, h("h2", { id: "cert-title", text: "Certificate (Theorem 1)" }),
          dl([["ρ̂ (transport budget)", fmt(cert.rho_hat)], ["Worst-case risk", fmt(cert.worst_case_risk)]])) : null,
        reproducibilityBlock(job),
        attempts.length ? h("section", {}, h("h2", { text: "Attempts" }), table(null, ["#", "Started", "Worker"], attempts.map((a) => [String(a.number), when(a.started_at), a.worker || "–"]))) : null,
        h("details", {}, h("summary", { text: "Raw JSON" }), h("pre", { text: JSON.stringify(job, null, 2) })));
    }

    async function refresh() {
      job = await api(`/jobs/${encodeURIComponent(id)}`);
      renderHead();
      // Re-render the body only when something in it changed, so reading it is not disturbed.
      const key = JSON.stringify([job.status, job.result, job.attempts, job.reproducibility]);
      if (key !== shown) { shown = key; renderBody(); }
      return !TERMINAL.has(job.status);
    }

    fill(main, h("h1", {}, "Job ", h("code", { text: short(job.id) }), " · ", job.algorithm),
      head, h("div", { class: "actions" }, cancel, rerun, weights, weightsJson, del), out, live, body);
    // Conditional polling: only while the job can still change, paused while the tab is hidden.
    if (await refresh()) {
      follow();
      const stop = every(1000, async () => {
        const before = job.status;
        if (!(await refresh())) { stop(); announce(`Job ${job.status}`); } else if (before !== job.status) announce(`Job ${job.status}`);
      });
    }
  }

  // --- submit -------------------------------------------------------------------------------------

  function paramField(p) {
    const id = `param-${p.name}`;
    const hintId = `${id}-hint`;
    const range = p.choices ? `one of ${p.choices.join(", ")}` : (p.low !== null && p.low !== undefined) || (p.high !== null && p.high !== undefined) ? `range [${fmt(p.low)}, ${fmt(p.high)}]` : "";
    let control;
    if (p.choices) {
      control = h("select", { id, name: p.name, "aria-describedby": hintId }, p.choices.map((c) => h("option", { value: String(c), text: String(c), selected: c === p.default })));
    } else if (p.type === "boolean") {
      control = h("select", { id, name: p.name, "aria-describedby": hintId }, ["true", "false"].map((c) => h("option", { value: c, text: c, selected: String(p.default) === c })));
    } else if (p.type !== "integer" && p.type !== "number" && /integer|number/.test(p.type || "")) {
      // A number or a word (e.g. "number or 'auto'"): free text, sent as a number when it reads as one.
      control = h("input", { id, name: p.name, value: p.default === null ? "" : String(p.default), inputmode: "decimal", "aria-describedby": hintId });
    } else if (p.type === "integer" || p.type === "number") {
      control = h("input", { id, name: p.name, type: "number", step: p.type === "integer" ? "1" : "any", value: String(p.default), "aria-describedby": hintId, min: p.low ?? null, max: p.high ?? null });
    } else {
      control = h("input", { id, name: p.name, value: p.default === null ? "" : String(p.default), "aria-describedby": hintId });
    }
    control.dataset.default = String(p.default);
    control.dataset.type = p.type;
    return h("div", { class: "field param" }, h("label", { for: id }, h("code", { text: p.name }), ` (${p.type})`), control,
      h("small", { id: hintId, text: `${p.doc || ""} ${range ? "· " + range : ""} · default ${p.default}`.trim() }));
  }

  function envChecks(name, legend, envs, checked, hint) {
    return h("fieldset", { class: "envs", id: `fs-${name}` }, h("legend", { text: legend }), hint ? h("small", { text: hint }) : null,
      envs.map((e, i) => h("label", { class: "check" }, h("input", { type: "checkbox", name, value: e.name, checked: checked(e, i) }), ` ${e.name} (${e.n_rows} rows)`)));
  }

  // Shown first on the form; every other parameter sits under "Advanced" at its default.
  const MAIN_PARAMS = new Set(["lambda_", "rounds", "w_max", "steps", "lr", "penalty_weight"]);

  async function submitPage(query) {
    const [algorithms, datasets] = await Promise.all([api("/algorithms"), datasetNames()]);
    if (!datasets.length) {
      fill(main, h("h1", { text: "Submit a job" }), h("p", {}, "Upload a dataset first: ", h("a", { href: "#/datasets", text: "Datasets" }), "."));
      return;
    }
    const byName = Object.fromEntries(algorithms.map((a) => [a.name, a]));
    const initial = query.get("algorithm") && byName[query.get("algorithm")] ? query.get("algorithm") : byName.sal ? "sal" : algorithms[0].name;
    const dsSelect = h("select", { id: "submit-dataset", name: "dataset_id", onchange: () => renderEnvs() },
      datasets.map((d) => h("option", { value: d.id, text: `${d.name} (${short(d.id)})`, selected: d.id === query.get("dataset") })));
    const algSelect = h("select", { id: "submit-algorithm", name: "algorithm", onchange: () => renderParams() },
      algorithms.map((a) => h("option", { value: a.name, text: a.name, selected: a.name === initial })));
    const algSummary = h("p", { class: "hint", id: "algorithm-summary" });
    const envBox = h("div", { class: "row" });
    const paramBox = h("fieldset", { class: "params" });
    const mlpBox = h("div", { class: "field", hidden: true }, h("label", { for: "submit-hidden", text: "Hidden layer widths" }), h("input", { id: "submit-hidden", name: "hidden", value: "64", placeholder: "e.g. 64,32" }));
    const modelSelect = h("select", { id: "submit-model", name: "kind", onchange: () => { mlpBox.hidden = modelSelect.value !== "mlp"; } },
      h("option", { value: "linear", text: "linear" }), h("option", { value: "mlp", text: "MLP" }));
    const out = h("div", { "aria-live": "polite" });

    async function renderEnvs() {
      const id = (datasets.find((x) => x.id === dsSelect.value) || datasets[0]).id;
      const d = await datasetDetail(id);
      if ((dsSelect.value || datasets[0].id) !== id) return;  // another dataset was picked meanwhile
      const envs = d.environments || [];
      fill(envBox, 
        envChecks("train_environments", "Train environments", envs, (e, i) => i < 2, "SAL and IRM need at least two."),
        envChecks("test_environments", "Test environments", envs, () => false, "None ticked: every environment not trained on."));
    }
    function renderParams() {
      const a = byName[algSelect.value];
      algSummary.textContent = `${a.summary || ""} Needs at least ${a.min_environments} training environment(s)${a.linear_only ? "; linear models only" : ""}.`;
      const main_ = a.params.filter((p) => MAIN_PARAMS.has(p.name));
      const rest = a.params.filter((p) => !MAIN_PARAMS.has(p.name));
      fill(paramBox, h("legend", { text: `${a.name} parameters (defaults filled in)` }), ...main_.map(paramField),
        rest.length ? h("details", { id: "advanced-params" }, h("summary", { text: `Advanced: ${rest.length} more parameter(s), at their defaults` }), ...rest.map(paramField)) : null);
    }
    renderEnvs();
    renderParams();

    const form = h("form", {
      class: "card", "aria-labelledby": "submit-title",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const ticked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((n) => n.value);
        const params = {};
        for (const n of paramBox.querySelectorAll("input, select")) {
          if (n.value === "" || n.value === n.dataset.default) continue;
          const t = n.dataset.type;
          const numeric = /integer|number/.test(t) && n.value.trim() !== "" && Number.isFinite(Number(n.value));
          params[n.name] = numeric ? Number(n.value) : t === "boolean" ? n.value === "true" : n.value;
        }
        const model = { kind: modelSelect.value };
        if (model.kind === "mlp") model.hidden = form.querySelector("#submit-hidden").value.split(",").map((s) => parseInt(s, 10)).filter((v) => !Number.isNaN(v));
        const test = ticked("test_environments");
        const body = {
          dataset_id: dsSelect.value, algorithm: algSelect.value, task: form.querySelector("#submit-task").value || undefined,
          train_environments: ticked("train_environments"), params, model,
          seed: Number(form.querySelector("#submit-seed").value || 0), device: form.querySelector("#submit-device").value,
        };
        if (test.length) body.test_environments = test;
        const name = form.querySelector("#submit-name").value.trim();
        const tags = form.querySelector("#submit-tags").value.split(",").map((t) => t.trim()).filter(Boolean);
        if (name) body.name = name;
        if (tags.length) body.tags = tags;
        fill(out, h("p", { text: "Submitting…" }));
        try {
          const job = await api("/jobs", { method: "POST", json: body });
          announce("Job submitted");
          location.hash = `#/jobs/${job.id}`;
        } catch (e) {
          if (e instanceof NeedKey) return;
          markInvalid(form, e);
          fill(out, problemBox(e));
          out.querySelector(".problem")?.focus?.();
        }
      },
    },
    h("h1", { id: "submit-title", text: "Submit a job" }),
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "submit-dataset", text: "Dataset" }), dsSelect),
      h("div", { class: "field" }, h("label", { for: "submit-algorithm", text: "Algorithm" }), algSelect),
      h("div", { class: "field" }, h("label", { for: "submit-task", text: "Task" }), h("select", { id: "submit-task", name: "task" }, h("option", { value: "", text: "from the labels (0/1: classification)" }), h("option", { value: "regression", text: "regression" }), h("option", { value: "classification", text: "classification (labels 0/1)" })))),
    algSummary, envBox,
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "submit-seed", text: "Seed" }), h("input", { id: "submit-seed", name: "seed", type: "number", min: "0", step: "1", value: "0" })),
      h("div", { class: "field" }, h("label", { for: "submit-device", text: "Device" }), h("select", { id: "submit-device", name: "device" }, ["auto", "cpu", "cuda"].map((d) => h("option", { value: d, text: d })))),
      h("div", { class: "field" }, h("label", { for: "submit-model", text: "Model" }), modelSelect), mlpBox),
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "submit-name", text: "Name (optional)" }), h("input", { id: "submit-name", name: "name", autocomplete: "off" })),
      h("div", { class: "field" }, h("label", { for: "submit-tags", text: "Tags (optional)" }), h("input", { id: "submit-tags", name: "tags", placeholder: "comma-separated words" }))),
    paramBox,
    h("button", { type: "submit", id: "submit-job", text: "Submit job" }), out);
    fill(main, form);
  }

  // --- sweeps -------------------------------------------------------------------------------------

  const meanStd = (m) => (m ? `${fmt(m.mean)} ± ${fmt(m.std)}` : "–");
  const SELECTION = {
    train_env_validation: "validation rows held out of each training environment",
    leave_one_env_out: "leave one training environment out",
    oracle: "ORACLE: selected on test error (an upper bound, not a fair comparison)",
  };

  // What each algorithm searches when ticked on the sweep form: SAL as a job runs it ("auto" λ
  // inside each trial), the others their default grids from sal_core.
  const SWEEP_SEARCH = { sal: { grid: { lambda_: ["auto"] } } };

  async function sweepsPage() {
    const [page, datasets, algorithms] = await Promise.all([api("/sweeps?limit=100"), datasetNames(), api("/algorithms")]);
    const out = h("div", { "aria-live": "polite" });
    const text = h("textarea", { id: "sweep-body", name: "sweep", rows: 12, spellcheck: "false", oninput: () => { text.dataset.edited = "1"; } });
    const dsSelect = h("select", { id: "sweep-dataset", name: "dataset_id", onchange: () => { renderEnvs(); sync(); } },
      datasets.map((d) => h("option", { value: d.id, text: `${d.name} (${short(d.id)})` })));
    const envBox = h("div");
    const algBox = h("fieldset", { class: "envs", id: "fs-sweep-algorithms" }, h("legend", { text: "Algorithms" }),
      algorithms.map((a) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "sweep-algorithm", value: a.name, checked: ["sal", "erm", "irm"].includes(a.name), onchange: () => sync() }),
        ` ${a.name}${SWEEP_SEARCH[a.name] ? " (λ auto)" : " (default grid)"}`)));
    const seeds = h("input", { id: "sweep-seeds", name: "seeds", value: "0,1,2", oninput: () => sync() });
    const selection = h("select", { id: "sweep-selection", name: "selection", onchange: () => sync() },
      Object.entries(SELECTION).map(([k, v]) => h("option", { value: k, text: `${k}: ${v}` })));
    async function renderEnvs() {
      const id = dsSelect.value;
      const d = datasets.some((x) => x.id === id) ? await datasetDetail(id) : null;
      if (dsSelect.value !== id) return;  // another dataset was picked meanwhile
      fill(envBox, d ? envChecks("sweep_train", "Train environments", d.environments, (e, i) => i < 2, "The rest are test environments.") : null);
      for (const n of envBox.querySelectorAll("input")) n.addEventListener("change", () => sync());
      sync();
    }
    function fromForm() {
      const ticked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((n) => n.value);
      return {
        dataset_id: dsSelect.value, train_environments: ticked("sweep_train"),
        algorithms: Object.fromEntries(ticked("sweep-algorithm").map((a) => [a, SWEEP_SEARCH[a] || {}])),
        seeds: seeds.value.split(",").map((v) => parseInt(v.trim(), 10)).filter((v) => !Number.isNaN(v)), selection: selection.value,
      };
    }
    // The JSON below mirrors the form until it is edited by hand; then it is what is sent.
    function sync() { if (!text.dataset.edited) text.value = JSON.stringify(fromForm(), null, 2); }
    const form = h("form", { class: "card", "aria-labelledby": "sweep-new-title", onsubmit: async (ev) => {
      ev.preventDefault();
      let body;
      if (text.dataset.edited) {
        try { body = JSON.parse(text.value); } catch (e) { fill(out, problemBox(new Error("Not valid JSON: " + e.message))); return; }
      } else body = fromForm();
      try {
        const s = await api("/sweeps", { method: "POST", json: body });
        location.hash = `#/sweeps/${s.id}`;
      } catch (e) { if (!(e instanceof NeedKey)) { markInvalid(form, e); fill(out, problemBox(e)); } }
    } },
    h("h2", { id: "sweep-new-title", text: "Start a sweep" }),
    datasets.length ? null : h("p", {}, "Upload a dataset first: ", h("a", { href: "#/datasets", text: "Datasets" }), "."),
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "sweep-dataset", text: "Dataset" }), dsSelect),
      h("div", { class: "field" }, h("label", { for: "sweep-seeds", text: "Seeds (comma-separated)" }), seeds),
      h("div", { class: "field" }, h("label", { for: "sweep-selection", text: "Selection" }), selection)),
    envBox, algBox,
    h("details", { id: "sweep-json" }, h("summary", { text: "Advanced: the request as JSON" }),
      h("label", { for: "sweep-body", text: "Sweep request (JSON, as POST /sweeps takes it; {} searches an algorithm's default grid; SAL's [\"auto\"] chooses λ inside each trial). Editing it here sends it as written." }), text),
    h("button", { type: "submit", id: "submit-sweep", text: "Start sweep" }), out);
    renderEnvs();
    sync();
    fill(main, h("h1", { text: "Sweeps" }),
      page.items.length ? table(`${page.items.length} sweep(s), newest first`, ["Sweep", "Status", "Selection", "Algorithms", "Trials done", "Created"],
        page.items.map((s) => [h("a", { href: `#/sweeps/${s.id}`, text: short(s.id) }), badge(s.status), s.oracle ? "oracle (test-set selection)" : s.selection,
          (s.algorithms || []).join(", "), `${s.progress ? s.progress.done : "?"} / ${s.progress ? s.progress.total : "?"}`, when(s.created_at)]), { id: "sweeps-table" })
        : h("p", { text: "No sweeps yet." }),
      form);
  }

  async function sweepPage(id) {
    const head = h("div");
    const body = h("div");
    let shown = null;
    const load = async () => {
      const s = await api(`/sweeps/${encodeURIComponent(id)}`);
      const p = s.progress || {};
      fill(head, 
        h("p", {}, "Status: ", badge(s.status), ` · trials ${p.done ?? "?"} of ${p.total ?? "?"} done (${p.succeeded ?? 0} succeeded, ${p.failed ?? 0} failed, ${p.running ?? 0} running, ${p.queued ?? 0} queued)`),
        h("label", { for: "sweep-progress", text: "Trials done" }), h("progress", { id: "sweep-progress", max: p.total || 1, value: p.done || 0 }),
        h("p", { class: s.oracle ? "problem" : "policy", id: "selection-policy" }, h("strong", { text: "Selection: " }), `${s.selection} — ${SELECTION[s.selection] || ""}`),
        dl([["Dataset", s.dataset_id ? h("a", { href: `#/datasets/${s.dataset_id}`, text: short(s.dataset_id) }) : "–"],
          ["Train environments", (s.train_environments || []).join(", ")], ["Test environments", (s.test_environments || []).join(", ")], ["Seeds", (s.seeds || []).join(", ")]]));
      const key = JSON.stringify(s.leaderboard);
      if (key !== shown) { shown = key; fill(body, leaderboard(s)); }
      return s.status === "running";
    };
    fill(main, h("h1", {}, "Sweep ", h("code", { text: short(id) })), head, body);
    if (await load()) { const stop = every(1500, async () => { if (!(await load())) { stop(); announce("Sweep finished"); } }); }
  }

  function leaderboard(s) {
    const board = s.leaderboard;
    if (!board) return h("p", { text: "The leaderboard appears once every trial has finished." });
    const rows = board.algorithms || [];
    const present = new Set(rows.flatMap((r) => Object.keys(r.environments || {})));
    // In the sweep's own order of test environments, then any others the rows name.
    const envNames = [...new Set([...(s.test_environments || []).filter((e) => present.has(e)), ...present])];
    const svg = window.Charts.bars({
      title: "Test error per environment by algorithm (mean over seeds)", categories: envNames,
      series: rows.map((r) => ({ name: r.algorithm, values: envNames.map((e) => (r.environments[e] ? r.environments[e].mean : null)) })),
      axisLabel: rows[0] ? rows[0].metric : "error",
    });
    const unselected = Object.entries(board.unselected || {});
    return h("div", {},
      h("h2", { text: "Leaderboard" }),
      board.note ? h("p", { class: "hint", text: board.note }) : null,
      table(`Ranked by test Mean_Error (${rows[0] ? rows[0].metric : ""}), mean ± std over seeds; hyper-parameters selected by ${board.selection} on ${board.selection_metric}`,
        ["Rank", "Algorithm", "Mean_Error", "Std_Error", "Worst", "Worst environment", "Selected", "Trials"],
        rows.map((r) => [String(r.rank), r.algorithm, meanStd(r.mean_error), meanStd(r.std_error), meanStd(r.worst_error), r.worst_environment || "–",
          h("code", { text: JSON.stringify(r.searched_params && Object.keys(r.searched_params).length ? r.searched_params : r.selected_params || {}) }),
          h("span", {}, (r.jobs || []).map((j, i) => h("a", { href: `#/jobs/${j}`, class: "trial", text: `seed ${(r.seeds || [])[i] ?? i}` })))]),
        { id: "leaderboard" }),
      unselected.length ? h("p", { class: "problem" }, "Not ranked: ", unselected.map(([a, why]) => `${a} (${why})`).join("; ")) : null,
      envNames.length ? figure("Per-environment comparison", svg, "Each algorithm has its own fill pattern; values are printed at the bar ends.",
        ["Environment", ...rows.map((r) => r.algorithm)], envNames.map((e) => [e, ...rows.map((r) => meanStd(r.environments[e]))]), "sweep-environments") : null);
  }

  // --- routing ------------------------------------------------------------------------------------

  function parseHash() {
    const raw = location.hash.replace(/^#\/?/, "");
    const [path, qs] = raw.split("?");
    return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs || "") };
  }

  async function route() {
    generation++;
    timers.forEach(clearInterval);
    timers = [];
    const gen = generation;
    const { parts, query } = parseHash();
    const section = parts[0] || "datasets";
    for (const a of document.querySelectorAll("[data-nav]")) {
      if (a.dataset.nav === section) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    }
    if (keyNeeded === null) {
      try {
        await api("/datasets?limit=1");
        keyNeeded = apiKey === null ? false : true;
        showAuth();
      } catch (e) { return; }
    }
    if (keyNeeded && !apiKey) { renderKeyForm(null); return; }
    fill(main, h("p", { text: "Loading…" }));
    main.setAttribute("aria-busy", "true");
    delete main.dataset.route;
    const pages = {
      datasets: () => (parts[1] ? datasetPage(parts[1]) : datasetsPage()),
      jobs: () => (parts[1] ? jobPage(parts[1]) : jobsPage(query)),
      submit: () => submitPage(query),
      compare: () => comparePage(query),
      sweeps: () => (parts[1] ? sweepPage(parts[1]) : sweepsPage()),
    };
    try {
      if (!pages[section]) throw new ApiError(404, { title: "Not Found", detail: `no page ${section}` });
      await pages[section]();
      const title = main.querySelector("h1");
      document.title = `${title ? title.textContent : section} · sal-service`;
    } catch (e) {
      if (e instanceof NeedKey || gen !== generation) return;
      const what = parts[1] ? `${section.replace(/s$/, "")} ${parts[1]}` : section;
      fill(main, h("h1", { text: e instanceof ApiError && e.status === 404 ? "Not found" : "Something went wrong" }),
        e instanceof ApiError && e.status === 404 ? h("p", { id: "not-found", text: `No ${what} here: it does not exist or belongs to another tenant.` }) : null,
        problemBox(e));
    } finally {
      if (gen === generation) {
        main.removeAttribute("aria-busy");
        main.dataset.route = location.hash; // the page for this address is drawn (tests wait on it)
      }
    }
  }

  window.addEventListener("hashchange", () => { route(); main.focus({ preventScroll: true }); });
  route();
})();
