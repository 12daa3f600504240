"""The one table of agent specs: :func:`make_agent`'s parser, its error message and every list of
specs in the documentation and the command-line help are generated from :data:`SPECS`.

``python -m training.agents`` prints the Markdown list that the docs carry
(docs/evaluation.md; a test checks that the two agree).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from training.agents.base import PLAIN_INT, Agent, RandomAgent
from training.agents.policy import PolicyAgent, parse_checkpoint_spec
from training.agents.search import AlphaBetaAgent, GreedyAgent, MCTSAgent

__all__ = ["AgentSpec", "SPECS", "make_agent", "spec_forms", "specs_text", "specs_markdown"]


@dataclass(frozen=True)
class AgentSpec:
    """One kind of agent spec.

    Attributes:
        form: how the spec is written, e.g. ``"mcts[:N]"`` (``[...]`` optional).
        summary: what the agent does, one sentence for people.
        parse: ``f(spec) -> dict | None``: the keyword arguments of :attr:`build` when ``spec``
            has this form, else ``None``. Raises ``ValueError`` for a spec of this form with a bad
            argument.
        build: ``f(seed=..., **kwargs) -> Agent``.
    """

    form: str
    summary: str
    parse: Callable[[str], dict | None]
    build: Callable[..., Agent]


def _int_arg(spec: str, arg: str) -> int:
    """The integer after ``:`` in ``spec``, written plainly: ASCII digits, no sign, no leading zero,
    no space or ``_`` (``int()`` alone would take ``01``, `` 1``, ``1_0`` and other scripts' digits).

    Raises:
        ValueError: ``arg`` is not written so (the message quotes the spec).
    """
    if not PLAIN_INT.fullmatch(arg):
        raise ValueError(
            f"agent spec {spec!r}: expected an integer after ':' (digits 0-9, no sign or leading zero), got {arg!r}"
        )
    return int(arg)


def _named(name: str, param: str | None = None, default: int | None = None) -> Callable[[str], dict | None]:
    """Parser of ``name`` or, with ``param``, ``name[:INT]`` (``{"arg": INT or default}``)."""

    def parse(spec: str) -> dict | None:
        if parse_checkpoint_spec(spec) is not None:  # a path such as mcts:run.zip is a checkpoint
            return None
        head, sep, arg = spec.partition(":")
        if head != name or (sep and param is None):
            return None
        if not sep or param is None:
            return {"arg": default} if param is not None else {}
        return {"arg": _int_arg(spec, arg)}

    return parse


def _shipped(spec: str) -> dict | None:
    """Parser of a shipped agent's spec (``training/shipped/index.json``): ``NAME[:sample]`` for a
    MaskablePPO one, ``NAME[:SIMS]`` for an AlphaZero one (SIMS simulations a move, 0 the raw policy)."""
    from training.agents.shipped import shipped_names, shipped_spec

    head, sep, option = spec.partition(":")
    if head not in shipped_names():
        return None
    engine = shipped_spec(head, verify=False).engine
    if engine == "alphazero":
        if sep and not PLAIN_INT.fullmatch(option):
            raise ValueError(
                f"agent spec {spec!r}: the only option of the shipped AlphaZero agent {head} is ':SIMS', its "
                f"simulations a move (digits 0-9, no sign or leading zero; 0: the raw policy), got {option!r}"
            )
        return {"name": head, "deterministic": True, "simulations": int(option) if sep else None}
    if sep and option != "sample":
        raise ValueError(
            f"agent spec {spec!r}: the only option of the shipped MaskablePPO agent {head} is ':sample', got {option!r}"
        )
    return {"name": head, "deterministic": not sep, "simulations": None}


def _load_shipped(seed, name, deterministic, simulations):
    from training.agents.shipped import shipped_spec

    return shipped_spec(name).load(deterministic=deterministic, seed=seed, simulations=simulations)


def _rllib(spec: str) -> dict | None:
    from training.agents.rllib import parse_rllib_spec

    parsed = parse_rllib_spec(spec)
    return None if parsed is None else {"path": parsed[0], "deterministic": not parsed[1]}


def _load_rllib(seed, path, deterministic):
    from training.agents.rllib import RLlibAgent

    return RLlibAgent(path, deterministic=deterministic, seed=seed)


def _game_agent(spec: str) -> dict | None:
    """Parser of ``NAME`` or ``NAME:N``: an agent a game offers (``agents`` of its ``GameInfo``), with
    the integer its factory takes (what it means is the factory's: the Tantrix robot's search width)."""
    from envs.registry import game_agent_names

    if parse_checkpoint_spec(spec) is not None:
        return None
    head, sep, arg = spec.partition(":")
    if head not in game_agent_names():
        return None
    if not sep:
        return {"name": head, "arg": None}
    return {"name": head, "arg": _int_arg(spec, arg)}


def _build_game_agent(seed, name, arg):
    from training.agents.game import GameAgent

    return GameAgent(name, seed=seed, arg=arg)


def _az(spec: str) -> dict | None:
    from training.agents.alphazero import parse_az_spec

    parsed = parse_az_spec(spec)
    return None if parsed is None else {"path": parsed[0], "simulations": parsed[1], "options": parsed[2]}


def _load_az(seed, path, simulations, options):
    from training.agents.alphazero import AZ_SPEC_OPTIONS, AlphaZeroAgent

    return AlphaZeroAgent(
        path, simulations=simulations, seed=seed, **{AZ_SPEC_OPTIONS[k]: v for k, v in options.items()}
    )


def _checkpoint(spec: str) -> dict | None:
    parsed = parse_checkpoint_spec(spec)
    return None if parsed is None else {"path": parsed[0], "deterministic": not parsed[1]}


#: Every agent spec, in the order the documentation lists them.
SPECS: tuple[AgentSpec, ...] = (
    AgentSpec("random", "a uniformly random legal move", _named("random"), lambda seed: RandomAgent(seed)),
    AgentSpec(
        "greedy",
        "the game's greedy move (`greedy_action` of `envs/<game>/heuristics.py`)",
        _named("greedy"),
        lambda seed: GreedyAgent(seed),
    ),
    AgentSpec(
        "mcts[:N]",
        "UCT with N simulations (default 200), leaves scored by the game's `evaluate`; "
        "where something is hidden it searches 8 deals sampled from what it knows, never the true one",
        _named("mcts", "N", 200),
        lambda seed, arg: MCTSAgent(arg, seed=seed),
    ),
    AgentSpec(
        "alphabeta[:D]",
        "alpha-beta search D plies deep (default 2) with the game's `evaluate`, for games "
        "of two players or two teams; one sampled deal where something is hidden",
        _named("alphabeta", "D", 2),
        lambda seed, arg: AlphaBetaAgent(arg, seed=seed),
    ),
    AgentSpec(
        "robot[:N]",
        "the game's own robot, where the game offers one (`agents` of the game's `GameInfo`: "
        "a search written for that game), N its setting where it takes one (Tantrix: the search "
        "width, default 2; 0: the whole-turn lookahead alone, much faster); any other agent "
        "a game offers goes by its name the same way; refused, naming the games that offer it, in "
        "a game that does not",
        _game_agent,
        _build_game_agent,
    ),
    AgentSpec(
        "PATH.zip[:sample]",
        "a checkpoint of `training.train`: its most probable legal move, or with "
        "`:sample` a draw from the masked policy (the path may itself contain `:`)",
        _checkpoint,
        lambda seed, path, deterministic: PolicyAgent(path, deterministic=deterministic, seed=seed),
    ),
    AgentSpec(
        "rllib:PATH[:sample]",
        "the `main` module of an RLlib checkpoint directory of `training.train` "
        "(an `engine: rllib` run's `checkpoints/final`): its most probable legal move, or "
        "a draw with `:sample`; needs the `rllib` extra, no Ray cluster",
        _rllib,
        _load_rllib,
    ),
    AgentSpec(
        "az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]",
        "an AlphaZero checkpoint of `training.train` (an `engine: alphazero` run's "
        "`checkpoints/final.pt`): its Gumbel search at SIMS simulations a move without noise "
        "(default: the run's `search.eval_simulations`), or with `:0` the raw policy's most "
        "probable legal move; `considered`, `value_scale`, `heuristic_weight` and `heuristic` override the "
        "run's `search.max_num_considered_actions`, `search.value_scale`, `search.heuristic_weight` (the weight "
        "in [0, 1] of the game's own evaluation in each searched value) and `search.heuristic` (which "
        "evaluation: `evaluate` or a name of the game's `GameInfo.evaluators`, e.g. Tantrix's `predicted` "
        "and `predicted_turn`)",
        _az,
        _load_az,
    ),
    AgentSpec(
        "SHIPPED[:sample|:SIMS]",
        "a trained agent shipped with the package, by name (`python -m training.agents.shipped` "
        "lists them), on the setting it was trained on: a MaskablePPO one as `PATH.zip[:sample]`, an "
        "AlphaZero one as `az:PATH[:SIMS]` (default: its run's `search.eval_simulations`)",
        _shipped,
        _load_shipped,
    ),
)


def spec_forms() -> str:
    """The spec forms as one phrase: ``"random, greedy, mcts[:N], alphabeta[:D], robot[:N], PATH.zip[:sample],
    rllib:PATH[:sample], az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]
    or SHIPPED[:sample|:SIMS]"``."""
    forms = [s.form for s in SPECS]
    return ", ".join(forms[:-1]) + " or " + forms[-1]


def specs_text(indent: str = "") -> str:
    """One line per spec, ``form: summary`` (for docstrings and ``--help``), each prefixed by ``indent``."""
    return "\n".join(f"{indent}{s.form}: {s.summary.replace('`', '')}" for s in SPECS)


def specs_markdown() -> str:
    """The Markdown bullet list of the specs that the docs carry (docs/evaluation.md)."""
    return "\n".join(f"- `{s.form}`: {s.summary}" for s in SPECS)


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from a spec string (see :data:`SPECS`; the forms are listed in this package's
    docstring).

    Args:
        spec: the spec string.
        seed: seed of the agent's random generator (``None``: unseeded).

    Returns:
        The agent.

    Raises:
        ValueError: unknown spec (the message lists the forms and the shipped agents' names), bad
            parameter, or a file that is not a MaskablePPO checkpoint; a broken shipped agent
            (``ShippedIndexError``: its file missing or damaged).
        FileNotFoundError: missing checkpoint.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    for entry in SPECS:
        kwargs = entry.parse(spec)
        if kwargs is not None:
            return entry.build(seed=seed, **kwargs)
    from training.agents.shipped import shipped_names

    names = shipped_names()
    raise ValueError(
        f"unknown agent spec {spec!r}: expected {spec_forms()}" + (f" (shipped: {', '.join(names)})" if names else "")
    )
