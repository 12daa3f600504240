"""Starting or joining Ray for RLlib training, and the errors a user meets there as one clear line.

* :func:`start_ray` — a Ray instance of this process's own by default (``address="local"``: nothing
  to start, and never an instance another program started on the same machine), or an existing
  cluster (``"HOST:PORT"``: the head node's GCS address, ``ray start --head`` prints it;
  ``"auto"``: the cluster ``ray start`` last started on this machine, or ``RAY_ADDRESS``). Quiet:
  Ray's and RLlib's Python loggers at ERROR, the workers' output kept in Ray's session logs rather
  than copied to the terminal, no usage-stats banner.
* :func:`check_address` — checks a cluster address in bounded time before :func:`ray.init` sees
  it. Ray itself retries for minutes: measured with ray 2.60.0 on the 2-core development machine,
  ``ray.init(address=...)`` gave up after 20 s on an address that answered HTTP errors, after 123 s
  on a local port held by an HTTP server (20 retries cut to 3 by ``RAY_gcs_server_port_wait_time_s``;
  each retry waits 40 s for the GCS) and had not given up after 300 s on a closed port. Here a
  plain TCP connection (``connect_timeout_s``) and then a Ray GCS client in a child process
  (``gcs_timeout_s``, killed when late) answer in at most their sum, 20 s by default.
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
import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from training.cli import RLLIB_MODULES, require_rllib

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

#: Seconds allowed for a TCP connection to a cluster address (:func:`check_address`).
CONNECT_TIMEOUT_S = 5.0
#: Seconds allowed for a Ray GCS client, in a child process, to reach the cluster and read its
#: versions (:func:`check_address`): a fresh Python importing Ray takes 1-3 s of it.
GCS_TIMEOUT_S = 15.0

#: The ``AlgorithmConfig`` methods whose keyword arguments :func:`apply_rllib_settings` accepts as
#: setting names. The environment, the modules and the multi-agent mapping are the trainer's.
SETTING_SECTIONS = ("training", "env_runners", "learners", "evaluation", "reporting", "fault_tolerance")

#: Settings whose RLlib keyword differs from the name a config uses (``lambda`` is a Python keyword).
_ALIASES = {"lambda": "lambda_"}

#: The GCS address of the local instance :func:`start_ray` started in this process, if any.
_LOCAL_ADDRESS: str | None = None

#: The key of the env runners' metric written by :func:`record_sampling_node`.
SAMPLED_ON_NODE = "sampled_on_node"


class ClusterError(ValueError):
    """Ray could not be started or joined, a cluster lacks the resources a config asks for, or RLlib
    rejected a config setting. The message is one line naming what to fix."""


@dataclass(frozen=True)
class RayInfo:
    """What :func:`start_ray` connected to.

    Attributes:
        address: the GCS address (``host:port``) of the instance or cluster.
        joined: False for a local instance :func:`start_ray` started in this process (this call
            or an earlier one); True for a cluster it joined, or an instance something else had
            already connected this process to.
        nodes: alive nodes.
        cpus: CPUs over all nodes (``ray.cluster_resources()["CPU"]``).
        gpus: GPUs over all nodes.
    """

    address: str
    joined: bool
    nodes: int
    cpus: float
    gpus: float


def parse_address(text: str | None) -> str:
    """Check the form of a Ray address.

    Args:
        text: ``None`` or ``"local"`` (a Ray instance of this process's own), ``"auto"`` (the
            cluster ``ray start`` last started on this machine, or ``RAY_ADDRESS``), or
            ``"HOST:PORT"`` (a head node's GCS address; ``[v6addr]:PORT`` for IPv6).

    Returns:
        ``"local"``, ``"auto"``, or ``"HOST:PORT"`` with the port as a plain integer.

    Raises:
        ClusterError: any other form (``ray://`` Ray Client addresses included), a port that is
            not an integer in 1..65535.
    """
    if text is None or text == "local":
        return "local"
    if not isinstance(text, str):
        raise ClusterError(f"a Ray address must be a string, got {type(text).__name__}")
    text = text.strip()
    if text == "auto":
        return "auto"
    expected = (
        "expected HOST:PORT (the head node's address that `ray start --head` prints, port 6379 by "
        "default), 'auto' (the cluster started on this machine) or 'local'"
    )
    if "://" in text:
        raise ClusterError(
            f"Ray address {text!r}: {expected}; Ray Client addresses (ray://) are not supported: run "
            "the training command on a node of the cluster, or submit it with `ray job submit`"
        )
    host, sep, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ClusterError(f"Ray address {text!r}: {expected}")
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{int(port)}"


def address_arg(text: str) -> str:
    """``argparse`` type for ``--address``: :func:`parse_address` with its message.

    Raises:
        argparse.ArgumentTypeError: the form is wrong.
    """
    import argparse

    try:
        return parse_address(text)
    except ClusterError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


_GCS_PROBE = """
import json, sys
from ray._raylet import GcsClient
client = GcsClient(address=sys.argv[1])
try:
    from ray._common.usage.usage_lib import get_cluster_metadata
    meta = get_cluster_metadata(client)
except Exception:
    meta = {}
print(json.dumps({"ray_version": meta.get("ray_version"), "python_version": meta.get("python_version")}))
"""


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def check_address(
    address: str, *, connect_timeout_s: float = CONNECT_TIMEOUT_S, gcs_timeout_s: float = GCS_TIMEOUT_S
) -> dict:
    """Check in bounded time that a Ray cluster answers at ``address`` and runs this process's Ray
    and Python versions (Ray refuses to join otherwise).

    Two steps: a TCP connection (at most ``connect_timeout_s``), then a Ray GCS client in a child
    Python process that reads the cluster's versions (killed after ``gcs_timeout_s``: a port that
    accepts connections but is not a Ray head's GCS, such as the dashboard's 8265 or the Ray
    Client's 10001, would keep Ray retrying for minutes).

    Args:
        address: ``"HOST:PORT"`` (:func:`parse_address`).
        connect_timeout_s: seconds for the TCP connection.
        gcs_timeout_s: seconds for the GCS client.

    Returns:
        ``{"ray_version": str | None, "python_version": str | None}`` of the cluster (``None``
        where the cluster did not record it).

    Raises:
        ClusterError: the host name does not resolve, the connection is refused or times out, the
            port does not answer as a Ray GCS, or the versions differ; one line saying what to check.
    """
    host, port = _split(address)
    try:
        with socket.create_connection((host, port), timeout=connect_timeout_s):
            pass
    except socket.gaierror as e:
        raise ClusterError(
            f"Ray address {address}: the host name {host!r} does not resolve ({e.strerror}); check "
            "the head node's name or IP address"
        ) from None
    except ConnectionRefusedError:
        raise ClusterError(
            f"no Ray cluster at {address}: connection refused. Start one there with `ray start --head "
            f"--port={port}`, or check the address (the head's GCS port, 6379 by default)"
        ) from None
    except TimeoutError:
        raise ClusterError(
            f"no answer from {address} within {connect_timeout_s:g} s: is the head node up, and is "
            f"port {port} open to this machine (firewall, security group)?"
        ) from None
    except OSError as e:
        raise ClusterError(f"cannot reach {address}: {e.strerror or e}; check the address and the network") from None
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_BACKEND_LOG_LEVEL": "fatal"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _GCS_PROBE, f"{host}:{port}" if ":" not in host else address],
            capture_output=True,
            text=True,
            timeout=gcs_timeout_s,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise ClusterError(
            f"{address} accepts connections but no Ray GCS answered within {gcs_timeout_s:g} s: give "
            "the head node's GCS port (6379 by default, printed by `ray start --head`), not the "
            "dashboard's (8265) or the Ray Client's (10001)"
        ) from None
    lines = done.stdout.strip().splitlines()
    try:
        info = json.loads(lines[-1]) if done.returncode == 0 and lines else None
    except json.JSONDecodeError:
        info = None
    if info is None and "AuthenticationError" in done.stderr:
        # Ray 2.60 turns token authentication on for `ray start --head` when ~/.ray/auth_token exists
        raise ClusterError(
            f"the Ray cluster at {address} requires token authentication and refused this process: "
            "set RAY_AUTH_MODE=token and give the cluster's token (RAY_AUTH_TOKEN, or the head "
            "node's ~/.ray/auth_token copied here), or start the cluster with RAY_AUTH_MODE=disabled"
        )
    if info is None:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ClusterError(
            f"{address} does not answer as a Ray cluster's GCS ({last}); give the head node's GCS "
            "port (6379 by default, printed by `ray start --head`)"
        )
    import platform

    import ray

    mine = {"ray_version": ray.__version__, "python_version": platform.python_version()}
    if any(info[k] is not None and info[k] != mine[k] for k in mine):
        raise ClusterError(
            f"the cluster at {address} runs Ray {info['ray_version']} on Python "
            f"{info['python_version']}, this process Ray {mine['ray_version']} on Python "
            f"{mine['python_version']}: install the same versions on every node and on the driver"
        )
    return info


def quiet_logs() -> None:
    """Ray's and RLlib's Python loggers at ERROR in this process (RLlib warns at every config it
    validates, e.g. "You are running PPO on the new API stack!")."""
    for name in ("ray", "ray.rllib", "ray.tune", "ray.data", "ray.train"):
        logging.getLogger(name).setLevel(logging.ERROR)


def start_ray(
    address: str | None = None,
    *,
    num_cpus: int | None = None,
    num_gpus: int | None = None,
    quiet: bool = True,
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
    gcs_timeout_s: float = GCS_TIMEOUT_S,
) -> RayInfo:
    """Start a Ray instance of this process's own, or join an existing cluster.

    When Ray is already initialised in this process (a test fixture, a caller that joined a
    cluster itself), it is used as it is and nothing is started.

    Args:
        address: ``None``/``"local"`` (default): start a new local instance with ``address="local"``
            (never another program's instance on this machine, ``RAY_ADDRESS`` ignored).
            ``"HOST:PORT"``: join that cluster after :func:`check_address`. ``"auto"``: Ray's own
            search: ``RAY_ADDRESS``, else the cluster ``ray start`` started last on this machine,
            else any Ray instance running on it; then :func:`check_address` as for HOST:PORT.
        num_cpus, num_gpus: resources of a new local instance (default: what Ray detects: every
            core, every visible GPU); not allowed when joining (a cluster's nodes declare theirs
            with ``ray start --num-cpus``).
        quiet: Ray's and RLlib's Python loggers at ERROR and the workers' output left in Ray's
            session logs (``/tmp/ray/session_latest/logs``) rather than copied to this terminal.
            Errors raised in env runners and learners still reach this process as exceptions.
        connect_timeout_s, gcs_timeout_s: the bounds of :func:`check_address`.

    Returns:
        A :class:`RayInfo`.

    Raises:
        training.cli.MissingExtraError: the ``rllib`` extra is not installed.
        ClusterError: a bad address form, an unreachable cluster or one with other versions
            (:func:`check_address`), nothing found for ``"auto"``, ``num_cpus``/``num_gpus``
            given when joining.
    """
    require_rllib("RLlib training")
    address = parse_address(address)
    import ray

    if quiet:
        quiet_logs()
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        common: dict[str, Any] = dict(
            include_dashboard=False, log_to_driver=not quiet, logging_level=logging.ERROR if quiet else logging.INFO
        )
        if address == "local":
            ray.init(address="local", num_cpus=num_cpus, num_gpus=num_gpus, **common)
        else:
            if num_cpus is not None or num_gpus is not None:
                raise ClusterError(
                    f"num_cpus/num_gpus describe a local Ray instance, not the cluster at {address}: "
                    "each node declares its own (`ray start --num-cpus N --num-gpus M`)"
                )
            target: str | None  # None: nothing found for "auto"
            target = address
            if address == "auto":
                from ray._private.services import canonicalize_bootstrap_address

                try:  # RAY_ADDRESS, else the last `ray start` here, else any instance running here
                    target = canonicalize_bootstrap_address("auto")
                except ConnectionError:  # "Could not find any running Ray instance..."
                    target = None
                if not target or target == "auto":
                    raise ClusterError(
                        "--address auto: no running Ray cluster found on this machine (RAY_ADDRESS is "
                        "not set and `ray start` has not started one here); start one with "
                        "`ray start --head`, give its HOST:PORT, or leave --address out to train on "
                        "a local Ray instance"
                    )
            check_address(target, connect_timeout_s=connect_timeout_s, gcs_timeout_s=gcs_timeout_s)
            try:
                ray.init(address=target, **common)
            except (ConnectionError, RuntimeError) as e:
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                raise ClusterError(f"could not join the Ray cluster at {target}: {first}") from None
        if quiet:
            quiet_logs()  # ray.init(configure_logging=True) resets the "ray" logger's level
        if address == "local":
            global _LOCAL_ADDRESS
            _LOCAL_ADDRESS = ray.get_runtime_context().gcs_address
    return _info(joined=ray.get_runtime_context().gcs_address != _LOCAL_ADDRESS)


def _info(joined: bool) -> RayInfo:
    import ray

    res = ray.cluster_resources()
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return RayInfo(
        address=ray.get_runtime_context().gcs_address,
        joined=joined,
        nodes=len(nodes),
        cpus=float(res.get("CPU", 0.0)),
        gpus=float(res.get("GPU", 0.0)),
    )


def stop_ray() -> None:
    """Disconnect this process from Ray; a local instance it started stops with it (a joined
    cluster keeps running)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


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
