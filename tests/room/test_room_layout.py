"""The play room's layout, phone and keyboard, by measurement in a real browser (headless Chromium
driven by Playwright, as tests/room/test_room_browser.py, whose room server and page helpers it
reuses): element boxes of the move's controls inside the viewport at 1280x860 and 390x844, target
sizes on a phone after the Zoom button, the lobby's width on a phone, the focus ring's computed
style, the focus after a move, the arrow keys between targets, the page's scroll position after a
move, and the move list with each ply's seat and its words.

Skipped (or failing, with ``CI`` set) as that file when ``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)")

from test_room_browser import (  # noqa: E402  (skips the module as that file does without chromium)
    TIMEOUT,
    browser,  # noqa: F401  (the module's browser fixture)
    create_in_lobby,
    server,  # noqa: F401  (a room served in a thread, per test)
    wait_ply,
    wait_turn,
)

DESKTOP = (1280, 860)
PHONE = (390, 844)
MIN_TARGET_PX = 32


def page_at(browser, size):  # noqa: F811
    """A page in a fresh browser context of ``size`` (a phone below 600 px: touch, mobile)."""
    w, h = size
    phone = w < 600
    ctx = browser.new_context(viewport={"width": w, "height": h}, is_mobile=phone, has_touch=phone, bypass_csp=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def box_in_view(page, selector: str) -> dict:
    """The bounding box of ``selector``, asserted to lie wholly inside the viewport (no scrolling)."""
    box = page.evaluate(
        "s => { const r = document.querySelector(s).getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, h: r.height, vw: innerWidth, vh: innerHeight}; }",
        selector,
    )
    assert box["w"] > 0 and box["h"] > 0, (selector, box)
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["w"] <= box["vw"] and box["y"] + box["h"] <= box["vh"], (selector, box)
    return box


TARGET_SIZES = """() => [...document.querySelectorAll('#board .hit.target')]
  .map(n => n.getBoundingClientRect()).map(b => Math.min(b.width, b.height))"""
FOCUS_IN_BOARD = "() => !!document.activeElement && document.querySelector('#board').contains(document.activeElement)"


def focused(page) -> dict | None:
    """The focused element: its data-key, classes, centre and computed outline (``None``: body)."""
    return page.evaluate(
        """() => { const a = document.activeElement; if (!a || a === document.body) return null;
        const r = a.getBoundingClientRect(), cs = getComputedStyle(a);
        return {key: a.getAttribute('data-key'), cls: a.getAttribute('class') || '', id: a.id,
                x: r.x + r.width / 2, y: r.y + r.height / 2, style: cs.outlineStyle,
                width: parseFloat(cs.outlineWidth), colour: cs.outlineColor}; }"""
    )


def pick_until_confirm(page, game) -> None:
    """Click the first target until the move waits for its confirmation."""
    for _ in range(4):
        if page.locator("#confirm").count():
            return
        page.locator("#board .hit.target").first.click()
    page.wait_for_selector("#confirm")


# ---------------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x860", "390x844"])
def test_the_moves_controls_are_in_view_and_enter_confirms(browser, server, size):  # noqa: F811
    """Smartrix (the tallest drawing: its hand under the board): Confirm and Cancel in the
    viewport, the status says Enter confirms, Enter plays the move, the focus stays on the board
    and the page does not scroll."""
    page = page_at(browser, size)
    gid = create_in_lobby(page, server, "smartrix_v0", ["me", "random"], seed=2)
    game = server.game(gid)
    wait_turn(page, game, 0)
    # a page scrolled part way (a spacer under it, so that no change of the page's height can
    # clamp the scroll position): it must stay where it is, never jump to the move list
    page.evaluate("document.body.append(Object.assign(document.createElement('div'), {style: 'height: 3000px'}))")
    page.evaluate("window.scrollTo(0, 60)")
    before = page.evaluate("window.scrollY")
    pick_until_confirm(page, game)
    for sel in ["#confirm", "#cancel", "#status"]:
        box_in_view(page, sel)
    # the status names the key where a keyboard is used, the button on a phone (newcomer's pass)
    assert ("Enter" if size == DESKTOP else "Confirm plays it") in page.inner_text("#status")
    page.keyboard.press("Enter")
    wait_ply(page, 2)  # the move and the agent's answer
    assert game.played_by[0] == ("human", 0)
    page.wait_for_function(FOCUS_IN_BOARD)
    assert page.evaluate("window.scrollY") == before
    # the move list: each ply's seat and its words beside the notation
    items = page.locator("#moves li")
    assert items.count() == 2
    assert items.nth(0).locator(".ply-seat").inner_text().startswith("player 1")
    assert items.nth(1).locator(".ply-seat").inner_text().startswith("player 2")
    assert items.nth(0).locator("button.move").inner_text() == game.state.moves()[0]
    assert items.nth(0).locator(".move-words").inner_text().strip().startswith("card ")
    assert page.errors == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x860", "390x844"])
def test_a_swap_button_is_in_view(browser, server, size):  # noqa: F811
    page = page_at(browser, size)
    create_in_lobby(page, server, "twixt_v0", ["random", "me"], variant="swap")
    page.wait_for_selector('#choices button[data-choice="swap"]')  # after the agent's first peg
    box_in_view(page, '#choices button[data-choice="swap"]')
    assert page.errors == []


def test_on_a_phone_the_board_fills_the_width_and_the_zoom_makes_targets_32_px(browser, server):  # noqa: F811
    """TwixT 24x24: holes of about 15 px on a 390 px phone, at least 32 px after the Zoom button;
    one Tab stop on the board; the zoomed board pans inside its box (the page stays 390 px wide)."""
    page = page_at(browser, PHONE)
    gid = create_in_lobby(page, server, "twixt_v0", ["me", "random"], variant="24x24")
    wait_turn(page, server.game(gid), 0)
    svg = page.locator("#board svg").bounding_box()
    assert svg["width"] >= 0.95 * PHONE[0], svg
    sizes = page.evaluate(TARGET_SIZES)
    assert len(sizes) == 24 * 24 - 4 - 2 * 22  # every hole but the corners and black's border columns
    assert min(sizes) < MIN_TARGET_PX  # the zoom is needed (and offered)
    assert page.locator('#board [tabindex="0"]').count() == 1
    page.click("#zoom")
    assert page.get_attribute("#zoom", "aria-pressed") == "true"
    assert min(page.evaluate(TARGET_SIZES)) >= MIN_TARGET_PX
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert page.evaluate("(b => b.scrollWidth > b.clientWidth)(document.querySelector('#board'))")  # it pans
    # a tap on a hole still plays it
    page.locator("#board .hit.target").nth(40).click()
    wait_ply(page, 2)
    assert min(page.evaluate(TARGET_SIZES)) >= MIN_TARGET_PX  # the zoom holds across moves
    assert page.errors == []


def test_on_a_phone_the_tantrix_hand_tiles_reach_32_px(browser, server):  # noqa: F811
    page = page_at(browser, PHONE)
    gid = create_in_lobby(page, server, "tantrix_v0", ["me", "random"], seed=3)
    wait_turn(page, server.game(gid), 0)
    assert min(page.evaluate(TARGET_SIZES)) < MIN_TARGET_PX  # the hand's tiles
    page.click("#zoom")
    assert min(page.evaluate(TARGET_SIZES)) >= MIN_TARGET_PX
    pick_until_confirm(page, server.game(gid))
    for sel in ["#confirm", "#cancel", "#cycle"]:
        box_in_view(page, sel)
    assert page.errors == []


def test_the_lobby_fits_a_phone(browser, server):  # noqa: F811
    page = page_at(browser, DESKTOP)
    create_in_lobby(page, server, "twixt_v0", ["me", "random"], variant="24x24")  # a game with options
    phone = page_at(browser, PHONE)
    phone.goto(server.url + "/")
    phone.wait_for_selector("tr[data-game]")
    for env_id in ["ataxx_v0", "twixt_v0", "tantrix_v0", "smartrix_v0"]:
        phone.select_option("#env", env_id)
        phone.wait_for_selector("#seat-1")
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0], env_id
    assert phone.errors == []


def test_the_keyboard_plays_with_one_tab_stop_arrows_and_a_visible_ring(browser, server):  # noqa: F811
    page = page_at(browser, DESKTOP)
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"], seed=4)
    game = server.game(gid)
    wait_turn(page, game, 0)
    assert page.locator('#board [tabindex="0"]').count() == 1
    # a button's focus ring
    page.focus("#prev")
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    ring = focused(page)
    assert ring["id"] == "prev" and ring["style"] != "none" and ring["width"] >= 2, ring
    # Tab reaches the board (its one stop) from the page's top
    page.focus("header a.home")
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUS_IN_BOARD):
            break
    first = focused(page)
    assert first and first["key"] and "target" in first["cls"], first
    assert first["style"] != "none" and first["width"] >= 2, first  # the ring of a board target
    # the arrow keys move between the targets (on the screen: the first move that goes right, left,
    # down or up lands on a target in that direction)
    moved = None
    for key, (dx, dy) in {"ArrowRight": (1, 0), "ArrowLeft": (-1, 0), "ArrowDown": (0, 1), "ArrowUp": (0, -1)}.items():
        page.keyboard.press(key)
        now = focused(page)
        if now["key"] != first["key"]:
            moved = (now, dx, dy)
            break
    assert moved, "no arrow key moved the focus"
    now, dx, dy = moved
    assert "target" in now["cls"] and (now["x"] - first["x"]) * dx + (now["y"] - first["y"]) * dy > 0, (first, now)
    assert page.locator('#board [tabindex="0"]').count() == 1
    # Enter picks a stone, an arrow reaches one of its destinations, Enter plays the move
    page.keyboard.press("Enter")
    assert "Selected" in page.inner_text("#status") or page.locator("#board .hit.selected").count()
    for key in ["ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp"]:
        f = focused(page)
        if "target" in f["cls"] and "selected" not in f["cls"]:
            break
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    wait_ply(page, 2)
    page.wait_for_function(FOCUS_IN_BOARD)
    assert page.locator('#board [tabindex="0"]').count() == 1
    assert page.errors == []


def test_an_illegal_click_says_so_and_clears_the_selection(browser, server):  # noqa: F811
    page = page_at(browser, DESKTOP)
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"], seed=5)
    game = server.game(gid)
    wait_turn(page, game, 0)
    st = game.state
    ui = st.board_ui()
    used = {k for a in st.legal_actions() for p in ui.action_paths(st, a).paths for k in p}
    keys = page.eval_on_selector_all("#board .hit[data-key]", "ns => ns.map(n => n.getAttribute('data-key'))")
    idle = next(k for k in keys if k not in used)
    page.locator("#board .hit.target").first.click()  # a stone selected
    assert "Selected" in page.inner_text("#status")
    page.locator(f'#board .hit[data-key="{idle}"]').click()
    status = page.inner_text("#status")
    assert "not a legal choice" in status and idle in status and "Selected" not in status, status
    assert page.locator("#board .hit.selected").count() == 0
    assert game.ply == 0
    assert page.errors == []
