"""Deprecated: the play room moved to the top-level package :mod:`room` (``python -m room``, or the
``tabletop-room`` command).

``python -m training.room`` still runs the same :func:`room.cli.main` for this release, and
``from training.room import create_app, Room`` still works; both go in the next release.
"""

__all__ = ["create_app", "Room"]


def __getattr__(name):
    if name in ("create_app", "Room"):
        import room

        return getattr(room, name)
    raise AttributeError(f"module 'training.room' has no attribute {name!r}")
