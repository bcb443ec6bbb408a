#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark scripts' argument checks (bench/lib.sh and the bench/*.sh
# that source it, scripts/bench.sh, scripts/test.sh): each bad input exits 2
# with one line on stderr before anything is built or run. meson, ninja and
# valgrind are stubs here that log their calls (a check that let the input
# through would show up as a call); scripts/bench.sh's device check runs
# this build's rdx-perf. scripts/bench.sh's summary, with a fake rdx-perf
# in a copy of the tree: only this run's reports, no traceback when runs
# wrote none. scripts/test.sh from a copy whose setup.sh is a stub.
source "$(dirname "$0")/lib.sh"

BUILD=$(cd "$(dirname "$PERF")/../.." && pwd)   # the build tree of this rdx-perf
STUB=$TMP/bin
mkdir -p "$STUB"
for t in meson ninja valgrind; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$t" "$TMP" >"$STUB/$t"
    chmod +x "$STUB/$t"
done
export PATH="$STUB:$PATH"
unset RDX_CALIB_CPUS RDX_SCALING_CPUS RDX_EAL RDX_BUILD N ECHO_A ECHO_B ECHO_BUILD_A
cd "$TMP"   # the scripts' default build directories do not exist here
# a CPU number that is not online here
OFF=$(($(nproc --all) + 100))

# bad WHAT REGEX [VAR=VALUE...] CMD...: exit 2, one line on stderr matching
# REGEX, no call to meson, ninja or valgrind (CALLS_OK: a grep -E pattern
# the calls may match, for bench.sh's build of rdx-perf before its check)
bad() {
    local what=$1 re=$2
    shift 2
    : >"$TMP/calls"
    timeout -k 5 60 env "$@" >"$TMP/o" 2>"$TMP/e"
    local rc=$? calls_bad=0
    if [ -s "$TMP/calls" ]; then
        if [ -z "${CALLS_OK:-}" ] || grep -Evq -- "$CALLS_OK" "$TMP/calls"; then calls_bad=1; fi
    fi
    if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -Eq -- "$re" "$TMP/e" && [ $calls_bad = 0 ]; then
        pass "$what: exit 2, one line"
    else
        fail "$what: exit $rc, stderr: $(cat "$TMP/e"), calls: $(cat "$TMP/calls")"
    fi
}

B=$SRC/bench
# callgrind.sh: BURSTS bound, extra arguments
bad "callgrind.sh BURSTS over the bound" "BURSTS must be at most 1000000 \(about 2 minutes a row" "$B/callgrind.sh" build 1000001
bad "callgrind.sh BURSTS 100000001" "BURSTS must be at most 1000000" "$B/callgrind.sh" build 100000001
bad "callgrind.sh BURSTS 25000001" "BURSTS must be at most" "$B/callgrind.sh" build 25000001
bad "callgrind.sh BURSTS with 20 digits" "BURSTS must be at most" "$B/callgrind.sh" build 99999999999999999999
bad "callgrind.sh BURSTS 010 (octal to the shell)" "BURSTS must be a positive integer.*'010'" "$B/callgrind.sh" build 010
bad "callgrind.sh BURSTS 0" "BURSTS must be a positive integer" "$B/callgrind.sh" build 0
bad "callgrind.sh an extra argument" "callgrind.sh: unexpected argument 'extra' \(usage: " "$B/callgrind.sh" build 5 extra
bad "callgrind.sh an option" "callgrind.sh: unknown option '--bogus'" "$B/callgrind.sh" --bogus
# echo_ab.sh
bad "echo_ab.sh an extra argument" "echo_ab.sh: unexpected argument 'extra'" "$B/echo_ab.sh" build 2 extra
bad "echo_ab.sh an option" "echo_ab.sh: unknown option '-x'" "$B/echo_ab.sh" -x
bad "echo_ab.sh PAIRS 0" "PAIRS must be a positive integer" "$B/echo_ab.sh" build 0
# the CPU pairs, in each script that takes one
for s in echo_ab echo_calib echo_path sw_scaling; do
    var=RDX_CALIB_CPUS
    [ $s = sw_scaling ] && var=RDX_SCALING_CPUS
    args=(build 1)
    bad "$s.sh $var='0 1 2'" "$s.sh: $var must be exactly two CPU numbers, got '0 1 2'" "$var=0 1 2" "$B/$s.sh" "${args[@]}"
    bad "$s.sh $var='01 1'" "$s.sh: $var needs two different CPUs, got '01 1' \(CPU 1 twice\)" "$var=01 1" "$B/$s.sh" "${args[@]}"
    bad "$s.sh $var='0 $OFF'" "$s.sh: $var: CPU $OFF is not online on this machine \(online: " "$var=0 $OFF" "$B/$s.sh" "${args[@]}"
    bad "$s.sh $var='0'" "$s.sh: $var must be exactly two CPU numbers" "$var=0" "$B/$s.sh" "${args[@]}"
    bad "$s.sh $var='0,1'" "$s.sh: $var must be two CPU numbers separated by a space" "$var=0,1" "$B/$s.sh" "${args[@]}"
done
bad "echo_calib.sh --dev ''" "echo_calib.sh: --dev needs a device name" "$B/echo_calib.sh" build 1 --dev ''
bad "echo_calib.sh an extra argument" "echo_calib.sh: expected --dev NAME after ROUNDS" "$B/echo_calib.sh" build 1 extra
bad "echo_calib.sh --dev first" "echo_calib.sh: unknown option '--dev'" "$B/echo_calib.sh" --dev sw
bad "echo_path.sh an extra word" "echo_path.sh: unexpected argument 'extra' \(only rdx-perf options" "$B/echo_path.sh" build-stamps 1 extra
bad "sw_scaling.sh an extra word" "sw_scaling.sh: unexpected argument 'extra' \(only rdx-perf app options" "$B/sw_scaling.sh" build 1 extra
bad "sw_scaling.sh REPEATS 0" "REPEATS must be a positive integer" "$B/sw_scaling.sh" build 0
bad "a value with a newline stays on one line" "N must be a positive integer.*'5\^J6'" "N=$(printf '5\n6')" "$B/echo_calib.sh" build 1

# --help: the usage on stdout, exit 0, nothing built
for s in callgrind echo_ab echo_calib echo_path sw_scaling; do
    : >"$TMP/calls"
    "$B/$s.sh" --help >"$TMP/o" 2>"$TMP/e"
    rc=$?
    if [ $rc = 0 ] && grep -q "^usage: bench/$s.sh" "$TMP/o" && [ ! -s "$TMP/calls" ] && [ ! -s "$TMP/e" ]; then
        pass "$s.sh --help: usage, exit 0"
    else fail "$s.sh --help: exit $rc, out: $(cat "$TMP/o" "$TMP/e")"; fi
done

# the checks themselves accept good values (bench/lib.sh sourced alone)
accept() { # WHAT EXPECTED SHELL-SNIPPET
    local out
    out=$(sh -c ". '$B/lib.sh'; $3" lib_check 2>&1)
    [ "$out" = "$2" ] && pass "$1" || fail "$1: got '$out', expected '$2'"
}
accept "bench_cpus '1 0'" "1 0" 'bench_cpus V "1 0"; echo "$ca $cb"'
accept "bench_cpus with extra blanks" "0 1" "bench_cpus V '  0	 1 '; echo \"\$ca \$cb\""
accept "bench_cpus '00 01': CPUs 0 and 1" "0 1" 'bench_cpus V "00 01"; echo "$ca $cb"'
accept "bench_posint at the bound" "ok" 'bench_posint BURSTS 1000000 1000000; echo ok'

# scripts/bench.sh: the device check with this build's rdx-perf (ninja
# is a stub: only rdx-perf's target may be asked for before the check)
BS=$SRC/scripts/bench.sh
export RDX_NO_SETUP=1
CALLS_OK="^ninja -C $BUILD -j [0-9]+ apps/rdx-perf/rdx-perf$"
bad "bench.sh --dev nosuch0" "^bench.sh: device check refused \(--dev nosuch0\): .*no RDMA device found \(asked for 'nosuch0'" \
    RDX_BUILD="$BUILD" "$BS" --dev nosuch0
bad "bench.sh --dev sw:bogus=1" "^bench.sh: device check refused .*'bogus'" RDX_BUILD="$BUILD" "$BS" --dev sw:bogus=1
bad "bench.sh RDX_EAL naming a core that is not here" "^bench.sh: device check refused \(default device\): .*core" \
    RDX_BUILD="$BUILD" RDX_EAL="-l 0-$OFF" "$BS"
CALLS_OK=
bad "bench.sh --dev ''" "^bench.sh: --dev needs a device name" RDX_BUILD="$BUILD" "$BS" --dev ''
bad "bench.sh --dev 'a b'" "^bench.sh: --dev needs a device name \(one word" RDX_BUILD="$BUILD" "$BS" --dev 'a b'
bad "bench.sh --dev twice" "^bench.sh: --dev given twice" RDX_BUILD="$BUILD" "$BS" --dev sw --dev nosuch0
bad "bench.sh a positional argument" "^bench.sh: unknown option 'extra'" RDX_BUILD="$BUILD" "$BS" --quick extra
"$BS" --help >"$TMP/o" 2>&1 && grep -q "^usage: scripts/bench.sh" "$TMP/o" &&
    pass "bench.sh --help: usage, exit 0" || fail "bench.sh --help: $(cat "$TMP/o")"

# scripts/bench.sh's summary, in a copy of the tree with a fake rdx-perf
# whose device check passes; the calibration, scaling and callgrind
# scripts are stubs. An old report in out/ must not be shown as new.
T=$TMP/tree
mkdir -p "$T/scripts" "$T/bench" "$T/out" "$TMP/fb/apps/rdx-perf"
cp "$BS" "$T/scripts/bench.sh"
for s in echo_calib sw_scaling callgrind; do printf '#!/bin/sh\nexit 0\n' >"$T/bench/$s.sh"; chmod +x "$T/bench/$s.sh"; done
touch "$TMP/fb/build.ninja"
cat >"$TMP/fb/apps/rdx-perf/rdx-perf" <<'FAKE'
#!/usr/bin/env bash
# fake rdx-perf: the device check (-n 1) passes; a suite run writes a
# report when FAKE_OK matches its arguments, else fails
args=" $* " json=
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
case "$args" in *" -n 1 "*) exit 0 ;; esac
if [ -n "${FAKE_OK:-}" ] && [[ "$args" == *"$FAKE_OK"* ]]; then
    cat >"$json" <<'J'
{"knobs": {"dev": "fake0", "device_kind": "fake"}, "results": [{"lcore": -1, "test": "echo", "mode": "lat", "size": 100, "qps": 1, "lat_kind": "rtt", "lat": {"p50": 1500, "p99": 3000}, "mops": 0.5, "bytes_per_s": 50000000, "ops": 1234, "short_run": false}]}
J
    exit 0
fi
echo "rdx-perf: fake failure" >&2
exit 1
FAKE
chmod +x "$TMP/fb/apps/rdx-perf/rdx-perf"
stale() {
    cat >"$T/out/write-lat.json" <<'J'
{"knobs": {"dev": "sw", "device_kind": "stale"}, "results": [{"lcore": -1, "test": "write", "mode": "lat", "size": 8, "qps": 1, "lat_kind": "stale", "lat": {"p50": 1000, "p99": 2000}, "mops": 1.0, "bytes_per_s": 8000000, "ops": 999, "short_run": false}]}
J
    echo '{}' >"$T/out/keep.json"
}
stale
RDX_BUILD=$TMP/fb FAKE_OK="--test echo --mode lat " timeout -k 5 60 "$T/scripts/bench.sh" --quick >"$TMP/out" 2>"$TMP/e"
rc=$?
[ $rc = 1 ] && grep -q "^bench.sh: failed: echo-c4 write-lat " "$TMP/e" && pass "bench.sh: failed runs listed, exit 1" ||
    fail "bench.sh with failing runs: exit $rc, stderr: $(tail -n 3 "$TMP/e")"
want '^echo +echo +lat +100 +1 rtt .* 1\.50 +3\.00 .* 1234 $' "the summary shows this run's report"
want '^device: fake0 \(fake\)$' "the device line from this run's report"
want '^no report from: echo-c4 write-lat ' "the runs without a report named"
if grep -q stale "$TMP/out" "$TMP/e" || [ -e "$T/out/write-lat.json" ]; then fail "an earlier run's report shown or kept"
else pass "the earlier run's write-lat.json removed, not shown"; fi
[ -e "$T/out/keep.json" ] && pass "other files in out/ kept" || fail "out/keep.json removed"
stale
RDX_BUILD=$TMP/fb timeout -k 5 60 "$T/scripts/bench.sh" --quick >"$TMP/out" 2>"$TMP/e"
rc=$?
if [ $rc = 1 ] && ! grep -q Traceback "$TMP/out" "$TMP/e" && ! grep -q stale "$TMP/out"; then
    pass "bench.sh with no report at all: no traceback, exit 1"
else fail "bench.sh with no report at all: exit $rc, $(grep -A3 Traceback "$TMP/out" "$TMP/e")"; fi
want '^device: \? \(no report written by this run\)$' "no device named when no run wrote a report"

# scripts/test.sh, from a copy whose setup.sh is a stub (nothing runs)
cp "$SRC/scripts/test.sh" "$T/scripts/test.sh"
printf '#!/bin/sh\necho "setup $*" >>"%s/calls"\nexit 1\n' "$TMP" >"$T/scripts/setup.sh"
bad "test.sh --bogus" "^test.sh: unknown argument '--bogus' \(it takes none" "$T/scripts/test.sh" --bogus
bad "test.sh a positional argument" "^test.sh: unknown argument 'build'" "$T/scripts/test.sh" build
bad "test.sh --help extra" "^test.sh: unexpected argument 'extra' after --help" "$T/scripts/test.sh" --help extra
for h in --help -h; do
    : >"$TMP/calls"
    "$T/scripts/test.sh" $h >"$TMP/out" 2>"$TMP/e"
    rc=$?
    [ $rc = 0 ] && [ ! -s "$TMP/calls" ] && [ ! -s "$TMP/e" ] && pass "test.sh $h: usage, exit 0, nothing run" ||
        fail "test.sh $h: exit $rc, calls: $(cat "$TMP/calls"), stderr: $(cat "$TMP/e")"
    want '^usage: scripts/test.sh \[--help\]$' "test.sh $h: the usage line"
done
: >"$TMP/calls"
bash "$T/scripts/test.sh" >/dev/null 2>&1
grep -qx "setup --softroce --fuzz" "$TMP/calls" && pass "test.sh without arguments starts as before (setup.sh --softroce --fuzz)" ||
    fail "test.sh without arguments: calls: $(cat "$TMP/calls")"
finish
