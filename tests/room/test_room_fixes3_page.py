"""The game page after the newcomer's third pass (issue 26, room-fix3-page), in a real browser
(headless Chromium driven by Playwright, as tests/room/test_room_fixes_page.py) at 1280x860 and
390x844:

1. the TwixT caption counts seats from 1 (unit tests: tests/envs/test_twixt_svg.py);
2. the invitation links name the seat as the seat list does ("Player 2 (blue, o)"), not "seat 1";
3. the end of a game in players' words (the frame's ``outcome.words``), not the result code, and
   a resignation said once;
4. Ataxx on a touch screen (no hover): the rings of the stones that may move show from the start
   of the turn;
5. the setting line names a variant's value by the variant's label, not the FEN; the notation
   line in players' words.

Skipped (or failing, with ``CI`` set) as that file when ``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)")

from test_room_browser import (  # noqa: E402  (skips the module as that file does without chromium)
    browser,  # noqa: F401  (the module's browser fixture)
    create_in_lobby,
    server,  # noqa: F401  (a room served in a thread, per test)
    wait_ply,
    wait_turn,
)
from test_room_fixes_page import SIZES, VISIBLE_MARKS  # noqa: E402
from test_room_layout import PHONE, box_in_view, page_at  # noqa: E402

BLOCKERS_FEN = "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"


@SIZES
def test_ataxx_setting_notation_touch_rings_invites_and_resignation_in_players_words(browser, server, size):  # noqa: F811
    page = page_at(browser, size)
    phone = size == PHONE
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"], variant="blockers")
    game = server.game(gid)
    assert game.env_kwargs == {"fen": BLOCKERS_FEN}
    wait_turn(page, game, 0)
    # 5. the variant's label, not the FEN; the notation in players' words
    assert page.inner_text("#setting") == "Ataxx · With four blocked squares"
    notation = page.inner_text("#notation")
    assert notation.startswith("Moves are written as squares") and "UAI" not in notation, notation
    assert "b2d4 = a jump" in notation
    # 4. no hover on the phone: the rings of the movable stones (red's a7 and g1) show at once;
    # under a pointer that can hover they wait for it
    assert page.evaluate("matchMedia('(hover: none)').matches") is phone
    assert set(page.evaluate(VISIBLE_MARKS)) == ({"a7", "g1"} if phone else set())
    # 2. an invitation link names the seat as the seat list does
    page.select_option('select.seat-change[data-seat="1"]', "invite")
    page.wait_for_selector("#invite-links:not([hidden]) input.link")
    label = server.game(gid).label(1)
    assert label == "player 2 (blue, o)"
    box = page.inner_text("#invite-links")
    assert "Player 2 (blue, o):" in box and "seat 1" not in box, box
    assert page.get_attribute("#invite-links input.link", "aria-label") == "link for player 2 (blue, o)"
    assert "#seat=1&" in page.input_value("#invite-links input.link")  # the API's seat stays 0-based
    # 3. a resignation, said once, in players' words
    page.click("#resign")
    page.click("#resign")  # "Really resign?"
    page.wait_for_selector("#result:not([hidden])")
    result, status = page.inner_text("#result"), page.inner_text("#status")
    assert result == "Player 1 (red, x) resigned: player 2 (blue, o) won.", result
    assert status == "Game over: player 1 (red, x) resigned: player 2 (blue, o) won.", status
    assert page.inner_text("#phase") == ""  # not a third time ("The game ended by resignation: ...")
    box_in_view(page, "#status")
    assert page.errors == []


#: Red's only move, g1, fills the board: the game ends at once (1-0 by the rules' text).
LAST_MOVE = "xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxo/xxxxxo1 x 0 1"


@SIZES
def test_the_end_of_a_game_in_players_words_not_the_result_code(browser, server, size):  # noqa: F811
    page = page_at(browser, size)
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"], options={"fen": LAST_MOVE})
    game = server.game(gid)
    wait_turn(page, game, 0)
    # a custom FEN (no variant's) stays on the setting line, wrapped: the page never scrolls sideways
    assert page.inner_text("#setting").replace("\n", " ") == f"Ataxx · Start position (FEN) {LAST_MOVE}"
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    page.fill("#move-text", "g1")
    page.press("#move-text", "Enter")
    wait_ply(page, 1)
    page.wait_for_selector("#result:not([hidden])")
    out = game.outcome()
    assert out is not None and out["words"] == "player 1 (red, x) won"
    result, status = page.inner_text("#result"), page.inner_text("#status")
    assert result == f"Player 1 (red, x) won — {out['termination']}.", result
    assert status == f"Game over: player 1 (red, x) won — {out['termination']}.", status
    caption = page.locator("#board svg .caption").text_content()
    assert "red won: a side has no stones" in caption, caption  # the board says it in words too
    assert out["result"] not in result + status + caption  # "1-0": the record's code, not players' words
    assert out["result"] in page.get_attribute("#result", "title")
    assert page.errors == []
