"""The lobby's fixes in a real browser (headless Chromium, as tests/room/test_room_browser.py):
no seat menu of the former game while the new setting's agents are being checked, and the games
list in players' words."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)")

from test_room_browser import browser, create_in_lobby, new_page, server  # noqa: E402,F401


def test_the_lobby_never_offers_the_former_games_agents_while_the_new_setting_is_checked(browser, server):  # noqa: F811
    agents = server.app.state.room.agents
    menu = agents.menu

    def slow_menu(env, env_id, env_kwargs):  # a first check of a setting can take seconds (torch)
        if env_id == "smartrix_v0":
            time.sleep(3)
        return menu(env, env_id, env_kwargs)

    agents.menu = slow_menu
    page = new_page(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#env option", state="attached")
    page.select_option("#env", "tantrix_v0")
    robot = page.wait_for_selector("#seat-1 option[value='robot']", state="attached", timeout=90_000)
    assert "Tantrix robot" in robot.inner_text()
    page.select_option("#seat-1", "robot")
    page.select_option("#env", "smartrix_v0")
    page.wait_for_selector("#seats-pending")
    assert page.locator("#seats option[value='robot']").count() == 0  # Tantrix's menu is gone
    assert page.locator("#create").is_disabled()
    page.wait_for_selector("#seat-1 option[value='random']", state="attached", timeout=90_000)
    assert page.locator("#seats option[value='robot']").count() == 0 and not page.locator("#create").is_disabled()
    dropped = page.locator(".seat-dropped[data-seat='1']").inner_text()
    assert "robot cannot play this setting" in dropped and "offered by Tantrix only" in dropped
    assert page.locator("label[for='seat-0']").inner_text() == "player 1"
    assert not page.errors


def test_the_lobby_lists_games_in_players_words(browser, server):  # noqa: F811
    page = new_page(browser)
    create_in_lobby(page, server, "ataxx_v0", ["me", "random"], seed=None)
    page.click("#resign")
    page.click("#resign")  # "Really resign?"
    page.wait_for_selector("#result:not([hidden])")
    page.goto(server.url + "/")
    row = page.wait_for_selector("table.games tbody tr")
    text = row.inner_text()
    assert "Player 1 (red, x) resigned: player 2 (blue, o) won" in text, text
    assert "no moves" in text and "2 players" in text and "1/2" not in text
    assert not page.errors


def test_the_lobby_does_not_offer_people_an_option_for_agents_only(browser, server):  # noqa: F811
    page = new_page(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#env option", state="attached")
    page.select_option("#env", "twixt_v0")
    page.wait_for_selector("#opt-board_size", state="attached")
    assert page.locator("#opt-distance_planes").count() == 0
    page.select_option("#variant", "swap")
    page.wait_for_selector("#seat-1 option[value='random']", state="attached", timeout=90_000)
    assert "swap" in page.locator("#notation-help").inner_text()
    assert "Privilege" not in page.locator("#notation-help").inner_text()
    assert not page.errors
