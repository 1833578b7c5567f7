"""The URDF export writes each movable joint's limits back as its description gives them."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from rig_helpers import DEMO_URDF, snippet_rig

from mime_gui.rig.urdf_export import export_urdf


def test_each_arm_joint_s_effort_and_velocity_limits_are_written_back_as_the_description_gives(tmp_path):
    source = pin.buildModelFromUrdf(str(DEMO_URDF))
    written = pin.buildModelFromUrdf(str(export_urdf(snippet_rig(), tmp_path / "rig.urdf")))
    names = [n for n in source.names[1:] if source.joints[source.getJointId(n)].nv == 1]
    assert len(names) == 6
    for name in names:
        was, now = source.joints[source.getJointId(name)], written.joints[written.getJointId(f"arm/{name}")]
        assert now.nv == 1, name
        assert source.effortLimit[was.idx_v] > 0, name  # a finite effort the export must carry over
        np.testing.assert_allclose(written.effortLimit[now.idx_v], source.effortLimit[was.idx_v],
                                   err_msg=name)
        np.testing.assert_allclose(written.velocityLimit[now.idx_v], source.velocityLimit[was.idx_v],
                                   err_msg=name)
