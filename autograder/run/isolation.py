"""Where a student's code runs: a bubblewrap sandbox, whoever runs the grader.

Every worker process gets a sandbox of its own (`Plan.command`): new user, PID, mount, network,
IPC and UTS namespaces; uid 1000 inside; a filesystem of nothing but the interpreter and its
standard library and the system's shared libraries (read-only, every site-packages folder
hidden), an empty writable working folder and private, size-limited /tmp and /dev/shm; a seccomp
filter that refuses the calls making memory no process maps (`seccomp_program`). No copy of
the course, no class, no other sandbox and no other process can be seen from inside. The whole
PID namespace dies with the worker's bubblewrap, and bubblewrap dies with the grading process.
All its processes together are held to `Limits.footprint_bytes` (`autograder.run.footprint`).
A plain nbgrader assignment's kernel (`autograder.run.kernel`) alone is also shown the course
environment's packages, read-only (as under nbgrader its tests may import numpy): its
site-packages folder, not the course's own folder, with editable installs' finders blanked.

As an ordinary user bubblewrap runs as that user. As root it runs as a user of its own
(`FIRST_UID` + the grading process's pid), so limits on processes hold and nothing it does is
root's; the interpreter's folder is shown to it through a private mount namespace, since it may
live where that user cannot read (pyenv under /root).

With no working bubblewrap, grading refuses (`require_sandbox` names the fix). Grading without
one happens only when asked (`sandboxed=False`): the worker then runs as a plain process with the
same resource limits, and every output says so.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.run import footprint
from packlab.manifest import ROOT

GONE_SECONDS = 10.0  # the most a killed sandbox may take to be gone (freeing its memory)

CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 1 << 18
MS_NOSUID, MS_NODEV = 2, 4
PR_SET_PDEATHSIG = 1
FIRST_UID = 200_000  # as root, bubblewrap runs as FIRST_UID + the grading process's pid
SANDBOX_UID = 1000  # the student's uid inside the sandbox
WORK = "/work"  # the sandbox's working folder (a private tmpfs)
STAGE = "/tmp/packlab-python"  # as root: where the interpreter's folder is shown to bubblewrap
STAGED_PACKAGES = "/tmp/packlab-packages-"  # as root: where package folder N is shown to it
INSTALL_HINT = ("Install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`) and allow "
                "user namespaces (Ubuntu 24.04: `sudo sysctl "
                "kernel.apparmor_restrict_unprivileged_userns=0`); or, knowing that student code "
                "will then run with your rights, pass --no-sandbox.")


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot build a sandbox here; the message says why and what to do."""


@dataclass(frozen=True)
class Limits:
    """What one submission's code may use. Shown, with defaults, in `packlab grade --help`."""

    call_seconds: float = 2.0
    call_cpu_seconds: float = 0.25
    setup_seconds: float = 20.0
    submission_seconds: float = 120.0
    cpu_seconds: int = 30
    memory_bytes: int = 1 << 30
    processes: int = 64
    file_bytes: int = 16 << 20
    open_files: int = 64
    scratch_bytes: int = 64 << 20
    footprint_bytes: int = 1 << 30  # all its processes together (`autograder.run.footprint`)
    restarts: int = 3


@dataclass(frozen=True)
class Plan:
    """How to start one worker: the command (the worker's own arguments follow) and who runs it."""

    command: tuple[str, ...]
    sandboxed: bool
    grader: int  # the grading process that starts the workers (its pid)
    uid: int | None = None  # as root: the user bubblewrap runs as
    prefix: str | None = None  # as root: the interpreter's folder, staged at STAGE
    packages: tuple[str, ...] = ()  # as root: package folders, staged at STAGED_PACKAGES + N

    def argv(self, seccomp_fd: int | None) -> list[str]:
        """The command, bubblewrap told to read its seccomp filter from ``seccomp_fd`` (an fd
        passed to it, holding `seccomp_program`)."""
        if not self.sandboxed:
            return list(self.command)
        return [self.command[0], "--seccomp", str(seccomp_fd), *self.command[1:]]

    def preexec(self) -> None:
        """Runs in the child between fork and exec of bubblewrap (or the bare worker)."""
        if self.uid is not None:
            _stage_interpreter(self.prefix, self.packages)
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)
        die_with(self.grader)  # after setuid, which clears it


def die_with(parent: int) -> None:
    """Have the kernel SIGKILL this process when ``parent``, which started it, ends (even when
    it is killed outright); end now if it has ended already (its pid was taken before the fork,
    so a parent that died during it is seen).

    The kernel's signal follows the *thread* that forked this process: start it from a thread
    that lives as long as the parent does (the main thread, or the one that waits for it)."""
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None):
    result = _libc().mount(source and source.encode(), target.encode(), kind and kind.encode(),
                           flags, data and data.encode())
    if result != 0:
        raise OSError(ctypes.get_errno(), f"mount {source} on {target}")


def _stage_interpreter(prefix: str, packages: tuple[str, ...] = ()) -> None:
    """In a private mount namespace, show the interpreter's folder at STAGE and each package
    folder at STAGED_PACKAGES + N (root only). The folders are opened before the private /tmp
    hides them: a course environment may itself live under /tmp."""
    if _libc().unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    opened = [os.open(folder, os.O_PATH | os.O_DIRECTORY) for folder in (prefix, *packages)]
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k")
    for fd, target in zip(opened, (STAGE, *(f"{STAGED_PACKAGES}{n}" for n in range(len(packages)))),
                          strict=True):
        os.mkdir(target, 0o755)
        _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC, None)
        os.close(fd)


# --- what the sandbox may not do: its seccomp filter ------------------------------------------

# Calls that would make memory no process maps and no folder holds, which only a cgroup could
# count: memfd_create, memfd_secret and shmget (System V shared memory). Refused with EPERM.
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
REFUSED_CALLS = {"x86_64": (319, 447, 29), "aarch64": (279, 447, 194)}
X32_CALLS = 0x40000000  # x86_64's x32 numbering: refused altogether
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, EPERM = 0x7FFF0000, 0x00050000, 1


@cache
def seccomp_program() -> bytes:
    """The sandbox's seccomp filter as a classic BPF program (what `bwrap --seccomp` reads): the
    calls of `REFUSED_CALLS` fail with EPERM, and so does every call of another architecture."""
    machine = os.uname().machine
    if machine not in AUDIT_ARCH:
        raise SandboxUnavailable(f"no seccomp filter is written for {machine} machines")
    calls = REFUSED_CALLS[machine]
    count = len(calls)
    code = [(BPF_LD_W_ABS, 0, 0, 4),  # the architecture
            (BPF_JEQ_K, 0, 3 + count, AUDIT_ARCH[machine]),  # another one: refuse
            (BPF_LD_W_ABS, 0, 0, 0),  # the call's number
            (BPF_JGE_K, count + 1, 0, X32_CALLS)]
    code += [(BPF_JEQ_K, count - i, 0, number) for i, number in enumerate(calls)]
    code += [(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW), (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in code)


@contextlib.contextmanager
def seccomp_pipe(plan: Plan) -> Iterator[int | None]:
    """A pipe's reading end holding the filter, for bubblewrap (None without a sandbox)."""
    if not plan.sandboxed:
        yield None
        return
    read, write = os.pipe()
    try:
        os.write(write, seccomp_program())  # a few hundred bytes: the pipe holds them
        os.close(write)
        write = None
        yield read
    finally:
        os.close(read)
        if write is not None:
            os.close(write)


# --- what the sandbox holds -------------------------------------------------------------------

@dataclass(frozen=True)
class Interpreter:
    """The real interpreter binary and the folder it and its standard library live in."""

    binary: Path
    prefix: Path
    libraries: Path  # <prefix>/lib: the standard library (and libpython, where there is one)


def interpreter() -> Interpreter:
    """This Python's own installation (not a virtual environment, which holds the course)."""
    prefix = Path(sys.base_prefix).resolve()
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    binary = prefix / "bin" / version
    if not binary.is_file():
        binary = Path(sys.executable).resolve()
    return Interpreter(binary, prefix, prefix / "lib")


def host_paths(folder: str | None = None) -> list[str]:
    """This machine's paths that a worker's output may show (the interpreter's folder, the
    staging folder, a bare worker's working ``folder``): none may reach a student."""
    paths = {str(interpreter().prefix), sys.base_prefix, STAGE, *([folder] if folder else [])}
    return sorted(paths - {"/", "/usr", "/usr/local"}, key=len, reverse=True)


def _package_folders(lib: Path) -> list[Path]:
    """Every folder of installed packages under a lib folder: hidden, the course may be there."""
    patterns = ("python3*/site-packages", "python3*/dist-packages", "python3/dist-packages")
    return sorted({p for pattern in patterns for p in lib.glob(pattern) if p.is_dir()})


def _system_binds() -> list[str]:
    """The system's shared libraries, laid out as on the host (merged /usr or not)."""
    args = []
    for folder in ("/usr/lib", "/usr/lib64", "/usr/lib32"):
        if Path(folder).is_dir():
            args += ["--ro-bind", folder, folder]
    for top in ("/lib", "/lib64", "/lib32"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    return args


def _hidden_below(folders: list[Path], hidden: list[Path]) -> list[Path]:
    return [h for h in hidden if any(h != f and h.is_relative_to(f) for f in folders)]


def bwrap_command(limits: Limits, python: Interpreter, source_prefix: Path,
                  packages: tuple[Path, ...] = ()) -> list[str]:
    """The bubblewrap command line for one worker (``source_prefix``: where bwrap finds
    ``python.prefix``, which differs when root stages it; ``packages``: folders of the course
    environment's packages shown read-only, for a plain assignment's kernel)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    size = str(limits.scratch_bytes)
    staged = source_prefix != python.prefix

    def source(path: Path) -> str:
        return str(source_prefix / path.relative_to(python.prefix)) if staged else str(path)

    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--hostname", "sandbox", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
            "--setenv", "HOME", WORK, "--setenv", "PYTHONHASHSEED", "0",
            "--setenv", "LANG", "C.UTF-8"]
    args += _system_binds()
    lib_folders = [Path(p) for p in ("/usr/lib", "/usr/lib64", "/usr/lib32") if Path(p).is_dir()]
    if not any(python.libraries.is_relative_to(f) for f in lib_folders):
        args += ["--ro-bind", source(python.libraries), str(python.libraries)]
        lib_folders.append(python.libraries)
    if not python.binary.is_relative_to(python.prefix):
        raise SandboxUnavailable(f"the interpreter {python.binary} is not inside its own "
                                 f"installation {python.prefix}")
    args += ["--ro-bind", source(python.binary), str(python.binary)]
    hide = [p for f in lib_folders for p in _package_folders(f)]
    hide += _hidden_below(lib_folders, [ROOT])  # in case the course lives in a library folder
    for folder in hide:
        args += ["--tmpfs", str(folder)]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm",
             "--size", size, "--tmpfs", WORK, "--chdir", WORK]
    args += _package_binds(packages, staged)
    return [*args, "--remount-ro", "/", str(python.binary)]


def _package_binds(packages: tuple[Path, ...], staged: bool) -> list[str]:
    """The course environment's packages, read-only and on the path; its editable installs'
    finders (which name this machine's folders) blanked. ``staged``: as root, bubblewrap finds
    folder N at STAGED_PACKAGES + N (`_stage_interpreter`)."""
    args = []
    for n, folder in enumerate(packages):
        args += ["--ro-bind", f"{STAGED_PACKAGES}{n}" if staged else str(folder), str(folder)]
        for finder in sorted(folder.glob("__editable__*")):
            args += ["--ro-bind", "/dev/null", str(finder)]
    if packages:
        args += ["--setenv", "PYTHONPATH", os.pathsep.join(map(str, packages))]
    return args


def plan(sandboxed: bool = True, limits: Limits | None = None,
         packages: tuple[Path, ...] = ()) -> Plan:
    """How this process starts its workers (a forked grading process works out its own);
    ``packages``: see `bwrap_command`."""
    return _plan_for(os.getpid(), sandboxed, limits or Limits(), packages)


@cache
def _plan_for(pid: int, sandboxed: bool, limits: Limits, packages: tuple[Path, ...]) -> Plan:
    python = interpreter()
    if not sandboxed:
        return Plan((str(python.binary),), sandboxed=False, grader=pid)
    if os.geteuid() != 0:
        return Plan(tuple(bwrap_command(limits, python, python.prefix, packages)),
                    sandboxed=True, grader=pid)
    return Plan(tuple(bwrap_command(limits, python, Path(STAGE), packages)), sandboxed=True,
                grader=pid, uid=FIRST_UID + pid, prefix=str(python.prefix),
                packages=tuple(map(str, packages)))


def environment_packages() -> tuple[Path, ...]:
    """The course environment's package folders: its site-packages, and wherever this
    process found nbgrader and ipykernel (a grader started with the course's folder added to
    another Python's path, as tests/as_user.py does)."""
    import ipykernel
    import nbgrader

    paths = sysconfig.get_paths()
    found = {Path(paths["purelib"]), Path(paths["platlib"]),
             *(Path(module.__file__).resolve().parent.parent for module in (nbgrader, ipykernel))}
    return tuple(sorted(p for p in found if p.is_dir()))


PYTHON_FLAGS = ("-I", "-S", "-u")  # no environment, no site-packages, unbuffered output


def require_sandbox() -> None:
    """Fail closed: raise `SandboxUnavailable`, naming the fix, unless a sandbox works here."""
    problem = sandbox_problem()
    if problem:
        raise SandboxUnavailable(f"Cannot grade safely: {problem}. {INSTALL_HINT}")


@cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot build a sandbox here (None: it can), tried once per process."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (`bwrap`) is not installed"
    try:
        chosen = plan()
        with seccomp_pipe(chosen) as fd:
            done = subprocess.run([*chosen.argv(fd), *PYTHON_FLAGS, "-c", "print('ok')"],
                                  capture_output=True, timeout=30, preexec_fn=chosen.preexec,
                                  stdin=subprocess.DEVNULL, pass_fds=(fd,))
    except (OSError, subprocess.SubprocessError, SandboxUnavailable) as exc:
        return f"bubblewrap could not be started ({exc})"
    if done.returncode != 0 or done.stdout.strip() != b"ok":
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()[:300]
        return f"bubblewrap could not build a sandbox here ({said or done.returncode})"
    return footprint.problem()


def sandbox_works() -> bool:
    """Whether `require_sandbox` would pass (for `packlab check`, which may go without)."""
    return sandbox_problem() is None


def kill(process: subprocess.Popen, sandboxed: bool, first: int | None = None) -> None:
    """End a worker: its bubblewrap, and with it the sandbox's whole PID namespace, and return
    once every process of the sandbox is gone (``sandboxed``; a bare worker's own are ended).
    The sandbox's PID 1 is killed outright: bubblewrap's end takes it along only through its
    parent-death signal, and a CI run found one still running after the next sandbox had
    come and gone. The kernel ends every other process of a PID namespace before its PID 1,
    while bubblewrap may end first: waiting for PID 1 is waiting for the whole sandbox.
    ``first``: a pidfd of that PID 1 (`footprint.init_of`), taken before bubblewrap was reaped;
    it is closed here."""
    if first is None and sandboxed:
        first = footprint.init_of(process)
    if first is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            signal.pidfd_send_signal(first, signal.SIGKILL)  # the kernel ends the rest with it
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # the bare worker and what it forked, too
    process.wait()
    if first is not None:
        try:
            select.select([first], [], [], GONE_SECONDS)
        finally:
            os.close(first)


def scratch_folder() -> str:
    """A working folder for a worker without a sandbox (with one, it is a tmpfs inside)."""
    return tempfile.mkdtemp(prefix="packlab-worker-")
