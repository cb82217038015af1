// The room in a browser (issue 37): a client of the control protocol
// (docs/control.md) over /ws, and of /term for each seat's terminal.
// Everything a post, a name or a topic says is set as text, never as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  // Control characters shown as their symbols (as wire.Visible does).
  const visible = (s) => String(s == null ? "" : s).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g,
    (c) => c === "\u007f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0)));
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = visible(text);
    return e;
  };

  const st = {
    ws: null, current: "", topics: [], posts: [], lastSeen: "",
    roster: [], seats: {}, usage: {}, marks: {}, needs: {}, panes: {}, uploads: [], reqs: 0,
  };

  async function signIn() {
    const m = /(?:^#|&)token=([0-9a-f]+)/.exec(location.hash);
    if (m) {
      history.replaceState(null, "", location.pathname); // the token leaves the address bar
      const r = await fetch("/login", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token: m[1] }), credentials: "same-origin" });
      if (!r.ok) {
        $("signin-why").textContent = "That token was not accepted (wrong or revoked): run pullcept web for a new address.";
        $("signin").hidden = false;
        return;
      }
    }
    connect();
  }

  function send(cmd) {
    if (st.ws && st.ws.readyState === 1) st.ws.send(JSON.stringify(cmd));
  }

  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    st.ws = ws;
    let opened = false;
    ws.onopen = () => { opened = true; $("signin").hidden = true; $("page").hidden = false; status("connected"); };
    ws.onclose = () => {
      if (!opened) { $("page").hidden = true; $("signin").hidden = false; return; }
      status("disconnected: reconnecting…");
      setTimeout(connect, 1000);
    };
    ws.onmessage = (m) => { let l; try { l = JSON.parse(m.data); } catch (e) { return; } onLine(l); };
  }

  function status(s) { $("status").textContent = s; }

  function onLine(l) {
    switch (l.event) {
      case "ready":
        // The topic a terminal shows last, as a new screen opens; else a new one.
        st.screen = l.screen || "browser";
        st.current = l.shown || l.topic; send({ cmd: "topics" }); send({ cmd: "needs" }); openTopic(st.current); break;
      case "topics":
        st.topics = l.topics || []; drawTopics(); break;
      case "opened":
        if (l.topic !== st.current) break;
        st.posts = l.posts || []; st.marks = {}; st.roster = l.participants || [];
        st.lastSeen = st.posts.length ? st.posts[st.posts.length - 1].message_id : "";
        drawPosts(); drawPeople(); send({ cmd: "seats", topic: l.topic }); seen(); break;
      case "new":
        openTopic(l.topic); send({ cmd: "topics" }); break;
      case "post":
        if (l.topic === st.current) { addPost(l.post, l.role); }
        if (!st.topics.some((t) => t.id === l.topic && t.has_posts)) send({ cmd: "topics" });
        break;
      case "post_result":
        if (l.delivered) { $("text").value = ""; st.uploads = []; drawUploads(); note(""); }
        else {
          (l.missed || []).forEach((p) => addPost(p));
          note("Not sent: the room moved on meanwhile. Read the new posts above and send again.");
          if (l.attachments) st.uploads = l.attachments.map((p) => ({ path: p, name: p.split("/").pop() }));
        }
        break;
      case "roster":
        if (l.topic === st.current) { st.roster = l.participants || []; drawPeople(); }
        break;
      case "seats":
        if (l.topic === st.current) {
          (l.result || []).forEach((s) => { st.seats[s.account] = Object.assign(st.seats[s.account] || {}, s); });
          drawPeople();
          if (st.wantPane && st.seats[st.wantPane]) { openPane(st.wantPane); st.wantPane = ""; }
        }
        break;
      case "seat":
        if (l.topic === st.current) { st.seats[l.account] = Object.assign(st.seats[l.account] || {}, { account: l.account, name: l.name, state: l.state, exit: l.exit }); drawPeople(); }
        send({ cmd: "topics" });
        break;
      case "activity":
        if (l.topic === st.current) {
          const s = st.seats[l.account] = st.seats[l.account] || { account: l.account };
          s.name = l.name || s.name;
          if (l.activity) s.activity = l.activity;
          if ("held" in l || "hold" in l || !l.activity) { s.held = l.held || 0; s.hold = l.hold || ""; }
          drawPeople();
        }
        break;
      case "usage":
        st.usage[l.topic + "/" + l.account] = l.usage || {}; drawPeople(); break;
      case "delivery":
        if (l.topic === st.current) {
          (st.marks[l.message_id] = st.marks[l.message_id] || {})[l.account] = { mark: l.mark, why: l.why };
          drawMarks(l.message_id);
        }
        break;
      case "deleted":
        send({ cmd: "topics" }); if (l.topic === st.current) openTopic(l.current); break;
      case "renamed":
        send({ cmd: "topics" }); break;
      case "resync":
        send({ cmd: "topics" }); send({ cmd: "needs" }); openTopic(st.current); break;
      case "needs":
        if (l.items) { st.needs = {}; l.items.forEach((it) => { st.needs[it.id] = it; }); }
        if (l.change) { if (l.change.gone) delete st.needs[l.change.item.id]; else st.needs[l.change.item.id] = l.change.item; }
        drawNeeds(); break;
      case "answer":
        note(l.result && l.result.note); break;
      case "needs_answered":
        drawAnswered(l.answers || []); break;
      case "error":
        note(l.error); break;
    }
  }

  function note(s) { $("send-note").textContent = visible(s); }

  function openTopic(id) {
    if (!id) return;
    if (id !== st.current) Object.keys(st.panes).forEach(closePane);
    st.current = id; st.seats = {}; st.posts = []; drawPosts(); drawTopics(); $("answered-list").hidden = true;
    send({ cmd: "open", topic: id });
  }

  function topicName(t) { return t.name || "(untitled)"; }

  function drawTopics() {
    const ul = $("topic-list"); ul.textContent = "";
    let cur = null;
    st.topics.forEach((t) => {
      const li = el("li", t.id === st.current ? "current" : "", topicName(t));
      li.dataset.topic = t.id;
      const n = Object.keys(t.sessions || {}).length;
      if (n) li.appendChild(el("span", "sessions", "● " + n));
      li.onclick = () => { openTopic(t.id); $("topics").classList.remove("open"); };
      ul.appendChild(li);
      if (t.id === st.current) cur = t;
    });
    $("topic-name").textContent = visible(cur ? topicName(cur) : "(new topic)");
  }

  function postItem(p, role) {
    const li = el("li"); li.dataset.id = p.message_id;
    const head = el("div", "post-head");
    head.appendChild(el("span", "speaker", p.speaker));
    if (role) head.appendChild(el("span", "role", role));
    if (p.to && p.to.length) head.appendChild(el("span", "to", "→ " + p.to.join(", ") + " "));
    head.appendChild(el("time", "", new Date(p.ts).toLocaleTimeString()));
    li.appendChild(head);
    li.appendChild(el("pre", "post-body", p.content));
    li.appendChild(el("div", "marks"));
    return li;
  }

  function drawPosts() {
    const ol = $("posts"); ol.textContent = "";
    st.posts.forEach((p) => ol.appendChild(postItem(p)));
    scrollDown();
  }

  function addPost(p, role) {
    if (st.posts.some((q) => q.message_id === p.message_id)) return;
    st.posts.push(p); st.lastSeen = p.message_id;
    $("posts").appendChild(postItem(p, role));
    drawMarks(p.message_id);
    scrollDown();
    seen();
  }

  function scrollDown() { const r = $("room"); r.scrollTop = r.scrollHeight; }

  function seatName(account) {
    const s = st.seats[account]; if (s && s.name) return s.name;
    const r = st.roster.find((p) => p.account === account); return r ? r.name : account;
  }

  function drawMarks(id) {
    const li = document.querySelector('#posts li[data-id="' + CSS.escape(id) + '"]');
    if (!li) return;
    const div = li.querySelector(".marks"); div.textContent = "";
    Object.entries(st.marks[id] || {}).forEach(([acc, m]) => {
      const s = el("span", "mark " + m.mark, seatName(acc) + ": " + m.mark.replace("_", " "));
      if (m.why) s.title = visible(m.why);
      div.appendChild(s);
    });
  }

  function pct(x) { return x && x.used_percentage != null ? Math.round(x.used_percentage) + "%" : ""; }

  function drawPeople() {
    const ul = $("people-list"); ul.textContent = "";
    const accounts = new Set();
    const rows = [];
    st.roster.forEach((p) => { rows.push(p); if (p.account) accounts.add(p.account); });
    Object.values(st.seats).forEach((s) => { if (!accounts.has(s.account)) rows.push({ name: s.name || s.account, account: s.account }); });
    rows.forEach((p) => {
      const li = el("li");
      li.appendChild(el("span", "who", p.name + (p.person ? " (you)" : "")));
      const s = p.account && st.seats[p.account];
      if (s) {
        const a = s.activity || {};
        let state = s.state || "";
        if (a.state) state += (state ? " · " : "") + a.state + (a.wait ? " (" + a.wait + ")" : "");
        li.appendChild(el("span", "state", state));
        if (s.held || s.hold) li.appendChild(el("span", "hold", (s.held ? s.held + " held" : "") + (s.hold ? " — " + s.hold : "")));
        const u = st.usage[st.current + "/" + p.account];
        if (u) {
          const parts = [];
          if (u.context) parts.push("context " + pct(u.context));
          if (u.five_hour) parts.push("5h " + pct(u.five_hour));
          if (u.seven_day) parts.push("7d " + pct(u.seven_day));
          if (u.model) parts.push(u.model);
          li.appendChild(el("span", "usage", parts.join(" · ")));
        }
        if (s.state === "running") {
          const b = el("button", "open-pane", "terminal"); b.type = "button"; b.dataset.account = p.account;
          b.onclick = () => openPane(p.account); li.appendChild(b);
        }
      }
      ul.appendChild(li);
    });
  }

  // The needs-you list (app/needslist.go through the control protocol),
  // newest first: each item's answers are one button each; the item itself
  // jumps to its seat's terminal or its post.
  const kindText = { permission: "permission", question: "question", elicitation: "asks for input", unanswered: "no answer",
    limited: "limited", error: "stopped on an error", mention: "addressed to you", budget: "over the loop budget" };
  function drawNeeds() {
    const ul = $("needs-list"); ul.textContent = "";
    const items = Object.values(st.needs).sort((a, b) => (a.since < b.since ? 1 : -1));
    items.forEach((n) => {
      const t = st.topics.find((x) => x.id === n.topic);
      const li = el("li", "need " + n.kind); li.dataset.item = n.id;
      const what = el("div", "need-what");
      what.appendChild(el("strong", "", kindText[n.kind] || n.kind));
      what.appendChild(el("span", "", " · " + (n.name || "") + " · " + (t ? topicName(t) : "(a topic)") + " · since " + new Date(n.since).toLocaleTimeString()));
      what.onclick = () => jump(n);
      li.appendChild(what);
      if (n.tool || n.input) li.appendChild(el("code", "need-tool", (n.tool || "") + (n.input ? ": " + n.input : "")));
      if (n.text) li.appendChild(el("div", "need-text", n.text));
      if (n.answers && n.answers.length) {
        const row = el("div", "need-answers");
        n.answers.forEach((a) => {
          const b = el("button", "answer " + a.id, a.label); b.type = "button"; b.dataset.answer = a.id;
          b.onclick = () => send({ cmd: "answer", item: n.id, answer: a.id, screen: st.screen });
          row.appendChild(b);
        });
        li.appendChild(row);
      }
      ul.appendChild(li);
    });
    $("needs-empty").hidden = items.length > 0;
  }

  // The topic's record of answers: who answered what, for which seat,
  // tool and input, from which screen, when.
  function drawAnswered(recs) {
    const ul = $("answered-list"); ul.textContent = "";
    recs.slice().reverse().forEach((r) => {
      ul.appendChild(el("li", "answered", new Date(r.at).toLocaleTimeString() + " · " + (r.name || r.account || "") + " · " +
        (r.tool ? r.tool + (r.input ? ": " + r.input : "") : r.kind) + " → " + (r.label || r.answer) +
        " · " + r.who + " from " + r.screen + (r.done ? "" : " (not given: " + (r.note || "") + ")")));
    });
    if (!recs.length) ul.appendChild(el("li", "empty", "No answers in this topic."));
    ul.hidden = false;
  }

  function jump(n) {
    if (n.topic !== st.current) openTopic(n.topic);
    if (n.account && !n.post) { if (st.seats[n.account]) openPane(n.account); else st.wantPane = n.account; }
    else if (n.post) { const li = document.querySelector('#posts li[data-id="' + CSS.escape(n.post) + '"]'); if (li) li.scrollIntoView(); }
  }

  // This screen shows the room's newest posts: they are seen (a post to
  // the person leaves the needs-you list).
  function seen() {
    if (document.visibilityState === "visible" && st.lastSeen) send({ cmd: "seen", topic: st.current, last_seen: st.lastSeen, screen: st.screen });
  }

  // A seat's terminal: its emulator's picture from the server, read-only
  // until "type into it" is ticked; keys then go to the seat as the person's.
  function openPane(account) {
    if (st.panes[account]) return;
    const node = $("pane-tpl").content.firstElementChild.cloneNode(true);
    node.dataset.account = account;
    node.querySelector(".pane-name").textContent = visible(seatName(account));
    $("panes").appendChild(node);
    const term = new Terminal({ cols: 80, rows: 24, disableStdin: true, convertEol: false, fontSize: 13, fontFamily: "monospace", scrollback: 0 });
    term.open(node.querySelector(".pane-term"));
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host +
      "/term?topic=" + encodeURIComponent(st.current) + "&account=" + encodeURIComponent(account));
    const typeBox = node.querySelector(".pane-type");
    typeBox.onchange = () => { term.options.disableStdin = !typeBox.checked; if (typeBox.checked) term.focus(); };
    // Typing makes this browser the latest client: the pane takes the size
    // that fits here, as it takes a terminal's.
    term.onData((d) => { if (typeBox.checked && ws.readyState === 1) ws.send(JSON.stringify(Object.assign({ keys: d }, fitSize(node)))); });
    ws.onmessage = (m) => {
      const f = JSON.parse(m.data);
      if (f.state) { term.reset(); term.write(f.state.replace(/[\u0000-\u001f]/g, " ")); return; }
      if (f.cols && (f.cols !== term.cols || f.rows !== term.rows)) term.resize(f.cols, f.rows);
      node.dataset.size = f.cols + "x" + f.rows;
      term.write(f.data);
    };
    node.querySelector(".pane-close").onclick = () => closePane(account);
    st.panes[account] = { node, term, ws };
    scrollDown(); // the room is shorter now
  }

  // fitSize is the pane size that fits the panes' area: its width, and
  // about half the window's height, in cells of the terminal's font.
  function fitSize(node) {
    const probe = el("span", "", "W".repeat(20));
    probe.style.cssText = "position:absolute;visibility:hidden;font:13px monospace;white-space:pre";
    node.appendChild(probe);
    const cw = probe.getBoundingClientRect().width / 20, ch = probe.getBoundingClientRect().height;
    probe.remove();
    if (!cw || !ch) return {};
    const cols = Math.floor(($("panes").clientWidth - 24) / cw), rows = Math.floor(Math.max(window.innerHeight * 0.45, 200) / ch);
    return { cols: Math.max(20, Math.min(cols, 500)), rows: Math.max(5, Math.min(rows, 200)) };
  }

  function closePane(account) {
    const p = st.panes[account]; if (!p) return;
    p.ws.close(); p.term.dispose(); p.node.remove(); delete st.panes[account];
  }

  // @ completion: the names of the room's participants.
  let comp = { items: [], sel: 0, start: -1 };
  function completion() {
    const ta = $("text"); const upto = ta.value.slice(0, ta.selectionStart);
    const m = /(^|\s)@([^\s@]*)$/.exec(upto);
    const ul = $("complete"); ul.textContent = "";
    if (!m) { ul.hidden = true; comp.items = []; return; }
    const q = m[2].toLowerCase();
    const names = st.roster.filter((p) => !p.person).map((p) => p.name);
    comp = { items: names.filter((n) => n.toLowerCase().startsWith(q)), sel: 0, start: upto.length - m[2].length - 1 };
    comp.items.forEach((n, i) => {
      const li = el("li", i === comp.sel ? "sel" : "", "@" + n);
      li.onmousedown = (e) => { e.preventDefault(); comp.sel = i; complete(); };
      ul.appendChild(li);
    });
    ul.hidden = comp.items.length === 0;
  }
  function complete() {
    const ta = $("text"); const n = comp.items[comp.sel]; if (n == null) return;
    const end = ta.selectionStart;
    ta.value = ta.value.slice(0, comp.start) + "@" + n + " " + ta.value.slice(end);
    const pos = comp.start + n.length + 2; ta.setSelectionRange(pos, pos);
    $("complete").hidden = true; comp.items = [];
  }

  function drawUploads() {
    const d = $("attached"); d.textContent = "";
    st.uploads.forEach((u) => d.appendChild(el("span", "", "📎 " + u.name)));
  }

  function submit() {
    const text = $("text").value;
    if (!text.trim() && !st.uploads.length) return;
    send({ cmd: "post", topic: st.current, content: text, last_seen: st.lastSeen, attachments: st.uploads.map((u) => u.path) });
  }

  function wire() {
    $("send-form").onsubmit = (e) => { e.preventDefault(); submit(); };
    $("text").addEventListener("input", completion);
    $("text").addEventListener("keydown", (e) => {
      if (comp.items.length) {
        if (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey)) { e.preventDefault(); complete(); return; }
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault(); comp.sel = (comp.sel + (e.key === "ArrowDown" ? 1 : comp.items.length - 1)) % comp.items.length;
          [...$("complete").children].forEach((li, i) => li.classList.toggle("sel", i === comp.sel)); return;
        }
        if (e.key === "Escape") { $("complete").hidden = true; comp.items = []; return; }
      }
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); }
    });
    $("files").onchange = async (e) => {
      for (const f of e.target.files) {
        const fd = new FormData(); fd.append("file", f);
        const r = await fetch("/upload", { method: "POST", body: fd, credentials: "same-origin" });
        if (r.ok) st.uploads.push(await r.json()); else note("attachment not kept: " + (await r.text()));
      }
      e.target.value = ""; drawUploads();
    };
    $("new-topic").onclick = () => send({ cmd: "new" });
    $("show-answered").onclick = () => {
      if (!$("answered-list").hidden) { $("answered-list").hidden = true; return; }
      send({ cmd: "needs", topic: st.current, answered: true });
    };
    $("show-topics").onclick = () => $("topics").classList.toggle("open");
    $("show-people").onclick = () => $("people").classList.toggle("open");
    document.addEventListener("visibilitychange", seen);
  }

  wire();
  signIn();
})();
