"""The line of a JSON pointer in its text: the line of the key that names the value (of the value itself in
a list), read from texts whose lines are counted by hand."""

from __future__ import annotations

import pytest

from mime_gui.rig.pointers import line_of

TEXT = """{
  "format": "mime-rig",
  "name": "a \\"quoted\\" name",
  "chain": [
    {"name": "arm", "at": {"value": [0, 0, 0], "unit": "m"}},
    {
      "name": "motor",
      "axis": [
        0,
        0,
        "z"
      ]
    }
  ],
  "parts": {"a/b": {"m~x": 1},
    "holder": {"colour": "red", "nested": {"deep": [[1, 2], [3,
      4]]}}
  },
  "empty": {}
}
"""


@pytest.mark.parametrize("pointer, line", [
    ("", 1), ("/", 1),  # the document
    ("/format", 2),
    ("/name", 3),
    ("/chain", 4),
    ("/chain/0", 5), ("/chain/0/at/value/2", 5),
    ("/chain/1", 6), ("/chain/1/name", 7), ("/chain/1/axis", 8), ("/chain/1/axis/2", 11),
    ("/parts/a~1b", 15), ("/parts/a~1b/m~0x", 15),  # "/" and "~" escaped in the pointer
    ("/parts/holder", 16), ("/parts/holder/colour", 16),
    ("/parts/holder/nested/deep/1", 16), ("/parts/holder/nested/deep/1/1", 17),
    ("/empty", 19),
])
def test_the_line_of_each_pointer(pointer, line):
    assert line_of(TEXT, pointer) == line


@pytest.mark.parametrize("pointer", ["/colour", "/chain/2", "/chain/x", "/format/0", "/empty/a",
                                     "/parts/holder/nested/deep/2", "/parts/a/b"])
def test_a_pointer_the_text_does_not_hold_has_no_line(pointer):
    assert line_of(TEXT, pointer) == 0


def test_text_that_is_not_json_has_no_line():
    assert line_of('{"a": [1, 2', "/a/3") == 0
    assert line_of("", "/a") == 0


RIG = {"name": "r", "chain": [{"name": "arm", "armature": {"joint_6": {"value": 1}}},
                              {"name": "arm.v2", "mount": "tool0"}],
       "parts": {"holder": {"geometry": {"radius": 0.01}}, "holder.b": {"mount": None}}}


@pytest.mark.parametrize("where, pointer", [
    ("parts.holder.geometry.radius", "/parts/holder/geometry/radius"),
    ("parts.holder.b.mount", "/parts/holder.b/mount"),  # a name holding a dot: the longest that fits
    ("chain.arm.armature.joint_6", "/chain/0/armature/joint_6"),
    ("chain.arm.v2.mount", "/chain/1/mount"),
    ("chain.arm.link_5", "/chain/0"),  # a frame of the description, not of the file: its segment
    ("parts.holder.mass", "/parts/holder"),
    ("chain.stage.mount", "/chain"),
    ("magnets.m1", ""),
    ("name", "/name"),
])
def test_the_pointer_of_a_rig_path_is_the_deepest_the_file_holds(where, pointer):
    from mime_gui.rig.pointers import pointer_of

    assert pointer_of(RIG, where) == pointer
