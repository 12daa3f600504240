"""Golden playthrough (OpenSpiel style): a seeded random Ataxx game's full text trace, checked in.

``tests/golden/ataxx_v0_seed0.txt`` holds, for every ply of one game through the rules core
(:class:`envs.ataxx.AtaxxState`, standard start, clock on), the ply number, the FEN, the sorted legal
move list and the move chosen by ``numpy.random.default_rng(0)`` from that list; then the result
and the returns. Any change in move generation, move application, FEN writing, the end-of-game
rules or notation shows up as a diff.

To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m pytest tests/test_ataxx_golden.py``,
then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import check_golden
from envs.ataxx import AtaxxState

GOLDEN = Path(__file__).resolve().parent / "golden" / "ataxx_v0_seed0.txt"
SEED = 0


def golden_trace(seed: int = SEED, fen: str = "startpos") -> str:
    """The text trace of one random game, choosing with ``default_rng(seed)`` from the sorted legal moves."""
    rng = np.random.default_rng(seed)
    state = AtaxxState(fen)
    lines = [
        "# ataxx_v0 golden playthrough: AtaxxState(startpos), halfmove clock on;",
        f"# moves drawn with numpy.random.default_rng({seed}).integers(len(legal)) from the sorted legal move list.",
    ]
    ply = 0
    while not state.is_terminal():
        legal = sorted(state.legal_moves())
        move = legal[int(rng.integers(len(legal)))]
        lines.append(f"ply {ply}")
        lines.append(f"fen {state.fen()}")
        lines.append(f"legal {len(legal)} {' '.join(legal)}")
        lines.append(f"move {move}")
        state.push(move)
        ply += 1
    nx, no = state.stone_counts()
    lines.append(f"final fen {state.fen()}")
    lines.append(f"final stones x {nx} o {no}")
    lines.append(f"result {state.outcome()}")
    lines.append(f"returns {' '.join(f'{r:+.1f}' for r in state.returns())}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    check_golden(golden_trace(), GOLDEN)


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
