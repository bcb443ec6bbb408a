#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Check the commit messages since the habit began (the commit named by
# BASE below, the last one before it): a subject of at most 72 characters,
# no trailing period, and a blank line between subject and body. Merge
# commits are skipped. Run by .ci/run; by hand:
#   scripts/check-git-log.sh            every commit after BASE up to HEAD
#   scripts/check-git-log.sh REV..REV   a range of your own
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=d12695e
MAX=72
range=${1:-$BASE..HEAD}
if ! git rev-parse -q --verify "${range%%..*}^{commit}" >/dev/null; then
    echo "check-git-log: ${range%%..*} is not in this clone's history (a shallow clone?): nothing checked" >&2
    exit 0
fi
bad=0 n=0
while read -r h; do
    n=$((n + 1))
    subj=$(git log -1 --format=%s "$h")
    second=$(git log -1 --format=%B "$h" | sed -n 2p)
    if [ ${#subj} -gt $MAX ]; then
        echo "commit ${h:0:12}: subject is ${#subj} characters (at most $MAX): $subj"; bad=$((bad + 1))
    fi
    case "$subj" in
    *.) echo "commit ${h:0:12}: subject ends with a period: $subj"; bad=$((bad + 1)) ;;
    esac
    if [ -n "$second" ]; then
        echo "commit ${h:0:12}: no blank line after the subject"; bad=$((bad + 1))
    fi
done < <(git rev-list --no-merges "$range")
if [ $bad -ne 0 ]; then
    echo "check-git-log: $bad problem(s) in $n commit(s) ($range)"
    exit 1
fi
echo "check-git-log: $n commit(s) checked ($range), subjects <= $MAX characters"
