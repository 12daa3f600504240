"""``python -m room``: serve the play room (see :mod:`room`)."""

from room.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
