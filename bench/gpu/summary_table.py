#!/usr/bin/env python3
"""The figures of tensord-bench-gpu's JSON lines as one table: a row per figure, tensord's value
and each peer's (scripts/gpu-session prints it last). Usage: summary_table.py BENCH_GPU.jsonl"""
import json
import sys


def main(path):
    rows, peers, errors = {}, [], []
    for line in open(path):
        if not line.startswith("{"):
            continue
        j = json.loads(line)
        if "error" in j:
            errors.append(f"{j['bench']}: {j['error'][:90]}")
            continue
        row = rows.setdefault(j["bench"], {"tensord": j["value"], "unit": j["unit"]})
        if j["peer"] != "none":
            row[j["peer"]] = j["peer_value"]
            if j["peer"] not in peers:
                peers.append(j["peer"])
    print(f"{'FIGURE':26} {'UNIT':8} {'tensord':>10}" + "".join(f" {p:>16}" for p in peers))
    for name, row in rows.items():
        cells = "".join(f" {row[p]:>16.4g}" if p in row else f" {'-':>16}" for p in peers)
        print(f"{name:26} {row['unit']:8} {row['tensord']:>10.4g}{cells}")
    for e in errors:
        print("failed:", e)


if __name__ == "__main__":
    main(sys.argv[1])
