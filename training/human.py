"""A person as an agent: moves typed in the game's notation, read line by line from a text stream.

:class:`HumanAgent` plays on the same game loop as every other agent
(:func:`training.arena.play_game`); ``python -m training.play`` seats one against agents. On its
turn it prints a prompt (``player_0 (x) to move> ``) and reads a line:

* a move in the game's notation (``state.info.notation``; Ataxx ``g2``, ``a1c3``, ``0000``): the
  text is handed to the rules unchanged but for surrounding blanks (``state.string_to_action``),
  so the rules decide which spellings they accept; a malformed or illegal move is explained with
  the rules' own message and the person is asked again;
* ``moves`` lists the legal moves, ``board`` shows the position as this seat may see it
  (``state.to_text(viewer=seat)``), ``help`` (or ``?``) the commands and the notation,
  ``quit`` (or ``exit``, ``resign``) abandons the game; commands in any case. Blank lines are
  ignored.

The end of input (or Ctrl-C while waiting) abandons the game like ``quit``: the agent raises
:class:`training.arena.GameAbandoned`, which ends the game loop without a result.
"""

from __future__ import annotations

import sys
import textwrap
from typing import IO

from envs.core.state import GameState, IllegalActionError
from training.agents import Agent
from training.arena import GameAbandoned

__all__ = ["HumanAgent", "help_text", "seat_label"]


def help_text(state: GameState) -> str:
    """The commands, with the game's notation help (``state.info.notation``)."""
    notation = textwrap.indent(state.info.notation, " " * 11).lstrip()
    return (
        "Commands:\n"
        "  <move>   play a move in the game's notation, as the board is shown:\n"
        f"           {notation}\n"
        "  moves    list your legal moves\n"
        "  board    show the board again\n"
        "  help     this text\n"
        "  quit     abandon the game (end of input does the same)"
    )


def seat_label(state: GameState, seat: int) -> str:
    """``player_<seat>``, followed by the seat's name in brackets where it has one
    (``player_0 (x)``)."""
    name = state.seat_name(seat)
    return f"player_{seat}" + (f" ({name})" if name else "")


class HumanAgent(Agent):
    """An agent whose moves a person types (see the module docstring for the commands).

    Args:
        stdin: where the lines come from (default ``sys.stdin`` at the time of each read).
        stdout: where prompts, listings and messages go (default ``sys.stdout``).
        name: the agent's name (default ``"human"``).

    :meth:`act` returns the chosen action in the acting seat's frame, like every agent, and raises
    :class:`~training.arena.GameAbandoned` on ``quit`` or at the end of input.
    """

    name = "human"

    def __init__(self, stdin: IO[str] | None = None, stdout: IO[str] | None = None, name: str = "human"):
        super().__init__(seed=None)
        self.stdin = stdin
        self.stdout = stdout
        self.name = name

    def _say(self, text: str = "") -> None:
        print(text, file=self.stdout or sys.stdout, flush=True)

    def act(self, state: GameState, obs: dict | None) -> int:
        """Read lines until one is a legal move of ``state.current_player``; return it in that
        seat's frame (``state.to_agent_action``).

        Raises:
            ValueError: the game is over (nobody to move).
            GameAbandoned: ``quit`` (or ``exit``, ``resign``), or the end of input.
        """
        seat = state.current_player
        if seat < 0:
            raise ValueError(f"{self.name} cannot choose an action: the game is over (state.current_player is {seat})")
        inp = self.stdin if self.stdin is not None else sys.stdin
        out = self.stdout or sys.stdout
        while True:
            out.write(f"{seat_label(state, seat)} to move> ")
            out.flush()
            try:
                line = inp.readline()
            except KeyboardInterrupt:
                line = ""
            if line == "":
                self._say()
                self._say("End of input: the game is abandoned.")
                raise GameAbandoned("end of input")
            text = line.strip()
            command = text.lower()
            if not text:
                continue
            if command in ("quit", "exit", "resign"):
                self._say("You quit: the game is abandoned.")
                raise GameAbandoned("quit")
            if command in ("help", "?"):
                self._say(help_text(state))
                continue
            if command == "moves":
                legal = state.legal_moves()  # absolute frame, as typed
                self._say(f"{len(legal)} legal moves:")
                self._say(textwrap.fill(" ".join(legal), width=78))
                continue
            if command == "board":
                self._say(state.to_text(viewer=seat))  # what this seat may see
                continue
            try:
                action = state.string_to_action(text)  # the state's (absolute) frame
                if not state.legal_action_mask()[action]:
                    state.clone().apply(action)  # raises IllegalActionError with the rules' reason
                    raise IllegalActionError(f"{text!r} is not a legal move here")  # (the rules did not say why)
            except IllegalActionError as e:
                self._say(f"Illegal move: {e}. Type 'moves' for the legal moves, 'help' for help.")
                continue
            return state.to_agent_action(seat, action)
