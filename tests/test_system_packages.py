"""``tools/system-packages.sh``: the one list of system packages, installed when it can be, else the exact
command. ``dpkg-query``, ``id``, ``sudo`` and ``apt-get`` are stand-ins on the PATH: nothing is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "system-packages.sh"
INSTALLED = ["xauth", "libegl1", "libxi6"]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def fake_bin(tmp_path: Path, uid: int, sudo_ok: bool) -> Path:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "calls.log"
    scripts = {
        # prints the status of each package asked about that is "installed"
        "dpkg-query": "for p in \"$@\"; do case \" " + " ".join(INSTALLED) + " \" in "
                      "*\" $p \"*) echo \"$p install ok installed\";; esac; done",
        "id": f"echo {uid}",
        "sudo": f"if [ \"$1 $2\" = '-n true' ]; then exit {0 if sudo_ok else 1}; fi; "
                f"echo sudo \"$@\" >> {log}; shift; \"$@\"",
        "apt-get": f"echo apt-get \"$@\" >> {log}",
    }
    for name, body in scripts.items():
        (bin_ / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_ / name).chmod(0o755)
    return bin_


def run(tmp_path, *args, uid=1000, sudo_ok=False, **env):
    bin_ = fake_bin(tmp_path, uid, sudo_ok)
    environ = {k: v for k, v in os.environ.items() if k != "SKIP_SYSTEM_PACKAGES"}
    environ.update(PATH=f"{bin_}:{os.environ['PATH']}", **env)
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=environ,
                          timeout=60)
    calls = (tmp_path / "calls.log").read_text().splitlines() if (tmp_path / "calls.log").exists() else []
    return done, calls


def listed(purpose: str) -> list[str]:
    done = subprocess.run(["bash", str(SCRIPT), "list", purpose], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_test_list_is_the_run_list_and_a_virtual_x_server():
    run_list, test_list = listed("run"), listed("test")
    assert "libxcb-cursor0" in run_list and "xvfb" not in run_list
    assert test_list == ["xvfb", "xauth", *run_list]


def test_missing_lists_exactly_what_dpkg_does_not_have(tmp_path):
    done, _ = run(tmp_path, "missing", "test")
    assert done.returncode == 1
    assert done.stdout.split() == [p for p in listed("test") if p not in INSTALLED]


def test_without_root_or_sudo_it_prints_the_exact_command_and_fails(tmp_path):
    done, calls = run(tmp_path, "ensure", "run")
    assert done.returncode == 1 and calls == []
    wanted = " ".join(p for p in listed("run") if p not in INSTALLED)
    assert f"sudo apt-get update && sudo apt-get install -y --no-install-recommends {wanted}" in done.stderr


def test_as_root_it_installs_only_the_missing_packages(tmp_path):
    done, calls = run(tmp_path, "ensure", "test", uid=0)
    assert done.returncode == 0, done.stderr
    wanted = " ".join(p for p in listed("test") if p not in INSTALLED)
    assert calls == ["apt-get update -qq", f"apt-get install -y -qq --no-install-recommends {wanted}"]


def test_with_passwordless_sudo_it_installs_through_sudo(tmp_path):
    done, calls = run(tmp_path, "ensure", "run", sudo_ok=True)
    assert done.returncode == 0, done.stderr
    assert calls[0] == "sudo -n apt-get update -qq"
    assert calls[2].startswith("sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq")


def test_skip_and_bad_arguments(tmp_path):
    done, calls = run(tmp_path, "ensure", "test", SKIP_SYSTEM_PACKAGES="1")
    assert done.returncode == 0 and calls == []
    done = subprocess.run(["bash", str(SCRIPT), "ensure", "everything"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "usage" in done.stderr


def test_make_and_ci_use_the_script():
    assert "tools/system-packages.sh" in (ROOT / "Makefile").read_text()
    assert "tools/system-packages.sh" in (ROOT / ".ci" / "run").read_text()
