"""Sweep: a design sweep's table (``mime-gui sweep``'s CSV or Parquet, docs/sweeps.md) plotted, any two of its
columns against each other, and a variant opened from it.

*Open table…* reads the table through the sweep's own reader (:func:`mime_gui.sweep.table.read`: the size
bound, the damaged rows refused with their line). Each variant is a point, blue when the rig it makes follows
every rule and red when it breaks one (its ``findings``); the axes are chosen among the table's numeric
columns (the varied values first, then the figures). Clicking a point opens that variant: its varied values
are set on the open rig as one edit (one undo step), so the rig shows, plays and validates as that variant.
A table whose varied paths the open rig lacks is refused (``sweep.variant``), naming the path.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.look import hint, message
from mime_gui.app.docks.registry import declare
from mime_gui.errors import CodedError
from mime_gui.session import SessionError, SetValue, Together

#: the dock's least size (px), no larger than the other tabs' beside the plots
MINIMUM = (240, 120)
GOOD, BAD = "#1f77b4", "#d62728"


def varied_columns(header: list[str]) -> list[str]:
    """The columns that hold the varied values (rig paths), in the table's order."""
    from mime_gui.sweep.table import GROUPS, INT_COLUMNS, TEXT_COLUMNS

    return [c for c in header if c not in INT_COLUMNS and c not in TEXT_COLUMNS and not c.startswith(GROUPS)]


def _number(text) -> float:
    from mime_gui.magnitudes import parse_float  # the one number parser

    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    try:
        return parse_float(str(text).strip())
    except ValueError:
        return math.nan


class SweepDock(QDockWidget):
    opened = Signal(int)  # a variant opened (its index)

    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "SweepDock")  # its title and object name: the dock registry
        self.session = session
        self.path: Path | None = None
        self.header: list[str] = []
        self.rows: list[dict] = []  # each row's values (text from a CSV, typed from Parquet)
        self.varied: list[str] = []
        self.points: pg.ScatterPlotItem | None = None

        body = QWidget(self)
        body.setMinimumSize(*MINIMUM)
        col = QVBoxLayout(body)
        col.setContentsMargins(4, 4, 4, 4)
        col.setSpacing(3)
        top = QHBoxLayout()
        self.open_button = QToolButton(body)
        self.open_button.setText("Open table…")
        self.open_button.setToolTip("A table written by mime-gui sweep (.csv or .parquet)")
        self.open_button.clicked.connect(self._open_dialog)
        top.addWidget(self.open_button)
        self.x = QComboBox(body)
        self.y = QComboBox(body)
        for box, axis in ((self.x, "horizontal"), (self.y, "vertical")):
            box.setToolTip(f"The column on the {axis} axis")
            box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(8)
            box.currentTextChanged.connect(lambda _t: self.redraw())
        top.addWidget(QLabel("x", body))
        top.addWidget(self.x, 1)
        top.addWidget(QLabel("y", body))
        top.addWidget(self.y, 1)
        col.addLayout(top)
        self.plot = pg.PlotWidget(body)
        services.plots.follow(self.plot)
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).enableAutoSIPrefix(False)
        col.addWidget(self.plot, 1)
        self.status = QLabel(body)
        self.status.setObjectName("sweep-status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # never widens the window
        col.addWidget(self.status)
        self.setWidget(body)
        self._say("Open a table written by mime-gui sweep to plot its variants; click one to open it")

    # -- the table ---------------------------------------------------------------------------------------
    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a sweep table", "",
                                              "Sweep tables (*.csv *.parquet)")
        if path:
            self.open_table(path)

    def open_table(self, path) -> bool:
        """Read the table at ``path`` and plot it (False, with the coded line shown, when it is refused)."""
        from mime_gui.sweep.table import read

        try:
            stored = read(path)
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        if stored is None or not stored.rows:
            self._say(f"{Path(path).name} holds no variant yet", bad=True)
            return False
        self.path = Path(path)
        self.rows = [values for _line, values in stored.rows]
        self.header = list(self.rows[0])
        self.varied = varied_columns(self.header)
        numeric = [c for c in self.header if c != "variant" and
                   any(math.isfinite(_number(r.get(c, ""))) for r in self.rows)]
        figures = [c for c in numeric if c not in self.varied]
        for box, default in ((self.x, self.varied[0] if self.varied else (numeric or [""])[0]),
                             (self.y, (figures or numeric or [""])[0])):
            with QSignalBlocker(box):
                box.clear()
                box.addItems(numeric)
                box.setCurrentText(default)
        self.redraw()
        self._say(f"{self.path.name}: {len(self.rows)} of {stored.variants} variants, varying "
                  f"{', '.join(self.varied) or 'nothing'}; click a point to open that variant")
        return True

    def column(self, name: str) -> np.ndarray:
        return np.array([_number(r.get(name, "")) for r in self.rows], dtype=float)

    def redraw(self) -> None:
        self.plot.clear()
        self.points = None
        if not self.rows or not self.x.currentText() or not self.y.currentText():
            return
        x, y = self.column(self.x.currentText()), self.column(self.y.currentText())
        bad = self.column("findings") > 0
        shown = np.isfinite(x) & np.isfinite(y)
        spots = [{"pos": (x[i], y[i]), "data": i, "brush": pg.mkBrush(BAD if bad[i] else GOOD),
                  "pen": pg.mkPen("w"), "size": 9} for i in np.flatnonzero(shown)]
        self.points = pg.ScatterPlotItem(spots=spots, hoverable=True, tip=self._tip)
        self.points.sigClicked.connect(lambda _item, points, _ev: points and self.open_variant(
            int(points[0].data())))
        self.plot.addItem(self.points)
        self.plot.setLabel("bottom", self.x.currentText())
        self.plot.setLabel("left", self.y.currentText())

    def _tip(self, x, y, data) -> str:
        row = self.rows[int(data)]
        values = ", ".join(f"{c} {row.get(c, '')}" for c in self.varied)
        first = row.get("first_finding", "")
        return f"variant {row.get('variant', data)}: {values}" + (f"\n{first}" if first else "")

    # -- opening a variant -------------------------------------------------------------------------------
    def _edits(self, row: dict) -> list:
        """The SetValue edits that make the open rig this variant (a vector's component sets the vector)."""
        from mime_gui.rig import paths
        from mime_gui.rig.paths import RigPathError
        from mime_gui.sweep.grid import resolve, set_value

        rig, edits = self.session.rig, []
        for path in self.varied:
            text = row.get(path, "")
            try:
                current = resolve(rig, path)
            except RigPathError:
                raise CodedError("sweep.variant", f"the open rig has no {path}: open the rig the table was "
                                 "swept from", path) from None
            if isinstance(current, str) or (current is None and not _is_number(text)):
                value = text  # a text field (a mount frame, a material)
            else:
                value = _number(text)
                if not math.isfinite(value):
                    raise CodedError("sweep.variant", f"{path}: {text!r} is not a number", path)
                if isinstance(current, int) and not isinstance(current, bool):
                    value = int(value)
            changed = set_value(rig, path, value)
            head = path if paths.exists(rig, path) else path.rpartition(".")[0]  # a component: its vector
            edits.append(SetValue(head, paths.get(changed, head)))
            rig = changed
        return edits

    def open_variant(self, index: int) -> bool:
        """Set the variant ``index``'s varied values on the open rig: one edit, one undo step."""
        if self.session.rig is None or not 0 <= index < len(self.rows):
            return False
        row = self.rows[index]
        try:
            edits = self._edits(row)
            self.session.apply(Together(f"Open variant {row.get('variant', index)} of "
                                        f"{self.path.name if self.path else 'the sweep'}", tuple(edits)))
        except (CodedError, SessionError) as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        found = int(_number(row.get("findings", 0)) or 0)
        values = ", ".join(f"{c} {row[c]}" for c in self.varied)
        self._say(f"Opened variant {row.get('variant', index)} ({values})"
                  + (f": it breaks {found} rule(s), see Validation" if found else ""), bad=bool(found))
        self.opened.emit(index)
        return True

    def _say(self, text: str, bad: bool = False) -> None:
        self.status.setText(text)
        (message if bad else hint)(self.status)


def _is_number(text) -> bool:
    return math.isfinite(_number(text))


__all__ = ["SweepDock", "varied_columns"]
