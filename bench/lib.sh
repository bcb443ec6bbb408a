# SPDX-License-Identifier: BSD-3-Clause
# Argument checks shared by the standalone bench scripts (sourced; they set
# -eu themselves). Each error is one line naming the script, exit status 2,
# and every check runs before the script builds or runs anything.

me=$(basename "$0")

# bench_fail MESSAGE: MESSAGE on stderr, one line after the script's name
# (printf: dash's echo would expand backslashes in a value), exit 2
bench_fail() {
    printf '%s: %s\n' "$me" "$*" >&2
    exit 2
}

# bench_show VALUE: VALUE for a one-line message (a newline shown as ^J, as
# cat -v does)
bench_show() {
    printf '%s' "$1" | awk 'BEGIN { ORS = "" } NR > 1 { print "^J" } { print }'
}

# bench_usage USAGE ARG1: -h/--help as the first argument prints USAGE and
# exits 0; any other first argument that starts with '-' is not a build
# directory: refused
bench_usage() {
    case ${2-} in
        -h|--help) echo "usage: $1"; exit 0 ;;
        -*) bench_fail "unknown option '$(bench_show "$2")' (usage: $1)" ;;
    esac
}

# bench_maxargs MAX USAGE "$@": at most MAX positional arguments
bench_maxargs() {
    _max=$1 _usage=$2
    shift 2
    if [ $# -gt "$_max" ]; then
        shift "$_max"
        bench_fail "unexpected argument '$(bench_show "$1")' (usage: $_usage)"
    fi
}

# bench_extra WHAT "$@" (the arguments after the script's own): they are
# options passed to rdx-perf, so the first one must start with '-' (a stray
# word, such as a third positional argument, is refused here instead of
# reaching rdx-perf as its positional HOST after the build)
bench_extra() {
    _what=$1
    shift
    [ $# -eq 0 ] && return 0
    case $1 in
        -?*) ;;
        *) bench_fail "unexpected argument '$(bench_show "$1")' (only $_what may follow)" ;;
    esac
}

# bench_posint NAME VALUE [MAX [WHY]]: VALUE must be a positive integer in
# decimal without leading zeros (the shell would read 010 as octal), at most
# MAX if given (WHY: what the bound keeps, for the message), and at most
# 10^15 in any case (beyond it the shell's arithmetic overflows)
bench_posint() {
    case $2 in
        ''|*[!0-9]*|0*) bench_fail "$1 must be a positive integer (no sign, no leading zeros), got '$(bench_show "$2")'" ;;
    esac
    if [ ${#2} -gt 15 ] || { [ -n "${3-}" ] && [ "$2" -gt "$3" ]; }; then
        bench_fail "$1 must be at most ${3:-1000000000000000}${4:+ ($4)}, got '$2'"
    fi
}

# bench_cpu_list: the CPUs online on this machine, as the kernel lists them
# (/sys/devices/system/cpu/online, e.g. "0-3,6"; else 0-(nproc --all - 1))
bench_cpu_list() {
    if [ -r /sys/devices/system/cpu/online ]; then
        cat /sys/devices/system/cpu/online
    else
        echo "0-$(($(nproc --all) - 1))"
    fi
}

# bench_cpu_in LIST CPU: exit status 0 when CPU is in LIST ("0-3,6")
bench_cpu_in() {
    echo "$1" | tr ',' '\n' | awk -F- -v c="$2" '
        $1 != "" { lo = $1 + 0; hi = ($2 == "" ? lo : $2 + 0); if (c + 0 >= lo && c + 0 <= hi) f = 1 }
        END { exit !f }'
}

# bench_cpus VAR VALUE: VALUE ("A B", from environment variable VAR) names
# exactly two different CPUs, both online; sets ca and cb
bench_cpus() {
    case $2 in
        *[!0-9\ \	]*) bench_fail "$1 must be two CPU numbers separated by a space, got '$(bench_show "$2")'" ;;
    esac
    read -r ca cb _rest <<EOF_CPUS
$2
EOF_CPUS
    if [ -z "$ca" ] || [ -z "$cb" ] || [ -n "$_rest" ]; then
        bench_fail "$1 must be exactly two CPU numbers, got '$2'"
    fi
    # 01 is CPU 1: compare (and pass on) the numbers without leading zeros
    ca=$(echo "$ca" | sed 's/^0*\([0-9]\)/\1/')
    cb=$(echo "$cb" | sed 's/^0*\([0-9]\)/\1/')
    [ "$ca" != "$cb" ] || { bench_fail "$1 needs two different CPUs, got '$2' (CPU $ca twice)"; }
    _online=$(bench_cpu_list)
    for _c in "$ca" "$cb"; do
        if [ ${#_c} -gt 9 ] || ! bench_cpu_in "$_online" "$_c"; then
            bench_fail "$1: CPU $_c is not online on this machine (online: $_online), got '$2'"
        fi
    done
}
