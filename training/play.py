"""Play a game in the terminal against any agent.

Command line::

    python -m training.play ENV_ID --opponent SPEC [SPEC ...] [--seat 0|1|...|random] [--seed S]
        [--env-kwargs JSON] [--save-images DIR] [--record FILE]

    python -m training.play ataxx_v0 --opponent alphabeta:2 --seat 0
    printf 'g2\\nquit\\n' | python -m training.play ataxx_v0 --opponent random --seat 0

The board (the environment's ``ansi`` render; in hidden-information games such as Smartrix the
rules' ``to_text(viewer=seat)``, which shows the other players' hands only as card counts) is
printed at the start and after every move. On
your turn type a move in the game's notation (Ataxx: ``g2`` clone, ``a1c3`` jump, ``0000`` pass),
or one of the commands ``moves`` (list the legal moves), ``board`` (show the board again),
``help`` and ``quit`` (commands in any case). The move text is handed to the rules unchanged
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

Exit status: 0 when the game ended or was abandoned (``quit``, end of input), 2 for bad arguments
(a negative ``--seed`` included).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import IO, Any

import numpy as np

from envs.core.state import IllegalActionError
from envs.registry import ENV_IDS, make_raw, spec
from training.agents import make_agent
from training.cli import json_object
from training.evaluate import ensure_writable_dir, non_negative_int

__all__ = ["play", "main", "help_text"]


def help_text(state) -> str:
    """The commands, with the game's notation help (``state.info.notation``)."""
    notation = textwrap.indent(state.info.notation, " " * 11).lstrip()
    return ("Commands:\n"
            "  <move>   play a move in the game's notation, as the board is shown:\n"
            f"           {notation}\n"
            "  moves    list your legal moves\n"
            "  board    show the board again\n"
            "  help     this text\n"
            "  quit     abandon the game (end of input does the same)")


def _seat_label(state, seat: int) -> str:
    name = state.seat_name(seat)
    return f"player_{seat}" + (f" ({name})" if name else "")


def _frame(env) -> np.ndarray:
    """The ``rgb_array`` picture of the env, whatever its render mode."""
    mode = env.render_mode
    env.render_mode = "rgb_array"
    try:
        return env.render()
    finally:
        env.render_mode = mode


def play(env_id: str, opponents: list[str], seat: int | str = "random", seed: int | None = None,
         env_kwargs: dict | None = None, save_images: str | Path | None = None,
         record: str | Path | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> dict:
    """Play one game, a person (reading ``stdin``) against agents.

    Args:
        env_id: an id from ``envs.ENV_IDS``.
        opponents: agent specs; one (used for every other seat) or one per other seat.
        seat: the person's seat, an ``int`` in ``[0, num_players)`` or ``"random"`` (drawn with
            ``seed``).
        seed: seeds the environment, the seat draw and the agents: ``None`` (unseeded) or an
            integer ``>= 0``.
        env_kwargs: constructor arguments of the environment (e.g. ``{"fen": "..."}``).
        save_images: folder for one PNG per position (``0000.png`` = the start); created before
            the game starts.
        record: path of a JSON record of the game, written when the game ends (an existing file
            is overwritten); its folder is created before the game starts.
        stdin: where the person's lines come from (default ``sys.stdin``).
        stdout: where the board and messages go (default ``sys.stdout``).

    Returns:
        The record (also written to ``record``): ``env_id``, ``env_kwargs``, ``seed``,
        ``human_seat``, ``players`` (``{"player_i": "human" | spec}``), ``start_fen`` and
        ``final_fen`` (``None`` for games without FEN), ``moves`` (notation), ``actions`` (ints, the state's absolute frame),
        ``status`` (``"finished"``, ``"truncated"`` or ``"abandoned"``), ``returns`` (per seat,
        all 0 unless finished), ``outcome`` (``str(state.outcome())``: "1-0", "team 0 won", ...; ``None`` unless finished),
        ``scores`` (per seat, the state's ``scores()``: Ataxx stone counts, Tantrix and Smartrix
        points; ``None`` for TwixT),
        ``game_record`` (the game's own JSON record, which its ``records.replay`` replays exactly:
        Tantrix, Smartrix; else ``None``), ``images`` (paths written).

    Raises:
        ValueError: unknown ``env_id``, bad ``env_kwargs``, bad ``seed`` (not ``None`` or an
            integer ``>= 0``), bad ``seat``, wrong number of opponents, a bad agent spec (a file
            that is not a MaskablePPO checkpoint included), a ``save_images`` that is an existing
            file or cannot be created or written, a ``record`` that is an existing folder or
            whose folder cannot be created or written. All are raised before the game starts.
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
    record_path = Path(record) if record is not None else None
    if record_path is not None and record_path.is_dir():
        raise ValueError(f"record {record_path} is an existing folder: expected the path of a JSON file")
    env_kwargs = dict(env_kwargs or {})
    if "render_mode" in env_kwargs:
        raise ValueError(f"env_kwargs must not set render_mode (got {env_kwargs['render_mode']!r}): play shows the "
                         "board as text itself; use --save-images for pictures")
    try:
        env = make_raw(env_id, render_mode="ansi", **env_kwargs)
    except TypeError as e:
        raise ValueError(f"bad env_kwargs {env_kwargs} for {env_id}: {e}") from None
    except ValueError as e:  # a bad value (malformed FEN, ...) or an unknown argument
        raise ValueError(f"bad env_kwargs {env_kwargs} for {env_id}: {e}") from e
    env.reset(seed=seed)
    n = env.num_players
    if seat == "random":
        seat = int(np.random.default_rng(seed).integers(n))
    elif isinstance(seat, str) and seat.lstrip("-").isdigit():
        seat = int(seat)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be 'random' or an integer in [0, {n}), got {seat!r}")
    seat = int(seat)
    opponents = list(opponents)
    others = [p for p in range(n) if p != seat]
    if len(opponents) == 1:
        opponents = opponents * len(others)
    if len(opponents) != len(others):
        raise ValueError(f"{env_id} has {n} seats: give one opponent spec (for every other seat) or "
                         f"{len(others)} (one per other seat), got {len(opponents)}")
    agents = {p: make_agent(spec, seed=None if seed is None else seed * 1000 + p) for p, spec in zip(others, opponents)}
    specs = dict(zip(others, opponents))
    for agent in agents.values():  # an agent that cannot play this game: say so before the game
        agent.check_env(env)
    if seed is not None:
        for p, a in agents.items():
            a.reset(seed * 1000 + p)

    # Output places are checked now, not when the game is over.
    image_dir = ensure_writable_dir(save_images, "--save-images folder") if save_images is not None else None
    if record_path is not None:
        ensure_writable_dir(record_path.parent, "folder of the --record file")
        if record_path.exists() and not os.access(record_path, os.W_OK):
            raise ValueError(f"record {record_path} exists and is not writable")
    images: list[str] = []

    def board() -> str:
        # What this seat may see (in Smartrix the other hands only as card counts).
        return env.state.to_text(viewer=seat)

    def snapshot() -> None:
        say(board())
        if image_dir is not None:
            from PIL import Image

            path = image_dir / f"{len(images):04d}.png"
            Image.fromarray(_frame(env)).save(path)
            images.append(str(path))

    fen_of = getattr(env.state, "fen", None)
    start_fen = fen_of() if callable(fen_of) else None
    players = {f"player_{p}": ("human" if p == seat else specs[p]) for p in range(n)}
    say(f"{env_id}: you are {_seat_label(env.state, seat)}; "
        + ", ".join(f"{_seat_label(env.state, p)} = {specs[p]}" for p in others) + ".")
    say("Type a move, or 'moves', 'board', 'help', 'quit'.")
    snapshot()

    moves: list[str] = []
    actions: list[int] = []
    status = None
    while True:
        agent_id = env.agent_selection
        if env.terminations[agent_id] or env.truncations[agent_id]:
            break
        player = env.possible_agents.index(agent_id)
        if player == seat:
            action = None
            while action is None:
                out.write(f"{_seat_label(env.state, seat)} to move> ")
                out.flush()
                try:
                    line = inp.readline()
                except KeyboardInterrupt:
                    line = ""
                if line == "":
                    say()
                    say("End of input: the game is abandoned.")
                    status = "abandoned"
                    break
                text = line.strip()
                command = text.lower()
                if not text:
                    continue
                if command in ("quit", "exit", "resign"):
                    say("You quit: the game is abandoned.")
                    status = "abandoned"
                    break
                if command in ("help", "?"):
                    say(help_text(env.state))
                    continue
                if command == "moves":
                    legal = env.state.legal_moves()  # absolute frame, as typed
                    say(f"{len(legal)} legal moves:")
                    say(textwrap.fill(" ".join(legal), width=78))
                    continue
                if command == "board":
                    say(board())
                    continue
                try:
                    candidate = env.state.string_to_action(text)  # the state's (absolute) frame
                    notation = env.state.action_to_string(candidate)
                    # env.step takes the seat's own frame; raises IllegalActionError, game unchanged
                    env.step(env.state.to_agent_action(seat, candidate))
                except IllegalActionError as e:
                    say(f"Illegal move: {e}. Type 'moves' for the legal moves, 'help' for help.")
                    continue
                action = candidate
            if status == "abandoned":
                break
            say(f"You play {notation}.")
        else:
            agent_action = int(agents[player].act(env.state, env.observe(agent_id)))  # the seat's frame
            action = env.state.to_state_action(player, agent_action)
            notation = env.state.action_to_string(action)
            env.step(agent_action)
            say(f"{_seat_label(env.state, player)} ({specs[player]}) plays {notation}.")
        moves.append(notation)
        actions.append(int(action))
        snapshot()

    truncated = any(env.truncations.values()) and not any(env.terminations.values())
    if status is None:
        status = "truncated" if truncated else "finished"
    returns = [float(env._cumulative_rewards[a]) for a in env.possible_agents] if status == "finished" else [0.0] * n
    end = env.state.outcome()
    outcome = None if end is None else str(end)
    if status == "finished":
        mine = returns[seat]
        best = max(returns)
        top_sides = {env.state.team_of(p) for p, r in enumerate(returns) if r == best}  # partners are one side
        verdict = ("You win" if mine == best and len(top_sides) == 1 else
                   "You lose" if mine < best else "Draw")
        say(f"Game over{f' ({outcome})' if outcome else ''}: {verdict}. Returns: "
            + ", ".join(f"{_seat_label(env.state, p)} {r:+g}" for p, r in enumerate(returns)))
    elif status == "truncated":
        say(f"The game was stopped after {len(moves)} plies (step limit): no result.")
    final_fen = fen_of() if callable(fen_of) else None
    scores = env.state.scores()
    scores = None if scores is None else [int(x) for x in scores]
    game_record = None  # the game's own record format, where it has one (Tantrix, Smartrix)
    try:
        import importlib

        records = importlib.import_module(type(env.state).__module__.rsplit(".", 1)[0] + ".records")
        if hasattr(records, "record_from_state"):
            rec = records.record_from_state(env.state)
            game_record = rec if isinstance(rec, dict) else None  # JSON records only
    except ImportError:
        pass
    result: dict[str, Any] = {
        "env_id": env_id, "env_kwargs": env_kwargs, "seed": seed, "human_seat": seat, "players": players,
        "start_fen": start_fen, "moves": moves, "actions": actions, "status": status, "returns": returns,
        "outcome": outcome, "final_fen": final_fen, "scores": scores, "game_record": game_record, "images": images,
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
    p.add_argument("env_id", help=f"environment id ({', '.join(ENV_IDS)})")
    p.add_argument("--opponent", nargs="+", required=True, metavar="SPEC",
                   help=f"agent spec(s): {spec_forms()}; one for every other "
                        "seat, or one per other seat")
    p.add_argument("--seat", default="random", metavar="N|random",
                   help="your seat, 0 to players - 1 (default random)")
    p.add_argument("--seed", type=non_negative_int, default=None, metavar="S",
                   help="seed of the game, the seat draw and the agents (an integer >= 0)")
    p.add_argument("--env-kwargs", type=json_object, default=None, metavar="JSON", help='environment arguments as JSON, e.g. \'{"fen": "..."}\'')
    p.add_argument("--save-images", default=None, metavar="DIR", help="save a PNG of every position into this folder")
    p.add_argument("--record", default=None, metavar="FILE", help="write the game (moves, result) as JSON to this file")
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
            listed under :func:`play` (plus argparse's own checks, e.g. a negative ``--seed``);
            all are detected before the game starts.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    env_kwargs = args.env_kwargs or {}
    try:
        play(args.env_id, args.opponent, seat=args.seat, seed=args.seed, env_kwargs=env_kwargs,
             save_images=args.save_images, record=args.record, stdin=stdin, stdout=stdout)
    except (ValueError, FileNotFoundError) as e:
        parser.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
