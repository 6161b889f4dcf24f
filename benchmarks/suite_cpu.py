"""Where `make test`'s CPU goes: each process the suite starts, charged to the test that began it.

    sudo .venv/bin/python benchmarks/suite_cpu.py [pytest arguments]   # default: the whole suite
    sudo .venv/bin/python benchmarks/suite_cpu.py --report FOLDER      # an earlier run's records

The suite runs as `make test` runs it (three workers, `--dist loadgroup`, the longest units
first). The kernel's process accounting (`accton`, Debian's acct package; root only) records
the CPU of every process that ends, kernels, browsers and sandboxes included; this script loads
itself into each worker as a pytest plugin that notes when each test starts and ends and the
worker's own CPU, and follows each process up its parents to the worker and the test running
when its branch started. It prints the CPU by unit of work (an xdist group, else a module), by
kind of process, and the tests that cost most. A process whose parent ended first (a daemon, a
browser's helper) cannot be followed and is counted apart, by name. Not a test: figures for
book/speed.md.
"""

from __future__ import annotations

import bisect
import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOG = "PACKLAB_SUITE_CPU_LOG"  # where each worker notes its tests (set for the workers)


# --- the plugin, in each worker ----------------------------------------------------------------

def _note(kind: str, nodeid: str) -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    with open(Path(os.environ[LOG]) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps([kind, os.getpid(), time.time(), nodeid,
                              used.ru_utime + used.ru_stime]) + "\n")


def _in_worker() -> bool:
    """In a test worker: xdist's controller gets every worker's test events too, and its own
    notes would make the workers look like processes a test started."""
    return LOG in os.environ and "PYTEST_XDIST_WORKER" in os.environ


def pytest_runtest_logstart(nodeid: str, location) -> None:
    if _in_worker():
        _note("start", nodeid)


def pytest_runtest_logfinish(nodeid: str, location) -> None:
    if _in_worker():
        _note("end", nodeid)


# --- the run -----------------------------------------------------------------------------------

def _watch_commands(seen: dict[int, list[tuple[float, str]]], done: threading.Event) -> None:
    """Each process's command line, read from /proc ten times a second (acct keeps 16 bytes)."""
    while not done.wait(0.1):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    raw = Path(entry.path, "cmdline").read_bytes()
                except OSError:
                    continue
                line = raw.replace(b"\0", b" ").decode(errors="replace")[:160].strip()
                known = seen.setdefault(int(entry.name), [])
                if line and (not known or known[-1][1] != line):
                    known.append((time.time(), line))


def _accounted(file: Path) -> list[dict]:
    """The processes in an accounting file (`dump-acct`): name, CPU-s, life, pid, parent."""
    rows = []
    for line in subprocess.run(["dump-acct", str(file)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = [part.strip() for part in line.split("|")]
        began = datetime.strptime(f[14], "%a %b %d %H:%M:%S %Y").replace(tzinfo=UTC)
        rows.append({"name": f[0], "cpu": (float(f[2]) + float(f[3])) / 100,
                     "life": float(f[4]) / 100, "pid": int(f[9]), "ppid": int(f[10]),
                     "began": began.timestamp()})
    return rows


def _alive_at(rows_of: dict[int, list[dict]], pid: int, when: float) -> dict | None:
    return next((r for r in rows_of.get(pid, []) if r["began"] - 1.5 <= when
                 <= r["began"] + r["life"] + 1.5), None)


def _program(line: str) -> str:
    """What a command line runs: "chromium", "ipykernel_launcher", "jupyter-lab", "packlab"."""
    words = line.split()
    if not words:
        return ""
    first = words[0].rsplit("/", 1)[-1]
    if first.startswith("python") and len(words) > 2:
        return words[2] if words[1] == "-m" else "python -c" if words[1] == "-c" \
            else words[1].rsplit("/", 1)[-1]
    return first


def _unit(nodeid: str) -> str:
    return nodeid.rsplit("@", 1)[1] if "@" in nodeid else nodeid.split("::", 1)[0]


def report(rows: list[dict], logs: Path, commands: dict[int, list[tuple[float, str]]]) -> None:
    spans, starts, own = collections.defaultdict(list), {}, collections.Counter()
    ends: dict[int, float] = {}
    for file in logs.glob("*.jsonl"):
        for line in file.read_text(encoding="utf-8").splitlines():
            kind, pid, when, nodeid, cpu = json.loads(line)
            if kind == "start":
                starts[pid, nodeid] = (when, cpu)
            else:
                began, before = starts.pop((pid, nodeid), (when, cpu))
                spans[pid].append((began, nodeid))
                own[nodeid] += cpu - before
                ends[pid] = max(ends.get(pid, when), when)
    for pid in spans:
        spans[pid].sort()
    # Pids are reused (pid_max is 32,768 here, and the suite starts more processes than that):
    # a process is a worker's child only if it began while that worker was running tests.
    lives = {pid: (tests[0][0] - 1.5, ends[pid] + 1.5) for pid, tests in spans.items()}

    def worker_of(row: dict) -> int | None:
        life = lives.get(row["ppid"])
        return row["ppid"] if life and life[0] <= row["began"] <= life[1] else None

    def is_worker(row: dict) -> bool:
        life = lives.get(row["pid"])
        return bool(life) and row["began"] <= life[0] + 1.5 \
            and row["began"] + row["life"] >= life[1] - 1.5

    rows_of = collections.defaultdict(list)
    for row in rows:
        rows_of[row["pid"]].append(row)
    by_test, kinds, apart = collections.Counter(own), collections.Counter(), collections.Counter()
    for row in rows:
        if is_worker(row):  # its CPU in its tests is theirs (``own``), the rest apart
            apart["(the workers outside their tests)"] += row["cpu"] - sum(
                own[nodeid] for _, nodeid in spans[row["pid"]])
            continue
        branch, hops = row, 0
        while branch and worker_of(branch) is None and hops < 40:
            branch, hops = _alive_at(rows_of, branch["ppid"], branch["began"]), hops + 1
        if branch is None or worker_of(branch) is None:
            apart[row["name"]] += row["cpu"]
            continue
        tests = spans[branch["ppid"]]
        at = bisect.bisect_right([began for began, _ in tests], branch["began"]) - 1
        by_test[tests[max(at, 0)][1]] += row["cpu"]
        line = next((c for t, c in reversed(commands.get(row["pid"], []))
                     if t <= row["began"] + row["life"] + 1.5), row["name"])
        kinds[_program(line) or row["name"]] += row["cpu"]
    kinds["(the workers themselves)"] = sum(own.values())
    by_unit = collections.Counter()
    for nodeid, cpu in by_test.items():
        by_unit[_unit(nodeid)] += cpu
    total = sum(by_test.values()) + sum(apart.values())
    print(f"CPU-s of every process the run started: {total:,.0f} "
          f"({sum(apart.values()):,.0f} of them in processes whose parent ended first)")
    for title, counts, many in (("By unit of work", by_unit, 30), ("By program", kinds, 15),
                                ("Apart, by name", apart, 8), ("By test", by_test, 25)):
        print(f"\n{title}:")
        for name, cpu in counts.most_common(many):
            print(f"{cpu:9.1f}  {name}")


def main(argv: list[str]) -> int:
    if os.geteuid() != 0 or not (shutil.which("accton") and shutil.which("dump-acct")):
        print("Needs root and process accounting: `apt-get install -y acct`, then run this as "
              "root.", file=sys.stderr)
        return 2
    logs = Path(tempfile.mkdtemp(prefix="packlab-suite-cpu-"))
    accounting = logs / "pacct"
    accounting.touch()
    commands: dict[int, list[tuple[float, str]]] = {}
    done = threading.Event()
    watcher = threading.Thread(target=_watch_commands, args=(commands, done), daemon=True)
    env = {**os.environ, LOG: str(logs), "CI": os.environ.get("CI", "true"),
           "PYTHONDONTWRITEBYTECODE": "",  # as the Makefile says
           "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                                       os.environ.get("PYTHONPATH")]))}
    subprocess.run(["accton", str(accounting)], check=True, capture_output=True)
    watcher.start()
    try:
        ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "suite_cpu", "-n", "3",
                              "--dist", "loadgroup", "--no-loadscope-reorder", "-q",
                              "-p", "no:cacheprovider", *argv], cwd=ROOT, env=env)
    finally:
        subprocess.run(["accton", "off"], capture_output=True)
        done.set()
        watcher.join()
    (logs / "commands.json").write_text(json.dumps(commands), encoding="utf-8")
    report(_accounted(accounting), logs, commands)
    print(f"\nThe records are kept in {logs} (`suite_cpu.py --report {logs}` reads them again).")
    return ran.returncode


def report_again(logs: Path) -> int:
    """The report of an earlier run, from the records it kept."""
    commands = json.loads((logs / "commands.json").read_text(encoding="utf-8")) \
        if (logs / "commands.json").is_file() else {}
    report(_accounted(logs / "pacct"), logs,
           {int(pid): [tuple(seen) for seen in lines] for pid, lines in commands.items()})
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--report"]:
        raise SystemExit(report_again(Path(sys.argv[2])))
    raise SystemExit(main(sys.argv[1:]))
