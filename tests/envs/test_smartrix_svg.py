"""Smartrix's board for people (envs/smartrix/svg.py): keys and click paths of known positions,
the last card and the last collected set highlighted, the 5x5 box, each viewer's hand and nothing
else, the pending preview, pass (a button, or forced), the status line and the errors.

The generic contract (every variant, hidden information under redraws) is tests/envs/test_svg_contract.py.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from envs.core.state import IllegalActionError
from envs.core.svg import MovePaths
from envs.smartrix import SmartrixState
from envs.smartrix.svg import CELL, CONFIRM, action_paths, status, to_svg

NS = "{http://www.w3.org/2000/svg}"
DECK = list(range(1, 71))  # player 0 gets 1..5, player 1 6..10, card 11 face up, 12 is drawn first


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def keys(root) -> dict[str, ET.Element]:
    return {el.get("data-key"): el for el in root.iter() if el.get("data-key") is not None}


def cards(root, cls: str) -> list[ET.Element]:
    """The card groups whose class list contains every word of ``cls``."""
    want = set(cls.split())
    return [el for el in root.iter(f"{NS}g") if el.get("data-card") and want <= set((el.get("class") or "").split())]


def with_class(root, cls: str) -> list[ET.Element]:
    want = set(cls.split())
    return [el for el in root.iter() if want <= set((el.get("class") or "").split())]


def origin(root) -> tuple[float, float]:
    """The top-left corner of the table's square (row, col) = the hit shape ``cell:0,0``."""
    cell = keys(root)["cell:0,0"]
    return float(cell.get("x")), float(cell.get("y"))


def texts(root) -> list[str]:
    return [el.text or "" for el in root.iter(f"{NS}text")]


def paths_of(st) -> dict[tuple, set[int]]:
    out: dict[tuple, set[int]] = {}
    for a in st.legal_actions():
        for p in action_paths(st, a).paths:
            out.setdefault(p, set()).add(a)
    return out


def row_position():
    """Cards 20, 2, 1, 3 in a row on (0, 0) .. (0, 3); card 10 in player 0's hand completes the set
    on (0, 4) (every facing side matches: found by search over the deck)."""
    return SmartrixState.from_position(
        num_players=2, table=[(20, 0, 0, 0), (2, 0, 0, 1), (1, 0, 0, 2), (3, 0, 0, 3)], hands=[[10, 45], [44]]
    )


def test_declared_and_confirmed():
    st = SmartrixState(2, deck=DECK)
    ui = st.board_ui()
    assert SmartrixState.info.board == "envs.smartrix.svg" and ui.module == "envs.smartrix.svg"
    assert ui.confirm is CONFIRM is True and ui.to_svg is to_svg and ui.action_paths is action_paths


def test_start_keys_and_paths():
    st = SmartrixState(2, deck=DECK)
    assert st.hand(0) == [1, 2, 3, 4, 5, 12] and st.table() == [(11, 0, 0, 0)]
    root = parse(st.to_svg(0))
    ks = keys(root)
    # the 7x7 window round the face-up card, and the mover's six cards
    cells = {f"cell:{r},{c}" for r in range(-3, 4) for c in range(-3, 4)}
    assert set(ks) == cells | {f"card:{n}" for n in (1, 2, 3, 4, 5, 12)}
    assert ks["cell:0,0"].get("aria-label") == "row +0, column +0: card 11 turned 0, 2 spots"
    assert ks["card:12"].get("aria-label") == "card 12, 3 spots, in your hand"
    by_path = paths_of(st)
    assert {p[0] for p in by_path} == {"card:1", "card:2", "card:3", "card:4", "card:5", "card:12", "pass"}
    # card 11 has spots top and bottom only: the blank card 1 fits beside it and on its corners,
    # never above or below (one orientation: it looks the same every way round)
    assert {p for p in by_path if p[0] == "card:1"} == {
        ("card:1", f"cell:{r},{c}") for r, c in ((0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
    }
    # card 2 (one spot, top-left) on the right of card 11: its left side must be blank, so
    # rotations 1 (spot top-right) and 2 (bottom-right) share the path and the page cycles them
    assert by_path[("card:2", "cell:0,1")] == {st.encode(2, 1, 0, 1), st.encode(2, 2, 0, 1)}
    assert action_paths(st, st.encode(2, 1, 0, 1)) == MovePaths((("card:2", "cell:0,1"),), "place")
    assert action_paths(st, st.pass_action) == MovePaths((("pass",),))
    assert len(by_path[("pass",)]) == 1
    # every legal action has exactly one path and every path is legal
    assert sum(len(v) for v in by_path.values()) == len(st.legal_actions())


def test_placement_that_collects_has_kind_collect():
    st = row_position()
    a = st.encode(10, 0, 0, 4)
    assert action_paths(st, a) == MovePaths((("card:10", "cell:0,4"),), "collect")
    assert action_paths(st, st.encode(10, 0, 1, 4)) == MovePaths((("card:10", "cell:1,4"),), "place")
    # the 5x5 box: columns 3 - 4 = -1 .. 0 + 4 = 4 within one square of the table, rows -1..1
    root = parse(st.to_svg(0))
    (box,) = with_class(root, "box")
    x0, y0 = origin(root)
    assert (float(box.get("x")), float(box.get("y"))) == (x0 - CELL + 2, y0 - CELL + 2)
    assert (float(box.get("width")), float(box.get("height"))) == (6 * CELL - 4, 3 * CELL - 4)


def test_last_card_outlined_and_collected_set_highlighted():
    st = SmartrixState(2, deck=DECK)
    st.apply(st.encode(2, 1, 0, 1))
    root = parse(st.to_svg(None))
    (last,) = cards(root, "card last")
    assert last.get("data-card") == "2"
    x0, y0 = origin(root)
    frame = last.find(f"{NS}rect")
    assert (float(frame.get("x")), float(frame.get("y"))) == (x0 + CELL + 2, y0 + 2)
    assert frame.get("stroke") == "#ffd54a" and frame.get("stroke-width") == "4"
    assert keys(root)["cell:0,1"].get("aria-label") == "row +0, column +1: card 2 turned 1, 1 spot, put down last"
    assert "Last move: 2r1@+0,+1" in texts(root)
    assert with_class(root, "collected") == []

    st = row_position()
    st.apply(st.encode(10, 0, 0, 4))
    assert st.last_collected == [1, 2, 3, 10, 20] and st.table() == [] and st.points(0) == 7
    root = parse(st.to_svg(None))
    ghosts = cards(root, "last collected")
    assert sorted(int(g.get("data-card")) for g in ghosts) == [1, 2, 3, 10, 20]
    x0, y0 = origin(root)
    col_of = {int(g.get("data-card")): round((float(g.find(f"{NS}rect").get("x")) - 2 - x0) / CELL) for g in ghosts}
    assert col_of == {20: 0, 2: 1, 1: 2, 3: 3, 10: 4}
    frames = [el for el in with_class(root, "last collected") if el.tag == f"{NS}rect"]
    assert len(frames) == 5 and sum(f.get("stroke-dasharray") is None for f in frames) == 1  # the card put down
    assert "Last move: 10r0@+0,+4; player 1 collected 5 cards, 7 points" in texts(root)
    assert (
        keys(root)["cell:0,4"].get("aria-label")
        == "row +0, column +4: empty, card 10 was collected from here by the last move"
    )
    # the table is empty: the 5x5 box is the centre square
    (box,) = with_class(root, "box")
    assert (float(box.get("x")), float(box.get("width"))) == (x0 + 2, CELL - 4)


def test_each_viewer_sees_its_own_hand_only():
    st = SmartrixState(3, seed=4)
    st.apply(st.legal_actions()[0])
    spectator = parse(st.to_svg(None))
    assert cards(spectator, "card hand") == []
    assert not [k for k in keys(spectator) if k.startswith("card:")]
    hidden = {n for p in range(3) for n in st.hand(p)}
    drawn = {int(g.get("data-card")) for g in spectator.iter(f"{NS}g") if g.get("data-card")}
    assert not drawn & hidden and drawn == {n for n, _, _, _ in st.table()}
    for seat in range(3):
        root = parse(st.to_svg(seat))
        assert sorted(int(g.get("data-card")) for g in cards(root, "card hand")) == st.hand(seat)
        assert {k for k in keys(root) if k.startswith("card:")} == {f"card:{n}" for n in st.hand(seat)}
        others = {n for p in range(3) if p != seat for n in st.hand(p)}
        assert not {int(g.get("data-card")) for g in root.iter(f"{NS}g") if g.get("data-card")} & others
        lines = texts(root)
        assert f"Your hand (player {seat + 1}): {st.hand_size(seat)} cards, {st.hand_value(seat)} points" in lines
        assert sum(f"Player {seat + 1} (you): {st.hand_size(seat)} in hand" in t for t in lines) == 1
    assert texts(spectator)[-3:] == [
        f"Player 1: {st.hand_size(0)} in hand; 0 collected, 0 pts",
        f"\u25b6 Player 2: {st.hand_size(1)} in hand; 0 collected, 0 pts",
        f"Player 3: {st.hand_size(2)} in hand; 0 collected, 0 pts",
    ]


def test_game_over_shows_every_hand_and_the_scores():
    st = SmartrixState(2, seed=1)
    rng = np.random.default_rng(2)
    while not st.is_terminal():
        legal = st.legal_actions()
        st.apply(legal[int(rng.integers(len(legal)))])
    root = parse(st.to_svg(None))
    assert sorted(int(g.get("data-card")) for g in cards(root, "card hand")) == sorted(st.hand(0) + st.hand(1))
    assert not [k for k in keys(root) if k.startswith("card:")]  # nothing left to pick
    sc = st.scores()
    assert texts(root)[0] == f"Game over: player {st.outcome().winners[0] + 1} won; player scores {sc[0]}, {sc[1]}"
    lines = [
        f"Player {p + 1}: {st.hand_size(p)} in hand; {len(st.collected(p))} collected, {st.points(p)} pts; "
        f"score {sc[p]}" + ("; out" if st.is_out(p) else "")
        for p in range(2)
    ]
    assert texts(root)[-2:] == lines
    assert with_class(root, "box") == []
    assert status(st, None) == status(st, 0) == ""


def test_pending_draws_the_card_on_its_square_and_leaves_its_place_in_the_hand():
    st = SmartrixState(2, deck=DECK)
    a = st.encode(2, 2, 0, 1)
    root = parse(st.to_svg(0, pending=a))
    (pend,) = cards(root, "card pending")
    assert pend.get("data-card") == "2"
    x0, y0 = origin(root)
    frame = pend.find(f"{NS}rect")
    assert (float(frame.get("x")), float(frame.get("y"))) == (x0 + CELL + 2, y0 + 2)
    spots = [
        (
            round((float(c.get("cx")) - x0 - CELL) / (CELL / 3) - 0.5),
            round((float(c.get("cy")) - y0) / (CELL / 3) - 0.5),
        )
        for c in pend.iter(f"{NS}circle")
    ]
    assert spots == [(2, 2)]  # card 2 turned twice: its one spot moved from top-left to bottom-right
    assert sorted(int(g.get("data-card")) for g in cards(root, "card hand")) == [1, 3, 4, 5, 12]
    assert texts(root)[0] == "Turn 1: player 1 to move; pile 58; trying 2r2@+0,+1"
    assert "card:2" in keys(root)  # still clickable: the page cycles the rotations on it
    assert parse(st.to_svg(0)).find(f".//{NS}g[@class='card pending']") is None

    st = row_position()
    root = parse(st.to_svg(0, pending=st.encode(10, 0, 0, 4)))
    assert len([el for el in with_class(root, "pending collect")]) == 4  # the four table cards it takes
    root = parse(st.to_svg(0, pending=st.pass_action))
    assert cards(root, "card pending") == [] and texts(root)[0].endswith("; trying pass")


def test_forced_pass_plays_itself_and_status_says_why():
    st = SmartrixState.from_position(num_players=2, table=[(70, 0, 0, 0)], hands=[[1], [2]])
    assert st.legal_actions() == [st.pass_action]
    assert action_paths(st, st.pass_action) == MovePaths(())
    assert status(st, 0) == "none of your cards fits: you must pass"
    assert status(st, 1) == "" and status(st, None) == ""
    # the pile empty: a pass puts the player out (with the partner in the team game)
    st = SmartrixState.from_position(
        num_players=2, table=[(70, 0, 0, 0)], hands=[[1, 69], [2]], pile=[], collected=[list(range(3, 69)), []]
    )
    assert status(st, 1) == "the pile is empty: a player who passes is out"
    assert action_paths(st, st.pass_action) == MovePaths((("pass",),))  # 69 fits beside 70
    teams = SmartrixState.from_position(
        num_players=4,
        teams=True,
        table=[(70, 0, 0, 0)],
        hands=[[1], [2], [3], [4]],
        pile=[],
        collected=[list(range(5, 70)), [], [], []],
        out=[False, True, False, True],
    )
    assert status(teams, 3) == "the pile is empty: a player who passes is out with their partner; you are out"
    assert status(teams, 0) == (
        "none of your cards fits: you must pass; the pile is empty: a player who passes is out with their partner"
    )


def test_kids_variant_has_no_box_and_draws_the_table_round_its_cards():
    st = SmartrixState(2, seed=3, grid_limit=False)
    rng = np.random.default_rng(0)
    for _ in range(30):
        placements = st.legal_placements()
        st.apply(placements[int(rng.integers(len(placements)))] if placements else st.pass_action)
    root = parse(st.to_svg(0))
    assert with_class(root, "box") == []
    rmin, rmax, cmin, cmax = st.bounding_box()
    cells = {k for k in keys(root) if k.startswith("cell:")}
    rows = {int(k[5:].split(",")[0]) for k in cells}
    cols = {int(k.split(",")[1]) for k in cells}
    assert min(rows) <= rmin - 1 and max(rows) >= rmax + 1 and min(cols) <= cmin - 1 and max(cols) >= cmax + 1
    assert len(rows) == max(7, rmax - rmin + 3) and len(cols) == max(7, cmax - cmin + 3)
    for p in paths_of(st):
        assert p == ("pass",) or p[1] in cells


def test_bad_arguments_are_refused():
    st = SmartrixState(2, deck=DECK)
    with pytest.raises(IllegalActionError, match="not legal here .card 6 is not in player 0's hand"):
        action_paths(st, st.encode(6, 0, 0, 1))
    with pytest.raises(IllegalActionError, match="action must be an integer"):
        action_paths(st, 1.5)
    with pytest.raises(ValueError, match="viewer must be None .a spectator. or a seat in \\[0, 2\\), got 2"):
        to_svg(st, 2)
    with pytest.raises(IllegalActionError, match="pending action .* is not legal here"):
        to_svg(st, 0, pending=st.encode(2, 0, 0, 1))
    with pytest.raises(TypeError, match="SmartrixState"):
        to_svg("not a state")
    with pytest.raises(ValueError, match="viewer"):
        status(st, -1)
    over = SmartrixState.from_position(num_players=2, table=[(11, 0, 0, 0)], hands=[[1], [2]])
    over.apply(over.encode(1, 0, 0, 1))
    assert over.is_terminal()
    with pytest.raises(IllegalActionError, match="game is over"):
        action_paths(over, over.pass_action)


def test_action_paths_refuse_exactly_the_illegal_actions():
    st = SmartrixState(3, seed=8)
    rng = np.random.default_rng(1)
    for _ in range(12):
        st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
    mask = st.legal_action_mask()
    sample = np.concatenate([np.flatnonzero(mask), rng.integers(0, st.num_actions, 300)])
    for a in sample.tolist():
        if mask[a]:
            assert isinstance(action_paths(st, a), MovePaths)
        else:
            with pytest.raises(IllegalActionError):
                action_paths(st, a)


def test_drawing_is_deterministic_and_the_same_through_the_state():
    st = SmartrixState(4, seed=6, teams=True)
    st.apply(st.legal_actions()[1])
    assert st.to_svg(2) == to_svg(st, 2) == to_svg(st.clone(), np.int64(2))
    root = parse(st.to_svg(None))
    assert root.get("aria-label") == "Smartrix table" and root.get("class") == "board board-smartrix"
    assert texts(root)[0] == f"Turn 2: player 2 (team 2) to move; pile {st.pile_size}"
