// The dashboard page: every value from the server is shown with
// textContent, never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function hms(secs) {
  secs = Math.max(0, Math.round(secs));
  const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = secs % 60;
  return [h, m, s].map((n) => String(n).padStart(2, "0")).join(":");
}

function dur(secs) {
  if (secs === undefined || secs === null) return "";
  if (secs < 60) return secs.toFixed(secs < 10 ? 1 : 0) + " s";
  const m = Math.floor(secs / 60), s = Math.round(secs % 60);
  if (m < 60) return m + " m " + s + " s";
  return Math.floor(m / 60) + " h " + (m % 60) + " m";
}

function num(n) {
  return (n || 0).toLocaleString("en-US");
}

function cost(c) {
  return "$" + (c || 0).toFixed(c >= 1 ? 2 : 4);
}

function words(s) {
  return String(s || "").replace(/_/g, " ");
}

// defs fills a list of [term, value, title] rows; a row without a value
// is left out, and a title shows on hover.
function defs(node, pairs) {
  clear(node);
  for (const [k, v, title] of pairs) {
    if (v === undefined || v === null || v === "") continue;
    node.appendChild(el("dt", k));
    const dd = el("dd", v);
    if (title) dd.title = title;
    node.appendChild(dd);
  }
}

let snap = null;
let receivedAt = 0;

function tick() {
  if (!snap || !snap.state) return;
  const st = snap.state;
  const cd = $("countdown");
  if ((st.phase === "waiting" || st.phase === "waiting_for_answer") && st.until) {
    const left = (Date.parse(st.until) - Date.now()) / 1000;
    cd.textContent = hms(left);
  } else if (snap.progress && snap.progress.call_running && snap.progress.call_elapsed_seconds !== null) {
    const e = snap.progress.call_elapsed_seconds + (Date.now() - receivedAt) / 1000;
    cd.textContent = "agent working " + hms(e);
  } else {
    cd.textContent = "";
  }
}
setInterval(tick, 1000);

function stateText(s) {
  const st = s.state || {};
  const parts = [];
  if (st.phase === "waiting") parts.push("for " + words(st.waiting_for));
  if (st.phase === "waiting_for_answer") parts.push("no agent call until you answer");
  if (st.phase === "stopped" && st.reason) parts.push(words(st.reason));
  if (s.progress && s.progress.loop) parts.push("loop " + s.progress.loop);
  if (st.pid) parts.push("pid " + st.pid);
  return parts.join(" · ");
}

// isoTime matches the RFC 3339 times the loop writes to its files.
const isoTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$/;

// when is a value for the page: an RFC 3339 time in the page's one format
// (stamp), anything else as it is.
function when(v) {
  return typeof v === "string" && isoTime.test(v) ? stamp(v) : v;
}

// windowText is one usage window (status.json's usage_limits) in words.
function windowText(u) {
  if (!u || typeof u !== "object") return JSON.stringify(u);
  let t = [u.driver, u.window].filter(Boolean).join(" ");
  if (typeof u.used_percent === "number") t += " " + u.used_percent + "% used";
  if (u.status) t += " (" + u.status + ")";
  if (u.resets_at) t += ", resets " + when(u.resets_at);
  return t;
}

function usageRows(status) {
  // Any usage or limit field the loop writes to status.json, whatever its
  // shape: one row per field (a usage window per row), its times in the
  // page's one format.
  const rows = [];
  if (!status || typeof status !== "object") return rows;
  for (const [k, v] of Object.entries(status)) {
    if (!/usage|limit|window|reset/i.test(k) || /tokens_total$/.test(k)) continue;
    if (k === "max_calls_per_hour" || k === "next_reset") continue;
    if (k === "usage_limits" && Array.isArray(v)) {
      for (const u of v) rows.push(["Usage", windowText(u)]);
      continue;
    }
    rows.push([words(k), typeof v === "object" ? JSON.stringify(v, (_, x) => when(x)) : String(when(v))]);
  }
  return rows;
}

// planCounts is the plan's ticked and all tasks as the page shows the
// plan (the file as it is now), else as the loop last counted them.
function planCounts(s) {
  const p = s.progress || {};
  if (s.plan_total) return [s.plan_done || 0, s.plan_total];
  return [p.tasks_completed || 0, p.tasks_total || 0];
}

// swarmLine says where a swarm worker stands in its swarm: merged, not
// merged (and why, and where its work is), or on its way.
function swarmLine(w) {
  const box = $("swarm");
  clear(box);
  box.hidden = !w;
  if (!w) return;
  let badge = words(w.state), cls = "badge";
  if (w.not_merged) { badge = "not merged"; cls += " notmerged"; }
  else if (w.merged) { badge = "merged"; cls += " merged"; }
  box.appendChild(el("span", badge, cls));
  let t = " " + w.worker + " of a swarm";
  if (w.not_merged) {
    t += " (" + words(w.state) + "): its work is not in " + w.base_branch + "; it stays on branch " + w.branch + (w.note ? ". " + w.note : "");
  } else if (w.merged) {
    t += ": merged into " + w.base_branch;
  } else {
    t += " (" + words(w.state) + "): merges into " + w.base_branch + " when its epics are done and the quality gates pass" + (w.note ? ". " + w.note : "");
  }
  box.appendChild(document.createTextNode(t));
}

function renderOne(s) {
  const st = s.state || {};
  const phase = $("phase");
  phase.textContent = words(st.phase || "unknown");
  phase.className = "badge " + (st.phase || "");
  $("stateText").textContent = stateText(s);
  document.title = words(st.phase) + " · " + (s.name || "ralph_loop");
  renderQuestion(st.question);
  const p = s.progress || {};
  $("task").textContent = p.task ? "Next task: " + p.task.replace(/^- \[ \]\s*/, "") : (p.last_loop_summary || "");
  const [done, total] = planCounts(s);
  $("bar").style.width = total ? Math.round((100 * done) / total) + "%" : "0";
  swarmLine(s.swarm);

  const b = s.breaker;
  if (b) {
    defs($("breaker"), [
      ["State", b.state], ["No progress", b.consecutive_no_progress], ["Same error", b.consecutive_same_error],
      ["Permission denials", b.consecutive_permission_denials], ["Opened", b.total_opens + (b.total_opens === 1 ? " time" : " times")], ["Reason", b.reason],
    ]);
    $("breaker").querySelector("dd").className = "s-" + b.state;
  } else {
    defs($("breaker"), [["State", "no breaker file yet"]]);
  }

  const c = s.calls || {};
  const t = s.totals || {};
  const sw = s.swarm;
  defs($("calls"), [
    ["Calls this hour", num(c.this_hour) + " / " + num(c.max_per_hour)], ["Next reset", c.next_reset],
    ["Calls this run", c.this_run ? num(c.this_run) + (c.failed_this_run ? " (" + num(c.failed_this_run) + " failed)" : "") : ""],
    ["Tokens this run", num(t.input_tokens) + " in · " + num(t.output_tokens) + " out", "the run's tokens so far, every call added up (the Loops table has each call's)"],
    ["Cost this run", cost(t.cost_usd), "the run's cost so far, every call added up"],
    ["Worker, all runs", sw ? num(sw.calls) + " calls · " + num(sw.tokens) + " tokens · " + cost(sw.cost_usd) : "",
      "this swarm worker's every run added up: the merge queue runs its loop again for each hand-back"],
  ].concat(usageRows(s.status)));

  // The usage governor: the rows the server words (--status prints the
  // same), shown as they are.
  const q = s.quota;
  $("quotaCard").hidden = !q;
  if (q) defs($("quota"), (q.rows || []).map((row) => [row.label, row.text]));

  const r = s.run || {};
  defs($("run"), [
    ["Started", r.started ? stamp(r.started) : "", r.run_id ? "run " + r.run_id + " (ralph_loop --report --run " + r.run_id + ")" : ""],
    ["Driver", r.driver],
    ["Tasks", total ? done + " / " + total + " done" : ""],
    ["Finished", r.finished ? (r.exit_reason || "yes") + (r.exit_code !== undefined ? " (exit " + r.exit_code + ")" : "") : ""],
    ["Last loop", p.last_loop_summary],
  ]);

  const tb = $("timeline").tBodies[0];
  clear(tb);
  const loops = (s.loops || []).slice().reverse();
  $("loopCount").textContent = s.loops_total ? "(" + s.loops_total + ")" : "";
  for (const l of loops) {
    const tr = el("tr");
    tr.appendChild(el("td", l.loop));
    tr.appendChild(el("td", words(l.outcome), "o-" + l.outcome));
    tr.appendChild(el("td", dur(l.seconds)));
    tr.appendChild(el("td", l.files_changed));
    tr.appendChild(el("td", num(l.tokens)));
    tr.appendChild(el("td", cost(l.cost_usd)));
    tr.appendChild(el("td", (l.tasks_ticked || []).join("; "), "text"));
    tb.appendChild(tr);
  }
  if (!loops.length) {
    const tr = el("tr");
    const td = el("td", "no loop yet", "dim");
    td.colSpan = 7;
    tr.appendChild(td);
    tb.appendChild(tr);
  }

  const plan = $("plan");
  clear(plan);
  for (const task of s.plan || []) plan.appendChild(el("li", task.text, task.done ? "done" : ""));
  $("planCount").textContent = total ? "(" + done + "/" + total + ")" : "";

  // Events of another run than the one shown (an earlier run's, a failed
  // start-up's) are set apart under a line naming their run, and dimmed.
  const ev = $("events");
  clear(ev);
  const evs = (s.events || []).slice().reverse();
  const several = evs.some((e) => e.other_run);
  let run = null;
  for (const e of evs) {
    // Two runs started in the same second share an id: other_run tells.
    const key = e.run_id + (e.other_run ? " other" : "");
    if (several && key !== run) {
      run = key;
      ev.appendChild(el("li", e.other_run ? "another run" : "this run", "runhead"));
    }
    const li = el("li", undefined, e.other_run ? "other" : "");
    li.appendChild(el("time", e.ts ? stamp(e.ts).slice(11) : ""));
    li.appendChild(document.createTextNode(e.text));
    ev.appendChild(li);
  }
  $("eventsNote").textContent = several ? "(another run's are dimmed)" : "";
  tick();
}

// stamp is a time as ralph.log writes it, on the 24-hour clock in the
// browser's time zone: "2026-11-27 14:05:09". Every time on the page uses it
// (or its HH:MM:SS part), whatever the browser's locale.
function stamp(t) {
  const d = new Date(t);
  if (isNaN(d)) return "";
  const p = (n) => String(n).padStart(2, "0");
  return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " +
    p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
}

// loopHeader is the line the loop writes to live.log before each call.
const loopHeader = /^=== Loop #\d+ - .* ===$/;

function renderLive(text) {
  const pre = $("live");
  const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 20;
  pre.textContent = text || "";
  pre.hidden = !text;
  // Nothing but the loop's own headers: say why there is no output.
  const said = (text || "").split("\n").some((l) => l.trim() && !loopHeader.test(l.trim()));
  $("liveNote").textContent = said ? "" : text ?
    "(no output from the agent in this call yet: without --live its reply comes at the end of the call; with --live it streams here)" :
    "(nothing yet: no agent call has written output)";
  if (atEnd) pre.scrollTop = pre.scrollHeight;
}

function renderOverview(rows) {
  const tb = $("rows").tBodies[0];
  clear(tb);
  for (const r of rows) {
    const s = r.summary || {};
    const st = s.state || {}, p = s.progress || {}, c = s.calls || {}, t = s.totals || {};
    const tr = el("tr");
    const td = el("td");
    const a = el("a", r.name);
    a.href = r.href;
    td.appendChild(a);
    tr.appendChild(td);
    const ph = el("td");
    ph.appendChild(el("span", words(st.phase || "unknown"), "badge " + (st.phase || "")));
    const w = s.swarm;
    if (w && (w.not_merged || w.merged)) {
      // A swarm worker's row says whether its branch went in.
      ph.appendChild(document.createTextNode(" "));
      const b = el("span", w.merged ? "merged" : "not merged", "badge " + (w.merged ? "merged" : "notmerged"));
      b.title = w.worker + ": " + words(w.state) + (w.note ? " — " + w.note : "");
      ph.appendChild(b);
    }
    tr.appendChild(ph);
    tr.appendChild(el("td", p.loop || ""));
    tr.appendChild(el("td", p.tasks_total ? p.tasks_completed + "/" + p.tasks_total : ""));
    tr.appendChild(el("td", s.breaker ? s.breaker.state : "", s.breaker ? "s-" + s.breaker.state : ""));
    tr.appendChild(el("td", num(c.this_hour) + "/" + num(c.max_per_hour)));
    tr.appendChild(el("td", cost(w ? w.cost_usd : t.cost_usd)));
    tb.appendChild(tr);
  }
}

function connect(url, handlers) {
  const conn = $("conn");
  const es = new EventSource(url);
  es.onopen = () => { conn.textContent = "live"; conn.className = "conn up"; };
  es.onerror = () => { conn.textContent = "reconnecting…"; conn.className = "conn down"; };
  for (const [name, fn] of Object.entries(handlers)) {
    es.addEventListener(name, (m) => fn(JSON.parse(m.data)));
  }
}

// renderQuestion shows the agent's question while the loop waits for
// the answer (the form comes with the controls: setupAnswer).
function renderQuestion(q) {
  $("question").hidden = !q;
  if (!q) return;
  $("qLoop").textContent = "(loop " + q.loop + ")";
  $("qText").textContent = visible(q.text);
}

// visible shows the agent's text with its controls and bidi overrides as
// \uXXXX, as the console does: a right-to-left override must not turn
// the question the person reads around.
function visible(s) {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function setupAnswer(base, meta) {
  const form = $("qForm");
  const how = "or answer with: ralph_loop --answer \"YOUR ANSWER\" in the project";
  form.hidden = !(meta.answers && meta.authorized);
  if (!meta.answers) {
    $("qHow").textContent = "Answer with: ralph_loop --answer \"YOUR ANSWER\" in the project (the form here needs SERVE_CONTROL=true and SERVE_TOKEN)";
    return;
  }
  if (!meta.authorized) {
    $("qHow").textContent = "Open the dashboard's ?token= link to answer here, " + how;
    return;
  }
  $("qHow").textContent = how;
  const msg = $("qMsg");
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const text = $("qAnswer").value.trim();
    if (!text) return;
    msg.className = "msg";
    msg.textContent = "sending…";
    try {
      const res = await fetch(base + "answer", { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify({ answer: text }) });
      const body = (await res.text()).trim();
      msg.className = res.ok ? "msg" : "msg err";
      msg.textContent = res.ok ? "answered: the next call gets it" : "refused: " + body;
      if (res.ok) $("qAnswer").value = "";
    } catch (e) {
      msg.className = "msg err";
      msg.textContent = "failed: " + e;
    }
  };
}

function setupControls(base, meta) {
  const box = $("controls");
  box.hidden = !meta.controls;
  if (!meta.controls) return;
  const msg = $("controlMsg");
  if (!meta.authorized) msg.textContent = "open the ?token= link to use the controls";
  for (const btn of box.querySelectorAll("button")) {
    btn.onclick = async () => {
      const action = btn.dataset.action;
      if (action === "stop" && !window.confirm("Stop the loop? The agent call under way is stopped too.")) return;
      msg.className = "msg";
      msg.textContent = action + "…";
      try {
        const res = await fetch(base + "control/" + action, { method: "POST", credentials: "same-origin" });
        const body = (await res.text()).trim();
        msg.className = res.ok ? "msg" : "msg err";
        msg.textContent = res.ok ? action + ": done" : action + " refused: " + body;
      } catch (e) {
        msg.className = "msg err";
        msg.textContent = action + " failed: " + e;
      }
    };
  }
}

// initial is the data the server put in the page: the loop as it was when
// the page was served, shown until the event stream brings news.
function initial() {
  const block = $("initial");
  if (!block) return {};
  try {
    return JSON.parse(block.textContent) || {};
  } catch (e) {
    return {};
  }
}

function follow(url, handlers) {
  for (const [name, value] of Object.entries(initial())) {
    if (handlers[name] && value !== null) handlers[name](value);
  }
  // Changes animate from here on; the page as served shows at once: the
  // layout read settles it before transitions are turned on.
  void document.body.offsetWidth;
  document.body.classList.add("ready");
  connect(url, handlers);
}

function start() {
  const m = location.pathname.match(/^\/p\/(\d+)\/$/);
  if (!m) {
    $("overview").hidden = false;
    follow("/api/overview/events", { snapshot: renderOverview });
    return;
  }
  $("one").hidden = false;
  const base = "/api/p/" + m[1] + "/";
  follow(base + "events", {
    meta: (meta) => { $("project").textContent = meta.name; setupControls(base, meta); setupAnswer(base, meta); },
    snapshot: (s) => { snap = s; receivedAt = Date.now(); if (s) renderOne(s); },
    live: renderLive,
  });
}

start();
