#!/usr/bin/env python3
"""Probe harness for `openapi-mcp serve` (issue #39 classes, #38 results).

usage: python3 probe.py BIN [GROUP ...]    groups: creds creds2 leakmeta bend more rpc bounded risky results stalls memory extra
"""
import os, sys, time, traceback
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib

GROUPS = ["creds", "creds2", "leakmeta", "bend", "more", "rpc", "bounded", "risky", "results", "stalls", "memory", "extra"]


def main():
    if len(sys.argv) < 2:
        print(__doc__); sys.exit(2)
    lib.setup(sys.argv[1])
    want = sys.argv[2:] or GROUPS
    t0 = time.time()
    try:
        for g in want:
            mod = __import__("t_" + g)
            t = time.time()
            try:
                mod.run()
            except Exception:
                lib.check(f"{g}-harness", f"group {g} ran to the end", False, traceback.format_exc()[-1500:])
            lib.info(f"group {g} took {time.time() - t:.1f}s")
    finally:
        lib.cleanup()
    held = sum(1 for _, ok in lib.RESULTS if ok)
    print(f"{held} of {len(lib.RESULTS)} hold  ({time.time() - t0:.0f}s)")
    sys.exit(0 if held == len(lib.RESULTS) else 1)


if __name__ == "__main__":
    main()
