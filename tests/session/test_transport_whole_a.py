"""Transport contracts pinned against mutation survivors:

* a new transport drives live with nothing loaded, rendered or recorded: no player, no trajectory source
  (``None``, which the validation dock tests for) and no last recording (``None``: the player dock enables
  "play the recording" and "save the recording" only when there is one);
* a looping player loops on after an edit of the rig: the player played again keeps the loop the user set.
"""

from __future__ import annotations

import math

from mime_gui import RESOURCES
from mime_gui.session import FakeRenderer, Session, SetValue
from mime_gui.session.player import Player
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"


def test_a_new_transport_is_live_with_nothing_loaded_rendered_or_recorded():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    transport = Transport(session)
    assert transport.mode == "live" and transport.player is None and transport.recording is None
    assert transport.source is None  # no trajectory rendered
    assert transport.last_recording is None  # nothing recorded yet: nothing to play or save
    transport.stop_recording()  # stopping nothing leaves nothing recorded
    assert transport.last_recording is None


def test_a_looping_player_loops_on_after_an_edit_of_the_rig():
    session = Session()
    session.attach_renderer(FakeRenderer())
    session.open(DEMO / "demo.rig.json")
    wall = [50.0]  # the player's clock, moved by hand
    transport = Transport(session)
    transport.load(Player.for_document(session.document, DEMO / "chain.csv", now=lambda: wall[0]))
    transport.player.loop = True  # the player dock's Loop box
    transport.seek(190)
    transport.play()
    session.apply(SetValue("chain.arm.servo_time_constant", 0.3))  # played again on the new build
    again = transport.player
    assert again.loop is True and again.playing and again.row == 190
    wall[0] += 0.5  # 190 rows of 0.02 s is 3.8 s: 4.3 s is past the end, so it turns round
    transport.tick(0.5)
    assert again.playing  # a loop does not stop at the end
    assert again.row == again.row_at(math.fmod(190 * 0.02 + 0.5, again.duration)) < 190
