"""Contracts of the multibody library pinned against mutation survivors:

* an unresolved mesh's advice goes by the URI's own scheme, the text before its *first* ``://``: a web
  address whose query holds another address is a web address (not fetched: save the file beside the URDF),
  and a package URI with ``://`` further on still asks for its package folder;
* ``Articulation`` is a public frozen dataclass: one assembled by hand (``dataclasses.replace``) may give its
  frames as plain Python sequences, down to no frames at all (``frame_body=[]``), and every algorithm reads
  it: body poses as before, frame poses an empty stack.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from robot_data import PLANAR_URDF as PLANAR

import mime_gui.multibody as mb
from mime_gui.multibody import resolve


def _mesh_robot(uri: str) -> str:
    return (
        f'<robot name="r"><link name="a"><visual><geometry><mesh filename="{uri}"/></geometry></visual>'
        "</link></robot>"
    )


@pytest.fixture
def no_package_folders(monkeypatch):
    """No package folder of the process or the environment: the advice depends on the URI only."""
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.setattr(resolve, "_process_dirs", [])


def _unresolved_warning(uri: str) -> str:
    tree = mb.read_urdf(_mesh_robot(uri))
    assert tree.links["a"].visuals[0].geometry.filename is None
    (warning,) = [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"]
    return warning.message


def test_the_advice_for_a_web_address_holding_another_address_names_its_own_scheme(no_package_folders):
    # the scheme is what comes before the first "://"; the address in the query is part of the path
    uri = "https://example.com/get?file=http://mirror.example.com/arm.stl"
    assert _unresolved_warning(uri) == (
        f"mesh {uri!r} of link 'a' was not found; its URI scheme https:// is not read (meshes are read from "
        "files); save the file beside the URDF and refer to it by a relative path; the robot loads without it"
    )


def test_the_advice_for_a_package_uri_with_a_later_scheme_like_part_asks_for_its_package(no_package_folders):
    message = _unresolved_warning("package://alpha/meshes/v2://arm.stl")
    assert (
        "Pass the folder that holds package 'alpha' (or that folder's parent) with --package-dir" in message
    )
    assert "URI scheme" not in message  # it is a package URI, not an unknown scheme




def test_the_algorithms_read_a_hand_made_articulation_with_no_frames_given_as_plain_lists():
    art = mb.read_urdf(PLANAR).compile()
    bare = dataclasses.replace(art, frame_names=(), frame_body=[], body_X_frame=np.zeros((0, 4, 4)))
    assert bare.nframes == 0
    q = np.array([0.5, -0.25])
    # the bodies move as those of the compiled articulation: elbow at (cos q1, sin q1), turned by q1 + q2
    poses = mb.body_poses(bare, q)
    np.testing.assert_array_equal(poses, mb.body_poses(art, q))
    np.testing.assert_allclose(poses[2, :3, 3], [np.cos(0.5), np.sin(0.5), 0.0], rtol=0, atol=1e-15)
    # no frames: an empty stack of poses and angular velocities, batch axes kept in front
    assert mb.frame_poses(bare, q).shape == (0, 4, 4)
    assert mb.frame_poses(bare, np.zeros((3, 2))).shape == (3, 0, 4, 4)
    assert mb.frame_angular_velocities(bare, q, np.ones(2)).shape == (0, 3)
