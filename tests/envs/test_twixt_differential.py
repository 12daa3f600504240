"""Differential tests: the TwixT rules core against OpenSpiel's ``twixt``, ply by ply, random games.

OpenSpiel (PyPI ``open_spiel``, game ``twixt``, parameter ``board_size`` 5..24) is an independent
C++ implementation of the standard rules with automatic linking. What we established by reading its
source and parameters (``twixtboard.h``):

* its action is ``x * S + y`` with ``x`` the column (``a`` = 0) and ``y`` the row counted *from the
  bottom* (``y = 0`` is row ``S``); our action is ``row * S + col`` with row 0 = row ``1`` at the
  top, so ``openspiel = col * S + (S - 1 - row)``;
* its player 0 (``x``, red) moves first and owns the top and bottom rows (connects top to bottom),
  player 1 (``o``) owns the left and right columns: the same as our red and black;
* its draw rule is "the player to move has no legal hole" (our ``draw="board_full"``); it has no
  Privilege and its own swap (placing on the first peg's hole, which is then *rotated*), so these
  games use ``swap=False`` and never play OpenSpiel's swap action. At ply 1 OpenSpiel lists the
  first peg's hole among black's legal actions (that is its swap); it is removed before comparing.

At every ply: the legal action sets are identical, the player to move is the same, and the terminal
flags agree; at the end the returns are identical.

OpenSpiel keeps a process-wide table per board size (one board size per process), so each size
runs in its own subprocess: this file doubles as the helper script
(``python tests/envs/test_twixt_differential.py SIZE GAMES SEED`` prints one JSON line).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HAVE_OPENSPIEL = importlib.util.find_spec("pyspiel") is not None
needs_openspiel = pytest.mark.skipif(not HAVE_OPENSPIEL, reason="open_spiel (pyspiel) is not installed")


def run_size(size: int, games: int, seed: int) -> dict:
    """Play ``games`` random games on a ``size`` board in both engines (call in a fresh process)."""
    import random

    import pyspiel

    from envs.twixt import TwixtState

    game = pyspiel.load_game("twixt", {"board_size": size, "ansi_color_output": False})
    assert game.num_distinct_actions() == size * size

    def to_os(a: int) -> int:
        r, c = divmod(a, size)
        return c * size + (size - 1 - r)

    rng = random.Random(seed)
    results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
    plies = 0
    mismatches = []
    for gi in range(games):
        ours = TwixtState(size, rules="standard", swap=False, draw="board_full")
        theirs = game.new_initial_state()
        first = None
        while True:
            if ours.is_terminal() != theirs.is_terminal():
                mismatches.append((gi, ours.moves(), "terminal", ours.is_terminal(), theirs.is_terminal()))
                break
            if ours.is_terminal():
                break
            if ours.current_player != theirs.current_player():
                mismatches.append((gi, ours.moves(), "player", ours.current_player, theirs.current_player()))
                break
            legal = ours.legal_actions()
            os_legal = set(theirs.legal_actions())
            if theirs.move_number() == 1:
                os_legal.discard(first)  # OpenSpiel's swap
            mine = {to_os(a) for a in legal}
            if mine != os_legal:
                mismatches.append((gi, ours.moves(), "legal", sorted(mine - os_legal), sorted(os_legal - mine)))
                break
            a = legal[rng.randrange(len(legal))]
            if first is None:
                first = to_os(a)
            ours.apply(a)
            theirs.apply_action(to_os(a))
            plies += 1
        if ours.is_terminal() and theirs.is_terminal():
            if list(ours.returns()) != list(theirs.returns()):
                mismatches.append((gi, ours.moves(), "returns", list(ours.returns()), list(theirs.returns())))
            results[str(ours.outcome())] += 1
    return {
        "size": size,
        "games": games,
        "plies": plies,
        "results": results,
        "mismatches": mismatches[:3],
        "num_mismatches": len(mismatches),
    }


def _run_subprocess(size: int, games: int, seed: int) -> dict:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), str(size), str(games), str(seed)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _check(out: dict, size: int, games: int):
    assert out["size"] == size and out["games"] == games
    assert out["num_mismatches"] == 0, out["mismatches"]
    assert sum(out["results"].values()) == games
    # Random games end in every way on these boards: wins for both sides (draws are rare on small ones).
    assert out["results"]["1-0"] > 0 and out["results"]["0-1"] > 0
    assert out["plies"] > games * 10


@needs_openspiel
@pytest.mark.parametrize("size,games", [(8, 300), (12, 300), (24, 60)])
def test_against_openspiel(size, games):
    out = _run_subprocess(size, games, seed=size)
    _check(out, size, games)
    if size >= 12:
        assert out["results"]["1/2-1/2"] > 0  # board-full draws happen on bigger boards


@needs_openspiel
@pytest.mark.slow
@pytest.mark.parametrize("size,games", [(8, 1000), (12, 600), (24, 300), (5, 500), (6, 500)])
def test_against_openspiel_full(size, games):
    out = _run_subprocess(size, games, seed=1000 + size)
    _check(out, size, games)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    size_, games_, seed_ = (int(x) for x in sys.argv[1:4])
    print(json.dumps(run_size(size_, games_, seed_)))
