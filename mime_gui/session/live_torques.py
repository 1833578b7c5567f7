"""The joint torques of live driving: each dynamic segment's torques for the step the app's clock just took,
and the limit excesses of the last seconds.

On every live step (:meth:`~mime_gui.session.Session.tick`, the sliders' driving) each dynamic segment's
torques are its inverse dynamics at the state reached, with the rates of :mod:`mime_gui.rig.torques`, step by
step instead of batched:

- ``v_n = (θ_n − θ_{n−1}) / dt_n`` and ``v̇_n = (v_n − v_{n−1}) / dt_n``, from rest after a jump (the
  first step, a teleport, a row shown by the player, an edit of the rig);
- the segments riding on it move as they did over the step (:mod:`mime_gui.rig.coupled`): their joints'
  rates are taken the same way;
- the base of a mounted segment: :func:`~mime_gui.multibody.moving_base.base_motion` over the previous step
  and this one, so its spatial acceleration is the difference of the two steps' twists; a segment standing
  in the world takes gravity in its placement's axes.

Along steps of a fixed ``dt`` they are :meth:`BuiltRig.torques <mime_gui.rig.build.BuiltRig.torques>` of the
same states. A torque-driven segment (:meth:`~mime_gui.session.Session.set_drive`) shows the torques applied
to it instead: its motion is their result, not their cause.

:class:`LiveTorques` keeps the last :data:`WINDOW` seconds of ``(time, τ, v)`` and finds the effort and
velocity excesses in them (:func:`mime_gui.rig.limits.excesses`). Nothing here imports Qt.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mime_gui.multibody import PRISMATIC, compiled
from mime_gui.multibody.moving_base import BaseTrack, inverse_dynamics_on_moving_base
from mime_gui.rig.magnet_pull import magnet_pull
from mime_gui.rig.torques import _magnet_share, inverse_dynamics_rows
from mime_gui.session.events import Event

GRAVITY = (0.0, 0.0, -9.81)
WINDOW = 10.0  # s of live torques kept
_AT_REST = np.zeros(6)


def _inverse_dynamics(art, q, v, vdot, V0, A0, g) -> np.ndarray:
    """One state's joint torques: compiled (a few µs) once the kernels are loaded, numpy's equal algorithm
    (a few hundred µs) until then, so no tick waits for numba."""
    if compiled.ready():
        return inverse_dynamics_rows(art, q[None], v[None], vdot[None], np.reshape(V0, (1, 6)),
                                     np.reshape(A0, (1, 6)), np.reshape(g, (1, 3)))[0]
    return inverse_dynamics_on_moving_base(art, q, v, vdot, V0, A0, g)


def base_pose(session, name: str, states) -> tuple[np.ndarray, np.ndarray | None]:
    """``(world_X_base, mount angular velocity or None)`` of segment ``name`` in ``states`` (name →
    NodeState): its mount frame's pose times its placement, or its placement in the world."""
    seg = session.segments[name]
    if seg.mount is None or seg.mount[0] not in states:
        return np.asarray(seg.placement, dtype=float), None
    mount, frame = seg.mount
    f = session.segments[mount].articulation.frame_index(frame)
    state = states[mount]
    return state.frame_poses[f] @ seg.placement, state.frame_angular_velocities[f]


def _positions(coupled, name: str, states, fallback) -> np.ndarray:
    """Segment ``name``'s joint positions in ``states``, or, with riders (``coupled``), those of every joint
    of the coupled articulation (a rider missing from ``states`` taken from ``fallback``)."""
    if coupled is None:
        return np.asarray(states[name].joint_positions, dtype=float)
    return coupled.gather({n: (states.get(n) or fallback[n]).joint_positions for n in coupled.segments})


class _Track:
    """One dynamic segment's last step: the state it reached, the positions and joint velocities of its
    joints (and its riders' when it carries some), its base."""

    def __init__(self, state, q, pose, mounted: bool):
        self.state = state
        self.q = q
        self.v = np.zeros_like(self.q)
        self.base = BaseTrack(pose) if mounted else None


@dataclasses.dataclass(frozen=True, eq=False)
class LiveWindow:
    """The live torques kept: ``joint_names`` (``<segment>.<joint>``), ``time (T,)`` (s of the live clock),
    ``joint_torques`` and ``joint_velocities`` ``(T, n)``, the limits, and the excesses in the window."""

    joint_names: tuple[str, ...]
    time: np.ndarray
    joint_torques: np.ndarray
    joint_velocities: np.ndarray
    effort_limits: np.ndarray
    velocity_limits: np.ndarray
    excesses: tuple


class LiveTorques:
    """The torques of the dynamic segments along live driving (see the module docstring).

    ``updated()`` is emitted after every step and when the kept torques are cleared."""

    def __init__(self, session, window: float = WINDOW, gravity=GRAVITY):
        self.session = session
        self.window = float(window)
        self.gravity = np.asarray(gravity, dtype=float)
        self.time = 0.0  # the live clock (s)
        self.steps = 0
        self.updated = Event("live_torques_updated")
        self._layout: tuple = ()  # ((name, its own articulation, built segment), …) of the dynamic segments
        self._tracks: dict[str, _Track] = {}
        self._buffer = _Buffer(0)  # (step, time, τ, v) of the window
        self._cache: LiveWindow | None = None
        self.joint_names: tuple[str, ...] = ()
        self.effort_limits = self.velocity_limits = np.zeros(0)
        self._units: list = []
        session.stepped.connect(self._stepped)
        session.document_changed.connect(self._cleared)
        session.rig_changed.connect(self._cleared)

    def detach(self) -> None:
        self.session.stepped.disconnect(self._stepped)
        self.session.document_changed.disconnect(self._cleared)
        self.session.rig_changed.disconnect(self._cleared)

    # -- what is computed -------------------------------------------------------------------------------
    @property
    def effort_units(self) -> tuple[str, ...]:
        """``"N·m"`` or ``"N"`` (a sliding joint) per column."""
        return tuple(u for u, _ in self._units)

    @property
    def dynamic(self) -> bool:
        """True when the open rig has a dynamic segment to compute torques for."""
        return bool(self._dynamic_segments())

    def _dynamic_segments(self) -> tuple:
        doc = self.session.document
        if doc is None or doc.built is None or doc.findings:
            return ()
        # its own articulation (the joints, as with its payload welded on) and the built segment: what its
        # dynamics read (the payload, the riders hung on it) is made on the first step, not at each edit
        return tuple((name, s.articulation, s) for name, s in doc.built.segments.items()
                     if s.segment.dynamic and name in self.session.segments)

    def _set_layout(self, layout: tuple) -> None:
        self._layout = layout
        self._tracks.clear()
        self._cache = None
        self.joint_names = tuple(f"{name}.{j}" for name, art, _ in layout for j in art.joint_names)
        def joined(field):
            return np.concatenate([getattr(art, field) for _, art, _ in layout]) if layout else np.zeros(0)

        self.effort_limits, self.velocity_limits = joined("effort_limit"), joined("velocity_limit")
        self._units = [("N", "m/s") if t == PRISMATIC else ("N·m", "rad/s")
                       for _, art, _ in layout for t in art.joint_type]
        self._buffer = _Buffer(len(self.joint_names))

    def clear(self) -> None:
        """Forget the kept torques (the next step starts from rest)."""
        self._set_layout(self._dynamic_segments())
        self.updated.emit()

    def _cleared(self, *_args) -> None:
        self.clear()

    # -- one step ----------------------------------------------------------------------------------------
    def _stepped(self, dt: float, old) -> None:
        layout = self._dynamic_segments()
        if [(n, id(b)) for n, _, b in layout] != [(n, id(b)) for n, _, b in self._layout]:
            self._set_layout(layout)
        if not layout:
            return
        session = self.session
        states = {name: session.state(name) for name in session.segments}
        pull = self._pull_now(states)
        taus, vels = [], []
        for name, _, built in layout:
            coupled = built.coupled  # with riders: them hung on it, moving; None without
            new = states[name]
            track = self._tracks.get(name)
            if track is None or track.state is not old.get(name):  # a jump: from rest where it was
                pose, _ = base_pose(session, name, old)
                track = self._tracks[name] = _Track(old[name], _positions(coupled, name, old, states), pose,
                                                    session.segments[name].mount is not None)
            # with riders, the positions (and rates) of every joint of the coupled articulation
            q = _positions(coupled, name, states, states)
            own = slice(None) if coupled is None else coupled.columns[name]
            pose, omega = base_pose(session, name, states)
            base = track.base.step(pose, omega, dt, self.gravity) if track.base is not None else None
            v = (q - track.q) / dt
            if session.drive(name) == "torques":
                tau, shown = session.applied_torques(name), session.joint_velocities(name)
            else:
                vdot = (v - track.v) / dt
                if base is None:
                    V0 = A0 = _AT_REST
                    g = pose[:3, :3].T @ self.gravity
                else:
                    V0, A0, g = base
                whole = built.dynamics_articulation if coupled is None else coupled.articulation
                tau, shown = _inverse_dynamics(whole, q, v, vdot, V0, A0, g)[own], v[own]
                if pull is not None:  # the magnets on other bodies pull on this segment's (rig/torques.py)
                    share = _magnet_share(session.document.built, pull, name, whole, coupled, q[None], pose)
                    if share is not None:
                        tau = tau + share[0][own]
            track.state, track.q, track.v = new, q, v
            taus.append(tau)
            vels.append(shown)
        self.steps += 1
        self.time += dt
        self._buffer.append(self.steps - 1, self.time, np.concatenate(taus), np.concatenate(vels),
                            self.time - self.window - 1e-9)
        self._cache = None
        self.updated.emit()

    def _pull_now(self, states):
        """The magnets' pull on each other at the step's ``states`` (None with fewer than two magnets)."""
        built = getattr(self.session.document, "built", None)
        if built is None or len(built.apparatus.magnets) < 2 or any(n not in states for n in built.segments):
            return None
        frames = np.concatenate([states[n].frame_poses for n in built.segments])[None]
        pull = magnet_pull(built, frames)
        return pull if pull.any else None

    # -- what was kept -------------------------------------------------------------------------------------
    def last(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(τ, v)`` of the last step (every column), None before the first."""
        b = self._buffer
        return (b.tau[b.hi - 1], b.v[b.hi - 1]) if b.hi > b.lo else None

    def series(self) -> LiveWindow:
        """The torques of the last :attr:`window` seconds, without looking for excesses (``excesses`` is
        empty): views of the kept arrays, no copy (a plot's data, every frame)."""
        b = self._buffer
        s = slice(b.lo, b.hi)
        return LiveWindow(self.joint_names, b.time[s], b.tau[s], b.v[s], self.effort_limits,
                          self.velocity_limits, ())

    def data(self) -> LiveWindow:
        """The torques of the last :attr:`window` seconds and the excesses of the limits in them (``step``:
        the live step's number since the torques were last cleared)."""
        if self._cache is not None:
            return self._cache
        from mime_gui.rig.limits import excesses

        w = self.series()
        found = excesses(self.joint_names, w.time, w.joint_torques, w.joint_velocities, self.effort_limits,
                         self.velocity_limits, self._units)
        b = self._buffer
        first = int(b.step[b.lo]) if b.hi > b.lo else 0
        found = tuple(dataclasses.replace(e, step=e.step + first, peak_step=e.peak_step + first)
                      for e in found)
        self._cache = dataclasses.replace(w, excesses=found)
        return self._cache


class _Buffer:
    """Rows ``[lo, hi)`` of growing arrays: appended at the end, dropped from the front. Full, the kept rows
    are copied into new arrays (views handed out before stay valid)."""

    def __init__(self, n: int, capacity: int = 256):
        self.n = n
        self.lo = self.hi = 0
        self.step = np.zeros(capacity, dtype=np.int64)
        self.time = np.zeros(capacity)
        self.tau = np.zeros((capacity, n))
        self.v = np.zeros((capacity, n))

    def append(self, step: int, time: float, tau, v, keep_from: float) -> None:
        if self.hi == len(self.time):
            kept = self.hi - self.lo
            capacity = max(len(self.time), 2 * kept, 256)
            for name in ("step", "time", "tau", "v"):
                old = getattr(self, name)
                new = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
                new[:kept] = old[self.lo:self.hi]
                setattr(self, name, new)
            self.lo, self.hi = 0, kept
        i = self.hi
        self.step[i], self.time[i], self.tau[i], self.v[i] = step, time, tau, v
        self.hi += 1
        self.lo += int(np.searchsorted(self.time[self.lo:self.hi], keep_from, side="left"))
