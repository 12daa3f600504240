"""Golden playthrough (OpenSpiel style): checks on the checked-in text trace of a seeded random Ataxx game.

``tests/golden/ataxx_v0_seed0.txt`` holds, for every ply of one game through the rules core
(:class:`envs.ataxx.AtaxxState`, standard start, clock on), the ply number, the FEN, the sorted legal
move list and the move chosen by ``numpy.random.default_rng(0)`` from that list; then the result
and the returns. Any change in move generation, move application, FEN writing, the end-of-game
rules or notation shows up as a diff.

The trace is written by the one playthrough generator (tests/envs/playthrough.py, hook ``AtaxxPlaythrough``)
and compared byte for byte in ``tests/envs/test_contract.py::test_golden_playthrough``; this file checks
the checked-in trace itself. To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m
pytest tests/envs/test_contract.py -k golden``, then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "ataxx_v0_seed0.txt"
SEED = 0


def _parse_golden():
    plies, final = [], {}
    cur = {}
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        if key == "ply":
            cur = {"ply": int(value)}
            plies.append(cur)
        elif key == "fen":
            cur["fen"] = value
        elif key == "legal":
            count, _, moves = value.partition(" ")
            cur["legal"] = moves.split()
            assert len(cur["legal"]) == int(count)
        elif key == "move":
            cur["move"] = value
        elif key == "final":
            sub, _, rest = value.partition(" ")
            final[sub] = rest
        else:
            final[key] = value
    return plies, final


def test_golden_file_agrees_with_python_ataxx():
    """Replay the checked-in trace in python-ataxx: every FEN, legal list and the result must agree."""
    ataxx = pytest.importorskip("ataxx")
    plies, final = _parse_golden()
    assert len(plies) > 20
    assert [p["ply"] for p in plies] == list(range(len(plies)))
    board = ataxx.Board()
    for p in plies:
        assert board.get_fen() == p["fen"], f"ply {p['ply']}"
        assert sorted(str(m) for m in board.legal_moves()) == p["legal"], f"ply {p['ply']}"
        assert p["move"] in p["legal"]
        board.makemove(ataxx.Move.from_san(p["move"]))
    assert board.get_fen() == final["fen"]
    assert board.gameover() and board.result() == final["result"]
    expected_returns = {"1-0": "+1.0 -1.0", "0-1": "-1.0 +1.0", "1/2-1/2": "+0.0 +0.0"}[final["result"]]
    assert final["returns"] == expected_returns
