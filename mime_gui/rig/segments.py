"""The segments of an apparatus's chain: arms and motors.

``Arm.Kinematic`` / ``Arm.Dynamic`` read a URDF description; ``Motor.Kinematic`` / ``Motor.Dynamic`` are a
stator and a rotor turning about ``axis`` on one continuous joint (``shaft``). A motor is its own tiny
:class:`~mime_gui.multibody.MultibodyTree`, so it compiles, grafts and plays exactly like an arm. Every
segment publishes frames (an arm's links; a motor's ``stator`` and ``rotor``) that later segments and parts
mount on.

The first segment is placed in the world by ``at`` (m) and ``orientation`` (unit quaternion w, x, y, z);
a later one is placed the same way in the frame it mounts on.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mime_gui.inputs import resolved
from mime_gui.multibody import MultibodyTree, read_urdf
from mime_gui.multibody.spatial import quaternion_to_matrix
from mime_gui.multibody.tree import Inertial, Joint, Limit, Link
from mime_gui.rig.units import Quantity

MOTOR_JOINT = "shaft"
MOTOR_FRAMES = ("stator", "rotor")


def _vector(value, n: int, what: str) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be {n} numbers, got {value!r}") from None
    if len(out) != n or any(isinstance(v, bool) for v in value):
        raise TypeError(f"{what} must be {n} numbers, got {value!r}")
    return out


def direction(value) -> np.ndarray | None:
    """The unit vector along ``value`` (3 numbers), None when it has no direction (zero or not finite).
    The vector is scaled by its largest component first, so a huge one's norm does not overflow."""
    a = np.asarray(value, dtype=float)
    big = float(np.max(np.abs(a))) if np.all(np.isfinite(a)) else math.nan
    if big > 0:
        a = a / big
    n = float(np.linalg.norm(a))
    if not math.isfinite(n) or n == 0:
        return None
    return a / n


def _positions(value, what: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} must map joint names to numbers, got {value!r}")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or isinstance(v, bool) or not isinstance(v, int | float):
            raise TypeError(f"{what} must map joint names to numbers, got {k!r}: {v!r}")
        out[k] = float(v)
    return out


def _check_carries_payload(value) -> None:
    """``carries_payload``: whether a dynamic segment carries the segments riding on it (see
    :mod:`mime_gui.rig.payload`)."""
    if not isinstance(value, bool):
        raise TypeError(f"carries_payload is true or false, got {value!r}")


def placement(at, orientation) -> np.ndarray:
    """``mount_X_base`` from a position (m) and a unit quaternion (w, x, y, z)."""
    X = np.eye(4)
    X[:3, :3] = quaternion_to_matrix(orientation)
    X[:3, 3] = at
    return X


@dataclass(eq=True, kw_only=True)
class _Segment:
    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    mount: str | None = None
    servo_time_constant: float = 0.0
    # the largest |B| its joints' motors and encoders take (tesla, with its reason); None: not checked
    field_tolerance: Quantity | None = None

    kind = "segment"
    dynamic = False

    def __post_init__(self):
        self.at = _vector(self.at, 3, "at")
        self.orientation = _vector(self.orientation, 4, "orientation")
        tau = self.servo_time_constant
        if isinstance(tau, bool) or not isinstance(tau, int | float):
            raise TypeError(f"servo_time_constant is a number of seconds, got {self.servo_time_constant!r}")
        self.servo_time_constant = float(self.servo_time_constant)
        if self.mount is not None and not isinstance(self.mount, str):
            raise TypeError(f"mount is a frame name, got {self.mount!r}")
        q = self.field_tolerance
        if q is not None and (isinstance(q, bool) or not isinstance(q, Quantity | int | float)):
            raise TypeError(f"field_tolerance is a flux density, tesla(value, reason=...), got {q!r}")

    def placement(self) -> np.ndarray:
        return placement(self.at, self.orientation)


@dataclass(eq=True, kw_only=True)
class _ArmSegment(_Segment):
    description: str = ""
    initial_positions: dict[str, float] = field(default_factory=dict)

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.description, str | os.PathLike):
            raise TypeError(f"description is the path of a URDF file, got {self.description!r}")
        self.description = os.fspath(self.description)
        self.initial_positions = _positions(self.initial_positions, "initial_positions")

    def path(self, base: Path | None) -> Path:
        p = Path(self.description)
        return p if p.is_absolute() or base is None else Path(base) / p

    def tree(self, base: Path | None = None, package_dirs=()) -> MultibodyTree:
        """The description read (cached per file, modification time and package folders), its ``package://``
        meshes looked for under ``package_dirs`` too; raises UrdfError."""
        return _read_cached(self.path(base), package_dirs)


class Arm:
    """An arm read from a URDF description."""

    @dataclass(eq=True, kw_only=True)
    class Kinematic(_ArmSegment):
        """Prescribed joint motion: it carries no mass, and parts mounted on it ride along."""

        description: str
        kind = "Arm.Kinematic"
        dynamic = False

    @dataclass(eq=True, kw_only=True)
    class Dynamic(_ArmSegment):
        """An arm with mass: mounted parts are grafted onto its links, and each joint takes an armature.

        ``armature`` maps a joint to a declared armature (``kg_m2`` on a revolute joint, ``kg`` on a sliding
        one); ``actuators`` maps a transmission's actuator to its rotor inertia (``kg_m2``) or to the name of
        a registered actuator, reflected onto the joint through the reduction squared.
        """

        description: str
        armature: dict[str, Quantity] = field(default_factory=dict)
        actuators: dict[str, Quantity | str] = field(default_factory=dict)
        carries_payload: bool = True
        kind = "Arm.Dynamic"
        dynamic = True

        def __post_init__(self):
            super().__post_init__()
            _check_carries_payload(self.carries_payload)
            for what, d in (("armature", self.armature), ("actuators", self.actuators)):
                if not isinstance(d, dict) or not all(isinstance(k, str) for k in d):
                    raise TypeError(f"{what} must map names to quantities, got {d!r}")
            self.armature = dict(self.armature)
            self.actuators = dict(self.actuators)


@dataclass(eq=True, kw_only=True)
class _MotorSegment(_Segment):
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    initial_position: float = 0.0

    def __post_init__(self):
        super().__post_init__()
        self.axis = _vector(self.axis, 3, "axis")
        if isinstance(self.initial_position, bool) or not isinstance(self.initial_position, int | float):
            raise TypeError(f"initial_position is a number of radians, got {self.initial_position!r}")
        self.initial_position = float(self.initial_position)

    @property
    def initial_positions(self) -> dict[str, float]:
        return {MOTOR_JOINT: self.initial_position}

    def rotor_inertia(self) -> float:
        return 0.0

    def tree(self, base: Path | None = None, name: str = "motor") -> MultibodyTree:
        """Stator (the root, placed on the mount) and rotor on one continuous joint about ``axis``."""
        a = direction(self.axis)
        if a is None:
            raise ValueError(f"the motor axis {self.axis} has no direction")
        inertia = self.rotor_inertia()
        rotor = None
        if inertia:
            rotor = Inertial(mass=0.0, link_X_com=np.eye(4), inertia=inertia * np.outer(a, a))
        links = {"stator": Link("stator"), "rotor": Link("rotor", inertial=rotor)}
        joints = {MOTOR_JOINT: Joint(MOTOR_JOINT, "continuous", "stator", "rotor", np.eye(4), axis=a,
                                     limit=Limit(-np.inf, np.inf))}
        return MultibodyTree(name=name, links=links, joints=joints, root="stator", source="<motor>")


class Motor:
    """A motor: a rotor turning about ``axis`` in its stator; it publishes the frames ``stator`` and "
      "``rotor``."""

    @dataclass(eq=True, kw_only=True)
    class Kinematic(_MotorSegment):
        kind = "Motor.Kinematic"
        dynamic = False

    @dataclass(eq=True, kw_only=True)
    class Dynamic(_MotorSegment):
        """``inertia`` is the rotor's moment of inertia about ``axis`` (``kg_m2``, with its reason)."""

        inertia: Quantity | None = None
        carries_payload: bool = True
        kind = "Motor.Dynamic"
        dynamic = True

        def __post_init__(self):
            super().__post_init__()
            _check_carries_payload(self.carries_payload)

        def rotor_inertia(self) -> float:
            q = self.inertia
            if isinstance(q, Quantity) and q.finite and q.value > 0:
                return q.value
            return 0.0


Segment = Arm.Kinematic | Arm.Dynamic | Motor.Kinematic | Motor.Dynamic
SEGMENT_KINDS = {c.kind: c for c in (Arm.Kinematic, Arm.Dynamic, Motor.Kinematic, Motor.Dynamic)}

_cache: dict[tuple, tuple[float, MultibodyTree]] = {}


def _read_cached(path: Path, package_dirs=()) -> MultibodyTree:
    from mime_gui.multibody.resolve import package_dirs as process_dirs

    file = str(resolved(path))
    key = (file, tuple(os.path.abspath(d) for d in package_dirs), process_dirs())
    try:
        stamp = os.stat(file).st_mtime_ns
    except OSError:
        stamp = -1
    hit = _cache.get(key)
    if hit is None or hit[0] != stamp:
        tree = read_urdf(file, package_dirs=key[1])
        _cache[key] = (stamp, tree)
        hit = _cache[key]
    return hit[1]
