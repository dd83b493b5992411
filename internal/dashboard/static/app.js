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

function defs(node, pairs) {
  clear(node);
  for (const [k, v] of pairs) {
    if (v === undefined || v === null || v === "") continue;
    node.appendChild(el("dt", k));
    node.appendChild(el("dd", v));
  }
}

let snap = null;
let receivedAt = 0;

function tick() {
  if (!snap || !snap.state) return;
  const st = snap.state;
  const cd = $("countdown");
  if (st.phase === "waiting" && st.until) {
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
  if (st.phase === "stopped" && st.reason) parts.push(words(st.reason));
  if (s.progress && s.progress.loop) parts.push("loop " + s.progress.loop);
  if (st.pid) parts.push("pid " + st.pid);
  return parts.join(" · ");
}

function usageRows(status) {
  // Any usage or limit field the loop writes to status.json, whatever its
  // shape: shown as it is, one row per field.
  const rows = [];
  if (!status || typeof status !== "object") return rows;
  for (const [k, v] of Object.entries(status)) {
    if (!/usage|limit|window|reset/i.test(k) || /tokens_total$/.test(k)) continue;
    if (k === "max_calls_per_hour" || k === "next_reset") continue;
    rows.push([words(k), typeof v === "object" ? JSON.stringify(v) : String(v)]);
  }
  return rows;
}

function renderOne(s) {
  const st = s.state || {};
  const phase = $("phase");
  phase.textContent = words(st.phase || "unknown");
  phase.className = "badge " + (st.phase || "");
  $("stateText").textContent = stateText(s);
  document.title = words(st.phase) + " · " + (s.name || "ralph_loop");
  const p = s.progress || {};
  $("task").textContent = p.task ? "Next task: " + p.task.replace(/^- \[ \]\s*/, "") : (p.last_loop_summary || "");
  $("bar").style.width = p.tasks_total ? Math.round((100 * p.tasks_completed) / p.tasks_total) + "%" : "0";

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
  defs($("calls"), [
    ["Calls this hour", num(c.this_hour) + " / " + num(c.max_per_hour)], ["Next reset", c.next_reset],
    ["Calls this run", c.this_run ? num(c.this_run) + (c.failed_this_run ? " (" + num(c.failed_this_run) + " failed)" : "") : ""],
    ["Tokens", num(t.input_tokens) + " in · " + num(t.output_tokens) + " out"], ["Cost", cost(t.cost_usd)],
  ].concat(usageRows(s.status)));

  const r = s.run || {};
  defs($("run"), [
    ["Run", r.run_id], ["Driver", r.driver], ["Started", r.started ? stamp(r.started) : ""],
    ["Tasks", p.tasks_total ? p.tasks_completed + " / " + p.tasks_total + " done" : ""],
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
  $("planCount").textContent = p.tasks_total ? "(" + p.tasks_completed + "/" + p.tasks_total + ")" : "";

  const ev = $("events");
  clear(ev);
  for (const e of (s.events || []).slice().reverse()) {
    const li = el("li");
    li.appendChild(el("time", e.ts ? stamp(e.ts).slice(11) : ""));
    li.appendChild(document.createTextNode(e.text));
    ev.appendChild(li);
  }
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

function renderLive(text) {
  const pre = $("live");
  const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 20;
  pre.textContent = text || "";
  $("liveNote").textContent = text ? "" : "(nothing yet)";
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
    tr.appendChild(ph);
    tr.appendChild(el("td", p.loop || ""));
    tr.appendChild(el("td", p.tasks_total ? p.tasks_completed + "/" + p.tasks_total : ""));
    tr.appendChild(el("td", s.breaker ? s.breaker.state : "", s.breaker ? "s-" + s.breaker.state : ""));
    tr.appendChild(el("td", num(c.this_hour) + "/" + num(c.max_per_hour)));
    tr.appendChild(el("td", cost(t.cost_usd)));
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
    meta: (meta) => { $("project").textContent = meta.name; setupControls(base, meta); },
    snapshot: (s) => { snap = s; receivedAt = Date.now(); if (s) renderOne(s); },
    live: renderLive,
  });
}

start();
