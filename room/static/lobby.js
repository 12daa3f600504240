// The play room's lobby page: new games (a setting, its options, its seats), the games of the room,
// uploads of records. Needs common.js (loaded before it). Nothing here names a game.
"use strict";

function lobbyPage() {
  let envs = [], agents = [], setupTimer = null, lastSetup = null, choicesBefore = null;
  const sock = new Socket(() => sock.send({ type: "lobby" }), onMessage);

  function onMessage(m) {
    if (m.type === "lobby") renderLobby(m);
    else if (m.type === "setup") renderSeats(m);
    else if (m.type === "created") created(m);
    else if (m.type === "joined") { Tokens.addSeat(m.game, m.seat, m.token); location.href = `/game/${m.game}`; }
    else if (m.type === "error") {
      if (m.request === "setup") setupRefused(m.message);
      showError(m.message);
    }
  }

  function renderLobby(m) {
    if (!envs.length && m.envs.length) {
      envs = m.envs;
      const sel = $("#env");
      sel.replaceChildren(...envs.map((e) => el("option", { value: e.id, text: e.name, title: e.id })));
      sel.onchange = envChanged;
      $("#variant").onchange = () => variantChanged(false);
      envChanged();
    }
    $("#formats").textContent = "Readable formats: " + Object.entries(m.formats).map(([k, v]) => `${k} (${v})`).join(", ");
    $("#upload-file").setAttribute("accept", Object.keys(m.formats).join(","));
    const box = $("#games");
    if (!m.games.length) { box.replaceChildren(el("p", { class: "hint", text: "No games yet." })); }
    else {
      const rows = m.games.map((g) => {
        const mine = Tokens.all(g.game).length > 0;
        const seats = el("ul", { class: "seat-summary" }, ...g.seats.map((s) => el("li", {},
          `${s.label}: ${describeSeat(s)}`,
          s.open && !g.over ? el("button", { class: "join", "data-game": g.game, "data-seat": s.seat,
            text: "Join", onclick: () => sock.send({ type: "join", game: g.game, seat: s.seat }) }) : null)));
        let state;
        if (g.kind === "record") state = "uploaded record" + (g.outcome && g.outcome.words ? `: ${g.outcome.words}` : "");
        else if (g.over) state = g.outcome ? capital(g.outcome.words || g.outcome.result) : "over";
        else state = `${capital(g.to_move)} to move`;
        const players = g.seats.length ? ` · ${g.seats.length} players` : "";
        const open = el("a", { href: `/game/${g.game}`, class: "open-game",
          text: g.kind === "record" || g.over ? "Replay" : mine ? "Resume" : "Watch" });
        return el("tr", { "data-game": g.game, class: g.over ? "over" : "running" },
          el("td", {}, el("strong", { text: g.name }), el("div", { class: "hint", text: `${g.setting || g.name}${players} · game ${g.game}`, title: `${g.env_id} ${JSON.stringify(g.env_kwargs)}` })),
          el("td", {}, seats),
          el("td", { text: movesWords(g.ply), "data-label": "Moves" }),
          el("td", { text: state + (g.problem ? " ⚠" : ""), title: g.problem || "", "data-label": "State" }),
          el("td", {}, open));
      });
      box.replaceChildren(el("table", { class: "games" },
        el("thead", {}, el("tr", {}, ...["Game", "Seats", "Moves", "State", ""].map((t) => el("th", { text: t })))),
        el("tbody", {}, ...rows)));
    }
    $("#problems").replaceChildren(...(m.problems || []).map((p) => el("p", { class: "problem", text: p })));
  }

  function capital(t) { return t ? t[0].toUpperCase() + t.slice(1) : t; }
  function movesWords(n) { return n === 0 ? "no moves" : `${n} move${n === 1 ? "" : "s"}`; }

  function currentEnv() { return envs.find((e) => e.id === $("#env").value); }

  function envChanged() {
    const env = currentEnv();
    const labels = env.variant_labels || {};
    $("#variant").replaceChildren(...Object.keys(env.variants).map((v) => el("option", { value: v, text: labels[v] || v })));
    const opts = $("#options");
    const words = env.argument_words || {};
    // an option that changes only what agents observe is not offered to people (its default stays)
    opts.replaceChildren(...env.arguments.filter((a) => !(words[a.name] || {}).agents_only).map((a) => {
      const id = `opt-${a.name}`;
      let input;
      if (typeof a.default === "boolean") input = el("input", { id, type: "checkbox", "data-arg": a.name });
      else if (typeof a.default === "number") input = el("input", { id, type: "number", "data-arg": a.name });
      else input = el("input", { id, type: "text", "data-arg": a.name, placeholder: a.default === null ? "default" : "" });
      input.addEventListener("change", () => askSetup(false));
      return optionRow({ ...a, ...((env.argument_words || {})[a.name] || {}) }, id, input);
    }));
    showHelp(env);
    $("#notation-help") && $("#notation-help").remove();
    variantChanged(true);
  }

  // An option in players' words: its label (the argument's name for those who script the room),
  // its help text under it.
  function optionRow(a, id, input) {
    const helpId = `${id}-help`;
    if (a.help) input.setAttribute("aria-describedby", helpId);
    return el("div", { class: "row option" },
      el("label", { for: id, text: a.label || a.name, title: a.name }), input,
      a.help ? el("p", { class: "hint", id: helpId, text: a.help }) : null);
  }

  function showHelp(env) {
    const old = $("#lobby-help");
    const panel = helpPanel(env.name, env, "lobby-help");
    if (old) old.remove();
    if (panel) $("#options-box").after(panel);
  }

  function variantChanged(otherGame) {
    const env = currentEnv();
    const values = { ...Object.fromEntries(env.arguments.map((a) => [a.name, a.default])), ...env.variants[$("#variant").value] };
    for (const input of document.querySelectorAll("#options [data-arg]")) {
      const v = values[input.dataset.arg];
      if (input.type === "checkbox") input.checked = !!v;
      else input.value = v === null || v === undefined ? "" : (typeof v === "object" ? JSON.stringify(v) : String(v));
    }
    askSetup(otherGame === true);
  }

  function kwargs() {
    const env = currentEnv(), out = {};
    for (const a of env.arguments) {
      const input = document.getElementById(`opt-${a.name}`);
      if (!input) continue;  // not offered to people: its default
      let v;
      if (input.type === "checkbox") v = input.checked;
      else if (input.value.trim() === "") continue;
      else if (input.type === "number") v = Number(input.value);
      else if (typeof a.default === "string") v = input.value;
      else { try { v = JSON.parse(input.value); } catch (e) { v = input.value; } }
      if (JSON.stringify(v) !== JSON.stringify(a.default)) out[a.name] = v;
    }
    return out;
  }

  // A change of setting asks the room for its seats and agents. Until the answer for this very
  // setting comes, the game cannot be created and the former seat menus are not offered: another
  // game's are taken away (they may name agents that cannot play this one), the same game's are
  // disabled; an answer for an older request is ignored.
  function askSetup(otherGame) {
    clearTimeout(setupTimer);
    if (choicesBefore === null) choicesBefore = [...$("#seats").querySelectorAll("select")].map((x) => x.value);
    if (otherGame) $("#seats").replaceChildren(el("legend", { text: "Seats" }));
    for (const sel of $("#seats").querySelectorAll("select")) sel.disabled = true;
    $("#create").disabled = true;
    let note = $("#seats-pending");
    if (!note) { note = el("p", { class: "hint", id: "seats-pending", role: "status" }); $("#seats").append(note); }
    note.textContent = `Finding the seats and agents of ${currentEnv().name} in this setting…`;
    setupTimer = setTimeout(() => {
      lastSetup = { type: "setup", env_id: $("#env").value, env_kwargs: kwargs() };
      sock.send(lastSetup);
    }, 50);
  }

  function isCurrentSetup(m) {
    return lastSetup !== null && m.env_id === lastSetup.env_id &&
      JSON.stringify(m.env_kwargs) === JSON.stringify(lastSetup.env_kwargs);
  }

  function setupRefused(message) {
    choicesBefore = null;
    agents = [];
    $("#create").disabled = true;
    $("#seats").replaceChildren(el("legend", { text: "Seats" }),
      el("p", { class: "problem", id: "seats-refused", role: "status", text: `This setting cannot be played: ${message}` }));
  }

  function renderSeats(m) {
    if (!isCurrentSetup(m)) return;  // the answer to a setting changed since
    agents = m.agents;
    const box = $("#seats");
    const before = choicesBefore || [...box.querySelectorAll("select")].map((x) => x.value);
    choicesBefore = null;
    $("#create").disabled = false;
    const rows = m.seats.map((s) => {
      const sel = el("select", { id: `seat-${s.seat}`, "data-seat": s.seat, "aria-label": `${s.label}` },
        el("option", { value: "me", text: "Me (this browser)" }),
        el("option", { value: "invite", text: "A person, by a link" }),
        el("option", { value: "open", text: "Open seat (join from the lobby)" }),
        ...agents.map((a) => el("option", { value: a.name, text: `Agent: ${a.name} — ${a.summary}` })));
      sel.value = s.seat === 0 ? "me" : (agents.length ? agents[0].name : "open");
      const dropped = keepChoice(sel, before[s.seat], m);
      return el("div", { class: "row" }, el("label", { for: `seat-${s.seat}`, text: s.label }), sel,
        dropped ? el("p", { class: "seat-dropped problem", role: "status", "data-seat": s.seat, text: dropped }) : null);
    });
    const label = (i) => (m.seats[i] ? m.seats[i].label : `player ${i + 1}`);
    const teams = m.teams.some((t) => t.length > 1) ? el("p", { class: "hint", id: "teams", text: "Teams: " + m.teams.map((t) => t.map(label).join(" and ")).join(" against ") }) : null;
    box.replaceChildren(...[el("legend", { text: "Seats" }), ...rows, teams,
      el("p", { class: "hint", id: "notation-help", text: "Notation: " + m.notation })].filter((x) => x));
  }

  // A seat keeps what was chosen for it; an agent that cannot play the new setting is replaced by
  // the menu's first agent (never silently by an open seat), and the returned line says which
  // agent was dropped and why (the setup frame's `unavailable`).
  function keepChoice(sel, was, m) {
    if (was === undefined) return "";
    if ([...sel.options].some((o) => o.value === was)) { sel.value = was; return ""; }
    const why = (m.unavailable || []).find((u) => u.name === was);
    const instead = agents.length ? agents[0].name : "open";
    sel.value = instead;
    return `${was} cannot play this setting: ${why ? why.why : "the room does not offer it here"}. ` +
      `The seat is now ${agents.length ? "the agent " + instead : "an open seat"}.`;
  }

  $("#create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const seats = [...document.querySelectorAll("#seats select")].map((s) => s.value);
    const msg = { type: "create", env_id: $("#env").value, env_kwargs: kwargs(), seats };
    const seed = $("#seed").value.trim();
    if (seed !== "") msg.seed = Number(seed);
    sock.send(msg);
  });

  function created(m) {
    Tokens.setOwner(m.game, m.owner);
    for (const s of m.me) Tokens.addSeat(m.game, s, m.tokens[s]);
    const invites = {};
    for (const s of m.invite) invites[s] = m.tokens[s];
    Tokens.setInvites(m.game, invites);
    if (!m.invite.length) { location.href = `/game/${m.game}`; return; }
    const box = $("#invites");
    box.hidden = false;
    box.replaceChildren(el("h2", { text: "Send these links" }),
      el("p", { class: "hint", id: "single-use", text: "Each link works once: the first browser that opens it takes the seat (and gets its own key); the link then stops working." }),
      ...m.invite.map((s) => {
        const url = `${location.origin}/game/${m.game}#seat=${s}&token=${encodeURIComponent(m.tokens[s])}`;
        return el("p", {}, `Player ${s + 1}: `, el("input", { class: "link", readonly: true, value: url, "aria-label": `link for player ${s + 1}` }));
      }),
      el("p", {}, el("a", { href: `/game/${m.game}`, id: "go-game", text: "Go to the game" })));
  }

  $("#upload-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = $("#upload-file").files[0];
    if (!file) { showError("choose a record file first"); return; }
    const data = new FormData(); data.append("file", file, file.name);
    const r = await fetch("/upload", { method: "POST", body: data });
    const j = await r.json();
    if (!r.ok) showError(j.error || `upload failed (${r.status})`);
    else location.href = j.url;
  });
}

document.addEventListener("DOMContentLoaded", lobbyPage);
