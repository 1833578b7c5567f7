"""A fixed sample of one-line bugs in the compiled kernels, each run against the dynamics tests
(docs/mutation.md).

    .venv/bin/python tools/kernel_mutations.py

mutmut rewrites every function into a trampoline that numba cannot compile, so ``_kernels.py`` is left out
of its sample and its mutants are written here: realistic one-line bugs in the articulated-body algorithm,
the integrators, the stops and the Newton-Euler pass against the dynamics tests, and in the inverse
kinematics' pose, Jacobian, error and damped step against the inverse-kinematics tests (run by
tools/hand_mutations.py; each one recompiles the kernels its tests call, about 15 s).
"""

from __future__ import annotations

import sys

from hand_mutations import run_spread

KERNELS = "mime_gui/multibody/_kernels.py"
TESTS = ["tests/multibody/test_kernels.py", "tests/nodes/test_dynamic_node.py", "tests/rig/test_torques.py"]

# (what the bug does, text in KERNELS, its replacement); each text occurs once in KERNELS
MUTANTS = [
    ("armature left out of the joint's articulated inertia",
     "D[b] = U[b, s] + armature[j]", "D[b] = U[b, s]"),
    ("gravity added instead of subtracted at the base (forward dynamics)",
     "acc[0, k + 3] = A0[k + 3] - g[k]", "acc[0, k + 3] = A0[k + 3] + g[k]"),
    ("the bias force not passed on to the parent",
     "        _matTvec_add(X[b], tmp, pA[p])\n", ""),
    ("the velocity-product acceleration c left out",
     "            acc[b, k] += c[b, k]\n", ""),
    ("semi-implicit Euler turned explicit (q from the old velocity)",
     "                    v[j] += h * K[0, j]\n                    q[j] += h * v[j]",
     "                    q[j] += h * v[j]\n                    v[j] += h * K[0, j]"),
    ("RK4's last stage taken at half the step",
     "qa[j], va[j] = q[j] + h * (v[j] + 0.5 * h * K[1, j]), v[j] + h * K[2, j]",
     "qa[j], va[j] = q[j] + 0.5 * h * (v[j] + 0.5 * h * K[1, j]), v[j] + 0.5 * h * K[2, j]"),
    ("a stop that keeps the velocity into the limit",
     "                        if v[j] < 0.0:\n                            v[j] = 0.0",
     "                        if v[j] < 0.0:\n                            pass"),
    ("viscous damping with the wrong sign",
     "out[j] = u[j] - damping[j] * v[j] - friction[j]", "out[j] = u[j] + damping[j] * v[j] - friction[j]"),
    ("a sliding joint's slide ignored in its transform",
     "            X[3, k] += q * Xtree[1, k]\n            X[4, k] -= q * Xtree[0, k]\n", ""),
    ("Newton-Euler: the joint's velocity product on a revolute joint's linear rows dropped",
     "                y0 += v1 * qd\n                y1 -= v0 * qd\n", ""),
    ("Newton-Euler: gravity's sign at the base",
     "            acc[0, k + 3] -= g[rr, k]", "            acc[0, k + 3] += g[rr, k]"),
    ("Newton-Euler: a sliding joint's force read from the wrong row",
     "                tau[n, j] = f2 + armature[j] * vdot[n, j]",
     "                tau[n, j] = n2 + armature[j] * vdot[n, j]"),
    ("Newton-Euler: the offset's moment left out when forces go to the parent",
     "            f[p, 0] += b0 + c0\n            f[p, 1] += b1 + c1\n            f[p, 2] += b2 + c2",
     "            f[p, 0] += b0\n            f[p, 1] += b1\n            f[p, 2] += b2"),
]


IK_TESTS = ["tests/multibody/test_inverse_kinematics.py"]

IK_MUTANTS = [
    ("inverse kinematics: the Jacobian's linear rows taken about the world origin, not the frame's",
     "_cross(z0, z1, z2, p0 - S[i, 3], p1 - S[i, 4], p2 - S[i, 5])",
     "_cross(z0, z1, z2, -S[i, 3], -S[i, 4], -S[i, 5])"),
    ("inverse kinematics: a revolute joint turned the wrong way in the pose",
     "W[r, 0] = c * a + s * b", "W[r, 0] = c * a - s * b"),
    ("inverse kinematics: a sliding joint's slide left out of the pose",
     "W[r, 3] = M[r, 3] + qi * M[r, 2]", "W[r, 3] = M[r, 3]"),
    ("inverse kinematics: the rotation error's sign flipped",
     "e6[0], e6[1], e6[2] = w0 * k, w1 * k, w2 * k", "e6[0], e6[1], e6[2] = -w0 * k, -w1 * k, -w2 * k"),
    ("inverse kinematics: no damping in the step",
     "            A[a, a] += lam2\n", ""),
    ("inverse kinematics: a pivoting row swap that leaves the right-hand side",
     "                y[k], y[p] = y[p], y[k]\n", ""),
    ("inverse kinematics: the null-space pull not capped by the error",
     "        if size > err:", "        if size > 1e300:"),
    ("inverse kinematics: the step not capped at max_step",
     "    if big > max_step:", "    if big > 10.0 * max_step:"),
]


def main() -> int:
    return run_spread([(what, KERNELS, old, new, TESTS) for what, old, new in MUTANTS]
                      + [(what, KERNELS, old, new, IK_TESTS) for what, old, new in IK_MUTANTS])


if __name__ == "__main__":
    sys.exit(main())
