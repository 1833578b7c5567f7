"""Builders of hostile files for the tests of this folder, and the command-line helpers they share.

Every builder writes into a folder it is given and returns the path; special files (named pipes, sockets,
device nodes) skip the test where the platform or the user cannot make them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
from pathlib import Path

import pytest
from test_bad_input import DEMO, DEMO_URDF, cli, demo_data, error_lines  # noqa: F401 (re-exported)

#: every code a refusal of a URDF may carry (docs/engine-conventions.md and the reader)
URDF_CODES = {"urdf.io", "urdf.xml", "urdf.xacro", "urdf.value", "urdf.non-finite", "urdf.missing-attribute",
              "urdf.joint-type", "urdf.missing-link", "urdf.axis", "urdf.limit", "urdf.mimic",
              "urdf.inertial", "urdf.geometry", "urdf.duplicate-name", "urdf.closed-chain",
              "urdf.multiple-roots", "urdf.magnitude", "urdf.entity", "urdf.comma", "file.not-regular",
              "file.too-large", "file.limit"}

LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def fifo(path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("named pipes need a POSIX system")
    os.mkfifo(path)
    return path


def unix_socket(path: Path) -> Path:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("UNIX sockets need a POSIX system")
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(path))
    except OSError as exc:  # a path too long for sun_path
        pytest.skip(f"cannot bind a socket here ({exc})")
    finally:
        s.close()
    return path


def null_device(path: Path) -> Path:
    """A character device like /dev/null, made in the test's own folder (needs root)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError) as exc:
        pytest.skip(f"cannot make a device node ({exc})")
    return path


def zero_link(path: Path) -> Path:
    """A symbolic link to /dev/zero (an endless character device) under an ordinary-looking name."""
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    path.symlink_to("/dev/zero")
    return path


def robot(body: str, name: str = "r") -> str:
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n{body}\n</robot>\n'


def two_links(joint_extra: str = "", link_b: str = "", link_a: str = "", joint_type: str = "revolute") -> str:
    """Links a and b joined by joint j (a limit included), with extra markup in the joint and the links."""
    return robot(f'<link name="a">{link_a}</link>\n<link name="b">{link_b}</link>\n'
                 f'<joint name="j" type="{joint_type}"><parent link="a"/><child link="b"/>'
                 f'{joint_extra}{LIMIT}</joint>')


def write(folder: Path, name: str, content) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def demo_copy(folder: Path) -> Path:
    """A copy of the demo folder (arm, meshes, rig) to edit: returns the folder."""
    shutil.copytree(DEMO, folder, dirs_exist_ok=True)
    return folder


def rig_with(folder: Path, edit, name: str = "hostile.rig.json") -> Path:
    """The demo rig, edited by ``edit(data)``, written beside a copy of the demo's files."""
    demo_copy(folder)
    data = demo_data()
    edit(data)
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def one_error(text: str, codes=None):
    """The one ``error[CODE] WHERE: message`` line of ``text``."""
    (m,) = error_lines(text, codes)
    return m
