#!/usr/bin/env python3
"""Whole-process `brief context` timings of several builds, interleaved run by run.

    TARGETS='F1500|the export job signs personal data' \
      python3 context_interleaved.py ROUNDS LABEL=BINARY:ROOT [LABEL=BINARY:ROOT ...]

Each round runs every target once with every build, in the same order, so a busy moment of
the machine falls on all of them alike. Each run is `context TARGET --root ROOT --depth 2
--budget 8000`; a run that fails stops the script. Prints the median, minimum and maximum
per build and target, in milliseconds. The figures include this script's own start of each
process (about 2 ms here); `hyperfine -N` has none.

With WATCH=1 each build first starts `BINARY watch --root ROOT` (give each build its own
root) and stops it at the end, so no request checks every file's stamp.
"""

import os
import signal
import statistics
import subprocess
import sys
import time


def start_watchers(builds):
    """One `brief watch` per build, each told to its root; waits until each says it watches."""
    watchers = []
    for _, spec in builds:
        binary, root = spec.split(":", 1)
        watcher = subprocess.Popen([binary, "watch", "--root", root],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = watcher.stderr.readline()
        if "watching" not in line:
            watcher.kill()
            sys.exit(f"{binary} watch --root {root} did not start: {line.strip()!r}")
        watchers.append(watcher)
    return watchers


def main() -> None:
    rounds = int(sys.argv[1])
    builds = [arg.split("=", 1) for arg in sys.argv[2:]]
    targets = os.environ["TARGETS"].split("|")
    watchers = start_watchers(builds) if os.environ.get("WATCH") == "1" else []
    times = {(label, target): [] for label, _ in builds for target in targets}
    try:
        for _ in range(rounds):
            for target in targets:
                for label, spec in builds:
                    binary, root = spec.split(":", 1)
                    args = [binary, "context", target, "--root", root,
                            "--depth", "2", "--budget", "8000"]
                    start = time.perf_counter()
                    done = subprocess.run(args, capture_output=True)
                    elapsed = (time.perf_counter() - start) * 1000
                    if done.returncode != 0:
                        sys.exit(f"{label} failed on {target!r}: {done.stderr[:300]!r}")
                    times[(label, target)].append(elapsed)
    finally:
        for watcher in watchers:
            watcher.send_signal(signal.SIGINT)
            try:
                watcher.wait(timeout=10)
            except subprocess.TimeoutExpired:
                watcher.kill()
    for (label, target), runs in times.items():
        print(f"{target!r} {label}: median {statistics.median(runs):.1f} ms, "
              f"min {min(runs):.1f}, max {max(runs):.1f} ({len(runs)} runs)")


if __name__ == "__main__":
    main()
