#!/usr/bin/env python3
"""Splits the CPU time of one pahole -J step, pahole 1.30's and kmeta's,
into its phases, from perf samples (root; perf, and perf probe for
pahole's libbpf).

Usage: bench/pahole/phases.py ROUNDS FILE PAHOLE KMETA_AS_PAHOLE [-- ARGS]

FILE is an ELF file without .BTF (bench/pahole/steps.py's .tmp_vmlinux1
with its .BTF removed, say); ARGS are extra pahole arguments
(--btf_base vmlinux for a module). Each round runs both tools, alternating,
on a fresh copy of FILE with Linux 6.12's flags and LLVM_OBJCOPY=objcopy,
under `perf record -g` (cpu-clock, 4 kHz), and prints the medians of the
seconds of CPU sampled in each phase. perf's own overhead makes every
figure somewhat larger than GNU time's; the shares are what it is for.

pahole's phases are told apart by time, at uprobes on libbpf: before its
first btf__new_empty_split (start, ELF and symbols), up to btf__dedup
(DWARF loading and encoding, every thread), btf__dedup itself, and after
it (writing the section's file); objcopy and /bin/sh are their own.
kmeta's are told apart by the call stack of each sample (a page fault
counts for the code that faulted): the runtime's start and package
initialisation, a module's base (reading --btf_base and preparing it for
the deduplication), the ELF file and its symbols, the workers' units (DWARF
reading, encoding, writing the deduplication's records), the merge
(appending each unit and the pipelined deduplication passes), finish (the
saved functions, the last graph passes), the final deduplication and
output, the ELF write (the section's file, the objcopy call), the garbage
collector (debug.FreeOSMemory included), the runtime's sysmon thread, the
rest of the runtime (scheduler), and "dedup deep": a deduplication pass's
recursion deeper than the stacks perf keeps (the merge's or finish's).
"""
import collections
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

FLAGS = ("-J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,"
         "optimized_func,consistent_func,decl_tag_kfuncs -j "
         "--btf_features=+reproducible_build --lang_exclude=rust").split()
HZ = 4000

# kmeta's phases: the first frame of a sample's stack (innermost first)
# that names one decides.
KMETA = [
    ("objcopy", None),
    ("gc", ["runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcStart",
            "runtime.forEachP", "runtime.gcMarkDone", "runtime.gcMarkTermination", "debug.FreeOSMemory"]),
    ("sysmon", ["runtime.sysmon"]),
    ("start", ["runtime.doInit", "runtime.schedinit", "runtime.rt0_go"]),
    ("finish", ["dwarf2btf.(*merger).finish", "dedup.(*Merger).FinishGraphs"]),
    ("units", ["dwarf2btf.(*run).unit", "dwarf2btf.(*run).worker"]),
    ("merge", ["dwarf2btf.(*merger).add"]),
    ("dedup", ["dedup.(*Merger).Dedup", "dedup.(*state).write"]),
    ("base", ["dwarf2btf.NewBase", "main.(*cli).openOne"]),
    ("elf+symbols", ["dwarf2btf.openObject", "dwarf2btf.(*dwarfData).units", "dwarf2btf.(*object).symbols",
                     "dwarf2btf.encode.func", "main.(*cli).openEncodeSource", "main.(*encodeSource).byteOrder",
                     "input.File", "main.parsePaholeArgs"]),
    ("elf write", ["elfwrite.Write"]),
    ("encode other", ["dwarf2btf.Encode"]),
]
# A deduplication pass's recursion (isEquiv) can be deeper than the
# stacks perf keeps: such a sample, with no phase's frame left, is the
# merge's or finish's comparisons.
DEEP = ("dedup deep", "kmeta/internal/dedup.")


def perf_samples(data):
    """Yields (comm, time, [frames innermost first]) of every cpu-clock
    sample, and (None, time, event) of every other event."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,time,event,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    head, frames = None, []

    def emit():
        # comm may hold spaces: the time is the field ending in ':' before the event.
        i = next(k for k, f in enumerate(head) if f.endswith(":") and f[:-1].replace(".", "").isdigit())
        comm, t, event = " ".join(head[:i - 1]), float(head[i][:-1]), head[i + 1].rstrip(":")
        return (comm, t, frames) if event.startswith("cpu-clock") else (None, t, event)

    for line in out.splitlines():
        if not line.strip():
            continue
        if line.startswith("\t"):  # a frame of the callchain: ADDRESS SYMBOL
            frames.append(line.split(None, 1)[-1])
            continue
        if head is not None:
            yield emit()
        head, frames = line.split(), []
    if head is not None:
        yield emit()


def kmeta_phases(data):
    b = collections.Counter()
    for comm, _, frames in perf_samples(data):
        if comm is None:
            continue
        if comm in ("objcopy", "sh"):
            b["objcopy"] += 1
            continue
        phase = "runtime other"
        for f in frames:
            hit = next((name for name, keys in KMETA[1:] if any(k in f for k in keys)), None)
            if hit:
                phase = hit
                break
        else:
            if frames and DEEP[1] in frames[-1]:
                phase = DEEP[0]
        b[phase] += 1
    return {k: v / HZ for k, v in b.items()}


def pahole_phases(data):
    samples, events = [], []
    for comm, t, x in perf_samples(data):
        if comm is None:
            events.append((t, x))
        else:
            samples.append((comm, t))
    first = min(t for t, e in events if e.endswith("btf__new_empty_split"))
    d0 = min(t for t, e in events if e.endswith("btf__dedup"))
    d1 = max(t for t, e in events if e.endswith("btf__dedup__return"))
    b = collections.Counter()
    for comm, t in samples:
        if comm in ("objcopy", "sh"):
            b["objcopy"] += 1
        elif t < first:
            b["start+elf"] += 1
        elif t < d0:
            b["dwarf+encode"] += 1
        elif t < d1:
            b["btf__dedup"] += 1
        else:
            b["write"] += 1
    return {k: v / HZ for k, v in b.items()}


def libbpf_of(pahole, tmp):
    """The libbpf.so that pahole maps (from perf's mmap events of a
    pahole --version: pahole may be a wrapper with its own library path)."""
    data = os.path.join(tmp, "version.data")
    subprocess.run(["perf", "record", "-q", "-o", data, "--", pahole, "--version"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    out = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "libbpf.so" in line:
            return line.split()[-1]
    sys.exit(f"{pahole}: cannot find its libbpf.so")


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    if len(argv) != 4:
        sys.exit(__doc__)
    rounds, src, pahole, kmeta = int(argv[0]), argv[1], argv[2], argv[3]
    env = dict(os.environ, LLVM_OBJCOPY="objcopy")
    tmp = tempfile.mkdtemp(prefix="phases.")
    res = {"pahole": [], "kmeta": []}
    try:
        lib = libbpf_of(pahole, tmp)
        for p in ("btf__new_empty_split", "btf__dedup", "btf__dedup%return"):
            subprocess.run(["perf", "probe", "-q", "-x", lib, "-a", p], capture_output=True)
        for r in range(rounds):
            order = [("pahole", pahole), ("kmeta", kmeta)]
            for name, tool in (order if r % 2 == 0 else order[::-1]):
                f = os.path.join(tmp, "file")
                data = os.path.join(tmp, "perf.data")
                shutil.copyfile(src, f)
                ev = ["-e", "cpu-clock"] + (["-e", "probe_libbpf:*"] if name == "pahole" else [])
                subprocess.run(["perf", "record", "-q", "-g", "-F", str(HZ), "-o", data] + ev +
                               ["--", tool] + FLAGS + extra + [f], env=env, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                res[name].append(pahole_phases(data) if name == "pahole" else kmeta_phases(data))
    finally:
        shutil.rmtree(tmp)
        subprocess.run(["perf", "probe", "-q", "-d", "probe_libbpf:*"], capture_output=True)
    for name, runs in res.items():
        keys = sorted({k for r in runs for k in r})
        med = {k: statistics.median(r.get(k, 0.0) for r in runs) for k in keys}
        total = statistics.median(sum(r.values()) for r in runs)
        print(f"{name:7s} total {total:6.3f} s: " + ", ".join(f"{k} {v:.3f}" for k, v in
                                                          sorted(med.items(), key=lambda kv: -kv[1])))
    with open("/proc/loadavg") as f:
        print("rounds", rounds, "load", " ".join(f.read().split()[:3]))


main()
