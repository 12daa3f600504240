"""The players' words in a real browser (headless Chromium, as tests/room/test_room_browser.py):
the lobby's option labels and help, the variant labels, the "how to play" panel, the seat change
that names a dropped agent, the game page's setting, panel, and the caption after a resignation."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)")

from test_room_browser import TIMEOUT, browser, new_page, server  # noqa: E402,F401


def test_the_lobby_speaks_players_words_and_names_a_dropped_agent(browser, server):  # noqa: F811
    page = new_page(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#env option", state="attached")
    page.select_option("#env", "twixt_v0")
    assert page.locator("#variant option[value='8x8']").inner_text() == "Small board 8x8"
    page.select_option("#variant", "8x8")
    # the setup answer checks every agent (loading the shipped ones): slow on a busy machine
    page.wait_for_selector("#seat-1 option[value='twixt_quick']", state="attached", timeout=90_000)
    page.select_option("#seat-1", "twixt_quick")
    page.click("#options-box summary")
    assert page.locator("label[for='opt-board_size']").inner_text() == "Board size"
    assert "5 to 48" in page.locator("#opt-board_size-help").inner_text()
    page.select_option("#variant", "24x24")
    note = page.wait_for_selector(".seat-dropped[data-seat='1']", timeout=90_000)
    text = note.inner_text()
    assert "twixt_quick cannot play this setting" in text and "board_size=8" in text and "the agent random" in text
    assert page.locator("#seat-1").input_value() == "random"  # an agent still, never an open seat
    page.click("#lobby-help summary")
    assert "knight" in page.locator("#lobby-help").inner_text()
    assert page.locator("#lobby-help a").get_attribute("href") == "/rules/twixt_v0"
    assert not page.errors


def test_the_game_page_shows_the_setting_the_help_and_the_result_after_a_resignation(browser, server):  # noqa: F811
    page = new_page(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#env option", state="attached")
    page.select_option("#env", "tantrix_v0")
    page.select_option("#variant", "window6")
    page.wait_for_selector("#seat-1 option[value='random']", state="attached")
    page.click("#create")
    page.wait_for_url("**/game/*", timeout=TIMEOUT)
    assert page.wait_for_selector("#setting").inner_text() == "Tantrix · Table size 6"
    page.click("#game-help summary")
    help_text = page.locator("#game-help").inner_text()
    assert "forced space" in help_text and "controlled side" in help_text
    page.click("#resign")
    page.click("#resign")  # "Really resign?"
    page.wait_for_selector("#result:not([hidden])")
    caption = page.locator("#board svg").inner_html()
    assert "to move" not in caption and "the other sides resigned" in caption
    assert not page.errors
