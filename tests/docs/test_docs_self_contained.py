"""The repository's documents stand alone (issue 38): everything a user needs is in ``docs/`` and
the READMEs, each relative link is a file of the repository, and none names the workspace's
own copies of the contract (``../shared/spec/…``, ``API.md``, ``RULES.md``), which are not shipped."""
from __future__ import annotations

import re

import pytest

from conftest import ROOT

PAGES = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("docs/*.md"), ROOT / "README.md",
                                                    ROOT / "deploy" / "README.md", ROOT / "bench" / "README.md"])


@pytest.mark.parametrize("name", PAGES)
def test_a_page_points_only_into_the_repository(name):
    page = ROOT / name
    text = page.read_text(encoding="utf-8")
    assert "shared/" not in text, f"{name} points outside the repository"
    assert not re.search(r"(?<![\w/])(RULES|API)\.md", text), f"{name} names a contract that isn't shipped"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):           # https:, mailto:
            continue
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(ROOT) and resolved.exists(), f"{name} links to {target}, not in the repository"


def test_the_deploy_commands_and_paths_are_the_repository_s():
    """`kubectl apply -f deploy/` failed (deploy/ is a kustomize base and overlays): every apply
    in the docs is `-k` on a folder with a kustomization; every deploy/ path named exists."""
    for name in PAGES:
        text = (ROOT / name).read_text(encoding="utf-8")
        for flag, target in re.findall(r"kubectl apply (-[fk]) (\S+)", text):
            assert flag == "-k" and (ROOT / target / "kustomization.yaml").is_file(), (name, flag, target)
        for path in re.findall(r"`(deploy/[\w./-]+)`", text):
            assert (ROOT / path).exists(), (name, path)


def test_the_pod_s_resources_in_the_docs_are_the_deployment_s():
    import yaml

    deployment = yaml.safe_load((ROOT / "deploy" / "base" / "deployment.yaml").read_text(encoding="utf-8"))
    resources = deployment["spec"]["template"]["spec"]["containers"][0]["resources"]
    mib = {k: int(v["memory"].removesuffix("Mi")) for k, v in resources.items()}
    cpu = {k: int(v["cpu"]) for k, v in resources.items()}
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    said = (f"requests {cpu['requests']}\n  CPU / {mib['requests']} MiB, "
            f"limits {cpu['limits']} CPUs / {mib['limits']} MiB")
    assert said in text
    readme = (ROOT / "deploy" / "README.md").read_text(encoding="utf-8")
    assert f"**requests {mib['requests']}Mi**" in readme and f"**limits at {mib['limits']}Mi**" in readme
    # the measured figures the two pages give are the same
    for figure in re.findall(r"(\d+\.\d) MiB", text.split("## Kubernetes", 1)[1].split("\n## ", 1)[0]):
        assert f"{figure} MiB" in readme, figure


def test_the_readme_tells_the_build_switches_and_the_test_time():
    """The fast install (NINGBO_SCORE_PURE) was told only in setup.py's docstring: each switch
    setup.py reads is in the README's table; and how long `make test` takes."""
    switches = set(re.findall(r"^  (NINGBO_SCORE_\w+)=", (ROOT / "setup.py").read_text(encoding="utf-8"), re.M))
    assert switches == {"NINGBO_SCORE_PURE", "NINGBO_SCORE_COMPILE", "NINGBO_SCORE_JOBS"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for switch in switches:
        assert re.search(rf"^\| `{switch}=", readme, re.M), switch
    assert re.search(r"`make test`\s.*takes about\s+[\d–]+\s+minutes", readme, re.S)
