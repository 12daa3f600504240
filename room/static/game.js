// The play room's game page. Needs common.js (loaded before it). Everything about a game comes from
// the room's frames (see room/protocol.py for the protocol): the board is the SVG the library draws;
// moves are chosen along the click paths of the legal actions, whose keys are the data-key of the
// SVG's hit shapes or, when no shape has them, buttons. Nothing here names a game.
"use strict";

function gamePage() {
  const gid = document.body.dataset.game;
  // a share link: #seat=S&token=T (the fragment never reaches the server)
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("token")) {
    Tokens.addSeat(gid, hash.get("seat") || "?", hash.get("token"));
    history.replaceState(null, "", location.pathname);
  }
  let frame = null;          // the last state frame
  let viewPly = null;        // a past position shown, or null for the live one
  let sel = [];              // keys selected so far
  let pending = null;        // {actions, i}: completed path, waiting for confirmation
  let autoTimer = null;
  let agentMenu = [];
  let resignArmed = false;
  let notice = null;         // a word on the last click that chose nothing (shown in the status)
  let focusKey = null;       // the key of the board's tab stop (roving tabindex: one stop, arrows move it)
  let wantFocus = false;     // put the focus back on the board after the next drawing
  let keepButton = "";       // the id of a move's button that had the focus before a drawing
  let zoomed = false;        // the Zoom button: targets at least ZOOM_PX wide, the box pans
  const ZOOM_PX = 34;
  // words about keys (Enter, R, Esc) only where a keyboard is used: not on a phone or tablet
  const keyboardUsed = () => window.matchMedia("(hover: hover) and (pointer: fine)").matches;
  const board = $("#board");
  const sock = new Socket(() => {
    sock.send({ type: "watch", game: gid, tokens: Tokens.all(gid) });
  }, onMessage);

  function onMessage(m) {
    if (m.type === "state") onState(m);
    else if (m.type === "preview") onPreview(m);
    else if (m.type === "position") onPosition(m);
    else if (m.type === "setup") { agentMenu = m.agents; renderSeats(); }
    else if (m.type === "joined" || m.type === "seated") {
      if (m.token) {
        if (m.type === "seated" && m.to === "invite") {
          const d = Tokens.get(gid); d.invites = d.invites || {}; d.invites[m.seat] = m.token; Tokens.put(gid, d);
        } else Tokens.addSeat(gid, m.seat, m.token);
      }
      sock.send({ type: "watch", game: gid, tokens: Tokens.all(gid) });
    } else if (m.type === "error") {
      showError(m.message);
      if (m.request === "move") { clearSelection(); renderLive(); }
    }
  }

  function hideError() { clearTimeout(errorTimer); $("#error").hidden = true; }

  function onState(m) {
    const first = frame === null;
    if (frame && m.version !== frame.version) hideError();  // a new position: an older error is stale
    const moved = frame && m.version !== frame.version;
    const sameBoard = frame && !moved && m.svg === frame.svg && m.ply === frame.ply;
    frame = m;
    if (first) {
      document.title = `${m.name} — game ${m.game}`;
      $("#title").textContent = `${m.name} — game ${m.game}`;
      $("#notation").textContent = m.notation_help;
      showWords(m);
      sock.send({ type: "setup", env_id: m.env_id, env_kwargs: m.env_kwargs });
    }
    if (moved || first) { sel = []; pending = null; notice = null; }
    // a pending move keeps its preview drawn; a frame about the seats only (an agent thinking)
    // keeps the board and the selection as they are
    if (viewPly === null && !pending && !sameBoard) renderLive();
    else { updateStatus(); if (viewPly === null && !pending) decorate(); }
    renderSide();
  }

  // ---------------------------------------------------------------- choosing a move
  const isPrefix = (path, s) => path.length >= s.length && s.every((k, i) => path[i] === k);

  function analyze(s) {
    const next = new Map(), done = [];
    for (const act of frame.legal || []) {
      for (const p of act.p) {
        if (!isPrefix(p, s)) continue;
        if (p.length === s.length) { if (!done.includes(act)) done.push(act); continue; }
        const k = p[s.length];
        const e = next.get(k) || { kinds: new Set(), completes: false };
        if (p.length === s.length + 1) { e.completes = true; if (act.k) e.kinds.add(act.k); }
        next.set(k, e);
      }
    }
    return { next, done };
  }

  const myTurn = () => frame && frame.legal && viewPly === null && !frame.over;

  function hitsByKey() {
    const map = new Map();
    for (const node of board.querySelectorAll("[data-key]")) {
      const k = node.getAttribute("data-key");
      if (!map.has(k)) map.set(k, []);
      map.get(k).push(node);
    }
    return map;
  }

  // focus on the board, or on a move's button that a drawing is about to replace: keep it on the board
  const focusInPlay = () => { const a = document.activeElement; return !!a && (board.contains(a) || $("#dock").contains(a)); };

  function decorate() {
    if (focusInPlay()) wantFocus = true;
    // a move's button with the focus (Next option) is drawn anew: the focus goes to the new one
    const active = document.activeElement;
    keepButton = active && active.id && $("#choices").contains(active) ? active.id : "";
    const hits = hitsByKey();
    for (const nodes of hits.values()) for (const n of nodes) {
      n.classList.remove("target", "selected"); [...n.classList].filter((c) => c.startsWith("target-") || c.startsWith("kind-")).forEach((c) => n.classList.remove(c));
      n.removeAttribute("tabindex"); n.removeAttribute("role");
    }
    const choices = $("#choices");
    choices.replaceChildren();
    // data-turn="yours" while this page may move in the live position (a test waits for it
    // before clicking: a page can show the ply before the room has seated it)
    if (myTurn()) board.dataset.turn = "yours"; else delete board.dataset.turn;
    if (!myTurn()) { restoreFocus(); return; }
    for (const k of sel) for (const n of hits.get(k) || []) n.classList.add("selected");
    if (pending) {
      const act = pending.actions[pending.i], keys = keyboardUsed();
      choices.append(
        el("button", { id: "confirm", class: "primary", text: `Confirm: ${pendingWords()}`, "data-notation": act.n, title: keys ? `${act.n} (Enter)` : act.n,
          "aria-keyshortcuts": "Enter", onclick: confirmPending }),
        el("button", { id: "cancel", text: "Cancel", title: keys ? "Esc" : null, "aria-keyshortcuts": "Escape", onclick: () => { clearSelection(); renderLive(); } }));
      if (pending.actions.length > 1) {
        choices.append(el("button", { id: "cycle", text: `Next option${keys ? " (R)" : ""} ${pending.i + 1}/${pending.actions.length}`, "aria-keyshortcuts": "R", onclick: cycle }));
      }
      setStops(hits);
      return;
    }
    const { next, done } = analyze(sel);
    const kinds = [...new Set(frame.legal.map((a) => a.k).filter((k) => k))].sort();
    for (const [k, info] of next) {
      const nodes = hits.get(k);
      if (nodes) {
        for (const n of nodes) {
          n.classList.add("target");
          for (const kind of info.kinds) n.classList.add(`target-${kind}`, `kind-${kinds.indexOf(kind)}`);
          n.setAttribute("tabindex", "0"); n.setAttribute("role", "button");
        }
      } else {
        choices.append(el("button", { class: "key", "data-choice": k, text: k, onclick: () => onKey(k) }));
      }
    }
    if (sel.length === 0) {
      for (const act of frame.legal) {
        if (!act.p.length) choices.append(el("button", { class: "key", "data-action": act.a, text: act.n, onclick: () => complete([act]) }));
      }
    } else {
      if (done.length) choices.append(el("button", { id: "as-is", text: "Play as is", onclick: () => complete(done) }));
      choices.append(el("button", { id: "clear", text: keyboardUsed() ? "Clear (Esc)" : "Clear", onclick: () => { clearSelection(); decorate(); updateStatus(); } }));
    }
    setStops(hits);
  }

  // ---------------------------------------------------------------- keyboard: one tab stop on the board
  // The targets (and the selected keys) are focusable with tabindex -1; one of them, the last
  // focused, has tabindex 0: Tab enters the board once, the arrow keys move between the targets.
  function stops() {
    const seen = new Set(), out = [];
    for (const n of board.querySelectorAll(".hit.target[data-key], .hit.selected[data-key]")) {
      const k = n.getAttribute("data-key");
      if (!seen.has(k)) { seen.add(k); out.push(n); }
    }
    return out;
  }

  function setStops() {
    const list = stops();
    const again = keepButton && document.getElementById(keepButton);
    keepButton = "";
    if (again && $("#choices").contains(again)) { wantFocus = false; again.focus({ preventScroll: true }); }
    for (const n of list) { n.setAttribute("tabindex", "-1"); if (!n.getAttribute("role")) n.setAttribute("role", "button"); }
    const stop = list.find((n) => n.getAttribute("data-key") === focusKey) || nearestTo(focusKey, list) || list[0];
    if (stop) stop.setAttribute("tabindex", "0");
    restoreFocus();
  }

  function focusStop(node, scroll) {
    for (const n of board.querySelectorAll('[tabindex="0"]')) n.setAttribute("tabindex", "-1");
    node.setAttribute("tabindex", "0");
    focusKey = node.getAttribute("data-key");
    node.focus({ preventScroll: !scroll });
  }

  function restoreFocus() {
    if (!wantFocus) return;
    wantFocus = false;
    const stop = board.querySelector('[data-key][tabindex="0"]');
    if (stop) focusStop(stop, false);
    else board.focus({ preventScroll: true });
  }

  // the stop nearest on the screen to the hit shape of `key` (the hole or square last played, which
  // is no target any more): the board's tab stop stays where the player was, not at the first target
  function nearestTo(key, list) {
    const node = key && board.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!node) return null;
    const c = (n) => { const r = n.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
    const [x0, y0] = c(node);
    let best = null, bestD = Infinity;
    for (const n of list) { const [x, y] = c(n), d = (x - x0) ** 2 + (y - y0) ** 2; if (d < bestD) { bestD = d; best = n; } }
    return best;
  }

  // the nearest stop from `from` in the direction (dx, dy), on the screen (the drawing may be turned)
  function nearestStop(from, dx, dy) {
    const c = (n) => { const r = n.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
    const [x0, y0] = c(from);
    let best = null, bestScore = Infinity;
    for (const n of stops()) {
      if (n === from) continue;
      const [x, y] = c(n);
      const along = (x - x0) * dx + (y - y0) * dy, across = Math.abs((x - x0) * dy - (y - y0) * dx);
      if (along < 1) continue;
      const score = along + 2 * across;
      if (score < bestScore) { bestScore = score; best = n; }
    }
    return best;
  }

  function keyWords(key) {
    const n = board.querySelector(`[data-key="${CSS.escape(key)}"]`);
    return (n && n.getAttribute("aria-label")) || key;
  }

  function flash(key) {
    const nodes = board.querySelectorAll(`[data-key="${CSS.escape(key)}"]`);
    for (const n of nodes) n.classList.add("illegal");
    setTimeout(() => { for (const n of nodes) n.classList.remove("illegal"); }, 700);
  }

  function onKey(key) {
    notice = null;
    if (!myTurn()) {
      if (frame && !frame.over && frame.kind === "play" && frame.you.length) {
        notice = viewPly !== null ? "This is a past position: End returns to the game." : "It is not your move yet.";
        updateStatus();
      }
      return;
    }
    if (pending) {
      if (key === sel[sel.length - 1]) { cycle(); return; }
      pending = null; renderBoard(frame.svg);
    }
    const cur = analyze(sel);
    if (cur.next.has(key)) sel = [...sel, key];
    else if (sel.length && key === sel[sel.length - 1]) sel = sel.slice(0, -1);
    else if (analyze([]).next.has(key)) sel = [key];
    else {
      // not a legal choice: say so (the status would otherwise still show an older selection)
      notice = `${keyWords(key)}: not a legal choice now${sel.length ? "; the selection is cleared" : ""}.`;
      flash(key);
      sel = []; decorate(); updateStatus(); return;
    }
    const { next, done } = analyze(sel);
    if (done.length && next.size === 0) complete(done);
    else decorate();
    updateStatus();
  }

  function complete(actions) {
    if (actions.length === 1 && !frame.confirm) { sendMove({ action: actions[0].a }); return; }
    pending = { actions, i: 0 };
    sock.send({ type: "preview", game: gid, action: actions[0].a });
    decorate(); updateStatus();
  }

  function cycle() {
    if (!pending) return;
    pending.i = (pending.i + 1) % pending.actions.length;
    sock.send({ type: "preview", game: gid, action: pending.actions[pending.i].a });
    decorate(); updateStatus();
  }

  function confirmPending() {
    if (!pending) return;
    sendMove({ action: pending.actions[pending.i].a });
  }

  function sendMove(fields) {
    if (focusInPlay()) wantFocus = true;
    sock.send({ type: "move", game: gid, ...fields });
    pending = null; sel = [];
    const choices = $("#choices"); choices.replaceChildren();
  }

  // the pending action in players' words (the preview frame's "words": the game's move_in_words),
  // its notation until the preview comes
  function pendingWords() {
    const act = pending.actions[pending.i];
    return (pending.words && pending.words[act.a]) || act.n;
  }

  function onPreview(m) {
    if (!pending || m.ply !== frame.ply || m.action !== pending.actions[pending.i].a) return;
    if (m.words) { pending.words = pending.words || {}; pending.words[m.action] = m.words; }
    renderBoard(m.svg);
    board.classList.add("previewing");
    decorate(); updateStatus();
  }

  function clearSelection() { sel = []; pending = null; }

  // ---------------------------------------------------------------- drawing
  function renderBoard(svg) {
    if (focusInPlay()) wantFocus = true;
    const left = board.scrollLeft, top = board.scrollTop;
    board.innerHTML = svg;  // the library's SVG: no script, every text escaped (envs/core/svg.py)
    board.classList.remove("previewing");
    applyZoom();
    board.scrollLeft = left; board.scrollTop = top;  // a zoomed board stays where it was panned
  }

  // Zoom: the drawing made wide enough that its smallest hit shape is ZOOM_PX wide and high (a
  // phone's finger on a 24x24 board); the box then pans (scroll bars, or a finger).
  function applyZoom() {
    const svg = board.querySelector("svg"), btn = $("#zoom");
    board.classList.toggle("zoomed", zoomed);
    btn.setAttribute("aria-pressed", String(zoomed));
    btn.textContent = zoomed ? "Fit the board" : "Zoom in";
    if (!svg) return;
    svg.style.width = "";
    const width = svg.getBoundingClientRect().width;
    let least = Infinity;  // the smallest hit shape's width or height, in pixels at this size
    for (const n of svg.querySelectorAll(".hit")) {
      const r = n.getBoundingClientRect(), m = Math.min(r.width, r.height);
      if (m > 0) least = Math.min(least, m);
    }
    btn.hidden = !zoomed && !(least < ZOOM_PX);  // offered only where some target is smaller
    if (!zoomed || !isFinite(least)) return;
    svg.style.width = `${Math.max(width, Math.ceil((width * ZOOM_PX) / least))}px`;
  }

  function renderLive() {
    renderBoard(frame.svg);
    board.dataset.ply = String(frame.ply);
    board.dataset.view = "live";
    // once over, the status and the result box say how the game ended (the room's phase line after
    // a resignation said it a third time)
    $("#phase").textContent = frame.over ? "" : frame.phase || "";
    decorate();
    renderMoves();
    updateStatus();
  }

  function onPosition(m) {
    if (viewPly === null || m.ply !== viewPly) return;
    renderBoard(m.svg);
    board.dataset.ply = String(m.ply);
    board.dataset.view = "past";
    $("#phase").textContent = m.phase || "";
    $("#choices").replaceChildren();
    renderMoves();
    updateStatus();
    restoreFocus();
  }

  function show(ply) {
    if (!frame) return;
    ply = Math.max(0, Math.min(ply, frame.ply));
    if (ply === frame.ply) { viewPly = null; renderLive(); return; }
    viewPly = ply;
    clearSelection();
    sock.send({ type: "position", game: gid, ply });
    renderMoves(); updateStatus();
  }
  const shown = () => (viewPly === null ? (frame ? frame.ply : 0) : viewPly);

  function toggleAuto(on) {
    const btn = $("#auto");
    if (on === undefined) on = autoTimer === null;
    clearInterval(autoTimer); autoTimer = null;
    btn.setAttribute("aria-pressed", String(on));
    if (!on) return;
    if (viewPly === null) show(0);
    autoTimer = setInterval(() => {
      if (viewPly === null) { toggleAuto(false); return; }
      show(viewPly + 1);
    }, 700);
  }

  const seatLabel = (s) => (frame.seats[s] ? frame.seats[s].label : `player ${s + 1}`);

  function renderMoves() {
    const list = $("#moves");
    const hadFocus = list.contains(document.activeElement);
    const cur = shown();
    const bySeat = frame.move_seats || [], words = frame.moves_words || [];
    const items = frame.moves.map((mv, i) => el("li", { "data-seat": bySeat[i] },
      bySeat[i] === undefined ? null : el("span", { class: "ply-seat", text: `${seatLabel(bySeat[i])}: ` }),
      el("button", { class: "move", "data-ply": i + 1, "aria-current": i + 1 === cur ? "step" : null, text: mv,
        tabindex: (cur ? i + 1 === cur : i + 1 === frame.moves.length) ? "0" : "-1", onclick: () => show(i + 1) }),
      words[i] && words[i] !== mv ? el("span", { class: "move-words", text: ` ${words[i]}` }) : null));
    list.replaceChildren(...items);
    // scroll the list (only: scrollIntoView would scroll the page too, to the list, after every move)
    const active = list.querySelector("[aria-current]");
    if (hadFocus) (list.querySelector('button[tabindex="0"]') || document.body).focus({ preventScroll: true });
    if (active) {
      const li = active.parentElement, top = li.offsetTop, bottom = top + li.offsetHeight;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
    }
  }

  // The result in players' words (the frame's outcome.words: seats numbered from 1, who won or
  // resigned), then why the game ended where the words do not say it already (a resignation, the
  // step limit): "player 2 (blue, o) won — a side has no stones". The result code ("0-1") stays
  // in the record and the journal.
  const capital = (t) => (t ? t[0].toUpperCase() + t.slice(1) : t);

  function resultWords() {
    const o = frame.outcome;
    if (!o) return "";
    const words = o.words || o.result;
    const why = o.termination && !/resign/i.test(o.termination) && !words.includes(o.termination) ? ` — ${o.termination}` : "";
    return words + why;
  }

  // ---------------------------------------------------------------- players' words (room/words.py)
  // The selection as the board names it (the hit shapes' aria-labels: "tile 14", "c3, x stone"),
  // not as the click keys ("tile:14").
  function selectedWords() {
    return sel.map((k) => {
      const node = (hitsByKey().get(k) || [])[0];
      const label = node && node.getAttribute("aria-label");
      return label || k;
    }).join(", then ");
  }

  // The setting under the title and the "how to play" panel, once per page.
  function showWords(m) {
    if (m.setting && m.setting !== m.name) {
      $("#title").after(el("p", { class: "hint", id: "setting", text: m.setting }));
    }
    const panel = helpPanel(m.name, m.help, "game-help");
    if (panel) $("#notation").after(panel);
  }

  function updateStatus() {
    if (!frame) return;
    let text;
    const mover = frame.to_move;
    const seat = mover === null ? null : frame.seats[mover];
    if (viewPly !== null) text = `Viewing position ${viewPly} of ${frame.ply} (End returns to the game).`;
    else if (frame.kind === "record") text = `Uploaded record: ${frame.ply} moves${frame.outcome ? ", " + resultWords() : ""}.`;
    else if (frame.over) text = `Game over: ${frame.outcome ? resultWords() : "finished"}.`;
    else if (frame.legal) {
      text = `Your move (${seat.label}).`;
      if (pending) {
        const more = pending.actions.length > 1;
        text += keyboardUsed()
          ? ` ${pendingWords()}: press Enter (or Confirm) to play it${more ? ", R for the next option" : ""}, Esc to cancel.`
          : ` Confirm plays it${more ? ", Next option shows another" : ""}, Cancel clears it.`;  // the words: on the button
      }
      else if (sel.length) text += ` Selected ${selectedWords()}.`;
    } else if (seat && seat.error) text = `${seat.label}: ${seat.error}`;
    else if (seat && seat.thinking) text = `${seat.label} (${seat.agent}) is thinking…`;
    else if (seat && seat.kind === "agent") text = `${seat.label} (${seat.agent}) to move.`;
    else if (seat && seat.open) text = `${seat.label} is an open seat: waiting for someone to join.`;
    else text = frame.you.length ? `Waiting for ${seat.label}.` : `Watching: ${seat.label} to move.`;
    $("#status").replaceChildren(text, notice ? el("span", { class: "notice", text: ` ${notice}` }) : "");
  }

  function renderSide() {
    renderSeats();
    const res = $("#result");
    if (frame.outcome) {
      res.hidden = false;
      res.textContent = `${capital(resultWords())}.`;
      res.title = `result: ${frame.outcome.result} (${frame.outcome.termination})`;  // the game's own texts
    } else res.hidden = true;
    $("#undo").disabled = !frame.can_undo;
    $("#resign").disabled = !frame.can_resign;
    const dl = $("#download");
    if (frame.downloadable) { dl.setAttribute("aria-disabled", "true"); dl.title = frame.downloadable; dl.classList.add("disabled"); }
    else { dl.removeAttribute("aria-disabled"); dl.title = "the game's record (JSON)"; dl.classList.remove("disabled"); }
    // a seat's page keeps the typed move in its place between turns (disabled: no jump of the list
    // under it); a spectator's page has none
    $("#move-form").hidden = !frame.you.length || frame.over || frame.kind === "record";
    for (const n of $("#move-form").querySelectorAll("input, button")) n.disabled = !frame.legal;
    if (frame.problem) showError(frame.problem);
    renderInvites();
    if (viewPly === null) renderMoves();
  }

  function renderSeats() {
    if (!frame) return;
    const rows = frame.seats.map((s) => {
      const bits = [el("span", { class: "seat-label", text: s.label }), " ",
        el("span", { class: "seat-who", text: frame.you.includes(s.seat) ? "you" : describeSeat(s) })];
      if (frame.scores) bits.push(el("span", { class: "score", text: ` ${frame.scores[s.seat]}` }));
      if (s.thinking) bits.push(el("span", { class: "thinking", text: " thinking…" }));
      if (s.resigned) bits.push(el("span", { class: "resigned", text: " resigned (out)" }));
      if (s.error) bits.push(el("div", { class: "seat-error", text: s.error }));
      if (s.open && !frame.over) bits.push(el("button", { class: "join", "data-seat": s.seat, text: "Join",
        onclick: () => sock.send({ type: "join", game: gid, seat: s.seat }) }));
      if ((frame.can_seat || []).includes(s.seat)) {  // the room's rule: see room/__init__.py
        const select = el("select", { class: "seat-change", "data-seat": s.seat, "aria-label": `give ${s.label} to` },
          el("option", { value: "", text: "Give seat to…" }),
          el("option", { value: "me", text: "me" }),
          el("option", { value: "invite", text: "a person, by a link" }),
          el("option", { value: "open", text: "an open seat" }),
          ...agentMenu.map((a) => el("option", { value: a.name, text: `agent ${a.name}` })));
        select.addEventListener("change", () => {
          if (select.value) sock.send({ type: "seat", game: gid, seat: s.seat, to: select.value });
        });
        bits.push(select);
      }
      return el("li", { class: "seat" + (frame.to_move === s.seat ? " to-move" : ""), "data-seat": s.seat }, ...bits);
    });
    $("#seat-list").replaceChildren(el("ul", {}, ...rows));
  }

  function renderInvites() {
    const d = Tokens.get(gid), box = $("#invite-links");
    // only the links not yet opened: a link works once
    const inv = Object.entries(d.invites || {}).filter(([s]) => frame.seats[s] && frame.seats[s].invited);
    if (!inv.length || frame.over) { box.hidden = true; return; }
    box.hidden = false;
    box.replaceChildren(el("p", { text: "Invitation links (each works once: the first browser to open it takes the seat):" }), ...inv.map(([s, t]) => el("p", {}, `${capital(frame.seats[s].label)}: `,
      el("input", { class: "link", readonly: true, "aria-label": `link for ${frame.seats[s].label}`,
        value: `${location.origin}/game/${gid}#seat=${s}&token=${encodeURIComponent(t)}` }))));
  }

  // ---------------------------------------------------------------- events
  board.addEventListener("click", (ev) => {
    const hit = ev.target.closest("[data-key]");
    if (hit) { focusKey = hit.getAttribute("data-key"); onKey(focusKey); }
  });
  // the focus ring only for keyboard use: a pointer (mouse, finger, pen) hides it until the next key
  document.addEventListener("pointerdown", () => document.body.classList.add("by-pointer"), true);
  document.addEventListener("keydown", () => document.body.classList.remove("by-pointer"), true);
  // "Skip to the board": the board's one tab stop (or the board itself) takes the focus
  $("#skip-board").addEventListener("click", (ev) => {
    ev.preventDefault();
    const stop = board.querySelector('[data-key][tabindex="0"]');
    if (stop) focusStop(stop, true); else board.focus();
  });
  let dragFrom = null;
  board.addEventListener("pointerdown", (ev) => {
    const hit = ev.target.closest("[data-key]");
    dragFrom = hit && hit.classList.contains("target") ? hit.getAttribute("data-key") : null;
  });
  board.addEventListener("pointerup", (ev) => {
    if (!dragFrom) return;
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const hit = under && under.closest && under.closest("[data-key]");
    const key = hit && hit.getAttribute("data-key");
    const from = dragFrom; dragFrom = null;
    if (key && key !== from && board.contains(hit)) { onKey(from); onKey(key); }
  });
  board.addEventListener("keydown", (ev) => {
    const hit = ev.target.closest && ev.target.closest("[data-key]");
    if (ev.key === "Enter" && pending) { ev.preventDefault(); ev.stopPropagation(); wantFocus = true; confirmPending(); return; }
    if (hit && (ev.key === "Enter" || ev.key === " ")) {
      ev.preventDefault(); ev.stopPropagation(); wantFocus = true; focusKey = hit.getAttribute("data-key");
      onKey(focusKey); return;
    }
    const dir = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
    const list = dir ? stops() : [];
    if (!list.length) return;  // no target: the arrows step through the game (the page's keys)
    ev.preventDefault(); ev.stopPropagation();
    const from = hit && list.includes(hit) ? hit : null;
    const to = from ? nearestStop(from, dir[0], dir[1]) : list.find((n) => n.getAttribute("tabindex") === "0") || list[0];
    if (to) focusStop(to, true);
  });
  board.addEventListener("focusin", (ev) => {
    const hit = ev.target.closest && ev.target.closest("[data-key]");
    if (hit && hit.hasAttribute("tabindex")) {
      for (const n of board.querySelectorAll('[tabindex="0"]')) if (n !== hit) n.setAttribute("tabindex", "-1");
      hit.setAttribute("tabindex", "0"); focusKey = hit.getAttribute("data-key");
    }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.closest && ev.target.closest("input, select, textarea")) return;
    // Enter confirms a pending move, unless a button or link has the focus (Enter presses it)
    if (ev.key === "Enter" && pending && !(ev.target.closest && ev.target.closest("button, a"))) { ev.preventDefault(); confirmPending(); return; }
    if (ev.key === "ArrowLeft") { ev.preventDefault(); toggleAuto(false); show(shown() - 1); }
    else if (ev.key === "ArrowRight") { ev.preventDefault(); toggleAuto(false); show(shown() + 1); }
    else if (ev.key === "Home") { ev.preventDefault(); toggleAuto(false); show(0); }
    else if (ev.key === "End") { ev.preventDefault(); toggleAuto(false); show(frame ? frame.ply : 0); }
    else if (ev.key === "Escape") { notice = null; clearSelection(); if (frame && viewPly === null) renderLive(); }
    else if (ev.key === "r" || ev.key === "R") cycle();
  });
  $("#moves").addEventListener("keydown", (ev) => {
    const step = { ArrowUp: -1, ArrowDown: 1 }[ev.key];
    if (!step || !frame) return;
    ev.preventDefault(); ev.stopPropagation(); toggleAuto(false);
    show(Math.max(1, shown() + step));
  });
  $("#first").onclick = () => { toggleAuto(false); show(0); };
  $("#prev").onclick = () => { toggleAuto(false); show(shown() - 1); };
  $("#next").onclick = () => { toggleAuto(false); show(shown() + 1); };
  $("#last").onclick = () => { toggleAuto(false); show(frame ? frame.ply : 0); };
  $("#auto").onclick = () => toggleAuto();
  $("#zoom").onclick = () => { zoomed = !zoomed; applyZoom(); };
  window.addEventListener("resize", () => { if (zoomed) applyZoom(); });
  $("#move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("#move-text").value.trim();
    if (!text) return;
    sendMove({ notation: text });
    $("#move-text").value = "";
  });
  $("#undo").onclick = () => sock.send({ type: "undo", game: gid });
  $("#resign").onclick = () => {
    const b = $("#resign");
    if (!resignArmed) { resignArmed = true; b.textContent = "Really resign?"; setTimeout(() => { resignArmed = false; b.textContent = "Resign"; }, 4000); return; }
    resignArmed = false; b.textContent = "Resign";
    sock.send({ type: "resign", game: gid });
  };
  $("#download").addEventListener("click", (ev) => {
    if (frame && frame.downloadable) { ev.preventDefault(); showError(frame.downloadable); }
  });
}

document.addEventListener("DOMContentLoaded", gamePage);
