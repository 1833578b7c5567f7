"""A lab's own segment kinds: :func:`register_dynamics` and the ``mime_gui.dynamics`` entry-point group.

A kind is a name and a factory. The factory takes the segment's parameters (keyword arguments, JSON values:
numbers, text, booleans, lists) and returns the segment's frames and commanded channels as a small
:class:`~mime_gui.multibody.MultibodyTree`: every link is a frame others mount on, every movable joint a
commanded channel (``<segment>.<joint>``, or all of them as ``<segment>.joint_positions``).
:func:`frames` builds one from a list of joints. Each step the chain node publishes the frames' poses and
angular velocities from the command, as it does for an arm or a motor, so a lab segment validates, mounts
and is mounted on, grafts parts and plays exactly like them (same rule codes). It plays kinematically.

In a rig the segment is ``LabSegment(kind="stage", params={...}, mount=..., initial_positions={...})``
(``register_dynamics`` returns a shortcut that fills in ``kind``); a rig file saves it by its kind with its
``params`` and the ``package`` that provides it.

An installed package adds kinds without touching this one: an entry point ``stage = lab_pkg.stage:factory``
in the group ``mime_gui.dynamics`` registers the kind ``stage``, with the package's name and version (which
the export records). A factory that fails, or returns anything but a tree, is the finding
``chain.description`` at the segment; an unknown kind in a rig file is ``rigfile.value`` at its ``kind``,
naming the installed kinds (and the package the file says provides it).
"""

from __future__ import annotations

import importlib.metadata
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mime_gui.multibody import MultibodyTree
from mime_gui.multibody.errors import DynamicsError
from mime_gui.multibody.tree import Joint, Limit, Link
from mime_gui.rig.registry_epoch import bump
from mime_gui.rig.segments import SEGMENT_KINDS, _positions, _Segment

GROUP = "mime_gui.dynamics"


@dataclass(frozen=True)
class Kind:
    name: str
    factory: Callable[..., MultibodyTree]
    package: str = ""  # the package that provides it (an entry point's distribution), "" when registered
    version: str = ""  # in Python by the running program
    origin: str = "register_dynamics"


_registered: dict[str, Kind] = {}
_installed: dict[str, Kind] | None = None  # from entry points, read once (refresh() reads them again)


def _check_name(name) -> None:
    if not isinstance(name, str) or not name.strip() or name != name.strip() or "/" in name:
        raise DynamicsError("dynamics.name", f"{name!r} is not a kind name: use non-empty text without "
                            "surrounding spaces or slashes")
    if name in SEGMENT_KINDS:
        raise DynamicsError("dynamics.name", f"{name!r} is a built-in kind ({', '.join(SEGMENT_KINDS)}); "
                            "name the lab's kind otherwise")


def register_dynamics(name: str, factory: Callable[..., MultibodyTree], replace: bool = False,
                      package: str = "", version: str = ""):
    """Register the segment kind ``name``: ``factory(**params)`` returns its frames and channels as a
    :class:`~mime_gui.multibody.MultibodyTree`. Returns a shortcut: ``Stage(params=..., mount=...)`` is
    ``LabSegment(kind=name, ...)``. Registering a name twice is refused unless ``replace=True``."""
    _check_name(name)
    if not callable(factory):
        raise DynamicsError("dynamics.factory", f"the factory of {name!r} must be callable, got "
                            f"{type(factory).__name__}")
    if not replace and name in kinds():
        raise DynamicsError("dynamics.duplicate", f"the kind {name!r} is already registered (by "
                            f"{kinds()[name].origin}); pass replace=True to replace it")
    _registered[name] = Kind(name, factory, package, version)
    bump()

    def make(**kw) -> LabSegment:
        return LabSegment(kind=name, **kw)

    make.__name__ = make.__qualname__ = name
    return make


def unregister_dynamics(name: str) -> None:
    _registered.pop(name, None)
    bump()


def _entry_points():
    return importlib.metadata.entry_points(group=GROUP)


def _read_installed() -> dict[str, Kind]:
    out: dict[str, Kind] = {}
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        package, version = (dist.name, dist.version) if dist is not None else (ep.module.split(".")[0], "")
        try:
            factory = ep.load()
        except Exception as exc:  # noqa: BLE001 - a lab's package may fail in any way; say which one
            raise DynamicsError("dynamics.entry-point", f"the {GROUP} entry point {ep.name} = {ep.value} of "
                                f"{package} cannot be loaded: {type(exc).__name__}: {exc}") from None
        _check_name(ep.name)
        if not callable(factory):
            raise DynamicsError("dynamics.factory", f"the {GROUP} entry point {ep.name} = {ep.value} is not "
                                "callable")
        out[ep.name] = Kind(ep.name, factory, package, version, f"entry point {ep.name} of {package}")
    return out


def refresh() -> None:
    """Read the entry points again (after a package is installed, or in tests)."""
    global _installed
    _installed = None


def kinds() -> dict[str, Kind]:
    """Every lab kind: the installed ones (entry points), then those registered in Python."""
    global _installed
    if _installed is None:
        _installed = _read_installed()
    return {**_installed, **_registered}


def kind(name: str) -> Kind | None:
    return kinds().get(name)


# -- the segment -------------------------------------------------------------------------------------
def json_value(value, what: str):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise ValueError(f"{what} must be finite, got {value}")
        return value
    if isinstance(value, list | tuple):
        return [json_value(v, what) for v in value]
    raise TypeError(f"{what} must be a number, text, a boolean or a list of them, got {value!r}")


@dataclass(eq=True, kw_only=True)
class LabSegment(_Segment):
    """A segment of a lab's registered kind: its ``params`` go to the kind's factory."""

    kind: str
    params: dict = field(default_factory=dict)
    initial_positions: dict[str, float] = field(default_factory=dict)
    dynamic = False

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.kind, str):
            raise TypeError(f"kind is the name of a registered segment kind, got {self.kind!r}")
        if not isinstance(self.params, Mapping) or not all(isinstance(k, str) for k in self.params):
            raise TypeError(f"params must map names to values, got {self.params!r}")
        self.params = {k: json_value(v, f"params.{k}") for k, v in self.params.items()}
        self.initial_positions = _positions(self.initial_positions, "initial_positions")

    def registrant(self) -> tuple[str, str]:
        """The package providing the kind and its version ("" when registered in Python)."""
        k = kind(self.kind)
        return (k.package, k.version) if k is not None else ("", "")

    def tree(self, base: Path | None = None, name: str = "segment") -> MultibodyTree:
        """The kind's frames and channels for these parameters; raises DynamicsError."""
        k = kind(self.kind)
        if k is None:
            raise DynamicsError("dynamics.unknown", f"no segment kind {self.kind!r} is registered; kinds: "
                                f"{', '.join(kinds()) or '(none)'}")
        try:
            tree = k.factory(**self.params)
        except Exception as exc:  # noqa: BLE001 - the lab's code: report it at the segment
            raise DynamicsError("dynamics.factory", f"the kind {self.kind!r} ({k.origin}) refused its "
                                f"params: {type(exc).__name__}: {exc}") from None
        if not isinstance(tree, MultibodyTree):
            raise DynamicsError("dynamics.factory", f"the factory of {self.kind!r} must return a "
                                f"MultibodyTree (its frames and channels), got {type(tree).__name__}")
        # a link no joint chain reaches from the root would be dropped silently by every consumer
        loose = [link for link in tree.links if link not in set(tree.link_order())]
        if loose:
            raise DynamicsError("dynamics.factory", f"the factory of {self.kind!r} returned links "
                                f"{', '.join(map(repr, loose[:6]))}{' …' if len(loose) > 6 else ''} that no "
                                f"joint reaches from its root {tree.root!r}; hang each from the root's chain")
        return tree


def frames(name: str, root: str, joints) -> MultibodyTree:
    """A tree for a factory: ``joints`` is a list of ``(joint, type, parent, child, xyz, axis, (lower,
    upper))`` with type ``revolute``, ``continuous``, ``prismatic`` or ``fixed``; ``xyz`` places the joint
    in its parent frame (m). Every link named is a frame."""
    links = {root: Link(root)}
    out = {}
    for joint, type_, parent, child, xyz, axis, limits in joints:
        X = np.eye(4)
        X[:3, 3] = xyz
        a = np.asarray(axis, dtype=float)
        lower, upper = limits if limits is not None else (-np.inf, np.inf)
        out[joint] = Joint(joint, type_, parent, child, X, axis=a / np.linalg.norm(a),
                           limit=Limit(float(lower), float(upper)))
        links.setdefault(parent, Link(parent))
        links[child] = Link(child)
    return MultibodyTree(name=name, links=links, joints=out, root=root, source=f"<{name}>")
