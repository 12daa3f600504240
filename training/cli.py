"""Small helpers shared by the command-line entry points."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys

__all__ = ["json_object", "MissingExtraError", "TRAIN_MODULES", "require_extra"]

#: The modules of the ``train`` extra (pyproject.toml), by import name.
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "yaml", "tqdm", "rich", "tensorboard",
                 "matplotlib", "openskill", "scipy")


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency group (a pip "extra") is not installed; the message names it."""


def require_extra(extra: str, user: str, modules=TRAIN_MODULES, *, as_command: bool = False) -> None:
    """Check that the modules of a pip extra can be imported, before anything needs them.

    Only looks the modules up (``importlib.util.find_spec``), importing none of them.

    Args:
        extra: the extra's name in pyproject.toml, e.g. ``"train"``.
        user: what needs it, for the message (``"python -m training.train"``).
        modules: the import names to look up.
        as_command: when True (a command-line entry point), print the message to stderr and exit
            with status 2 instead of raising.

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
    message = (
        f"{user} needs the '{extra}' extra, which is not (fully) installed: missing {', '.join(missing)}. "
        f"Install it from the repository root with: pip install -e \".[{extra}]\" "
        "(README, Install: install the CPU or GPU build of torch first)"
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
        raise argparse.ArgumentTypeError(f"must be a JSON object such as '{{\"fen\": \"startpos\"}}', got {text!r}")
    return value
