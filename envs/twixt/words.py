"""TwixT and Double TwixT in players' words (the contract of :mod:`envs.core.words`): option
labels and help, the variants' labels, the legend of the board's marks; the short how to play is
the section "In short" of ``envs/twixt/RULES.md``."""

from envs.core.words import GameWords, Option

__all__ = ["WORDS"]


def _notation(state) -> str:
    """The notation help of ``state``'s setting: the swap, the Privilege and the links by hand
    only where the setting has them."""
    parts = ["c5 = peg on column c, row 5 (row 1 at the top)"]
    if state.swap:
        parts.append("swap = take over the first peg")
    if state.num_players == 4:
        parts.append("c5! = peg on c5 and claim your team's Privilege")
    if state.linking == "manual":
        parts.append(
            "-c5e6 removes your link c5-e6 (before the peg), +c5e6 adds one (after it), end ends the turn"
            + (", end! claims the Privilege" if state.num_players == 4 else "")
        )
    return "; ".join(parts)


WORDS = GameWords(
    options={
        "board_size": Option("Board size", "Holes per side, from 5 to 48 (the box game: 24)."),
        "rules": Option(
            "Link crossing",
            "standard: no link may cross any link, your own included. pp (TwixT PP): your own links may "
            "cross each other; only the opponent's links block.",
        ),
        "swap": Option(
            "Swap rule (pie rule)",
            "On: after the first peg, the second player may take it over (mirrored) instead of placing a peg.",
        ),
        "draw": Option(
            "When is it a draw",
            "early: as soon as neither side can still connect its borders. board_full: only when the "
            "player to move has no hole left.",
        ),
        "distance_planes": Option(
            "Extra observation planes (agents only)",
            "Gives agents four planes of distances to the borders; it changes nothing for people.",
            agents_only=True,
        ),
        "max_steps": Option("Move limit", "Stop the game unfinished after this many moves (plies). Empty: no limit."),
        "links": Option(
            "Links",
            "auto: every possible link from a new peg is placed at once (as online). manual: the box rules: "
            "you add and remove your links yourself, then end the turn.",
        ),
    },
    variants={
        "8x8": "Small board 8x8",
        "24x24": "Full board 24x24",
        "pp": "8x8, TwixT PP (own links may cross)",
        "swap": "8x8 with the swap rule",
        "twixt_v0:manual": "8x8, links by hand (box rules), swap rule",
        "double_twixt_v0:manual": "8x8, links by hand (box rules)",
        "10x10-board-full": "10x10, draw only when the board is full",
    },
    legend=(
        (
            "red and black border lines",
            "each side's goal rows: red joins top and bottom, black left and right "
            "(a black seat sees the board turned, its own rows at top and bottom)",
        ),
        ("pegs and links", "a link joins two pegs of one colour a knight's move apart"),
        ("yellow ring", "the last peg placed (with links by hand: a yellow band under a link just added)"),
        ("letters A and B on pegs", "Double TwixT: which partner of the team placed the peg"),
        ("marked holes", "where you may place (shown on your turn)"),
    ),
    package="envs.twixt",
    summary_section="In short",
    notation=_notation,
)
