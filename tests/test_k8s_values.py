"""The Kubernetes plan (hub/k8s/values.yaml, hub/k8s/packlab.yaml) fits Zero to JupyterHub's own
values schema and says what the code does on one machine.

The schema: the `jupyterhub` chart's values.schema.yaml and its default values.yaml, chart 4.2.0,
vendored in tests/vendor/z2jh-4.2.0/ with their licence and source (its README). Helm validates
the chart's defaults merged with ours, so this test does the same. PACKLAB_Z2JH_CHART may name
another chart's jupyterhub/ folder to check against instead.
"""

from __future__ import annotations

import os
import re
import types
from pathlib import Path

import jsonschema
import pytest
import yaml
from traitlets.config import Config

from autograder.glue.exchange import name_uid
from packlab.course.hub.layout import COLLECT
from packlab.course.room import hub as room_hub
from packlab.course.room.report import URL_VARIABLE
from packlab.manifest import ROOT

K8S = ROOT / "hub" / "k8s"
CHART = Path(os.environ.get("PACKLAB_Z2JH_CHART", ROOT / "tests" / "vendor" / "z2jh-4.2.0"))


@pytest.fixture(scope="module")
def values() -> dict:
    return yaml.safe_load((K8S / "values.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def manifests() -> dict[tuple[str, str], dict]:
    """hub/k8s/packlab.yaml's objects, by kind and name."""
    documents = yaml.safe_load_all((K8S / "packlab.yaml").read_text(encoding="utf-8"))
    return {(d["kind"], d["metadata"]["name"]): d for d in documents}


@pytest.fixture(scope="module")
def chart() -> tuple[dict, dict]:
    """The chart's schema and default values."""
    return tuple(yaml.safe_load((CHART / name).read_text(encoding="utf-8"))
                 for name in ("values.schema.yaml", "values.yaml"))


def helm_merge(defaults: dict, given: dict) -> dict:
    """Helm's merge of given values over a chart's defaults: maps merge, anything else replaces,
    null removes."""
    merged = dict(defaults)
    for key, value in given.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = helm_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def test_the_values_fit_the_charts_own_schema(values, chart):
    schema, defaults = chart
    jsonschema.validate(helm_merge(defaults, values), schema)


@pytest.mark.parametrize(("wrong", "said"), [
    ({"singleuser": {"memmory": {"limit": "1G"}}}, "memmory"),  # a misspelt key
    ({"cull": {"timeout": "an hour"}}, "'an hour' is not of type 'integer'"),  # a wrong type
])
def test_the_charts_schema_catches_a_wrong_value(values, chart, wrong, said):
    """The check can fail: values the chart's schema refuses are refused."""
    schema, defaults = chart
    with pytest.raises(jsonschema.ValidationError, match=said):
        jsonschema.validate(helm_merge(defaults, helm_merge(values, wrong)), schema)


def test_the_room_is_the_codes_room_with_a_pod_behind_it(values, manifests):
    """Service name, roles, learners' group and the learners' setting as `configure` makes them
    for `make hub` (its presenters: the instructors), and the room's pod, its Service and its
    port behind the service's address."""
    c = Config()
    c.JupyterHub.services, c.JupyterHub.load_roles, c.JupyterHub.load_groups = [], [], {}
    c.Spawner.environment = {}
    room_hub.configure(c, db="/data/room.sqlite", port=8002, presenters="instructors")
    (service,) = c.JupyterHub.services
    hub = values["hub"]
    assert set(hub["services"]) == {service["name"]}
    ours = hub["services"][service["name"]]
    assert ours["oauth_no_confirm"] is service["oauth_no_confirm"] is True
    for role in c.JupyterHub.load_roles:
        assert hub["loadRoles"][role["name"]] == {k: v for k, v in role.items() if k != "name"}
    command = manifests[("Deployment", "packlab-room")]["spec"]["template"]["spec"][
        "containers"][0]["command"]
    assert command[command.index("--group") + 1] == service["command"][-1] == "learners"
    host, port = ours["url"].removeprefix("http://").split(":")
    served = manifests[("Service", host)]["spec"]
    assert served["ports"][0]["port"] == int(port)
    assert served["selector"] == {"app": "packlab-room"}
    extra = hub["extraConfig"]["packlab"]
    assert f'URL_VARIABLE: "{ours["url"]}{room_hub.PREFIX.rstrip("/")}"' in extra
    assert c.Spawner.environment[URL_VARIABLE].endswith(room_hub.PREFIX.rstrip("/"))


def test_the_hubs_extra_config_runs_as_the_chart_runs_it(values, tmp_path):
    """The learners' group from the roster, a uid per account from its name (the one the
    collect expects), the instructors' server in the course folder with its volume."""
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada,ada@example.org\nbo,Bo,bo@example.org\n")
    c = Config()
    c.JupyterHub.load_groups = dict(values["hub"]["config"]["JupyterHub"]["load_groups"])
    code = values["hub"]["extraConfig"]["packlab"].replace("/srv/packlab/roster.csv", str(roster))
    exec(compile(code, "hub.extraConfig.packlab", "exec"), {"c": c})
    assert c.JupyterHub.load_groups["learners"] == {"users": ["ada", "bo"]}
    assert c.KubeSpawner.uid(types.SimpleNamespace(user=types.SimpleNamespace(name="ada"))) \
        == name_uid("ada")

    def spawner(group: str) -> types.SimpleNamespace:
        user = types.SimpleNamespace(groups=[types.SimpleNamespace(name=group)])
        return types.SimpleNamespace(user=user, image="student", cmd=["packlab", "lab"],
                                     default_url="/lab/tree/START.ipynb", volumes=[],
                                     volume_mounts=[])

    teacher, learner = spawner("instructors"), spawner("learners")
    for one in (teacher, learner):
        c.KubeSpawner.pre_spawn_hook(one)
    assert learner.image == "student" and learner.volumes == []
    assert teacher.volume_mounts == [{"name": "course", "mountPath": "/srv/course"}]
    assert teacher.volumes[0]["persistentVolumeClaim"]["claimName"] == "packlab-course"
    assert "--ServerApp.root_dir=/srv/course" in teacher.cmd


def test_the_exchange_its_mode_and_the_forgery_guard(values, manifests, monkeypatch):
    """Every server mounts the exchange's ReadWriteMany volume where nbgrader's settings say;
    an init container gives it mode 1777; the instructors' pods (the course mounted) collect
    with OwnedCollect, by the uid the spawner gives each name."""
    user = values["singleuser"]
    mounts = {m["name"]: m["mountPath"] for m in user["storage"]["extraVolumeMounts"]}
    volumes = {v["name"]: v for v in user["storage"]["extraVolumes"]}
    claim = volumes["exchange"]["persistentVolumeClaim"]["claimName"]
    assert manifests[("PersistentVolumeClaim", claim)]["spec"]["accessModes"] == ["ReadWriteMany"]
    (init,) = user["initContainers"]
    assert init["command"][-1] == f"chmod 1777 {mounts['exchange']}"

    def settings(course_mounted: bool) -> Config:
        c = Config()
        real = os.path.isdir
        monkeypatch.setattr(os.path, "isdir",
                            lambda p: course_mounted if p == "/srv/course" else real(p))
        exec(user["extraFiles"]["nbgrader"]["stringData"], {"get_config": lambda: c})
        return c

    learner, teacher = settings(False), settings(True)
    assert learner.Exchange.root == teacher.Exchange.root == mounts["exchange"]
    assert "ExchangeFactory" not in learner
    assert teacher.ExchangeFactory.collect == COLLECT
    assert teacher.OwnedCollect.uids == "name"


def test_the_values_say_what_the_plan_says(values):
    """The student install's command and start page, the culler's hour, the measured memory's
    guarantee, the placeholders."""
    user = values["singleuser"]
    assert user["cmd"] == ["packlab", "lab"]
    assert user["defaultUrl"] == "/lab/tree/START.ipynb"
    assert values["cull"]["timeout"] == 3600
    assert values["hub"]["config"]["JupyterHub"]["implicit_spawn_seconds"] == \
        hub_setting("c.JupyterHub.implicit_spawn_seconds")  # a crashed server comes back
    page = (ROOT / "book" / "instructors" / "kubernetes.md").read_text(encoding="utf-8")
    assert f"guarantee {user['memory']['guarantee'].removesuffix('M')} MB" in page
    assert f"{values['scheduling']['userPlaceholder']['replicas']} placeholder pods" in page


def hub_setting(name: str) -> float:
    """A number that hub/jupyterhub_config.py (`make hub`) sets: ``name = N``."""
    text = (ROOT / "hub" / "jupyterhub_config.py").read_text(encoding="utf-8")
    (value,) = re.findall(rf"^{re.escape(name)} = ([0-9.]+)$", text, re.MULTILINE)
    return float(value)
