"""Smartrix in players' words (the contract of :mod:`envs.core.words`): option labels and help,
the variants' labels, the legend of the board's marks (the 5x5 box); the short how to play is the
section "In short" of ``envs/smartrix/RULES.md``."""

from envs.core.words import GameWords, Option

__all__ = ["WORDS"]

WORDS = GameWords(
    options={
        "num_players": Option("Players", "2 to 7 players, each with a secret hand."),
        "grid_limit": Option(
            "5x5 rule",
            "On: every card on the table must fit in a 5x5 box. Off (Kids): no box, and a line of 5 or more "
            "cards is collected whole.",
        ),
        "teams": Option(
            "Teams", "4 players only: partners sit opposite; a team scores the sum of its partners' scores."
        ),
        "window": Option(
            "Table size (Kids)",
            "Without the 5x5 rule: the width of the table, in cards (odd, default 21).",
        ),
        "max_steps": Option("Move limit", "Stop the game unfinished after this many moves. Empty: no limit."),
    },
    variants={
        "2p": "2 players",
        "4p": "4 players",
        "7p": "7 players",
        "teams": "4 players in two teams",
        "kids": "Kids: 3 players, no 5x5 rule",
        "kids-window11": "Kids: 2 players, no 5x5 rule, small table (11 wide)",
    },
    legend=(
        ("dashed frame", "the 5x5 box: with the 5x5 rule, cards may go only inside it"),
        ("number in a card", "its value: the number of its spots"),
        ("gold outline", "the last card put down; faded cards framed in gold: the cards it collected"),
    ),
    package="envs.smartrix",
    summary_section="In short",
)
