"""A fixed sample of one-line bugs in the docks' logic, each run against the app tests that cover it
(docs/mutation.md).

    xvfb-run -a .venv/bin/python tools/dock_mutations.py

The docks (``mime_gui/app/docks``) need a display and Qt's event loop, which mutmut's forked workers do not
give, so their mutants are written here by hand: realistic one-line bugs in how a form parses and shows
numbers, which field a finding goes under, the demand table's cells, how the sliders clamp a typed value
and the player's labels (run by tools/hand_mutations.py).
"""

from __future__ import annotations

import sys

from hand_mutations import run_spread

FIELDS = "mime_gui/app/docks/fields.py"
FORMS = "mime_gui/app/docks/forms/base.py"
DEMAND = "mime_gui/app/docks/demand.py"
SLIDERS = "mime_gui/app/docks/sliders.py"
PLAYER = "mime_gui/app/docks/player.py"

FOLLOW = "tests/app/test_forms_follow_the_rig.py"
VIEWS = "tests/app/test_document_views.py"
TORQUES = "tests/app/test_torques_dock.py"
BY_HAND = "tests/app/test_driving_by_hand.py"
RECORDING = "tests/app/test_driving.py::test_record_save_and_play_back_the_recording"

# (what the bug does, the file, text in it, its replacement, the tests that should catch it)
MUTANTS = [
    ("a vector rounded one digit finer than its precision", FIELDS,
     "places = digits - 1 - math.floor(math.log10(scale))", "places = digits - math.floor(math.log10(scale))",
     [FOLLOW]),
    ("a rounded-away negative component shown as -0", FIELDS,
     'return "0" if text == "-0" else text', "return text", [FOLLOW]),
    ("a length typed in millimetres multiplied by the unit's factor", FIELDS,
     "return value / lengths.factor if lengths.factor != 1.0 else value",
     "return value * lengths.factor if lengths.factor != 1.0 else value", [FOLLOW]),
    ("a text that is no number left stored", FIELDS,
     "self._put_back(self._origin, self.edit)", "pass", [FOLLOW]),
    ("a typed vector component stored as x", FIELDS,
     "        values[index] = v\n", "        values[0] = v\n", [FOLLOW]),
    ("every entry merged into the last one's undo step", FIELDS,
     "return last is not editor", "return False", [FOLLOW]),
    ("derived values not refreshed with the fields", FORMS,
     "        for refresh in self.derived:\n            refresh(rig)\n", "", [FOLLOW, VIEWS]),
    ("a finding put under the outermost field holding its path", FORMS,
     "len(field.path) > len(best.path)", "len(field.path) < len(best.path)", [VIEWS, FOLLOW]),
    ("a limit's share shown as a fraction, not a percentage", DEMAND,
     'f"{100 * share:.0f} %"', 'f"{share:.0f} %"', [TORQUES]),
    ("a peak's time not counted from the commands' start", DEMAND,
     'f"{d.peak_time - time_origin:.3g} s"', 'f"{d.peak_time:.3g} s"', [TORQUES]),
    ("the effort and velocity shares coloured in each other's columns", DEMAND,
     "(((1, 2), d.effort_share), ((5, 6), d.velocity_share))",
     "(((1, 2), d.velocity_share), ((5, 6), d.effort_share))", [TORQUES]),
    ("a typed value clamped at the lower limit only", SLIDERS,
     "return value if self.wraps else min(max(value, self.lower), self.upper)",
     "return value if self.wraps else max(value, self.lower)", [BY_HAND]),
    ("a clamp at the upper limit said to be at the lower one", SLIDERS,
     'which = "upper" if value >= self.upper else "lower"',
     'which = "upper" if value > self.upper else "lower"', [BY_HAND]),
    ("the clamped note shown for a value within the limits", SLIDERS,
     "row.show_clamped(value if held != value else None, held)", "row.show_clamped(value, held)", [BY_HAND]),
    ("a torque row's decimals one coarser than its step", SLIDERS,
     "return step, min(max(3, 1 - k), 12)", "return step, min(max(3, -k), 12)", [BY_HAND]),
    ("the slider placed from zero, not from the lower limit", SLIDERS,
     "min(max((value - self.lower) / span, 0.0), 1.0)", "min(max(value / span, 0.0), 1.0)", [BY_HAND]),
    ("the playhead's time not counted from the commands' start", PLAYER,
     "_seconds(player.times[player.row] - player.schedule.start)", "_seconds(player.times[player.row])",
     [FOLLOW]),
    ("a played recording named as a file called \"recording\"", PLAYER,
     'name = Path(player.source).name if player.source != "recording" else "the recording"',
     'name = Path(player.source).name', [RECORDING]),
]


def main() -> int:
    return run_spread(MUTANTS)


if __name__ == "__main__":
    sys.exit(main())
