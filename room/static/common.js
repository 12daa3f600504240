// The play room's shared page code, loaded before the page's own script (lobby.js or game.js):
// the DOM helpers, this browser's seat tokens, the reconnecting WebSocket and the status and error
// lines. Plain JavaScript, no build step. Everything about a game comes from the room's frames
// (see room/protocol.py for the protocol). Nothing here names a game.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// ------------------------------------------------------------------ seat tokens (this browser)
const Tokens = {
  key: (gid) => "room:" + gid,
  get(gid) {
    try { return JSON.parse(localStorage.getItem(this.key(gid)) || "{}"); } catch (e) { return {}; }
  },
  put(gid, data) { localStorage.setItem(this.key(gid), JSON.stringify(data)); },
  addSeat(gid, seat, token) {
    const d = this.get(gid); d.seats = d.seats || {}; d.seats[seat] = token; this.put(gid, d);
  },
  setOwner(gid, token) { const d = this.get(gid); d.owner = token; this.put(gid, d); },
  setInvites(gid, invites) { const d = this.get(gid); d.invites = invites; this.put(gid, d); },
  all(gid) {
    const d = this.get(gid);
    return [...Object.values(d.seats || {}), ...(d.owner ? [d.owner] : [])];
  },
};

// ------------------------------------------------------------------ one WebSocket, reconnecting
class Socket {
  constructor(onOpen, onMessage) {
    this.onOpen = onOpen; this.onMessage = onMessage; this.delay = 250; this.ws = null;
    this.connect();
  }
  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => { this.delay = 250; setConn("connected"); this.onOpen(); };
    ws.onmessage = (ev) => { let m; try { m = JSON.parse(ev.data); } catch (e) { return; } this.onMessage(m); };
    ws.onclose = () => {
      setConn("reconnecting…");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 3000);
    };
  }
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) { this.ws.send(JSON.stringify(msg)); return true; }
    showError("not connected to the room; retrying…");
    return false;
  }
}

function setConn(text) { const c = $("#conn"); if (c) { c.textContent = text; c.dataset.state = text; } }

let errorTimer = null;
function showError(message) {
  const box = $("#error");
  box.textContent = message; box.hidden = false;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

function describeSeat(s) {
  if (s.kind === "agent") return s.agent;
  return s.open ? "open seat" : s.invited ? "invited (link not yet opened)" : "person";
}

// ------------------------------------------------------------------ a game in players' words
// The "how to play" panel of a game (what its words module declares, room/words.py): the short
// rules from its RULES.md, the legend of the board's marks and a link to the full rules. Text
// only (**bold** of the rules file as <strong>), never HTML from the server.
function richText(text) {
  return text.split(/\n\s*\n/).map((para) => el("p", {},
    ...para.replace(/\s+/g, " ").trim().split("**").map((part, i) => (i % 2 ? el("strong", { text: part }) : part))));
}

function helpPanel(name, help, id) {
  if (!help || (!help.how_to_play && !(help.legend || []).length)) return null;
  const legend = (help.legend || []).length ? el("dl", { class: "legend" },
    ...help.legend.flatMap(([mark, meaning]) => [el("dt", { text: mark }), el("dd", { text: meaning })])) : null;
  return el("details", { class: "how-to-play", id },
    el("summary", { text: `How to play ${name}` }),
    ...(help.how_to_play ? richText(help.how_to_play) : []),
    legend ? el("p", { class: "hint", text: "On the board:" }) : null, legend,
    help.rules_url ? el("p", {}, el("a", { href: help.rules_url, target: "_blank", rel: "noopener", text: "The full rules" })) : null);
}
