#!/usr/bin/env python3
"""Replays the BTF steps of a kernel build (bench/pahole/kbuild.sh's tree)
with two pahole binaries, alternating, and compares their outputs.

Usage: bench/pahole/steps.py ROUNDS KSRC PAHOLE_A PAHOLE_B [MODULE.ko ...]

KSRC is the built tree (.tmp_vmlinux1, vmlinux and the modules). The steps
are those of Linux 6.12's link-vmlinux.sh and Makefile.modfinal with
pahole 1.30 and KBUILD_BUILD_TIMESTAMP set:
  LLVM_OBJCOPY=objcopy PAHOLE -J FLAGS .tmp_vmlinux1     (its .BTF removed)
  LLVM_OBJCOPY=objcopy PAHOLE -J FLAGS --btf_base vmlinux MOD.ko  (likewise)
Each run works on fresh copies, made before it is timed, in a temporary
directory. Every round runs A's steps then B's (the order alternates
between rounds). Per step and tool it prints the median CPU time
(user+system, of the process and its objcopy child, from wait4) and the
median peak RSS (the largest of the process and its child), both from
GNU time (wait4), and for all
steps the summed CPU time and the largest peak; then whether every output
file of B is byte-identical to A's.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

FLAGS = ("-J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,"
         "optimized_func,consistent_func,decl_tag_kfuncs -j "
         "--btf_features=+reproducible_build --lang_exclude=rust").split()
MODULES = ["drivers/block/loop.ko", "drivers/block/null_blk/null_blk.ko",
           "fs/configfs/configfs.ko", "fs/ext2/ext2.ko", "lib/crc-itu-t.ko", "lib/crc7.ko"]


def run(cmd, env, tmp):
    # Through GNU time, whose own 2 MB is below any step's: a child of
    # this Python process would report at least the Python process's peak
    # (Linux carries the pre-exec peak into the child's ru_maxrss).
    res = os.path.join(tmp, "time.out")
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", res] + cmd, env=env,
                       stdout=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit status {p.returncode}")
    u, s, m = open(res).read().split()[-3:]
    return float(u) + float(s), int(m) / 1024


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds, ksrc, tools = int(sys.argv[1]), sys.argv[2], sys.argv[3:5]
    mods = sys.argv[5:] or MODULES
    env = dict(os.environ, LLVM_OBJCOPY="objcopy")
    tmp = tempfile.mkdtemp(prefix="steps.")
    try:
        # Inputs as the build has them when pahole runs: no .BTF yet.
        inputs = {"vmlinux": os.path.join(tmp, "in.tmp_vmlinux1")}
        subprocess.check_call(["objcopy", "--remove-section", ".BTF",
                               os.path.join(ksrc, ".tmp_vmlinux1"), inputs["vmlinux"]])
        for m in mods:
            inputs[m] = os.path.join(tmp, "in." + os.path.basename(m))
            subprocess.check_call(["objcopy", "--remove-section", ".BTF",
                                   os.path.join(ksrc, m), inputs[m]])
        base = os.path.join(ksrc, "vmlinux")
        steps = ["vmlinux"] + mods
        cpu = {(t, s): [] for t in range(2) for s in steps}
        rss = {(t, s): [] for t in range(2) for s in steps}
        outs = [{}, {}]
        for r in range(rounds):
            for t in ([0, 1] if r % 2 == 0 else [1, 0]):
                for s in steps:
                    out = os.path.join(tmp, f"out{t}.{os.path.basename(s)}")
                    shutil.copyfile(inputs[s], out)
                    args = [tools[t]] + FLAGS + ([] if s == "vmlinux" else ["--btf_base", base]) + [out]
                    c, m = run(args, env, tmp)
                    cpu[t, s].append(c)
                    rss[t, s].append(m)
                    outs[t][s] = out
        med = statistics.median
        print(f"{'step':40s} {'A cpu s':>8s} {'A MB':>7s} {'B cpu s':>8s} {'B MB':>7s} {'cpu B/A':>8s} {'rss B/A':>8s}")
        tot = [0.0, 0.0]
        peak = [0.0, 0.0]
        for s in steps:
            c = [med(cpu[t, s]) for t in range(2)]
            m = [med(rss[t, s]) for t in range(2)]
            for t in range(2):
                tot[t] += c[t]
                peak[t] = max(peak[t], m[t])
            print(f"{s:40s} {c[0]:8.3f} {m[0]:7.1f} {c[1]:8.3f} {m[1]:7.1f} {c[1]/c[0]:8.2f} {m[1]/m[0]:8.2f}")
        print(f"{'all steps (cpu summed, largest peak)':40s} {tot[0]:8.3f} {peak[0]:7.1f} {tot[1]:8.3f} {peak[1]:7.1f} "
              f"{tot[1]/tot[0]:8.2f} {peak[1]/peak[0]:8.2f}")
        same = all(open(outs[0][s], "rb").read() == open(outs[1][s], "rb").read() for s in steps)
        print("outputs:", "all byte-identical" if same else "DIFFER: " +
              " ".join(s for s in steps if open(outs[0][s], "rb").read() != open(outs[1][s], "rb").read()))
        with open("/proc/loadavg") as f:
            print("rounds", rounds, "load", " ".join(f.read().split()[:3]))
    finally:
        shutil.rmtree(tmp)


main()
