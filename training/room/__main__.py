"""``python -m training.room``: serve the play room (see :mod:`training.room`)."""

from training.room.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
