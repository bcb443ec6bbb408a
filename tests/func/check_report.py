#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check an rdx-perf JSON report: schema, monotone percentiles, the bytes
moved and op counts asked for, the exact bytes/s and its units, the
software-device label.

check_report.py REPORT SCHEMA [--ops-per-run N] [--runs N] [--sw]
Exit 0 when every check holds, 1 with one line per failure otherwise."""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("report")
ap.add_argument("schema")
ap.add_argument("--ops-per-run", type=int, default=0,
                help="measured ops the total row of each run must show")
ap.add_argument("--runs", type=int, default=0, help="expected number of total rows")
ap.add_argument("--sw", action="store_true", help="must be labelled software device")
a = ap.parse_args()
bad = []
rep = json.load(open(a.report))
try:
    import jsonschema
    jsonschema.validate(rep, json.load(open(a.schema)))
except ImportError:
    bad.append("python3-jsonschema is missing")
except jsonschema.ValidationError as e:
    bad.append("schema: %s at %s" % (e.message, list(e.absolute_path)))

knobs = rep.get("knobs", {})
for k in ("test", "mode", "sizes", "window", "post_list", "inline", "sig_every", "mem",
          "dev", "driver", "device_kind", "lcores", "tsc_hz"):
    if k not in knobs:
        bad.append("knob %s missing" % k)
if a.sw and knobs.get("device_kind") != "software device":
    bad.append("device_kind is %r, expected 'software device'" % knobs.get("device_kind"))
units = rep.get("units", {})
for k in ("bytes_per_s", "mbytes_per_s", "gbits_per_s", "mops", "lat"):
    if k not in units:
        bad.append("units.%s missing" % k)
totals = [r for r in rep["results"] if r["lcore"] == -1]
if a.runs and len(totals) != a.runs:
    bad.append("%d total rows, expected %d" % (len(totals), a.runs))
for r in rep["results"]:
    where = "%s size %d lcore %d" % (r["name"], r["size"], r["lcore"])
    if r["bytes"] != r["ops"] * r["size"]:
        bad.append("%s: bytes %d != ops %d x size %d" % (where, r["bytes"], r["ops"], r["size"]))
    # the exact rate, and the rounded units derived from it
    if r.get("seconds") and r["seconds"] > 0:
        exact = r["bytes"] / r["seconds"]
        if r.get("bytes_per_s") is None or abs(r["bytes_per_s"] - exact) > 1e-6 * max(exact, 1):
            bad.append("%s: bytes_per_s %s != bytes / seconds %.3f" % (where, r.get("bytes_per_s"), exact))
        elif abs(r["mbytes_per_s"] * 1e6 - exact) > 1e-6 * max(exact, 1):
            bad.append("%s: mbytes_per_s %s is not bytes_per_s / 10^6" % (where, r["mbytes_per_s"]))
    if r["has_lat"]:
        lat = r["lat"]
        seq = [lat[k] for k in ("min", "p50", "p90", "p99", "p999", "p9999", "max")]
        if any(v is None for v in seq) or any(x > y * 1.0000001 for x, y in zip(seq, seq[1:])):
            bad.append("%s: percentiles not monotone: %s" % (where, seq))
        if lat["count"] != r["ops"]:
            bad.append("%s: %d latencies for %d ops" % (where, lat["count"], r["ops"]))
    elif r["ops"] > 0:
        bad.append("%s: no latency for %d ops" % (where, r["ops"]))
for r in totals:
    if a.ops_per_run and r["ops"] != a.ops_per_run:
        bad.append("%s size %d: %d ops measured, %d asked" % (r["name"], r["size"], r["ops"],
                                                            a.ops_per_run))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
