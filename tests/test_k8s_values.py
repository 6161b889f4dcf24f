"""The Kubernetes plan's Helm values (hub/k8s/values.yaml) use only keys the Zero to JupyterHub
chart (4.x) knows, with values of the kinds it accepts, and say what book/instructors/kubernetes.md
promises. `helm template` cannot run here (the chart is not reachable), so the part of the
chart's values schema the file uses is written down below and checked with jsonschema."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from packlab.manifest import ROOT

VALUES = ROOT / "hub" / "k8s" / "values.yaml"
QUANTITY = {"type": "string", "pattern": r"^[0-9.]+(Mi|Gi|M|G|m)?$"}
NUMBER_OR_QUANTITY = {"anyOf": [{"type": "number"}, QUANTITY]}


def closed(properties: dict, required: tuple[str, ...] = ()) -> dict:
    """An object with exactly these keys allowed (the chart's schema is closed the same way)."""
    return {"type": "object", "properties": properties, "additionalProperties": False,
            "required": list(required)}


SERVICE = closed({"url": {"type": "string", "pattern": "^https?://"},
                  "display": {"type": "boolean"}}, ("url",))
ROLE = closed({"description": {"type": "string"},
               "scopes": {"type": "array", "items": {"type": "string"}},
               "groups": {"type": "array", "items": {"type": "string"}},
               "services": {"type": "array", "items": {"type": "string"}}}, ("scopes",))
VOLUME = {"type": "object", "required": ["name"]}
SCHEMA = closed({
    "hub": closed({
        "config": {"type": "object"},
        "loadRoles": {"type": "object", "additionalProperties": ROLE},
        "services": {"type": "object", "additionalProperties": SERVICE},
        "extraConfig": {"type": "object", "additionalProperties": {"type": "string"}},
    }),
    "singleuser": closed({
        "image": closed({"name": {"type": "string"}, "tag": {"type": "string"}},
                        ("name", "tag")),
        "cmd": {"type": "array", "items": {"type": "string"}},
        "defaultUrl": {"type": "string"},
        "fsGid": {"type": "integer"},
        "memory": closed({"guarantee": QUANTITY, "limit": QUANTITY}),
        "cpu": closed({"guarantee": NUMBER_OR_QUANTITY, "limit": NUMBER_OR_QUANTITY}),
        "storage": closed({
            "type": {"enum": ["dynamic", "static", "none"]},
            "capacity": QUANTITY,
            "homeMountPath": {"type": "string"},
            "extraVolumes": {"type": "array", "items": VOLUME},
            "extraVolumeMounts": {"type": "array", "items": closed({
                "name": {"type": "string"}, "mountPath": {"type": "string"}},
                ("name", "mountPath"))},
        }),
        "extraEnv": {"type": "object", "additionalProperties": {"type": "string"}},
    }, ("image", "cmd")),
    "scheduling": closed({
        "userScheduler": closed({"enabled": {"type": "boolean"}}),
        "podPriority": closed({"enabled": {"type": "boolean"}}),
        "userPlaceholder": closed({"enabled": {"type": "boolean"},
                                   "replicas": {"type": "integer", "minimum": 0}}),
    }),
    "cull": closed({"enabled": {"type": "boolean"}, "timeout": {"type": "integer"},
                    "every": {"type": "integer"}}),
    "proxy": closed({"chp": closed({"resources": {"type": "object"}})}),
}, ("hub", "singleuser", "cull"))


@pytest.fixture(scope="module")
def values() -> dict:
    return yaml.safe_load(VALUES.read_text(encoding="utf-8"))


def test_the_values_fit_the_charts_schema(values):
    jsonschema.validate(values, SCHEMA)


def test_a_wrong_key_is_caught():
    """The schema can fail: a misspelt key (singleuser.memmory) is refused."""
    with pytest.raises(jsonschema.ValidationError, match="memmory"):
        jsonschema.validate({"hub": {}, "cull": {}, "singleuser": {
            "image": {"name": "x", "tag": "1"}, "cmd": ["packlab", "lab"],
            "memmory": {"limit": "1G"}}}, SCHEMA)


def test_the_values_say_what_the_plan_says(values):
    """The student install's command and start page, the exchange on a shared volume, formgrader
    and the room as hub services, the culler's hour, the measured memory's guarantee."""
    user = values["singleuser"]
    assert user["cmd"] == ["packlab", "lab"]
    assert user["defaultUrl"] == "/lab/tree/START.ipynb"
    mounts = {m["name"]: m["mountPath"] for m in user["storage"]["extraVolumeMounts"]}
    assert mounts["exchange"] == "/srv/nbgrader/exchange"
    assert set(values["hub"]["services"]) == {"formgrader", "packlab-room"}
    assert values["cull"]["timeout"] == 3600
    page = (ROOT / "book" / "instructors" / "kubernetes.md").read_text(encoding="utf-8")
    assert f"guarantee {user['memory']['guarantee'].removesuffix('M')} MB" in page
    assert f"{values['scheduling']['userPlaceholder']['replicas']} placeholder pods" in page
