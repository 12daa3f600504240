"""Deprecated alias of ``python -m room`` (the same :func:`room.cli.main`), kept for one release."""

from room.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
