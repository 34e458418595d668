"""The Kubernetes manifests of deploy/: a kustomize base (deploy/base/kustomization.yaml lists
every manifest of the folder; kustomize itself is not needed: its namespace transformation is
applied here), valid against every Kubernetes API from the minimum that deploy/README.md states
(1.30) to the newest kubernetes-validate knows (offline schemas, strict: an unknown or misspelt
field fails), and saying what the service needs: probes on /healthz and /readyz, resources, a
non-root read-only container with /tmp and the Prometheus directory on emptyDirs, a Service, a
CPU autoscaler, a disruption budget, a network policy and a ServiceMonitor that point at the
Deployment, and a grace period long enough for gunicorn's graceful shutdown."""
from __future__ import annotations

import copy
import re
import runpy
from pathlib import Path

import kubernetes_validate
import kubernetes_validate.utils
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BASE = DEPLOY / "base"


def minimum_version() -> str:
    """The minimum Kubernetes version deploy/README.md states ("Kubernetes 1.30 or later")."""
    found = re.search(r"Kubernetes (\d+\.\d+) or later", (DEPLOY / "README.md").read_text(encoding="utf-8"))
    assert found, "deploy/README.md states no minimum Kubernetes version"
    return found.group(1)


def minor(version: str) -> tuple[int, int]:
    major, minor_, *_ = version.split(".")
    return int(major), int(minor_)


#: Every version kubernetes-validate has schemas for, from the stated minimum to its newest.
VERSIONS = [v for v in kubernetes_validate.utils.all_versions() if minor(v) >= minor(minimum_version())]
NEWEST = VERSIONS[-1]


def kustomization() -> dict:
    return yaml.safe_load((BASE / "kustomization.yaml").read_text(encoding="utf-8"))


def documents() -> list[tuple[str, dict]]:
    """The resources of the base as kustomize renders them: each listed file's documents, in
    the kustomization's namespace (kubernetes-validate knows the Namespace kind is
    cluster-scoped; kustomize does not set a namespace on it)."""
    kust = kustomization()
    out = []
    for name in kust["resources"]:
        for doc in yaml.safe_load_all((BASE / name).read_text(encoding="utf-8")):
            if doc:
                doc = copy.deepcopy(doc)
                if doc["kind"] != "Namespace":
                    doc["metadata"]["namespace"] = kust["namespace"]
                out.append((name, doc))
    return out


def by_kind(kind: str) -> dict:
    found = [doc for _, doc in documents() if doc["kind"] == kind]
    assert len(found) == 1, f"expected one {kind} in deploy/base/, found {len(found)}"
    return found[0]


#: Custom resources: no schema in kubernetes-validate (checked field by field below).
CUSTOM = {("monitoring.coreos.com/v1", "ServiceMonitor"), ("monitoring.coreos.com/v1", "PrometheusRule")}


def test_the_kustomization_lists_every_manifest_of_the_base():
    kust = kustomization()
    assert kust["apiVersion"] == "kustomize.config.k8s.io/v1beta1" and kust["kind"] == "Kustomization"
    on_disk = sorted(p.name for p in BASE.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(kust["resources"]) == on_disk
    assert len(set(kust["resources"])) == len(kust["resources"])
    kinds = sorted(doc["kind"] for _, doc in documents())
    assert kinds == sorted(["Namespace", "Deployment", "Service", "HorizontalPodAutoscaler",
                            "PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor", "PrometheusRule"])
    namespace = by_kind("Namespace")
    assert namespace["metadata"]["name"] == kust["namespace"]
    # the namespace enforces the restricted Pod Security Standard, which the pods meet (below)
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    # the image the kustomization sets is the Deployment's, tagged with the package's version
    import ningbo_score

    (image,) = kust["images"]
    assert image == {"name": "ningbo-score", "newTag": ningbo_score.__version__}
    containers = by_kind("Deployment")["spec"]["template"]["spec"]["containers"]
    assert containers[0]["image"].split(":")[0] == image["name"]


def test_the_example_overlay_builds_on_the_base():
    overlay = DEPLOY / "overlays" / "example"
    kust = yaml.safe_load((overlay / "kustomization.yaml").read_text(encoding="utf-8"))
    resources = [(overlay / r).resolve() for r in kust["resources"]]
    assert resources == [BASE.resolve(), (overlay / "ingress.yaml").resolve()]
    kinds = {d["kind"] for _, d in documents()}
    names = {(d["kind"], d["metadata"]["name"]) for _, d in documents()}
    for patch in kust.get("patches", []):
        target = patch["target"]
        if "name" in target:
            assert (target["kind"], target["name"]) in names
        else:
            assert set(target["kind"].split("|")) <= kinds


def test_the_minimum_version_is_the_first_with_schemas_here():
    assert minimum_version() == "1.30"
    assert VERSIONS[0].startswith("1.30.") and minor(NEWEST) >= (1, 37), VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_is_valid_for_every_supported_kubernetes(version):
    for _, doc in documents():
        if (doc["apiVersion"], doc["kind"]) in CUSTOM:
            continue
        # raises ValidationError (with the failing path) if the resource is not valid
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_validator_is_not_vacuous(deployment):
    """The same check refuses a misspelt field and a wrong type, so passing above means something;
    and the Deployment's preStop sleep (the reason for the minimum version) is unknown before
    1.29 (alpha behind a feature gate there, on by default from 1.30)."""
    typo = copy.deepcopy(deployment)
    typo["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {"httpGet": {"path": "/readyz", "port": 8000}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, NEWEST, strict=True)
    wrong = copy.deepcopy(deployment)
    wrong["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(wrong, NEWEST, strict=True)
    with pytest.raises(kubernetes_validate.ValidationError, match="sleep"):
        kubernetes_validate.validate(deployment, "1.28.0", strict=True)


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
    # /metrics is answered on METRICS_HOST:METRICS_PORT only (service/observability/metrics.py), so the scrape
    # annotations name that port, bound on the pod's address; the Service's public port routes
    # to the serving port and its `metrics` port (the ServiceMonitor's) to the metrics listener
    env = env_of(container)
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == env["METRICS_PORT"] != env["PORT"]
    assert annotations["prometheus.io/path"] == "/metrics" and env["METRICS_HOST"] == "0.0.0.0"
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": int(env["PORT"]), "metrics": int(env["METRICS_PORT"])}
    routes = {p["name"]: p["targetPort"] for p in by_kind("Service")["spec"]["ports"]}
    assert routes == {"http": "http", "metrics": "metrics"}
    assert [e["port"] for e in by_kind("ServiceMonitor")["spec"]["endpoints"]] == ["metrics"]


def test_the_app_serves_the_probe_paths():
    from service import create_app

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
    serving = {p["name"] for p in container["ports"]} | {p["containerPort"] for p in container["ports"]}
    for port in service["spec"]["ports"]:
        assert port["targetPort"] in serving


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


def test_network_policy_lets_in_the_serving_port_and_metrics_from_monitoring_only(deployment, container):
    """deploy/README.md's word: the serving port from anywhere, the metrics port from the
    monitoring namespace only, nothing out."""
    policy = by_kind("NetworkPolicy")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()
    assert sorted(policy["spec"]["policyTypes"]) == ["Egress", "Ingress"]
    serving, metrics = policy["spec"]["ingress"]
    assert serving == {"ports": [{"port": "http", "protocol": "TCP"}]}      # no `from`: any peer
    # the probes' port is let in (the kubelet's probes come through it too)
    assert all(container[probe]["httpGet"]["port"] == "http" for probe in ("livenessProbe", "readinessProbe"))
    assert metrics["ports"] == [{"port": "metrics", "protocol": "TCP"}]
    assert metrics["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    assert {p["name"] for p in container["ports"]} == {"http", "metrics"}
    assert policy["spec"]["egress"] == []          # the service calls nothing


def test_service_monitor_scrapes_the_metrics_of_the_service(deployment):
    monitor = by_kind("ServiceMonitor")
    service = by_kind("Service")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor["spec"]) <= {"selector", "endpoints", "namespaceSelector", "jobLabel"}
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    (endpoint,) = monitor["spec"]["endpoints"]
    assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout", "scheme"}
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    seconds = {k: int(endpoint[k].rstrip("s")) for k in ("interval", "scrapeTimeout")}
    assert 0 < seconds["scrapeTimeout"] <= seconds["interval"]


def test_the_service_serves_metrics_where_the_monitor_looks(container, monkeypatch):
    from werkzeug.test import Client

    from service import create_app
    from service.observability import metrics as obs_metrics
    from service.settings import Settings

    env = env_of(container)
    settings = Settings.from_env({"METRICS_HOST": env["METRICS_HOST"], "METRICS_PORT": env["METRICS_PORT"]})
    assert settings.metrics_listener == ("0.0.0.0", int(env["METRICS_PORT"]))
    path = by_kind("ServiceMonitor")["spec"]["endpoints"][0]["path"]
    answer = Client(obs_metrics.metrics_app()).get(path)
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    # and not on the public port
    assert create_app().test_client().get(path).status_code == 404


def test_disruption_budget_keeps_a_pod(deployment):
    pdb = by_kind("PodDisruptionBudget")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert pdb["spec"]["minAvailable"] >= 1


# --- the rendered output: kustomize itself (kubectl kustomize) ----------------------------------

def rendered(folder: Path) -> list[dict]:
    """``kubectl kustomize <folder>``: what ``kubectl apply -k`` would send."""
    import shutil
    import subprocess

    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl (1.30 or later: its built-in kustomize) renders the kustomizations"
    done = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


OVERLAY = DEPLOY / "overlays" / "example"


@pytest.fixture(scope="module")
def overlay_output() -> list[dict]:
    return rendered(OVERLAY)


@pytest.mark.parametrize("version", sorted({VERSIONS[0], NEWEST}))
@pytest.mark.parametrize("folder", [BASE, OVERLAY], ids=["base", "overlay"])
def test_the_rendered_kustomizations_are_valid(folder, version):
    docs = rendered(folder)
    assert {d["metadata"].get("namespace") for d in docs if d["kind"] != "Namespace"} == {"ningbo-score"}
    for doc in docs:
        if (doc["apiVersion"], doc["kind"]) not in CUSTOM:
            kubernetes_validate.validate(doc, version, strict=True)


def _one(docs: list[dict], kind: str, name: str = "ningbo-score") -> dict:
    (found,) = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def test_the_overlay_sets_what_a_default_kube_prometheus_stack_selects_on(overlay_output):
    for kind in ("ServiceMonitor", "PrometheusRule"):
        assert _one(overlay_output, kind)["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    policy = _one(overlay_output, "NetworkPolicy")
    assert policy["spec"]["ingress"][1]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    env = env_of(_one(overlay_output, "Deployment")["spec"]["template"]["spec"]["containers"][0])
    from service.settings import trusted_proxies

    assert trusted_proxies(env["FORWARDED_ALLOW_IPS"])        # a valid list the app takes


def test_the_overlay_believes_forwarding_headers_from_a_narrow_range_only(overlay_output):
    """Issue 41: not all of 10.0.0.0/8 (any pod of the cluster could then name any client
    address, and take that client's share of the heavy work): no trusted network wider than a
    /24, no `*`."""
    from service.settings import trusted_proxies

    env = env_of(_one(overlay_output, "Deployment")["spec"]["template"]["spec"]["containers"][0])
    assert "*" not in env["FORWARDED_ALLOW_IPS"]
    for network in trusted_proxies(env["FORWARDED_ALLOW_IPS"]):
        assert network.num_addresses <= 256, network


def test_the_ingress_has_the_body_limits_of_the_app(overlay_output):
    from service import routes

    def size(value: str) -> int:
        return int(value[:-1]) * {"k": 1024, "m": 1024 * 1024}[value[-1]]

    limits = {}
    for ingress in (d for d in overlay_output if d["kind"] == "Ingress"):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                assert path["backend"]["service"] == {"name": "ningbo-score", "port": {"name": "http"}}
                annotations = ingress["metadata"]["annotations"]
                limits[path["path"]] = size(annotations["nginx.ingress.kubernetes.io/proxy-body-size"])
    # the route table's: the app's limit for every path, and each route with a larger one on a
    # path of its own (Exact); a route the edge held to less would get nginx's HTML 413 instead
    # of the app's answer (issue 38: /v1/replay/batch and /v1/sessions/settle were missing)
    larger = {r.path: r.max_body for r in routes.ROUTES
              if r.max_body is not None and r.max_body != routes.MAX_BODY_BYTES}
    assert larger
    assert limits == {"/": routes.MAX_BODY_BYTES, **larger}


def test_the_alerts_watch_series_the_service_exports():
    rule = by_kind("PrometheusRule")
    alerts = {r["alert"]: r["expr"] for group in rule["spec"]["groups"] for r in group["rules"]}
    assert set(alerts) == {"NingboScoreErrorRatioHigh", "NingboScoreLatencyHigh", "NingboScorePodNotReady",
                           "NingboScoreNoReadyPod"}
    assert 'status=~"5.."' in alerts["NingboScoreErrorRatioHigh"]
    # no namespace written in a rule (the overlay's namespace is kustomize's to set): the series by
    # the ServiceMonitor's job or the pods' names, each alert per namespace
    for name, expr in alerts.items():
        assert "namespace=" not in expr and "by (namespace" in expr, name
        assert 'job="ningbo-score"' in expr or 'pod=~"ningbo-score-.+"' in expr, name
    assert "histogram_quantile(0.99" in alerts["NingboScoreLatencyHigh"]
    # every series named is one service/observability/metrics.py exports (or kube-state-metrics' readiness)
    from service.observability import metrics as obs_metrics
    from werkzeug.test import Client

    exported = Client(obs_metrics.metrics_app()).get("/metrics").get_data(as_text=True)
    for expr in alerts.values():
        for series in re.findall(r"\b(ningbo_score_\w+|kube_\w+)\{", expr):
            assert series.startswith("kube_pod_status_ready") or f"\n{series}" in exported, series
