"""Mass, centre of mass and momentum of an Articulation.

The root body (the root link and every link welded to it) is fixed in the world: its mass is excluded from
``mass``, ``center_of_mass``, ``momentum`` and ``momentum_matrix``, as in RigidBodyDynamics.jl and Pinocchio.
Momenta are ``[angular; linear]`` in world axes, the angular part about the world origin.
"""

from __future__ import annotations

import numpy as np

from mime_gui.multibody import _world
from mime_gui.multibody._model import dynamic_model
from mime_gui.multibody.articulation import Articulation
from mime_gui.multibody.kinematics import axis_frames, check_vector


def mass(art: Articulation) -> float:
    """Total mass of the moving bodies (the root body excluded)."""
    return float(dynamic_model(art).mass.sum())


def subtree_mass(art: Articulation, body) -> float:
    """Mass of the subtree rooted at ``body`` (a body index, or any link or frame name), that body included.
    The root body's own mass is never counted, so ``subtree_mass(art, root) == mass(art)``."""
    m = dynamic_model(art)
    if isinstance(body, (int, np.integer)) and not isinstance(body, bool):
        if not 0 <= body < art.nbodies:
            raise KeyError(f"body index {body} out of range for {art.name!r} ({art.nbodies} bodies)")
        b = int(body)
    elif isinstance(body, str):
        b = art.body_index(body)
    else:
        raise KeyError(f"body must be a body index or a link/frame name, got {type(body).__name__}")
    return float(m.subtree[b] @ m.mass)


def center_of_mass(art: Articulation, q) -> np.ndarray:
    """World position ``(..., 3)`` of the centre of mass of the moving bodies (root body excluded).
    An articulation whose moving bodies have no mass raises ValueError."""
    m = dynamic_model(art)
    q = check_vector(art, q)
    total = m.mass.sum()
    if total <= 0:
        raise ValueError(f"{art.name!r} has no moving mass: its centre of mass is undefined")
    F = axis_frames(m, q)
    c = (F[..., :3, :3] @ m.com[:, :, None])[..., 0] + F[..., :3, 3]
    return (m.mass @ c) / total


def momentum_matrix(art: Articulation, q) -> np.ndarray:
    """``A (..., 6, nv)`` with ``h = A @ v``: the spatial momentum ``[angular about the world origin;
    linear]`` of all moving bodies, world axes."""
    m = dynamic_model(art)
    q = check_vector(art, q)
    ws = _world.WorldState(m, q)
    return np.swapaxes(ws.composite_columns(), -1, -2)


def momentum(art: Articulation, q, v) -> np.ndarray:
    """Spatial momentum ``(..., 6)`` ``[angular about the world origin; linear]``, summed body by body."""
    m = dynamic_model(art)
    q = check_vector(art, q)
    v = check_vector(art, v, "v")
    ws = _world.WorldState(m, q)
    V = ws.body_twists(v)
    return (ws.inertias @ V[..., None])[..., 0].sum(axis=-2)


def kinetic_energy(art: Articulation, q, v) -> np.ndarray:
    """Kinetic energy ``(...)`` summed body by body, ``1/2 m |v_com|^2 + 1/2 w . I_com w``, from the bodies'
    mass, COM and rotational inertia in body axes (root body excluded: it does not move)."""
    m = dynamic_model(art)
    q = check_vector(art, q)
    v = check_vector(art, v, "v")
    ws = _world.WorldState(m, q)
    V = ws.body_twists(v)[..., 1:, :]
    world_X_body = (ws.F @ m.axis_X_body)[..., 1:, :, :]
    R = world_X_body[..., :3, :3]
    w, vo = V[..., :3], V[..., 3:]
    c = (R @ art.com[1:, :, None])[..., 0] + world_X_body[..., :3, 3]
    vc = vo + _world.cross(w, c)
    w_body = (np.swapaxes(R, -1, -2) @ w[..., None])[..., 0]
    rot = (w_body * (art.inertia_com[1:] @ w_body[..., None])[..., 0]).sum(-1)
    trans = art.mass_of_body[1:] * (vc * vc).sum(-1)
    return 0.5 * (trans + rot).sum(-1)
