#!/usr/bin/env python3
"""Times whole commands on a loaded machine: runs each command once per
round, alternating, for N rounds (output to /dev/null), and prints per
command the median and minimum wall time, CPU time (user + system) and
peak RSS, all from wait4's rusage. Alternating keeps a change of load from favouring one
command; CPU time is less sensitive to the load than wall time.

The peak RSS is read through GNU time (/usr/bin/time) where it is
installed: a child forked from this Python process starts with its
high-water mark (about 14 MB), which exec keeps, so wait4 would report
no command below it. GNU time's own child starts from time's few pages.

Usage: bench/alternate.py N 'CMD1 ARGS' 'CMD2 ARGS' ...
(arguments are split on spaces; no shell)."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

n = int(sys.argv[1])
cmds = [c.split() for c in sys.argv[2:]]
wall = [[] for _ in cmds]
cpu = [[] for _ in cmds]
rss = [[] for _ in cmds]
gnutime = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
peakfile = tempfile.NamedTemporaryFile(prefix="alternate-", delete=False).name
with open(os.devnull, "w") as devnull:
    for _ in range(n):
        for i, c in enumerate(cmds):
            run = [gnutime, "-f", "%M", "-o", peakfile] + c if gnutime else c
            t0 = time.perf_counter()
            p = subprocess.Popen(run, stdout=devnull)
            _, status, ru = os.wait4(p.pid, 0)
            t1 = time.perf_counter()
            if status != 0:
                sys.exit(f"{' '.join(c)}: exit status {status}")
            wall[i].append(t1 - t0)
            cpu[i].append(ru.ru_utime + ru.ru_stime)
            if gnutime:
                with open(peakfile) as f:
                    rss[i].append(int(f.read().split()[-1]) / 1024)
            else:
                rss[i].append(ru.ru_maxrss / 1024)
os.unlink(peakfile)
for i, c in enumerate(cmds):
    print(f"{' '.join(c)[:90]:90s} wall med {statistics.median(wall[i])*1e3:7.1f} ms "
          f"min {min(wall[i])*1e3:7.1f}  cpu med {statistics.median(cpu[i])*1e3:7.1f} ms "
          f"min {min(cpu[i])*1e3:7.1f}  rss med {statistics.median(rss[i]):6.1f} MB")
with open("/proc/loadavg") as f:
    print("load", " ".join(f.read().split()[:3]))
