"""Golden playthrough (OpenSpiel style): checks on the checked-in text trace of a seeded random Tantrix game.

``tests/golden/tantrix_2p_seed0.txt`` holds, for every placement of one 2-player game through the
rules core (``TantrixState(2, rng=numpy.random.default_rng(0))``): the ply, the player to move and
the turn phase, the board as ``str(state)`` prints it (status line, tiles with their rotated edge
colours, forced spaces ``*``, hands and scores), the forced spaces, the legal moves in action order
and the move chosen by ``numpy.random.default_rng(1)`` from that list; then the final board,
scores, result and returns. Any change in the tile table, rotations, fitting, forced moves,
restrictions, turn order, scoring, notation or text output shows up as a diff.

The trace is written by the one playthrough generator (tests/envs/playthrough.py, hook ``TantrixPlaythrough``)
and compared byte for byte in ``tests/envs/test_contract.py::test_golden_playthrough``; this file checks
the checked-in trace itself. To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m
pytest tests/envs/test_contract.py -k golden``, then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

from envs.tantrix import TantrixState
from envs.tantrix.records import replay

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "tantrix_2p_seed0.txt"


def test_golden_file_is_consistent():
    """The checked-in trace replays from its bag and moves alone, with the same legal lists."""
    text = GOLDEN.read_text(encoding="utf-8").splitlines()
    bag = [int(x) for x in next(line for line in text if line.startswith("bag ")).split()[1:]]
    moves = [line.split(" ", 1)[1] for line in text if line.startswith("move ")]
    legal_lines = [line.split()[2:] for line in text if line.startswith("legal ")]
    assert len(moves) == len(legal_lines) >= 50
    st = TantrixState(2, bag=bag)
    for legal, move in zip(legal_lines, moves):
        assert st.legal_moves() == legal and move in legal
        st.push(move)
    result = next(line for line in text if line.startswith("result ")).split(" ", 1)[1]
    assert st.is_terminal() and str(st.outcome()) == result
    rec = {
        "format": "tantrix-record",
        "version": 1,
        "settings": {"num_players": 2, "teams": False, "colors": ["R", "Y"], "window_radius": 16},
        "bag": bag,
        "moves": moves,
        "result": None,
    }
    assert replay(rec).position_key() == st.position_key()
