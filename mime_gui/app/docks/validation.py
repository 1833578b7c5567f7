"""The validation dock: every finding of the rig after every edit (code, where, message), errors first, then
the warnings of the descriptions read, then the clearance in the initial pose
(:meth:`ValidationDock.set_clearance`, said by the window's clearance views once computed), then what the
field does along the played trajectory (the keep-out zones, the arm's own joints, a sample falling behind:
:func:`mime_gui.field.checks.field_findings`, computed on a worker once per loaded trajectory) and the limits
it exceeds. Clicking a finding asks the window to go to its rig path (select the item, focus its field)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDockWidget,
    QTreeWidgetItem,
)

from mime_gui.app.docks.look import status, table_body
from mime_gui.app.docks.registry import declare
from mime_gui.app.icons import kind_icon
from mime_gui.errors import CodedError, printable
from mime_gui.rig.findings import Finding

WHERE_ROLE = Qt.UserRole


class ValidationDock(QDockWidget):
    navigate = Signal(str)  # a rig path
    field_checked = Signal()  # the field's findings along the played trajectory are shown (tests)
    _field_arrived = Signal(int, object)  # (token, findings or a CodedError) from the worker

    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "ValidationDock")  # its title and object name: the dock registry
        self.session = session
        body, layout, self.summary, self.tree = table_body(self, ["Code", "Where", "Message"], fit=1)
        self.tree.setWordWrap(True)
        self.tree.header().resizeSection(1, 170)  # a rig path: wide enough for most, resizable
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)
        self.excesses = ()  # limits the played trajectory exceeds (set_limit_excesses)
        self.excesses_title = "Limits the played trajectory exceeds"
        self.clearance = ()  # clearance.* findings in the initial pose (set_clearance): warnings
        services.torques.excesses_changed.connect(self.set_limit_excesses)  # said by the Torques dock
        self.field = ()  # field.* findings along the played trajectory (warnings)
        self.field_checks = 0  # trajectories checked (tests: once per loaded trajectory)
        self._field_token = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="played-field")
        self._field_arrived.connect(self._field_shown)
        self.transport = services.transport
        self.transport.player_changed.connect(self._player_changed)
        bridge.findings_changed.connect(lambda _f: self.rebuild())
        bridge.document_changed.connect(lambda _d: self.rebuild())
        self.rebuild()

    def rebuild(self) -> None:
        findings = self.session.findings
        warnings = [(name, w) for name, seg in self.session.segments.items()
                    for w in seg.tree.report.warnings]
        with QSignalBlocker(self.tree):
            self.tree.clear()
            if findings:
                self._group("Errors: rules the rig breaks", "refused", [
                    (f.code, f.where, f.message, f.where) for f in findings])
            if warnings:
                self._group("Warnings from the descriptions read", "warning", [
                    (w.code, f"{name}" + (f" line {w.line}" if w.line else ""), w.message,
                     f"chain.{name}.description") for name, w in warnings])
            if self.clearance:
                self._group("Clearance in the initial pose", "warning", [
                    (f.code, f.where, f.message, f.where) for f in self.clearance])
            if self.field:
                self._group("The field along the played trajectory", "warning", [
                    (f.code, f.where, f.message, f.where) for f in self.field])
            if self.excesses:
                self._group(self.excesses_title, "warning", [
                    (e.code, f"{e.joint} at {e.time:.6g} s", str(e).split(": ", 1)[1],
                     f"chain.{e.joint.split('.', 1)[0]}") for e in self.excesses])
        if self.session.document is None:
            self.summary.setText("Nothing is open.")
            status(self.summary, "")
        elif findings:
            n = len(findings)
            fixed = "it is fixed" if n == 1 else "they are fixed"
            self.summary.setText(f"{n} rule{'s' if n != 1 else ''} broken: export is disabled until {fixed}. "
                                 "Click one to go to its field.")
            status(self.summary, "bad")
        else:
            n = len(self.clearance)
            near = f" {n} clearance warning{'s' if n != 1 else ''} below." if n else ""
            self.summary.setText(f"✓ The rig follows every rule; it can be exported.{near}")
            status(self.summary, "ok")

    def _player_changed(self, player) -> None:
        """A trajectory loaded (or played again on an edited rig): its field checked on the worker."""
        self._field_token += 1
        token = self._field_token
        if player is None or getattr(player.playable, "built", None) is None:
            self._field_shown(token, [])
            return
        from mime_gui.field.checks import field_findings

        built, trajectory, start = player.playable.built, player.trajectory, player.schedule.start
        source = self.transport.source
        spins = source[0] if source is not None and source[0] in built.apparatus.trajectories else None

        def work():
            try:
                return field_findings(built, trajectory, start, spins)
            except CodedError as err:
                return err

        future = self._pool.submit(work)
        future.add_done_callback(lambda f: self._field_arrived.emit(token, f.result()))

    def _field_shown(self, token: int, found) -> None:
        if token != self._field_token:
            return  # another trajectory since
        if isinstance(found, CodedError):
            found = [Finding(found.code, "", found.message)]
        self.field_checks += 1
        self.field = tuple(found)
        self.rebuild()
        self.field_checked.emit()

    def set_limit_excesses(self, excesses, title: str = "Limits the played trajectory exceeds") -> None:
        """Show the effort and velocity limit excesses of the played trajectory or of live driving (the
        torques dock's) under ``title``."""
        self.excesses = tuple(excesses)
        self.excesses_title = title
        self.rebuild()

    def set_clearance(self, findings) -> None:
        """Show the ``clearance.*`` findings of the rig in its initial pose (warnings: export stays open)."""
        findings = tuple(findings)
        if findings != self.clearance:
            self.clearance = findings
            self.rebuild()

    def _group(self, title: str, icon: str, rows) -> None:
        group = QTreeWidgetItem(self.tree, [f"{title} ({len(rows)})", "", ""])
        group.setIcon(0, kind_icon(icon))
        group.setFirstColumnSpanned(True)
        font = group.font(0)
        font.setBold(True)
        group.setFont(0, font)
        colour = QBrush(QColor("#b3261e" if icon == "refused" else "#9a5b00"))
        for code, where, message, path in rows:
            # a name from a file may hold a newline or a control character: shown escaped, one line a row
            where, message = printable(where), printable(message)
            row = QTreeWidgetItem(group, [code, where, message])
            row.setData(0, WHERE_ROLE, path)
            row.setForeground(0, colour)
            for col in range(3):
                row.setToolTip(col, f"[{code}] {where}: {message}")
        group.setExpanded(True)

    def rows(self) -> list[tuple[str, str, str]]:
        """``(code, where, message)`` of every finding shown (tests)."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            for j in range(group.childCount()):
                row = group.child(j)
                out.append((row.text(0), row.text(1), row.text(2)))
        return out

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        path = item.data(0, WHERE_ROLE)
        if path:
            self.navigate.emit(path)
