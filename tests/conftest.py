"""Every test folder imports the shared helpers of this folder (``robot_data``) by name."""

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
