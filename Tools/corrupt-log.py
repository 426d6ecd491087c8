#!/usr/bin/env python3
"""Corruption campaign: damage a real ledger's event and evidence segments at random (a flipped
byte, a zeroed range, a truncation) and require that `subledger verify` finds and locates it:
exit 3 with a problem naming the damaged file, except a truncation exactly at a frame boundary of
the last segment, which is indistinguishable from a shorter log (exit 0 then, fewer records).
Damage to the LMDB projection snapshot must be detected and rebuilt from the log: the ledger's
answers stay the same. Reading must never crash. Bounded, local files only.

Usage: corrupt-log.py SUBLEDGER_BINARY --runs N [--seed S]
"""
import json, os, random, shutil, subprocess, sys, tempfile

def main():
    binary, runs = sys.argv[1], int(sys.argv[sys.argv.index("--runs") + 1])
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="subledger-corrupt-")
    try:
        subprocess.run([binary, "simulate", "--customers", "120", "--months", "4", "--seed", "9", "--out", work + "/sim"], check=True, capture_output=True)
        pristine = work + "/pristine"
        subprocess.run([binary, "--data", pristine, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                        "--root", work + "/sim/root.cer"], check=True, capture_output=True)
        subprocess.run([binary, "--data", pristine, "ingest", work + "/sim/notifications.jsonl"], check=True, capture_output=True)
        clean = json.loads(subprocess.run([binary, "--data", pristine, "verify", "--json"], capture_output=True, text=True).stdout)
        assert clean["ok"], "the pristine ledger does not verify"
        clean_mrr = subprocess.run([binary, "--data", pristine, "report", "mrr", "--at", "2026-04-01", "--json"], capture_output=True, text=True).stdout
        passed = failed = 0
        kinds = {}
        for run in range(runs):
            data = work + "/run"
            shutil.rmtree(data, ignore_errors=True)
            shutil.copytree(pristine, data)
            if rng.random() < 0.25:
                current = open(f"{data}/projections/CURRENT").read().strip()
                snapshot = f"{data}/projections/{current}/data.mdb"
                with open(snapshot, "r+b") as f:
                    size = os.path.getsize(snapshot); offset = rng.randrange(size)
                    f.seek(offset); byte = f.read(1)[0]; f.seek(offset); f.write(bytes([byte ^ 0x40]))
                answer = subprocess.run([binary, "--data", data, "report", "mrr", "--at", "2026-04-01", "--json"], capture_output=True, text=True)
                if answer.returncode == 0 and answer.stdout == clean_mrr:
                    passed += 1; kinds["snapshot byte, rebuilt"] = kinds.get("snapshot byte, rebuilt", 0) + 1
                else:
                    failed += 1
                    print(f"corrupt-log: run {run + 1}: snapshot damage at {offset} changed the answer or failed (exit {answer.returncode}): {answer.stderr.strip()[:200]}", file=sys.stderr)
                continue
            log = rng.choice(["log", "evidence"])
            segment = sorted(f for f in os.listdir(f"{data}/{log}") if f.endswith(".seg"))[-1]
            path = f"{data}/{log}/{segment}"
            size = os.path.getsize(path)
            damage = rng.choice(["flip", "zero", "truncate"])
            with open(path, "r+b") as f:
                if damage == "flip":
                    offset = rng.randrange(size)
                    f.seek(offset); byte = f.read(1)[0]; f.seek(offset); f.write(bytes([byte ^ (1 << rng.randrange(8))]))
                elif damage == "zero":
                    offset = rng.randrange(size); length = rng.randint(1, 64)
                    f.seek(offset); f.write(b"\0" * min(length, size - offset))
                else:
                    offset = rng.randrange(56, size)
                    f.truncate(offset)
            result = subprocess.run([binary, "--data", data, "verify", "--json"], capture_output=True, text=True)
            if result.returncode not in (0, 3) or "Fatal error" in result.stderr:
                failed += 1
                print(f"corrupt-log: run {run + 1}: {damage} at {offset} in {log}/{segment}: verify crashed or failed (exit {result.returncode}): {result.stderr.strip()[:200]}", file=sys.stderr)
                continue
            report = json.loads(result.stdout)
            located = any(problem["file"].endswith(f"{log}/{segment}") for problem in report["problems"])
            if result.returncode == 3 and located:
                passed += 1; kinds[damage] = kinds.get(damage, 0) + 1
            elif result.returncode == 0 and damage == "truncate" and report["records"] < clean["records"]:
                passed += 1; kinds["truncate at a frame boundary"] = kinds.get("truncate at a frame boundary", 0) + 1
            elif result.returncode == 0 and damage == "zero" and report["records"] == clean["records"]:
                passed += 1; kinds["zeros over zeros"] = kinds.get("zeros over zeros", 0) + 1
            else:
                failed += 1
                print(f"corrupt-log: run {run + 1}: {damage} at {offset} in {log}/{segment} not detected: {report}", file=sys.stderr)
        print(f"corrupt-log: detected and located: {kinds}")
        print(f"corrupt-log: {passed} passed, {failed} failed")
        return 0 if failed == 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
