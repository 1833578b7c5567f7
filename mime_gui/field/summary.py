"""What a probe's field does over time: its dominant rotation frequency, axis, |B| range and ellipticity.

The field's mean over the run is taken off; what remains sweeps (close to) a plane, found by an SVD of the
samples: its normal is the rotation axis. The in-plane components as one complex signal ``x + i·y`` make
the rotation's sense visible to an FFT: the dominant frequency is its largest peak (zero-padded, refined by
a parabola through the peak and its neighbours, then by a golden-section search for the best fitting
ellipse), and the axis is turned so that the field rotates positively (right hand) about it at that
frequency. The fitted ellipse gives the ellipticity, minor over major semi-axis (1: a circle, 0: back and
forth along a line). A field that does not change (its variation below :data:`STEADY` of its size) has
frequency 0 and no axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: a variation below this fraction of the largest |B| is rounding, not a rotation
STEADY = 1e-9
#: the FFT is zero-padded to at least this many times the samples, before the peak is refined
PADDING = 8


@dataclass(frozen=True)
class RotatingField:
    """One probe's summary: ``frequency`` (Hz, ≥ 0; NaN with fewer than 3 steps), ``axis`` (unit, world; NaN
    when the field does not rotate), ``B_min``/``B_max`` (T, of |B|), ``ellipticity`` (0 to 1), ``mean``
    (T, world)."""

    frequency: float
    axis: np.ndarray
    B_min: float
    B_max: float
    ellipticity: float
    mean: np.ndarray

    def describe(self) -> str:
        axis = "none" if not np.all(np.isfinite(self.axis)) else \
            "(" + ", ".join(f"{v:+.3f}" for v in self.axis) + ")"
        ellipticity = f"{self.ellipticity:.3f}" if math.isfinite(self.ellipticity) else "none"
        return (f"{self.frequency:.4g} Hz about {axis}, |B| {self.B_min:.4g} to {self.B_max:.4g} T, "
                f"ellipticity {ellipticity}")


def _peak(z: np.ndarray, dt: float) -> float:
    """The signed frequency (Hz) of the largest peak of the spectrum of ``z``."""
    n = 1 << max(int(math.ceil(math.log2(len(z) * PADDING))), 4)
    spectrum = np.abs(np.fft.fft(z, n))
    k = int(np.argmax(spectrum))
    a, b, c = spectrum[k - 1], spectrum[k], spectrum[(k + 1) % n]
    denominator = a - 2.0 * b + c
    shift = 0.5 * (a - c) / denominator if denominator != 0 else 0.0
    freqs = np.fft.fftfreq(n, dt)
    return _refined(z, dt, float(freqs[k] + shift / (n * dt)), 1.0 / (n * dt))


def _fit(z: np.ndarray, t: np.ndarray, f: float):
    """``z ≈ c + a·exp(iωt) + b·exp(-iωt)`` at ``f`` Hz by least squares: ``(c, a, b)`` and the residual."""
    turn = np.exp(2j * math.pi * f * t)
    A = np.stack([np.ones_like(turn), turn, turn.conj()], axis=1)
    coefficients, *_ = np.linalg.lstsq(A, z, rcond=None)
    return coefficients, float(np.linalg.norm(z - A @ coefficients))


def _refined(z: np.ndarray, dt: float, guess: float, width: float) -> float:
    """The frequency within ``width`` of ``guess`` whose ellipse fits ``z`` best, by golden section: the
    padded FFT's grid, its parabola and the leak of an ellipse's mirror peak leave a bias of a part of a
    bin; the fit of both turning senses has none."""
    t = dt * np.arange(len(z))

    def residual(f: float) -> float:
        return _fit(z, t, f)[1]

    golden = (math.sqrt(5.0) - 1.0) / 2.0
    lo, hi = guess - width, guess + width
    x1, x2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
    r1, r2 = residual(x1), residual(x2)
    for _ in range(40):  # the bracket shrinks to 1e-8 of a bin
        if r1 > r2:
            lo, x1, r1 = x1, x2, r2
            x2 = lo + golden * (hi - lo)
            r2 = residual(x2)
        else:
            hi, x2, r2 = x2, x1, r1
            x1 = hi - golden * (hi - lo)
            r1 = residual(x1)
    return (lo + hi) / 2.0


def _one(time: np.ndarray, B: np.ndarray) -> RotatingField:
    nan3 = np.full(3, np.nan)
    if len(B) == 0:
        return RotatingField(math.nan, nan3, math.nan, math.nan, math.nan, nan3)
    size = np.linalg.norm(B, axis=1)
    mean = B.mean(axis=0)
    if len(B) < 3:
        return RotatingField(math.nan, nan3, float(size.min()), float(size.max()), math.nan, mean)
    varying = B - mean
    _, s, Vt = np.linalg.svd(varying, full_matrices=False)
    if s[0] <= STEADY * max(float(size.max()), 1e-300) * math.sqrt(len(B)):
        return RotatingField(0.0, nan3, float(size.min()), float(size.max()), math.nan, mean)
    e1, normal = Vt[0], Vt[2]
    e2 = np.cross(normal, e1)
    dt = float(np.median(np.diff(time)))
    z = varying @ e1 + 1j * (varying @ e2)
    frequency = _peak(z, dt)
    # z = c + a·exp(iωt) + b·exp(-iωt) is an ellipse of semi-axes |a| + |b| and ||a| - |b||, whatever the
    # number of turns the record holds (an SVD of a part turn is biased)
    (c, a, b), _ = _fit(z, time - time[0], frequency)
    ellipticity = abs(abs(a) - abs(b)) / (abs(a) + abs(b))
    mean = mean + c.real * e1 + c.imag * e2
    axis = normal if frequency >= 0 else -normal
    return RotatingField(abs(frequency), axis, float(size.min()), float(size.max()), float(ellipticity), mean)


def rotating_summary(time, B) -> list[RotatingField]:
    """One :class:`RotatingField` per probe of ``B (T, P, 3)`` sampled at ``time (T,)`` (evenly spaced)."""
    time, B = np.asarray(time, dtype=float), np.asarray(B, dtype=float)
    return [_one(time, B[:, p]) for p in range(B.shape[1])]


__all__ = ["PADDING", "STEADY", "RotatingField", "rotating_summary"]
