"""The board's marks in a real browser (issue 26, item 1): legal targets appear as small marks
for the selected stone only, the selected stone gets a ring, hovering a stone does not tint it,
and the hit shapes stay invisible. Headless Chromium, as tests/room/test_room_browser.py."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)")

import test_room_browser as rb  # noqa: E402

from envs.core.svg import MIN_CONTRAST, contrast_ratio  # noqa: E402

browser, server = rb.browser, rb.server  # the browser tests' fixtures
create_in_lobby, new_page, wait_turn = rb.create_in_lobby, rb.new_page, rb.wait_turn

#: For each square's hit shape: its key, the computed visibility of its mark's target and
#: selection parts, the target's box (px) and colour, and the hit shape's computed fill-opacity.
_STATE = """() => [...document.querySelectorAll('#board .hit')].map(h => {
  const m = h.nextElementSibling && h.nextElementSibling.classList.contains('mark') ? h.nextElementSibling : null;
  const shown = (e) => !!e && getComputedStyle(e).visibility === 'visible' && getComputedStyle(e).display !== 'none'
    && (!e.closest('[display="none"]') || getComputedStyle(e.closest('.sel') || e).display !== 'none');
  const tgt = m && (m.classList.contains('tgt') ? m : m.querySelector('.tgt'));
  const sel = m && m.querySelector('.sel');
  const box = tgt ? tgt.getBoundingClientRect() : null;
  const hb = h.getBoundingClientRect();
  const col = tgt ? getComputedStyle(tgt.matches('circle') ? tgt : tgt.querySelector('circle')).stroke : null;
  return {key: h.dataset.key, target: shown(tgt), selected: shown(sel), w: box && box.width, hw: hb.width,
          colour: col, fillOpacity: getComputedStyle(h).fillOpacity,
          dotFill: tgt && tgt.matches('.dot') ? getComputedStyle(tgt).fillOpacity : null};
})"""


def _hex(rgb: str) -> str:
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def test_ataxx_targets_are_small_marks_for_the_selected_stone(browser, server):
    page = new_page(browser)
    gid = create_in_lobby(page, server, "ataxx_v0", ["me", "random"])
    game = server.game(gid)
    wait_turn(page, game, 0)
    before = {s["key"]: s for s in page.evaluate(_STATE)}
    assert not any(s["target"] or s["selected"] for s in before.values()), "nothing marked before a selection"
    page.hover('#board [data-key="a7"]')  # an x stone: a ring, no tint
    hovered = {s["key"]: s for s in page.evaluate(_STATE)}
    assert hovered["a7"]["target"] and float(hovered["a7"]["fillOpacity"]) == 0
    page.click('#board [data-key="a7"]')
    page.mouse.move(0, 0)
    after = {s["key"]: s for s in page.evaluate(_STATE)}
    assert after["a7"]["selected"] and not after["a7"]["target"]
    targets = sorted(k for k, s in after.items() if s["target"])
    st = game.state
    ui = st.board_ui()
    expected = sorted({p[1] for a in st.legal_actions() for p in ui.action_paths(st, a).paths if p[0] == "a7"})
    assert targets == expected and len(targets) == 8  # a6 b6 b7 clones; a5 b5 c5 c6 c7 jumps
    # a jump's dot is hollow, a clone's filled
    assert [after[k]["dotFill"] for k in ("a6", "b6", "b7")] == ["1"] * 3
    assert [after[k]["dotFill"] for k in ("a5", "b5", "c5", "c6", "c7")] == ["0"] * 5
    for k in targets:
        s = after[k]
        assert float(s["fillOpacity"]) == 0, "the target's square is not tinted"
        assert s["w"] <= 0.5 * s["hw"], f"{k}: the mark is {s['w']} px wide in a {s['hw']} px square"
        assert contrast_ratio(_hex(s["colour"]), "#eee2c4") >= MIN_CONTRAST
    assert page.errors == []
