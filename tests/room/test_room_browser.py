"""The play room in a real browser: headless Chromium (Debian's ``/usr/bin/chromium``) driven by
Playwright, against the room served in-process on a free loopback port.

Moves are made the way a person makes them: by clicking the keys of the action's click path
(``action_paths`` of the game's board module; a key that no hit shape of the drawing carries is
a button under the board), cycling with ``R`` through the actions sharing one path and
confirming where the game asks for it. Nothing here reads the page's internals.

Skipped only when ``/usr/bin/chromium`` is missing outside CI (``CI`` set: a failure instead).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)"
)

from room_helpers import hidden_cards_in  # noqa: E402

from room.app import create_app, serve_in_thread  # noqa: E402
from room.limits import RoomLimits  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium (apt-get install chromium)")
    pytest.skip(
        f"{CHROMIUM} is missing (apt-get install chromium); the room's browser tests need it", allow_module_level=True
    )

# ms for any one wait: a setting's first menus build its agents and time a speed probe in a thread
# of the server, which on a 2-core machine with the other pytest worker busy has taken past 15 s
TIMEOUT = 45_000


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


class Server:
    """A room served in a thread; :meth:`restart` serves a new room over the same records folder
    on the same port (a server restarted mid-game)."""

    def __init__(self, records: Path):
        self.records = records
        self.port = 0
        self.start()

    def start(self):
        # one server serves a whole module's pages, none closed before the module ends: past the
        # room's default of 32 open pages for one visitor (every page here is 127.0.0.1) a page's
        # WebSocket is refused, and its board never comes (the bound has its own tests)
        self.app = create_app(
            self.records, agent_delay=0, limits=RoomLimits(max_connections=4096, max_connections_per_visitor=4096)
        )
        self.url, self._stop = serve_in_thread(self.app, port=self.port)
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        self._stop()

    def restart(self):
        self.stop()
        self.start()

    def game(self, gid: str):
        return self.app.state.room.games[gid]


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "records")
    yield s
    s.stop()


def new_page(browser, frames: list | None = None):
    """A page in a fresh browser context (its own storage: another browser); with ``frames``,
    every WebSocket frame the page receives is appended to it (raw text)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # waits evaluate script text
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    return page


def create_in_lobby(
    page,
    server,
    env_id: str,
    seats: list[str],
    variant: str | None = None,
    options: dict | None = None,
    seed: int | None = 1,
) -> str:
    """Create a game with the lobby's form; return its id (the page ends on the game page,
    unless a seat is ``invite``: then on the lobby with the links)."""
    page.goto(server.url + "/")
    page.wait_for_selector("#env option", state="attached")
    page.select_option("#env", env_id)
    if variant:
        page.select_option("#variant", variant)
    if options:
        page.click("#options-box summary")
    for name, value in (options or {}).items():
        field = page.locator(f"#opt-{name}")
        if isinstance(value, bool):
            field.set_checked(value)
        else:
            field.fill(str(value))
        field.dispatch_event("change")
    page.wait_for_selector(f"#seat-{len(seats) - 1}")
    page.wait_for_function(f"document.querySelectorAll('#seats select').length === {len(seats)}")
    for i, choice in enumerate(seats):
        page.select_option(f"#seat-{i}", choice)
    if seed is not None:  # None: left empty, the room draws it
        page.fill("#seed", str(seed))
    page.click("#create")
    if "invite" in seats:
        page.wait_for_selector("#go-game")
        return re.search(r"/game/(\w+)", page.get_attribute("#go-game", "href")).group(1)
    page.wait_for_url(re.compile(r".*/game/\w+$"))
    return page.url.rsplit("/", 1)[1]


def wait_ply(page, ply: int) -> None:
    page.wait_for_selector(f'#board[data-ply="{ply}"][data-view="live"]')


def wait_synced(page, game) -> None:
    """Wait until ``page`` shows ``game``'s live position (re-reading the game's ply at each poll:
    an agent may move while we wait, and the page may skip straight to the position after it)."""
    import time

    deadline = time.monotonic() + TIMEOUT / 1000
    script = (
        "() => { const b = document.querySelector('#board'); "
        "return b && b.dataset.view === 'live' ? Number(b.dataset.ply) : -1; }"
    )
    while True:
        ply = game.ply
        if page.evaluate(script) == ply == game.ply:
            return
        assert time.monotonic() < deadline, f"the page never showed the game's live position (ply {game.ply})"
        time.sleep(0.02)


def wait_turn(page, game, seat: int, after: int | None = None) -> None:
    """Wait until ``seat`` is to move in ``game`` (at a ply past ``after``, when given: a click
    sent just before may not have reached the room yet) and ``page``, seat ``seat``'s page, shows
    that position with the move offered (``data-turn="yours"``)."""
    import time

    deadline = time.monotonic() + TIMEOUT / 1000
    while game.to_move() != seat or (after is not None and game.ply <= after):
        assert time.monotonic() < deadline, f"seat {seat} never got the move (ply {game.ply})"
        time.sleep(0.02)
    wait_yours(page, game.ply)


def wait_yours(page, ply: int) -> None:
    """Wait until ``page`` shows ply ``ply`` live and offers its seat the move there."""
    page.wait_for_selector(f'#board[data-ply="{ply}"][data-view="live"][data-turn="yours"]')


def click_key(page, key: str) -> None:
    hit = page.locator(f'#board [data-key="{key}"]')
    if hit.count():
        hit.first.click()
    else:
        page.click(f'#choices button[data-choice="{key}"]')


def play(page, game, action: int) -> None:
    """Choose ``action`` (state's frame) on ``page`` with clicks, as a person would, and wait
    until the page shows the position after it."""
    st = game.state
    ply = game.ply
    ui = st.board_ui()
    notation = st.action_to_string(action)
    wait_yours(page, ply)
    paths = ui.action_paths(st, action).paths
    if not paths:
        page.click(f'#choices button[data-action="{action}"]')
    else:
        path = paths[0]
        for key in path:
            click_key(page, key)
        sharing = [b for b in st.legal_actions() if path in ui.action_paths(st, b).paths]
        longer = any(
            len(p) > len(path) and p[: len(path)] == path
            for b in st.legal_actions()
            for p in ui.action_paths(st, b).paths
        )
        if longer:
            page.click("#as-is")
        if len(sharing) > 1 or ui.confirm:
            for _ in range(len(sharing)):
                page.wait_for_selector("#confirm")
                if page.get_attribute("#confirm", "data-notation") == notation:  # its words: the button's text
                    break
                shown = page.inner_text("#confirm")
                page.keyboard.press("r")
                page.wait_for_function(
                    "t => document.querySelector('#confirm') && document.querySelector('#confirm').textContent !== t",
                    arg=shown,
                )
            assert page.get_attribute("#confirm", "data-notation") == notation
            page.click("#confirm")
    page.wait_for_function(f"document.querySelector('#board').dataset.ply > {ply}")


# ---------------------------------------------------------------------------------- the tests
NEAR_END = "xxxxxxx/xxxxxxx/xxxxxxx/xxxoooo/ooooooo/oooo3/ooooo2 x 0 1"


def test_a_whole_ataxx_game_against_random_by_clicks(browser, server):
    page = new_page(browser)
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"], options={"fen": NEAR_END})
    game = server.game(gid)
    assert game.env_kwargs == {"fen": NEAR_END}
    import time

    deadline = time.monotonic() + 4 * TIMEOUT / 1000  # a few plies: the agent's moves may be slow under load
    while not game.over:
        assert time.monotonic() < deadline, f"the game did not end (ply {game.ply})"
        wait_synced(page, game)
        if game.to_move() == 0:
            play(page, game, game.state.legal_actions()[-1])
        else:
            time.sleep(0.02)  # random to move: poll until it has (a bounded count of polls raced it)
    page.wait_for_selector("#result:not([hidden])")
    assert game.over and game.state.is_terminal()
    words = game.outcome()["words"]  # the result in players' words, not the code ("1-0")
    assert words.lower() in page.inner_text("#result").lower() and "Game over" in page.inner_text("#status")
    assert page.locator("#moves li").count() == game.ply
    # replay controls: Home shows the start, the arrows step, End returns
    page.keyboard.press("Home")
    page.wait_for_selector('#board[data-ply="0"][data-view="past"]')
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#board[data-ply="1"][data-view="past"]')
    assert page.get_attribute("#moves button[aria-current]", "data-ply") == "1"
    page.keyboard.press("End")
    wait_ply(page, game.ply)
    assert page.errors == []


def test_a_twixt_game_with_a_swap(browser, server):
    page = new_page(browser)
    gid = create_in_lobby(page, server, "twixt_v0", ["random", "me"], variant="swap")
    game = server.game(gid)
    wait_turn(page, game, 1)  # the agent placed the first peg
    swap = game.state.string_to_action("swap")
    assert game.state.legal_action_mask()[swap]
    play(page, game, swap)
    assert game.state.moves()[1] == "swap"
    wait_turn(page, game, 1)  # the agent's answer
    play(page, game, game.state.legal_actions()[0])
    wait_turn(page, game, 1)
    items = page.locator("#moves li button.move").all_inner_texts()
    assert items[1] == "swap" and len(items) >= 4
    assert page.errors == []


def tantrix_turn_with_forced_moves(max_seed: int = 200):
    """``(seed, prefix, turn)``: a Tantrix game (2 players, ``reset(seed)``) whose moves
    ``prefix`` lead to a turn with forced moves, a free move, then forced moves again, all of one
    player: ``turn`` is that turn's actions (forced..., free, forced)."""
    import numpy as np

    from envs.registry import spec

    for seed in range(max_seed):
        env = spec("tantrix_v0").make_raw()
        env.reset(seed=seed)
        st, rng, prefix = env.state, np.random.default_rng(seed), []
        for _ in range(60):
            if st.is_terminal():
                break
            if prefix and st.phase == "forced_before" and st.legal_actions():
                t, p, turn = st.clone(), st.current_player, []
                while t.phase == "forced_before" and t.current_player == p:
                    turn.append(t.legal_actions()[0])
                    t.apply(turn[-1])
                if turn and t.phase == "free" and t.current_player == p:
                    for f in t.legal_actions():
                        u = t.clone()
                        u.apply(f)
                        if u.phase == "forced_after" and u.current_player == p and u.legal_actions():
                            return seed, prefix, turn + [f, u.legal_actions()[0]]
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
            prefix.append(st.history[-1])
    raise AssertionError("no such turn in the seeds scanned")


def test_a_tantrix_turn_with_forced_moves_around_the_free_move(browser, server):
    seed, prefix, turn = tantrix_turn_with_forced_moves()
    page = new_page(browser)
    gid = create_in_lobby(page, server, "tantrix_v0", ["me", "me"], seed=seed)
    game = server.game(gid)
    for a in prefix:  # the moves before the turn, typed in the move box
        ply = game.ply
        wait_ply(page, ply)
        page.fill("#move-text", game.state.action_to_string(a))
        page.press("#move-text", "Enter")
        wait_ply(page, ply + 1)
    phases = []
    for a in turn:
        phases.append(game.state.phase)
        play(page, game, a)
    assert phases[0] == "forced_before" and "free" in phases and phases[-1] == "forced_after"
    assert len({p for p, _ in game.played_by[-len(turn) :]}) == 1  # one player's turn
    assert game.actions[-len(turn) :] == turn
    assert page.errors == []


def test_a_tantrix_rotation_is_chosen_by_cycling(browser, server):
    from envs.registry import spec

    st = spec("tantrix_v0").initial_state()
    ui = st.board_ui()
    if not ui.module:
        pytest.skip("Tantrix draws no board yet (its svg module lands with issue 15 part 3): every move is a button")
    page = new_page(browser)
    gid = create_in_lobby(page, server, "tantrix_v0", ["me", "random"], seed=3)
    game = server.game(gid)
    st = game.state
    # an action whose click path (tile, space) is shared by several rotations, not the first of them
    for a in st.legal_actions():
        path = ui.action_paths(st, a).paths[0]
        sharing = [b for b in st.legal_actions() if path in ui.action_paths(st, b).paths]
        if len(sharing) > 1 and sharing.index(a) > 0:
            break
    else:
        pytest.fail("no tile with several legal rotations on one space at the start")
    play(page, game, a)
    assert game.actions[0] == a


def test_a_smartrix_page_never_receives_the_other_seats_cards(browser, server, monkeypatch):
    frames0: list = []
    p0 = new_page(browser, frames0)
    monkeypatch.setattr(server.app.state.room, "draw_seed", lambda: 11)  # the room draws this deal's seed
    gid = create_in_lobby(p0, server, "smartrix_v0", ["me", "invite"], seed=None)
    link = p0.input_value("input.link")
    p0.click("#go-game")
    game = server.game(gid)
    wait_ply(p0, game.ply)
    before = len(frames0)
    p1 = new_page(browser)
    p1.goto(link)
    wait_ply(p1, game.ply)
    # p1's claim of its seat is broadcast to p0 too; let that frame land before p0 clicks, since
    # it redraws p0's move buttons (a click on a button being replaced is lost)
    for _ in range(250):
        if len(frames0) > before:
            break
        time.sleep(0.02)
    pages = {0: p0, 1: p1}
    hands_seen = []
    for _ in range(8):
        mover = game.to_move()
        if mover is None:
            break
        st = game.state
        hands_seen.append((game.ply, st.hand(1)))
        legal = st.legal_actions()
        play(pages[mover], game, legal[0])
    assert game.ply >= 8
    wait_ply(p0, game.ply)
    text = [f if isinstance(f, str) else f.decode() for f in frames0]
    assert any('"type":"state"' in f for f in text) and len(text) >= 8
    for f in text:
        m = json.loads(f)
        if "ply" not in m or m["ply"] >= len(game.positions):
            continue
        assert not hidden_cards_in(f, game.positions[m["ply"]], 1), (m["type"], m["ply"])
    assert p0.errors == [] and p1.errors == []


def test_a_spectator_sees_the_moves_live_and_two_browsers_play(browser, server):
    a = new_page(browser)
    gid = create_in_lobby(a, server, "ataxx_v0", ["me", "invite"])
    link = a.input_value("input.link")
    assert "#seat=1&token=" in link and "works once" in a.inner_text("#single-use")
    a.click("#go-game")
    b = new_page(browser)
    b.goto(link)
    spectator = new_page(browser)
    spectator.goto(f"{server.url}/game/{gid}")
    game = server.game(gid)
    wait_ply(spectator, 0)
    assert "Watching" in spectator.inner_text("#status")
    assert b.url.endswith(f"/game/{gid}")  # the token left the address bar
    for _ in range(4):
        mover = game.to_move()
        page = a if mover == 0 else b
        play(page, game, game.state.legal_actions()[0])
        wait_ply(spectator, game.ply)
        assert spectator.locator("#moves li").count() == game.ply
    assert spectator.locator("#moves li button.move").all_inner_texts() == game.state.moves()
    assert spectator.locator("#choices button").count() == 0
    # no Move box for a spectator; the seat menus only where the rule allows: a holds seat 0 (and
    # the owner token) but b took seat 1 by the link: a may give away seat 0 only
    assert not spectator.is_visible("#move-form") and spectator.locator("select.seat-change").count() == 0
    assert [s.get_attribute("data-seat") for s in a.locator("select.seat-change").all()] == ["0"]
    assert [s.get_attribute("data-seat") for s in b.locator("select.seat-change").all()] == ["1"]
    # the board uses the column: on a 1280 px window it is wider than the 504 px drawing
    box = a.locator("#board svg").bounding_box()
    assert box["width"] > 700 and box["height"] <= 900, box
    assert b.inner_text("#status").startswith("Your move") or a.inner_text("#status").startswith("Your move")


def test_the_server_restarts_mid_game_and_the_game_resumes(browser, server):
    page = new_page(browser)
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"], seed=6)
    game = server.game(gid)
    play(page, game, game.state.legal_actions()[0])
    wait_ply(page, 2)
    moves = game.state.moves()
    server.restart()
    game = server.game(gid)
    assert game.state.moves() == moves
    page.wait_for_selector('#conn[data-state="connected"]')
    wait_ply(page, 2)
    play(page, game, game.state.legal_actions()[0])
    wait_ply(page, 4)
    assert game.state.moves()[:2] == moves and page.locator("#moves li").count() == 4
    # the lobby lists it as unfinished
    page.goto(server.url + "/")
    row = page.locator(f'tr[data-game="{gid}"]')
    row.wait_for()
    assert row.locator("a.open-game").inner_text() == "Resume"
