"""Starting or joining Ray, for every engine that uses it, and the errors a user meets there as one line.

The RLlib engine's env runners (:mod:`training.engines.rllib`) and the AlphaZero engine's self-play
actors (:mod:`training.engines.alphazero`) both run on Ray; ``--address`` of ``python -m
training.train`` (:func:`address_arg`) names the cluster for either.

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
* :func:`check_cpus` — that a cluster can hold a number of one-CPU actors at once (Ray queues an
  actor no node can hold until resources appear, silently).

Every error is a :class:`ClusterError` (a ``ValueError``; the training CLI prints it as one line)
or, for a missing extra, :class:`training.cli.MissingExtraError`. No function here names a game or
an engine. Importing this module does not import Ray. (:mod:`training.engines.rllib.cluster` keeps
these names too, with RLlib's own checks.)
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from training.cli import require_extra

__all__ = [
    "CONNECT_TIMEOUT_S",
    "GCS_TIMEOUT_S",
    "RAY_MODULES",
    "ClusterError",
    "RayInfo",
    "require_ray",
    "parse_address",
    "address_arg",
    "check_address",
    "start_ray",
    "stop_ray",
    "check_cpus",
    "quiet_logs",
]

#: The import names Ray's core needs (the ``rllib`` extra installs them, with RLlib's).
RAY_MODULES = ("ray",)

#: Seconds allowed for a TCP connection to a cluster address (:func:`check_address`).
CONNECT_TIMEOUT_S = 5.0
#: Seconds allowed for a Ray GCS client, in a child process, to reach the cluster and read its
#: versions (:func:`check_address`): a fresh Python importing Ray takes 1-3 s of it.
GCS_TIMEOUT_S = 15.0

#: The GCS address of the local instance :func:`start_ray` started in this process, if any.
_LOCAL_ADDRESS: str | None = None


class ClusterError(ValueError):
    """Ray could not be started or joined, a cluster lacks the resources a config asks for, or (the
    RLlib engine) RLlib rejected a config setting. The message is one line naming what to fix."""


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
    user: str = "Ray",
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
        user: what needs Ray, for the missing-extra message (:func:`require_ray`).

    Returns:
        A :class:`RayInfo`.

    Raises:
        training.cli.MissingExtraError: Ray (the ``rllib`` extra) is not installed.
        ClusterError: a bad address form, an unreachable cluster or one with other versions
            (:func:`check_address`), nothing found for ``"auto"``, ``num_cpus``/``num_gpus``
            given when joining.
    """
    require_ray(user)
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


def require_ray(user: str = "Ray", *, as_command: bool = False) -> None:
    """Check that Ray is installed (the ``rllib`` extra installs it): :func:`training.cli.require_extra`.

    Raises:
        MissingExtraError: naming ``ray`` and ``pip install -e ".[rllib]"`` (with ``as_command``:
            printed to stderr, exit status 2).
    """
    require_extra("rllib", user, RAY_MODULES, as_command=as_command, hint="README, Training on Ray RLlib")


def check_cpus(actors: int, what: str, fix: str, nodes: list[dict] | None = None) -> float:
    """Check that the cluster can hold ``actors`` actors of one CPU each at once (each on one node:
    a node holds ``floor(its CPUs)`` of them), before they are created; Ray would queue the others
    until resources appear, silently.

    Args:
        actors: the number of one-CPU actors.
        what: what they are, for the message (``"self-play actors"``).
        fix: what the user can change, for the message.
        nodes: each alive node's resources (default from ``ray.nodes()``: Ray must be running).

    Returns:
        The cluster's CPUs (over all alive nodes).

    Raises:
        ClusterError: the nodes hold fewer than ``actors`` such actors.
    """
    import math

    if nodes is None:
        import ray

        nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    cpus = [float(n.get("CPU", 0.0)) for n in nodes]
    room = sum(math.floor(c + 1e-9) for c in cpus)
    if actors > room:
        raise ClusterError(
            f"{actors} {what} of 1 CPU each, but the cluster's {len(cpus)} node(s) hold {room} "
            f"({', '.join(f'{c:g}' for c in cpus) or 'no'} CPU); Ray would wait for them forever: {fix}"
        )
    return float(sum(cpus))
