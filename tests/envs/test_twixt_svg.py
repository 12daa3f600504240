"""TwixT's board drawing and clicks (envs/twixt/svg.py) on known positions, and the upload import of
Little Golem ``.tsgf`` and T1 files (envs/twixt/records.py, ``envs.core.records.import_record``).

The generic checks (clean SVG, every legal action clickable, determinism) are in
tests/envs/test_svg_contract.py; here: the exact keys, paths, coordinates, labels and highlights.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from conftest import play_random
from envs.core.records import import_formats, import_record
from envs.core.records import replay as replay_common
from envs.core.state import InvalidPositionError
from envs.core.svg import MovePaths, hit
from envs.twixt import TwixtState, hole_name
from envs.twixt import svg as tsvg
from envs.twixt.records import TwixtRecord, format_t1, format_tsgf, record_from_state
from envs.twixt.render import _peg_owners as _replay_owners

SVG = "{http://www.w3.org/2000/svg}"


def _root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _hits(root) -> dict[str, ET.Element]:
    return {el.get("data-key"): el for el in root.iter() if el.get("data-key") is not None}


def _cls(el) -> set[str]:
    return set((el.get("class") or "").split())


def _with_class(root, *names) -> list[ET.Element]:
    return [el for el in root.iter() if set(names) <= _cls(el)]


def _paths(st) -> dict[str, MovePaths]:
    ui = st.board_ui()
    return {st.action_to_string(a): ui.action_paths(st, a) for a in st.legal_actions()}


def _centre(st, hole: str, viewer=None) -> tuple[float, float]:
    """The centre of a hole's hit square in the drawing of ``viewer``."""
    rect = _hits(_root(st.to_svg(viewer)))[hole]
    cell = float(rect.get("width"))
    return float(rect.get("x")) + cell / 2, float(rect.get("y")) + cell / 2


# ---------------------------------------------------------------------------------- layout
def test_board_module_is_declared_and_sizes_fit_the_page():
    st = TwixtState(8)
    ui = st.board_ui()
    assert ui.module == "envs.twixt.svg" and ui.confirm is False
    assert [tsvg.cell_size(s) for s in (5, 8, 12, 24, 48)] == [60, 60, 46, 24, 20]
    for size, width in ((8, 540), (24, 600), (12, 598)):
        root = _root(TwixtState(size).to_svg())
        assert root.get("viewBox").split()[:3] == ["0", "0", str(width)]
        assert float(root.get("viewBox").split()[3]) > width  # the caption under the square board


def test_every_hole_but_the_corners_is_a_hit_square_with_its_name_and_content():
    st = TwixtState.from_moves("c3 e4 d5", board_size=8)
    hits = _hits(_root(st.to_svg()))
    corners = {"a1", "h1", "a8", "h8"}
    assert set(hits) == {hole_name(r, c) for r in range(8) for c in range(8)} - corners
    assert all(_cls(el) == {"hit"} and el.get("fill-opacity") == "0" for el in hits.values())
    # spectator: row 1 at the top, column a on the left; cell 60, margin 60
    assert (hits["c3"].get("x"), hits["c3"].get("y"), hits["c3"].get("width")) == ("150", "150", "60")
    assert hits["c3"].get("aria-label") == "c3, red peg"
    assert hits["e4"].get("aria-label") == "e4, black peg"
    assert hits["d5"].get("aria-label") == "d5, red peg, last move"
    assert hits["a2"].get("aria-label") == "a2, black border, empty"
    assert hits["b8"].get("aria-label") == "b8, red border, empty"


def test_border_lines_links_and_the_last_peg_ring():
    st = TwixtState.from_moves("c3 e4 d5", board_size=8)
    root = _root(st.to_svg())
    borders = {
        (el.get("class"), el.get("x1"), el.get("y1"), el.get("x2"), el.get("y2")) for el in _with_class(root, "border")
    }
    # half-way between the border rows (y 60, 480) and the next rows (120, 420); spectator: red top/bottom
    assert borders == {
        ("border red", "90", "90", "450", "90"),
        ("border red", "90", "450", "450", "450"),
        ("border black", "90", "90", "90", "450"),
        ("border black", "450", "90", "450", "450"),
    }
    (link,) = _with_class(root, "link")
    assert _cls(link) == {"link", "red"}
    assert (link.get("x1"), link.get("y1"), link.get("x2"), link.get("y2")) == ("180", "180", "240", "300")  # c3-d5
    (ring,) = _with_class(root, "last")
    assert ring.tag == f"{SVG}circle" and (ring.get("cx"), ring.get("cy")) == ("240", "300")  # d5
    assert ring.get("stroke") == "#f0be14" and ring.get("fill") == "none"  # the Pillow picture's yellow
    pegs = _with_class(root, "peg")
    assert sorted((el.get("cx"), el.get("cy"), el.get("fill")) for el in pegs) == [
        ("180", "180", "#cd2828"),
        ("240", "300", "#cd2828"),
        ("300", "240", "#191919"),
    ]


def test_black_sees_the_board_turned_with_its_borders_at_top_and_bottom():
    st = TwixtState.from_moves("c3 e4 d5", board_size=8)
    spectator, red, black = st.to_svg(None), st.to_svg(0), st.to_svg(1)
    assert red == spectator and black != spectator
    root = _root(black)
    assert "seen by black" in root.get("aria-label")
    # a quarter turn counter-clockwise: hole (row r, col c) is drawn at display row 7 - c, display column r
    assert _centre(st, "c3", 1) == (60 + 2 * 60, 60 + 5 * 60)
    assert _centre(st, "a2", 1) == (120, 480)  # black's column a along the bottom
    assert _centre(st, "h5", 1) == (300, 60)  # the last column along the top
    borders = {el.get("class"): [] for el in _with_class(root, "border")}
    for el in _with_class(root, "border"):
        borders[el.get("class")].append(el.get("y1") == el.get("y2"))  # horizontal?
    assert borders == {"border black": [True, True], "border red": [False, False]}
    (link,) = _with_class(root, "link")  # c3-d5 drawn between the turned holes
    assert (link.get("x1"), link.get("y1"), link.get("x2"), link.get("y2")) == ("180", "360", "300", "300")
    labels = [el for el in root.iter(f"{SVG}text") if el.get("y") == "30"]  # the top edge's labels
    assert [el.text for el in labels] == [str(i) for i in range(1, 9)]  # row numbers, left to right
    left = sorted((float(el.get("y")), el.text) for el in root.iter(f"{SVG}text") if el.get("x") == "30")
    assert [t for _, t in left] == list("hgfedcba")  # column letters, a at the bottom
    caption = " ".join(el.text for el in _with_class(root, "caption")[0])
    assert caption.endswith("board turned for black: black connects top to bottom")
    # Double TwixT: both black seats see it turned, both red seats as the spectator
    d = TwixtState.from_moves("c3 e4", board_size=8, num_players=4)
    assert d.to_svg(0) == d.to_svg(2) == d.to_svg(None)
    assert _centre(d, "c3", 1) == _centre(d, "c3", 3) == (180, 360) and _centre(d, "c3", 0) == (180, 180)
    assert "board turned for black A:" in d.to_svg(1) and "board turned for black B:" in d.to_svg(3)


def test_hit_squares_are_written_as_the_core_helper_writes_them():
    st = TwixtState.from_moves("c3 e4", board_size=8)
    svg = st.to_svg()
    assert hit("rect", "c3", "c3, red peg", x=150, y=150, width=60, height=60) in svg
    assert hit("rect", "a2", "a2, black border, empty", x=30, y=90, width=60, height=60) in svg


@pytest.mark.parametrize("links", ["auto", "manual"])
def test_seat_letters_match_a_replay_of_the_history(links):
    """The drawing finds each peg's seat from the history alone; the Pillow picture replays the
    game: both agree on random Double TwixT games (Privilege claims included)."""
    for seed in range(4):
        st = play_random(TwixtState(8, num_players=4, links=links), seed=seed, moves=60)
        owners = {r * 8 + c: pl for (r, c), pl in _replay_owners(st).items()}
        assert tsvg._peg_owners(st) == owners and len(owners) == int((st.pegs() > 0).sum())
        root = _root(st.to_svg())
        letters = sorted(el.text for el in _with_class(root, "seat"))
        assert letters == sorted("AABB"[pl] for pl in owners.values())


# ---------------------------------------------------------------------------------- clicks
def test_start_paths_are_the_legal_holes_one_click_each():
    st = TwixtState(8)
    paths = _paths(st)
    # red may place anywhere but the corners and black's columns a and h: 6 columns x 8 rows
    assert set(paths) == {hole_name(r, c) for r in range(8) for c in range(1, 7)} and len(paths) == 48
    assert all(mp == MovePaths(((name,),), "place") for name, mp in paths.items())
    hits = _hits(_root(st.to_svg(0)))
    assert {mp.paths[0][0] for mp in paths.values()} <= set(hits)


def test_swap_is_a_button_and_moves_the_first_peg_to_the_transposed_hole():
    st = TwixtState.from_moves("b4", board_size=8, swap=True)
    paths = _paths(st)
    assert paths["swap"] == MovePaths((("swap",),), "swap")
    assert "swap" not in _hits(_root(st.to_svg(1)))  # a key no hole carries: the page shows a button
    assert tsvg.status(st, 1) == "swap available"
    pending = _root(st.to_svg(1, pending=st.string_to_action("swap")))
    (new,) = _with_class(pending, "peg", "pending")
    assert new.get("fill") == "#191919" and _hits(pending)["d2"].get("aria-label") == "d2, black peg, pending"
    assert "b4" not in {k for k, el in _hits(pending).items() if "peg" in el.get("aria-label")}
    st.push("swap")
    root = _root(st.to_svg())
    (ring,) = _with_class(root, "last")
    assert (ring.get("cx"), ring.get("cy")) == _centre_text(st, "d2")
    assert "swap" not in _paths(st) and tsvg.status(st, 0) == ""


def _centre_text(st, hole):
    x, y = _centre(st, hole)
    return (f"{x:g}", f"{y:g}")


def test_double_twixt_privilege_is_a_button_before_the_hole_and_seats_are_lettered():
    st = TwixtState.from_moves("c3 b4 e4", board_size=8, num_players=4)  # seats 0, 1, 2 played
    paths = _paths(st)
    assert paths["d2"] == MovePaths((("d2",),), "place")
    assert paths["d2!"] == MovePaths((("claim Privilege", "d2"),), "privilege")
    assert len(paths) == 2 * (48 - 3)  # black's empty holes (rows 2-7), with and without the claim
    assert tsvg.status(st, 3) == "Privilege unclaimed: red, black"
    root = _root(st.to_svg())
    seats = sorted((el.text, el.get("x"), el.get("y")) for el in _with_class(root, "seat"))
    assert seats == [("A", "120", "240"), ("A", "180", "180"), ("B", "300", "240")]  # b4 black A, c3 red A, e4 red B
    assert _hits(root)["e4"].get("aria-label") == "e4, red peg, seat B, last move"
    assert "last peg: e4, player 3 (red B)" in st.to_svg()
    st.push("d2!")  # black B claims: red A is skipped, black A moves next
    assert st.current_player == 1
    paths = _paths(st)
    assert not any(name.endswith("!") for name in paths) and tsvg.status(st, 1) == "Privilege unclaimed: red"
    assert "last peg: d2, player 4 (black B)" in st.to_svg()


def test_manual_links_are_two_peg_clicks_and_end_is_a_button():
    st = TwixtState.from_moves("c3 end b7 end d5 end g7 end f2", board_size=8, links="manual")
    assert _paths(st) == {
        "+c3d5": MovePaths((("c3", "d5"), ("d5", "c3")), "add-link"),
        "end": MovePaths((("end turn",),), "end"),
    }
    assert tsvg.status(st, 0) == "peg placed on f2: add links or end the turn"
    (ring,) = _with_class(_root(st.to_svg()), "last")
    assert (ring.get("cx"), ring.get("cy")) == _centre_text(st, "f2")
    pend = _root(st.to_svg(0, pending=st.string_to_action("+c3d5")))
    (link,) = _with_class(pend, "link", "pending")
    assert (link.get("x1"), link.get("y1"), link.get("x2"), link.get("y2")) == ("180", "180", "240", "300")
    st.push("+c3d5")
    root = _root(st.to_svg())
    band = [el for el in _with_class(root, "last") if el.tag == f"{SVG}line"]
    assert [(el.get("x1"), el.get("y1"), el.get("x2"), el.get("y2")) for el in band] == [("180", "180", "240", "300")]
    st.push("end")
    st.push("b2")  # black places; then ends, and red may remove its link before placing
    st.push("end")
    assert tsvg.status(st, 0) == "before the placement: remove own links or place a peg"
    paths = _paths(st)
    assert paths["-c3d5"] == MovePaths((("c3", "d5"), ("d5", "c3")), "remove-link")
    assert paths["e5"] == MovePaths((("e5",),), "place")
    first = {p[0] for mp in paths.values() for p in mp.paths}
    assert "c3" in first and "d5" in first and "f2" not in first  # f2 has no link to remove
    st.push("-c3d5")
    (gone,) = [el for el in _with_class(_root(st.to_svg()), "last") if el.tag == f"{SVG}line"]
    assert _cls(gone) == {"last", "removed"} and gone.get("stroke-dasharray")
    d = TwixtState.from_moves("c3", board_size=8, num_players=4, links="manual")
    assert _paths(d) == {
        "end": MovePaths((("end turn",),), "end"),
        "end!": MovePaths((("end turn, claim Privilege",),), "privilege"),
    }


def test_pending_draws_the_move_and_bad_arguments_are_refused():
    st = TwixtState.from_moves("c3 e4", board_size=8)
    a = st.string_to_action("d5")
    root = _root(st.to_svg(0, pending=a))
    (peg,) = _with_class(root, "peg", "pending")
    assert (peg.get("cx"), peg.get("cy")) == ("240", "300")
    (link,) = _with_class(root, "link", "pending")  # the link d5 would make
    assert _cls(link) == {"link", "red", "pending"}
    assert "pending: d5 (not played yet)" in st.to_svg(0, pending=a)
    assert st.moves() == ["c3", "e4"]  # the state is unchanged
    with pytest.raises(ValueError, match="not legal"):
        tsvg.to_svg(st, 0, pending=st.string_to_action("c3"))  # occupied
    with pytest.raises(ValueError, match="viewer"):
        tsvg.to_svg(st, 2)
    with pytest.raises(ValueError, match="not legal"):
        tsvg.action_paths(st, st.string_to_action("a4"))  # black's border column
    with pytest.raises(ValueError, match="out of range"):
        tsvg.action_paths(st, st.num_actions)
    with pytest.raises(ValueError, match="viewer"):
        tsvg.status(st, -1)


def test_finished_game_has_no_paths_and_shows_the_result():
    st = TwixtState.from_moves("b1 a2 c3 a3 b5 a4 c7 a5 e8", board_size=8, draw="board_full")
    assert st.is_terminal() and st.legal_actions() == []
    assert tsvg.status(st, None) == "" and "red won" in st.to_svg()
    with pytest.raises(ValueError, match="game is over"):
        tsvg.action_paths(st, 0)


# ---------------------------------------------------------------------------------- uploads
def test_tsgf_and_t1_uploads_import_as_common_records(data_dir):
    formats = import_formats()
    assert formats[".tsgf"] == "Little Golem TSGF (TwixT)" and formats[".t1"] == "T1j (TwixT)"
    text = (data_dir / "twixt" / "lg_game2220939.tsgf").read_bytes()
    rec = import_record("lg_game2220939.tsgf", text)
    assert rec["env_id"] == "twixt_v0"
    assert rec["env_kwargs"] == {"board_size": 24, "rules": "pp", "swap": True, "draw": "board_full"}
    assert rec["moves"][:3] == ["c4", "f7", "o8"] and len(rec["moves"]) == 21 and rec["result"] is None
    assert rec["meta"] == {
        "imported_from": "Little Golem TSGF",
        "event": "null",
        "source": "https://www.littlegolem.net",
        "resigned": 1,
        "declared_result": "1-0",
    }
    st = replay_common(rec)
    assert st.peg_at(3, 2) == 1 and st.peg_at(6, 5) == 2 and st.current_player == 1  # c4 red, f7 black
    t1 = import_record("sample.T1", (data_dir / "twixt" / "sample.T1").read_text())  # upper-case suffix
    assert t1["env_kwargs"] == {"board_size": 24, "swap": True, "draw": "board_full"}
    assert t1["moves"] == ["e15", "swap", "f17", "h18", "p12"] and t1["meta"]["resigned"] == 1
    st = replay_common(t1)
    assert st.peg_at(4, 14) == 2 and st.peg_at(14, 4) == 0  # e15 swapped to a black peg on o5
    other = import_record("g.tsgf", (data_dir / "twixt" / "lg_game2206555.tsgf").read_text())
    assert other["meta"]["event"] == "twixt.DEFAULT.mc.2020.dec.1.2" and len(other["moves"]) == 17


def test_a_finished_game_imports_with_its_result_and_bad_files_are_refused():
    st = TwixtState.from_moves("b1 a2 c3 a3 b5 a4 c7 a5 e8", board_size=8, draw="board_full")
    trec = record_from_state(st)
    rec = import_record("won.t1", format_t1(trec))
    assert rec["env_kwargs"] == {"board_size": 8, "draw": "board_full"}
    assert rec["result"]["result"] == "1-0" and rec["result"]["winners"] == [0]
    assert replay_common(rec) == st
    trec.rules = "pp"
    trec.swap = True
    pp = import_record("won.tsgf", format_tsgf(trec))
    assert pp["env_kwargs"]["rules"] == "pp" and pp["result"]["result"] == "1-0"
    with pytest.raises(InvalidPositionError, match="not a tsgf game"):
        import_record("x.tsgf", "hello")
    bad = format_tsgf(TwixtRecord(moves=["c3", "c3"], board_size=8, rules="pp", swap=True))
    with pytest.raises(InvalidPositionError, match=r"move 2 \('c3'\)"):
        import_record("x.tsgf", bad)


def _caption(svg: str) -> str:
    return " ".join(el.text for el in _with_class(ET.fromstring(svg), "caption")[0])


def test_the_caption_numbers_seats_from_1_and_counts_moves():
    """People read seats from 1 (the room's "player 3 (red B)") and moves, not plies; the rules'
    status line (records, the text board) keeps the API's seat numbers."""
    st = TwixtState.from_moves("c3 b4", board_size=8)
    assert _caption(st.to_svg()) == "move 3: player 1 (red) to move"
    assert st.status_line() == "ply 2: red (player 0) to move"  # the API's text, unchanged
    assert ET.fromstring(st.to_svg()).get("aria-label").endswith(". move 3: player 1 (red) to move")
    d = TwixtState.from_moves("c3 b4 e4", board_size=8, num_players=4)
    text = _caption(d.to_svg())
    assert text.startswith("move 4: player 4 (black B) to move") and "last peg: e4, player 3 (red B)" in text
    assert "ply" not in text and "(player 2)" not in text
    st.resign(0)
    assert _caption(st.to_svg()) == "game over after 2 moves: black won (red resigned)"
    one = TwixtState.from_moves("c3", board_size=8)
    one.resign(1)
    assert _caption(one.to_svg()) == "game over after 1 move: red won (black resigned)"
