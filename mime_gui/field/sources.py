"""The rig's magnets as Magpylib sources (:mod:`mime_gui.rig.magnet_sources`, where the rig's own dynamics
find them too): each geometry kind's source placed on its centroid's graft frame, polarised ``Br·d``."""

from __future__ import annotations

from mime_gui.rig.magnet_sources import MagnetSource, magnet_sources

__all__ = ["MagnetSource", "magnet_sources"]
