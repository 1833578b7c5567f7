"""Every refusal of the reader, one small hand-written file each: the code, the line and the element named.

A file whose defect is confined to one element (DEFECTS) loads with a coded error saying what it blocks, and
is refused with the same code and line when read strictly."""

from __future__ import annotations

from pathlib import Path

import pytest
from plain_ids import plain_id

from mime_gui.multibody import UrdfError, read_urdf
from mime_gui.multibody.report import BLOCKS, REFUSED
from mime_gui.multibody.tree import UnknownGeometry

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_urdf"

# file → (code, line of the element at fault, text the message must hold to name it)
CASES = {
    "xml_not_well_formed.urdf": ("urdf.xml", 6, "mismatched tag"),
    "xml_entity_bomb.urdf": ("urdf.xml", 3, "ENTITY"),
    "xml_external_entity.urdf": ("urdf.xml", 3, "ENTITY"),
    # the same two in UTF-16 (little- then big-endian, with a BOM), where the bytes '<!' never occur
    "xml_entity_bomb_utf16.urdf": ("urdf.xml", 3, "ENTITY"),
    "xml_external_entity_utf16.urdf": ("urdf.xml", 3, "ENTITY"),
    "xml_not_robot.urdf": ("urdf.xml", 2, "<sdf>"),
    "xml_empty.urdf": ("urdf.xml", 1, "<robot>"),
    "xacro_element.urdf": ("urdf.xacro", 4, "<xacro:macro>"),
    "xacro_unbound_prefix.urdf": ("urdf.xacro", 4, "xacro: elements"),
    "xacro_substitution.urdf": ("urdf.xacro", 6, "<mesh>"),
    "closed_chain_two_parents.urdf": ("urdf.closed-chain", 18, "link 'tip'"),
    "closed_chain_detached_loop.urdf": ("urdf.closed-chain", 4, "'ring_a', 'ring_b'"),
    "closed_chain_self_joint.urdf": ("urdf.closed-chain", 4, "joint 'to_itself'"),
    "joint_type_floating.urdf": ("urdf.joint-type", 5, "joint 'base_joint' is floating"),
    "joint_type_planar.urdf": ("urdf.joint-type", 5, "joint 'base_joint' is planar"),
    "joint_type_unknown.urdf": ("urdf.joint-type", 5, "'spherical'"),
    "missing_link_child.urdf": ("urdf.missing-link", 5, "'fore_arm'"),
    "missing_link_none.urdf": ("urdf.missing-link", 2, "<link>"),
    "duplicate_link.urdf": ("urdf.duplicate-name", 5, "link 'arm'"),
    "duplicate_joint.urdf": ("urdf.duplicate-name", 9, "joint 'shoulder'"),
    "multiple_roots.urdf": ("urdf.multiple-roots", 5, "'floating_tool'"),
    "non_finite_origin.urdf": ("urdf.non-finite", 6, "<origin>"),
    "non_finite_mass.urdf": ("urdf.non-finite", 5, "<mass>"),
    "axis_zero.urdf": ("urdf.axis", 7, "<axis>"),
    "value_not_a_number.urdf": ("urdf.value", 5, "<origin>"),
    "value_wrong_count.urdf": ("urdf.value", 5, "<box>"),
    "value_negative_damping.urdf": ("urdf.value", 8, "<dynamics>"),
    "limit_lower_above_upper.urdf": ("urdf.limit", 8, "joint 'rail'"),
    "limit_negative_velocity.urdf": ("urdf.limit", 8, "<limit> of joint 'shoulder'"),
    "missing_attribute_link_name.urdf": ("urdf.missing-attribute", 4, "<link>"),
}

# file → (code, line, text naming the element, what the defect blocks): loaded with that error; refused
# with the same code and line when read strictly
DEFECTS = {
    "inertial_negative_mass.urdf": ("urdf.inertial", 7, "link 'arm'", "dynamics"),
    "inertial_not_psd.urdf": ("urdf.inertial", 7, "<inertia> of link 'arm'", "dynamics"),
    "inertial_no_mass.urdf": ("urdf.inertial", 4, "<inertial> of link 'base'", "dynamics"),
    "geometry_missing.urdf": ("urdf.geometry", 4, "<visual> of link 'base'", "drawing"),
    "geometry_unknown.urdf": ("urdf.geometry", 6, "<heightmap>", "drawing"),
    "geometry_negative_radius.urdf": ("urdf.geometry", 5, "<cylinder>", "drawing"),
    "missing_attribute_mesh_filename.urdf": ("urdf.geometry", 5, "<mesh>", "drawing"),
    "mimic_unknown_joint.urdf": ("urdf.mimic", 13, "'finger_joint'", "mimic"),
    "mimic_loop.urdf": ("urdf.mimic", 9, "finger_b_joint", "mimic"),
    "transmission_reduction_word.urdf": ("urdf.value", 13, "'reduction'", "armature"),
}


def _text(data: bytes) -> str:
    return data.decode("utf-16") if data.startswith((b"\xff\xfe", b"\xfe\xff")) else data.decode()


def test_every_bad_file_has_a_case():
    on_disk = {p.name for p in BAD.glob("*.urdf")}
    assert on_disk == set(CASES) | set(DEFECTS)
    assert not set(CASES) & set(DEFECTS)
    assert len(CASES) >= 20


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_defect_loads_with_its_error(name):
    code, line, named, blocks = DEFECTS[name]
    path = BAD / name
    tree = read_urdf(path)
    (error,) = tree.report.errors
    assert (error.code, error.line, error.file, error.blocks) == (code, line, str(path), blocks)
    assert named in error.message
    assert error in tree.report.warnings  # listed with the warnings, as an error
    assert tree.report.blocked(blocks) == [error]
    assert not tree.report.refused
    entry = tree.report.to_dict()["warnings"][tree.report.warnings.index(error)]
    assert (entry["severity"], entry["blocks"], entry["line"]) == ("error", blocks, line)
    assert blocks in BLOCKS


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_defect_is_refused_when_strict(name):
    code, line, named, _ = DEFECTS[name]
    with pytest.raises(UrdfError) as info:
        read_urdf(BAD / name, strict=True)
    assert (info.value.code, info.value.line) == (code, line)
    assert named in info.value.diagnostic.message


def test_what_each_defect_leaves_of_the_element():
    """The element at fault stays in the tree, marked: an undrawable shape, an independent joint, a
    transmission without a reduction, an inertial with its error."""
    tree = read_urdf(BAD / "geometry_unknown.urdf")
    (shape,) = tree.links["base"].collisions
    assert isinstance(shape.geometry, UnknownGeometry) and shape.geometry.kind == "heightmap"
    tree = read_urdf(BAD / "geometry_missing.urdf")
    assert tree.links["base"].visuals[0].geometry.kind == "none"
    tree = read_urdf(BAD / "mimic_unknown_joint.urdf")
    assert tree.joints["finger_b_joint"].mimic is None
    art = tree.compile()
    assert list(art.mimic_master) == [-1, -1]
    tree = read_urdf(BAD / "mimic_loop.urdf")  # the first of the loop moves on its own, the other follows it
    assert tree.joints["finger_a_joint"].mimic is None
    assert tree.joints["finger_b_joint"].mimic.joint == "finger_a_joint"
    tree = read_urdf(BAD / "transmission_reduction_word.urdf")
    t = tree.transmissions["shoulder_trans"]
    assert t.reduction is None and "'reduction'" in t.error
    assert t.error.endswith(f"({BAD / 'transmission_reduction_word.urdf'}:13)")
    tree = read_urdf(BAD / "inertial_not_psd.urdf")
    inertial = tree.links["arm"].inertial
    assert "not positive semi-definite" in inertial.error and inertial.error.endswith(":7)")
    assert inertial.mass == 1.0 and inertial.inertia[0, 1] == 0.05  # kept as the file says


@pytest.mark.parametrize("name", sorted(CASES))
def test_refusal(name):
    code, line, named = CASES[name]
    path = BAD / name
    with pytest.raises(UrdfError) as info:
        read_urdf(path)
    err = info.value
    assert err.code == code
    assert err.line == line
    assert named in err.diagnostic.message
    assert err.file == str(path)
    one = err.one_line()
    assert one.startswith(f"error[{code}] {path}:{line}: ")
    assert "\n" not in one


@pytest.mark.parametrize("name", sorted(CASES))
def test_refusal_from_text_and_bytes(name):
    """The same refusal whether the description comes as a file, text or bytes."""
    code, line, _ = CASES[name]
    data = (BAD / name).read_bytes()
    for source in (data, _text(data)):
        if isinstance(source, str) and not source.strip():
            continue  # blank text is not recognisable as a description; bytes are
        with pytest.raises(UrdfError) as info:
            read_urdf(source)
        assert (info.value.code, info.value.line) == (code, line)
        assert info.value.file == "<string>"


def test_refused_kind_is_reported():
    """A refusal met while sorting the elements lands in the report's refused group."""
    with pytest.raises(UrdfError) as info:
        read_urdf(BAD / "xacro_element.urdf")
    report = info.value.report
    assert report is not None
    assert [e.kind for e in report.group(REFUSED)] == ["robot/macro"]
    with pytest.raises(UrdfError) as info:
        read_urdf(BAD / "joint_type_floating.urdf")
    assert "robot/joint@type=floating" in [e.kind for e in info.value.report.group(REFUSED)]


def test_entity_bomb_is_refused_before_expansion():
    """A billion-laughs file refuses at the first entity declaration; nothing is expanded."""
    with pytest.raises(UrdfError) as info:
        read_urdf(BAD / "xml_entity_bomb.urdf")
    assert "EntitiesForbidden" in info.value.diagnostic.message


@pytest.mark.parametrize("name", ["xml_entity_bomb_utf16.urdf", "xml_external_entity_utf16.urdf"])
def test_utf16_declarations_reach_the_defused_parser(name):
    """In UTF-16 a declaration hides from a search of the bytes; such a file must never reach the fast parser,
    and the entity is refused at its declaration, never expanded nor read."""
    from mime_gui.multibody.urdf import _fast_parse, _prepare

    data, offset = _prepare((BAD / name).read_bytes())
    assert _fast_parse(data, offset) is None
    with pytest.raises(UrdfError) as info:
        read_urdf(BAD / name)
    assert info.value.code == "urdf.xml"
    assert "EntitiesForbidden" in info.value.diagnostic.message
    assert "root:" not in str(info.value) and "aaaa" not in str(info.value)


@pytest.mark.parametrize("data", [
    '<?xml version="1.0"?>\n<robot name="r"><link name="a"/></robot>\n'.encode("utf-16-le"),  # no BOM
    '<?xml version="1.0"?>\n<robot name="r"><link name="a"/></robot>\n'.encode("utf-32"),
    b'<?xml version="1.0" encoding="UTF-16"?>\n<robot name="r"><link name="a"/></robot>\n',
    b"<?xml version='1.0' encoding='cp500'?>\n<robot name='r'><link name='a'/></robot>\n",
    '<?xml version="1.0" encoding="cp500"?>\n<robot name="r"><link name="a"/></robot>\n'.encode("cp500"),
    b"+ADw-robot name='r'+AD4-",  # UTF-7 markup: not ASCII '<'
], ids=plain_id)
def test_markup_that_is_not_plain_ascii_takes_the_defused_path(data):
    from mime_gui.multibody.urdf import _fast_parse, _prepare

    assert _fast_parse(*_prepare(data)) is None
    try:
        read_urdf(data)
    except UrdfError as exc:  # refused or read: never anything else
        assert exc.code == "urdf.xml"



@pytest.mark.parametrize("encoding, reason", [("UTF-7", "multi-byte encodings are not supported"),
                                              ("no-such-codec", "unknown encoding: no-such-codec")],
                         ids=["utf7", "unknown"])
def test_an_encoding_expat_cannot_read_is_refused_without_a_line(encoding, reason):
    """expat refuses these before the first element, with no position: the error says why, at line 0."""
    data = f'<?xml version="1.0" encoding="{encoding}"?>\n<robot name="r"><link name="a"/></robot>\n'.encode()
    with pytest.raises(UrdfError) as info:
        read_urdf(data)
    assert info.value.code == "urdf.xml" and info.value.line == 0
    assert f"not well-formed XML ({reason})" in info.value.message

def test_utf16_description_is_read_with_its_lines():
    text = '<?xml version="1.0" encoding="UTF-16"?>\n<robot name="r">\n  <link name="base"/>\n</robot>\n'
    for data in (text.encode("utf-16"), b"\xfe\xff" + text.encode("utf-16-be")):
        tree = read_urdf(data)
        assert tree.links["base"].line == 3


def test_external_entity_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    text = (f'<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY s SYSTEM "file://{secret}">]>\n'
            '<robot name="x"><link name="&s;"/></robot>\n')
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert info.value.code == "urdf.xml"
    assert "TOP-SECRET" not in str(info.value)


def test_doctype_without_entities_is_accepted():
    tree = read_urdf('<?xml version="1.0"?>\n<!DOCTYPE robot>\n<robot name="r">\n  <link name="base"/>\n'
                     '</robot>\n')
    assert tree.links["base"].line == 4


def test_unreadable_path(tmp_path):
    missing = tmp_path / "nope.urdf"
    with pytest.raises(UrdfError) as info:
        read_urdf(missing)
    assert info.value.code == "urdf.io"
    assert info.value.file == str(missing)
    with pytest.raises(UrdfError) as info:  # a folder is refused from its stat, before it is opened
        read_urdf(tmp_path)
    assert info.value.code == "file.not-regular" and "a folder" in info.value.message


@pytest.mark.parametrize("snippet, code", [
    ('<joint name="j" type="fixed"><parent link="a"/></joint>', "urdf.missing-link"),
    ('<joint name="j"><parent link="a"/><child link="b"/></joint>', "urdf.joint-type"),
    ('<joint type="fixed"><parent link="a"/><child link="b"/></joint>', "urdf.missing-attribute"),
    ('<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 inf"/></joint>',
     "urdf.non-finite"),
    ('<transmission name="t"><joint name="j"/><actuator name="m"><mechanicalReduction>${r}'
     '</mechanicalReduction></actuator></transmission>', "urdf.xacro"),
])
def test_small_refusals(snippet, code):
    links = '<link name="a"/><link name="b"/><link name="c"/>'
    base = '<joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>'
    if 'name="k"' in snippet:
        base = ""
    elif "transmission" in snippet:
        base += '<joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>'
    elif 'child link="b"' in snippet:
        base = '<joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>'
    text = f'<robot name="r">\n{links}\n{base}\n{snippet}\n</robot>'
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert info.value.code == code
    assert info.value.line == 4


@pytest.mark.parametrize("snippet, code, blocks", [
    ('<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
     '<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic multiplier="2"/></joint>', "urdf.mimic",
     "mimic"),
    ('<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
     '<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="k"/></joint>'
     '<joint name="k" type="fixed"><parent link="b"/><child link="c"/></joint>', "urdf.mimic", "mimic"),
    ('<transmission name="t"><joint name="j"/><actuator name="m"><mechanicalReduction>0'
     '</mechanicalReduction></actuator></transmission>', "urdf.non-finite", "armature"),
    ('<transmission name="t"><joint name="j"/><actuator name="m"><mechanicalReduction>inf'
     '</mechanicalReduction></actuator></transmission>', "urdf.non-finite", "armature"),
])
def test_small_defects(snippet, code, blocks):
    links = '<link name="a"/><link name="b"/><link name="c"/>'
    base = "" if 'name="k"' in snippet else \
        '<joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>'
    if "transmission" in snippet:
        base += '<joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>'
    text = f'<robot name="r">\n{links}\n{base}\n{snippet}\n</robot>'
    (error,) = read_urdf(text).report.errors
    assert (error.code, error.line, error.blocks) == (code, 4, blocks)
    with pytest.raises(UrdfError) as info:
        read_urdf(text, strict=True)
    assert (info.value.code, info.value.line) == (code, 4)


def test_xacro_substitution_written_as_a_character_reference_is_refused():
    """The fast scan skips the xacro search only when no attribute can hold a '$': a '$' in a comment does not
    count, a '$' written as a character reference does."""
    mesh = '<link name="a"><visual><geometry><mesh filename="{}"/></geometry></visual></link>'
    tree = read_urdf('<robot name="r">\n<!-- ${not_an_attribute} -->\n' + mesh.format("m.stl") + '\n</robot>')
    assert "a" in tree.links
    with pytest.raises(UrdfError) as info:
        read_urdf('<robot name="r">\n' + mesh.format("&#36;(find p)/m.stl") + '\n</robot>')
    assert (info.value.code, info.value.line) == ("urdf.xacro", 2)


def test_every_family_of_refusal_prints_one_line():
    """Coded errors of every family share one base and print ``error[code] where: message`` on one line."""
    from mime_gui.cli.play import PlayError
    from mime_gui.multibody.errors import CodedError
    from mime_gui.nodes.commands import CommandFileError
    from mime_gui.rig.rigfile import RigFileError

    for cls in (UrdfError, CommandFileError, PlayError):
        err = cls("x.code", "what to do", "dir/na\nme.txt", 7)
        assert isinstance(err, CodedError)
        assert err.one_line() == "error[x.code] dir/na\\nme.txt:7: what to do"
    rig = RigFileError("rigfile.type", "expected a number", "r.rig.json", "/parts/a/at")
    assert rig.one_line() == "error[rigfile.type] r.rig.json: #/parts/a/at: expected a number"
    rig = RigFileError("rigfile.type", "expected a number", "r.rig.json", "/parts/a/at", 12)
    assert rig.one_line() == "error[rigfile.type] r.rig.json:12: #/parts/a/at: expected a number"
    assert str(rig) == rig.one_line()
