"""The marks of the board drawings (issue 26, item 1; contract in envs/core/svg.py): small target
markers after their hit shapes, hidden in the SVG (the room's stylesheet shows them), at least 3:1
contrast against what they are drawn on, never over a TwixT border line or a piece; the plies of
the last turn of every seat but the one to move (class ``recent``); Ataxx's converted stones."""

from __future__ import annotations

import importlib
import re
import xml.etree.ElementTree as ET

import pytest

from conftest import contract_cases, play_random, start_state
from envs.ataxx.state import AtaxxState, iter_bits
from envs.core.svg import MIN_CONTRAST, blend, contrast_ratio, ply_movers, recent_plies, relative_luminance
from envs.twixt.state import TwixtState

SVG = "{http://www.w3.org/2000/svg}"


def _classes(el) -> list[str]:
    return (el.get("class") or "").split()


def _marks(root):
    """``(hit shape, mark)`` for every mark, checking that a mark follows a hit shape at once."""
    out = []
    for parent in root.iter():
        kids = list(parent)
        for i, el in enumerate(kids):
            if "mark" in _classes(el):
                assert i > 0 and "hit" in _classes(kids[i - 1]), "a mark must follow its hit shape at once"
                out.append((kids[i - 1], el))
    return out


def _colours(el) -> set[str]:
    found = set()
    for e in el.iter():
        for name in ("fill", "stroke"):
            v = e.get(name)
            if v and v != "none":
                found.add(v.lower())
    return found


def _declared(st) -> dict:
    return importlib.import_module(st.board_ui().module).MARK_COLOURS


# ---------------------------------------------------------------------------------- helpers
def test_contrast_ratio_follows_wcag():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21)
    assert contrast_ratio("#fff", "#ffffff") == pytest.approx(1)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # WCAG's AA grey
    assert contrast_ratio("#ffffff", "#767676") == contrast_ratio("#767676", "#ffffff")
    assert relative_luminance("#ff0000") == pytest.approx(0.2126)
    assert blend("#ffffff", "#000000", 0.5) == "#808080" and blend("#123456", "#000000", 1) == "#123456"
    with pytest.raises(ValueError, match="CSS hex"):
        contrast_ratio("red", "#fff")
    with pytest.raises(ValueError, match="opacity"):
        blend("#fff", "#000", 1.5)


def test_recent_plies_are_the_other_seats_plies_since_a_seats_last_turn():
    movers = [1, 0, 1, 2, 0]
    assert recent_plies(movers, 0) == [2, 3]  # seat 0 played last: the turns before its own
    assert recent_plies(movers, 1) == [3, 4]
    assert recent_plies(movers, 2) == [4]
    assert recent_plies(movers, None) == [2, 3, 4]  # one round
    assert recent_plies(movers, 3) == [0, 1, 2, 3, 4]  # never played: everything
    assert recent_plies([], None) == [] and recent_plies([], 0) == []
    assert recent_plies([0, 0, 0, 1, 1, 2, 2, 2], 0) == [3, 4, 5, 6, 7]  # Tantrix: several plies a turn


@pytest.mark.parametrize("game", ["ataxx", "twixt", "tantrix", "smartrix"])
def test_every_declared_marker_colour_has_3_to_1_contrast(game):
    declared = importlib.import_module(f"envs.{game}.svg").MARK_COLOURS
    assert declared
    for place, (marker, background) in declared.items():
        ratio = contrast_ratio(marker, background)
        assert ratio >= MIN_CONTRAST, f"{game}: marker {marker} {place} ({background}) has {ratio:.2f}:1"


# ---------------------------------------------------------------------------------- every game
def _positions(env_id, kwargs):
    for plies in (0, 7, 31):
        st = start_state(env_id, kwargs, seed=plies)
        play_random(st, seed=plies, moves=plies)
        yield st


@pytest.mark.parametrize("env_id,kwargs", contract_cases())
def test_targets_have_small_hidden_marks_in_declared_colours(env_id, kwargs):
    for st in _positions(env_id, kwargs):
        if st.is_terminal():
            continue
        root = ET.fromstring(st.to_svg(st.current_player))
        pairs = _marks(root)
        if not st.board_ui().module:
            assert not pairs
            continue
        declared = {marker.lower() for marker, _ in _declared(st).values()}
        hits = {}
        for h, m in pairs:
            hits[h.get("data-key")] = (h, m)
            assert m.get("visibility") == "hidden" and m.get("pointer-events") == "none"
            assert h.get("fill-opacity") == "0", "hit shapes stay invisible"
            assert _colours(m) <= declared, f"{env_id}: mark colours {_colours(m) - declared} are not declared"
            for e in m.iter():  # small: a dot is at most half as wide as its hit shape; a ring is hollow
                if "dot" in _classes(e):
                    r = float(e.get("r")) + float(e.get("stroke-width") or 0) / 2
                    w = float(h.get("width") or 1e9)
                    assert 2 * r <= 0.5 * w or h.tag != f"{SVG}rect", f"dot of radius {r} in a {w} wide square"
                if "ring" in _classes(e):
                    assert e.get("fill") == "none"
            assert "sel" not in _classes(m) and all(
                e.get("display") == "none" for e in m.iter() if "sel" in _classes(e)
            ), "the selection ring is drawn hidden"
        # every key a legal action is clicked on that has a hit shape has a mark
        ui = st.board_ui()
        keys_of_hits = {e.get("data-key") for e in root.iter() if "hit" in _classes(e)}
        for a in st.legal_actions()[:400]:
            for path in ui.action_paths(st, a).paths:
                for key in path:
                    if key in keys_of_hits:
                        assert key in hits, f"{env_id}: key {key!r} of {st.action_to_string(a)} has no mark"


# ---------------------------------------------------------------------------------- TwixT
def _border_boxes(root):
    boxes = []
    for el in root.iter(f"{SVG}line"):
        if "border" in _classes(el):
            w = float(el.get("stroke-width")) / 2
            x1, y1, x2, y2 = (float(el.get(k)) for k in ("x1", "y1", "x2", "y2"))
            boxes.append((min(x1, x2) - w, min(y1, y2) - w, max(x1, x2) + w, max(y1, y2) + w))
    return boxes


@pytest.mark.parametrize("size", [8, 12, 24, 30])
@pytest.mark.parametrize("kwargs", [{}, {"links": "manual"}, {"num_players": 4}])
def test_twixt_marks_never_cover_a_border_line(size, kwargs):
    st = TwixtState(board_size=size, **kwargs)
    for m in ["c3", "e4", "f6", "h2", "b2", "g7"]:  # pegs next to the border lines too
        while "end" in st.legal_moves():  # links="manual": end the turn
            st.push("end")
        st.push(m)
    for viewer in (None, 0, 1):
        for perspective in (None, 0, 1):
            root = ET.fromstring(st.to_svg(viewer, perspective=perspective))
            borders = _border_boxes(root)
            assert len(borders) == 4
            pairs = _marks(root)
            assert pairs
            for _, m in pairs:
                for c in m.iter(f"{SVG}circle"):
                    r = float(c.get("r")) + float(c.get("stroke-width")) / 2
                    cx, cy = float(c.get("cx")), float(c.get("cy"))
                    for x0, y0, x1, y1 in borders:
                        apart = cx + r <= x0 or cx - r >= x1 or cy + r <= y0 or cy - r >= y1
                        assert apart, f"mark at {cx},{cy} r {r} covers the border line {x0, y0, x1, y1}"


def test_twixt_targets_are_small_dots_on_the_legal_holes_only():
    """The marked holes are exactly the legal placements of the game's mask (issue 26, the
    newcomer's pass: the holes behind the opponent's border lines looked like legal ones)."""
    st = TwixtState(board_size=24)
    st.push("c3")
    root = ET.fromstring(st.to_svg(1))
    pairs = _marks(root)
    assert len(pairs) == 24 * 24 - 4 - 1 - 2 * 22  # every empty hole but the corners, the peg, red's border rows
    assert all("quiet" not in _classes(m) and m.tag == f"{SVG}circle" and "dot" in _classes(m) for _, m in pairs)
    mask = st.legal_action_mask()
    marked = {h.get("data-key") for h, _ in pairs}
    assert marked == {st.action_to_string(a) for a in range(24 * 24) if mask[a]}
    assert "a5" in marked and "e1" not in marked and "e24" not in marked  # black to move: red's rows are not
    # the same for red to move, and for a manual-links game once the peg is placed (no hole then)
    st.push("d5")
    assert {h.get("data-key") for h, _ in _marks(ET.fromstring(st.to_svg(0)))} == {
        st.action_to_string(a) for a in range(24 * 24) if st.legal_action_mask()[a]
    }
    m = TwixtState(board_size=8, links="manual")
    m.push("c3")
    assert all(h.get("data-key") in {"c3"} for h, _ in _marks(ET.fromstring(m.to_svg(0))))


# ---------------------------------------------------------------------------------- Ataxx
def test_ataxx_marks_the_converted_stones_and_rings_stones_without_covering_them():
    s = AtaxxState("7/7/7/3oo2/7/2x4/o6 x 0 1")
    s.push("d3")  # x clones next to d4 and e4: both turn
    assert sorted(iter_bits(s.last_converted)) == [24, 25]  # d4, e4 (bit rank * 7 + file)
    root = ET.fromstring(s.to_svg())
    rings = [e for e in root.iter() if _classes(e)[:2] == ["last", "converted"]]
    assert len(rings) == 2
    assert "2 stones converted" in root.get("aria-label")
    stone_r = max(float(e.get("r")) for e in root.iter(f"{SVG}circle") if "stone" in _classes(e))
    ringed = 0
    for h, m in _marks(root):
        if h.get("aria-label", "").endswith("stone"):
            assert "quiet" in _classes(m)  # movable stones: on hover, focus or once one is selected
            for ring in m.iter(f"{SVG}circle"):
                inner = float(ring.get("r")) - float(ring.get("stroke-width")) / 2
                assert inner > stone_r + 1, "a stone's ring lies outside the stone and its outline"
                ringed += 1
    assert ringed == 2 * 5  # five stones (x c2 d3 d4 e4, o a1), a target ring and a selection ring each
    assert s.clone().last_converted == s.last_converted
    s.push("a2")  # o clones next to its a1, far from x: nothing to convert
    assert s.last_converted == 0 and "converted" not in s.to_svg()
    assert AtaxxState().last_converted == 0


def test_ataxx_a_pass_converts_nothing():
    s = AtaxxState("x5o/7/7/7/7/7/o5x x 0 1")
    assert s.last_converted == 0 and "converted" not in s.to_svg()


# ---------------------------------------------------------------------------------- recent plies
def _count(svg: str, cls: str) -> int:
    return len(re.findall(rf'class="{cls}"', svg))


def test_tantrix_marks_every_tile_since_the_movers_last_turn():
    st = play_random(start_state("tantrix_v0", {"num_players": 4}, seed=1), seed=1, moves=30)
    movers = ply_movers(st)
    assert movers is not None and len(movers) == len(st.history)
    recent = [i for i in recent_plies(movers, st.current_player) if i != len(st.history) - 1]
    assert len(recent) >= 3
    for viewer in (None, 0, 1, 2, 3):
        svg = st.to_svg(viewer)
        assert _count(svg, "recent") == len(recent) and _count(svg, "last") == 1


def test_smartrix_marks_the_cards_of_the_other_seats_last_turns():
    st = play_random(start_state("smartrix_v0", {"num_players": 4}, seed=1), seed=1, moves=20)
    movers = ply_movers(st)
    assert movers is not None
    svgs = {st.to_svg(v).count('class="recent"') for v in (None, 0, 1, 2, 3)}
    assert len(svgs) == 1 and svgs.pop() >= 1


def test_double_twixt_rings_the_pegs_of_the_other_seats_last_turns():
    d = TwixtState.from_moves("c3 e4 f6 h2 d5", board_size=8, num_players=4)
    # seat 1 is to move: the pegs since its last one (e4): f6, h2 and the last one d5
    assert d.current_player == 1
    for viewer in (None, 0, 1, 2, 3):
        root = ET.fromstring(d.to_svg(viewer))
        recent = [e for e in root.iter(f"{SVG}circle") if _classes(e) == ["recent"]]
        assert len(recent) == 2
    two = TwixtState.from_moves("c3 e4 f6", board_size=8)
    assert "recent" not in two.to_svg()  # two sides: the last ply is the other side's whole turn


def test_ply_movers_is_none_for_a_position_without_a_replayable_start():
    assert ply_movers(AtaxxState()) is None or ply_movers(AtaxxState()) == []


def test_twixt_manual_links_mark_the_other_sides_whole_last_turn():
    s = TwixtState(board_size=8, links="manual")
    for m in ["c3", "end", "h3", "end", "d5", "+c3d5", "end", "f4"]:
        s.push(m)
    # seat 1 is in the middle of its turn (f4): seat 0's last turn, d5 and the link c3-d5, is marked
    root = ET.fromstring(s.to_svg(1))
    recent = [e for e in root.iter() if _classes(e) == ["recent"]]
    assert sorted(e.tag.replace(SVG, "") for e in recent) == ["circle", "line"]
    s.push("end")  # the turn just ended: its peg is the last one, its link marked as recent
    recent = [e.tag.replace(SVG, "") for e in ET.fromstring(s.to_svg()).iter() if _classes(e) == ["recent"]]
    assert recent == []  # f4's turn added no link; its peg has the last ring
    auto = TwixtState.from_moves("c3 e4 f6", board_size=8)
    assert "recent" not in auto.to_svg()


def _points(el) -> list[tuple[float, float]]:
    nums = [float(v) for v in re.split(r"[ ,]+", el.get("points").strip())]
    return list(zip(nums[::2], nums[1::2]))


def test_tantrix_rings_lie_outside_the_hand_tiles_and_dots_off_the_forced_dots():
    checked_tiles = checked_forced = 0
    for seed in range(6):
        st = play_random(start_state("tantrix_v0", {"num_players": 4}, seed=seed), seed=seed, moves=12 + seed)
        if st.is_terminal():
            continue
        root = ET.fromstring(st.to_svg(st.current_player))
        forced = [e for e in root.iter(f"{SVG}circle") if _classes(e) == ["forced"]]
        table = next(e for e in root.iter(f"{SVG}g") if _classes(e) == ["table"])
        tx, ty = (float(v) for v in re.findall(r"-?[\d.]+", table.get("transform")))
        for h, m in _marks(root):
            if h.get("data-key").startswith("tile:"):
                tile = _points(h)
                cx, cy = sum(x for x, _ in tile) / 6, sum(y for _, y in tile) / 6
                for ring in m.iter(f"{SVG}polygon"):
                    half = float(ring.get("stroke-width")) / 2
                    inner = min(((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 for x, y in _points(ring)) - half
                    assert inner > max(((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 for x, y in tile) - 0.01
                    checked_tiles += 1
            else:
                for dot in m.iter(f"{SVG}circle"):
                    r = float(dot.get("r")) + float(dot.get("stroke-width")) / 2
                    dx, dy = float(dot.get("cx")), float(dot.get("cy"))
                    for f in forced:
                        fx, fy = float(f.get("cx")) + tx, float(f.get("cy")) + ty
                        fr = float(f.get("r")) + float(f.get("stroke-width")) / 2
                        assert ((dx - fx) ** 2 + (dy - fy) ** 2) ** 0.5 > r + fr, "a target dot covers a forced dot"
                        checked_forced += 1
    assert checked_tiles and checked_forced


def test_smartrix_rings_lie_outside_the_hand_cards():
    st = play_random(start_state("smartrix_v0", {"num_players": 2}, seed=2), seed=2, moves=6)
    root = ET.fromstring(st.to_svg(st.current_player))
    rings = 0
    for h, m in _marks(root):
        if h.get("data-key").startswith("card:"):
            x, y, w = (float(h.get(k)) for k in ("x", "y", "width"))
            for ring in m.iter(f"{SVG}rect"):
                half = float(ring.get("stroke-width")) / 2
                assert float(ring.get("x")) + half < x and float(ring.get("y")) + half < y
                assert float(ring.get("x")) + float(ring.get("width")) - half > x + w
                rings += 1
    assert rings == 2 * len(st.hand(st.current_player))
