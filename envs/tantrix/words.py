"""Tantrix in players' words (the contract of :mod:`envs.core.words`): option labels and help, the
variants' labels, the legend of the board's marks (forced spaces, controlled sides); the short how
to play is the section "In short" of ``envs/tantrix/RULES.md``."""

from envs.core.words import GameWords, Option

__all__ = ["WORDS"]

WORDS = GameWords(
    options={
        "num_players": Option("Players", "2, 3 or 4 players, each with a colour of their own."),
        "teams": Option(
            "Doubles (two teams)", "4 players only: partners sit opposite and share one colour and one score."
        ),
        "colors": Option(
            "Colours",
            'The players\' (teams\') colours in seat order, e.g. ["red", "yellow"]. Empty: red, yellow, blue, green.',
        ),
        "window_radius": Option(
            "Table size",
            "How far from the centre a tile may go, in hexes (3 to 40; default 16, enough for any game).",
        ),
        "max_steps": Option("Move limit", "Stop the game unfinished after this many tiles placed. Empty: no limit."),
    },
    variants={
        "2p": "2 players",
        "3p": "3 players",
        "4p": "4 players",
        "doubles": "Doubles: 4 players in two teams",
        "window6": "2 players, small table (radius 6)",
    },
    legend=(
        (
            "coloured dot on an empty space",
            "a forced space (three or more tiles around it): a player with a "
            "tile that fits it, in that player's colour, must fill it before and after the free move; a white "
            "dot: no one can fill it",
        ),
        ("shaded empty space", "a controlled side: no tile may go there while the bag has tiles"),
        ("white outline", "the last tile placed"),
        ("▶ and light band", "the player to move; each row shows a player's colour, score and hand"),
    ),
    package="envs.tantrix",
    summary_section="In short",
)
