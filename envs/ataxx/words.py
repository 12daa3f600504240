"""Ataxx in players' words (the contract of :mod:`envs.core.words`): option labels and help, the
variants' labels, the legend of the board's marks; the short how to play is the section
"In short" of ``envs/ataxx/RULES.md``."""

from envs.core.words import GameWords, Option

__all__ = ["WORDS"]


def _notation(state) -> str:
    """The notation help for people (the same in every setting; ``info.notation`` names the UAI
    notation it is)."""
    return (
        "Moves are written as squares (columns a-g from the left, rows 1-7 from the bottom): "
        "b2 = a clone to b2 (a new stone next to one of yours), b2d4 = a jump from b2 to d4 "
        "(the stone moves two squares), 0000 = a pass (only when you have no move)"
    )


WORDS = GameWords(
    options={
        "fen": Option(
            "Start position (FEN)",
            "A position to start from, in FEN (e.g. x5o/7/7/7/7/7/o5x x 0 1; '-' is a blocked square). "
            "Empty: the standard start.",
        ),
        "halfmove_clock": Option(
            "100-move draw rule",
            "On: the game is drawn after 100 plies without a clone (jumps and passes do not reset the count). "
            "Off: only the move limit ends endless games.",
        ),
        "max_steps": Option("Move limit", "Stop the game unfinished after this many moves (plies). Empty: no limit."),
    },
    variants={"standard": "Standard 7x7", "blockers": "With four blocked squares"},
    legend=(
        ("red and blue stones", "player 1 (red, x in the notation) and player 2 (blue, o); red moves first"),
        ("yellow squares", "the last move: a clone's square, or a jump's source and target joined by a line"),
        ("dark grey square", "a gap: a blocked square no stone may go to"),
        ("yellow ring inside a stone", "a stone the last move converted"),
        (
            "green ring around a stone",
            "a stone you may move (under the pointer, all of them on a touch screen or once you pick one)",
        ),
        ("green dot", "after picking a stone: a clone to that square (a new stone; yours stays)"),
        ("hollow green dot (a ring)", "after picking a stone: a jump to that square (your stone moves two squares)"),
    ),
    sides={"x": "red, x", "o": "blue, o"},  # the FEN letters are the seat names; the stones are red and blue
    package="envs.ataxx",
    summary_section="In short",
    notation=_notation,
)
