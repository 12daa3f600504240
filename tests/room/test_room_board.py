"""The board the room draws for a page (issue 26, item 1): one orientation for a holder of
several seats. The drawings' marks are tested per game in tests/envs/test_board_marks.py."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

import test_room_protocol as rp  # noqa: E402

from envs.twixt.state import TwixtState  # noqa: E402

room, _close_pages = rp.room, rp._close_pages  # the protocol tests' fixtures
connect, create, watch = rp.connect, rp.create, rp.watch


def _turned(svg: str) -> bool:
    return "turned for" in svg


def test_a_holder_of_both_twixt_seats_keeps_the_first_seats_orientation(room):
    client, _ = room
    p = connect(client)
    c = create(p, "twixt_v0", ["me", "me"], board_size=8)
    gid = c["game"]
    s0 = watch(p, gid, c["tokens"]["0"], c["tokens"]["1"])
    assert s0["you"] == [0, 1] and s0["viewer"] == 0 and not _turned(s0["svg"])
    p.send({"type": "move", "game": gid, "notation": "c3"})
    s1 = p.state(lambda f: f["ply"] == 1)
    # black (seat 1) is to move and is drawn for (viewer 1), from red's side of the table
    st = TwixtState(board_size=8)
    st.push("c3")
    assert s1["viewer"] == 1 and s1["legal"] and not _turned(s1["svg"])
    assert s1["svg"] == st.to_svg(1, perspective=0)
    assert _turned(st.to_svg(1))  # what a page holding seat 1 alone gets
    p.send({"type": "position", "game": gid, "ply": 1})
    pos = p.until(lambda f: f["type"] == "position")
    assert not _turned(pos["svg"])


def test_a_holder_of_the_black_seat_alone_sees_the_board_turned(room):
    client, _ = room
    a, b = connect(client), connect(client)
    c = create(a, "twixt_v0", ["me", "invite"], board_size=8)
    watch(a, c["game"], c["tokens"]["0"])
    sb = watch(b, c["game"], c["tokens"]["1"])
    assert sb["you"] == [1] and _turned(sb["svg"])


def test_perspective_is_checked_and_ignored_by_a_board_that_does_not_turn():
    from envs.ataxx.state import AtaxxState

    st = TwixtState(board_size=8)
    with pytest.raises(ValueError, match="perspective"):
        st.to_svg(0, perspective=2)
    assert st.board_ui().perspective and not AtaxxState().board_ui().perspective
    assert AtaxxState().to_svg(0, perspective=1) == AtaxxState().to_svg(0)
