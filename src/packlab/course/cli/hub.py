"""`packlab hub`: the class's JupyterHub on this machine (accounts, lock, build, serve)."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from packlab.course.cli.terminal import console, shown


def cmd_accounts(args: argparse.Namespace) -> int:
    """One system account per learner of the roster, and per instructor named."""
    from autograder.term.lms import InputError
    from packlab.course.hub import accounts
    from packlab.course.hub.layout import HubError

    try:
        done = accounts.make(Path(args.roster), args.instructor or [], Path(args.passwords))
    except (InputError, HubError) as exc:
        console.print(f"[bold red]No accounts made:[/] {shown(exc)}")
        return 2
    console.print(f"Accounts: {len(done.created)} created, {len(done.existing)} already there "
                  "(their passwords unchanged).")
    if done.passwords:
        console.print(f"First passwords: {shown(args.passwords)} (only root can read it). Hand "
                      "each person theirs; they change it with `passwd` in a JupyterLab terminal.")
    for refused in done.refused:
        console.print(f"[bold red]Not made:[/] {shown(refused)}")
    return 1 if done.refused else 0


def cmd_lock(args: argparse.Namespace) -> int:
    """Give the course folder to the instructors' group; no other account may read it."""
    from packlab.course.hub.serve import lock

    try:
        private = lock(Path(args.course).resolve())
    except (KeyError, PermissionError) as exc:
        console.print(f"[bold red]Not locked:[/] {shown(exc)} (make the accounts first, as root)")
        return 2
    console.print(f"{shown(args.course)}: readable by the instructors' group only.")
    for path in private:
        console.print(f"Left to its owner alone (mode 0600): {shown(path)}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the class's JupyterHub until stopped (its home is built on the first start)."""
    from packlab.course.hub.layout import Hub, HubError
    from packlab.course.hub.serve import start

    hub = Hub.from_environment()
    try:
        process = start(hub, rebuild=args.rebuild)
    except HubError as exc:
        console.print(f"[bold red]The hub is not started:[/] {shown(exc)}")
        return 2
    console.print(f"The class's hub: http://{hub.ip}:{hub.port}/hub/login (Ctrl-C stops it).")
    signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        return process.wait()


def add_commands(sub: argparse._SubParsersAction) -> None:
    hub = sub.add_parser("hub", help="the class's JupyterHub on this machine (`make hub`)",
                         description="The class's JupyterHub: make the accounts from the "
                         "roster, lock the course folder, serve the hub.")
    commands = hub.add_subparsers(dest="hub_command", required=True)
    made = commands.add_parser("accounts", help="a system account per learner of the roster",
                               description="Create a system account for each learner of ROSTER "
                               "(column id: the account name) and each --instructor, with a "
                               "first password (written to --passwords). Existing accounts "
                               "keep their password. Needs root.")
    made.add_argument("roster", help="CSV with the columns id, name, email")
    made.add_argument("--instructor", action="append", metavar="NAME",
                      help="an instructor's account (repeat for each)")
    made.add_argument("--passwords", default="first-passwords.csv",
                      help="where the new accounts' first passwords go (mode 0600)")
    made.set_defaults(run=cmd_accounts)
    locked = commands.add_parser("lock", help="the course folder for the instructors only")
    locked.add_argument("course", help="the course folder (the instructors' checkout)")
    locked.set_defaults(run=cmd_lock)
    served = commands.add_parser("serve", help="serve the hub (settings from the environment: "
                                 "HUB_PORT, PACKLAB_HUB_HOME, PACKLAB_HUB_COURSE, "
                                 "PACKLAB_HUB_ROSTER)")
    served.add_argument("--rebuild", action="store_true",
                        help="write the student install and the environments again")
    served.set_defaults(run=cmd_serve)
