package builder_test

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// bpftoolDump runs "bpftool btf dump file FILE" (with -B base if not
// empty) and returns its output; it skips the test without bpftool.
func bpftoolDump(tb testing.TB, file, base string) []byte {
	tb.Helper()
	path, err := exec.LookPath("bpftool")
	if err != nil {
		tb.Skip("bpftool not installed")
	}
	args := []string{"btf", "dump", "file", file}
	if base != "" {
		args = append([]string{"-B", base}, args...)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("bpftool %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

func writeTemp(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestBpftoolReads: bpftool reads our raw and ELF outputs, plain and split,
// and prints what we parse back.
func TestBpftoolReads(t *testing.T) {
	host := hostSpec(t)
	m, err := builder.Minimal(host, []builder.Want{{Name: "task_struct"}, {Name: "sk_buff"}}, builder.MinimalOptions{FwdPointees: true})
	if err != nil {
		t.Fatal(err)
	}
	kinds, _ := allKinds(t)
	for name, b := range map[string]*builder.Builder{"minimal": m, "allkinds": kinds} {
		raw := marshal(t, b, builder.Options{})
		obj, err := b.MarshalELF(builder.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := dump(t, mustParse(t, raw, nil), btf.ScopeAll)
		testfixtures.CompareLines(t, bpftoolDump(t, writeTemp(t, name+".btf", raw), ""), want)
		testfixtures.CompareLines(t, bpftoolDump(t, writeTemp(t, name+".o", obj), ""), want)
	}

	base := debianSpec(t)
	mod := module(t, "af_key")
	split := marshal(t, copyAll(t, mod, true), builder.Options{})
	basePath := writeTemp(t, "vmlinux", testfixtures.Read(t, testfixtures.DebianVmlinux))
	testfixtures.CompareLines(t, bpftoolDump(t, writeTemp(t, "af_key.btf", split), basePath), testfixtures.Read(t, "bpftool/modules/af_key.raw.txt.gz"))
	_ = base
}

// TestBpftoolFullVmlinux: bpftool reads the rebuilt host vmlinux.
func TestBpftoolFullVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	raw := marshal(t, copyAll(t, hostSpec(t), false), builder.Options{})
	testfixtures.CompareLines(t, bpftoolDump(t, writeTemp(t, "vmlinux.btf", raw), ""), testfixtures.Read(t, "bpftool/host-6.18.44.raw.txt.gz"))
}

// TestELF: the object is a well-formed ELF64 relocatable for BPF in the
// BTF's byte order, its .BTF section is the raw output, and btf.Read finds
// it.
func TestELF(t *testing.T) {
	b, want := allKinds(t)
	for _, bo := range []struct {
		opts builder.Options
		data elf.Data
	}{{builder.Options{ByteOrder: littleEndian}, elf.ELFDATA2LSB}, {builder.Options{ByteOrder: bigEndian}, elf.ELFDATA2MSB}} {
		obj, err := b.MarshalELF(bo.opts)
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.NewFile(bytes.NewReader(obj))
		if err != nil {
			t.Fatal(err)
		}
		if f.Class != elf.ELFCLASS64 || f.Data != bo.data || f.Type != elf.ET_REL || f.Machine != elf.EM_BPF {
			t.Fatalf("ELF header: %v %v %v %v", f.Class, f.Data, f.Type, f.Machine)
		}
		sec := f.Section(".BTF")
		if sec == nil {
			t.Fatal("no .BTF section")
		}
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, marshal(t, b, bo.opts)) {
			t.Fatal(".BTF section differs from Marshal's output")
		}
		if _, err := f.Symbols(); err != nil {
			t.Fatalf("symbol table: %v", err)
		}
		s, err := btf.Read(context.Background(), bytes.NewReader(obj), btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		testfixtures.CompareLines(t, dump(t, s, btf.ScopeAll), []byte(want))
	}
	if _, err := builder.ELF([]byte("not btf")); err == nil {
		t.Fatal("ELF accepted data without the BTF magic")
	}
}
