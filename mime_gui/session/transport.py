"""The transport: who moves the arm, the live commands or the player, and the one ``tick(dt)`` the app's
clock calls.

In ``live`` mode a tick advances the Session by the elapsed time (:meth:`~mime_gui.session.Session.tick`:
sliders set commands, the servo lags behind them; exact for any step with the command held); while recording
(:class:`~mime_gui.session.recorder.Recorder`), in fixed steps whose commands it captures. In ``player`` mode
the shown state is a row of the loaded :class:`~mime_gui.session.player.Player`'s trajectory, put in place by
:meth:`~mime_gui.session.Session.show_state` with its commands (so the sliders show the played commands);
playing moves the row with the wall clock. Touching a command (:meth:`take_over`) pauses the player and
returns to live driving from the state shown. Opening another document unloads the player and stops a
recording; an edit of the rig plays the same commands again on the new build, or unloads the player when the
rig no longer builds. A trajectory of the rig opened by name (:meth:`Transport.open_trajectory`) is rendered
again on every edit: the player follows the trajectory as it is edited, at the same time and still playing
if it was; when the trajectory is removed or no longer renders, its last rendering plays on.

While live, :attr:`Transport.live_torques` (:class:`~mime_gui.session.live_torques.LiveTorques`) computes
the dynamic segments' torques of every step.

Events: ``playhead_changed(row)``, ``mode_changed(mode)``, ``player_changed(player or None)``,
``recording_changed(recorder or None)``.
"""

from __future__ import annotations

from mime_gui.multibody.errors import CodedError
from mime_gui.session.events import Event
from mime_gui.session.live_torques import LiveTorques
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.recorder import RECORD_STEP, Recorder


class Transport:
    def __init__(self, session):
        self.session = session
        self.recorder: Recorder | None = None  # the recording under way
        self._carry = 0.0  # the time a recording's fixed steps have not taken yet
        self.live_torques = LiveTorques(session)  # the dynamic segments' torques along live driving
        self.player: Player | None = None
        self.source: tuple[str, float] | None = None  # (trajectory, dt) the player renders, None for a file
        self.mode = "live"
        self.last_recording: Recorder | None = None  # the last recording stopped
        self.playhead_changed = Event("playhead_changed")
        self.mode_changed = Event("mode_changed")
        self.player_changed = Event("player_changed")
        self.recording_changed = Event("recording_changed")
        session.document_changed.connect(self._document_changed)
        session.rig_changed.connect(self._rig_changed)

    def detach(self) -> None:
        self.live_torques.detach()
        self.session.document_changed.disconnect(self._document_changed)
        self.session.rig_changed.disconnect(self._rig_changed)

    # -- the clock -----------------------------------------------------------------------------------------
    @property
    def document(self):
        return self.session.document

    def tick(self, dt: float) -> None:
        if self.mode == "player":
            if self.player is not None and self.player.playing:
                before = self.player.row
                if self.player.update() != before:
                    self._show()
                if not self.player.playing:  # reached the end
                    self.playhead_changed.emit(self.player.row)
            return
        rec = self.recorder
        if rec is None:
            self.session.tick(dt)
            return
        self._carry += dt
        n = int(self._carry / rec.step + 1e-9)
        self._carry = max(self._carry - n * rec.step, 0.0)
        for _ in range(n):
            self.session.tick(rec.step)
            rec.record()

    # -- modes ------------------------------------------------------------------------------------------
    def _set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)

    def take_over(self) -> None:
        """A command from the user: pause the player and drive live from the state shown."""
        if self.player is not None:
            self.player.pause()
        self._set_mode("live")

    # -- the player --------------------------------------------------------------------------------------
    def load(self, player: Player) -> None:
        """Show ``player``'s first row, paused."""
        self.stop_recording()
        self.source = None
        self.player = player
        player.seek(0)
        self._set_mode("player")
        self.player_changed.emit(player)
        self._show()

    def open(self, commands, dt: float | None = None) -> Player:
        """Play a command file (or RecordedCommands) on the document; raises a coded error on refusal."""
        player = Player.for_document(self.session.document, commands, dt)
        self.load(player)
        return player

    def open_trajectory(self, name: str, dt: float) -> Player:
        """Play the rig's trajectory ``name`` rendered every ``dt`` seconds, and again after every edit of the
        rig (raises a coded error on refusal)."""
        player = self.open(self._render(name, dt), dt)
        self.source = (name, dt)
        return player

    def _render(self, name: str, dt: float):
        from mime_gui.rig.trajectories import trajectory_commands  # the rig's trajectories, on first use

        document = self.session.document
        return trajectory_commands(document.built, name, dt)

    def unload(self) -> None:
        if self.player is None:
            return
        self.player = None
        self.source = None
        self._set_mode("live")
        self.player_changed.emit(None)

    def _enter(self) -> Player | None:
        """Player mode on the loaded trajectory (None without one); a recording stops."""
        if self.player is None:
            return None
        self.stop_recording()
        self._set_mode("player")
        return self.player

    def seek(self, row: int) -> None:
        """Show row ``row`` (player mode; playing goes on from there)."""
        player = self._enter()
        if player is not None:
            player.seek(row)
            self._show()

    def step(self, rows: int) -> None:
        """Pause and move the playhead by ``rows``."""
        player = self._enter()
        if player is not None:
            player.pause()
            self.seek(player.row + rows)

    def play(self) -> None:
        player = self._enter()
        if player is not None:
            player.play()
            self._show()

    def pause(self) -> None:
        if self.player is not None:
            before = self.player.row
            self.player.pause()  # the playhead moves to where the wall clock has got
            if self.player.row != before and self.mode == "player":
                self._show()  # so the row it stops on is the row shown
            else:
                self.playhead_changed.emit(self.player.row)

    def toggle(self) -> None:
        if self.player is not None and self.player.playing and self.mode == "player":
            self.pause()
        else:
            self.play()

    def _show(self) -> None:
        player = self.player
        self.session.show_state(player.states(), player.commands())
        self.playhead_changed.emit(player.row)

    # -- recording ----------------------------------------------------------------------------------------
    @property
    def recording(self) -> Recorder | None:
        return self.recorder

    def start_recording(self, step: float = RECORD_STEP) -> Recorder:
        """Record the commands from now on (live); refused (``player.record-torques``) while a segment is
        driven by torques: a recording holds position commands."""
        self.take_over()
        driven = [s for s in self.session.segments if self.session.drive(s) == "torques"]
        if driven:
            raise PlayerError("player.record-torques", f"{', '.join(driven)} "
                              f"{'is' if len(driven) == 1 else 'are'} driven by torques, which a recording "
                              "does not hold; switch back to positions (Joint sliders ▸ Drive) to record")
        rec = self.recorder = Recorder(self.session, step)
        self.session.motion.set_recording(True)
        self._carry = 0.0
        self.recording_changed.emit(rec)
        return rec

    def stop_recording(self) -> Recorder | None:
        rec, self.recorder = self.recorder, None
        self.session.motion.set_recording(False)
        if rec is not None:
            self.last_recording = rec
            self.recording_changed.emit(None)
        return rec

    # -- the document ----------------------------------------------------------------------------------------
    def _document_changed(self, _doc) -> None:
        self.stop_recording()
        self.unload()

    def _rig_changed(self, _change) -> None:
        self.stop_recording()
        player = self.player
        if player is None:
            return
        recorded = player.recorded
        if self.source is not None:
            try:
                recorded = self._render(*self.source)
            except (CodedError, ValueError, KeyError):
                pass  # removed, renamed or refused: its last rendering plays on
        try:
            again = Player.for_document(self.session.document, recorded, player.dt, now=player._now)
        except (CodedError, ValueError, KeyError):
            self.unload()
            return
        again.set_rate(player.rate)
        again.loop = player.loop
        mode, playing = self.mode, player.playing
        self.player = again
        again.seek(again.row_at(player.row * player.dt))  # the same time: a retimed trajectory has more rows
        if playing:
            again.play()
        self.player_changed.emit(again)
        if mode == "player":
            self._show()
