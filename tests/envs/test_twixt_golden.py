"""Golden playthrough (OpenSpiel style): checks on the checked-in text trace of a seeded random TwixT game.

``tests/golden/twixt_8x8_seed0.txt`` holds, for every ply of one game through the rules core
(``TwixtState(8, rules="standard", swap=True, draw="early")``): the ply, the player to move, the
board as ``str(state)`` prints it (pegs, links, status line), whether each colour can still connect,
the legal moves in action order, and the move chosen by ``numpy.random.default_rng(0)`` from that
list; then the final board, the result and the returns. Any change in move generation, linking,
crossing, swap, win or draw detection, notation or text output shows up as a diff.

The trace is written by the one playthrough generator (tests/envs/playthrough.py, hook ``TwixtPlaythrough``)
and compared byte for byte in ``tests/envs/test_contract.py::test_golden_playthrough``; this file checks
the checked-in trace itself. To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m
pytest tests/envs/test_contract.py -k golden``, then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

from envs.twixt import TwixtState
from envs.twixt.records import parse_moves, replay

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "twixt_8x8_seed0.txt"
SETTINGS = dict(board_size=8, rules="standard", swap=True, draw="early")


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
