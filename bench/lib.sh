# SPDX-License-Identifier: BSD-3-Clause
# Argument checks shared by the standalone bench scripts (sourced; they set
# -eu themselves). Each error is one line naming the script, exit status 2.

me=$(basename "$0")

# bench_posint NAME VALUE: VALUE must be a positive integer
bench_posint() {
    case $2 in
        ''|*[!0-9]*|0) echo "$me: $1 must be a positive integer, got '$2'" >&2; exit 2 ;;
    esac
}

# bench_cpus VAR VALUE: VALUE ("A B", from environment variable VAR) names
# two different CPUs; sets ca and cb
bench_cpus() {
    ca=${2%% *}
    cb=${2##* }
    case "$ca$cb" in
        ''|*[!0-9]*) echo "$me: $1 must be two CPU numbers, got '$2'" >&2; exit 2 ;;
    esac
    [ "$ca" != "$cb" ] || { echo "$me: $1 needs two CPUs, got '$2'" >&2; exit 2; }
}
