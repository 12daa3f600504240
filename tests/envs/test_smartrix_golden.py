"""Golden playthrough (OpenSpiel style): checks on the checked-in text trace of a seeded random Smartrix game.

``tests/golden/smartrix_3p_seed0.txt`` holds, for every action of one 3-player game through the
rules core (``SmartrixState(3, deck=...)`` with the deck shuffled by ``default_rng(0)``): the action
number, the player to move, the state as ``str(state)`` prints it (table picture, table list, every
hand, collected cards and points, pile, status), the legal moves in action order, and the move
chosen by ``numpy.random.default_rng(1)`` (a placement when there is one, with probability 0.9);
then the final state, the scores and the returns. Any change in the deck, matching, the 5x5 rule,
collection, the draw, dropping out, scoring, notation or text output shows up as a diff.

The trace is written by the one playthrough generator (tests/envs/playthrough.py, hook ``SmartrixPlaythrough``)
and compared byte for byte in ``tests/envs/test_contract.py::test_golden_playthrough``; this file checks
the checked-in trace itself. To regenerate after an intended change: ``REGENERATE_GOLDEN=1 python -m
pytest tests/envs/test_contract.py -k golden``, then review the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

from envs.smartrix.records import replay

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "smartrix_3p_seed0.txt"


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
