"""Whole-process timings on a generated Spec Kit repository (see BENCHMARKS.md, "Spec Kit at
50 features"): a cold index, warm task contexts and a file target, interleaved, wall time and
CPU (user + system) of each run.

    target/release/brief-corpus --kind speckit --nodes 2500 --out /tmp/speckit50
    python3 crates/brief-cli/benches/speckit.py 20 [BRIEF] [ROOT]
"""
import os, resource, shutil, subprocess, sys, time, statistics
B = sys.argv[2] if len(sys.argv) > 2 else "target/release/brief"
ROOT = sys.argv[3] if len(sys.argv) > 3 else "/tmp/speckit50"
def run(args, prepare=None):
    if prepare: prepare()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([B] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (t1 - t0) * 1000, ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)) * 1000
def cold():
    shutil.rmtree(os.path.join(ROOT, ".brief"), ignore_errors=True)
cases = {
    "index cold": (["index", "--root", ROOT], cold),
    "context 025-identity-24/T014 (id)": (["context", "025-ledger-24/T014", "--root", ROOT, "--budget", "2000"], None),
    "context 001-payments-0/T037 (id)": (["context", "001-payments-0/T037", "--root", ROOT, "--budget", "8000"], None),
    "context src/identity24/part3.ts (file)": (["context", "src/ledger24/part3.ts", "--root", ROOT, "--budget", "2000"], None),
}
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
res = {k: [] for k in cases}
subprocess.run([B, "index", "--root", ROOT], stdout=subprocess.DEVNULL, check=True)
for i in range(runs):
    for name, (args, prep) in cases.items():
        if name == "index cold" and i >= 6:
            continue
        res[name].append(run(args, prep))
    subprocess.run([B, "index", "--root", ROOT], stdout=subprocess.DEVNULL, check=True)
for name, xs in res.items():
    wall = [w for w, _ in xs]; cpu = [c for _, c in xs]
    print(f"| {name} | {statistics.mean(wall):.1f} ms ± {statistics.pstdev(wall):.1f} (min {min(wall):.1f}) | {statistics.mean(cpu):.1f} ms | {len(xs)} |")
