"""Golden playthrough (OpenSpiel style): a seeded random Tantrix game's full text trace, checked in.

``tests/golden/tantrix_2p_seed0.txt`` holds, for every placement of one 2-player game through the
rules core (``TantrixState(2, rng=numpy.random.default_rng(0))``): the ply, the player to move and
the turn phase, the board as ``str(state)`` prints it (status line, tiles with their rotated edge
colours, forced spaces ``*``, hands and scores), the forced spaces, the legal moves in action order
and the move chosen by ``numpy.random.default_rng(1)`` from that list; then the final board,
scores, result and returns. Any change in the tile table, rotations, fitting, forced moves,
restrictions, turn order, scoring, notation or text output shows up as a diff.

To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m pytest tests/test_tantrix_golden.py``,
then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conftest import check_golden
from envs.tantrix import TantrixState
from envs.tantrix.records import replay

GOLDEN = Path(__file__).resolve().parent / "golden" / "tantrix_2p_seed0.txt"


def golden_trace() -> str:
    state = TantrixState(2, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    lines = [
        "# tantrix golden playthrough: TantrixState(2, rng=numpy.random.default_rng(0));",
        "# moves drawn with numpy.random.default_rng(1).integers(len(legal)) from the legal moves in action order.",
        f"bag {' '.join(map(str, state.initial_bag))}",
    ]
    ply = 0
    while not state.is_terminal():
        legal = state.legal_moves()
        move = legal[int(rng.integers(len(legal)))]
        lines.append(f"ply {ply}")
        lines.append(f"player {state.current_player} phase {state.phase}")
        lines.extend("| " + row for row in str(state).splitlines())
        lines.append("forced " + " ".join(f"{q},{r}" for q, r in state.forced_spaces()))
        lines.append(f"legal {len(legal)} {' '.join(legal)}")
        lines.append(f"move {move}")
        state.push(move)
        ply += 1
    lines.append("final")
    lines.extend("| " + row for row in str(state).splitlines())
    lines.append(f"moves {' '.join(state.moves())}")
    lines.append(f"scores {' '.join(map(str, state.scores()))}")
    lines.append(f"result {state.outcome()}")
    lines.append(f"returns {' '.join(f'{r:+.1f}' for r in state.returns())}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    check_golden(golden_trace(), GOLDEN)


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
    rec = {"format": "tantrix-record", "version": 1,
           "settings": {"num_players": 2, "teams": False, "colors": ["R", "Y"], "window_radius": 16},
           "bag": bag, "moves": moves, "result": None}
    assert replay(rec).position_key() == st.position_key()
