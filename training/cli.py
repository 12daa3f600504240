"""Small helpers shared by the command-line entry points."""

from __future__ import annotations

import argparse
import json

__all__ = ["json_object"]


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
