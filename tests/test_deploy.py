"""The Kubernetes manifests of deploy/: valid against the Kubernetes 1.37 API (kubernetes-validate,
offline schemas, strict: an unknown or misspelt field fails), and saying what the service needs:
probes on /healthz and /readyz, resources, a non-root read-only container with /tmp and the
Prometheus directory on emptyDirs, a Service and a CPU autoscaler that point at the Deployment,
and a grace period long enough for gunicorn's graceful shutdown."""
from __future__ import annotations

import copy
import re
import runpy
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S_VERSION = "1.37.0"


def documents() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                out.append((path.name, doc))
    return out


def by_kind(kind: str) -> dict:
    found = [doc for _, doc in documents() if doc["kind"] == kind]
    assert len(found) == 1, f"expected one {kind} in deploy/, found {len(found)}"
    return found[0]


@pytest.fixture(scope="module")
def deployment() -> dict:
    return by_kind("Deployment")


@pytest.fixture(scope="module")
def container(deployment) -> dict:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def env_of(container: dict) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env", [])}


def test_every_manifest_is_valid_for_kubernetes_1_37():
    docs = documents()
    kinds = sorted(doc["kind"] for _, doc in docs)
    assert {"Deployment", "Service", "HorizontalPodAutoscaler"} <= set(kinds), kinds
    for name, doc in docs:
        # raises ValidationError (with the failing path) if the resource is not valid
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_validator_is_not_vacuous(deployment):
    """The same check refuses a misspelt field and a wrong type, so passing above means something."""
    typo = copy.deepcopy(deployment)
    typo["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {"httpGet": {"path": "/readyz", "port": 8000}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, K8S_VERSION, strict=True)
    wrong = copy.deepcopy(deployment)
    wrong["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(wrong, K8S_VERSION, strict=True)


def test_probes_use_healthz_and_readyz_on_the_serving_port(container):
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    env = env_of(container)
    assert ports == {"http": int(env["PORT"]), "metrics": int(env["METRICS_PORT"])}
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        port = container[probe]["httpGet"]["port"]
        assert port in ports or port in ports.values(), (probe, port)
        assert container[probe]["timeoutSeconds"] >= 1


def test_metrics_are_scraped_on_their_own_listener(deployment, container):
    # /metrics is answered on METRICS_HOST:METRICS_PORT only (observability.py), so the scrape
    # annotations name that port, bound on the pod's address, and the Service does not expose it
    env = env_of(container)
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == env["METRICS_PORT"] != env["PORT"]
    assert annotations["prometheus.io/path"] == "/metrics" and env["METRICS_HOST"] == "0.0.0.0"
    service = yaml.safe_load((ROOT / "deploy" / "service.yaml").read_text())
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= {"http", int(env["PORT"])}


def test_the_app_serves_the_probe_paths():
    from app import create_app

    client = create_app().test_client()
    assert client.get("/healthz").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["status"] == "ready"


def test_resources_requests_and_limits(container):
    resources = container["resources"]
    for part in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources[part]), part

    def cpu(v: str) -> float:
        return float(v[:-1]) / 1000 if v.endswith("m") else float(v)

    def mem(v: str) -> int:
        units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
        return int(v[:-2]) * units[v[-2:]]

    assert cpu(resources["requests"]["cpu"]) <= cpu(resources["limits"]["cpu"])
    assert mem(resources["requests"]["memory"]) <= mem(resources["limits"]["memory"])
    # one gunicorn worker per CPU of the limit (gunicorn.conf.py would count the node's cores)
    assert int(env_of(container)["WEB_CONCURRENCY"]) == int(cpu(resources["limits"]["cpu"]))


def dockerfile_user() -> str:
    users = [line.split(None, 1)[1].strip() for line in (ROOT / "Dockerfile").read_text().splitlines()
             if line.strip().upper().startswith("USER ")]
    assert users, "the Dockerfile sets no USER"
    return users[-1]


def test_non_root_numeric_user_matching_the_image(deployment, container):
    pod = deployment["spec"]["template"]["spec"]["securityContext"]
    ctx = container["securityContext"]
    assert pod["runAsNonRoot"] is True and ctx["runAsNonRoot"] is True
    assert isinstance(ctx["runAsUser"], int) and ctx["runAsUser"] > 0
    assert ctx["runAsUser"] == pod["runAsUser"]
    assert isinstance(ctx["runAsGroup"], int) and ctx["runAsGroup"] > 0
    assert pod["seccompProfile"]["type"] == "RuntimeDefault"
    # the image's own USER is the same numeric uid (and gid, when given as uid:gid)
    user = dockerfile_user()
    assert re.fullmatch(r"\d+(:\d+)?", user), f"Dockerfile USER {user!r} is not numeric"
    uid, _, gid = user.partition(":")
    assert int(uid) == ctx["runAsUser"]
    if gid:
        assert int(gid) == ctx["runAsGroup"]


def test_locked_down_container(container):
    ctx = container["securityContext"]
    assert ctx["allowPrivilegeEscalation"] is False
    assert ctx["privileged"] is False
    assert ctx["readOnlyRootFilesystem"] is True
    assert ctx["capabilities"]["drop"] == ["ALL"] and "add" not in ctx["capabilities"]


def test_writable_paths_are_empty_dirs(deployment, container):
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    prom_dir = env_of(container)["PROMETHEUS_MULTIPROC_DIR"]
    for path in ("/tmp", prom_dir):
        assert path in mounts, f"{path} is not mounted (the root filesystem is read-only)"
        assert "emptyDir" in volumes[mounts[path]], path
    assert all(not m.get("readOnly") for m in container["volumeMounts"])


def test_grace_period_covers_prestop_and_gunicorn_graceful_timeout(deployment, container):
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    # Kubernetes: preStop runs first, then SIGTERM; SIGKILL at the end of the grace period.
    # gunicorn then gives in-flight requests graceful_timeout seconds to finish.
    assert pre_stop >= 1
    assert grace > pre_stop + conf["graceful_timeout"], (grace, pre_stop, conf["graceful_timeout"])
    # the worker timeout is within what a probe tolerates
    assert conf["timeout"] <= 60


def test_service_routes_to_the_pods(deployment, container):
    service = by_kind("Service")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    (port,) = service["spec"]["ports"]
    assert port["targetPort"] in {p["name"] for p in container["ports"]} | {p["containerPort"] for p in container["ports"]}


def test_autoscaler_scales_the_deployment_on_cpu(deployment):
    hpa = by_kind("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        "apps/v1", "Deployment", deployment["metadata"]["name"])
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Resource" and metric["resource"]["name"] == "cpu"
    assert metric["resource"]["target"]["type"] == "Utilization"
    assert 0 < metric["resource"]["target"]["averageUtilization"] <= 100


def test_disruption_budget_keeps_a_pod(deployment):
    pdb = by_kind("PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
    assert pdb["spec"]["minAvailable"] >= 1
