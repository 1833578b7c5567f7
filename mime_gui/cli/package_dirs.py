"""``--package-dir DIR`` (repeatable), the same option on every entry point: the app, ``inspect``, ``play``,
``validate``, ``report``, ``export`` and ``field``.

Each folder is a folder *of* packages or a package folder itself; ``package://NAME/…`` meshes are looked for
under them after a rig file's own ``package_dirs`` and before ``ROS_PACKAGE_PATH``.
"""

from __future__ import annotations

import argparse
from contextlib import contextmanager

from mime_gui.multibody.resolve import package_dirs, set_package_dirs

HELP = ("a folder where package:// meshes are looked for: a folder of packages or a package folder "
        "(repeatable); searched after a rig file's package_dirs, before ROS_PACKAGE_PATH")


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--package-dir", action="append", default=[], metavar="DIR", help=HELP)


@contextmanager
def applied(args: argparse.Namespace):
    """The parsed ``--package-dir`` folders are the package folders of this process while the command runs
    (the previous ones come back after, so a command run in-process leaves nothing behind)."""
    before = package_dirs()
    set_package_dirs(getattr(args, "package_dir", None) or [])
    try:
        yield
    finally:
        set_package_dirs(before)
