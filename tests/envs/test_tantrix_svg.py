"""Tantrix's board drawing and click paths (envs/tantrix/svg.py): what is specific to Tantrix
beyond tests/envs/test_svg_contract.py — the keys and paths of known positions, rotations sharing one
path, the pending tile, the last move, forced-space dots per player, shaded controlled spaces,
the hands and the view's extent."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import play_random
from envs.core.svg import MovePaths
from envs.tantrix import DIRS, TantrixState, fitting_tiles, parse_move, tile_edges
from envs.tantrix.svg import CONFIRM, SIDE, action_paths, status, tile_label, to_svg

NS = "{http://www.w3.org/2000/svg}"
RED, YELLOW, BLUE, GREEN = "#e12323", "#fad714", "#286eeb", "#1eaf46"  # render.LINE_COLOURS
# a table from a seeded 3-player game (seed 0, 8 tiles) with two forced spaces, (0, -1) and (0, 2)
TABLE = ["t37@0,0r0", "t36@1,-1r5", "t21@1,0r4", "t11@1,1r3", "t29@0,1r5", "t35@-1,0r5", "t25@-1,1r4", "t19@1,2r0"]


def _root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _keys(root) -> dict[str, ET.Element]:
    return {el.get("data-key"): el for el in root.iter() if el.get("data-key")}


def _classed(root, cls: str) -> list[ET.Element]:
    return [el for el in root.iter() if cls in (el.get("class") or "").split()]


def _centroid(points: str) -> tuple[float, float]:
    pts = [tuple(map(float, p.split(","))) for p in points.split()]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def _hex_centre(q: int, r: int) -> tuple[float, float]:
    return SIDE * 3**0.5 * (q + r / 2), SIDE * 1.5 * r


def _by_path(state) -> dict[tuple, set[int]]:
    out: dict[tuple, set[int]] = {}
    for a in state.legal_actions():
        for p in action_paths(state, a).paths:
            out.setdefault(p, set()).add(a)
    return out


def _position(hands, bag=(), current_player=2):
    return TantrixState.from_position(
        tiles=TABLE, hands=hands, bag=bag, current_player=current_player, num_players=len(hands)
    )


def test_start_keys_and_paths():
    s = TantrixState(2, seed=0)
    hand = [t for t in s.hand(0) if t != -1]
    assert s.current_player == 0 and hand == [47, 19, 11, 24, 29, 5] and CONFIRM is True
    keys = _keys(_root(to_svg(s, 0)))
    assert set(keys) == {f"tile:{t}" for t in hand} | {"hex:0,0"}
    assert keys["hex:0,0"].get("aria-label") == "hex 0,0, empty"
    assert keys["tile:47"].get("aria-label") == tile_label(47) + ", in your hand"
    # the other seat and a spectator get the drawing but nothing to click
    assert _keys(_root(to_svg(s, 1))) == {} and _keys(_root(to_svg(s, None))) == {}
    # every tile fits the first space in every rotation: 6 paths of 6 rotations each
    by_path = _by_path(s)
    assert set(by_path) == {(f"tile:{t}", "hex:0,0") for t in hand}
    assert all(len(v) == 6 for v in by_path.values())
    assert action_paths(s, s.string_to_action("t47@0,0r3")) == MovePaths((("tile:47", "hex:0,0"),), "free")


def test_rotations_share_one_path_and_only_the_legal_ones():
    # tile 1 (YBRBRY) on the centre: the hex to its right must show blue on its edge 4; tile 2
    # (RBYYBR) shows blue on edges 1 and 4, so it fits there in rotations 0 and 3 only
    s = TantrixState.from_position(
        tiles=["t1@0,0r0"], hands=[[2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13]], bag=list(range(14, 57)), phase="free"
    )
    by_path = _by_path(s)
    rots = sorted(s.decode(a)[1] for a in by_path[("tile:2", "hex:1,0")])
    assert rots == [0, 3]
    assert [k for _, t, k in s.fitting_placements(0, 1, 0) if t == 2] == [0, 3]
    assert s.fitting_placements(1, 1, 0) and s.fitting_placements(0, 0, 0) == [] and s.fitting_placements(0, 5, 5) == []
    assert set(by_path) <= {(f"tile:{t}", f"hex:{q},{r}") for t in range(2, 8) for q, r in s.candidate_cells()}
    # the union of fitting_placements over the spaces is exactly the free move's legal placements
    fits = {(t, q, r, k) for q, r in s.candidate_cells() for _, t, k in s.fitting_placements(0, q, r)}
    assert fits == set(s.placements())


def test_pending_tile_is_drawn_turned_and_lifted_from_the_hand():
    s = TantrixState.from_position(
        tiles=["t1@0,0r0"], hands=[[2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13]], bag=list(range(14, 57)), phase="free"
    )
    a0, a3 = s.string_to_action("t2@1,0r0"), s.string_to_action("t2@1,0r3")
    plain, p0, p3 = (_root(to_svg(s, 0, pending=a)) for a in (None, a0, a3))
    assert _classed(plain, "pending") == []
    (g,) = [el for el in _classed(p3, "pending") if el.tag == f"{NS}g"]
    assert g.get("aria-label") == "t2 at 1,0, rotation 3, not yet played"
    assert g.get("transform") == "translate(48.5 0)"  # hex (1, 0): 28 * sqrt(3) to the right of (0, 0)
    # tile 2 in rotation 3 (blue on edges 4 and 1): a straight blue line between edges 1 and 4
    blue = [p.get("d") for p in g.iter(f"{NS}path") if p.get("stroke") == BLUE]
    assert blue == ["M24.25 0L-24.25 0"]
    # its slot is an empty dashed outline, still a key (the page keeps the tile selected)
    (slot,) = [el for el in _classed(p3, "slot") if "pending" in el.get("class")]
    assert "tile 2:" not in " ".join(el.get("aria-label") or "" for el in _classed(p3, "hand-tile"))
    assert "tile:2" in _keys(p3) and "hex:1,0" in _keys(p3)
    assert ET.tostring(p0) != ET.tostring(p3)  # each rotation drawn as it is
    assert s.to_svg(0) == to_svg(s, 0)  # drawing a pending move does not change the state
    with pytest.raises(ValueError, match="not legal"):
        to_svg(s, 0, pending=s.string_to_action("t2@1,0r1"))


def test_last_move_outlined():
    s = TantrixState(2, seed=0)
    assert _classed(_root(to_svg(s)), "last") == []
    s.push("t47@0,0r0")
    root = _root(to_svg(s))
    (last,) = _classed(root, "last")
    assert last.get("stroke") == "#ffffff" and last.get("fill") == "none"
    assert _centroid(last.get("points")) == pytest.approx((0, 0), abs=0.02)
    play_random(s, seed=4, moves=9)
    t, q, r, _ = s.placed[-1]
    root = _root(to_svg(s, s.current_player))
    (last,) = _classed(root, "last")
    assert _centroid(last.get("points")) == pytest.approx(_hex_centre(q, r), abs=0.02)
    # a position given by hand has no last move
    assert _classed(_root(to_svg(_position([[44], [46], [5]]))), "last") == []


def test_forced_spaces_dotted_in_the_colour_of_each_player_who_can_fill_them():
    table = {(q, r): (t, k) for t, q, r, k in map(parse_move, TABLE)}

    def need(q, r):  # the colours leading into an empty hex, read off the neighbours' edges
        return {
            d: tile_edges(*table[(q + dq, r + dr)])[(d + 3) % 6]
            for d, (dq, dr) in enumerate(DIRS)
            if (q + dq, r + dr) in table
        }

    fit_x = {t for t, _ in fitting_tiles(need(0, -1))}
    fit_y = {t for t, _ in fitting_tiles(need(0, 2))}
    assert {44, 46} <= fit_x and 15 not in fit_x and 15 in fit_y
    assert not {1, 2, 3, 5, 6, 7} & (fit_x | fit_y) and not {44, 46} & fit_y
    # empty bag: restrictions off, fitting is colours only. P0 (red) and P1 (yellow) can fill
    # (0, -1), P2 (blue, to move) cannot; nobody can fill (0, 2): a white dot
    s = _position([[44, 1, 2], [46, 3], [5, 6, 7]])
    assert s.forced_spaces() == [(0, -1), (0, 2)] and s.current_player == 2 and s.phase == "free"
    at: dict[tuple[int, int], list[tuple[float, str]]] = {}
    for d in _classed(_root(to_svg(s, 2)), "forced"):  # dots side by side on the hex's centre line
        x, y = float(d.get("cx")), float(d.get("cy"))
        hexes = [
            h
            for h in s.forced_spaces()
            if abs(_hex_centre(*h)[1] - y) < 0.01 and abs(_hex_centre(*h)[0] - x) < SIDE / 2
        ]
        at.setdefault(hexes[0], []).append((round(x - _hex_centre(*hexes[0])[0], 1), d.get("fill")))
    assert at == {(0, -1): [(-5.4, RED), (5.4, YELLOW)], (0, 2): [(0, "#ffffff")]}  # 2.4 radii apart
    keys = _keys(_root(to_svg(s, 2)))
    assert keys["hex:0,-1"].get("aria-label") == "hex 0,-1, empty, forced space: P1 red, P2 yellow can fill it"
    assert keys["hex:0,2"].get("aria-label") == "hex 0,2, empty, forced space, nobody can fill it"
    # give P1 a tile for (0, 2) as well: yellow dots on both
    s = _position([[44, 1, 2], [46, 15], [5, 6, 7]])
    fills = sorted(d.get("fill") for d in _classed(_root(to_svg(s)), "forced"))
    assert fills == sorted([RED, YELLOW, YELLOW])


def test_controlled_spaces_shaded_while_the_bag_has_tiles():
    s = _position([[44, 1, 2], [46, 3], [5, 6, 7]], bag=[8, 9, 10])
    root = _root(to_svg(s))
    shaded = set()
    for el in _classed(root, "blocked"):
        cx, cy = _centroid(el.get("points"))
        r = round(cy / (1.5 * SIDE))
        shaded.add((round(cx / (SIDE * 3**0.5) - r / 2), r))
    assert shaded == set(s.blocked_spaces())
    # every empty hex next to a forced space is blocked (restriction 2: a fourth neighbour)
    cand = set(s.candidate_cells())
    near = {(q + dq, r + dr) for q, r in s.forced_spaces() for dq, dr in DIRS} & cand - set(s.forced_spaces())
    assert near and near <= shaded
    assert {(1, -2), (-1, -1)} <= shaded
    # no legal placement goes on a blocked hex
    assert not {(q, r) for _, q, r, _ in s.placements()} & shaded
    assert "controlled: no tile may go here" in _keys(_root(to_svg(s, s.current_player)))["hex:1,-2"].get("aria-label")
    # with an empty bag the restrictions are off and nothing is shaded
    s = _position([[44, 1, 2], [46, 3], [5, 6, 7]])
    assert s.blocked_spaces() == [] and _classed(_root(to_svg(s)), "blocked") == []


def test_hands_scores_and_the_player_to_move():
    s = TantrixState(3, seed=3)
    play_random(s, seed=3, moves=30)
    mover = s.current_player
    root = _root(to_svg(s, 1))
    texts = ["".join(t.itertext()) for t in root.iter(f"{NS}text")]
    for p in range(3):
        line, loop = s.colour_score(s.colour_of(p))
        assert f"score {s.scores()[p]}: line {line}" + (f", loop {loop}×2" if loop else "") in texts
    assert texts[0] == "P3 blue to move · free move"
    names = [t for t in texts[1:] if re.match(r"P\d ", t)]
    assert names == ["P1 red", "P2 yellow (you)", "P3 blue"]
    assert texts.count("▶") == 1 and len(_classed(root, "to-move")) == 1
    # every tile of every hand is drawn (hands are open), only the mover's are keys
    drawn = {el.get("aria-label") for el in _classed(root, "hand-tile")}
    assert drawn == {tile_label(t) for p in range(3) for t in s.hand(p) if t != -1}
    keys = _keys(_root(to_svg(s, mover)))
    window = {(q, r) for q, r in s.candidate_cells() if max(abs(q), abs(r), abs(q + r)) <= s.window_radius}
    assert set(keys) == {f"tile:{t}" for t in s.hand(mover) if t != -1} | {f"hex:{q},{r}" for q, r in window}
    assert mover == 2 and _keys(root) == {}
    assert tile_label(1) == "tile 1: red gentle curve, yellow sharp curve, blue gentle curve"
    assert tile_label(2) == "tile 2: red sharp curve, yellow sharp curve, blue straight"


def test_caption_status_and_the_end():
    s = TantrixState(2, seed=1)
    assert status(s, None) == "free move" and status(s, 0) == "free move"
    play_random(s, seed=1, moves=7)
    assert (
        status(s, 1)
        == {
            "forced_before": "forced moves before the free move",
            "free": "free move",
            "forced_after": "forced moves after the free move",
        }[s.phase]
    )
    root = _root(to_svg(s))
    title = root.find(f"{NS}title").text
    assert title.startswith(f"Tantrix position: P{s.current_player + 1} ")
    texts = ["".join(t.itertext()) for t in root.iter(f"{NS}text")]
    # in players' words: no "bag 44", no bare "restrictions on" (the phase line says when they end)
    assert f"tiles placed: {len(s.placed)} · tiles left in the bag: {s.bag_size}" in texts
    assert not any("restrictions" in t for t in texts)
    play_random(s, seed=1)
    assert s.is_terminal() and status(s, None) == ""
    root = _root(to_svg(s, 0))
    assert s.outcome().result == "player 0 won" and s.colour_of(0) == 1  # the rules count seats from 0; red
    assert root.find(f"{NS}title").text == "Tantrix position: Game over: P1 red won (all tiles placed)"
    assert _keys(root) == {} and _classed(root, "space") == [] and _classed(root, "forced") == []
    with pytest.raises(ValueError, match="viewer"):
        status(s, 2)
    # the bag empties mid-game: restrictions off shown in the status
    s = _position([[44, 1, 2], [46, 3], [5, 6, 7]])
    assert status(s, None) == "free move (restrictions off: the bag is empty)"
    texts = ["".join(t.itertext()) for t in _root(to_svg(s)).iter(f"{NS}text")]
    assert f"tiles placed: {len(s.placed)} · the bag is empty" in texts


def test_view_fits_the_tiles_not_the_window():
    s = TantrixState(2, seed=0)  # radius 16: the whole window would be 33 hexes across
    width = float(_root(to_svg(s)).get("viewBox").split()[2])
    assert width < 600
    # a small window: spaces beyond it are neither drawn nor keys
    s = TantrixState(2, window_radius=3, seed=2)
    rng = np.random.default_rng(2)
    while not s.is_terminal() and not any(max(abs(q), abs(r), abs(q + r)) == 3 for _, q, r, _ in s.placed):
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    assert not s.is_terminal()
    outside = [(q, r) for q, r in s.candidate_cells() if max(abs(q), abs(r), abs(q + r)) > 3]
    assert outside
    keys = _keys(_root(to_svg(s, s.current_player)))
    assert not {f"hex:{q},{r}" for q, r in outside} & set(keys)
    assert len(_classed(_root(to_svg(s)), "space")) == len(s.candidate_cells()) - len(outside)


def test_action_paths_refuse_illegal_actions():
    s = TantrixState(2, seed=0)
    illegal = int(np.flatnonzero(s.legal_action_mask() == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        action_paths(s, illegal)
    with pytest.raises(ValueError):
        action_paths(s, s.num_actions)
    assert s.board_ui().module == "envs.tantrix.svg" and s.info.board == "envs.tantrix.svg"
