"""Golden playthrough (OpenSpiel style): a seeded random Smartrix game's full text trace, checked in.

``tests/golden/smartrix_3p_seed0.txt`` holds, for every action of one 3-player game through the
rules core (``SmartrixState(3, deck=...)`` with the deck shuffled by ``default_rng(0)``): the action
number, the player to move, the state as ``str(state)`` prints it (table picture, table list, every
hand, collected cards and points, pile, status), the legal moves in action order, and the move
chosen by ``numpy.random.default_rng(1)`` (a placement when there is one, with probability 0.9);
then the final state, the scores and the returns. Any change in the deck, matching, the 5x5 rule,
collection, the draw, dropping out, scoring, notation or text output shows up as a diff.

To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m pytest tests/test_smartrix_golden.py``,
then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conftest import check_golden
from envs.smartrix import SmartrixState
from envs.smartrix.records import replay

GOLDEN = Path(__file__).resolve().parent / "golden" / "smartrix_3p_seed0.txt"


def golden_trace() -> str:
    state = SmartrixState(3, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    lines = [
        "# smartrix golden playthrough: SmartrixState(3, rng=numpy.random.default_rng(0));",
        "# moves: a uniform legal placement with probability 0.9 (numpy.random.default_rng(1)), else pass.",
        "deck " + " ".join(map(str, state.start["deck"])),
    ]
    while not state.is_terminal():
        placements = state.legal_placements()
        if placements and rng.random() < 0.9:
            action = placements[int(rng.integers(len(placements)))]
        else:
            action = state.pass_action
        move = state.action_to_string(action)
        lines.append(f"action {state.turn_number}")
        lines.append(f"player {state.current_player}")
        lines.extend("| " + row for row in str(state).splitlines())
        lines.append(f"legal {len(placements)} {' '.join(state.action_to_string(a) for a in placements)} pass")
        lines.append(f"move {move}")
        state.apply(action)
    lines.append("final")
    lines.extend("| " + row for row in str(state).splitlines())
    lines.append(f"moves {' '.join(state.moves())}")
    lines.append(f"scores {' '.join(map(str, state.scores()))}")
    lines.append(f"returns {' '.join(f'{r:+.1f}' for r in state.returns())}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    check_golden(golden_trace(), GOLDEN)


def test_golden_file_replays():
    """The checked-in trace replays from its deck and moves to the same final scores."""
    text = GOLDEN.read_text(encoding="utf-8").splitlines()
    deck = [int(x) for x in next(line for line in text if line.startswith("deck ")).split()[1:]]
    moves = next(line for line in text if line.startswith("moves ")).split()[1:]
    assert moves == [line.split()[1] for line in text if line.startswith("move ")] and len(moves) > 30
    rec = {"game": "smartrix", "version": 1, "settings": {"num_players": 3}, "start": {"deck": deck}, "moves": moves}
    state = replay(rec)
    assert state.is_terminal()
    scores = [int(x) for x in next(line for line in text if line.startswith("scores ")).split()[1:]]
    assert state.scores() == scores
