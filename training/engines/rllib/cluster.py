"""Starting or joining Ray for RLlib training, and the errors a user meets there as one clear line.

Starting and joining Ray (:func:`start_ray`, :func:`check_address`, :func:`parse_address`,
:func:`address_arg`, :func:`stop_ray`, :class:`ClusterError`, :class:`RayInfo`) is shared with the
AlphaZero engine's self-play actors and lives in :mod:`training.ray_cluster`; the names stay
importable from here, and :func:`start_ray` here first checks the whole ``rllib`` extra.

* :func:`check_resources` — the CPUs and GPUs the env runners, evaluation env runners and learners
  of an ``AlgorithmConfig`` ask for against what the cluster has. Ray queues an actor no node can
  hold until resources appear, and RLlib's env runner group waits for it in its constructor
  (measured: building PPO with 2 env runners on a 1-CPU Ray had not returned after 110 s, silently);
  this check says so first.
* :func:`apply_rllib_settings` — a mapping of RLlib setting names (the keyword arguments of
  ``AlgorithmConfig.training()``, ``.env_runners()``, ``.learners()``, ...) applied to a config.
  RLlib itself rejects an unknown keyword with a bare ``TypeError`` that lists nothing, and
  ``AlgorithmConfig.update_from_dict`` silently stores any unknown key; here the error names the
  key, the closest valid names and every valid one.
* :func:`validate_algo_config` — ``AlgorithmConfig.validate()`` with RLlib's multi-line
  ``ValueError`` turned into one line naming the config section.

Every error is a :class:`ClusterError` (a ``ValueError``; the training CLI prints it as one line)
or, for a missing extra, :class:`training.cli.MissingExtraError`. No function here names a game.
Importing this module does not import Ray.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping

from training import ray_cluster
from training.cli import RLLIB_MODULES, require_rllib
from training.ray_cluster import (
    CONNECT_TIMEOUT_S,
    GCS_TIMEOUT_S,
    ClusterError,
    RayInfo,
    address_arg,
    check_address,
    parse_address,
    quiet_logs,
    stop_ray,
)

__all__ = [
    "RLLIB_MODULES",
    "CONNECT_TIMEOUT_S",
    "GCS_TIMEOUT_S",
    "SETTING_SECTIONS",
    "ClusterError",
    "RayInfo",
    "require_rllib",
    "parse_address",
    "address_arg",
    "check_address",
    "start_ray",
    "stop_ray",
    "required_resources",
    "check_resources",
    "rllib_setting_names",
    "apply_rllib_settings",
    "validate_algo_config",
    "record_sampling_node",
    "SAMPLED_ON_NODE",
    "quiet_logs",
]

#: The ``AlgorithmConfig`` methods whose keyword arguments :func:`apply_rllib_settings` accepts as
#: setting names. The environment, the modules and the multi-agent mapping are the trainer's.
SETTING_SECTIONS = ("training", "env_runners", "learners", "evaluation", "reporting", "fault_tolerance")

#: Settings whose RLlib keyword differs from the name a config uses (``lambda`` is a Python keyword).
_ALIASES = {"lambda": "lambda_"}

#: The key of the env runners' metric written by :func:`record_sampling_node`.
SAMPLED_ON_NODE = "sampled_on_node"


def start_ray(
    address: str | None = None,
    *,
    num_cpus: int | None = None,
    num_gpus: int | None = None,
    quiet: bool = True,
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
    gcs_timeout_s: float = GCS_TIMEOUT_S,
) -> RayInfo:
    """:func:`training.ray_cluster.start_ray` (its arguments, return value and errors) after checking
    the whole ``rllib`` extra (:func:`training.cli.require_rllib`): Ray, RLlib and what RLlib needs.

    Raises:
        training.cli.MissingExtraError: the ``rllib`` extra is not installed.
        ClusterError: as :func:`training.ray_cluster.start_ray`.
    """
    require_rllib("RLlib training")
    return ray_cluster.start_ray(
        address,
        num_cpus=num_cpus,
        num_gpus=num_gpus,
        quiet=quiet,
        connect_timeout_s=connect_timeout_s,
        gcs_timeout_s=gcs_timeout_s,
        user="RLlib training",
    )


def required_resources(config) -> list[tuple[str, dict]]:
    """The Ray actors an ``AlgorithmConfig`` (new API stack) will create, with the resources each
    asks for: one ``("env runner", {...})`` per ``num_env_runners``, ``("evaluation env runner",
    ...)`` per ``evaluation_num_env_runners`` when evaluation is on, one ``("learner", ...)`` per
    ``num_learners`` (with its aggregator actors' CPUs), and ``("driver learner", {"GPU": g})``
    when ``num_learners`` is 0 and the driver's learner asks for ``num_gpus_per_learner`` GPUs.

    The rule is RLlib's own (``ray.rllib.algorithms.utils``, which builds the same bundles for Ray
    Tune). The driver process itself reserves nothing outside Tune.

    Returns:
        ``[(what, {"CPU": c, "GPU": g, **custom})]`` with zero entries dropped.
    """

    def bundle(**res) -> dict:
        return {k: v for k, v in res.items() if v}

    out = []
    for _ in range(int(config.num_env_runners or 0)):
        out.append(
            (
                "env runner",
                bundle(
                    CPU=config.num_cpus_per_env_runner,
                    GPU=config.num_gpus_per_env_runner,
                    **(config.custom_resources_per_env_runner or {}),
                ),
            )
        )
    if config.evaluation_interval and config.evaluation_num_env_runners:
        ev = config.get_evaluation_config_object()
        for _ in range(int(ev.evaluation_num_env_runners)):
            out.append(
                (
                    "evaluation env runner",
                    bundle(
                        CPU=ev.num_cpus_per_env_runner,
                        GPU=ev.num_gpus_per_env_runner,
                        **(ev.custom_resources_per_env_runner or {}),
                    ),
                )
            )
    gpus = config.num_gpus_per_learner or 0
    cpus = config.num_cpus_per_learner
    if cpus == "auto":
        cpus = 1 if gpus == 0 else 0
    aggregators = int(config.num_aggregator_actors_per_learner or 0)
    if config.num_learners:
        for _ in range(int(config.num_learners)):
            out.append(
                ("learner", bundle(CPU=cpus + aggregators, GPU=gpus, **(config.custom_resources_per_learner or {})))
            )
    else:
        out.extend(("aggregator actor", {"CPU": 1}) for _ in range(aggregators))
        if gpus:
            out.append(("driver learner", {"GPU": gpus}))
    return out


def _fmt(res: Mapping[str, float]) -> str:
    return ", ".join(f"{v:g} {k}" for k, v in sorted(res.items())) or "nothing"


def check_resources(
    config, cluster: Mapping[str, float] | None = None, nodes: list[Mapping[str, float]] | None = None
) -> dict:
    """Check that the cluster can hold every actor of an ``AlgorithmConfig`` at once, before RLlib
    creates them (Ray would wait for resources forever).

    Two checks: the sum of :func:`required_resources` against the cluster's totals, and each
    actor against the largest node (an actor lives on one node). A GPU for the driver's own learner
    (``num_learners: 0``) must be on the driver's node.

    Args:
        config: a ``ray.rllib.algorithms.algorithm_config.AlgorithmConfig``.
        cluster: total resources (default ``ray.cluster_resources()``: Ray must be running).
        nodes: each alive node's resources (default from ``ray.nodes()``); the driver's node first
            when given.

    Returns:
        The summed requirements of the actors, e.g. ``{"CPU": 2.0}``.

    Raises:
        ClusterError: naming what is asked for (``num_env_runners``, ``num_cpus_per_env_runner``,
            ``num_learners``...), what the cluster has, and what to change.
    """
    wanted = required_resources(config)
    if cluster is None or nodes is None:
        import ray

        cluster = ray.cluster_resources() if cluster is None else cluster
        if nodes is None:
            here = ray.get_runtime_context().get_node_id()
            alive = [n for n in ray.nodes() if n.get("Alive")]
            alive.sort(key=lambda n: n.get("NodeID") != here)
            nodes = [n.get("Resources", {}) for n in alive]
    total: dict = {}
    for what, res in wanted:
        if what == "driver learner":  # on the driver's node, checked below
            continue
        for k, v in res.items():
            total[k] = total.get(k, 0.0) + float(v)
    asks = (
        f"{config.num_env_runners} env runners x {config.num_cpus_per_env_runner:g} CPU"
        f"{f' + {config.num_gpus_per_env_runner:g} GPU' if config.num_gpus_per_env_runner else ''}, "
        f"{config.num_learners} learners (num_gpus_per_learner {config.num_gpus_per_learner:g})"
    )
    fix = (
        "lower rllib.num_env_runners (0 samples in the driver) or num_cpus_per_env_runner / num_learners / "
        "num_gpus_per_learner, or add nodes (`ray start --address=HEAD:PORT` on each)"
    )
    for what, res in wanted:
        if what == "driver learner":
            have = float((nodes[0] if nodes else {}).get("GPU", 0.0))
            if have < res["GPU"]:
                raise ClusterError(
                    f"num_gpus_per_learner {res['GPU']:g} with num_learners 0 needs "
                    f"{res['GPU']:g} GPU on the driver's node, which has {have:g}: set "
                    "num_gpus_per_learner 0, or num_learners >= 1 to put learners on GPU nodes"
                )
            continue
        if not any(all(float(node.get(k, 0.0)) >= v for k, v in res.items()) for node in nodes):
            biggest = max(nodes, key=lambda n: (n.get("CPU", 0.0), n.get("GPU", 0.0)), default={})
            raise ClusterError(
                f"an RLlib {what} asks for {_fmt(res)} but no node has that much (largest node: "
                f"{_fmt({k: v for k, v in biggest.items() if k in ('CPU', 'GPU')})}); Ray would "
                f"wait for it forever: {fix}"
            )
    short = {k: (v, float(cluster.get(k, 0.0))) for k, v in total.items() if v > float(cluster.get(k, 0.0)) + 1e-9}
    if short:
        need = ", ".join(f"{v:g} {k} (the cluster has {have:g})" for k, (v, have) in sorted(short.items()))
        raise ClusterError(f"the RLlib config asks for {need} at once ({asks}); Ray would wait for them forever: {fix}")
    return total


def _sections(config) -> dict[str, list[str]]:
    """``{section: [keyword names]}`` of the setting methods, over the config class's MRO (a
    subclass such as ``PPOConfig.training`` passes ``**kwargs`` up); deprecated keywords (RLlib's
    ``DEPRECATED_VALUE`` default) and private ones left out."""
    try:
        from ray._common.deprecation import DEPRECATED_VALUE
    except ImportError:  # older Ray
        from ray.rllib.utils.deprecation import DEPRECATED_VALUE  # type: ignore[import-not-found,no-redef]

    out = {}
    for section in SETTING_SECTIONS:
        names = set()
        for cls in type(config).__mro__:
            fn = cls.__dict__.get(section)
            if fn is None:
                continue
            for p in inspect.signature(fn).parameters.values():
                if (
                    p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                    and p.name != "self"
                    and not p.name.startswith("_")
                    and p.default is not DEPRECATED_VALUE
                ):
                    names.add(p.name)
        out[section] = sorted(names)
    return out


def rllib_setting_names(config) -> dict[str, str]:
    """Every setting :func:`apply_rllib_settings` accepts for ``config``'s algorithm:
    ``{name: section}`` (``lambda_`` also as ``lambda``). A name in several sections (such as
    ``learner_class``, in ``training`` and ``learners``) maps to the first in :data:`SETTING_SECTIONS`."""
    names: dict[str, str] = {}
    for section, keys in _sections(config).items():
        for k in keys:
            names.setdefault(k, section)
    for alias, real in _ALIASES.items():
        if real in names:
            names[alias] = names[real]
    return names


def apply_rllib_settings(
    config, settings: Mapping, *, where: str = "rllib", reserved: Mapping[str, str | None] | None = None
):
    """Apply RLlib settings by name to an ``AlgorithmConfig``, checking every name first.

    Args:
        config: an ``AlgorithmConfig`` (e.g. ``PPOConfig()``), modified in place.
        settings: ``{name: value}``, names as the keyword arguments of the config's
            :data:`SETTING_SECTIONS` methods (``lr``, ``num_env_runners``, ``num_learners``,
            ``lambda`` for ``lambda_``...).
        where: the settings' place in the user's config, for messages (``"rllib"`` gives
            ``'rllib.lrr'``).
        reserved: names the caller sets itself, each with the config key that sets it (``None``:
            fixed by the caller); naming one is an error that points there.

    Returns:
        ``config``.

    Raises:
        ClusterError: an unknown name (the message gives the closest valid names and all of them,
            by section), a ``reserved`` one, or a value the RLlib method rejects (its message on one
            line).
    """
    valid = rllib_setting_names(config)
    algo = type(config).__name__.removesuffix("Config") or "RLlib"
    unknown = [k for k in settings if k not in valid]
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(str(key), list(valid), n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        listing = "; ".join(f"{sec}(): {', '.join(keys)}" for sec, keys in _sections(config).items())
        raise ClusterError(
            f"config key '{where}.{key}' is not an RLlib {algo} setting{hint}. Valid keys, the keyword "
            f"arguments of {type(config).__name__}.<section>(): {listing}"
        )
    for key in settings:
        if reserved and key in reserved:
            there = reserved[key]
            raise ClusterError(
                f"config key '{where}.{key}': "
                + (f"set it with '{there}' instead" if there else "the trainer sets this RLlib setting itself")
            )
    grouped: dict[str, dict] = {}
    for k, v in settings.items():
        grouped.setdefault(valid[k], {})[_ALIASES.get(k, k)] = v
    for section, kwargs in grouped.items():
        try:
            getattr(config, section)(**kwargs)
        except (ValueError, TypeError) as e:
            raise ClusterError(
                f"config section '{where}': RLlib rejected {', '.join(sorted(kwargs))}: {_one_line(e)}"
            ) from None
    return config


def _one_line(e: BaseException) -> str:
    """RLlib's message without its trailer ("To suppress all validation errors...") on one line."""
    text = str(e).split("To suppress all validation errors")[0]
    return " ".join(text.split()) or type(e).__name__


def validate_algo_config(config, *, where: str = "rllib") -> None:
    """``config.validate()`` with RLlib's error on one line, prefixed with the config section.

    Raises:
        ClusterError: RLlib's validation message (it names the offending settings, e.g.
            "`minibatch_size` (4096) must be <= `train_batch_size_per_learner` (4000)").
    """
    try:
        config.validate()
    except (ValueError, TypeError, KeyError) as e:
        raise ClusterError(f"config section '{where}': RLlib rejected the settings: {_one_line(e)}") from None


def record_sampling_node(*, env_runner=None, metrics_logger=None, samples=(), **kwargs) -> None:
    """RLlib callback (``AlgorithmConfig.callbacks(on_sample_end=...)``), run in each env runner
    after it samples: logs the env steps it sampled under ``("sampled_on_node", <Ray node id>)``,
    summed, so that a training result's ``env_runners["sampled_on_node"]`` maps each node id to
    the env steps sampled there in that iteration (which nodes did the sampling on a cluster)."""
    if metrics_logger is None:
        return
    import ray

    steps = sum(e.env_steps() for e in samples)
    metrics_logger.log_value((SAMPLED_ON_NODE, ray.get_runtime_context().get_node_id()), steps, reduce="sum")
