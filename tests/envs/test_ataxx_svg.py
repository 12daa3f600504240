"""The Ataxx board drawing and its clicks (envs/ataxx/svg.py): keys and paths of known positions,
the last move's and the pending move's marks, gaps, labels, captions per viewer, status lines and
errors. The generic contract is tests/envs/test_svg_contract.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from envs.ataxx import PASS_ACTION, AtaxxState, parse_square
from envs.ataxx import svg as svg_module
from envs.ataxx.svg import CONFIRM, HEIGHT, WIDTH, action_paths, status, to_svg
from envs.core.state import IllegalActionError
from envs.core.svg import MovePaths

SVG = "{http://www.w3.org/2000/svg}"
BLOCKERS = "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"
PASSES = "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1"  # x walled in: its only move is the pass


def _root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _classes(el: ET.Element) -> set[str]:
    return set((el.get("class") or "").split())


def _hits(root: ET.Element) -> dict[str, ET.Element]:
    return {el.get("data-key"): el for el in root.iter() if el.get("data-key") is not None}


def _square_of(root: ET.Element, x: float, y: float) -> str:
    """The key of the hit square containing the point (x, y)."""
    for key, el in _hits(root).items():
        x0, y0, w, h = (float(el.get(k)) for k in ("x", "y", "width", "height"))
        if x0 < x < x0 + w and y0 < y < y0 + h:
            return key
    raise AssertionError(f"no square at {(x, y)}")


def _marked(root: ET.Element, css: str, tag: str) -> list[str]:
    """The squares of the ``tag`` elements (``rect`` or ``circle``) with class ``css``, sorted."""
    out = []
    for el in root.iter(f"{SVG}{tag}"):
        if css in _classes(el) and "hit" not in _classes(el):
            if tag == "rect":
                x, y = float(el.get("x")) + 5, float(el.get("y")) + 5
            else:
                x, y = float(el.get("cx")), float(el.get("cy"))
            out.append(_square_of(root, x, y))
    return sorted(out)


def _stones(root: ET.Element, side: str, pending: bool = False) -> list[str]:
    """The squares of ``side``'s stones: those of the position, or (``pending``) the pending move's."""
    return sorted(sq for sq, el in _stone_elements(root, side) if ("pending" in _classes(el)) == pending)


def _stone_elements(root, side):
    for el in root.iter(f"{SVG}circle"):
        if {"stone", side} <= _classes(el):
            yield _square_of(root, float(el.get("cx")), float(el.get("cy"))), el


def _caption(root: ET.Element) -> str:
    (g,) = [el for el in root.iter(f"{SVG}g") if "caption" in _classes(el)]
    return " | ".join(t.text for t in g.iter(f"{SVG}text"))


def _paths(state: AtaxxState) -> dict[int, MovePaths]:
    return {a: action_paths(state, a) for a in state.legal_actions()}


# ---------------------------------------------------------------------------- paths
def test_start_first_keys_targets_and_kinds():
    s = AtaxxState()
    paths = _paths(s)
    assert len(paths) == 16
    assert {p[0] for mp in paths.values() for p in mp.paths} == {"a7", "g1"}
    from_a7 = {p[1]: mp.kind for mp in paths.values() for p in mp.paths if p[0] == "a7"}
    assert from_a7 == {
        "b7": "clone",
        "a6": "clone",
        "b6": "clone",
        "c7": "jump",
        "c6": "jump",
        "c5": "jump",
        "b5": "jump",
        "a5": "jump",
    }
    assert action_paths(s, s.string_to_action("f2")) == MovePaths((("g1", "f2"),), kind="clone")
    assert action_paths(s, s.string_to_action("a7c5")) == MovePaths((("a7", "c5"),), kind="jump")
    assert CONFIRM is False and s.board_ui().module == "envs.ataxx.svg" and s.info.board == "envs.ataxx.svg"


def test_clone_has_one_path_per_adjacent_own_stone_in_square_order():
    s = AtaxxState("7/7/7/7/x1x4/o6/x6 x 0 1")  # x on a1, a3, c3; o on a2
    assert action_paths(s, s.string_to_action("b2")) == MovePaths(
        (("a1", "b2"), ("a3", "b2"), ("c3", "b2")), kind="clone"
    )
    assert action_paths(s, s.string_to_action("b4")) == MovePaths((("a3", "b4"), ("c3", "b4")), kind="clone")
    # every path's pair (source, target) is unique: no two actions share a path in Ataxx
    pairs = [p for mp in _paths(s).values() for p in mp.paths]
    assert len(pairs) == len(set(pairs))


def test_forced_pass_has_no_path_and_a_status():
    s = AtaxxState(PASSES)
    assert s.legal_actions() == [PASS_ACTION]
    assert action_paths(s, PASS_ACTION) == MovePaths(())
    assert status(s, None) == status(s, 0) == "red has no move: it passes (0000)"
    s.push("0000")  # o moves next; a pass highlights nothing
    root = _root(to_svg(s))
    assert _marked(root, "last", "rect") == [] and "last move 0000" in root.get("aria-label")


def test_illegal_actions_are_refused_with_the_reason():
    s = AtaxxState()
    with pytest.raises(IllegalActionError, match=r"d4.*not legal here: no x stone next to d4"):
        action_paths(s, parse_square("d4"))
    with pytest.raises(IllegalActionError, match="not legal here: a pass is legal only"):
        action_paths(s, PASS_ACTION)
    with pytest.raises(IllegalActionError, match="out of range"):
        action_paths(s, 834)
    with pytest.raises(IllegalActionError, match="must be an integer"):
        action_paths(s, "f2")
    with pytest.raises(TypeError, match="AtaxxState"):
        action_paths("x5o/7/7/7/7/7/o5x x 0 1", 0)


# ---------------------------------------------------------------------------- drawing
def test_start_drawing_squares_stones_labels():
    root = _root(to_svg(AtaxxState()))
    assert root.get("viewBox") == f"0 0 {WIDTH} {HEIGHT}" == "0 0 504 548"
    hits = _hits(root)
    assert len(hits) == 49 and set(hits) == {f + r for f in "abcdefg" for r in "1234567"}
    assert hits["a7"].get("aria-label") == "a7, red stone" and hits["g7"].get("aria-label") == "g7, blue stone"
    assert hits["d4"].get("aria-label") == "d4, empty"
    # a1 at the bottom left, g7 at the top right: never flipped
    assert float(hits["a1"].get("x")) < float(hits["g1"].get("x"))
    assert float(hits["a7"].get("y")) < float(hits["a1"].get("y"))
    assert _stones(root, "x") == ["a7", "g1"] and _stones(root, "o") == ["a1", "g7"]
    labels = sorted(t.text for t in root.iter(f"{SVG}text") if "label" in _classes(t))
    assert labels == sorted(list("abcdefg1234567") * 2)
    assert _marked(root, "last", "rect") == [] and _marked(root, "gap", "rect") == []
    assert _caption(root) == "red 2 | blue 2 | red to move \u00b7 clock 0/100"
    assert "spectator" in _classes(root)


def test_gaps_drawn_and_labelled():
    root = _root(to_svg(AtaxxState(BLOCKERS)))
    assert _marked(root, "gap", "rect") == ["c3", "c5", "e3", "e5"]
    assert _hits(root)["c5"].get("aria-label") == "c5, gap"


def test_last_move_clone_marks_target_only_jump_marks_both():
    s = AtaxxState()
    s.push("f2")
    root = _root(to_svg(s))
    assert _marked(root, "last", "rect") == ["f2"]
    assert [el for el in root.iter(f"{SVG}line") if "last" in _classes(el)] == []
    rect = next(el for el in root.iter(f"{SVG}rect") if "last" in _classes(el))
    assert rect.get("fill") == "#f2c94c"  # inline, so a static picture shows it
    s.push("a1c3")
    root = _root(to_svg(s))
    assert _marked(root, "last", "rect") == ["a1", "c3"]
    (line,) = [el for el in root.iter(f"{SVG}line") if "last" in _classes(el)]
    assert _square_of(root, float(line.get("x1")), float(line.get("y1"))) == "a1"
    assert _square_of(root, float(line.get("x2")), float(line.get("y2"))) == "c3"
    assert root.get("aria-label").endswith("last move a1c3")


def test_pending_clone_draws_new_and_converted_stones():
    s = AtaxxState("7/7/7/7/1o5/2o4/x6 x 0 1")  # x a1; o b3, c2: b2 converts both
    a = s.string_to_action("b2")
    root = _root(to_svg(s, 0, pending=a))
    assert _stones(root, "x", pending=True) == ["b2", "b3", "c2"]
    assert _stones(root, "x") == ["a1"] and _stones(root, "o") == ["b3", "c2"]  # the position itself
    assert _marked(root, "pending", "rect") == ["b2"]
    assert root.get("aria-label").endswith("pending b2")
    plain = _root(to_svg(s, 0))
    assert not [el for el in plain.iter() if "pending" in _classes(el)]


def test_pending_jump_draws_vacated_source():
    s = AtaxxState()
    a = s.string_to_action("g1e3")
    root = _root(to_svg(s, pending=a))
    assert _stones(root, "x", pending=True) == ["e3"]
    assert _marked(root, "vacated", "circle") == ["g1"]
    assert _marked(root, "pending", "rect") == ["e3", "g1"]
    with pytest.raises(IllegalActionError, match="not legal here"):
        to_svg(s, pending=s.string_to_action("a1c3"))  # a1 holds o, x is to move


def test_viewer_names_its_side_and_changes_nothing_else():
    s = AtaxxState()
    s.push("f2")
    spectator, x_view, o_view = (to_svg(s, v) for v in (None, 0, 1))
    assert _caption(_root(spectator)) == "red 3 | blue 2 | blue to move \u00b7 clock 0/100"
    assert _caption(_root(o_view)) == "red 3 | blue 2 | blue to move \u00b7 clock 0/100 \u00b7 you: blue"
    assert _caption(_root(x_view)).endswith("you: red")
    assert "viewer-o" in _classes(_root(o_view)) and "viewer-x" in _classes(_root(x_view))
    # the board part (everything before the caption) is the same for every viewer
    board = [
        v.split('<g class="caption">')[0].split("<title>", 1)[1].split("</title>", 1)[1]
        for v in (spectator, x_view, o_view)
    ]
    assert board[0] == board[1] == board[2]
    for bad in (2, -1, True, "x"):
        with pytest.raises(ValueError, match="viewer"):
            to_svg(s, bad)


def test_end_caption_and_status():
    s = AtaxxState("7/7/7/7/7/1o5/x6 x 0 1")
    s.push("a2")  # takes o's only stone
    root = _root(to_svg(s, 1))
    # players' words (the result code "1-0" is the record's), small enough not to run into the counts
    assert _caption(root) == "red 3 | blue 0 | red won: a side has no stones \u00b7 you: blue"
    (g,) = [el for el in root.iter(f"{SVG}g") if "caption" in _classes(el)]
    result = list(g.iter(f"{SVG}text"))[-1]
    size = float(result.get("font-size"))
    assert size < 16 and 6.8 * size / 16 * len(result.text) <= svg_module._TEXT_ROOM + 1
    assert status(s, None) == ""
    d = AtaxxState("x5o/7/7/7/7/7/o5x x 99 40")
    d.push("g1e1")
    assert _caption(_root(to_svg(d))).endswith(" | a draw: halfmove clock reached 100")


def test_clock_status_near_the_draw():
    assert status(AtaxxState("x5o/7/7/7/7/7/o5x x 85 40"), 0) == "clock 85/100: a draw in 15 moves without a clone"
    assert status(AtaxxState("x5o/7/7/7/7/7/o5x x 99 40"), 0) == "clock 99/100: a draw in 1 move without a clone"
    assert status(AtaxxState("x5o/7/7/7/7/7/o5x x 79 40"), 0) == ""
    off = AtaxxState("x5o/7/7/7/7/7/o5x x 85 40", halfmove_clock=False)
    assert status(off, 0) == "" and _caption(_root(to_svg(off))) == "red 2 | blue 2 | red to move"


def test_state_to_svg_and_render_reexport_are_the_module():
    from envs.ataxx.render import to_svg as reexported

    s = AtaxxState(BLOCKERS)
    s.push("b6")
    assert s.to_svg(1) == to_svg(s, 1) == reexported(s, 1)
    assert s.to_svg(None, pending=s.legal_actions()[0]) == to_svg(s, pending=s.legal_actions()[0])


#: The README's picture (results/pictures/ataxx.svg): a greedy-vs-greedy game from the blocker
#: start (seed 0), after 25 plies, the last one a jump.
PICTURE_MOVES = "b7 f6 a6 b2 g2 b1 f1 c1 f1d1 c2 g1e2 d2 g2e1 d3 d1b3 a2 d1 d3f2 c2a3 c2 b4 b2a4 b2 a4b6 b3b5"


def test_readme_picture_is_current():
    """results/pictures/ataxx.svg is what today's code draws (the report's command writes it)."""
    from conftest import REPO_ROOT

    s = AtaxxState(BLOCKERS)
    for m in PICTURE_MOVES.split():
        s.push(m)
    text = (REPO_ROOT / "results" / "pictures" / "ataxx.svg").read_text(encoding="utf-8")
    assert text == s.to_svg()
    root = _root(text)
    assert _marked(root, "last", "rect") == ["b3", "b5"] and len(_stones(root, "x")) == 11
