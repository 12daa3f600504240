"""One golden-playthrough generator for every registered environment, with per-game hooks.

Modelled on OpenSpiel's ``generate_playthrough``: a seeded random game is played through the
rules state of a registered environment (``envs.make_raw(env_id, **kwargs)``, reset with
``seed``), and every ply is written out as text: a label, the position, the legal moves and the
move chosen; then the end of the game. The text is checked in under ``tests/golden/`` and compared
byte for byte by ``tests/envs/test_contract.py::test_golden_playthrough``, so any change in move
generation, move application, notation, text output or the end-of-game rules shows up as a diff.

:class:`Playthrough` holds the generic format; a game changes only what its trace shows beyond
it (Ataxx: the FEN instead of the board; TwixT: whether each colour can still connect; Tantrix:
the bag, the turn phase and the forced spaces; Smartrix: the deck and its pass-sometimes policy).
A game without an entry in :data:`PLAYTHROUGHS` gets the generic one, written to
``golden/<env_id>_seed0.txt``.

Regenerate after an intended change with ``REGENERATE_GOLDEN=1 python -m pytest tests/envs/test_contract.py
-k golden`` and review the diff before committing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import envs

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"


def _returns_line(state) -> str:
    return f"returns {' '.join(f'{r:+.1f}' for r in state.returns())}"


@dataclass
class Playthrough:
    """The generic playthrough of ``env_id`` and the hooks a game overrides.

    Attributes:
        env_id: a registered environment id.
        kwargs: the environment's keyword arguments.
        seed: the ``reset`` seed (deals bags and decks).
        move_seed: seed of the ``numpy.random.default_rng`` that picks the moves.
        file: the golden file's name in ``tests/golden/`` (default ``<env_id>_seed<seed>.txt``).
        ply_word: the word that labels each ply.
        final_fields: what the end shows, in order: any of ``"board"``, ``"moves"``, ``"scores"``
            (skipped for a game without scores), ``"result"``, ``"returns"``.
    """

    env_id: str
    kwargs: dict = field(default_factory=dict)
    seed: int = 0
    move_seed: int = 0
    file: str = ""
    ply_word: str = "ply"
    final_fields: tuple[str, ...] = ("board", "moves", "scores", "result", "returns")

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / (self.file or f"{self.env_id}_seed{self.seed}.txt")

    # ---------------------------------------------------------------- hooks
    def initial_state(self):
        env = envs.make_raw(self.env_id, **self.kwargs)
        env.reset(seed=self.seed)
        return env.state

    def header(self, state) -> list[str]:
        return [
            f"# {self.env_id} golden playthrough: "
            f"envs.make_raw({self.env_id!r}, **{self.kwargs!r}).reset(seed={self.seed});",
            f"# moves drawn with numpy.random.default_rng({self.move_seed}).integers(len(legal)) from the legal moves "
            "in action order.",
        ]

    def preamble(self, state) -> list[str]:
        """Lines after the header: what chance dealt (a bag, a deck)."""
        return []

    def legal(self, state) -> list[str]:
        """The legal moves as the trace lists them (and the policy draws from)."""
        return state.legal_moves()

    def choose(self, state, legal: list[str], rng: np.random.Generator) -> str:
        return legal[int(rng.integers(len(legal)))]

    def board(self, state) -> list[str]:
        return ["| " + row for row in state.to_text().splitlines()]

    def player_line(self, state) -> str:
        return f"player {state.current_player}"

    def extra(self, state) -> list[str]:
        """Game-specific lines after the board of each ply."""
        return []

    def position(self, state) -> list[str]:
        return [self.player_line(state), *self.board(state), *self.extra(state)]

    def legal_line(self, state, legal: list[str]) -> str:
        return f"legal {len(legal)} {' '.join(legal)}"

    def final(self, state) -> list[str]:
        out = []
        for f in self.final_fields:
            if f == "board":
                out += ["final", *self.board(state)]
            elif f == "moves":
                out.append(f"moves {' '.join(state.moves())}")
            elif f == "scores" and state.scores() is not None:
                out.append(f"scores {' '.join(map(str, state.scores()))}")
            elif f == "result":
                out.append(f"result {state.outcome()}")
            elif f == "returns":
                out.append(_returns_line(state))
        return out


def generate_playthrough(p: Playthrough) -> str:
    """The text trace of one seeded random game (see the module docstring)."""
    state = p.initial_state()
    rng = np.random.default_rng(p.move_seed)
    lines = [*p.header(state), *p.preamble(state)]
    ply = 0
    while not state.is_terminal():
        legal = p.legal(state)
        move = p.choose(state, legal, rng)
        lines.append(f"{p.ply_word} {ply}")
        lines += p.position(state)
        lines.append(p.legal_line(state, legal))
        lines.append(f"move {move}")
        state.push(move)
        ply += 1
    lines += p.final(state)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ per game
class AtaxxPlaythrough(Playthrough):
    """Ataxx: the FEN instead of the board; legal moves sorted; the end as FEN and stone counts."""

    def header(self, state):
        return [
            "# ataxx_v0 golden playthrough: AtaxxState(startpos), halfmove clock on;",
            f"# moves drawn with numpy.random.default_rng({self.move_seed}).integers(len(legal)) from the sorted "
            "legal move list.",
        ]

    def legal(self, state):
        return sorted(state.legal_moves())

    def position(self, state):
        return [f"fen {state.fen()}"]

    def final(self, state):
        nx, no = state.stone_counts()
        return [
            f"final fen {state.fen()}",
            f"final stones x {nx} o {no}",
            f"result {state.outcome()}",
            _returns_line(state),
        ]


class TwixtPlaythrough(Playthrough):
    """TwixT: whether each colour can still connect (the early-draw rule)."""

    def header(self, state):
        return [
            "# twixt golden playthrough: TwixtState(board_size=8, rules='standard', swap=True, draw='early');",
            f"# moves drawn with numpy.random.default_rng({self.move_seed}).integers(len(legal)) from the legal "
            "moves in action order.",
        ]

    def extra(self, state):
        return [f"connectable red {int(state.can_still_connect(0))} black {int(state.can_still_connect(1))}"]


class TantrixPlaythrough(Playthrough):
    """Tantrix: the bag, the turn phase and the forced spaces."""

    def header(self, state):
        return [
            "# tantrix golden playthrough: TantrixState(2, rng=numpy.random.default_rng(0));",
            f"# moves drawn with numpy.random.default_rng({self.move_seed}).integers(len(legal)) from the legal "
            "moves in action order.",
        ]

    def preamble(self, state):
        return [f"bag {' '.join(map(str, state.initial_bag))}"]

    def player_line(self, state):
        return f"player {state.current_player} phase {state.phase}"

    def extra(self, state):
        return ["forced " + " ".join(f"{q},{r}" for q, r in state.forced_spaces())]


class SmartrixPlaythrough(Playthrough):
    """Smartrix: the deck; a uniform placement with probability 0.9, else ``pass``; no result line."""

    def header(self, state):
        return [
            "# smartrix golden playthrough: SmartrixState(3, rng=numpy.random.default_rng(0));",
            f"# moves: a uniform legal placement with probability 0.9 (numpy.random.default_rng({self.move_seed})), "
            "else pass.",
        ]

    def preamble(self, state):
        return ["deck " + " ".join(map(str, state.start["deck"]))]

    def legal(self, state):
        return [state.action_to_string(a) for a in state.legal_placements()]

    def choose(self, state, legal, rng):
        if legal and rng.random() < 0.9:
            return legal[int(rng.integers(len(legal)))]
        return "pass"

    def legal_line(self, state, legal):
        return f"legal {len(legal)} {' '.join(legal)} pass"


#: env id -> its golden playthrough. Ids not listed get ``Playthrough(env_id)``.
PLAYTHROUGHS: dict[str, Playthrough] = {
    "ataxx_v0": AtaxxPlaythrough("ataxx_v0", file="ataxx_v0_seed0.txt"),
    "twixt_v0": TwixtPlaythrough("twixt_v0", {"board_size": 8, "swap": True}, file="twixt_8x8_seed0.txt"),
    "double_twixt_v0": Playthrough("double_twixt_v0", {"board_size": 8}, file="double_twixt_8x8_seed0.txt"),
    "tantrix_v0": TantrixPlaythrough("tantrix_v0", move_seed=1, file="tantrix_2p_seed0.txt"),
    "smartrix_v0": SmartrixPlaythrough(
        "smartrix_v0",
        {"num_players": 3},
        move_seed=1,
        ply_word="action",
        final_fields=("board", "moves", "scores", "returns"),
        file="smartrix_3p_seed0.txt",
    ),
}


def playthrough(env_id: str) -> Playthrough:
    """The playthrough of ``env_id`` (the generic one when no game hook is declared)."""
    return PLAYTHROUGHS.get(env_id) or Playthrough(env_id)
