"""Helpers shared by the command-line entry points (``training.evaluate``, ``training.play``,
``training.train``): ``argparse`` argument types, the environment arguments, and the checks of
output folders and files, so that each check and its message exists once.

The environment id and kwargs themselves are checked by the registry (:func:`envs.registry.spec`,
:meth:`envs.registry.EnvSpec.resolve_kwargs`); :func:`env_id` only hands its answer to
``argparse``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from envs.registry import env_ids, spec

__all__ = [
    "json_object",
    "non_negative_int",
    "positive_int",
    "env_id",
    "add_env_arguments",
    "ensure_writable_dir",
    "check_output_file",
    "MissingExtraError",
    "TRAIN_MODULES",
    "SB3_MODULES",
    "TRAIN_COMMON_MODULES",
    "RLLIB_MODULES",
    "require_extra",
    "require_rllib",
]


#: The modules of the ``train`` extra (pyproject.toml), by import name.
TRAIN_MODULES = (
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "yaml",
    "tqdm",
    "rich",
    "tensorboard",
    "matplotlib",
    "openskill",
    "scipy",
    "pydantic",
)
#: The ``train`` extra's modules that only the SB3 engine (and ``PATH.zip`` agents) import.
SB3_MODULES = ("stable_baselines3", "sb3_contrib")
#: The ``train`` extra's modules that every engine needs (all but :data:`SB3_MODULES`): what
#: ``training.train`` and ``training.evaluate`` check before they know the engine or the agents;
#: the engine's ``require`` checks the rest (SB3: :data:`TRAIN_MODULES`; RLlib: these and Ray).
TRAIN_COMMON_MODULES = tuple(m for m in TRAIN_MODULES if m not in SB3_MODULES)
#: The import names the RLlib engine (and the RLlib agents) need, of the ``rllib`` extra
#: (pyproject.toml): the ``train`` extra's but stable-baselines3 and sb3-contrib (the RLlib engine
#: never imports them), Ray, and the packages ``ray[rllib]`` adds (``tree`` is dm-tree).
RLLIB_MODULES = TRAIN_COMMON_MODULES + ("ray", "tree", "lz4", "ormsgpack", "pyarrow", "pandas")


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency group (a pip "extra") is not installed; the message names it."""


def require_extra(
    extra: str, user: str, modules=TRAIN_MODULES, *, as_command: bool = False, hint: str | None = None
) -> None:
    """Check that the modules of a pip extra can be imported, before anything needs them.

    Only looks the modules up (``importlib.util.find_spec``), importing none of them.

    Args:
        extra: the extra's name in pyproject.toml, e.g. ``"train"``.
        user: what needs it, for the message (``"python -m training.train"``).
        modules: the import names to look up.
        as_command: when True (a command-line entry point), print the message to stderr and exit
            with status 2 instead of raising.
        hint: where the README tells more, ending the message in parentheses; by default the
            quick start's torch step when ``modules`` includes torch, else the quick start.

    Raises:
        MissingExtraError: (a ``ModuleNotFoundError``) naming the missing modules and the command
            that installs the extra.
    """
    missing = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    if not missing:
        return
    if hint is None:
        hint = (
            "README, Quick start: install the CPU or GPU build of torch first"
            if "torch" in modules
            else "README, Quick start"
        )
    message = (
        f"{user} needs the '{extra}' extra, which is not (fully) installed: missing {', '.join(missing)}. "
        f'Install it from the repository root with: pip install -e ".[{extra}]" ({hint})'
    )
    if as_command:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)
    raise MissingExtraError(message, name=missing[0])


def json_object(text: str) -> dict:
    """``argparse`` type for options such as ``--env-kwargs '{"fen": "..."}'``: a JSON object.

    Raises:
        argparse.ArgumentTypeError: not valid JSON, or valid JSON that is not an object.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f'must be a JSON object such as \'{{"fen": "startpos"}}\', got {text!r}')
    return value


def _int_at_least(text: str, low: int, expected: str) -> int:
    """``text`` as an integer ``>= low``; else ``argparse.ArgumentTypeError`` saying ``expected``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """``argparse`` type for seeds: an integer ``>= 0``.

    Raises:
        argparse.ArgumentTypeError: not an integer, or negative.
    """
    return _int_at_least(text, 0, "a non-negative integer")


def positive_int(text: str) -> int:
    """``argparse`` type for counts such as ``--games``: an integer ``>= 1``.

    Raises:
        argparse.ArgumentTypeError: not an integer, or below 1.
    """
    return _int_at_least(text, 1, "a positive integer (at least 1)")


def env_id(text: str) -> str:
    """``argparse`` type for an environment id: one the registry knows.

    Raises:
        argparse.ArgumentTypeError: an unknown id, with the registry's message (it lists the
            known ids).
    """
    try:
        spec(text)
    except ValueError as e:  # UnknownEnvError
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def add_env_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``env_id`` (checked by :func:`env_id`) and ``--env-kwargs JSON``
    (:func:`json_object`; default ``{}``) to ``parser``."""
    parser.add_argument("env_id", type=env_id, help=f"environment id ({', '.join(env_ids())})")
    parser.add_argument(
        "--env-kwargs",
        type=json_object,
        default={},
        metavar="JSON",
        help='environment arguments as JSON, e.g. \'{"fen": "..."}\'',
    )


def ensure_writable_dir(path: str | Path, what: str = "output folder") -> Path:
    """Create the folder ``path`` if needed and check that a file can be written in it.

    Args:
        path: the folder.
        what: how error messages call it (e.g. ``"--save-images folder"``).

    Returns:
        ``path`` as a ``Path`` (the folder exists afterwards).

    Raises:
        ValueError: ``path`` exists and is not a folder, or the folder cannot be created (a parent
            is a file, no permission, a read-only or virtual file system such as ``/proc``) or
            written.
    """
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{what} {out} is an existing file, not a folder: expected a folder (new or existing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise ValueError(f"cannot create or write the {what} {out}: {e}") from None
    return out


def check_output_file(path: str | Path, what: str, option: str, kind: str = "JSON file") -> Path:
    """Check, before any work is done, that the file ``path`` can be written: it is not a
    folder, its folder is created (:func:`ensure_writable_dir`) and, if it exists, it is writable.

    Args:
        path: the file.
        what: how error messages call the file (e.g. ``"record"``).
        option: how they call its folder's owner (e.g. ``"--record"``).
        kind: what the file is, for the message about a folder in its place.

    Returns:
        ``path`` as a ``Path``.

    Raises:
        ValueError: ``path`` is an existing folder or an unwritable file, or its folder cannot be
            created or written.
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{what} {p} is an existing folder: expected the path of a {kind}")
    ensure_writable_dir(p.parent, f"folder of the {option} file")
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{what} {p} exists and is not writable")
    return p


def require_rllib(user: str = "training.engines.rllib", *, as_command: bool = False) -> None:
    """Check that the ``rllib`` extra is installed (:func:`require_extra`): the RLlib engine
    (:mod:`training.engines.rllib`) and the RLlib agents (:mod:`training.agents.rllib`) need it.

    Raises:
        MissingExtraError: naming the missing modules and ``pip install -e ".[rllib]"`` (with
            ``as_command``: printed to stderr, exit status 2).
    """
    require_extra("rllib", user, RLLIB_MODULES, as_command=as_command, hint="README, Training on Ray RLlib")
