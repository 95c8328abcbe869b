#!/usr/bin/env python3
"""What a word target costs right after a write, and once more, for several builds.

    python3 after_write.py ROUNDS 'TARGET' NODE-FILE LABEL=BINARY:ROOT [LABEL=BINARY:ROOT ...]

NODE-FILE is a Spec Graph node file relative to each ROOT (the same file in every copy). Each
round edits that file in every copy (its title gains the round's number), runs `BINARY index
--root ROOT`, then `context TARGET --root ROOT --depth 2 --budget 8000` twice, and prints the
wall clock of both runs per build in milliseconds: the first pays for what a write left to be
read again, the second is the steady state.
"""

import json
import subprocess
import sys
import time


def edit(path: str, round_: int) -> None:
    with open(path, encoding="utf-8") as f:
        node = json.load(f)
    node["title"] = node.get("title", "").rstrip(" 0123456789") + f" {round_}"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(node, f, indent=2)


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds, target, node_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    builds = [spec.split("=", 1) for spec in sys.argv[4:]]
    for round_ in range(1, rounds + 1):
        for label, spec in builds:
            binary, root = spec.split(":", 1)
            edit(f"{root}/{node_file}", round_)
            subprocess.run([binary, "index", "--root", root], check=True, stdout=subprocess.DEVNULL)
            context = [binary, "context", target, "--root", root, "--depth", "2", "--budget", "8000"]
            first, second = timed(context), timed(context)
            print(f"round {round_} {label}: after the write {first:.1f} ms, then {second:.1f} ms")


if __name__ == "__main__":
    main()
