"""How long a key press waits for the kernel's threads while a picture is drawn ahead (a script).

A press crosses three of the kernel's threads before its picture leaves (the shell channel's,
the main one, IOPub's), and each must take the GIL from the painter thread drawing the next
frames ahead (`packlab.views.widgets.Frames`). This script passes a small message through
three threads like that, every 13 ms, while lesson 10's `turn_view` draws frame after frame
in another thread as the painter does (`widgets._yielding`), and times each trip: with nothing
drawn, with Python's default switch interval while drawing (5 ms, the code before), and with
the interval the painter sets (`widgets.PAINTING_SWITCH_S`). The two drawing cases alternate,
round after round, so the machine's load falls on both alike; the load average is printed.

Run: .venv/bin/python benchmarks/press_while_painting.py [--rounds N] [--trips N]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import threading
import time

from packlab.views import widgets
from packlab.views.conversation import turn_view

DEFAULT_SWITCH_S = 0.005  # Python's own switch interval
GAP_S = 0.013


def hop(inbox: socket.socket, outbox: socket.socket, trips: int) -> None:
    """Receive each message and pass it on, after a little Python work, as a handler does."""
    for _ in range(trips):
        message = inbox.recv(32)
        sum(range(2000))
        outbox.sendall(message)


def trips_ms(trips: int) -> list[float]:
    """ms from sending each of ``trips`` messages to receiving it three threads later."""
    pairs = [socket.socketpair() for _ in range(3)]
    for (inbox, _), (_, outbox) in zip(pairs, pairs[1:], strict=False):
        threading.Thread(target=hop, args=(inbox, outbox, trips), daemon=True).start()
    first, last = pairs[0][1], pairs[-1][0]
    times = []
    for _ in range(trips):
        time.sleep(GAP_S)
        first.sendall(str(time.perf_counter()).encode().ljust(32))
        sent = float(last.recv(32))
        times.append((time.perf_counter() - sent) * 1000)
    for pair in pairs:
        for end in pair:
            end.close()
    return times


def while_drawing(view, switch_s: float | None, trips: int) -> list[float]:
    """Trips while ``view``'s frames are drawn one after another in a background thread (with
    ``switch_s`` as the painter's interval), or with nothing drawn (None)."""
    if switch_s is None:
        return trips_ms(trips)
    stop = threading.Event()

    def paint() -> None:
        budget = 0
        while not stop.is_set():
            widgets._yielding(view.frames._draw, view.frames._state(200 + budget % 700))
            budget += 7

    widgets.PAINTING_SWITCH_S = switch_s
    painter = threading.Thread(target=paint)
    painter.start()
    try:
        return trips_ms(trips)
    finally:
        stop.set()
        painter.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--trips", type=int, default=50, help="messages per case and round")
    args = parser.parse_args()
    painting = widgets.PAINTING_SWITCH_S
    cases = {"nothing drawn": None, f"drawing, {DEFAULT_SWITCH_S * 1000:g} ms": DEFAULT_SWITCH_S,
             f"drawing, {painting * 1000:g} ms": painting}
    view = turn_view(budget=400)
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for round_ in range(args.rounds):
        order = list(cases) if round_ % 2 == 0 else list(reversed(cases))
        for name in order:
            times[name] += while_drawing(view, cases[name], args.trips)
    widgets.PAINTING_SWITCH_S = painting
    print(f"{'a trip through three threads':<28} {'median':>7} {'p95':>7} {'max':>7}")
    for name, values in times.items():
        ordered = sorted(values)
        p95 = ordered[round(0.95 * (len(ordered) - 1))]
        print(f"{name:<28} {statistics.median(values):>7.2f} {p95:>7.2f} {ordered[-1]:>7.2f}")
    print("(ms; load average before " + ", ".join(f"{x:.2f}" for x in load_before)
          + ", after " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + ")")


if __name__ == "__main__":
    main()
