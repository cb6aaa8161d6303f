#!/usr/bin/env python3
"""Times whole commands on a loaded machine: runs each command once per
round, alternating, for N rounds (output to /dev/null), and prints per
command the median and minimum wall time, CPU time (user + system) and
peak RSS, all from wait4's rusage. Alternating keeps a change of load from favouring one
command; CPU time is less sensitive to the load than wall time.

Usage: bench/alternate.py N 'CMD1 ARGS' 'CMD2 ARGS' ...
(arguments are split on spaces; no shell)."""
import os
import statistics
import subprocess
import sys
import time

n = int(sys.argv[1])
cmds = [c.split() for c in sys.argv[2:]]
wall = [[] for _ in cmds]
cpu = [[] for _ in cmds]
rss = [[] for _ in cmds]
with open(os.devnull, "w") as devnull:
    for _ in range(n):
        for i, c in enumerate(cmds):
            t0 = time.perf_counter()
            p = subprocess.Popen(c, stdout=devnull)
            _, status, ru = os.wait4(p.pid, 0)
            t1 = time.perf_counter()
            if status != 0:
                sys.exit(f"{' '.join(c)}: exit status {status}")
            wall[i].append(t1 - t0)
            cpu[i].append(ru.ru_utime + ru.ru_stime)
            rss[i].append(ru.ru_maxrss / 1024)
for i, c in enumerate(cmds):
    print(f"{' '.join(c)[:90]:90s} wall med {statistics.median(wall[i])*1e3:7.1f} ms "
          f"min {min(wall[i])*1e3:7.1f}  cpu med {statistics.median(cpu[i])*1e3:7.1f} ms "
          f"min {min(cpu[i])*1e3:7.1f}  rss med {statistics.median(rss[i]):6.1f} MB")
with open("/proc/loadavg") as f:
    print("load", " ".join(f.read().split()[:3]))
