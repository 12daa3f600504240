"""How fast the play room shows a person's move, measured in the browser (not a test).

    python benchmarks/room_latency.py [--env ataxx_v0] [--moves 200] [--load 20] [--load-agent random]

A room is served in-process; headless Chromium (``/usr/bin/chromium``) plays seat 0 of games
against ``random`` by clicks along the moves' click paths (a new game when one ends). The benchmark
times each move in the page from outside the room's code (:data:`INSTRUMENT`, an init script that
wraps the page's WebSocket): from the ``move`` message the click that completes a move sends to the
end of the page's handler of the first ``state`` frame with another ply, the new position drawn
(the server has checked the move, journaled and fsynced it, built the frame and sent it). Two
rounds of ``--moves`` moves: the room alone, then with ``--load`` agent-vs-agent games running at
once (``--load-agent`` in every seat, no pause between their moves by default, the worst case;
``--agent-delay 0.5`` is the server's default pacing; a finished one is replaced). Prints the
median (and 90th percentile) of both rounds and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


#: Run in every page before its own scripts (``page.add_init_script``): times each move from the
#: ``move`` message sent to the end of the page's handler of the first ``state`` frame with another
#: ply (the handler draws the position synchronously); a refused move is not timed. The latencies
#: (ms) are ``window.__roomLatency.latencies``.
INSTRUMENT = """
(() => {
  const stats = { sentAt: null, sentPly: null, lastPly: null, latencies: [] };
  window.__roomLatency = stats;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    let m = null;
    try { m = JSON.parse(data); } catch (e) { /* not JSON: not a move */ }
    if (m && m.type === "move") { stats.sentAt = performance.now(); stats.sentPly = stats.lastPly; }
    return send.call(this, data);
  };
  const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    get() { return onmessage.get.call(this); },
    set(handler) {
      onmessage.set.call(this, function (ev) {
        const result = handler.call(this, ev);
        const now = performance.now();
        let m = null;
        try { m = JSON.parse(ev.data); } catch (e) { return result; }
        if (m.type === "state") {
          if (stats.sentAt !== null && m.ply !== stats.sentPly) {
            stats.latencies.push(now - stats.sentAt);
            stats.sentAt = null;
          }
          stats.lastPly = m.ply;
        } else if (m.type === "error" && m.request === "move") stats.sentAt = null;
        return result;
      });
    },
  });
})();
"""


def wait(predicate, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the room did not get there in time")
        time.sleep(0.005)


def create(url: str, env_id: str, seats: list[str], seed: int) -> dict:
    from websockets.sync.client import connect

    with connect(url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "create", "env_id": env_id, "seats": seats, "seed": seed}))
        for text in ws:
            m = json.loads(text)
            if m["type"] in ("created", "error"):
                if m["type"] == "error":
                    raise RuntimeError(m["message"])
                return m


def click_move(page, game, action: int) -> None:
    """Choose ``action`` on ``page`` with clicks (keys: hit shapes, else buttons)."""
    st = game.state
    ui = st.board_ui()
    paths = ui.action_paths(st, action).paths
    if not paths:
        page.click(f'#choices button[data-action="{action}"]')
        return
    for key in paths[0]:
        hit = page.locator(f'#board [data-key="{key}"]')
        if hit.count():
            hit.first.click()
        else:
            page.click(f'#choices button[data-choice="{key}"]')
    if page.locator("#as-is").count():
        page.click("#as-is")
    if page.locator("#confirm").count():
        notation = st.action_to_string(action)
        for _ in range(64):
            if page.inner_text("#confirm") == f"Confirm {notation}":
                break
            page.keyboard.press("r")
            page.wait_for_timeout(20)
        page.click("#confirm")


def round_of(browser, url: str, app, env_id: str, moves: int, seed: int) -> list[float]:
    """``moves`` moves of seat 0 against random; the page's latencies (ms)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_players = None
    latencies: list[float] = []
    page = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True).new_page()
    page.add_init_script(INSTRUMENT)
    game = None
    g = 0
    while len(latencies) < moves:
        if game is None or game.over:
            if game is not None:
                latencies += page.evaluate("window.__roomLatency.latencies")
            if n_players is None:
                from envs.registry import spec

                n_players = spec(env_id).num_players()
            created = create(url, env_id, ["me"] + ["random"] * (n_players - 1), seed * 1000 + g)
            g += 1
            game = app.state.room.games[created["game"]]
            page.goto(f"{url}/game/{game.id}#seat=0&token={created['tokens']['0']}")
            done = 0
        wait(lambda: game.over or game.to_move() == 0)  # noqa: B023  (wait() polls it now, in this iteration)
        if game.over:
            continue
        page.wait_for_selector(f'#board[data-ply="{game.ply}"][data-view="live"]')
        legal = game.state.legal_actions()
        ply = game.ply
        click_move(page, game, int(legal[rng.integers(len(legal))]))
        page.wait_for_function(f"document.querySelector('#board').dataset.ply > {ply}")
        done += 1
        if len(latencies) + done >= moves:
            latencies += page.evaluate("window.__roomLatency.latencies")
            break
    page.close()
    return latencies[:moves]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="ataxx_v0")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--load", type=int, default=20, help="agent-vs-agent games in the second round")
    parser.add_argument("--load-agent", default="random")
    parser.add_argument(
        "--agent-delay",
        type=float,
        default=0.0,
        help="the room's pause before each move of an all-agent game (the server's default "
        "is 0.5 s; 0, the default here, is the worst case)",
    )
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from room.app import create_app, serve_in_thread

    with tempfile.TemporaryDirectory() as records:
        app = create_app(records, agent_delay=args.agent_delay)
        url, stop = serve_in_thread(app)
        stop_load = threading.Event()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium")
                alone = round_of(browser, url, app, args.env, args.moves, seed=1)

                from envs.registry import spec

                n = spec(args.env).num_players()
                agent_moves = [0]

                def keep_load():
                    games, k = [], 0
                    while not stop_load.is_set():
                        games = [gm for gm in games if not gm.over]
                        while len(games) < args.load:
                            c = create(url, args.env, [args.load_agent] * n, 10_000 + k)
                            k += 1
                            games.append(app.state.room.games[c["game"]])
                        time.sleep(0.05)

                loader = threading.Thread(target=keep_load, daemon=True)
                loader.start()
                wait(
                    lambda: (
                        sum(
                            1
                            for gm in app.state.room.games.values()
                            if not gm.over and all(s.kind == "agent" for s in gm.seats)
                        )
                        >= args.load
                    )
                )
                t0 = time.monotonic()
                loaded = round_of(browser, url, app, args.env, args.moves, seed=2)
                elapsed = time.monotonic() - t0
                stop_load.set()
                loader.join(timeout=10)
                agent_moves[0] = sum(
                    gm.ply for gm in app.state.room.games.values() if all(s.kind == "agent" for s in gm.seats)
                )
                browser.close()
        finally:
            stop_load.set()
            stop()

    def q(xs, f):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(f * len(xs)))]

    m1, m2 = statistics.median(alone), statistics.median(loaded)
    print(f"{args.env}: click to new position drawn, {len(alone)} moves against random")
    print(f"  alone:                                   median {m1:.1f} ms, p90 {q(alone, 0.9):.1f} ms")
    print(
        f"  with {args.load} {args.load_agent}-vs-{args.load_agent} games running "
        f"({args.agent_delay:g} s between their moves): median {m2:.1f} ms, "
        f"p90 {q(loaded, 0.9):.1f} ms ({agent_moves[0] / elapsed:.0f} agent moves/s meanwhile)"
    )
    print(f"  ratio loaded / alone: {m2 / m1:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
