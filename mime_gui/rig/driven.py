"""Torque-driven dynamic segments in whole-chain playback.

A dynamic segment commanded by torques (the spec's channels ``<segment>.joint_torques`` for an arm, a
``(T, nq)`` array or one ``<segment>.joint_torques.<joint>`` column per joint, and ``<segment>.torque`` for a
motor) is integrated by forward dynamics (:class:`~mime_gui.nodes.dynamic.DynamicArmNode`) with its armature,
grafted parts and payload, on its mount's motion; the others play their position commands as the chain
node plays them. Segments are advanced in mount order, so what rides on a torque-driven segment follows it.
A torque-driven segment starts at its initial positions, at rest. Joints of a torque-driven segment without
a torque column get zero torque.

When a magnet a torque-driven segment moves has a magnet on another body to pull on it
(:mod:`mime_gui.rig.pulled`), the pull depends on where every segment is at each step, so the chain is
stepped one step at a time (:meth:`~mime_gui.rig.chain_node.ChainNode.advance`, as the app's live clock
steps it): each segment in mount order, a torque-driven one feeling the pull at each evaluation of its
forces, and then the whole run is published as without the pull (its kinematic segments played at once on
their mounts). Without such a magnet each segment is played at once, in mount order.
"""

from __future__ import annotations

import math
from collections import ChainMap
from collections.abc import Mapping
from functools import partial

import numpy as np

from mime_gui.multibody.errors import CodedError
from mime_gui.nodes import columns as grammar
from mime_gui.rig.pulled import segment_pulls
from mime_gui.rig.segments import MOTOR_JOINT

# an arm's channel, a motor's (the grammar's torques, mime_gui.nodes.columns)
JOINT_TORQUES, TORQUE = grammar.TORQUES.channel_names


class TorqueCommandError(CodedError):
    """A torque command naming no dynamic segment or joint, or of the wrong shape (``commands.torque``)."""

    def __init__(self, message: str):
        super().__init__("commands.torque", message)


def is_torque_channel(name: str) -> bool:
    """``<segment>.joint_torques[.<joint>]`` or ``<segment>.torque``."""
    return grammar.kind_of(name) is grammar.TORQUES


def torque_arrays(built, torques: Mapping[str, object], T: int | None = None) -> dict[str, np.ndarray]:
    """Each torque-driven segment's ``(T, nq)`` torques from the channels in ``torques``."""
    out: dict[str, np.ndarray] = {}
    for key, value in torques.items():
        value = np.asarray(value, dtype=float)
        parts = key.split(".")
        seg = parts[0]
        s = built.segments.get(seg)
        if s is None or not is_torque_channel(key):
            dynamic = ", ".join(n for n, x in built.segments.items() if x.segment.dynamic)
            raise TorqueCommandError(f"{key!r} is not a torque channel of this rig; channels are "
                                     f"<segment>.joint_torques, <segment>.joint_torques.<joint> and "
                                     f"<segment>.torque (a motor) of the dynamic segments: "
                                     f"{dynamic or 'none'}")
        if not s.segment.dynamic:
            raise TorqueCommandError(f"{key!r}: segment {seg!r} is kinematic; only a dynamic segment takes "
                                     "torques (make it Arm.Dynamic or Motor.Dynamic)")
        art = s.articulation
        T = len(value) if T is None else T
        block = out.setdefault(seg, np.zeros((T, art.nq)))
        if len(value) != T:
            raise TorqueCommandError(f"{key!r} has {len(value)} steps, expected {T}")
        if parts[1] == TORQUE:
            if MOTOR_JOINT not in art.joint_names or art.nq != 1:
                raise TorqueCommandError(f"{key!r}: {seg!r} is not a motor; command an arm's joints with "
                                         f"{seg}.joint_torques")
            cols, value = [0], value.reshape(T, 1)
        elif len(parts) == 2:
            if value.shape != (T, art.nq):
                raise TorqueCommandError(f"{key!r} must have shape ({T}, {art.nq}) "
                                         f"({', '.join(art.joint_names)}), got {value.shape}")
            cols = list(range(art.nq))
        else:
            joint = ".".join(parts[2:])
            if joint not in art.joint_names:
                raise TorqueCommandError(f"{key!r}: no joint {joint!r} in {seg!r}; joints: "
                                         f"{', '.join(art.joint_names)}")
            cols, value = [art.joint_index(joint)], value.reshape(T, 1)
        if not np.isfinite(value).all():
            raise TorqueCommandError(f"{key!r} holds non-finite values")
        block[:, cols] = value
    return out


def play_driven(built, commands, torques: Mapping[str, object], dt: float, initial_positions=None,
                servo_time_constant: float | None = None, integrator: str = "euler", substeps: int = 1,
                gravity=(0.0, 0.0, -9.81), progress=None, magnets: bool = True):
    """:meth:`BuiltRig.play` with the segments named in ``torques`` driven by them (see the module
    docstring). ``commands``: position commands as :meth:`BuiltRig.play` takes them (the columns of a
    torque-driven segment are ignored). ``magnets``: the torque-driven segments feel the magnets' pull
    (:mod:`mime_gui.rig.pulled`). Returns a :class:`~mime_gui.rig.build.RigTrajectory`; a torque-driven
    segment's trajectory carries ``joint_velocities`` too."""
    from mime_gui.nodes.dynamic import DynamicArmNode, check_substeps
    from mime_gui.rig.build import RigTrajectory

    names = built.command_names
    u, T = built._command_array(commands, names)
    driven = torque_arrays(built, torques, T)
    if driven:  # before any step: the pull's path steps one step at a time, each within the bound alone
        check_substeps(T, substeps, dt)
    init = built.initial_commands()
    for key, value in (initial_positions or {}).items():
        if key not in names:
            raise KeyError(f"unknown command {key!r}; commands: {', '.join(names)}")
        init[names.index(key)] = float(value)
    chain = built.chain_node(servo_time_constant)
    per_segment, initial, col = {}, {}, 0
    for n in built.segments:
        k = len(chain.command_names(n))
        per_segment[n], initial[n] = u[:, col:col + k], init[col:col + k]
        col += k
    start = chain.initial_state(initial)
    nodes = {name: DynamicArmNode(built.segments[name].dynamics_articulation,
                                  placement=built.segments[name].placement, integrator=integrator,
                                  substeps=substeps, gravity=gravity) for name in driven}
    pulls = segment_pulls(built, driven) if magnets else {}
    stepped = _stepped(chain, nodes, driven, per_segment, start, dt, pulls, progress) if pulls else {}
    out = {}
    for name in chain.order:
        s = built.segments[name]
        poses = rates = pose0 = None
        if s.mount is not None and s.mount[0] in built.segments:
            seg, frame = s.mount
            f = built.segments[seg].articulation.frame_index(frame)
            poses, rates = out[seg].frame_poses[:, f], out[seg].frame_angular_velocities[:, f]
            pose0 = start[seg].frame_poses[f]
        if name in stepped:
            out[name] = nodes[name].published(*stepped[name], dt, poses, rates)
        elif name in driven:
            out[name] = nodes[name].play(driven[name], dt, start[name].joint_positions, None, poses, rates,
                                         pose0)
        else:
            out[name] = chain.nodes[name].play(per_segment[name], dt, initial[name], mount_poses=poses,
                                               mount_rates=rates)
        if progress is not None and not pulls:
            progress(len(out) * T, len(chain.order) * T)
    ordered = {n: out[n] for n in built.segments}
    return RigTrajectory(ordered, built.joint_names, built.frame_names, names, float(dt), start, T)


#: steps between two calls of the progress callback while the chain is stepped one step at a time
_PROGRESS_STEPS = 256


def _stepped(chain, nodes, driven, per_segment, start, dt, pulls, progress) -> dict:
    """The torque-driven segments' ``(positions, velocities)`` ``(T, nq)`` with the chain stepped one step at
    a time (see the module): the others advance by their commands, so the magnets on them are where their
    step puts them."""
    from mime_gui.multibody.moving_base import BaseTrack

    T = len(next(iter(driven.values())))
    q = {n: np.full((T, len(start[n].joint_positions)), np.nan) for n in driven}
    v = {n: np.full_like(q[n], np.nan) for n in driven}
    velocity = {n: np.zeros(q[n].shape[1]) for n in driven}
    tracks = {}
    for name in driven:
        ref = chain.mount_of(name)
        if ref is not None:
            tracks[name] = BaseTrack(nodes[name].base(start[ref[0]].frame_poses[ref[1]]))
    state = dict(start)
    for n in range(T):
        new: dict = {}
        now = ChainMap(new, state)  # the segments advanced this step, the others as they were

        def drive(segment_state, mount_pose, mount_rate, name, n=n, now=now):
            node = nodes[name]
            world_X_base = node.base(mount_pose)
            if name in tracks:
                base = tracks[name].step(world_X_base, mount_rate, dt, node.gravity)
            else:
                base = (None, None, world_X_base[:3, :3].T @ node.gravity)
            pull = pulls.get(name)
            external = None if pull is None else pull.external(now, world_X_base)
            try:
                reached, velocity[name] = node.advance(segment_state.joint_positions, velocity[name],
                                                       driven[name][n], dt, base, mount_pose, mount_rate,
                                                       max_substep=math.inf, external=external)
            except CodedError as err:
                if err.code != "dynamics.diverged":
                    raise
                node._check_finite(q[name], v[name], dt)  # the step it diverged at, by name
                raise
            q[name][n], v[name][n] = reached.joint_positions, velocity[name]
            return reached

        drivers = {name: partial(drive, name=name) for name in driven}
        commands = {name: per_segment[name][n] for name in chain.order if name not in driven}
        state = chain.advance(state, commands, dt, drivers, out=new)
        if progress is not None and ((n + 1) % _PROGRESS_STEPS == 0 or n + 1 == T):
            progress(n + 1, T)
    return {name: (q[name], v[name]) for name in driven}
