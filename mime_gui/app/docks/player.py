"""The player dock: open a command file or the last recording, a timeline with the playhead, play/pause,
step, speed (0.1×–10×), loop, record, and export (the trajectory as NPZ, a video of the view).

Every control calls the :class:`~mime_gui.session.transport.Transport`; the dock refreshes from its events
with signals blocked. The timeline scrubs: a row is an index into the trajectory computed once.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QSizePolicy,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.registry import declare
from mime_gui.app.docks.sliders import JumpStyle
from mime_gui.app.steady_label import SteadyLabel
from mime_gui.multibody.errors import CodedError
from mime_gui.session.player import RATE_MAX, RATE_MIN

COMMAND_FILTER = "Command files (*.csv *.npz);;CSV (*.csv);;NPZ (*.npz)"


NOTHING_LOADED = "No commands loaded: drive with the sliders, or open a command file"


def _seconds(t: float) -> str:
    return f"{t:.2f} s"


class PlayerDock(QDockWidget):
    video_requested = Signal()  # the window's driving part renders the video (it owns the view)

    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "PlayerDock")  # its title and object name: the dock registry
        self.session = session
        self.transport = transport = services.transport
        self.error_box: QMessageBox | None = None
        self._state = None  # what the controls last showed
        self.last_dir = ""
        body = QWidget(self)
        col = QVBoxLayout(body)
        col.setContentsMargins(4, 2, 4, 2)
        col.setSpacing(2)

        top = QHBoxLayout()
        style = self.style()
        self.open_button = self._tool(body, "Open…", "Open a command file (CSV or NPZ, as mime-gui play "
                                      "reads)", self.open_dialog)
        self.recording_button = self._tool(body, "Play recording", "Play the last recording",
                                           self.play_recording)
        self.record_button = self._tool(body, "● Record", "Record the slider commands with their times "
                                        "(Ctrl+R)", self.toggle_record, checkable=True)
        self.save_recording_button = self._tool(body, "Save recording…", "Write the last recording as a "
                                                "command file (CSV or NPZ)", self.save_recording_dialog)
        self.export_button = QToolButton(body)
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.export_button)
        self.act_export_npz = menu.addAction("Trajectory as NPZ…", self.export_npz_dialog)
        self.act_export_video = menu.addAction("Video of the view…", self.video_requested.emit)
        self.export_button.setMenu(menu)
        self.source = QLabel(NOTHING_LOADED, body)
        self.source.setStyleSheet("color: gray")
        self.source.setTextInteractionFlags(Qt.TextSelectableByMouse)
        # a long file name must not widen the whole window: the label is clipped, its tooltip has it all
        self.source.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        for w in (self.open_button, self.recording_button, self.record_button, self.save_recording_button,
                  self.export_button):
            top.addWidget(w)
        top.addWidget(self.source, 1)
        col.addLayout(top)

        line = QHBoxLayout()
        self.back_button = self._tool(body, "", "Step back one row (←)", lambda: self.transport.step(-1))
        self.back_button.setIcon(style.standardIcon(QStyle.SP_MediaSeekBackward))
        self.play_button = self._tool(body, "", "Play / pause (Space)", self.transport.toggle)
        self.forward_button = self._tool(body, "", "Step forward one row (→)", lambda: self.transport.step(1))
        self.forward_button.setIcon(style.standardIcon(QStyle.SP_MediaSeekForward))
        self.timeline = QSlider(Qt.Horizontal, body)
        self.timeline.setObjectName("timeline")
        self.jump_style = JumpStyle()
        self.timeline.setStyle(self.jump_style)
        self.timeline.setToolTip("The playhead: drag or click to scrub")
        self.timeline.valueChanged.connect(self._scrubbed)
        self.time_label = SteadyLabel(body)  # a new time each frame: see app/steady_label.py
        self.time_label.setMinimumWidth(120)
        self.speed = QDoubleSpinBox(body)
        self.speed.setRange(RATE_MIN, RATE_MAX)
        self.speed.setDecimals(2)
        self.speed.setValue(1.0)
        self.speed.setSuffix("×")
        self.speed.setStepType(QDoubleSpinBox.AdaptiveDecimalStepType)
        self.speed.setToolTip(f"Playback speed, {RATE_MIN:g}× to {RATE_MAX:g}× of real time")
        self.speed.setKeyboardTracking(False)
        self.speed.valueChanged.connect(self._speed)
        self.loop = QCheckBox("Loop", body)
        self.loop.toggled.connect(self._loop)
        self.frames_label = SteadyLabel(body)
        self.frames_label.setStyleSheet("color: gray")
        self.frames_label.setToolTip("Rows shown and rows skipped to stay on the wall clock while playing")
        for w in (self.back_button, self.play_button, self.forward_button):
            line.addWidget(w)
        line.addWidget(self.timeline, 1)
        for w in (self.time_label, QLabel("Speed", body), self.speed, self.loop, self.frames_label):
            line.addWidget(w)
        col.addLayout(line)
        self.setWidget(body)

        transport.playhead_changed.connect(self._playhead)
        transport.player_changed.connect(self._player_changed)
        transport.mode_changed.connect(lambda _m: self._refresh())
        transport.recording_changed.connect(lambda _r: self._refresh())
        bridge.document_changed.connect(lambda _d: self._refresh())
        bridge.findings_changed.connect(lambda _f: self._refresh())
        self._player_changed(transport.player)

    @staticmethod
    def _tool(parent, text, tip, slot, checkable=False) -> QToolButton:
        b = QToolButton(parent)
        b.setText(text)
        b.setToolTip(tip)
        b.setCheckable(checkable)
        b.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        (b.toggled if checkable else b.clicked).connect(slot)
        return b

    # -- refreshing ------------------------------------------------------------------------------------
    def _player_changed(self, player) -> None:
        with QSignalBlocker(self.timeline):
            self.timeline.setRange(0, max(player.rows - 1, 0) if player else 0)
            self.timeline.setValue(player.row if player else 0)
        if player is not None:
            with QSignalBlocker(self.speed), QSignalBlocker(self.loop):
                self.speed.setValue(player.rate)
                self.loop.setChecked(player.loop)
        self._refresh()

    def _source_text(self, player, recording: bool) -> tuple[str, str]:
        """What the player holds, and its tooltip: the loaded file, the recording under way, or nothing."""
        if recording:
            return "Recording the slider commands (● Record again to stop)", ""
        if player is None:
            return NOTHING_LOADED, ""
        sched = player.schedule
        clamped = int(player.trajectory.clamped.sum())
        name = Path(player.source).name if player.source != "recording" else "the recording"
        return (f"{name}: {sched.steps} steps × {sched.dt:g} s = {player.duration:.2f} s, "
                f"{len(sched.recorded)} joint(s)" + (f", {clamped} values clamped" if clamped else ""),
                player.source)

    def _playhead(self, row: int) -> None:
        player = self.transport.player
        if player is None:
            return
        with QSignalBlocker(self.timeline):
            self.timeline.setValue(row)
        self._refresh()

    def _refresh(self) -> None:
        """The controls' state (only when it changed: a style sheet or an icon set costs a restyle), then the
        time."""
        t = self.transport
        player = t.player
        has_doc = self.session.document is not None
        playing = player is not None and player.playing and t.mode == "player"
        recording = t.recording is not None
        state = (player, has_doc, playing, recording, t.last_recording, t.mode)
        if state != self._state:
            self._state = state
            self._set_controls(player, has_doc, playing, recording)
        self._show_time()

    def _set_controls(self, player, has_doc: bool, playing: bool, recording: bool) -> None:
        t = self.transport
        text, tip = self._source_text(player, recording)
        self.source.setText(text)
        self.source.setToolTip(tip)
        self.play_button.setIcon(self.style().standardIcon(QStyle.SP_MediaPause if playing
                                                           else QStyle.SP_MediaPlay))
        for w in (self.back_button, self.play_button, self.forward_button, self.timeline, self.speed,
                  self.loop, self.export_button):
            w.setEnabled(player is not None)
        self.open_button.setEnabled(has_doc)
        with QSignalBlocker(self.record_button):
            self.record_button.setChecked(recording)
        self.record_button.setEnabled(has_doc)
        self.record_button.setStyleSheet("color: #d2475a; font-weight: bold" if recording else "")
        self.recording_button.setEnabled(t.last_recording is not None and has_doc and not recording)
        self.save_recording_button.setEnabled(t.last_recording is not None and not recording)

    def _show_time(self) -> None:
        t = self.transport
        player = t.player
        if t.recording is not None:
            self.time_label.setText(f"recording {t.recording.duration:.1f} s")
        elif player is None:
            self.time_label.setText("live")
        else:
            mode = "" if t.mode == "player" else "  (live)"
            self.time_label.setText(f"{_seconds(player.times[player.row] - player.schedule.start)} / "
                                    f"{_seconds(player.duration)}{mode}")
        if player is not None:
            self.frames_label.setText(f"{player.shown} shown · {player.dropped} skipped")

    def tick(self) -> None:
        """Called on the clock: the recording's length while recording."""
        if self.transport.recording is not None:
            self._refresh()

    # -- controls ------------------------------------------------------------------------------------------
    def _scrubbed(self, row: int) -> None:
        self.transport.seek(row)

    def _speed(self, value: float) -> None:
        if self.transport.player is not None:
            self.transport.player.set_rate(value)

    def _loop(self, on: bool) -> None:
        if self.transport.player is not None:
            self.transport.player.loop = bool(on)

    def toggle_record(self, on: bool) -> None:
        try:
            if on:
                self.transport.start_recording()
            else:
                self.transport.stop_recording()
        except CodedError as err:
            with QSignalBlocker(self.record_button):  # refused: the button shows what runs
                self.record_button.setChecked(self.transport.recording is not None)
            self.show_error(err)
        self._refresh()

    def open_file(self, path: str) -> bool:
        """Play a command file on the document; a refusal shows its coded line and keeps what was loaded."""
        try:
            self.transport.open(path)
        except CodedError as err:
            self.show_error(err)
            return False
        self.last_dir = str(Path(path).parent)
        return True

    def open_dialog(self) -> None:
        start = self.last_dir or (str(Path(self.session.path).parent) if self.session.path else "")
        path, _ = QFileDialog.getOpenFileName(self, "Open a command file", start, COMMAND_FILTER)
        if path:
            self.open_file(path)

    def play_recording(self) -> bool:
        rec = self.transport.last_recording
        if rec is None:
            return False
        try:
            self.transport.open(rec.recorded())
        except CodedError as err:
            self.show_error(err)
            return False
        return True

    def save_recording(self, path: str) -> bool:
        rec = self.transport.last_recording
        if rec is None:
            return False
        try:
            rec.save(path)
        except CodedError as err:
            self.show_error(err)
            return False
        return True

    def save_recording_dialog(self) -> None:
        start = str(Path(self.last_dir or ".") / "recording.csv")
        path, _ = QFileDialog.getSaveFileName(self, "Save the recording", start, COMMAND_FILTER)
        if path:
            self.save_recording(path)

    def export_npz(self, path: str) -> bool:
        player = self.transport.player
        if player is None:
            return False
        try:
            player.save_npz(path)
        except CodedError as err:
            self.show_error(err)
            return False
        return True

    def export_npz_dialog(self) -> None:
        player = self.transport.player
        if player is None:
            return
        stem = Path(player.source).stem if player.source != "recording" else "recording"
        start = str(Path(self.last_dir or ".") / f"{stem}.trajectory.npz")
        path, _ = QFileDialog.getSaveFileName(self, "Export the trajectory", start, "NPZ (*.npz)")
        if path:
            self.export_npz(path)

    def show_error(self, err) -> None:
        box = QMessageBox(QMessageBox.Critical, "Refused", err.one_line(), QMessageBox.Ok, self)
        box.setTextInteractionFlags(Qt.TextSelectableByMouse)
        box.setAttribute(Qt.WA_DeleteOnClose)
        self.error_box = box
        box.open()
