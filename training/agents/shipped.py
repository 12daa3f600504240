"""Trained agents shipped with the package: MaskablePPO and AlphaZero checkpoints, by name.

The checkpoints and their index live in the package-data folder ``training/shipped/``
(``index.json`` and one ``<name>.zip`` or ``<name>.pt`` per agent), so a plain ``pip install``
carries them. Each entry of the index says which environment setting the agent was trained on and how:

* ``name``: the agent's name, that of the config that trained it (``make_agent(name)``,
  ``python -m training.evaluate ENV --agents NAME ...``, ``python -m training.play ENV --opponent NAME``);
* ``engine``: the engine that trained it, which says how it plays: ``"sb3"`` (a MaskablePPO
  ``.zip``, played as ``PATH.zip``: spec ``NAME[:sample]``) or ``"alphazero"`` (a ``.pt`` of the
  AlphaZero engine, played as ``az:PATH`` with the Gumbel search: spec ``NAME[:SIMS]``, SIMS the
  simulations a move, by default the run's ``search.eval_simulations``, 0 the raw policy);
* ``file``: the checkpoint's file name in ``training/shipped/`` (``.zip`` for sb3, ``.pt`` for
  alphazero);
* ``env_id``, ``env_kwargs``: the setting (registry id and constructor arguments of the run);
* ``config``, ``seed``, ``timesteps``, ``commit``: the config file, the seed, the timesteps trained
  and the code commit of the training run;
* ``sha256``: of the shipped file; ``source_sha256``: of the run's ``checkpoints/final.zip`` (or
  ``final.pt``) it was made from. A shipped ``.zip`` is that checkpoint without the optimizer's
  moment estimates, which only further training uses: a third of the size, the same policy
  weights. A shipped ``.pt`` keeps only the run's config and the network's weights
  (:func:`strip_alphazero`; the run's file also holds the optimizer, the replay buffer, the
  generators and the games in progress, for ``--resume``);
* ``summary``: one line for people;
* ``room_simulations`` (alphazero entries only): the simulations a move of the agent the play room
  offers (:mod:`room`), a search that answers within about a second on a 2-core CPU: by
  default :data:`ROOM_SIMULATIONS`;
* ``heuristic`` (alphazero entries only, optional): the game's evaluation the agent's search mixes
  in, by name (``search.heuristic``, overriding the run's wherever the agent plays: the room,
  ``training.evaluate``, ``make_agent``), where a measured tournament showed another evaluation
  than the training's to play better; absent, the run's own.

No game is named in this module: every name comes from ``index.json``.

>>> from training.agents.shipped import shipped_agents, shipped_for
>>> [a.name for a in shipped_for("twixt_v0", {"board_size": 8})]  # doctest: +SKIP
['twixt_quick']

``python -m training.agents.shipped`` prints the Markdown table of the shipped agents that the
docs carry (docs/evaluation.md; a test checks that the two agree); ``python -m training.agents.shipped add RUN_DIR``
adds (or replaces) the entry of a finished ``training.train`` run.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envs.registry import spec

__all__ = [
    "INDEX",
    "ShippedAgent",
    "ShippedIndexError",
    "shipped_agents",
    "shipped_names",
    "shipped_for",
    "shipped_spec",
    "setting_kwargs",
    "agents_only_arguments",
    "shipped_markdown",
    "add_run",
    "strip_optimizer",
    "strip_alphazero",
    "ROOM_SIMULATIONS",
    "file_sha256",
]

#: The index of the shipped agents (package data; its folder holds the checkpoints).
INDEX: Path = Path(__file__).resolve().parents[1] / "shipped" / "index.json"

#: The fields of an index entry, with their JSON types.
FIELDS: dict[str, type] = {
    "name": str,
    "engine": str,
    "file": str,
    "env_id": str,
    "env_kwargs": dict,
    "config": str,
    "seed": int,
    "timesteps": int,
    "commit": str,
    "sha256": str,
    "source_sha256": str,
    "summary": str,
}

#: The fields an entry of each engine has besides :data:`FIELDS` (none other is allowed).
ENGINE_FIELDS: dict[str, dict[str, type]] = {"sb3": {}, "alphazero": {"room_simulations": int}}

#: The fields an entry of each engine may have (and may leave out).
OPTIONAL_FIELDS: dict[str, dict[str, type]] = {"sb3": {}, "alphazero": {"heuristic": str}}

#: The file suffix of each engine's shipped checkpoints.
SUFFIX: dict[str, str] = {"sb3": ".zip", "alphazero": ".pt"}

#: The play room's search of a shipped AlphaZero agent unless ``add --room-simulations`` says
#: otherwise: simulations a move that answer within about a second on the 2-core CPU. Measured
#: with ``benchmarks/bench_az_agent.py`` (one torch thread, the configs' 32-channel 4-block
#: residual networks, moves from random games): 256 simulations took 0.21-0.33 s a move on the
#: 8x8 boards (Ataxx, TwixT, Double TwixT) and 0.41 s on TwixT 24x24 beside one training job
#: (load ~1.5), and at most 0.46 s and 0.72 s with the two cores overloaded (load ~4); 512 took up
#: to 1.3 s on TwixT 8x8 so.
ROOM_SIMULATIONS = 256

#: The index's ``about`` line.
ABOUT = (
    "Trained agents shipped with tabletop-rl (training/agents/shipped.py reads this file; "
    "python -m training.agents.shipped add RUN_DIR --commit SHA writes it)"
)

_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_SHA = re.compile(r"^[0-9a-f]{64}$")


class ShippedIndexError(ValueError):
    """``index.json`` or a shipped file is broken: the message names the file and what is wrong."""


@dataclass(frozen=True)
class ShippedAgent:
    """One shipped trained agent (an entry of ``training/shipped/index.json``).

    Attributes:
        name: the agent's name (also its agent spec, e.g. ``make_agent(name)``).
        env_id: the registry id it was trained on.
        env_kwargs: the constructor arguments it was trained with (a fresh ``dict`` per call of
            the functions below: changing it changes nothing else).
        path: the checkpoint file (absolute).
        summary: one line for people: how it was trained and how it scored.
        config: the training config (``configs/<name>.yaml``).
        seed: the training run's seed.
        timesteps: environment steps trained.
        commit: the code commit of the training run.
        sha256: hex digest of :attr:`path` (checked when the index is read).
        source_sha256: hex digest of the run's ``final.zip`` (``final.pt``) the file was made from.
        engine: ``"sb3"`` (a MaskablePPO ``.zip``) or ``"alphazero"`` (a stripped ``.pt``).
        room_simulations: for an alphazero agent, the simulations a move the play room gives it
            (``None`` for sb3).
        heuristic: for an alphazero agent, the evaluation its search mixes in wherever it plays,
            overriding its run's ``search.heuristic`` (``None``: the run's own).
    """

    name: str
    env_id: str
    env_kwargs: dict
    path: Path
    summary: str
    config: str = ""
    seed: int = 0
    timesteps: int = 0
    commit: str = ""
    sha256: str = ""
    source_sha256: str = ""
    engine: str = "sb3"
    room_simulations: int | None = None
    heuristic: str | None = None

    def __hash__(self) -> int:  # env_kwargs is a dict
        return hash((self.name, self.sha256))

    def setting(self) -> dict:
        """The resolved setting it plays: :func:`setting_kwargs` of its env id and kwargs; for an
        alphazero agent less the arguments that change only what agents observe
        (:func:`agents_only_arguments`, e.g. TwixT's ``distance_planes``), since its search builds
        its own observations from the rules state and so plays that game with them or without."""
        s = setting_kwargs(self.env_id, self.env_kwargs)
        return _without_agents_only(self.env_id, s) if self.engine == "alphazero" else s

    @property
    def room_spec(self) -> str:
        """The agent spec the play room plays it with: ``NAME:SIMS`` (:attr:`room_simulations`)
        for an alphazero agent, ``NAME`` for an sb3 one."""
        return self.name if self.room_simulations is None else f"{self.name}:{self.room_simulations}"

    def load(self, deterministic: bool = True, seed: int | None = None, simulations: int | None = None):
        """The playing agent, refusing in ``check_env`` an environment of another id or other
        spaces, naming this agent's setting: for an sb3 agent a
        :class:`~training.agents.policy.PolicyAgent` named :attr:`name`; for an alphazero one an
        :class:`~training.agents.alphazero.AlphaZeroAgent` (the noiseless Gumbel search, with
        :attr:`heuristic` where the entry sets one) named :attr:`name`, or ``NAME:SIMS`` when
        ``simulations`` is given.

        Args:
            deterministic: play the most probable legal move (default) or sample the policy (sb3
                only: the search of an alphazero agent has no sampling).
            seed: seed of the agent's generator.
            simulations: alphazero only: the simulations a move (``None``: the run's
                ``search.eval_simulations``; 0: the raw policy's most probable legal move).

        Raises:
            MissingExtraError: the ``train`` extra (torch, sb3-contrib) is not installed.
            ValueError: the file is not a checkpoint of the agent's engine, or is one of another
                setting than the index says; ``deterministic=False`` for an alphazero agent,
                ``simulations`` for an sb3 one, or a negative ``simulations``.
        """
        if self.engine == "alphazero":
            from training.agents.alphazero import AlphaZeroAgent

            if not deterministic:
                raise ValueError(
                    f"shipped agent {self.name!r} is an AlphaZero agent: it searches, it does not sample "
                    "(its option is :SIMS, the simulations a move)"
                )
            agent = AlphaZeroAgent(
                self.path,
                simulations=simulations,
                seed=seed,
                heuristic=self.heuristic,
                name=self.name if simulations is None else f"{self.name}:{simulations}",
            )
            if _plain(list(agent.trained_on)) != _plain([self.env_id, self.env_kwargs]):
                raise ShippedIndexError(
                    f"shipped agent {self.name!r}: {self.path} was trained on {agent.trained_on[0]} "
                    f"{agent.trained_on[1]}, but the index says {self.env_id} {self.env_kwargs}"
                )
            return agent
        if simulations is not None:
            raise ValueError(
                f"shipped agent {self.name!r} is a MaskablePPO agent: it has no search, so no simulations "
                "(its option is :sample)"
            )
        from training.agents.policy import PolicyAgent

        return PolicyAgent(
            self.path,
            deterministic=deterministic,
            seed=seed,
            name=self.name,
            trained_on=(self.env_id, dict(self.env_kwargs)),
        )


# --------------------------------------------------------------------------- reading the index


def file_sha256(path: Path) -> str:
    """The SHA-256 hex digest of a file, read in blocks of 1 MiB (the index's ``sha256`` and
    ``source_sha256``; the results folders' ``final_sha256``).

    Raises:
        OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_ENTRIES: dict[Path, tuple[tuple, list[dict]]] = {}  # index -> (its stat, its checked entries)
_VERIFIED: dict[Path, tuple] = {}  # checkpoint -> the stat at which its sha256 matched


def _stat(path: Path) -> tuple:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def _entries(index: Path) -> list[dict]:
    """The index's entries, their structure checked (not the files' digests); cached per file version."""
    index = Path(index)
    try:
        stat = _stat(index)
    except FileNotFoundError:
        raise ShippedIndexError(f"the index of shipped agents {index} does not exist") from None
    cached = _ENTRIES.get(index)
    if cached is not None and cached[0] == stat:
        return cached[1]
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ShippedIndexError(f"{index} is not valid JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise ShippedIndexError(
            f"{index}: expected an object with a list 'agents', got {type(data).__name__}"
            f"{' without it' if isinstance(data, dict) else ''}"
        )
    entries, seen = [], set()
    for i, entry in enumerate(data["agents"]):
        where = f"{index}: entry {i}"
        if not isinstance(entry, dict):
            raise ShippedIndexError(f"{where}: expected an object, got {type(entry).__name__}")
        if isinstance(entry.get("name"), str):
            where = f"{index}: entry {i} ({entry['name']!r})"
        engine = entry.get("engine", "")
        if "engine" in entry and (not isinstance(engine, str) or engine not in ENGINE_FIELDS):
            raise ShippedIndexError(
                f"{where}: engine must be one of {', '.join(map(repr, ENGINE_FIELDS))}, got {engine!r}"
            )
        fields = {**FIELDS, **ENGINE_FIELDS.get(str(engine), {})}
        optional = OPTIONAL_FIELDS.get(str(engine), {})
        missing = [k for k in fields if k not in entry]
        extra = sorted(set(entry) - set(fields) - set(optional))
        if missing or extra:
            own = "; ".join(
                f"an {e} entry also {', '.join(f)}"
                + (f" (may have {', '.join(OPTIONAL_FIELDS[e])})" if OPTIONAL_FIELDS.get(e) else "")
                for e, f in ENGINE_FIELDS.items()
                if f
            )
            raise ShippedIndexError(
                f"{where}: "
                + "; ".join(
                    ([f"missing {', '.join(missing)}"] if missing else [])
                    + ([f"unknown {', '.join(extra)}"] if extra else [])
                )
                + f" (the fields are: {', '.join(FIELDS)}; {own})"
            )
        for key, kind in {**fields, **{k: v for k, v in optional.items() if k in entry}}.items():
            if not isinstance(entry[key], kind) or (kind is int and isinstance(entry[key], bool)):
                raise ShippedIndexError(f"{where}: {key} must be a JSON {kind.__name__}, got {entry[key]!r}")
        name, file = entry["name"], entry["file"]
        if not _NAME.match(name):
            raise ShippedIndexError(
                f"{where}: name must be lower-case letters, digits and '_' (an agent spec), got {name!r}"
            )
        if name in seen:
            raise ShippedIndexError(f"{where}: the name {name!r} is used twice")
        seen.add(name)
        suffix = SUFFIX[str(engine)]
        if Path(file).name != file or not file.endswith(suffix):
            raise ShippedIndexError(
                f"{where}: file must be a {suffix} file name in {index.parent} (engine {engine}), got {file!r}"
            )
        if "room_simulations" in entry and entry["room_simulations"] < 0:
            raise ShippedIndexError(f"{where}: room_simulations must be >= 0, got {entry['room_simulations']}")
        for key in ("sha256", "source_sha256"):
            if not _SHA.match(entry[key]):
                raise ShippedIndexError(f"{where}: {key} must be 64 lower-case hex digits, got {entry[key]!r}")
        try:
            setting_kwargs(entry["env_id"], entry["env_kwargs"])
        except (KeyError, ValueError) as e:
            raise ShippedIndexError(f"{where}: bad setting: {e}") from None
        if "heuristic" in entry and entry["heuristic"] not in (offered := _evaluators(entry["env_id"])):
            raise ShippedIndexError(
                f"{where}: heuristic must be one of {offered} (the evaluations of {entry['env_id']}), "
                f"got {entry['heuristic']!r}"
            )
        entries.append(dict(entry))
    _ENTRIES[index] = (stat, entries)
    return entries


def _evaluators(env_id: str) -> list[str]:
    """The names of the evaluations a game's search may mix in (``evaluate`` and its
    ``GameInfo.evaluators``)."""
    from envs.core.heuristics import offered_evaluators

    return list(offered_evaluators(spec(env_id).game_info()))


def _agent(entry: dict, index: Path, verify: bool) -> ShippedAgent:
    path = index.parent / entry["file"]
    if verify:
        if not path.is_file():
            raise ShippedIndexError(
                f"shipped agent {entry['name']!r}: its checkpoint {path} is missing (listed in {index})"
            )
        stat = _stat(path)
        if _VERIFIED.get(path) != stat:
            digest = file_sha256(path)
            if digest != entry["sha256"]:
                raise ShippedIndexError(
                    f"shipped agent {entry['name']!r}: {path} has sha256 {digest}, but {index} "
                    f"says {entry['sha256']}: the file is damaged or was replaced"
                )
            _VERIFIED[path] = stat
    return ShippedAgent(
        name=entry["name"],
        env_id=entry["env_id"],
        env_kwargs=json.loads(json.dumps(entry["env_kwargs"])),
        path=path,
        summary=entry["summary"],
        config=entry["config"],
        seed=entry["seed"],
        timesteps=entry["timesteps"],
        commit=entry["commit"],
        sha256=entry["sha256"],
        source_sha256=entry["source_sha256"],
        engine=entry["engine"],
        room_simulations=entry.get("room_simulations"),
        heuristic=entry.get("heuristic"),
    )


def shipped_agents(index: str | Path | None = None) -> list[ShippedAgent]:
    """Every shipped agent, in the index's order, each file checked (exists, sha256 matches).

    Args:
        index: the ``index.json`` to read (default :data:`INDEX`, the package's).

    Returns:
        One :class:`ShippedAgent` per entry (an empty list for an empty index).

    Raises:
        ShippedIndexError (a ``ValueError``): the index is missing, not JSON, or an entry is
            malformed (missing or unknown field, bad name, unregistered env id, bad kwargs); a
            checkpoint is missing or its sha256 differs. The message names the file and entry.
    """
    index = Path(index) if index is not None else INDEX
    return [_agent(e, index, verify=True) for e in _entries(index)]


def shipped_names(index: str | Path | None = None) -> list[str]:
    """The shipped agents' names, in the index's order (files not checked).

    Raises: as :func:`shipped_agents`, for the index itself.
    """
    return [e["name"] for e in _entries(Path(index) if index is not None else INDEX)]


def shipped_spec(name: str, index: str | Path | None = None, verify: bool = True) -> ShippedAgent:
    """The shipped agent called ``name``, its file checked (exists, sha256 matches) unless
    ``verify`` is false (then only the index is read).

    Raises:
        ValueError: no shipped agent has that name (the message lists the names).
        ShippedIndexError (a ``ValueError``): as :func:`shipped_agents`.
    """
    index = Path(index) if index is not None else INDEX
    for e in _entries(index):
        if e["name"] == name:
            return _agent(e, index, verify=verify)
    names = shipped_names(index)
    raise ValueError(
        f"no shipped agent is called {name!r}; the shipped agents are: {', '.join(names) if names else 'none'}"
    )


def _not_setting() -> tuple[str, ...]:
    """Constructor arguments every environment has that change neither its spaces nor its rules:
    those of the common base class (``render_mode``, ``max_steps``: drawing and the truncation)."""
    from envs.core.aec import TabletopAECEnv

    return tuple(n for n in inspect.signature(TabletopAECEnv.__init__).parameters if n != "self")


def _plain(value: Any) -> Any:
    """A JSON-comparable copy (tuples become lists, numpy scalars Python ones)."""
    return json.loads(json.dumps(value, default=lambda o: o.item() if hasattr(o, "item") else repr(o)))


def setting_kwargs(env_id: str, env_kwargs: dict | None = None) -> dict:
    """The setting an environment is made with: every constructor argument with its value (the
    registry's defaults, then ``env_kwargs``, then the constructor's own defaults for the rest),
    less those that change neither spaces nor rules (``max_steps``, ``render_mode``).

    Two settings are the same game when these dicts are equal.

    Args:
        env_id: a registered environment id.
        env_kwargs: constructor arguments, as for ``envs.make``.

    Returns:
        ``{argument: value}``, values JSON-plain (tuples as lists).

    Raises:
        UnknownEnvError (a ``KeyError`` and ``ValueError``): unknown ``env_id``.
        ParameterError (a ``ValueError``): ``env_kwargs`` is not a dict or names an argument the
            environment lacks (the registry's message).
    """
    sp = spec(env_id)
    resolved = sp.resolve_kwargs(env_kwargs)
    params = inspect.signature(sp.module().raw_env.__init__).parameters
    full = {n: p.default for n, p in params.items() if n != "self" and p.default is not inspect.Parameter.empty}
    full.update(resolved)
    for n in _not_setting():
        full.pop(n, None)
    return _plain(full)


def agents_only_arguments(env_id: str) -> frozenset[str]:
    """The constructor arguments of ``env_id`` that change only what agents observe, nothing that
    people see or play: those its game's words mark ``agents_only``
    (:class:`envs.core.words.Option`; TwixT's ``distance_planes``). Empty for a game without words.

    Raises:
        UnknownEnvError: unknown ``env_id``.
    """
    from envs.core.words import load_words

    module = getattr(spec(env_id).game_info(), "words", "")
    if not module:
        return frozenset()
    words = load_words(module)
    return frozenset(name for name, option in words.options.items() if option.agents_only)


def _without_agents_only(env_id: str, setting: dict) -> dict:
    drop = agents_only_arguments(env_id)
    return {k: v for k, v in setting.items() if k not in drop}


def shipped_for(env_id: str, env_kwargs: dict | None = None, index: str | Path | None = None) -> list[ShippedAgent]:
    """The shipped agents trained on exactly this setting (same env id, same
    :func:`setting_kwargs`: ``max_steps`` and ``render_mode`` do not count, any other argument,
    a start position included, does). An alphazero agent also plays the settings that differ from
    its own only in arguments for agents' observations (:func:`agents_only_arguments`): its search
    observes from the rules state in its own setting (:meth:`ShippedAgent.setting`).

    Args:
        env_id: a registered environment id.
        env_kwargs: its constructor arguments (``None``: the defaults).
        index: the ``index.json`` to read (default :data:`INDEX`).

    Returns:
        The matching agents, in the index's order; their files checked.

    Raises:
        UnknownEnvError, ParameterError: as :func:`setting_kwargs`.
        ShippedIndexError: as :func:`shipped_agents`, for a matching entry.
    """
    wanted = setting_kwargs(env_id, env_kwargs)
    searched = _without_agents_only(env_id, wanted)
    index = Path(index) if index is not None else INDEX
    found = []
    for e in _entries(index):
        if e["env_id"] != env_id:
            continue
        setting = setting_kwargs(e["env_id"], e["env_kwargs"])
        if setting == wanted or (e["engine"] == "alphazero" and _without_agents_only(env_id, setting) == searched):
            found.append(_agent(e, index, verify=True))
    return found


def shipped_markdown(index: str | Path | None = None) -> str:
    """The Markdown table of the shipped agents that the docs carry (docs/evaluation.md)."""
    rows = [
        "| Name | Engine | Env id | Setting (`--env-kwargs`) | Trained | Summary |",
        "|---|---|---|---|---|---|",
    ]
    for e in _entries(Path(index) if index is not None else INDEX):
        kwargs = f"`{json.dumps(e['env_kwargs'])}`" if e["env_kwargs"] else "defaults"
        if e["engine"] == "alphazero":
            searched = f", searching with `{e['heuristic']}`" if "heuristic" in e else ""
            engine, steps = f"AlphaZero (room: `{e['name']}:{e['room_simulations']}`{searched})", "positions"
        else:
            engine, steps = "MaskablePPO", "timesteps"
        rows.append(
            f"| `{e['name']}` | {engine} | `{e['env_id']}` | {kwargs} | `{e['config']}`, seed {e['seed']}, "
            f"{e['timesteps']:,} {steps} | {e['summary']} |"
        )
    return "\n".join(rows)


# --------------------------------------------------------------------------- adding a run


def strip_optimizer(source: str | Path, dest: str | Path) -> None:
    """Save a MaskablePPO checkpoint without the optimizer's state (Adam's moment estimates,
    two thirds of the file): the policy weights and everything ``MaskablePPO.load`` needs are
    kept; only resuming training from the file would start the moments afresh.

    Raises:
        ValueError: ``source`` is not a MaskablePPO checkpoint.
    """
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(source, device="cpu")
    except Exception as e:  # SB3 raises many kinds for foreign files
        raise ValueError(f"{source} is not a MaskablePPO checkpoint: {e}") from e
    model.policy.optimizer.state.clear()
    model.tensorboard_log = None  # a path of the training machine
    model.save(dest)


def strip_alphazero(source: str | Path, dest: str | Path) -> None:
    """Save the playing part of an AlphaZero checkpoint: ``{"format": AGENT_FORMAT, "config",
    "network"}`` (:data:`training.agents.alphazero.AGENT_FORMAT`), the run's config and the
    network's weights as they are (the same moves). Left out: the optimizer, the replay buffer,
    the generators' states, the counters and the games in progress, which only ``--resume`` uses
    (the buffer alone is about 115 MB for Ataxx's 50,000 positions). The file holds only plain
    Python values and tensors: ``torch.load(dest, weights_only=True)`` reads it.

    Raises:
        FileNotFoundError: no ``source``. ValueError: ``source`` is not a full checkpoint of the
            AlphaZero engine (a stripped one included).
    """
    import torch

    from training.agents.alphazero import AGENT_FORMAT, load_checkpoint

    data = load_checkpoint(source)
    torch.save({"format": AGENT_FORMAT, "config": data["config"], "network": data["network"]}, dest)


def _short(x: float) -> str:
    """A score with at most three decimals, trailing zeros dropped: ``0.985``, ``0.22``, ``1.0``."""
    text = f"{x:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def add_run(
    run_dir: str | Path,
    commit: str,
    index: str | Path | None = None,
    summary: str | None = None,
    room_simulations: int | None = None,
    heuristic: str | None = None,
) -> dict:
    """Add (or replace) the shipped agent of a finished ``training.train`` run of the sb3 or the
    alphazero engine (the config's ``engine``).

    Reads the run's ``config.yaml`` (name, engine, env id and kwargs, seed), ``report.json``
    (timesteps, final scores) and its final checkpoint; writes beside the index ``<name>.zip``
    (sb3: ``checkpoints/final.zip`` through :func:`strip_optimizer`) or ``<name>.pt`` (alphazero:
    ``checkpoints/final.pt`` through :func:`strip_alphazero`) and its entry into the index (an
    entry of the same name is replaced in place, its old file removed if the new one has another
    name; a new one appended).

    Args:
        run_dir: the run's folder.
        commit: the code commit that trained it (40 hex digits).
        index: the index to update (default :data:`INDEX`).
        summary: the one-line summary (default: made from the config and ``report.json``).
        room_simulations: alphazero only: the simulations a move of the agent the play room
            offers (default :data:`ROOM_SIMULATIONS`, measured to answer within about a second).
        heuristic: alphazero only: the evaluation the agent's search mixes in wherever it plays,
            in place of the run's ``search.heuristic`` (default: the run's own; no entry field).

    Returns:
        The new entry.

    Raises:
        FileNotFoundError: a file of the run is missing. ValueError: a bad commit, a smoke run, an
            engine that cannot be shipped, ``room_simulations`` or ``heuristic`` for an sb3 run,
            ``room_simulations`` below 0, a ``heuristic`` the game does not offer or for a run
            whose search mixes in no evaluation (``search.heuristic_weight`` 0), or a foreign
            checkpoint.
    """
    import yaml

    run, index = Path(run_dir), Path(index) if index is not None else INDEX
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise ValueError(f"commit must be 40 lower-case hex digits, got {commit!r}")
    if not (run / "config.yaml").is_file():
        raise FileNotFoundError(f"{run / 'config.yaml'} does not exist: is {run} a finished training.train run?")
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    engine = cfg.get("engine", "sb3")
    if engine not in SUFFIX:
        raise ValueError(f"{run} is a run of the {engine} engine: only {' and '.join(SUFFIX)} runs can be shipped")
    source = run / "checkpoints" / f"final{SUFFIX[engine]}"
    for f in (run / "report.json", source):
        if not f.is_file():
            raise FileNotFoundError(f"{f} does not exist: is {run} a finished training.train run?")
    if engine == "sb3" and room_simulations is not None:
        raise ValueError(f"{run} is a MaskablePPO run: room_simulations is for AlphaZero runs only")
    if engine == "sb3" and heuristic is not None:
        raise ValueError(f"{run} is a MaskablePPO run: heuristic is for AlphaZero runs only")
    if heuristic is not None and heuristic not in (offered := _evaluators(cfg["env_id"])):
        raise ValueError(f"heuristic must be one of {offered} (the evaluations of {cfg['env_id']}), got {heuristic!r}")
    if heuristic is not None and not cfg.get("search", {}).get("heuristic_weight", 0.0):
        raise ValueError(
            f"{run} searches with its network's value alone (search.heuristic_weight 0): a heuristic would "
            "change nothing"
        )
    if engine == "alphazero":
        sims = ROOM_SIMULATIONS if room_simulations is None else room_simulations
        if isinstance(sims, bool) or not isinstance(sims, int) or sims < 0:
            raise ValueError(f"room_simulations must be an integer >= 0, got {sims!r}")
    report = json.loads((run / "report.json").read_text())
    if report.get("smoke"):
        raise ValueError(f"{run} is a --smoke run: its agent is untrained")
    name = cfg["name"]
    if summary is None:
        vs = report.get("vs", {})
        scores = ", ".join(f"{_short(v['score'])} vs {opp}" for opp, v in vs.items())
        games = sorted({v["games"] for v in vs.values()})
        if engine == "alphazero":
            how = (
                f"Gumbel AlphaZero self-play ({cfg['search']['simulations']} simulations a move); its run's "
                f"final evaluation at {cfg['search']['eval_simulations']} simulations"
            )
        else:
            how = (
                "MaskablePPO self-play"
                f"{' after a warm start imitating ' + report['pretrain']['teacher'] if report.get('pretrain') else ''}"
                "; its run's final evaluation"
            )
        summary = f"{how}: {scores} ({'/'.join(map(str, games))} games each)"
    dest = index.parent / f"{name}{SUFFIX[engine]}"
    index.parent.mkdir(parents=True, exist_ok=True)
    (strip_alphazero if engine == "alphazero" else strip_optimizer)(source, dest)
    entry = {
        "name": name,
        "engine": engine,
        "file": dest.name,
        "env_id": cfg["env_id"],
        "env_kwargs": cfg.get("env_kwargs") or {},
        "config": f"configs/{name}.yaml",
        "seed": int(cfg["seed"]),
        "timesteps": int(report["timesteps"]),
        "commit": commit,
        "sha256": file_sha256(dest),
        "source_sha256": file_sha256(source),
        "summary": summary,
    }
    if engine == "alphazero":
        entry["room_simulations"] = sims
    if heuristic is not None:
        entry["heuristic"] = heuristic
    old = json.loads(index.read_text()) if index.exists() else {}
    agents = [e for e in old.get("agents", []) if e.get("name") != name]
    where = next((i for i, e in enumerate(old.get("agents", [])) if e.get("name") == name), len(agents))
    replaced = next((e for e in old.get("agents", []) if e.get("name") == name), None)
    agents.insert(where, entry)
    data = {"about": ABOUT, **{k: v for k, v in old.items() if k not in ("about", "agents")}, "agents": agents}
    index.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if replaced is not None and isinstance(replaced.get("file"), str) and replaced["file"] != dest.name:
        stale = index.parent / Path(replaced["file"]).name  # the replaced entry's file (another suffix)
        if stale.is_file():
            stale.unlink()
    _entries(index)  # check what was written
    return entry


def main(argv: list[str] | None = None) -> int:
    """``python -m training.agents.shipped [list]`` prints the docs' table (docs/evaluation.md);
    ``python -m training.agents.shipped add RUN_DIR --commit SHA`` adds a run's agent."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m training.agents.shipped", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="print the Markdown table of the shipped agents (the default)")
    add = sub.add_parser("add", help="add (or replace) the agent of a finished training.train run")
    add.add_argument("run_dir", help="the run's folder (config.yaml, report.json, checkpoints/final.zip or final.pt)")
    add.add_argument("--commit", required=True, help="the code commit that trained it (40 hex digits)")
    add.add_argument("--summary", default=None, help="one line for people (default: from report.json)")
    add.add_argument(
        "--room-simulations",
        type=int,
        default=None,
        metavar="N",
        help="AlphaZero runs only: the simulations a move of the agent the play room offers (default "
        f"{ROOM_SIMULATIONS}: within about a second a move on a 2-core CPU, TwixT 24x24 included)",
    )
    add.add_argument(
        "--heuristic",
        default=None,
        metavar="NAME",
        help="AlphaZero runs only: the game's evaluation the agent's search mixes in wherever it plays, in "
        "place of the run's search.heuristic (default: the run's own)",
    )
    add.add_argument("--index", default=None, help=f"the index to update (default {INDEX})")
    args = p.parse_args(argv)
    try:
        if args.command == "add":
            entry = add_run(
                args.run_dir,
                args.commit,
                index=args.index,
                summary=args.summary,
                room_simulations=args.room_simulations,
                heuristic=args.heuristic,
            )
            print(json.dumps(entry, indent=1))
        else:
            shipped_agents()  # every file checked
            print(shipped_markdown())
    except (ValueError, FileNotFoundError) as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
