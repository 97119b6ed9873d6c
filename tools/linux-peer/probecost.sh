#!/bin/bash
# probecost.sh: docs/18's Linux 6.1 column, measured. Builds probecost.ko against Debian's headers for the
# linux-peer kernel and times the getppid loop under each kind of probe (modal tsc_per_call, ticks=0).
#   apt-get install linux-headers-<the linux-peer kernel's version>   (once; the peer's run.sh names it)
#   tools/linux-peer/probecost.sh PEER_DIR    (PEER_DIR: where the linux-peer tool's run.sh and getppid-loop.c are)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); PEER=$(realpath "${1:?usage: probecost.sh PEER_DIR}")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
cp "$HERE/probecost.c" "$HERE/Kbuild" "$W/"
KVER=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/{sub("linux-image-","",$2); print $2; exit}')
make -s -C "/usr/src/linux-headers-$KVER" M="$W" modules
gcc -O2 -static -o "$W/getppid-loop" "$PEER/getppid-loop.c"
cat > "$W/m.sh" <<'M'
run() { echo "== $1"; /getppid-loop 1000 15 "$1"; }
run base
insmod /probecost.ko kind=ops && run ops; rmmod probecost
insmod /probecost.ko kind=kprobe offset=0 && run kp_ftrace; rmmod probecost
insmod /probecost.ko kind=kprobe offset=11 && sleep 1 && cat /sys/kernel/debug/kprobes/list && run kp_opt; rmmod probecost
echo 0 > /proc/sys/debug/kprobes-optimization
insmod /probecost.ko kind=kprobe offset=11 && run kp_int3; rmmod probecost
echo 1 > /proc/sys/debug/kprobes-optimization
insmod /probecost.ko kind=kretprobe && run kretprobe; rmmod probecost
insmod /probecost.ko kind=fprobe && run fprobe; rmmod probecost
echo 'r:rp __x64_sys_getppid' > $T/kprobe_events && echo 1 > $T/events/kprobes/rp/enable && run kretprobe_event
M
"$PEER/run.sh" -i -a "$W/getppid-loop" -a "$W/probecost.ko" "$W/m.sh" | tee "$W/log"
python3 - "$W/log" <<'P'
import collections, re, sys
runs = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r"BENCH (\S+) run=\d+ .*tsc_per_call=([\d.]+) .*ticks=(\d+)", l)
    if m and m[3] == "0":
        runs[m[1]].append(round(float(m[2])))
base = collections.Counter(runs.pop("base")).most_common(1)[0][0]
print("untraced", base)
for k, v in runs.items():
    print(k, "+%d" % (collections.Counter(v).most_common(1)[0][0] - base))
P
