"""The materials table: density, remanence where magnetic, and the source of each figure.

The table lives in ``resources/materials.json``. Names are matched without regard to case, spaces,
dashes or underscores (``"NdFeB N42"``, ``"ndfeb-n42"``), and ``aluminum`` is read as ``aluminium``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

from mime_gui import RESOURCES

MATERIALS_FILE = RESOURCES / "materials.json"
_ALIASES = {"aluminum": "aluminium", "stainless": "stainlesssteel"}


@dataclass(frozen=True)
class Material:
    name: str
    density: float  # kg/m3
    density_source: str
    grade: str = ""
    remanence: float | None = None  # T, magnets only
    remanence_source: str | None = None

    @property
    def magnetic(self) -> bool:
        return self.remanence is not None


def _key(name: str) -> str:
    k = re.sub(r"[\s_\-]+", "", name).lower()
    return _ALIASES.get(k, k)


@cache
def _table() -> dict[str, Material]:
    data = json.loads(MATERIALS_FILE.read_text(encoding="utf-8"))
    return {_key(m["name"]): Material(**m) for m in data["materials"]}


def materials() -> list[Material]:
    """Every material of the table, in its order."""
    return list(_table().values())


def material(name: str) -> Material | None:
    """The material called ``name``, or None."""
    if not isinstance(name, str):
        return None
    return _table().get(_key(name))


def material_names() -> list[str]:
    return [m.name for m in materials()]
