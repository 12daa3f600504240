"""The board contract of envs/core/svg.py (``to_svg``, ``action_paths``, ``CONFIRM``, ``status``),
checked on every registered environment id and variant, at the start and in seeded random games.

What it proves for every game, whatever it draws:
- every drawing is one well-formed SVG document, deterministic, with no script, no external
  reference and no ``foreignObject``; every hit shape has a ``data-key`` and an ``aria-label``;
- every legal action has paths (or none, and is then a forced move), every path chooses only
  legal actions, and every key of a path is either a hit shape of the mover's drawing or a button
  (a key no hit shape carries);
- ``pending`` draws every legal action;
- hidden information stays hidden: a seat's drawing does not change when everything it cannot see
  is redrawn (``sample_determinization``), and a spectator's drawing does not change for any seat's
  redraw.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import contract_cases, play_random, start_state
from envs.core.svg import BoardUI, MovePaths, esc, hit, load_board_ui, svg_document, text_board, winners_words

SVG = "{http://www.w3.org/2000/svg}"
PLIES = (0, 7, 31)


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img" and root.get("aria-label")
    assert root.find(f"{SVG}title") is not None
    for el in root.iter():
        tag = el.tag.replace(SVG, "")
        assert tag not in ("script", "foreignObject", "image", "use", "a"), f"<{tag}> in a board drawing"
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), f"event handler attribute {name}"
            assert "href" not in name.lower(), f"link attribute {name}={value!r}"
    return root


def _keys(root: ET.Element) -> set[str]:
    keys = set()
    for el in root.iter():
        if el.get("data-key") is not None:
            assert "hit" in (el.get("class") or "").split(), (
                f"data-key on an element that is not a hit shape: {el.attrib}"
            )
            assert el.get("aria-label"), f"hit shape {el.get('data-key')!r} has no aria-label"
            keys.add(el.get("data-key"))
    return keys


def _states(env_id: str, kwargs: dict):
    for plies in PLIES:
        st = start_state(env_id, kwargs, seed=plies)
        play_random(st, seed=plies, moves=plies)
        yield plies, st


@pytest.mark.parametrize("env_id,kwargs", contract_cases())
def test_every_drawing_is_a_clean_svg_and_every_legal_action_can_be_clicked(env_id, kwargs):
    for _plies, st in _states(env_id, kwargs):
        ui = st.board_ui()
        assert isinstance(ui, BoardUI) and isinstance(ui.confirm, bool)
        viewers = [None] + list(range(st.num_players))
        for viewer in viewers:
            svg = st.to_svg(viewer)
            assert svg == st.to_svg(viewer), "to_svg is not deterministic"
            _keys(_parse(svg))
            assert isinstance(ui.status(st, viewer), str)
        if st.is_terminal():
            continue
        mover = st.current_player
        keys = _keys(_parse(st.to_svg(mover)))
        legal = st.legal_actions()
        by_path: dict[tuple, set[int]] = {}
        for a in legal:
            mp = ui.action_paths(st, a)
            assert isinstance(mp, MovePaths)
            for path in mp.paths:
                by_path.setdefault(path, set()).add(a)
        # the first key of every path is offered at once: on the board for the mover, or a button
        # (a key no hit shape carries), and never a key that only another seat's drawing has
        for viewer in range(st.num_players):
            if viewer != mover:
                others = _keys(_parse(st.to_svg(viewer)))
                assert not {p[0] for p in by_path} & (others - keys), "a first key on another seat's board only"
        step = max(1, len(legal) // 12)
        for a in legal[::step]:
            _parse(st.to_svg(mover, pending=a))


@pytest.mark.parametrize("env_id,kwargs", contract_cases())
def test_hidden_information_never_reaches_a_drawing(env_id, kwargs):
    rng = np.random.default_rng(0)
    for _plies, st in _states(env_id, kwargs):
        if st.info.perfect_information or st.is_terminal():
            continue
        public = st.to_svg(None)
        for seat in range(st.num_players):
            own = st.to_svg(seat)
            for _ in range(3):
                other = st.sample_determinization(seat, rng)
                assert other.to_svg(seat) == own, f"seat {seat}'s drawing shows something it cannot see"
                assert other.to_svg(None) == public, "the spectator's drawing shows something hidden"
        mover = st.current_player
        for a in st.legal_actions()[:5]:
            pending = st.to_svg(mover, pending=a)
            other = st.sample_determinization(mover, rng)
            assert other.to_svg(mover, pending=a) == pending, "a pending move's drawing shows something hidden"


@pytest.mark.parametrize("env_id,kwargs", contract_cases())
def test_bad_viewer_and_pending_are_refused(env_id, kwargs):
    st = start_state(env_id, kwargs, seed=0)
    with pytest.raises(ValueError, match="viewer"):
        st.to_svg(st.num_players)
    illegal = int(np.flatnonzero(st.legal_action_mask() == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        st.to_svg(0, pending=illegal)
    with pytest.raises(ValueError):
        st.to_svg(0, pending=st.num_actions)
    legal = st.legal_actions()[0]
    for viewer in [None] + [p for p in range(st.num_players) if p != st.current_player]:
        if st.info.perfect_information:
            assert st.to_svg(viewer, pending=legal).startswith("<svg")
        else:  # a preview would show the mover's hidden pieces to someone else
            with pytest.raises(ValueError, match="player to move"):
                st.to_svg(viewer, pending=legal)


def test_helpers_escape_and_check():
    doc = svg_document(10, 5.5, hit("rect", 'a"<b', "x & y", x=0, y=0, width=10, height=5.5), "T <1>")
    root = _parse(doc)
    assert root.get("viewBox") == "0 0 10 5.5" and root.get("aria-label") == "T <1>"
    (rect,) = [el for el in root.iter() if el.get("data-key")]
    assert rect.get("data-key") == 'a"<b' and rect.get("aria-label") == "x & y" and rect.get("height") == "5.5"
    assert esc("<'&\">") == "&lt;&#39;&amp;&quot;&gt;"
    with pytest.raises(TypeError, match="non-empty"):
        MovePaths((("a", ""),))
    with pytest.raises(TypeError, match="kind"):
        MovePaths((("a",),), kind="a b")
    with pytest.raises(TypeError, match="lacks"):
        load_board_ui("envs.core.heuristics")
    assert text_board.confirm is False


def test_winners_words_names_a_draw_a_team_or_the_seats_from_one():
    import envs

    two = envs.make_raw("smartrix_v0")
    two.reset(seed=0)
    teams = envs.make_raw("smartrix_v0", num_players=4, teams=True)
    teams.reset(seed=0)
    assert winners_words(two.state, []) == "a draw"
    assert winners_words(two.state, [0, 1]) == "a draw"  # every seat
    assert winners_words(two.state, [1]) == "player 2 won"
    assert winners_words(two.state, [0], lambda w: f"P{w + 1} red") == "P1 red won"
    assert [teams.state.team_of(p) for p in range(4)] == [0, 1, 0, 1]
    assert winners_words(teams.state, [1, 3]) == "team 2 won"
    assert winners_words(teams.state, [0, 2]) == "team 1 won"
