"""Play a game in the terminal against any agent.

Command line::

    python -m training.play ENV_ID --opponent SPEC [SPEC ...] [--seat 0|1|...|random] [--seed S]
        [--env-kwargs JSON] [--save-images DIR] [--record FILE] [--threads N]

    python -m training.play ataxx_v0 --opponent alphabeta:2 --seat 0
    printf 'g2\\nquit\\n' | python -m training.play ataxx_v0 --opponent random --seat 0

You play as a :class:`training.human.HumanAgent` on the same game loop as every other agent
(:func:`training.arena.play_game`). The board (the rules' ``to_text(viewer=seat)``: what your
seat may see; in hidden-information games such as Smartrix the other players' hands only as card
counts) is printed at the start and after every move. On your turn type a move in the game's
notation (Ataxx: ``g2`` clone, ``a1c3`` jump, ``0000`` pass), or one of the commands ``moves``
(list the legal moves), ``board`` (show the board again), ``help`` and ``quit`` (commands in any
case). The move text is handed to the rules unchanged
(only surrounding blanks are stripped), so the rules decide which spellings they accept. A
malformed or illegal move is explained (the rules' own message) and you are asked again. Input is
read line by line from standard input, so a game can be scripted; the end of input ends the game
like ``quit``.

Opponents: ``--opponent`` takes agent specs of :func:`training.agents.make_agent` (the table
:data:`training.agents.SPECS`, listed by ``--help``). For games with more than two seats give
one spec (used for every other seat, one agent each) or one per other seat, in seat order.

``--save-images DIR`` writes the ``rgb_array`` picture of the start and of every position after a
move as ``DIR/0000.png``, ``DIR/0001.png``, ... ``--record FILE`` writes the game as JSON: the
settings, the start position (FEN where the game has one), the moves in notation, the result and
the final position. Both paths are checked (and the folders created) before the game starts: an
images folder that is an existing file, a record path that is an existing folder, or a place that
cannot be created or written is an error.

``--threads N`` (default 1) is torch's thread count for network opponents
(:func:`training.threads.set_torch_threads`; nothing to set when torch is not installed).

Exit status: 0 when the game ended or was abandoned (``quit``, end of input), 2 for bad arguments
(a negative ``--seed`` included).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np

from envs.core.checks import is_int
from envs.core.records import record_from_state
from envs.registry import make_raw, spec
from training.agents import make_agent
from training.arena import play_game
from training.cli import MissingExtraError, add_env_arguments, check_output_file, ensure_writable_dir, non_negative_int
from training.human import HumanAgent, help_text, seat_label
from training.threads import add_threads_argument, set_torch_threads

__all__ = ["play", "main", "help_text"]


def _frame(env) -> np.ndarray:
    """The ``rgb_array`` picture of the env, whatever its render mode."""
    mode = env.render_mode
    env.render_mode = "rgb_array"
    try:
        return env.render()
    finally:
        env.render_mode = mode


def play(
    env_id: str,
    opponents: list[str],
    seat: int | str = "random",
    seed: int | None = None,
    env_kwargs: dict | None = None,
    save_images: str | Path | None = None,
    record: str | Path | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> dict:
    """Play one game, a person (a :class:`~training.human.HumanAgent` reading ``stdin``) against
    agents, on the arena's game loop (:func:`training.arena.play_game`).

    Args:
        env_id: a registered environment id (``envs.env_ids()``).
        opponents: agent specs; one (used for every other seat) or one per other seat.
        seat: the person's seat, an ``int`` in ``[0, num_players)`` or ``"random"`` (drawn with
            ``seed``).
        seed: seeds the environment, the seat draw and the agents: ``None`` (unseeded) or an
            integer ``>= 0``.
        env_kwargs: constructor arguments of the environment (e.g. ``{"fen": "..."}``), checked
            by the registry.
        save_images: folder for one PNG per position (``0000.png`` = the start); created before
            the game starts.
        record: path of a JSON record of the game, written when the game ends (an existing file
            is overwritten); its folder is created before the game starts.
        stdin: where the person's lines come from (default ``sys.stdin``).
        stdout: where the board and messages go (default ``sys.stdout``).

    Returns:
        The record (also written to ``record``): ``env_id``, ``env_kwargs``, ``seed``,
        ``human_seat``, ``players`` (``{"player_i": "human" | spec}``), ``moves`` (notation),
        ``actions`` (ints, the state's absolute frame), ``status`` (``"finished"``, ``"truncated"``
        or ``"abandoned"``), ``returns`` (per seat, all 0 unless finished), ``outcome``
        (``str(state.outcome())``: "1-0", "team 0 won", ...; ``None`` unless finished),
        ``scores`` (per seat, the state's ``scores()``: Ataxx stone counts, Tantrix and Smartrix
        points; ``None`` for TwixT),
        ``game_record`` (the common JSON game record of :mod:`envs.core.records`, which its
        ``replay`` replays exactly), ``images`` (paths written).

    Raises:
        ValueError: unknown ``env_id`` or bad ``env_kwargs`` (the registry's ``UnknownEnvError``
            / ``ParameterError``, or the environment's own message), ``env_kwargs`` setting
            ``render_mode``, bad ``seed`` (not ``None`` or an integer ``>= 0``), bad ``seat``,
            wrong number of opponents, a bad agent spec (a file that is not a MaskablePPO
            checkpoint included), a ``save_images`` that is an existing file or cannot be created
            or written, a ``record`` that is an existing folder or whose folder cannot be created
            or written. All are raised before the game starts.
        FileNotFoundError: a missing checkpoint.
    """
    inp = sys.stdin if stdin is None else stdin
    out = sys.stdout if stdout is None else stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    spec(env_id)  # an unknown id: UnknownEnvError (a ValueError) names the known ones
    if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    seed = None if seed is None else int(seed)
    env_kwargs = dict(env_kwargs or {})
    if "render_mode" in env_kwargs:
        raise ValueError(
            f"env_kwargs must not set render_mode (got {env_kwargs['render_mode']!r}): play shows the "
            "board as text itself; use --save-images for pictures"
        )
    env = make_raw(env_id, render_mode="ansi", **env_kwargs)  # the registry checks the kwargs
    env.reset(seed=seed)  # some values are only checked when a game starts; the seats are known now
    n = env.num_players
    if seat == "random":
        seat = int(np.random.default_rng(seed).integers(n))
    elif isinstance(seat, str) and seat.lstrip("-").isdigit():
        seat = int(seat)
    if not is_int(seat) or not 0 <= int(seat) < n:
        raise ValueError(f"seat must be 'random' or an integer in [0, {n}), got {seat!r}")
    seat = int(seat)
    opponents = list(opponents)
    others = [p for p in range(n) if p != seat]
    if len(opponents) == 1:
        opponents = opponents * len(others)
    if len(opponents) != len(others):
        raise ValueError(
            f"{env_id} has {n} seats: give one opponent spec (for every other seat) or "
            f"{len(others)} (one per other seat), got {len(opponents)}"
        )
    specs = dict(zip(others, opponents))
    agents = {p: make_agent(s, seed=None if seed is None else seed * 1000 + p) for p, s in specs.items()}
    for agent in agents.values():  # an agent that cannot play this game: say so before the game
        agent.check_env(env)
    agents[seat] = HumanAgent(stdin=inp, stdout=out)

    # Output places are checked now, not when the game is over.
    image_dir = ensure_writable_dir(save_images, "--save-images folder") if save_images is not None else None
    record_path = check_output_file(record, "record", "--record") if record is not None else None
    images: list[str] = []

    def snapshot(env) -> None:
        say(env.state.to_text(viewer=seat))  # what this seat may see (Smartrix: other hands as counts)
        if image_dir is not None:
            from PIL import Image

            path = image_dir / f"{len(images):04d}.png"
            Image.fromarray(_frame(env)).save(path)
            images.append(str(path))

    def on_start(env) -> None:
        say(
            f"{env_id}: you are {seat_label(env.state, seat)}; "
            + ", ".join(f"{seat_label(env.state, p)} = {specs[p]}" for p in others)
            + "."
        )
        say("Type a move, or 'moves', 'board', 'help', 'quit'.")
        snapshot(env)

    def on_move(env, player: int, action: int, notation: str) -> None:
        if player == seat:
            say(f"You play {notation}.")
        else:
            say(f"{seat_label(env.state, player)} ({specs[player]}) plays {notation}.")
        snapshot(env)

    game = play_game(
        env_id, [agents[p] for p in range(n)], seed=seed, record=True, env=env, on_start=on_start, on_move=on_move
    )
    status = game.status
    returns = [float(r) for r in game.returns] if status == "finished" else [0.0] * n
    end = env.state.outcome()
    outcome = None if end is None else str(end)
    if status == "finished":
        mine = returns[seat]
        best = max(returns)
        team_of = {p: t for t, team in enumerate(env.state.teams()) for p in team}
        top_sides = {team_of[p] for p, r in enumerate(returns) if r == best}  # partners are one side
        verdict = "You win" if mine == best and len(top_sides) == 1 else "You lose" if mine < best else "Draw"
        say(
            f"Game over{f' ({outcome})' if outcome else ''}: {verdict}. Returns: "
            + ", ".join(f"{seat_label(env.state, p)} {r:+g}" for p, r in enumerate(returns))
        )
    elif status == "truncated":
        say(f"The game was stopped after {game.plies} plies (step limit): no result.")
    scores = env.state.scores()
    scores = None if scores is None else [int(x) for x in scores]
    # envs.core.records: replays exactly (no replay check: the state is this env's own, made from these kwargs)
    game_record = record_from_state(env.state, env_id, env_kwargs, seed, check=False)
    players = {f"player_{p}": ("human" if p == seat else specs[p]) for p in range(n)}
    result: dict[str, Any] = {
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "seed": seed,
        "human_seat": seat,
        "players": players,
        "moves": game.moves,
        "actions": game.actions,
        "status": status,
        "returns": returns,
        "outcome": outcome,
        "scores": scores,
        "game_record": game_record,
        "images": images,
    }
    env.close()
    if record_path is not None:
        record_path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        say(f"Game record written to {record_path}.")
    return result


def _parser() -> argparse.ArgumentParser:
    from training.agents import spec_forms

    p = argparse.ArgumentParser(
        prog="python -m training.play",
        description="Play a game in the terminal against an agent. Type moves in the game's notation, "
        "or 'moves', 'board', 'help', 'quit'. Reads standard input line by line.",
        epilog="Example: python -m training.play ataxx_v0 --opponent alphabeta:2 --seat 0",
    )
    add_env_arguments(p)  # env_id (checked by the registry) and --env-kwargs JSON
    p.add_argument(
        "--opponent",
        nargs="+",
        required=True,
        metavar="SPEC",
        help=f"agent spec(s): {spec_forms()}; one for every other seat, or one per other seat",
    )
    p.add_argument("--seat", default="random", metavar="N|random", help="your seat, 0 to players - 1 (default random)")
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        metavar="S",
        help="seed of the game, the seat draw and the agents (an integer >= 0)",
    )
    p.add_argument("--save-images", default=None, metavar="DIR", help="save a PNG of every position into this folder")
    p.add_argument("--record", default=None, metavar="FILE", help="write the game (moves, result) as JSON to this file")
    add_threads_argument(p)
    return p


def main(argv: list[str] | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Command-line entry point.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).
        stdin: where the person's lines come from (default ``sys.stdin``).
        stdout: where the board and messages go (default ``sys.stdout``).

    Returns:
        0 when the game ended or was abandoned.

    Raises:
        SystemExit: with status 2 (a usage message on standard error) for bad arguments, as
            listed under :func:`play` (plus argparse's own checks, e.g. a negative ``--seed`` or
            ``--threads`` below 1);
            all are detected before the game starts.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    set_torch_threads(args.threads, missing_ok=True)
    try:
        play(
            args.env_id,
            args.opponent,
            seat=args.seat,
            seed=args.seed,
            env_kwargs=args.env_kwargs,
            save_images=args.save_images,
            record=args.record,
            stdin=stdin,
            stdout=stdout,
        )
    except (ValueError, FileNotFoundError, MissingExtraError) as e:
        parser.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
