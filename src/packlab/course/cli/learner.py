"""The learner's commands: lab, check, hint, progress, reset, room (all the student install
offers)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from packlab.course import workspace
from packlab.course.cli.terminal import console, shown
from packlab.manifest import load


def cmd_lab(args: argparse.Namespace) -> int:
    """Set up the learner's workspace and serve JupyterLab at its start page."""
    folder = workspace.prepare()
    for update in workspace.updates(folder):
        console.print(f"Newer in the course: {shown(update.title)}. Get it with "
                      f"`{shown(update.command)}` (your copy is kept). The start page lists it.")
    # Spawned by the class's JupyterHub, the server is the hub's single-user server: the hub
    # gives its address, login and start page in the environment (JUPYTERHUB_*).
    on_hub = "JUPYTERHUB_API_TOKEN" in os.environ
    command = [
        sys.executable, "-m", *(["jupyterhub.singleuser"] if on_hub else ["jupyter", "lab"]),
        f"--ServerApp.root_dir={folder}",
        f"--LabApp.default_url=/lab/tree/{workspace.START}",
        f"--ServerApp.jpserver_extensions={server_extensions(on_hub)!r}",
    ]
    if not on_hub:
        command += [f"--ServerApp.port={os.environ.get('JUPYTER_PORT', '8888')}",
                    f"--ServerApp.ip={os.environ.get('JUPYTER_IP', '127.0.0.1')}"]
    if "JUPYTER_TOKEN" in os.environ:
        command.append(f"--IdentityProvider.token={os.environ['JUPYTER_TOKEN']}")
    if not os.environ.get("DISPLAY") and sys.platform != "darwin" and not on_hub:
        command.append("--no-browser")
    if os.geteuid() == 0:
        command.append("--allow-root")
    console.print(f"Serving the course from {shown(folder)} (your own copies). "
                  "Stop with Ctrl-C.")
    # Started in the workspace, so a terminal opened in JupyterLab starts there too (terminado
    # gives a new terminal the server's own folder) and sees the same paths as the file browser.
    if on_hub:
        return serve_here(command[3:], folder)
    return serve(command, workspace.server_environment(), cwd=folder)


def serve_here(arguments: list[str], folder: Path) -> int:
    """Become the hub's single-user server (`jupyterhub-singleuser ARGUMENTS`) in this very
    process: the hub stops the server itself, so no parent process is kept (50 MB a learner),
    and no second Python starts to import again what this command has already imported
    (nbformat and jsonschema: a sixth of a CPU-second at every learner's login)."""
    os.environ.update(workspace.server_environment())
    os.chdir(folder)
    sys.argv = ["jupyterhub-singleuser", *arguments]
    from jupyterhub.singleuser import main

    return main() or 0


# Server extensions a learner never uses, left out of their server (each costs CPU-seconds at
# every start, which 30 learners logging in at once pay together): formgrader and the course
# list are the instructors'; the language servers and Notebook 7's pages have no use in the
# course's JupyterLab, nor has notebook_shim (it carries the classic Notebook's settings over for
# extensions written for it, none here; linking it imports IPython).
UNUSED_EXTENSIONS = ("nbgrader.server_extensions.formgrader",
                     "nbgrader.server_extensions.course_list", "jupyter_lsp", "notebook",
                     "notebook_shim")


def server_extensions(on_hub: bool) -> dict[str, bool]:
    """The server extensions a learner's server turns off, and on, on the hub or off it.
    nbgrader's Assignments tab and Validate button are the hub's only (its lab config shows
    them there), and even there never loaded at the start: `assignments_tab` loads them when
    first used."""
    from packlab.course import assignments_tab  # Jupyter's server, which is about to start

    chosen = dict.fromkeys(UNUSED_EXTENSIONS + assignments_tab.NBGRADER, False)
    return {**chosen, assignments_tab.__name__: True} if on_hub else chosen


STOP_SECONDS = 10.0  # JupyterLab's own shutdown on SIGTERM takes about a second


def serve(command: list[str], env: dict[str, str], cwd: Path) -> int:
    """Run a server until it exits; a SIGTERM or SIGHUP to this process (a service manager, a
    closed terminal, `kill`) stops the server too, instead of leaving it running orphaned."""
    import signal

    process = subprocess.Popen(command, env=env, cwd=cwd)

    def stop(signum, frame) -> None:
        process.send_signal(signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        while True:
            try:
                return process.wait()
            except KeyboardInterrupt:  # Ctrl-C reached the server too: let it finish
                continue
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()


def cmd_check(args: argparse.Namespace) -> int:
    """Run the visible tests on a saved exercise notebook and say what to do next."""
    from autograder.checks.suites import load as load_suite
    from autograder.checks.unwritten import is_unwritten
    from autograder.run.engine import grade_submission
    from packlab.course.check import (
        exercise_of,
        failure_lines,
        hidden_not_installed,
        score_line,
        tell_room,
    )
    from packlab.course.hints import hint_command

    path = Path(args.notebook)
    if not path.is_file():
        console.print(f"There is no notebook at {shown(path)}. Save it, and give its path.")
        return 2
    course_copy = workspace.course_copy_note(path)
    if course_copy:
        console.print(shown(course_copy))
        return 2
    exercise = exercise_of(path)
    if exercise is None:
        names = ", ".join(e.name for e in load().exercises)
        console.print(f"{shown(path)} is not one of the exercises ({names}).")
        return 2
    missing = load_suite(exercise.suite).missing
    if args.all and missing:
        console.print(f"Note: {shown(hidden_not_installed(missing))} Checking the visible tests "
                      "only.")
    groups = None if args.all and not missing else exercise.visible_groups
    result, cells = grade_submission(path, exercise, "you", groups=groups,
                                     sandboxed=_learner_sandbox())
    if result.error:
        console.print(f"[bold]Could not check {shown(path.name)}:[/] {shown(result.error)}")
        return 1
    for note in result.notes:
        console.print(f"Note: {shown(note)}")
    for cell in cells:  # the code of each cell that failed to run, its failing line marked
        for number, line in enumerate(cell.lines, cell.first_line):
            mark = "→" if number == cell.marked else " "
            console.print(f"  {mark} {number:>3} | {shown(line)}")
    failed = [f for g in result.groups for f in g.failures]
    for group in result.groups:
        for name in group.passed:
            console.print(f"[green]✓[/] {shown(name)}")
    for line in failure_lines(failed):
        console.print(shown(line).replace("✗", "[red]✗[/]", 1))
    score = score_line(exercise, {g.name: g.points for g in result.groups}, missing)
    room_line = tell_room(exercise, result.groups)
    if failed:
        task = (f"write `{exercise.function}` in its answer cell" if all(map(is_unwritten, failed))
                else "read the first message above, fix your answer")
        console.print(f"\n{len(failed)} check(s) failed. Next: {task}, save, and check again. "
                      f"Stuck? `{hint_command(exercise)}`")
        console.print(score)
        _print_room(room_line)
        return 1
    if missing:
        later = "the hidden tests run when it is graded."
    elif args.all:
        later = "move on to the next lesson."
    else:
        later = "the hidden tests run when it is graded; try `packlab check --all` to run them now."
    console.print(f"\nEvery check passed. Next: {later}")
    console.print(score)
    _print_room(room_line)
    return 0


def _print_room(line: str | None) -> None:
    if line:
        console.print(shown(line))


def cmd_room(args: argparse.Namespace) -> int:
    """Whether the room's chart counts this learner's checks; `on` or `off` to choose."""
    from packlab.course.room import report

    line = report.status_line() if args.choice is None else report.set_counted(args.choice == "on")
    console.print(shown(line))
    return 0


def _learner_sandbox() -> bool:
    from packlab.course.progress import learner_sandbox

    return learner_sandbox(console)


def cmd_hint(args: argparse.Namespace) -> int:
    from packlab.course.hints import hint

    try:
        hint(args.exercise, everything=args.all)
    except KeyError as exc:
        console.print(shown(exc.args[0]))
        return 2
    return 0


def cmd_progress(args: argparse.Namespace) -> int:
    """Grade the learner's own copies of the exercises and show where they stand."""
    from packlab.course.progress import show

    show(Path(args.workspace) if args.workspace else workspace.default_folder(), console)
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    """Put the handed-out version of an exercise (or lesson) back; keep the learner's."""
    try:
        workspace.reset(args.key, lesson=args.lesson, say=lambda text: console.print(shown(text)))
    except KeyError as exc:
        console.print(shown(exc.args[0]))
        return 2
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """lab, check, hint, progress, reset and room."""
    sub.add_parser("lab", help="serve the course in JupyterLab").set_defaults(run=cmd_lab)
    check = sub.add_parser("check", help="run an exercise's visible tests on a saved notebook")
    check.add_argument("notebook")
    check.add_argument("--all", action="store_true", help="run the hidden tests too")
    check.set_defaults(run=cmd_check)
    hint = sub.add_parser("hint", help="show the next hint for an exercise")
    hint.add_argument("exercise", help="name, number or function, e.g. 02 or pack")
    hint.add_argument("--all", action="store_true", help="show every hint at once")
    hint.set_defaults(run=cmd_hint)
    progress = sub.add_parser("progress", help="which of your exercises pass")
    progress.add_argument("--workspace", help="folder holding your copies (default: workspace/)")
    progress.set_defaults(run=cmd_progress)
    reset = sub.add_parser("reset", help="start an exercise (or lesson) over; yours is kept")
    reset.add_argument("key", help="exercise (or lesson) number, e.g. 02")
    reset.add_argument("--lesson", action="store_true", help="the lesson, not the exercise")
    reset.set_defaults(run=cmd_reset)
    room = sub.add_parser("room", help="whether the room's chart on the hub counts your checks")
    room.add_argument("choice", nargs="?", choices=("on", "off"),
                      help="off: your checks are not counted (and what was is forgotten)")
    room.set_defaults(run=cmd_room)
