#!/usr/bin/env python3
"""Cold `brief index` builds of one project by several binaries, interleaved.

    python3 crates/brief-cli/benches/cold_index.py ROUNDS PROJECT LABEL=BINARY...

e.g. `... 5 /tmp/sg100k old=/tmp/brief-old new=target/release/brief`. Each round deletes the
project's `.brief/`, syncs, and times every binary once in turn, so slow minutes on a shared
machine hit all of them alike. Prints the median, minimum and maximum wall time and the
median user+system CPU of each binary.
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, project = int(sys.argv[1]), sys.argv[2]
    binaries = [arg.split("=", 1) for arg in sys.argv[3:]]
    wall = {label: [] for label, _ in binaries}
    cpu = {label: [] for label, _ in binaries}
    for _ in range(rounds):
        for label, binary in binaries:
            shutil.rmtree(os.path.join(project, ".brief"), ignore_errors=True)
            subprocess.run(["sync"], check=True)
            time.sleep(0.5)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(
                [binary, "index", "--root", project],
                stdout=subprocess.DEVNULL,
                check=True,
            )
            wall[label].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append(
                after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            )
    for label, times in wall.items():
        print(
            f"{label:12} median {statistics.median(times):.2f} s"
            f"  min {min(times):.2f}  max {max(times):.2f}"
            f"  cpu median {statistics.median(cpu[label]):.2f} s  ({len(times)} runs)"
        )


if __name__ == "__main__":
    main()
