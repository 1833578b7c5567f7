"""Reading a file into a rig: a URDF as a one-segment rig around it, a rig file, or a bundle's rig extracted
into the bundle cache; every refusal a coded SessionError naming the file."""

from __future__ import annotations

import os
from pathlib import Path

from mime_gui.errors import CodedError
from mime_gui.inputs import resolved
from mime_gui.multibody import UrdfError
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.names import good_name
from mime_gui.rig.segments import Arm
from mime_gui.session.errors import SessionError, rig_error


def read_rig(path: str) -> tuple[Apparatus, str]:
    """The rig of the file ``path`` and the kind of file (``"urdf"`` or ``"rig"``), with the lab's actuators
    found again beside it, as the command line finds them."""
    kind = file_kind(path)
    rig = urdf_rig(path) if kind == "urdf" else load_rig(path)
    discover_actuators(path)
    return rig, kind


def file_kind(path: str) -> str:
    """'urdf' or 'rig' from a file name; raises a coded SessionError for anything else."""
    lower = str(path).lower()
    if lower.endswith(".rig.json"):
        return "rig"
    if lower.endswith((".urdf", ".xml")):
        return "urdf"
    raise SessionError("file.kind", "not a URDF (.urdf) or rig (.rig.json) file; open one of those",
                       str(path))


def discover_actuators(path: str) -> None:
    """The lab's actuators (entry points, the config's and the file's folder's actuators.json) found again,
    so the app sees the list the command line does; a bad record is a SessionError."""
    from mime_gui.rig.actuator_sources import discover

    try:
        discover(resolved(path).parent)
    except CodedError as exc:
        # the record's line goes with its file; a refusal of no file of its own is placed on the one opened
        file = exc.diagnostic.file
        raise SessionError(exc.code, exc.message, file or path, exc.line if file else 0) from None


def open_bundle_rig(path: str) -> str:
    """The rig file of the bundle ``path``, extracted into the bundle cache; a refusal is a SessionError."""
    from mime_gui.rig.bundle import open_bundle

    try:
        return str(open_bundle(path))
    except CodedError as exc:
        raise SessionError(exc.code, exc.message, path) from None


def confine_extracted(path: str, bundle: str) -> None:
    """Refuse (``bundle.outside``) the bundle's extracted rig ``path`` read again from the cache when a file
    it names is outside its extraction, a link put there since included."""
    from mime_gui.rig.bundle import BundleError, confine

    try:
        confine(path, os.path.dirname(os.path.abspath(path)), bundle)
    except BundleError as exc:
        raise SessionError(exc.code, exc.message, bundle) from None


def _segment_name(name: str, path: str) -> str:
    """A valid segment name (:func:`~mime_gui.rig.names.good_name`) from a robot's name, its dots made
    underscores, else from the file's stem, else ``arm``."""
    for candidate in (name or "", Path(path).name.split(".")[0]):
        candidate = candidate.strip().replace(".", "_")
        if good_name(candidate):
            return candidate
    return "arm"


def urdf_rig(path: str) -> Apparatus:
    """The one-segment rig around a URDF: an ``Arm.Kinematic`` on the file, beside which it is saved.
    Raises a coded SessionError when the URDF cannot be read."""
    folder = os.path.dirname(os.path.abspath(path))
    arm = Arm.Kinematic(description=os.path.basename(path))
    try:
        tree = arm.tree(folder)
    except UrdfError as err:
        raise SessionError.from_urdf(err) from None
    name = _segment_name(tree.name, path)
    return Apparatus(name, chain={name: arm}, base=folder)


def load_rig(path: str) -> Apparatus:
    from mime_gui.rig import load

    try:
        return load(path)
    except (ValueError, KeyError, TypeError, OSError) as err:  # a coded error keeps its code and place
        raise rig_error(err, str(path)) from None

