"""Pictures of the play room's game page for every environment id (the screenshots of the README and docs/room.md).

    python benchmarks/room_screenshots.py [--out results/pictures] [--moves 6]

Serves a room in-process (records in a temporary folder), creates one game per env id (seat 0 a
person, the other seats the random agent, seed 1), plays ``--moves`` moves of seat 0 (random legal
moves), opens the page as seat 0 in headless Chromium (``/usr/bin/chromium``) and writes
``OUT/room_<env>.png`` (``<env>`` = the env id without its version, e.g. ``room_ataxx.png``).
Needs the ``room`` extra and playwright.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def wait(predicate, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the room did not get there in time")
        time.sleep(0.02)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "results" / "pictures"))
    parser.add_argument("--moves", type=int, default=6)
    args = parser.parse_args(argv)

    import numpy as np
    from playwright.sync_api import sync_playwright
    from websockets.sync.client import connect

    from envs.registry import env_ids, spec
    from room.app import create_app, serve_in_thread

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as records:
        app = create_app(records, agent_delay=0)
        url, stop = serve_in_thread(app)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium")
                for env_id in env_ids():
                    n = spec(env_id).num_players()
                    with connect(url.replace("http", "ws") + "/ws") as ws:
                        ws.send(
                            json.dumps(
                                {"type": "create", "env_id": env_id, "seed": 1, "seats": ["me"] + ["random"] * (n - 1)}
                            )
                        )
                        created = next(m for m in map(json.loads, ws) if m["type"] == "created")
                        game = app.state.room.games[created["game"]]
                        for _ in range(args.moves):
                            # wait() polls each lambda below at once, in this iteration, so the
                            # loop variables it reads (game, ply) are the current ones.
                            wait(lambda: game.over or game.to_move() == 0)  # noqa: B023
                            if game.over:
                                break
                            legal = game.state.legal_actions()
                            ws.send(
                                json.dumps(
                                    {"type": "move", "game": game.id, "action": int(legal[rng.integers(len(legal))])}
                                )
                            )
                            ply = game.ply
                            wait(lambda: game.ply > ply)  # noqa: B023
                        wait(lambda: game.over or game.to_move() == 0)  # noqa: B023
                    page = browser.new_page(viewport={"width": 1280, "height": 860})
                    page.goto(f"{url}/game/{game.id}#seat=0&token={created['tokens']['0']}")
                    page.wait_for_selector(f'#board[data-ply="{game.ply}"]')
                    page.wait_for_timeout(200)
                    name = env_id.rsplit("_v", 1)[0]
                    page.screenshot(path=str(out / f"room_{name}.png"), full_page=False)
                    print(f"{out / f'room_{name}.png'}: {game.positions[0].info.long_name}, {game.ply} moves")
                    page.close()
                browser.close()
        finally:
            stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
