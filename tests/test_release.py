"""``make release`` (issue 25): the annotated tag vX.Y.Z of ningbo_score/_version.py, on a clean
tree only, never over an existing tag, and only when CHANGELOG.md has the version's section.
Run in a clone of the project's committed tree (its own tags, nothing else touched)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import ningbo_score

ROOT = Path(__file__).resolve().parent.parent
GIT_ENV = {"GIT_AUTHOR_NAME": "release test", "GIT_AUTHOR_EMAIL": "release@example.com",
           "GIT_COMMITTER_NAME": "release test", "GIT_COMMITTER_EMAIL": "release@example.com"}


def sh(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60, env={**os.environ, **GIT_ENV})


@pytest.fixture
def clone(tmp_path) -> Path:
    if not shutil.which("make") or sh(["git", "rev-parse", "HEAD"], ROOT).returncode != 0:
        pytest.fail("make and a git checkout are needed")
    target = tmp_path / "clone"
    done = sh(["git", "clone", "-q", "--no-tags", str(ROOT), str(target)], tmp_path)
    assert done.returncode == 0, done.stderr
    return target


def test_make_release_tags_the_version_once(clone):
    tag = f"v{ningbo_score.__version__}"
    done = sh(["make", "-s", "release"], clone)
    assert done.returncode == 0, done.stderr
    assert f"tagged {tag}" in done.stdout
    assert sh(["git", "tag", "--list"], clone).stdout.split() == [tag]
    assert sh(["git", "cat-file", "-t", tag], clone).stdout.strip() == "tag"          # annotated
    assert sh(["git", "rev-parse", f"{tag}^{{commit}}"], clone).stdout == sh(["git", "rev-parse", "HEAD"], clone).stdout
    again = sh(["make", "-s", "release"], clone)
    assert again.returncode != 0 and f"{tag} exists" in again.stderr


def test_make_release_refuses_a_dirty_tree(clone):
    (clone / "README.md").write_text("changed\n")
    done = sh(["make", "-s", "release"], clone)
    assert done.returncode != 0 and "not clean" in done.stderr
    sh(["git", "checkout", "README.md"], clone)
    (clone / "notes.txt").write_text("untracked\n")                  # an untracked file too
    done = sh(["make", "-s", "release"], clone)
    assert done.returncode != 0 and "not clean" in done.stderr
    assert sh(["git", "tag", "--list"], clone).stdout == ""


def test_make_release_needs_the_changelog_section(clone):
    version = clone / "ningbo_score" / "_version.py"
    version.write_text(version.read_text().replace(ningbo_score.__version__, "9.9.9"))
    assert sh(["git", "commit", "-qam", "9.9.9 without its changelog"], clone).returncode == 0
    done = sh(["make", "-s", "release"], clone)
    assert done.returncode != 0 and "CHANGELOG.md has no [9.9.9]" in done.stderr
    assert sh(["git", "tag", "--list"], clone).stdout == ""
