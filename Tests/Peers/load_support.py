"""Shared by the load drivers (load_peer.py): a long-running omni server process, and sampling of its resident
memory (/proc/PID/status VmRSS) and open file descriptors (/proc/PID/fd) while load runs.

Nothing here judges figures; the drivers report them and the tests (or bench_load.py) decide."""
import atexit
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time


def omni_environment(home: str) -> dict:
    """What the end-to-end tests give omni: no developer config, colour or output preferences."""
    return {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"}


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def fd_targets(pid: int) -> list:
    """What each open descriptor is (socket:[inode], pipe:[inode], a path, anon_inode:[eventpoll]…), sorted."""
    targets = []
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{name}"))
        except OSError:
            pass  # closed meanwhile
    return sorted(targets)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def socket_count(pid: int) -> int:
    return sum(1 for target in fd_targets(pid) if target.startswith("socket:"))


def wait_for_sockets(pid: int, expected: int, timeout: float = 10.0) -> int:
    """The process's socket count once it is `expected` (a server closes a finished connection's socket a moment
    after the client saw it end), or whatever it is when `timeout` passes."""
    deadline = time.monotonic() + timeout
    count = socket_count(pid)
    while count != expected and time.monotonic() < deadline:
        time.sleep(0.05)
        count = socket_count(pid)
    return count


# libdispatch's manager thread creates its timer descriptor (one per clock, once) a moment after the first use of a
# global queue; on a loaded machine that moment came after the start count was taken, and the descriptor read as
# new at the end. It is waited for, so only descriptors the load itself leaves behind count.
DISPATCH_TIMER_FD = "anon_inode:[timerfd]"


def wait_for_runtime_fds(pid: int, timeout: float = 5.0) -> bool:
    """True once the process holds libdispatch's timer descriptor; False when `timeout` passes without it (a
    runtime that creates none)."""
    deadline = time.monotonic() + timeout
    while DISPATCH_TIMER_FD not in fd_targets(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


class Sampler:
    """Samples a process's RSS every `interval` seconds on a thread of its own, from start() to stop().

    `mark_warm()` says the load's first round is over. The warm-up lasts until then, and at least the first
    `WARMUP_FRACTION` of the run: a single sample at the first round's end sat below the plateau the load settles
    on in every run (1–3 MiB under it), so it measured the climb to the working set, not growth. The reference is the
    highest RSS of the warm-up — the working set the load needed — and growth is the highest RSS after it against
    that. A leak or a growing cache makes new highs late in the run; a steady server does not."""

    WARMUP_FRACTION = 0.2

    def __init__(self, pid: int, interval: float = 0.2):
        self.pid, self.interval = pid, interval
        self.samples = []  # (seconds since start, rss bytes)
        self.warm_index = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = time.monotonic()
        self.fds_start = fd_count(pid)
        self.fd_targets_start = fd_targets(pid)
        self.rss_start = rss_bytes(pid)
        self.cpu_start = cpu_seconds(pid)

    def start(self):
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> int:
        value = rss_bytes(self.pid)
        self.samples.append((time.monotonic() - self._started, value))
        return value

    def mark_warm(self):
        self.sample()
        self.warm_index = len(self.samples) - 1

    def stop(self):
        self._stop.set()
        self._thread.join()
        self.sample()
        self.cpu_used = cpu_seconds(self.pid) - self.cpu_start

    def warmup_end(self) -> int:
        """Index of the last warm-up sample: the first round's end or WARMUP_FRACTION of the run, whichever is later
        (never the last sample, so something is measured after it)."""
        mark = self.warm_index or 0
        elapsed = self.samples[-1][0] - self.samples[0][0]
        by_time = next((index for index, (at, _) in enumerate(self.samples)
                        if at - self.samples[0][0] >= self.WARMUP_FRACTION * elapsed), 0)
        return min(max(mark, by_time), len(self.samples) - 2) if len(self.samples) > 1 else 0

    def summary(self) -> dict:
        end = self.warmup_end()
        warm = max(value for _, value in self.samples[:end + 1])
        after = [value for _, value in self.samples[end + 1:]] or [self.samples[-1][1]]
        at_mark = self.samples[self.warm_index][1] if self.warm_index is not None else self.samples[0][1]
        return {"rss_start": self.rss_start, "rss_warm": warm, "rss_at_first_round": at_mark,
                "warmup_seconds": round(self.samples[end][0] - self.samples[0][0], 1), "rss_end": self.samples[-1][1],
                "rss_peak_after_warmup": max(after), "rss_growth_after_warmup": max(after) / warm - 1,
                "rss_end_vs_warm": self.samples[-1][1] / warm - 1,
                "server_cpu_seconds": getattr(self, "cpu_used", None), "rss_samples": len(self.samples), "rss_trace_mib": self.trace(), "fds_start": self.fds_start}

    def trace(self, points: int = 12) -> list:
        """About `points` evenly spaced samples, in MiB: enough to see a plateau or a climb."""
        step = max(1, -(-len(self.samples) // points))
        return [round(value / (1 << 20), 1) for _, value in self.samples[::step]]

    def wait_for_fds(self, expected: int, timeout: float = 10.0) -> int:
        """The fd count once it is back to `expected` (sockets the server closes asynchronously after the
        clients left), or whatever it is when `timeout` passes."""
        deadline = time.monotonic() + timeout
        count = fd_count(self.pid)
        while count != expected and time.monotonic() < deadline:
            time.sleep(0.05)
            count = fd_count(self.pid)
        return count

    def new_fds(self) -> list:
        """Descriptors open now that were not at the start (by kind: sockets and pipes get new inodes)."""
        remaining = list(self.fd_targets_start)
        extra = []
        for target in fd_targets(self.pid):
            kind = target.split(":[")[0]
            match = next((each for each in remaining if each == target or each.split(":[")[0] == kind), None)
            if match is None:
                extra.append(target)
            else:
                remaining.remove(match)
        return extra


class Server:
    """An omni server (relay, bridge) started with `--output jsonl`: its first stdout line is the ready event; the
    later lines are kept (a full pipe would stall it) for the driver to count errors in."""

    def __init__(self, omni: str, arguments: list):
        self.home = tempfile.mkdtemp(prefix="omni-load-home-")
        self.process = subprocess.Popen([omni, *arguments], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env=omni_environment(self.home))
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"omni {' '.join(arguments[:2])} did not start: {self.process.stderr.read()}")
        self.ready = json.loads(line)
        # A driver that fails half-way must not leave the server running.
        atexit.register(self._kill_if_running)
        self.events = []
        self.stderr = []
        self._readers = [threading.Thread(target=self._read_events, daemon=True),
                         threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_events(self):
        for line in self.process.stdout:
            try:
                self.events.append(json.loads(line))
            except json.JSONDecodeError:
                self.events.append({"unparsed": line})

    def _kill_if_running(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.home, ignore_errors=True)

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self, timeout: float = 30) -> int:
        """SIGINT (a clean shutdown), then the exit status."""
        self.process.send_signal(signal.SIGINT)
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        for reader in self._readers:
            reader.join(5)
        shutil.rmtree(self.home, ignore_errors=True)
        return status
