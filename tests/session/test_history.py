"""The undo history on its own: steps, merging by key within a moment, sealing, a merged step that ends where
it began, the saved mark, the limit, undo and redo order."""

from __future__ import annotations

import pytest

from mime_gui.session.history import MERGE_WINDOW, History, Step


class Clock:
    def __init__(self):
        self.now = 50.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


def make(clock, **kw) -> History:
    return History(clock=clock, **kw)


def test_steps_undo_and_redo_in_order(clock):
    h = make(clock)
    for i in range(3):
        assert not h.push(Step(f"e{i}", i, i + 1))
    assert len(h) == 3 and h.undo_name == "e2"
    assert [h.undo().name for _ in range(3)] == ["e2", "e1", "e0"]
    assert h.undo() is None and not h.can_undo and h.can_redo
    assert [h.redo().name for _ in range(2)] == ["e0", "e1"]
    assert h.redo_name == "e2"
    h.push(Step("new", 2, 9))  # a new edit forgets what was undone
    assert not h.can_redo and h.undo_name == "new"


def test_same_key_merges_only_within_the_window_measured_from_the_last_edit(clock):
    h = make(clock)
    h.push(Step("a", 0, 1, ("set", "x")))
    for value in (2, 3, 4):  # each within the window of the one before: a long entry is one step
        clock.now += MERGE_WINDOW * 0.9
        assert h.push(Step("a", value - 1, value, ("set", "x")))
    assert len(h) == 1 and h._done[0].before == 0 and h._done[0].after == 4
    clock.now += MERGE_WINDOW * 1.01
    assert not h.push(Step("a", 4, 5, ("set", "x")))
    assert len(h) == 2


def test_exactly_at_the_window_still_merges(clock):
    h = make(clock, window=0.5)
    h.push(Step("a", 0, 1, "k"))
    clock.now += 0.5
    assert h.push(Step("a", 1, 2, "k"))


def test_other_key_none_key_and_seal_start_a_step(clock):
    h = make(clock)
    h.push(Step("a", 0, 1, "k"))
    assert not h.push(Step("b", 1, 2, "other"))
    assert not h.push(Step("c", 2, 3, None))
    assert not h.push(Step("d", 3, 4, None))  # None never merges, not even with None
    h.push(Step("e", 4, 5, "k"))
    h.seal()
    assert not h.push(Step("e", 5, 6, "k"))
    assert len(h) == 6


def test_undo_and_redo_seal(clock):
    h = make(clock)
    h.push(Step("a", 0, 1, "k"))
    h.push(Step("b", 1, 2, "j"))
    h.undo()
    assert not h.push(Step("a", 1, 7, "k"))  # the step under the undone one is closed
    assert [s.after for s in h._done] == [1, 7]


def test_a_merged_step_that_ends_where_it_began_is_dropped(clock):
    h = make(clock)
    h.push(Step("a", 0, 1, "x"))
    h.push(Step("typed", 10, 11, "k"))
    h.push(Step("typed", 11, 10, "k"))  # typed and put back
    assert len(h) == 1 and h.undo_name == "a"
    assert not h.push(Step("typed", 10, 12, "k"))  # and the next one is a step of its own
    assert len(h) == 2


def test_saved_mark_follows_steps_merges_and_drops(clock):
    h = make(clock)
    h.push(Step("a", 0, 1, "k"))
    h.mark_saved()
    assert not h.modified
    h.push(Step("b", 1, 2, "j"))
    assert h.modified
    h.undo()
    assert not h.modified  # back at the saved rig
    h.redo()
    h.push(Step("b", 2, 3, "j"))  # the step was sealed by redo: a new step
    h.undo()
    h.undo()
    assert not h.modified
    h.push(Step("c", 1, 5, "m"))
    h.mark_saved()
    clock.now += 0.1
    h.push(Step("d", 5, 6, "n"))
    h.push(Step("d", 6, 5, "n"))  # dropped: the rig is the saved one again
    assert not h.modified and len(h) == 2


def test_an_edit_after_undoing_past_the_save_leaves_the_saved_state_unreachable(clock):
    h = make(clock)
    h.push(Step("a", 0, 1))
    h.mark_saved()  # saved at 1
    h.undo()
    assert h.modified
    h.push(Step("b", 0, 2))  # the saved step is replaced: as many steps as at the save, another rig
    assert h.modified and not h.can_redo
    h.undo()
    assert h.modified  # back at the opened rig (0), not the saved one (1)
    h.redo()
    h.push(Step("c", 2, 3))
    assert h.modified  # no count of steps reaches the saved rig again

def test_a_merge_into_the_saved_step_makes_the_saved_state_unreachable(clock):
    h = make(clock)
    h.push(Step("a", 0, 1, "k"))
    h.mark_saved()
    # after a save the history is sealed: the next same-key edit is its own step
    assert not h.push(Step("a", 1, 2, "k"))
    h._sealed = False
    h._saved = len(h)
    h.push(Step("a", 2, 3, "k"))
    assert h.modified
    h.undo()
    assert h.modified  # the saved end (2) was merged away


def test_limit_drops_the_oldest_and_moves_the_saved_mark(clock):
    h = make(clock, limit=3)
    for i in range(3):
        h.push(Step(f"e{i}", i, i + 1))
    h.mark_saved()
    h.push(Step("e3", 3, 4))
    assert len(h) == 3 and [s.name for s in h._done] == ["e1", "e2", "e3"]
    h.undo()
    assert not h.modified
    h2 = make(clock, limit=2)
    h2.push(Step("x", 0, 1))  # saved at 0 (the opened file)
    h2.push(Step("y", 1, 2))
    h2.push(Step("z", 2, 3))
    while h2.can_undo:
        h2.undo()
    assert h2.modified  # the opened file's state fell off the history


def test_a_saved_state_merged_away_stays_unreachable_when_the_limit_drops_steps(clock):
    h = make(clock, limit=2)
    h.push(Step("a", 0, 1, "k"))
    h._sealed, h._saved = False, len(h)  # saved at the end of "a" while its field is still being typed
    assert h.push(Step("a", 1, 2, "k"))  # the saved end (1) is merged away
    h.push(Step("b", 2, 3, "j"))
    h.push(Step("c", 3, 4, "m"))  # past the limit: "a" falls off
    assert [s.name for s in h._done] == ["b", "c"]
    assert h.modified
    h.undo()
    h.undo()
    assert h.modified  # no step of the history ends at the saved rig (1)


def test_map_rigs_and_clear(clock):
    h = make(clock)
    h.push(Step("a", 1, 2))
    h.push(Step("b", 2, 3))
    h.undo()
    h.map_rigs(lambda r: r * 10)
    assert (h._done[0].before, h._done[0].after, h._undone[0].after) == (10, 20, 30)
    h.clear()
    assert len(h) == 0 and not h.can_redo and not h.modified


def test_a_gesture_is_one_step_however_long_it_pauses_and_ends_sealed(clock):
    h = make(clock)
    h.push(Step("typed", 0, 1, ("set", "x")))
    h.begin_gesture()  # a drag of the same field starts a step of its own, even within the window
    clock.now += MERGE_WINDOW * 0.1
    assert not h.push(Step("drag", 1, 2, ("set", "x")))
    for value in (3, 4):  # the handle held still far longer than the window, then moved on
        clock.now += MERGE_WINDOW * 20
        assert h.push(Step("drag", value - 1, value, ("set", "x")))
    assert len(h) == 2 and (h._done[-1].before, h._done[-1].after) == (1, 4)
    h.end_gesture()
    clock.now += MERGE_WINDOW * 0.1  # within the window, but the gesture is over
    assert not h.push(Step("after", 4, 5, ("set", "x")))
    assert len(h) == 3


def test_a_gesture_still_splits_steps_of_other_fields(clock):
    h = make(clock)
    h.begin_gesture()
    h.push(Step("a", 0, 1, ("set", "x")))
    assert not h.push(Step("b", 1, 2, ("set", "y")))
    assert len(h) == 2


def test_a_gesture_put_back_where_it_began_is_no_step(clock):
    h = make(clock)
    h.begin_gesture()
    h.push(Step("drag", 0, 1, ("set", "x")))
    clock.now += MERGE_WINDOW * 5
    h.push(Step("drag", 1, 0, ("set", "x")))  # Escape: the value put back
    h.end_gesture()
    assert len(h) == 0 and not h.can_undo


def test_redo_with_nothing_undone_gives_nothing_and_changes_nothing(clock):
    h = make(clock)
    assert h.redo() is None
    h.push(Step("a", 0, 1))
    h.undo()
    assert h.redo().name == "a"
    assert h.redo() is None and len(h) == 1 and h.undo_name == "a" and not h.can_redo


def test_a_merged_step_whose_ends_cannot_be_compared_is_kept(clock):
    np = pytest.importorskip("numpy")
    h = make(clock)
    h.push(Step("a", np.array([0.0, 1.0]), np.array([1.0, 1.0]), "k"))
    assert h.push(Step("a", np.array([1.0, 1.0]), np.array([0.0, 1.0]), "k"))  # element-wise: undecided
    assert len(h) == 1 and h.can_undo and h._done[0].after.tolist() == [0.0, 1.0]


# -- the session's undo and gestures -------------------------------------------------------------------------
@pytest.fixture
def demo_session():
    from mime_gui import RESOURCES
    from mime_gui.session import Session

    s = Session()
    s.open(RESOURCES / "demo" / "demo.rig.json")
    return s


def test_undo_and_redo_with_nothing_to_undo_or_redo_give_nothing_and_announce_nothing(demo_session):
    s, announced = demo_session, []
    s.history_changed.connect(lambda *a: announced.append(a))
    rig = s.rig
    assert s.undo() is None and s.redo() is None
    assert s.rig is rig and announced == []


def test_a_gesture_in_the_session_is_its_own_step_and_ends_sealed(demo_session):
    from mime_gui.session import SetValue

    s = demo_session
    at = "parts.holder.at"
    s.apply(SetValue(at, (0.0, 0.0, 0.011)))  # typed into the field
    s.begin_gesture()  # then dragged: a step of its own though the same field, at once after
    s.apply(SetValue(at, (0.0, 0.0, 0.02)))
    s.apply(SetValue(at, (0.0, 0.0, 0.03)))
    s.end_gesture()
    s.apply(SetValue(at, (0.0, 0.0, 0.04)))  # after the drag: its own step again
    assert len(s.history) == 3
    s.undo()
    assert s.rig.parts["holder"].at == (0.0, 0.0, 0.03)
    s.undo()
    assert s.rig.parts["holder"].at == (0.0, 0.0, 0.011)


def test_saving_undoing_and_editing_again_in_the_session_is_a_modification(demo_session, tmp_path):
    from mime_gui.session import SetValue

    s = demo_session
    s.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.02)))
    s.save(tmp_path / "saved.rig.json")
    assert not s.modified
    s.undo()
    s.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.05)))  # what the file holds is 0.02
    assert s.modified
