"""`packlab hub`: the class's JupyterHub on this machine (accounts, lock, serve, warm, stop)."""

from __future__ import annotations

import argparse
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
    """Serve the class's JupyterHub until stopped (its home is built on the first start); the
    learners' servers and the proxy outlive it, and the next start takes them up again."""
    from packlab.course.hub.layout import Hub, HubError
    from packlab.course.hub.serve import held, start, until_stopped
    from packlab.course.hub.servers import end_orphaned_services

    hub = Hub.from_environment()
    try:
        with held(hub):
            end_orphaned_services(hub)  # a hub that died left its services holding their ports
            process = start(hub, rebuild=args.rebuild)
            console.print(f"The class's hub: http://{hub.ip}:{hub.port}/hub/login (Ctrl-C stops "
                          "it; the learners' servers keep running).")
            code = until_stopped(process, lambda line: console.print(shown(line)))
            end_orphaned_services(hub)  # a hub that had to be ended leaves its services
            return code
    except HubError as exc:
        console.print(f"[bold red]The hub is not started:[/] {shown(exc)}")
        return 2


def cmd_stop(args: argparse.Namespace) -> int:
    """Stop the hub (the servers and the proxy keep running), or everything with --everything."""
    from packlab.course.hub.layout import Hub
    from packlab.course.hub.servers import stop

    stopped = stop(Hub.from_environment(), everything=args.everything)
    if not stopped:
        console.print("Nothing of the class's hub was running.")
        return 0
    console.print(f"Stopped: {shown(', '.join(stopped))}.")
    if not args.everything:
        console.print("The learners' servers and the proxy keep running: the next "
                      "`packlab hub serve` (or `make hub`) takes them up again.")
    return 0


def cmd_warm(args: argparse.Namespace) -> int:
    """Start every learner's server of the roster now, so that a login opens a running one."""
    from packlab.course.hub.accounts import learners
    from packlab.course.hub.layout import Hub
    from packlab.course.hub.servers import warm

    hub = Hub.from_environment()
    names = learners(hub.roster)
    try:
        state = warm(hub, names, seconds=args.seconds,
                     said=lambda line: console.print(shown(line)))
    except OSError as exc:
        console.print(f"[bold red]The hub does not answer:[/] {shown(exc)} (is it running? "
                      "`make hub`)")
        return 2
    running = [name for name, now in state.items() if now == "running"]
    console.print(f"{len(running)} of {len(names)} learners' servers running: a login now opens "
                  "one in seconds. Servers idle for an hour are stopped: warm them within the "
                  "hour before class.")
    for name, now in state.items():
        if now != "running":
            console.print(f"[bold red]Not running:[/] {shown(name)}: {shown(now)}")
    return 0 if len(running) == len(names) else 1


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
    stopped = commands.add_parser("stop", help="stop the hub; the learners' servers keep running",
                                  description="Stop the class's hub (the one `make hub` serves "
                                  "from PACKLAB_HUB_HOME): the learners' servers, kernels and "
                                  "the proxy keep running, and the next start takes them up "
                                  "again (a restart or an upgrade drops no one).")
    stopped.add_argument("--everything", action="store_true",
                         help="the end of a class: the servers, their kernels and the proxy too")
    stopped.set_defaults(run=cmd_stop)
    warmed = commands.add_parser("warm", help="start every learner's server before class",
                                 description="Start the server of every learner of the roster "
                                 "on the running hub, and wait until each runs: a login then "
                                 "opens a running server in seconds.")
    warmed.add_argument("--seconds", type=float, default=600,
                        help="how long to wait for the servers (default 600)")
    warmed.set_defaults(run=cmd_warm)
