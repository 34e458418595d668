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
from tools import changelog

ROOT = Path(__file__).resolve().parents[2]
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


def _message(tag: str, cwd: Path) -> str:
    return sh(["git", "for-each-ref", "--format=%(contents)", f"refs/tags/{tag}"], cwd).stdout


def test_the_tag_s_message_is_the_version_s_changelog_section(clone):
    """The section as written, its heading (``## [X.Y.Z] - date``) included: git's default cleanup
    would drop every line starting with ``#``."""
    done = sh(["make", "-s", "release"], clone)
    assert done.returncode == 0, done.stderr
    section = changelog.sections((clone / "CHANGELOG.md").read_text(encoding="utf-8"))[ningbo_score.__version__][1]
    assert section.startswith(f"## [{ningbo_score.__version__}]") and "\n### " in section
    assert _message(f"v{ningbo_score.__version__}", clone).strip() == section.strip()


def test_each_dated_changelog_section_has_its_tag():
    check_release_tags(ROOT)


def test_a_clone_without_tags_skips_the_check_saying_why(clone):
    with pytest.raises(pytest.skip.Exception, match="carries no git tags"):
        check_release_tags(clone)


def check_release_tags(root: Path) -> None:
    """Every released version of CHANGELOG.md (a dated section) is the annotated tag vX.Y.Z, on a
    commit whose ningbo_score/_version.py says X.Y.Z, with the section as its message.  A clone
    with no tags at all (``git clone --no-tags``, a CI checkout of one commit) has nothing to check:
    skipped, saying so; one with tags must have them all."""
    if sh(["git", "rev-parse", "HEAD"], root).returncode != 0:
        pytest.skip("not a git checkout: no tags to check")
    if not sh(["git", "tag", "--list"], root).stdout.strip():
        pytest.skip("this clone carries no git tags (a CI checkout or `git clone --no-tags`): "
                    "`git fetch --tags` to check the releases' tags")
    text = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    released = changelog.dated(text)
    assert released and "Unreleased" not in released
    for version in released:
        tag = f"v{version}"
        assert sh(["git", "cat-file", "-t", tag], root).stdout.strip() == "tag", f"{tag} is missing or not annotated"
        at = sh(["git", "show", f"{tag}^{{commit}}:ningbo_score/_version.py"], root).stdout
        assert f'__version__ = "{version}"' in at, f"{tag} is on a commit of another version"
        assert _message(tag, root).strip() == changelog.sections(text)[version][1].strip(), \
            f"{tag}'s message is not CHANGELOG.md's [{version}] section"


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
