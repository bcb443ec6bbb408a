# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the scripts that run inside the soft-RoCE guest
# (tests/softroce/guest-run.sh): the rxe check, the wait for a server, a
# client's median, and the counters the probes in bench/softroce
# (sched_probe.sh, lat_modes.sh, after_probe.sh, prof_probe.sh) read.
# Sourced, not run.

# Wait until the rdx-perf server whose output goes to FILE is listening (it
# prints "waiting for a client"): up to TRIES (default 600) tries 0.1 s
# apart, or until process PID is gone (return 1). Under TCG a process can
# take seconds to start.
guest_wait_listen() { # file pid [tries]
    local i
    for i in $(seq "${3:-600}"); do
        grep -q "waiting for a client" "$1" 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Field F (default 2: time waited runnable, ns; 3: time slices) of each
# ksoftirqd thread's /proc/PID/schedstat, for CPU 0 then CPU 1: "f0 f1".
probe_ksoftirqd() {
    local c p f=${1:-2} out=""
    for c in 0 1; do
        p=$(pgrep -x "ksoftirqd/$c" | head -1)
        out+="$(awk -v f="$f" '{ print $f }' "/proc/$p/schedstat") "
    done
    echo "$out"
}

# NET_RX and TASKLET softirqs of CPU 0 and CPU 1: "rx0 rx1 t0 t1".
probe_softirqs() {
    awk '$1 == "NET_RX:" { r0 = $2; r1 = $3 } $1 == "TASKLET:" { t0 = $2; t1 = $3 }
         END { print r0, r1, t0, t1 }' /proc/softirqs
}

# Wait until a server is ready: rdx-perf (KIND rdx) says so
# (guest_wait_listen); perftest prints nothing, so 3 s.
probe_wait_ready() { # file pid kind
    if [ "$3" = rdx ]; then
        guest_wait_listen "$1" "$2"
        return
    fi
    sleep 3
}

# Exit 77 with one line unless the guest's two rxe devices are there (a
# probe started outside tests/softroce/guest-run.sh). NAME: the probe's.
probe_need_rxe() { # name
    if [ ! -e /sys/class/infiniband/rxe0 ] || [ ! -e /sys/class/infiniband/rxe1 ]; then
        echo "$1: no RDMA device (rxe0, rxe1): run it through tests/softroce/guest-run.sh"
        exit 77
    fi
}

# The median (t_typical) of the 8-byte row of the perftest-style table that
# both ib_*_lat and rdx-perf print, from a client's output FILE.
probe_median() { # file
    awk '$1 == "8" && NF >= 9 { print $5; exit }' "$1"
}
