"""A fixed sample of one-line bugs in the compiled kernels, each run against the dynamics tests
(docs/mutation.md).

    .venv/bin/python tools/kernel_mutations.py

mutmut rewrites every function into a trampoline that numba cannot compile, so ``_kernels.py`` is left out
of its sample and its mutants are written here: realistic one-line bugs in the articulated-body algorithm,
the integrators, the stops and the Newton-Euler pass (run by tools/hand_mutations.py; each one recompiles
the kernels, about 15 s).
"""

from __future__ import annotations

import sys

from hand_mutations import run_sample

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


def main() -> int:
    return run_sample(KERNELS, TESTS, MUTANTS)


if __name__ == "__main__":
    sys.exit(main())
