// The orrery web app: plain JavaScript, no build step, no CDN. It speaks AG-UI to the server:
// POST /agents/{name} with a RunAgentInput, then renders the SSE events as they arrive.
"use strict";

const $ = (id) => document.getElementById(id);
const ui = { agents: {}, agent: null, thread: null, interrupt: null, uploads: {}, state: {}, busy: false, shown: 0 };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}
const newId = (p) => `${p}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const scrollDown = () => window.scrollTo(0, document.body.scrollHeight);

async function api(path, options = {}) {
  const r = await fetch(path, { credentials: "same-origin", ...options });
  if (!r.ok) {
    let msg = `${r.status}`;
    try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
    throw Object.assign(new Error(msg), { status: r.status });
  }
  return r;
}

const postJSON = (path, body, headers = {}) =>
  api(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

// -- signing in: the token becomes an http-only cookie; it never travels in a URL the server sees -------------
async function signIn(token) {
  await postJSON("/login", { token });
}

function askForToken() {
  return new Promise((resolve) => {
    const form = $("login");
    form.hidden = false;
    $("login-token").focus();
    form.onsubmit = async (e) => {
      e.preventDefault();
      try {
        await signIn($("login-token").value);
        form.hidden = true;
        resolve();
      } catch (err) {
        $("login-error").textContent = err.message;
      }
    };
  });
}

// -- agents, inputs, threads -------------------------------------------------------------------
async function loadAgents() {
  const agents = await (await api("/agents")).json();
  const select = $("agent");
  select.replaceChildren();
  for (const a of agents) {
    ui.agents[a.name] = a;
    select.append(el("option", { value: a.name, text: a.name }));
  }
  const wanted = new URLSearchParams(location.search).get("agent");
  select.value = wanted && ui.agents[wanted] ? wanted : agents[0].name;
  chooseAgent(select.value);
}

function chooseAgent(name) {
  ui.agent = name;
  $("agent").value = name;
  $("agent-desc").textContent = ui.agents[name].description;
  $("memory-open").hidden = !("db" in (ui.agents[name].inputs || {}));  // an agent over a named database
  $("memory").hidden = true;
  const box = $("inputs");
  box.replaceChildren();
  ui.uploads = {};
  const fields = (ui.agents[name].schema || {}).properties || {};
  const isUpload = (f) => !!f && [f, ...(f.anyOf || [])].some((t) => t.format === "upload");
  for (const [key, help] of Object.entries(ui.agents[name].inputs || {})) {
    if (key === "message") continue;  // the message box
    if (isUpload(fields[key])) {
      const file = el("input", { type: "file", id: `input-${key}`, accept: ".csv,.parquet,.pq" });
      file.addEventListener("change", () => upload(file, key));
      box.append(el("label", { text: `${key}: ${help}` }, file, el("span", { id: "upload-status", class: "legend" })));
    } else if ((fields[key] || {}).type === "boolean") {  // a switch such as "approve SQL before it runs"
      box.append(el("label", { text: `${key}: ${help}` },
        el("input", { type: "checkbox", id: `input-${key}`, "data-key": key })));
    } else {
      box.append(el("label", { text: `${key}: ${help}` }, el("input", { id: `input-${key}`, "data-key": key })));
    }
  }
}

async function upload(input, key) {
  const status = $("upload-status");
  status.textContent = "uploading...";
  const form = new FormData();
  form.append("file", input.files[0]);
  try {
    const info = await (await api("/uploads", { method: "POST", body: form })).json();
    ui.uploads[key] = info.id;
    status.textContent = `${info.name}: ${info.rows} rows (${info.columns.join(", ")})`;
  } catch (e) {
    delete ui.uploads[key];
    status.textContent = `upload refused: ${e.message}`;
  }
}

function collectInputs() {
  const inputs = { ...ui.uploads };
  for (const node of document.querySelectorAll("#inputs input[data-key]")) {
    if (node.type === "checkbox") {
      if (node.checked) inputs[node.dataset.key] = true;
      continue;
    }
    const v = node.value.trim();
    if (v) inputs[node.dataset.key] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  return inputs;
}

async function loadThreads() {
  const threads = await (await api("/threads")).json();
  const list = $("thread-list");
  list.replaceChildren();
  for (const t of threads) {
    const item = el("li", { "data-id": t.id, title: t.title }, el("small", { text: t.agent }), t.title || t.id);
    if (t.pending) item.append(" ?");
    if (t.id === ui.thread) item.classList.add("current");
    item.addEventListener("click", () => openThread(t.id));
    list.append(item);
  }
}

function newThread() {
  ui.shown += 1; // a thread still loading must not replace this one when it arrives
  ui.thread = newId("thread");
  ui.interrupt = null;
  ui.state = {};
  $("log").replaceChildren();
  renderState();
  $("clarify").hidden = true;
  showApprovals([]);
  history.replaceState(null, "", `?agent=${ui.agent}`);
}

async function openThread(id) {
  const shown = ++ui.shown;
  const t = await (await api(`/threads/${encodeURIComponent(id)}`)).json();
  if (shown !== ui.shown) return; // the user opened another thread or a new one meanwhile
  chooseAgent(t.agent);
  ui.thread = t.id;
  ui.interrupt = null;
  ui.state = {};
  $("log").replaceChildren();
  $("clarify").hidden = true;
  const said = t.messages.filter((m) => m.role === "user");
  t.runs.forEach((run, i) => {
    if (said[i]) $("log").append(el("div", { class: "user", text: said[i].content }));
    const view = new RunView(false);
    for (const ev of run.events) view.handle(ev);
  });
  // The thread, not the replayed runs, says whether a question or approvals are still open.
  const approvals = t.pending && t.pending.kind === "tool_approval" ? t.pending.approvals : [];
  const question = t.pending && !approvals.length ? t.pending : null;
  ui.interrupt = question ? { id: question.id, message: question.question } : null;
  $("clarify-q").textContent = question ? question.question : "";
  $("clarify").hidden = !question;
  showApprovals(approvals.map((a) => ({ id: a.interrupt, reason: "tool_approval", metadata: a })));
  renderState();
  history.replaceState(null, "", `?agent=${t.agent}&thread=${encodeURIComponent(t.id)}`);
  $("threads").classList.remove("open");
  await loadThreads();
}

// -- a run ------------------------------------------------------------------------------------------
async function send(text, resume) {
  if (ui.busy || !ui.agent) return;
  ui.busy = true;
  $("send").disabled = true;
  $("clarify").hidden = true;
  showApprovals([]);
  $("log").append(el("div", { class: "user", text }));
  const body = {
    threadId: ui.thread, runId: newId("run"), state: ui.state, tools: [], context: [],
    messages: [{ id: newId("msg"), role: "user", content: text }],
    forwardedProps: { inputs: collectInputs() },
  };
  if (resume) body.resume = resume;
  // The URL names the thread from the start: a reload mid-run (or the instant an approval shows) finds it again.
  const here = () => history.replaceState(null, "", `?agent=${ui.agent}&thread=${encodeURIComponent(ui.thread)}`);
  here();
  const view = new RunView(true);
  try {
    const r = await postJSON(`/agents/${ui.agent}`, body, { Accept: "text/event-stream" });
    await readEvents(r, (ev) => view.handle(ev));
  } catch (e) {
    view.handle({ type: "RUN_ERROR", message: e.message });
  } finally {
    ui.busy = false;
    $("send").disabled = false;
    here();
    await loadThreads();
  }
}

async function readEvents(response, onEvent) {
  // SSE over fetch (EventSource cannot POST): events are "data: <json>" blocks split by a blank line.
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (data) onEvent(JSON.parse(data));
    }
  }
}

class RunView {
  constructor(live) {
    this.live = live;
    this.box = el("div", { class: "run" });
    $("log").append(this.box);
    this.step = null;
    this.tools = {};
    this.messages = {};
  }

  where() { return this.step ? this.step.body : this.box; }

  handle(ev) {
    const h = this[ev.type];
    if (h) h.call(this, ev);
    if (this.live) scrollDown();
  }

  STEP_STARTED(ev) {
    const d = el("details", { class: "step running" }, el("summary", { text: ev.stepName }));
    d.body = d;
    this.box.append(d);
    this.step = d;
  }

  STEP_FINISHED() {
    if (this.step) {
      this.step.classList.remove("running");
      const n = this.step.querySelectorAll("details.tool").length;
      if (n) this.step.firstChild.textContent += ` · ${n} tool call${n > 1 ? "s" : ""}`;
    }
    this.step = null;
  }

  TOOL_CALL_START(ev) {
    // Text the model wrote before calling a tool is its thinking: it moves into the step's card.
    if (this.said && this.said.step === this.step && this.step) {
      this.said.className = "thought";
      this.step.append(this.said);
    }
    this.said = null;
    const args = el("pre", { class: "args" });
    const card = el("details", { class: "tool", "data-tool": ev.toolCallName },
      el("summary", { text: ev.toolCallName }), args);
    card.args = args;
    this.tools[ev.toolCallId] = card;
    this.where().append(card);
  }

  TOOL_CALL_ARGS(ev) { this.tools[ev.toolCallId].args.textContent += ev.delta; }

  TOOL_CALL_RESULT(ev) {
    const card = this.tools[ev.toolCallId];
    const text = typeof ev.content === "string" ? ev.content : JSON.stringify(ev.content);
    if (/^(Error|Paused):/.test(text)) card.classList.add("failed");
    card.append(el("pre", { class: "result", text }));
    card.firstChild.textContent += ` → ${text.slice(0, 60)}${text.length > 60 ? "…" : ""}`;
    const view = resultView(parseJson(text));
    if (view) this.box.append(view);  // charts and tables stay in view, outside the collapsed step
  }

  TEXT_MESSAGE_START(ev) {
    const m = el("div", { class: "assistant" });
    m.step = this.step;
    this.said = m;
    this.messages[ev.messageId] = m;
    this.box.append(m);
  }

  TEXT_MESSAGE_CONTENT(ev) { this.messages[ev.messageId].textContent += ev.delta; }

  STATE_SNAPSHOT(ev) {
    ui.state = ev.snapshot || {};
    if (ui.state.bi) this.bi = ui.state.bi;
    renderState();
  }

  STATE_DELTA(ev) {
    applyPatch(ui.state, ev.delta);
    if (ev.delta.some((op) => op.path === "/bi")) this.bi = ui.state.bi;
    renderState();
  }

  CUSTOM(ev) {
    if (ev.name === "orrery.thought") this.where().append(el("div", { class: "thought", text: ev.value }));
    else if (ev.name === "orrery.retry") this.where().append(el("div", { class: "note", text: `retry: ${ev.value.message}` }));
    else if (ev.name.startsWith("orrery.") && Object.hasOwn(views, ev.name.slice(7))) this.box.append(views[ev.name.slice(7)](ev.value));
  }

  RUN_FINISHED(ev) {
    this.STEP_FINISHED();
    const outcome = ev.outcome || {};
    const approvals = (outcome.interrupts || []).filter((i) => i.reason === "tool_approval");
    if (approvals.length) {
      ui.interrupt = null;
      this.box.append(el("div", { class: "assistant question",
        text: `Waiting for your approval: ${approvals.map((i) => (i.metadata || {}).tool).join(", ")}` }));
      if (this.live) showApprovals(approvals);
    } else if (outcome.type === "interrupt") {
      ui.interrupt = outcome.interrupts[0];
      this.box.append(el("div", { class: "assistant question", text: ui.interrupt.message || "The agent has a question." }));
      $("clarify-q").textContent = ui.interrupt.message || "The agent has a question:";
      $("clarify").hidden = !this.live;
      if (this.live) $("clarify-answer").focus();
    } else {
      ui.interrupt = null;
      $("clarify").hidden = true;
    }
    if (ev.result && ev.result.status && !["completed", "paused", "submitted"].includes(ev.result.status)) {
      this.box.append(el("div", { class: "note", text: `run ended: ${ev.result.status}` }));
    }
    if (this.bi && this.bi.status === "completed" && this.bi.sql) this.box.append(feedbackBar(ev.threadId, ev.runId, this.bi.sql));
    // a declined or failed answer ran no query: no Right / Wrong, but a person who knows the SQL that answers it
    // can keep it (the server checks it on the database the answer records)
    else if (this.bi && ["declined", "error"].includes(this.bi.status) && !this.bi.sql && this.bi.connection) {
      this.box.append(correctionForm(runPath(ev.threadId, ev.runId, "approve"), ""));
    }
  }

  RUN_ERROR(ev) {
    this.STEP_FINISHED();
    this.box.append(el("div", { class: "error", text: `Error: ${ev.message}` }));
  }
}

function feedbackBar(threadId, runId, sql) {
  // A BI answer that ran a query: Right keeps its question and SQL as an example for similar questions on that
  // database (the server reads both from the run, not from this page); Wrong keeps nothing and opens the SQL for
  // the person to correct: 'Keep corrected SQL' sends it, and the server keeps it with the run's question only
  // once it passes the read-only guard and plans on the run's database. Words, not emoji: a system without an
  // emoji font draws empty boxes.
  const said = el("span", { class: "feedback-said" });
  const up = el("button", { type: "button", class: "feedback", "data-verdict": "approve", title: "Right: keep as an example" }, "Right");
  const down = el("button", { type: "button", class: "feedback", "data-verdict": "reject", title: "Wrong: not kept; correct the SQL" }, "Wrong");
  const path = (verdict) => runPath(threadId, runId, verdict);
  const bar = el("div", { class: "feedback-bar" }, up, down, said);
  const send = async (verdict) => {
    up.disabled = down.disabled = true;
    try {
      await postJSON(path(verdict), {});
      said.textContent = verdict === "approve" ? "Kept as an example for similar questions." : "Not kept.";
      if (verdict === "reject") bar.after(correctionForm(path("approve"), sql));
    } catch (e) {
      said.textContent = `Not saved: ${e.message}`;
      up.disabled = down.disabled = false;
    }
  };
  up.addEventListener("click", () => send("approve"));
  down.addEventListener("click", () => send("reject"));
  return bar;
}

function runPath(threadId, runId, verdict) {
  return `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/${verdict}`;
}

function correctionForm(approvePath, sql) {
  // The agent's SQL to edit (empty under a declined answer); the reply (the SQL the server kept, or why it kept
  // nothing) is shown as text.
  const text = el("textarea", { class: "correction-sql", rows: "4", spellcheck: "false", "aria-label": "Corrected SQL",
    placeholder: "SELECT ... that answers the question" });
  text.value = sql || "";
  const keep = el("button", { type: "button", class: "feedback", "data-verdict": "correct" }, "Keep corrected SQL");
  const said = el("span", { class: "correction-said" });
  keep.addEventListener("click", async () => {
    keep.disabled = true;
    try {
      const kept = await (await postJSON(approvePath, { sql: text.value })).json();
      said.textContent = `Kept as an example: ${kept.sql}`;
      text.readOnly = true;
    } catch (e) {
      said.textContent = `Not kept: ${e.message}`;
      keep.disabled = false;
    }
  });
  return el("div", { class: "correction" }, text, el("div", { class: "feedback-bar" }, keep, said));
}

// -- memory: what people taught the agent on the current database (approved examples, kept field answers) ------
function currentDb() {
  // the database the next question goes to: the db input as typed, else the last answer's, else its default
  const typed = document.querySelector("#inputs input[data-key=db]");
  const fields = (ui.agents[ui.agent].schema || {}).properties || {};
  return (typed && typed.value.trim()) || (ui.state.bi || {}).connection || (fields.db || {}).default || "";
}

async function showMemory() {
  const db = currentDb();
  const list = $("memory-list");
  list.replaceChildren();
  $("memory-title").textContent = `Memory of ${db}`;
  $("memory").hidden = false;
  let memory;
  try {
    memory = await (await api(`/memory/${encodeURIComponent(db)}`)).json();
  } catch (e) {
    list.append(el("li", { class: "legend", text: `Not loaded: ${e.message}` }));
    return;
  }
  const items = [
    ...memory.examples.map((x) => ({ key: { example: x.id }, kind: "example", text: x.question, detail: x.sql })),
    ...memory.fields.map((f) => ({ key: { field: f.term }, kind: "field", text: `'${f.term}'`,
      detail: f.column ? `means ${f.column}` : "not held by the data" })),
  ];
  if (!items.length) list.append(el("li", { class: "legend", text: "Nothing taught yet on this database." }));
  for (const it of items) list.append(memoryItem(db, it));
}

function memoryItem(db, it) {
  // text only (textContent): a kept question or term is shown, never interpreted
  const remove = el("button", { type: "button", class: "feedback", "data-remove": it.kind }, "Remove");
  const said = el("span", { class: "legend" });
  const row = el("li", { class: "memory-item", "data-kind": it.kind },
    el("small", { text: it.kind }), el("span", { text: it.text }), el("code", { text: it.detail }), remove, said);
  remove.addEventListener("click", async () => {
    remove.disabled = true;
    try {
      await postJSON(`/memory/${encodeURIComponent(db)}/remove`, it.key);
      row.remove();
    } catch (e) {
      said.textContent = `Not removed: ${e.message}`;
      remove.disabled = false;
    }
  });
  return row;
}

function applyPatch(doc, ops) {
  // JSON Patch (RFC 6902) add/replace/remove: all the server sends.
  for (const op of ops) {
    const keys = op.path.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = keys.pop();
    let target = doc;
    for (const k of keys) target = target[k];
    if (op.op === "remove") Array.isArray(target) ? target.splice(Number(last), 1) : delete target[last];
    else if (op.op === "add" && Array.isArray(target)) target.splice(last === "-" ? target.length : Number(last), 0, op.value);
    else target[last] = op.value;
  }
}

// -- state: a slot key drawn by the view of that name, any other key as a table when it holds {columns, rows} ------
const SLOTS = ["plan", "board"];  // the state keys views are kept under (a view's `slot` in orrery.results)

function renderState() {
  // plan: {request, todos: [{key, description, tool, status}]} (PlanAgent's StateChanged "plan"); board: the
  // pinned board text of a loop, or a result's board view; any other key holding {columns, rows, sql?} (BI's
  // answer) a table.
  const panel = $("board");
  $("plan").replaceChildren();
  panel.replaceChildren();
  for (const [key, value] of Object.entries(ui.state || {})) {
    if (value == null) continue;
    const view = SLOTS.includes(key) ? views[key](value) : resultView(value);
    if (view) (key === "plan" ? $("plan") : panel).append(view);
  }
  $("state").hidden = !$("plan").childElementCount && !panel.childElementCount;
}

// -- views (orrery.results): one renderer per view name, for CUSTOM `orrery.<view>` events and state keys --------
const views = {
  forecast: (v) => {
    const uid = v.history.length ? v.history[0].unique_id : null;
    const hist = v.history.filter((r) => r.unique_id === uid);
    const fc = v.forecasts.filter((r) => String(r.unique_id) === String(uid));
    const chart = forecastChart(hist, fc, v.anomalies.filter((r) => String(r.unique_id) === String(uid)));
    const rows = fc.map((r) => ({ ds: String(r.ds).slice(0, 10), mean: r.mean, lo_95: r.lo_95, lo_80: r.lo_80, hi_80: r.hi_80, hi_95: r.hi_95 }));
    return el("div", { class: "card forecast" },
      el("h3", { text: `Forecast: ${v.best_model} ${v.beats_baseline ? "(beats SeasonalNaive)" : "(does not beat SeasonalNaive)"}` }),
      chart, el("div", { class: "legend", text: "black: history · blue: forecast · bands: 80% and 95% intervals · red: anomalies" }),
      table(rows));
  },
  table: (v) => el("div", { class: "card" }, el("h3", { text: v.title || "Table" }), table(v.rows, v.columns),
    v.sql ? el("pre", { class: "sql", text: v.sql }) : null),
  chart: (v) => el("div", { class: "card" }, el("h3", { text: v.title || "Chart" }),
    v.style === "candlestick" ? candleChart(v) : seriesChart(v)),
  plan: (plan) => {
    if (!Array.isArray(plan.todos)) return null;
    const todos = plan.todos;
    const done = todos.filter((t) => t.status === "done").length;
    const list = el("ol");
    for (const t of todos) list.append(el("li", { class: t.status || "", text: `${t.description || t.key} (${t.status || "pending"})` }));
    return el("div", { class: "card plan" }, el("h3", { text: `Plan: ${done}/${todos.length} done` }),
      plan.request ? el("div", { class: "legend", text: plan.request }) : null,
      el("div", { class: "progress" }, el("div", { style: `width:${(100 * done) / Math.max(1, todos.length)}%` })), list);
  },
  board: (board) => {
    if (typeof board === "string") return el("div", { class: "card board" }, el("h3", { text: "Board" }), el("pre", { text: board }));
    const card = el("div", { class: "card board" }, el("h3", { text: `Source board${board.probability != null ? ` · P = ${board.probability}` : ""}` }));
    for (const s of board.sources || []) {
      card.append(el("details", { class: "tool" }, el("summary", { text: `${s.date || s.published || ""} ${s.title || s.doc_id || "source"}` }),
        el("pre", { text: [s.why, s.url].filter(Boolean).join("\n") || JSON.stringify(s) })));
    }
    return card;
  },
  artifacts: (paths) => {
    const box = el("div", { class: "card artifacts" }, el("h3", { text: "Files" }));
    for (const p of paths) {
      const name = p.split("/").pop();
      if (name.endsWith(".png")) box.append(el("img", { src: `/${p}`, alt: name }));
      box.append(el("div", {}, el("a", { href: `/${p}`, target: "_blank", text: name })));
    }
    return box;
  },
};

function parseJson(text) {
  if (!/^\s*[{[]/.test(text)) return null;
  try { return JSON.parse(text); } catch (e) { return null; }
}

function resultView(data) {
  // A tool result with OHLC rows (markets) becomes a candlestick chart; {columns, rows} (a BI query) a table,
  // with a bar chart when it pairs labels with numbers.
  if (!data || !Array.isArray(data.rows) || !data.rows.length) return null;
  const first = data.rows[0];
  if (first && !Array.isArray(first) && ["open", "high", "low", "close"].every((k) => typeof first[k] === "number")) {
    const r = data.rows;
    const title = [data.symbol, r[0].date && `${r[0].date} to ${r[r.length - 1].date}`].filter(Boolean).join(" · ");
    return views.chart({ style: "candlestick", title: title || "Prices", x: r.map((x) => x.date),
      open: r.map((x) => x.open), high: r.map((x) => x.high), low: r.map((x) => x.low), close: r.map((x) => x.close),
      overlays: Object.fromEntries(Object.keys(first).filter((k) => /^(sma|ema|bb|vwap)/i.test(k)).map((k) => [k, r.map((x) => x[k])])) });
  }
  if (!Array.isArray(data.columns) || !Array.isArray(first)) return null;
  const card = el("div", { class: "card result" }, el("h3", { text: `Result: ${data.rows.length} row${data.rows.length > 1 ? "s" : ""}` }));
  const last = data.columns.length - 1;
  if (last >= 1 && data.rows.length <= 50 && data.rows.every((row) => typeof row[last] === "number" && typeof row[0] === "string")) {
    card.append(seriesChart({ style: "bar", x: data.rows.map((row) => row[0]), series: { [data.columns[last]]: data.rows.map((row) => row[last]) } }));
  }
  card.append(table(data.rows, data.columns));
  if (data.sql) card.append(el("pre", { class: "sql", text: data.sql }));
  return card;
}

function table(rows, columns) {
  const cols = columns || (rows.length ? Object.keys(rows[0]) : []);
  const fmt = (x) => (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(3)) : x == null ? "" : String(x));
  return el("table", {}, el("thead", {}, el("tr", {}, ...cols.map((c) => el("th", { text: c })))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...cols.map((c) => el("td", { text: fmt(Array.isArray(r) ? r[cols.indexOf(c)] : r[c]) }))))));
}

const NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function frame(xs, ys, { bars = false, zero = false, w = 720, h = 300 } = {}) {
  // Scales for an SVG chart: categorical x (points, or bands for bars), linear y with 5% padding
  // (bars start at zero).
  const pad = { l: 48, r: 10, t: 10, b: 24 };
  const finite = ys.filter((y) => y != null && Number.isFinite(y));
  let lo = Math.min(...finite), hi = Math.max(...finite);
  const m = (hi - lo) * 0.05 || 1;
  lo = zero && lo >= 0 ? 0 : lo - m; hi += m;
  const root = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
  const span = w - pad.l - pad.r;
  const x = bars ? (i) => pad.l + ((i + 0.5) * span) / xs.length
    : (i) => pad.l + (i * span) / Math.max(1, xs.length - 1);
  x.band = bars ? span / xs.length : span / Math.max(1, xs.length - 1);
  const y = (v) => pad.t + ((hi - v) * (h - pad.t - pad.b)) / (hi - lo);
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    root.append(svg("line", { x1: pad.l, x2: w - pad.r, y1: y(v), y2: y(v), stroke: "#eee" }));
    const t = svg("text", { x: 4, y: y(v) + 4, "font-size": 11, fill: "#667" });
    t.textContent = v.toPrecision(4);
    root.append(t);
  }
  const ticks = bars && xs.length <= 12 ? xs.map((_, i) => [i, "middle"])
    : [[0, "start"], [Math.floor((xs.length - 1) / 2), "middle"], [xs.length - 1, "end"]];
  for (const [i, anchor] of ticks) {
    const t = svg("text", { x: x(i), y: h - 6, "font-size": 11, fill: "#667", "text-anchor": anchor });
    t.textContent = String(xs[i] ?? "").slice(0, 10);
    root.append(t);
  }
  return { root, x, y };
}

const path = (pts) => pts.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join("");

function forecastChart(hist, fc, anomalies) {
  const xs = [...hist.map((r) => r.ds), ...fc.map((r) => String(r.ds).slice(0, 10))];
  const ys = [...hist.map((r) => r.y), ...fc.flatMap((r) => [r.lo_95, r.hi_95, r.mean])];
  const { root, x, y } = frame(xs, ys);
  const off = hist.length;
  for (const [lv, op] of [[95, 0.15], [80, 0.3]]) {
    if (!fc.length || fc[0][`lo_${lv}`] == null) continue;
    const upper = fc.map((r, i) => [x(off + i), y(r[`hi_${lv}`])]);
    const lower = fc.map((r, i) => [x(off + i), y(r[`lo_${lv}`])]).reverse();
    root.append(svg("path", { d: `${path([...upper, ...lower])}Z`, fill: "#1f77b4", opacity: op, class: `band band-${lv}` }));
  }
  root.append(svg("path", { d: path(hist.map((r, i) => [x(i), y(r.y)])), fill: "none", stroke: "#111", "stroke-width": 1.3, class: "history" }));
  root.append(svg("path", { d: path(fc.map((r, i) => [x(off + i), y(r.mean)])), fill: "none", stroke: "#1f77b4", "stroke-width": 2, class: "mean" }));
  const index = new Map(hist.map((r, i) => [r.ds, i]));
  for (const a of anomalies) {
    const i = index.get(String(a.ds).slice(0, 10));
    if (i != null) root.append(svg("circle", { cx: x(i), cy: y(a.y), r: 3.5, fill: "#d62728" }));
  }
  return root;
}

function candleChart(v) {
  // v: {x, open, high, low, close, overlays: {name: values}}
  const overlays = Object.entries(v.overlays || {});
  const { root, x, y } = frame(v.x, [...v.low, ...v.high, ...overlays.flatMap(([, s]) => s)], { bars: true });
  const w = Math.max(1, x.band * 0.6);
  v.x.forEach((_, i) => {
    const up = v.close[i] >= v.open[i];
    const color = up ? "#16a34a" : "#c62828";
    root.append(svg("line", { x1: x(i), x2: x(i), y1: y(v.high[i]), y2: y(v.low[i]), stroke: color }));
    const top = y(Math.max(v.open[i], v.close[i])), bottom = y(Math.min(v.open[i], v.close[i]));
    root.append(svg("rect", { x: x(i) - w / 2, y: top, width: w, height: Math.max(1, bottom - top), fill: color, class: "candle" }));
  });
  overlays.forEach(([name, s], k) => {
    const pts = s.map((val, i) => (val == null ? null : [x(i), y(val)])).filter(Boolean);
    root.append(svg("path", { d: path(pts), fill: "none", stroke: ["#1f77b4", "#ff7f0e", "#9467bd"][k % 3], "stroke-width": 1.4, "data-name": name }));
  });
  return root;
}

function seriesChart(v) {
  // v: {style: "line"|"bar", x, series: {name: values}}
  const series = Object.entries(v.series || {});
  const bars = v.style === "bar";
  const { root, x, y } = frame(v.x, [0, ...series.flatMap(([, s]) => s)], { bars, zero: bars });
  const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"];
  series.forEach(([name, s], k) => {
    if (bars) {
      const w = Math.max(2, (x.band * 0.7) / series.length);
      s.forEach((val, i) => root.append(svg("rect", { x: x(i) - (w * series.length) / 2 + k * w, y: y(Math.max(0, val)), width: w, height: Math.abs(y(0) - y(val)), fill: colors[k % 4], class: "bar" })));
    } else {
      root.append(svg("path", { d: path(s.map((val, i) => [x(i), y(val)])), fill: "none", stroke: colors[k % 4], "stroke-width": 1.6, "data-name": name }));
    }
  });
  return root;
}

// -- approvals: each pending tool call with its arguments (as text, never as HTML), Approve / Deny -----------
function showApprovals(interrupts) {
  const box = $("approvals");
  const decided = {};
  box.replaceChildren();
  box.hidden = !interrupts.length;
  for (const it of interrupts) {
    const call = it.metadata || {};
    const buttons = [el("button", { type: "button", class: "approve", text: "Approve" }),
                     el("button", { type: "button", class: "deny", text: "Deny" })];
    const card = el("div", { class: "approval", "data-interrupt": it.id },
      el("strong", { text: `Run ${call.tool}?` }),
      el("pre", { class: "arguments", text: JSON.stringify(call.arguments ?? {}, null, 2) }),
      el("div", { class: "row" }, ...buttons));
    buttons.forEach((b, i) => b.addEventListener("click", () => {
      decided[it.id] = { approved: i === 0, tool: call.tool };
      buttons.forEach((x) => { x.disabled = true; });
      if (Object.keys(decided).length < interrupts.length) return;
      const words = interrupts.map((x) => `${decided[x.id].approved ? "approved" : "denied"} ${decided[x.id].tool}`);
      const said = words.join("; ");
      send(said.charAt(0).toUpperCase() + said.slice(1), interrupts.map((x) => (
        { interruptId: x.id, status: "resolved", payload: { approved: decided[x.id].approved } })));
    }));
    box.append(card);
  }
  if (interrupts.length) box.querySelector("button").focus();
}

// -- wiring --------------------------------------------------------------------------------------------
$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("message").value.trim();
  if (!text && !Object.keys(ui.uploads).length) return;
  $("message").value = "";
  send(text || "Analyze the uploaded data.");
});
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("composer").requestSubmit(); }
});
$("clarify").addEventListener("submit", (e) => {
  e.preventDefault();
  const answer = $("clarify-answer").value.trim();
  if (!answer || !ui.interrupt) return;
  $("clarify-answer").value = "";
  send(answer, [{ interruptId: ui.interrupt.id, status: "resolved", payload: { answer } }]);
});
$("agent").addEventListener("change", () => { chooseAgent($("agent").value); newThread(); });
$("new").addEventListener("click", newThread);
$("memory-open").addEventListener("click", showMemory);
$("memory-close").addEventListener("click", () => { $("memory").hidden = true; });
$("menu").addEventListener("click", () => $("threads").classList.toggle("open"));

(async function start() {
  const given = new URLSearchParams(location.hash.slice(1)).get("token");  // a link /#token=...: never sent
  if (given) {
    history.replaceState(null, "", location.pathname + location.search);
    await signIn(given).catch(() => {});
  }
  try {
    await loadAgents();
  } catch (e) {
    if (e.status !== 401) throw e;
    await askForToken();
    await loadAgents();
  }
  const thread = new URLSearchParams(location.search).get("thread");
  if (thread) await openThread(thread).catch(() => newThread());
  else newThread();
  // Typing is allowed once the agent is known: a message sent before would go to no agent, and its thread in
  // the URL would replace the agent the page was opened for.
  $("message").disabled = false;
  $("send").disabled = false;
  await loadThreads();
})();
