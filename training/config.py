"""The run config of ``python -m training.train``: typed sections, their defaults and checks.

A config is a YAML file (``configs/*.yaml``, each key commented there) read by :func:`load_config`
into the config model of its engine (``engine:``, default ``sb3``; :mod:`training.engines`). Each
section is a pydantic model: every key has its type, its default, its bounds and a one-line
description (``docs/training/config.md`` is generated from them: ``python docs/config_reference.py``).
Unknown keys and bad values are errors (:class:`ConfigError`) that name the key, what was
expected and what was given.

This module holds the sections both engines share (:class:`PolicyConfig`, :class:`PoolConfig`,
:class:`EvalConfig`, :class:`FinalEvalConfig`) and :class:`RunConfig`, the top-level keys every
engine has; each engine's own sections and its full model are in its package
(:mod:`training.engines.sb3.config`, :mod:`training.engines.rllib.config`).

Checks against the game (the environment and its kwargs, the network against its observation
and action layout, every agent spec against the game) need the game built and every agent made:
:func:`validate_config`, run by :func:`load_config` and again by :func:`training.runs.train`.

A config reads like a mapping as well (``cfg["ppo"]["n_steps"]``, ``cfg.get("engine")``), so the
code that takes a config as a dict (the warm start, the RLlib module) reads either.
"""

from __future__ import annotations

import difflib
import inspect
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from training.engine_registry import get_engine
from training.selfplay import POOL_DEFAULTS

__all__ = [
    "ConfigError",
    "Expect",
    "Section",
    "PolicyConfig",
    "PoolConfig",
    "EvalConfig",
    "FinalEvalConfig",
    "PretrainConfig",
    "MeasuredConfig",
    "RunConfig",
    "load_config",
    "configs_dir",
    "shipped_configs",
    "resolve_config",
    "validate_config",
    "config_error",
    "expect_text",
    "PositiveInt",
    "NonNegativeInt",
    "PositiveNumber",
    "NonNegativeNumber",
    "UnitNumber",
    "Probability",
]


class ConfigError(ValueError):
    """A bad config value, run directory or checkpoint to resume from (raised before training)."""


class Expect:
    """What a field must be, as the error messages say it (``"a positive integer"``); attached to a
    type with ``Annotated``."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"Expect({self.text!r})"


# Numbers are strict: a bool, a string (YAML reads ``3e-4`` as text) or an infinite value is refused,
# and an integer stays an integer (so config.yaml writes it back as it was written).
_Int = Annotated[int, Field(strict=True)]
PositiveInt = Annotated[_Int, Field(ge=1), Expect("a positive integer")]
NonNegativeInt = Annotated[_Int, Field(ge=0), Expect("a non-negative integer")]
# an int or a finite float (kept as given) within the bounds; each written out, not built by a
# function, so that the type checker reads them as types
PositiveNumber = Annotated[
    Annotated[int, Field(strict=True, gt=0)] | Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)],
    Expect("a positive number"),
]
NonNegativeNumber = Annotated[
    Annotated[int, Field(strict=True, ge=0)] | Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0)],
    Expect("a non-negative number"),
]
UnitNumber = Annotated[
    Annotated[int, Field(strict=True, gt=0, le=1)]
    | Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0, le=1)],
    Expect("a number in (0, 1]"),
]
Probability = Annotated[
    Annotated[int, Field(strict=True, ge=0, le=1)]
    | Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0, le=1)],
    Expect("a probability in [0, 1]"),
]
AgentSpecs = Annotated[list[str], Expect("a list of agent specs")]
Opponents = Annotated[list[str], Field(min_length=1), Expect("a non-empty list of agent specs")]


class Section(BaseModel):
    """A config section: unknown keys refused, values checked on assignment too, and read like a
    mapping (``section["key"]``, ``section.get(key)``, ``dict(section)``, ``**section``) by a key's
    YAML name."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True)

    #: The section's key path from the top of the config (``"ppo."``), for messages.
    _prefix: str = PrivateAttr("")

    @classmethod
    def field_of(cls, key: str) -> str | None:
        """The attribute that holds YAML key ``key`` (a field's name or its alias), or ``None``."""
        for name, info in cls.model_fields.items():
            if key == name or key == info.alias:
                return name
        return None

    @classmethod
    def yaml_keys(cls) -> list[str]:
        """The section's keys as a YAML file writes them (aliases included)."""
        return [info.alias or name for name, info in cls.model_fields.items()]

    def keys(self) -> list[str]:
        return self.yaml_keys()

    def __getitem__(self, key: str):
        name = self.field_of(key)
        if name is None:
            raise KeyError(key)
        return getattr(self, name)

    def __setitem__(self, key: str, value) -> None:
        name = self.field_of(key)
        if name is None:
            raise KeyError(
                f"unknown config key {self._prefix + key!r}; known keys here: {', '.join(sorted(self.yaml_keys()))}"
            )
        setattr(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_"):
            return super().__setattr__(name, value)
        try:
            super().__setattr__(name, value)
        except ValidationError as e:
            info = type(self).model_fields.get(name)
            key = (info.alias if info is not None else None) or name
            raise config_error(e, {key: value}, type(self), self._prefix) from None
        self._name_sections()

    def model_post_init(self, context) -> None:
        self._name_sections()

    def _name_sections(self) -> None:
        """Tell the sections below where they are (their key path, for messages)."""
        for name, info in type(self).model_fields.items():
            value = self.__dict__.get(name)
            if isinstance(value, Section):
                value._prefix = f"{self._prefix}{info.alias or name}."
                value._name_sections()

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.field_of(key) is not None

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def update(self, values: dict | None = None, /, **kw) -> None:
        """Assign several keys at once, checked together (so that ``update(train_batch_size=64,
        minibatch_size=32)`` passes no state where one contradicts the other)."""
        changes = {**(values or {}), **kw}
        for k in changes:
            if k not in self:
                raise KeyError(
                    f"unknown config key {self._prefix + k!r}; known keys here: {', '.join(sorted(self.yaml_keys()))}"
                )
        data = {**self.model_dump(by_alias=True), **changes}
        try:
            new = type(self).model_validate(data)
        except ValidationError as e:
            raise config_error(e, data, type(self), self._prefix) from None
        self.__dict__.update(new.__dict__)
        self._name_sections()

    def to_dict(self) -> dict:
        """The section as plain data (YAML names, the keys in declaration order)."""
        return self.model_dump(by_alias=True)


def _pool_default(key: Literal["baseline_prob", "latest_prob", "max_snapshots"]) -> Any:
    return Field(POOL_DEFAULTS[key], description=_POOL_DOCS[key])


_POOL_DOCS = {
    "baseline_prob": "probability that an opponent seat plays one of the baselines",
    "latest_prob": "probability that it plays the learner's current policy (else a snapshot, when any)",
    "max_snapshots": "snapshots of the learner kept in the pool (the oldest leaves first)",
}


def _default_net_arch() -> dict[Literal["pi", "vf"], list[int]]:
    return {"pi": [], "vf": [64]}


class PolicyConfig(Section):
    """``policy``: the network, the same families for every engine (:mod:`training.features`)."""

    features: Annotated[str, Expect("the name of a features extractor (training.features.FEATURE_EXTRACTORS)")] = Field(
        "board_cnn", description="features extractor: a name of training.features.FEATURE_EXTRACTORS"
    )
    features_kwargs: Annotated[dict[str, Any], Expect("a mapping of the extractor's keyword arguments")] = Field(
        default_factory=lambda: {"channels": 64, "blocks": 3},
        description="the extractor's keyword arguments (sizes); board_key, features_dim and append come from the game",
    )
    head: Annotated[Literal["spatial", "factored", "linear"], Expect("'spatial', 'factored' or 'linear'")] = Field(
        "spatial", description="policy head: 1x1-conv logits per square (spatial), per plane (factored), or dense"
    )
    value_head: Annotated[Literal["dense", "pooled"], Expect("'dense' or 'pooled'")] = Field(
        "dense", description="value head: dense layers on the features, or a pooled trunk on the convolution map"
    )
    net_arch: Annotated[
        dict[Literal["pi", "vf"], list[Annotated[_Int, Field(ge=1)]]],
        Expect("a mapping {pi: [sizes], vf: [sizes]} of positive integers"),
    ] = Field(default_factory=_default_net_arch, description="hidden layer sizes of the policy and value MLPs")

    @model_validator(mode="after")
    def _heads_agree(self):
        if self.value_head == "pooled" and self.head == "linear":
            raise ConfigError(
                "config 'policy.value_head' must be 'dense' with head 'linear' (the pooled value trunk "
                f"needs the spatial policy), got {self.value_head!r}"
            )
        if self.value_head == "pooled" and not self.net_arch.get("vf"):
            raise ConfigError(
                "config 'policy.net_arch' must be a non-empty vf list with value_head 'pooled' (e.g. "
                f"{{pi: [], vf: [64]}}), got {self.net_arch!r}"
            )
        return self


class PoolConfig(Section):
    """``pool``: the opponents of the learner's seat (:class:`training.selfplay.OpponentPool`);
    each engine adds its own keys."""

    baselines: AgentSpecs = Field(
        default_factory=lambda: ["random", "greedy"], description="agent specs always in the pool (training.agents)"
    )
    baseline_prob: Probability = _pool_default("baseline_prob")
    latest_prob: Probability = _pool_default("latest_prob")
    max_snapshots: PositiveInt = _pool_default("max_snapshots")

    @model_validator(mode="after")
    def _probabilities_sum(self):
        total = self.baseline_prob + self.latest_prob
        if total > 1 + 1e-9:
            raise ConfigError(f"config 'pool.baseline_prob + pool.latest_prob' must be at most 1, got {total!r}")
        return self


Partner = Annotated[Literal["latest", "pool"], Expect("'latest' or 'pool'")]
PARTNER_DOC = "team games: the learner's partners play its current policy (latest) or are drawn like opponents (pool)"


class EvalConfig(Section):
    """``eval``: the periodic evaluation during training."""

    every: PositiveInt = Field(50_000, description="timesteps between evaluations")
    games: PositiveInt = Field(20, description="games against each opponent per evaluation")
    opponents: Opponents = Field(default_factory=lambda: ["random", "greedy"], description="agent specs to play")


class FinalEvalConfig(Section):
    """``final_eval``: the final tournament of the trained agent and the opponents."""

    games: PositiveInt = Field(200, description="games per pair (or group) of the tournament")
    opponents: Opponents = Field(default_factory=lambda: ["random", "greedy"], description="agent specs to play")


class PretrainConfig(Section):
    """``pretrain``: the behaviour-cloning warm start of a new run: the network imitates a teacher agent
    before self-play (the SB3 engine: :mod:`training.pretrain`; the AlphaZero engine:
    :mod:`training.engines.alphazero.warm_start`). Never applied when resuming."""

    teacher: Annotated[str | None, Expect("null (no warm start) or an agent spec")] = Field(
        None, description="the agent to imitate before self-play (null: no warm start)"
    )
    games: PositiveInt = Field(200, description="games of the teacher to imitate")
    epochs: PositiveInt = Field(4, description="passes over the teacher's decisions")
    batch_size: PositiveInt = Field(256, description="minibatch size")
    learning_rate: UnitNumber = Field(1.0e-3, description="Adam's step size")


class MeasuredConfig(Section):
    """``measured``: how long a run of the config took where it was measured, for ``python -m
    training.train --list``; training never reads it (a run's ``config.yaml`` leaves it out)."""

    minutes: Annotated[PositiveNumber | None, Expect("null (not measured) or a positive number")] = Field(
        None, description="wall-clock minutes of the measured run (null: not measured)"
    )
    what: str = Field(
        "", description="what the minutes cover and how they were measured (seed, the machine's load, the source)"
    )

    @model_validator(mode="after")
    def _minutes_say_what(self):
        if (self.minutes is None) != (self.what.strip() == ""):
            raise ConfigError(
                "config 'measured' must give both minutes and what they cover (what), or neither, got "
                f"minutes {self.minutes!r} and what {self.what!r}"
            )
        return self


class RunConfig(Section):
    """The keys of every engine's config; an engine's config model (:mod:`training.engines`)
    subclasses it, adds its sections, and gives :attr:`KEY_ORDER`, :meth:`smoke` and :meth:`budgets`."""

    #: The top-level keys in the order config.yaml writes them (``name`` last; ``measured``, which
    #: describes the config file and not the run, is left out).
    KEY_ORDER: ClassVar[tuple[str, ...]] = ()
    #: What ``total_timesteps`` counts, as ``--list`` says it.
    BUDGET_UNIT: ClassVar[str] = "timesteps"

    name: Annotated[str, Field(min_length=1), Expect("a non-empty string")] = Field(
        "config", description="the run's name (default: the config file's stem)"
    )
    engine: str = Field("sb3", description="the trainer: a name of training.engines.ENGINES")
    env_id: Annotated[str | None, Expect("a registered environment id (required)")] = Field(
        None, description="the game to train on (envs.registry)"
    )
    env_kwargs: Annotated[dict[str, Any], Expect("a mapping")] = Field(
        default_factory=dict, description="keyword arguments of the environment (envs.make)"
    )
    max_steps: Annotated[PositiveInt | None, Expect("null or a positive integer")] = Field(
        400, description="moves after which a game is stopped as a draw (null: no limit)"
    )
    seed: NonNegativeInt = Field(0, description="seeds every random draw of the run")
    total_timesteps: PositiveInt = Field(200_000, description="timesteps to train (the learner's decisions)")
    torch_threads: PositiveInt = Field(1, description="torch's intra-op threads (one is fastest for small networks)")
    policy: PolicyConfig = Field(default_factory=PolicyConfig, description="the network")
    eval: EvalConfig = Field(default_factory=EvalConfig, description="the periodic evaluation")
    checkpoint_every: PositiveInt = Field(50_000, description="timesteps between checkpoints")
    final_eval: FinalEvalConfig = Field(default_factory=FinalEvalConfig, description="the final tournament")
    measured: MeasuredConfig = Field(
        default_factory=MeasuredConfig,
        description="how long a run of this config took where it was measured (shown by --list; not used to train)",
    )
    if TYPE_CHECKING:
        # every engine's model adds its ``pool`` section (a PoolConfig subclass) where its KEY_ORDER puts it
        pool: PoolConfig

    def to_dict(self) -> dict:
        """The resolved config as plain data, keys in :attr:`KEY_ORDER` (what config.yaml holds)."""
        data = self.model_dump(by_alias=True)
        return {k: data[k] for k in self.KEY_ORDER}

    def smoke(self) -> RunConfig:
        """A copy with every budget shrunk so that the run ends in seconds (``--smoke``)."""
        raise NotImplementedError

    def budgets(self, pretrained: bool = True) -> dict:
        """The budgets as ``report.json`` records them."""
        raise NotImplementedError

    def agent_specs(self, check_teacher: bool = True) -> list[tuple[str, list[str]]]:
        """``(key, specs)`` of every agent spec the run will make, for :func:`validate_config`."""
        return [
            ("pool.baselines", self.pool.baselines),
            ("eval.opponents", self.eval.opponents),
            ("final_eval.opponents", self.final_eval.opponents),
        ]


# ---------------------------------------------------------------------------------------------
# errors


def _yaml_hint(value) -> str:
    """`` (YAML reads 3e-4 as text: write 3.0e-4)`` for a number YAML read as a string."""
    if not isinstance(value, str):
        return ""
    try:
        float(value)
    except ValueError:
        return ""
    mantissa, e, exponent = value.lower().partition("e")
    fixed = (mantissa if "." in mantissa else mantissa + ".0") + (e + exponent if e else "")
    return f" (YAML reads {value} as text: write {fixed})"


def expect_text(info) -> str | None:
    """What a field (its pydantic ``FieldInfo``) must be, as messages and docs say it: its
    outermost :class:`Expect`, or ``None``."""
    metadata = list(info.metadata) + list(getattr(info.annotation, "__metadata__", ()))
    found = [m.text for m in metadata if isinstance(m, Expect)]
    return found[-1] if found else None


def config_error(error: ValidationError, data: dict, model: type[Section], prefix: str = "") -> ConfigError:
    """The first error of a pydantic validation as a :class:`ConfigError` naming the key (its
    path from the top of the config), what was expected and what was given.

    Args:
        error: the validation error of ``model`` on ``data``.
        data: the input that was validated (to show the value given).
        model: the section model validated.
        prefix: the section's key path (``"ppo."``) when ``model`` is not the top level.
    """
    err = error.errors(include_url=False)[0]
    loc = [str(x) for x in err["loc"]]
    if err["type"] == "value_error" and isinstance(err.get("ctx", {}).get("error"), ConfigError):
        return err["ctx"]["error"]
    # walk the models along the location: the deepest field that is a section or says what it expects
    cls: type[Section] = model
    value: Any = data
    path: list[str] = []
    expected: str | None = None
    for i, key in enumerate(loc):
        name = cls.field_of(key) if isinstance(cls, type) and issubclass(cls, Section) else None
        if name is None:
            if err["type"] == "extra_forbidden" and i == len(loc) - 1:
                where = prefix + ".".join(path + [key])
                hint = getattr(cls, "UNKNOWN_KEY_HINT", "")
                return ConfigError(
                    f"unknown config key {where!r}; known keys here: {', '.join(sorted(cls.yaml_keys()))}{hint}"
                )
            break
        info = cls.model_fields[name]
        path.append(key)
        value = value.get(key) if isinstance(value, dict) else None
        expected = expect_text(info)
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, Section):
            if err["type"] == "model_type" and i == len(loc) - 1:
                return ConfigError(
                    f"config key {prefix + '.'.join(path)!r} must be a mapping, got {type(value).__name__}"
                )
            cls = sub
            continue
        break
    where = prefix + ".".join(path)
    if expected is None:
        expected = err["msg"][0].lower() + err["msg"][1:]
    if err["type"] == "value_error":
        expected = str(err["ctx"]["error"])
    return ConfigError(f"config {where!r} must be {expected}{_yaml_hint(value)}, got {value!r}")


# ---------------------------------------------------------------------------------------------
# loading and the checks against the game


#: The suffix of the shipped configs' files (``configs/<name>.yaml``).
CONFIG_SUFFIX = ".yaml"


def configs_dir() -> Path:
    """The folder of the shipped configs.

    An installed wheel has them as package data, ``training/configs/`` (pyproject.toml maps the
    top-level ``configs/`` folder there), found through :mod:`importlib.resources`. A source
    checkout (an editable install, or ``PYTHONPATH`` set to the checkout) has no such folder: its
    configs are the ``configs/`` folder beside the imported ``training`` package.

    Raises:
        FileNotFoundError: neither folder exists (a broken install).
    """
    installed = resources.files("training").joinpath("configs")
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parents[1] / "configs"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"the shipped configs are missing: neither {installed} (an installed wheel's package data) nor "
        f"{checkout} (a source checkout's configs/) is a folder; reinstall tabletop-rl"
    )


def shipped_configs() -> dict[str, Path]:
    """Every shipped config by its name (the file's stem, ``ataxx_quick``), sorted by name."""
    return {p.stem: p for p in sorted(configs_dir().iterdir()) if p.suffix == CONFIG_SUFFIX and p.is_file()}


def resolve_config(config: str | Path) -> Path:
    """The YAML file that ``config`` names: a path to a file, or the name of a shipped config.

    A path that exists is taken as it is (as before names existed), so a file of the current
    folder wins over a shipped config of the same name; a folder does not (a run directory named
    ``ataxx_quick`` leaves the name to the shipped config). Otherwise ``config`` is a name (no
    folder, no ``.yaml``/``.yml`` suffix): one of :func:`shipped_configs`.

    Raises:
        FileNotFoundError: a path that does not exist (naming the shipped config of that stem when
            there is one), or a name that is not a shipped config (the message lists the names, the
            closest matches first).
    """
    p = Path(config)
    text = str(config)
    is_name = not (isinstance(config, Path) or "/" in text or "\\" in text or p.suffix in (".yaml", ".yml"))
    if p.exists() and not (p.is_dir() and is_name):
        return p
    shipped = shipped_configs()
    if not is_name:
        hint = f" (a shipped config has its name: give {p.stem} instead of the path)" if p.stem in shipped else ""
        raise FileNotFoundError(f"config file {p} does not exist{hint}")
    if text in shipped:
        return shipped[text]
    close = difflib.get_close_matches(text, list(shipped), n=3, cutoff=0.6)
    names = close + [n for n in shipped if n not in close]
    raise FileNotFoundError(
        f"config {text!r} is neither a file nor the name of a shipped config; the shipped configs"
        f"{', closest first' if close else ''}: {', '.join(names)} (their budgets: --list)"
    )


def load_config(path: str | Path, *, validate: bool = True, check_teacher: bool = True, **overrides) -> RunConfig:
    """Read a YAML config into its engine's config model (every key checked, the defaults filled in).

    ``path`` is a YAML file or the name of a shipped config (``"ataxx_quick"``; :func:`resolve_config`).

    ``overrides`` (e.g. ``total_timesteps=...``, ``seed=...``) replace top-level keys when not
    ``None``. The config is then checked against the game by :func:`validate_config` unless
    ``validate`` is false (the CLI passes it straight to :func:`training.runs.train`, which checks
    it itself: that check builds the environment and every agent, so it is done once).
    ``check_teacher=False`` (a resumed run, which never uses it) skips building ``pretrain.teacher``.

    Returns:
        The engine's :class:`RunConfig` (``training.engines.<engine>``'s ``config_model``).

    Raises:
        FileNotFoundError: no such file, nor a shipped config of that name.
        ValueError: not a YAML mapping, an empty config (no key, or only ``name``), an unknown
            engine; :class:`ConfigError` (a ``ValueError``): an unknown key, a section that is not
            a mapping, a bad value; with ``validate``, a value the game refuses.
    """
    p = resolve_config(path)
    if not p.is_file():
        raise ValueError(f"config path {p} is not a file")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as e:
        raise ValueError(f"{p} is not valid YAML: {e}") from None
    if not isinstance(data, dict) and data is not None:
        raise ValueError(f"{p}: the config must be a YAML mapping, got {type(data).__name__}")
    if not data or set(data) == {"name"}:
        raise ValueError(
            f"{p} sets nothing (an empty file, only comments, or an empty mapping); a config sets "
            "at least env_id and what differs from the defaults: see configs/ataxx_quick.yaml"
        )
    data.setdefault("name", p.stem)  # a run's resolved config.yaml carries the name of its config
    if not isinstance(data["name"], str) or not data["name"]:
        raise ValueError(f"{p}: config key 'name' must be a non-empty string, got {data['name']!r}")
    try:
        engine = get_engine(data.setdefault("engine", "sb3"))
    except ValueError as e:
        raise ValueError(f"{p}: {e}") from None
    data.update({k: v for k, v in overrides.items() if v is not None})
    model = engine.config_model
    try:
        cfg = model.model_validate(data)
    except ValidationError as e:
        raise config_error(e, data, model) from None
    if validate:
        validate_config(cfg, check_teacher=check_teacher)
    return cfg


def _require(cond: bool, key: str, expected: str, value) -> None:
    if not cond:
        raise ConfigError(f"config {key!r} must be {expected}, got {value!r}")


def validate_config(cfg: RunConfig, check_teacher: bool = True) -> None:
    """Check a config against its game before anything runs (its values are checked by the model,
    and again here as a whole: a section changed after loading may contradict another one).

    Builds the environment and every agent spec once, so a typo fails here and not hours into a
    run: the environment id and kwargs, the network against the game's observation and action
    layout, every agent spec (can it play this game?), then the engine's own checks
    (:meth:`training.engines.Engine.validate`). With ``check_teacher=False`` (a resumed run: the
    warm start is skipped) ``pretrain.teacher`` is not built, so a teacher checkpoint that has
    since been moved does not block resuming.

    Raises:
        ConfigError (a ``ValueError``): the first bad value, naming its key and what was expected.
    """
    from envs.registry import env_ids, spec
    from training.agents import make_agent
    from training.features import FEATURE_EXTRACTORS, extractor_kwargs

    engine = get_engine(cfg.engine)
    data = cfg.model_dump(by_alias=True)
    try:  # again as a whole: a section changed after loading is checked against the others too
        type(cfg).model_validate(data)
    except ValidationError as e:
        raise config_error(e, data, type(cfg)) from None
    _require(
        isinstance(cfg.env_id, str) and cfg.env_id != "",
        "env_id",
        f"a registered environment id ({', '.join(env_ids())})",
        cfg.env_id,
    )
    env_id = cfg.env_id
    assert env_id is not None  # checked just above
    _require(
        "render_mode" not in cfg.env_kwargs,
        "env_kwargs.render_mode",
        "absent (training draws nothing; watch a checkpoint with python -m training.play)",
        cfg.env_kwargs.get("render_mode"),
    )
    try:  # the registry checks the id and the kwargs (its messages, prefixed with the config keys)
        probe = spec(env_id).make_raw(**{**cfg.env_kwargs, "max_steps": cfg.max_steps})
    except ValueError as e:
        raise ConfigError(f"config env_id/env_kwargs: {e}") from None

    pol = cfg.policy
    _require(
        pol.features in FEATURE_EXTRACTORS, "policy.features", f"one of {sorted(FEATURE_EXTRACTORS)}", pol.features
    )
    fe_params = [
        n
        for n in inspect.signature(FEATURE_EXTRACTORS[pol.features].__init__).parameters
        if n not in ("self", "observation_space")
    ]
    _require(
        set(pol.features_kwargs) <= set(fe_params),
        "policy.features_kwargs",
        f"a mapping with keys among {fe_params}",
        pol.features_kwargs,
    )
    layout = probe.action_layout()
    _require(
        pol.head == "linear" or layout is not None,
        "policy.head",
        f"'linear' for {cfg.env_id} (its actions have no grid layout for a spatial head)",
        pol.head,
    )
    _require(
        pol.head != "factored" or layout.factored,
        "policy.head",
        f"'spatial' or 'linear' for {cfg.env_id} (its action layout describes no planes for a factored head)",
        pol.head,
    )
    if pol.head != "linear":
        default = inspect.signature(FEATURE_EXTRACTORS[pol.features].__init__).parameters["features_dim"].default
        fdim = pol.features_kwargs.get("features_dim", 0)
        _require(
            fdim == 0,
            "policy.features_kwargs.features_dim",
            f"0 or absent with head {pol.head!r} (it reads the whole convolution map; {pol.features} "
            f"defaults to {default} for a linear head)",
            fdim,
        )
        if "board_key" in pol.features_kwargs:
            _require(
                pol.features_kwargs["board_key"] == layout.obs_key,
                "policy.features_kwargs.board_key",
                f"absent or {layout.obs_key!r} (the observation entry {cfg.env_id}'s action layout lies on)",
                pol.features_kwargs["board_key"],
            )
    kwargs = extractor_kwargs(pol, layout)
    space = probe.observation_space(probe.possible_agents[0])["observation"]
    try:  # the extractor must be able to read this game's observation
        FEATURE_EXTRACTORS[pol.features](space, **kwargs)
    except (ValueError, TypeError, KeyError, AssertionError) as e:
        raise ConfigError(
            f"config 'policy.features' {pol.features!r} cannot read the observation of {cfg.env_id}: {e}"
        ) from None

    for key, specs in cfg.agent_specs(check_teacher=check_teacher):
        for s in specs:
            try:
                agent = make_agent(s)
            except (ValueError, FileNotFoundError) as e:
                raise ConfigError(f"config {key!r}: {e}") from None
            # it must be able to play this game (alpha-beta: two sides; a checkpoint: its shapes; a game's
            # own agent: that game), or the run would stop at its first game with it, perhaps hours in
            probe.reset(seed=0)
            try:
                agent.check_env(probe)
            except ValueError as e:
                raise ConfigError(f"config {key!r} {s!r} cannot play {cfg.env_id} with these env_kwargs: {e}") from None
    probe.reset(seed=0)
    engine.validate(cfg, probe)
