package bench

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
)

// BenchmarkCDumpVmlinux: print the kernel's BTF as a C header (vmlinux.h)
// to /dev/null. kmeta opens the file and writes the header through a
// buffer, as "kmeta btf dump --format c --compat bpftool-7.1" does; the
// peer is Debian 12's bpftool 7.1 itself, run as a process ("bpftool btf
// dump file ... format c"), which is how people make vmlinux.h.
// "kmeta-7.5" is the default, sorted output of bpftool 7.5.
// bench/cdump.sh and bench/cdump-identity.sh time the CLIs with hyperfine.
func BenchmarkCDumpVmlinux(b *testing.B) {
	needVmlinux(b)
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	for name, opts := range map[string]cdump.Options{
		"kmeta":     {Compat: cdump.CompatBpftool71},
		"kmeta-7.5": {},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			w := bufio.NewWriterSize(devnull, 256<<10)
			for b.Loop() {
				s, err := btf.Open(context.Background(), vmlinux, btf.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := cdump.Write(w, s, opts); err != nil {
					b.Fatal(err)
				}
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
	b.Run("bpftool", func(b *testing.B) {
		bin, err := exec.LookPath("bpftool")
		if err != nil {
			b.Skip("bpftool not installed")
		}
		b.ReportAllocs()
		for b.Loop() {
			cmd := exec.Command(bin, "btf", "dump", "file", vmlinux, "format", "c")
			cmd.Stdout = devnull
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCDumpVmlinuxWrite is Write alone, on a Spec opened once: the
// cost of the C printer without opening the file, as bpftool 7.1 prints
// (the figures in BENCHMARKS.md) and as bpftool 7.5 does, sorted.
func BenchmarkCDumpVmlinuxWrite(b *testing.B) {
	s := openVmlinux(b)
	for _, bc := range []struct {
		name string
		opts cdump.Options
	}{{"bpftool-7.1", cdump.Options{Compat: cdump.CompatBpftool71}}, {"sorted", cdump.Options{}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := cdump.Write(io.Discard, s, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCDumpMiniHeader: the header of task_struct and sk_buff only.
func BenchmarkCDumpMiniHeader(b *testing.B) {
	s := openVmlinux(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := cdump.Write(io.Discard, s, cdump.Options{Types: []string{"task_struct", "sk_buff"}}); err != nil {
			b.Fatal(err)
		}
	}
}
