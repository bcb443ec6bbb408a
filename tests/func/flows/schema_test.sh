#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A report written by lib/stats (gen_report) validates against
# lib/stats/rdx-report.schema.json; broken reports do not.
# usage: schema_test.sh PATH/TO/gen_report PATH/TO/rdx-report.schema.json
set -u
GEN=$1
SCHEMA=$2
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null && "$p" -c 'import jsonschema' 2> /dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    echo "SKIP: no python3 with the jsonschema module (Debian: apt-get install python3-jsonschema)"
    exit 77
fi
T=$(mktemp -d /tmp/rdx-schema-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$GEN" "$T/r.json" "$T/r.csv" > "$T/out.txt" || { echo "FAIL: gen_report"; exit 1; }
"$PY" - "$SCHEMA" "$T/r.json" <<'PYEOF'
import copy, json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft7Validator(schema)
v.check_schema(schema)
errs = list(v.iter_errors(doc))
for e in errs:
    print("FAIL: report does not validate: %s at %s" % (e.message, list(e.path)))
if errs:
    sys.exit(1)
assert len(doc["results"]) == 34, len(doc["results"])   # 5 sizes x (total + lcore) + 6 sizes x 4 qps
print("ok   - gen_report's report (%d rows) validates" % len(doc["results"]))
def broken(name, mutate):
    d = copy.deepcopy(doc)
    mutate(d)
    if v.is_valid(d):
        print("FAIL: %s validates" % name)
        sys.exit(1)
    print("ok   - %s is rejected" % name)
broken("a missing rdx_version", lambda d: d.pop("rdx_version"))
broken("a non-string knob", lambda d: d["knobs"].__setitem__("iters", 5))
broken("a string size", lambda d: d["results"][0].__setitem__("size", "64"))
broken("lat missing a percentile", lambda d: d["results"][0]["lat"].pop("p99"))
broken("has_lat true with lat null", lambda d: d["results"][0].__setitem__("lat", None))
broken("an unknown perf source", lambda d: d["results"][0]["perf"].__setitem__("source", "x"))
broken("an unknown field", lambda d: d["results"][0].__setitem__("extra", 1))
PYEOF
