# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot's inputs: rdx-perf JSON reports, rdx-perf -o logs (read by
rdx-flows, the one parser of the format: rdx-flows --parse-only --json) and
rdx-flows --json files (windows: the flows figure)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from .base import (BadInput, PCTS, U32, U64, WRLOG_MAGIC, Source, device_label, int_in, is_int,
                   num, short)


def load_report(path, doc):
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise BadInput("%s: not an rdx report (no \"results\" array)" % path)
    knobs = doc.get("knobs") if isinstance(doc.get("knobs"), dict) else {}
    for k in ("dev", "device", "device_kind", "driver", "label"):
        if knobs.get(k) is not None and not isinstance(knobs[k], str):
            raise BadInput("%s: knobs.%s: not a string" % (path, k))
    src = Source(path, "report")
    src.knobs = knobs
    src.device = device_label(knobs)
    if isinstance(knobs.get("label"), str) and knobs["label"]:
        src.label = knobs["label"]
    rows = []
    for i, r in enumerate(doc["results"]):
        where = "%s: results[%d]" % (path, i)
        if not isinstance(r, dict):
            raise BadInput("%s: not an object" % where)
        for k in ("test", "mode"):
            if not isinstance(r.get(k), str):
                raise BadInput("%s.%s: missing or not a string" % (where, k))
        for k in ("lat_kind", "host"):
            if r.get(k) is not None and not isinstance(r[k], str):
                raise BadInput("%s.%s: not a string" % (where, k))
        # the ranges of lib/stats/rdx-report.schema.json
        for k, lo, hi in (("size", 0, U64), ("lcore", -1, U32), ("qps", 0, U32)):
            if not is_int(r.get(k)):
                raise BadInput("%s.%s: missing or not an integer" % (where, k))
            if not int_in(r[k], lo, hi):
                raise BadInput("%s.%s: %s out of range (%d .. %d)"
                               % (where, k, short(r[k]), lo, hi - 1))
        if r.get("rank") is not None and not int_in(r["rank"], -1, U32):
            raise BadInput("%s.rank: not an integer in -1 .. %d" % (where, U32 - 1))
        for k in ("mops", "mbytes_per_s", "offered_ops_per_s"):
            if r.get(k) is not None and not num(r.get(k)):
                raise BadInput("%s.%s: not a number (or over 2^64)" % (where, k))
        lat = r.get("lat")
        if r.get("has_lat"):
            if not isinstance(lat, dict):
                raise BadInput("%s.lat: missing or not an object" % where)
            for k, _ in PCTS:
                v = lat.get(k)
                if v is not None and not (num(v) and v >= 0):
                    raise BadInput("%s.lat.%s: not a latency (a number of ns, 0 .. 2^64)"
                                   % (where, k))
            b = lat.get("buckets")
            if b is not None:
                if not isinstance(b, list) or not all(
                        isinstance(e, list) and len(e) == 3 and num(e[0]) and num(e[1])
                        and 0 <= e[0] <= e[1] and int_in(e[2], 0, U64) for e in b):
                    raise BadInput("%s.lat.buckets: not a list of [lo_ns, hi_ns, count] "
                                   "(0 <= lo_ns <= hi_ns, count 0 .. 2^64-1)" % where)
                if b and sum(e[2] for e in b) == 0:
                    raise BadInput("%s.lat.buckets: every count is 0 (no latency to draw)"
                                   % where)
        rows.append(r)
    totals = [r for r in rows if r["lcore"] == -1]
    src.rows = totals if totals else rows
    src.rank_rows = [r for r in rows if is_int(r.get("rank"))]
    # a run that did not complete: its figures say so (rows cut short by
    # the interrupt or the failure, runs never started)
    status = doc.get("status", "completed")
    if status not in ("completed", "interrupted", "failed"):
        raise BadInput("%s: status: not one of completed, interrupted, failed" % path)
    if status != "completed":
        why = doc.get("status_reason")
        not_run = doc.get("not_run") if isinstance(doc.get("not_run"), list) else []
        src.notes.append("%s%s: %d row(s) cut short, %d run(s) not run" % (
            status, " (%s)" % why if isinstance(why, str) and why else "",
            sum(1 for r in src.rows if r.get("cut_short") is True), len(not_run)))
    return src


def flows_exe():
    """rdx-flows: $RDX_FLOWS, else beside rdx-plot in the build tree
    (build/apps/rdx-flows/rdx-flows) or installed (the same bin/), else PATH."""
    env = os.environ.get("RDX_FLOWS")
    if env:
        return env
    here = os.path.dirname(os.path.realpath(sys.argv[0]))
    for c in (os.path.join(here, "..", "rdx-flows", "rdx-flows"), os.path.join(here, "rdx-flows")):
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return shutil.which("rdx-flows")


def read_json(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return json.load(f)
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise BadInput("%s: not JSON: %s" % (path, e))
    except RecursionError:
        raise BadInput("%s: JSON nested too deeply" % path)


def log_source(path, log):
    """A Source of one log of an rdx-flows --json file."""
    src = Source(path, "wrlog")
    fields = log.get("fields") if isinstance(log.get("fields"), dict) else {}
    wr = log.get("wr_ns")
    div = log.get("report_div")
    if not isinstance(wr, list) or not all(int_in(v, 0, U64) for v in wr) or div not in (1, 2):
        raise BadInput("%s: not an rdx-flows log (wr_ns, report_div)" % path)
    if not wr:
        raise BadInput("%s: no completed work requests in the log" % path)
    src.device = device_label({"dev": fields.get("dev"), "device_kind": log.get("device_kind")})
    src.label = log.get("label") if isinstance(log.get("label"), str) else src.stem
    src.test = fields.get("test", "?")
    src.mode = fields.get("mode", "?")
    src.size = fields.get("size", "?")
    src.lat_kind = fields.get("lat_kind", "?").replace("_", " ")
    src.lats = sorted(v / div for v in wr)
    if is_int(log.get("unlogged")) and log["unlogged"] > 0:
        src.notes.append("log cut: %d WRs not logged" % log["unlogged"])
    if is_int(log.get("incomplete")) and log["incomplete"] > 0:
        src.notes.append("%d WRs never completed" % log["incomplete"])
    return src


def load_wrlog(path):
    """An rdx-perf -o log, read by rdx-flows --parse-only --json."""
    exe = flows_exe()
    if exe is None:
        raise BadInput("%s: an rdx-perf -o log is read by rdx-flows, which is not found "
                       "(set RDX_FLOWS=PATH/rdx-flows)" % path)
    with tempfile.TemporaryDirectory(prefix="rdx-plot.") as tmp:
        out = os.path.join(tmp, "log.json")
        try:
            p = subprocess.run([exe, "--parse-only", "--json", out, "--", path],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
        except OSError as e:
            raise BadInput("%s: cannot run %s: %s" % (path, exe, e.strerror or e))
        if p.returncode != 0:
            err = p.stderr.decode("utf-8", "replace").strip().splitlines()
            msg = err[-1] if err else "exit status %d" % p.returncode
            raise BadInput(msg[len("rdx-flows: "):] if msg.startswith("rdx-flows: ") else msg)
        doc = read_json(out)
    if not isinstance(doc, dict) or not isinstance(doc.get("logs"), list) or len(doc["logs"]) != 1:
        raise BadInput("%s: rdx-flows gave no log (is %s rdx-flows?)" % (path, exe))
    return log_source(path, doc["logs"][0])


def load_flows(path, doc):
    """rdx-flows --window MS --json FILE: bandwidth per flow per window."""
    w = doc.get("windows")
    an = doc.get("analysis")
    if not isinstance(w, dict) or not isinstance(an, dict):
        raise BadInput("%s: an rdx-flows JSON without windows: run rdx-flows with --window MS "
                       "--json FILE" % path)
    flows = an.get("flows")
    logs = doc.get("logs")
    rows = w.get("rows")
    if not isinstance(flows, list) or not isinstance(logs, list) or not isinstance(rows, list):
        raise BadInput("%s: not an rdx-flows JSON (analysis.flows, logs, windows.rows)" % path)
    n = len(flows)
    for i, r in enumerate(rows):
        if not isinstance(r, list) or len(r) != 4 + n or not all(num(v) for v in r):
            raise BadInput("%s: windows.rows[%d]: not %d numbers" % (path, i, 4 + n))
    if not rows:
        raise BadInput("%s: no windows" % path)
    src = Source(path, "flows")
    src.flows = [f.get("label", "?") if isinstance(f, dict) else "?" for f in flows]
    src.data = rows
    devs = []
    for lg in logs:
        fields = lg.get("fields") if isinstance(lg, dict) and isinstance(lg.get("fields"), dict) else {}
        d = device_label({"dev": fields.get("dev"), "device_kind": lg.get("device_kind")})
        if d not in devs:
            devs.append(d)
    src.device = "; ".join(devs)
    if doc.get("shared_device") is False and isinstance(doc.get("not_shared_reason"), str):
        src.notes.append("rdx-flows: " + doc["not_shared_reason"])
    return src


def is_wrlog(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().rstrip("\r\n") == WRLOG_MAGIC
    except (OSError, UnicodeDecodeError):
        return False


def is_flows_csv(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().startswith("window,start_ms,end_ms,common,")
    except (OSError, UnicodeDecodeError):
        return False


def load(path):
    """One input, by what it is."""
    if is_wrlog(path):
        return load_wrlog(path)
    if is_flows_csv(path):
        raise BadInput("%s: an rdx-flows CSV names no device: give rdx-plot the file of "
                       "rdx-flows --window MS --json FILE instead" % path)
    doc = read_json(path)
    if isinstance(doc, dict) and "rdx_flows" in doc:
        return load_flows(path, doc)
    return load_report(path, doc)
