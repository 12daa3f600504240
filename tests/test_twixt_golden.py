"""Golden playthrough (OpenSpiel style): a seeded random TwixT game's full text trace, checked in.

``tests/golden/twixt_8x8_seed0.txt`` holds, for every ply of one game through the rules core
(``TwixtState(8, rules="standard", swap=True, draw="early")``): the ply, the player to move, the
board as ``str(state)`` prints it (pegs, links, status line), whether each colour can still connect,
the legal moves in action order, and the move chosen by ``numpy.random.default_rng(0)`` from that
list; then the final board, the result and the returns. Any change in move generation, linking,
crossing, swap, win or draw detection, notation or text output shows up as a diff.

To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m pytest tests/test_twixt_golden.py``,
then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import check_golden
from envs.twixt import TwixtState
from envs.twixt.records import parse_moves, replay

GOLDEN = Path(__file__).resolve().parent / "golden" / "twixt_8x8_seed0.txt"
SETTINGS = dict(board_size=8, rules="standard", swap=True, draw="early")


def golden_trace(seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    state = TwixtState(**SETTINGS)
    lines = [
        "# twixt golden playthrough: TwixtState(board_size=8, rules='standard', swap=True, draw='early');",
        f"# moves drawn with numpy.random.default_rng({seed}).integers(len(legal)) from the legal moves in action order.",
    ]
    while not state.is_terminal():
        legal = state.legal_moves()
        move = legal[int(rng.integers(len(legal)))]
        lines.append(f"ply {state.turn_number}")
        lines.append(f"player {state.current_player}")
        lines.extend("| " + row for row in str(state).splitlines())
        lines.append(f"connectable red {int(state.can_still_connect(0))} black {int(state.can_still_connect(1))}")
        lines.append(f"legal {len(legal)} {' '.join(legal)}")
        lines.append(f"move {move}")
        state.push(move)
    lines.append("final")
    lines.extend("| " + row for row in str(state).splitlines())
    lines.append(f"moves {' '.join(state.moves())}")
    lines.append(f"result {state.outcome()}")
    lines.append(f"returns {' '.join(f'{r:+.1f}' for r in state.returns())}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    check_golden(golden_trace(), GOLDEN)


def test_golden_file_is_consistent():
    """The checked-in trace replays: its moves are legal, its legal lists and result hold."""
    text = GOLDEN.read_text(encoding="utf-8")
    plies = [line for line in text.splitlines() if line.startswith("ply ")]
    moves = [line.split(" ", 1)[1] for line in text.splitlines() if line.startswith("move ")]
    assert len(plies) == len(moves) > 10
    assert [int(p.split()[1]) for p in plies] == list(range(len(plies)))
    final_moves = next(line for line in text.splitlines() if line.startswith("moves ")).split()[1:]
    assert final_moves == moves
    state = replay(parse_moves(" ".join(moves), **SETTINGS))
    result = next(line for line in text.splitlines() if line.startswith("result ")).split()[1]
    assert state.is_terminal() and str(state.outcome()) == result
    legal_lines = [line.split()[2:] for line in text.splitlines() if line.startswith("legal ")]
    st = TwixtState(**SETTINGS)
    for legal, move in zip(legal_lines, moves):
        assert st.legal_moves() == legal and move in legal
        st.push(move)
