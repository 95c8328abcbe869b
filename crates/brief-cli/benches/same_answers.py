#!/usr/bin/env python3
"""Whether two builds give the same answer to generated targets in words.

    python3 same_answers.py OLD NEW SEED COUNT ROOT [ROOT ...] [-- CONTEXT-ARGS ...]

For each ROOT, COUNT targets of 2 to 7 words are drawn (with the random SEED) from the words
of up to 400 of its Markdown and JSON files, then `context TARGET --root ROOT --format json`
(plus CONTEXT-ARGS, e.g. `--budget 2000` or `--depth 2 --budget 8000`) is run with both builds.
Prints each target whose output or exit status differs, then a count per root; exits 1 when
any differs. A speed change that must not change what a context holds is checked this way.
"""

import os
import random
import re
import subprocess
import sys


def targets(root: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".brief")
        files.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith((".md", ".json")))
    rng.shuffle(files)
    words: list[str] = []
    for path in files[:400]:
        with open(path, encoding="utf-8", errors="ignore") as f:
            words += re.findall(r"[a-z]{3,}", f.read(20000).lower())
    if not words:
        sys.exit(f"{root}: no words to draw targets from")
    return [" ".join(rng.choice(words) for _ in range(rng.randint(2, 7))) for _ in range(count)]


def answer(binary: str, target: str, root: str, extra: list[str]) -> tuple[int, str]:
    run = subprocess.run([binary, "context", target, "--root", root, "--format", "json", *extra],
                         capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def main() -> None:
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    if len(args) < 5:
        sys.exit(__doc__)
    old, new, seed, count, roots = args[0], args[1], int(args[2]), int(args[3]), args[4:]
    differ = 0
    for root in roots:
        same = 0
        for target in targets(root, count, seed):
            if answer(old, target, root, extra) == answer(new, target, root, extra):
                same += 1
            else:
                differ += 1
                print(f"differs: {root}: {target!r}")
        print(f"{root}: {same} of {count} the same")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
