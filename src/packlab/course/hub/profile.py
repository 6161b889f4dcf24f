"""A hub's login profile: /etc/profile.d/packlab-hub-PORT.sh gives the login shells of its
people (JupyterLab's terminal, ssh, ``su -``) the commands and settings their servers have: the
environment's commands first on PATH, the exchange's settings.

One file per hub, named by its port, so that two hubs on one machine (two courses) keep their
own. Each applies to a shell that a server of its hub started (the server's
JUPYTER_CONFIG_PATH names the hub), and to another login shell of an account its hub admits
(the instructors' group and the roster, as they were when it started); the first file that
takes a shell sets JUPYTER_CONFIG_PATH, so every later one leaves it alone. `packlab hub serve`
writes it (and removes an older one of the same hub: on another port, or the single
packlab-hub.sh of earlier versions); `packlab hub stop --everything` removes it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from packlab.course.hub.layout import WORKSPACE, Hub, python_environment

FOLDER = Path("/etc/profile.d")  # every login shell reads its *.sh (Debian's /etc/profile)
OLD = "packlab-hub.sh"  # the one file every hub wrote before


def path(hub: Hub) -> Path:
    """This hub's login profile."""
    return FOLDER / f"packlab-hub-{hub.port}.sh"


def text(hub: Hub, instructors: list[str], learners: list[str]) -> str:
    """The profile: for ``instructors``, the instructors' environment; for ``learners``, the
    learners' (see the module for which shells)."""
    q = shlex.quote
    library = python_environment(hub).get("LD_LIBRARY_PATH")
    shared = f" LD_LIBRARY_PATH={q(library)}" if library else ""
    roles = [(instructors, hub.instructor, f"{hub.instructor_config}:{hub.jupyter_config}", ""),
             (learners, hub.learner, str(hub.jupyter_config),
              f' PACKLAB_WORKSPACE="$HOME/{WORKSPACE}"')]
    branches = "".join(
        f"      {'|'.join(q(name) for name in names)})\n"
        f'        PATH={q(str(env / "bin"))}:"$PATH"\n'
        f"        export JUPYTER_CONFIG_PATH={q(config)}{extra}{shared} ;;\n"
        for names, env, config, extra in roles if names)
    return ("# A class's hub (written by `packlab hub serve`, removed by `packlab hub stop\n"
            "# --everything`): in login shells of its people (JupyterLab's terminal, ssh, su -),\n"
            "# the course's commands and settings as each server has them.\n"
            f"{_claim(hub)}\n"
            '    case "$(id -un 2>/dev/null)" in\n'
            f"{branches}"
            "    esac ;;\n"
            "esac\n")


def _claim(hub: Hub) -> str:
    """The profile's first test, which names its hub: a shell no hub has taken yet, or one
    this hub's server started."""
    return (f'case ":${{JUPYTER_CONFIG_PATH:-}}:" in\n'
            f"  ::|*:{shlex.quote(str(hub.jupyter_config))}:*)")


def write(hub: Hub, instructors: list[str], learners: list[str]) -> Path:
    """Write this hub's profile (readable by every account) and remove its older ones."""
    own = path(hub)
    for older in _of(hub):
        if older != own:
            older.unlink(missing_ok=True)
    own.write_text(text(hub, instructors, learners))
    own.chmod(0o644)
    return own


def remove(hub: Hub) -> list[Path]:
    """Remove every profile of this hub (never another hub's); those removed."""
    found = _of(hub)
    for profile in found:
        profile.unlink(missing_ok=True)
    return found


def _of(hub: Hub) -> list[Path]:
    """This hub's profiles in the folder: those whose test names it, and the old single file
    when it names its instructors' commands."""
    found = []
    for profile in sorted(FOLDER.glob("packlab-hub*.sh")):
        try:
            written = profile.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        old = f"PATH={shlex.quote(str(hub.instructor / 'bin'))}:"
        if _claim(hub) + "\n" in written or profile.name == OLD and old in written:
            found.append(profile)
    return found
