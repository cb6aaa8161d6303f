package distill_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/distill"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestPahole distills the BTF that pahole 1.30 writes for a module
// without the distilled_base feature, and compares both sections with
// what it writes with it (libbpf 1.5's btf__distill_base inside pahole).
func TestPahole(t *testing.T) {
	for _, m := range testfixtures.Distilled {
		t.Run(m.Name, func(t *testing.T) {
			vmlinux := testfixtures.Spec(t, testfixtures.Read(t, m.Base), nil)
			split := testfixtures.Spec(t, testfixtures.Read(t, m.Undistilled), vmlinux)
			base, newSplit, err := distill.Distill(split)
			if err != nil {
				t.Fatal(err)
			}
			wantSplit, wantBase := testfixtures.DistilledSections(t, m.Name)
			if !bytes.Equal(base, wantBase) {
				t.Errorf(".BTF.base: %d bytes differ from pahole's %d", len(base), len(wantBase))
			}
			if !bytes.Equal(newSplit, wantSplit) {
				t.Errorf(".BTF: %d bytes differ from pahole's %d", len(newSplit), len(wantSplit))
			}
		})
	}
}

// TestRoundTrip distills a module in the other byte order too, and
// relocates what Distill wrote back onto its vmlinux: the module reads as
// bpftool 7.5 prints the distilled module relocated.
func TestRoundTrip(t *testing.T) {
	m := testfixtures.Distilled[0]
	vmlinux := testfixtures.Spec(t, testfixtures.Read(t, m.Base), nil)
	want := testfixtures.Read(t, "bpftool/distilled/"+m.Name+".raw.txt.gz")
	raw := testfixtures.Read(t, m.Undistilled)
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		b, err := builder.NewSplit(vmlinux)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CopyAll(testfixtures.Spec(t, raw, vmlinux)); err != nil {
			t.Fatal(err)
		}
		out, err := b.Marshal(builder.Options{ByteOrder: bo})
		if err != nil {
			t.Fatal(err)
		}
		base, split, err := distill.Distill(testfixtures.Spec(t, out, vmlinux))
		if err != nil {
			t.Fatal(err)
		}
		dist := testfixtures.Spec(t, base, nil)
		onDist := testfixtures.Spec(t, split, dist)
		if dist.ByteOrder() != bo || onDist.ByteOrder() != bo {
			t.Errorf("%v: written in %v and %v", bo, dist.ByteOrder(), onDist.ByteOrder())
		}
		rel, err := btf.Relocate(onDist, vmlinux)
		if err != nil {
			t.Fatal(err)
		}
		testfixtures.CompareLines(t, testfixtures.RawDump(t, rel, btf.ScopeOwn), want)
	}
}

// TestErrors checks what Distill refuses: standalone BTF, and a module
// that refers to a kind of base type that has no distilled form.
func TestErrors(t *testing.T) {
	vmlinux := testfixtures.Spec(t, testfixtures.Read(t, testfixtures.Distilled[0].Base), nil)
	if _, _, err := distill.Distill(vmlinux); !errors.Is(err, distill.ErrNotSplit) {
		t.Errorf("standalone: err = %v, want ErrNotSplit", err)
	}
	fn, err := vmlinux.FindOne("schedule", btf.FindOptions{Kind: btf.KindFunc})
	if err != nil {
		t.Fatal(err)
	}
	b, err := builder.NewSplit(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddDeclTag("tag", fn.ID(), -1, false); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = distill.Distill(testfixtures.Spec(t, raw, vmlinux))
	if err == nil || !strings.Contains(err.Error(), `FUNC "schedule"`) || strings.Count(err.Error(), "distill: ") != 1 ||
		!strings.HasPrefix(err.Error(), "distill: ") {
		t.Errorf("a DECL_TAG on a base FUNC: err = %v, want one naming FUNC \"schedule\", starting with \"distill: \" once", err)
	}
}

// TestKernelLoadsBase loads each distilled base Distill writes into the
// running kernel (bpf(BPF_BTF_LOAD), as root), which checks it as any
// BTF: memberless structs and enums are valid BTF.
func TestKernelLoadsBase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel acceptance needs root (CAP_BPF) for bpf(BPF_BTF_LOAD); skipped")
	}
	if err := bpfsys.Available(); err != nil {
		t.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", err)
	}
	for _, m := range testfixtures.Distilled {
		vmlinux := testfixtures.Spec(t, testfixtures.Read(t, m.Base), nil)
		base, _, err := distill.Distill(testfixtures.Spec(t, testfixtures.Read(t, m.Undistilled), vmlinux))
		if err != nil {
			t.Fatal(err)
		}
		f, err := bpfsys.LoadBTF(base)
		if err != nil {
			t.Fatalf("%s: the kernel rejects the distilled base: %v", m.Name, err)
		}
		f.Close()
	}
}

// TestBigEndianBaseGivenBack distills a module on a big-endian base file,
// which Open swaps in place: the base stays readable after Distill,
// unless its owner said that distill reads it last (btfmem.LastReader,
// as the CLI does), when its records go back to the file. Both give what
// Distill gives on the base in memory.
func TestBigEndianBaseGivenBack(t *testing.T) {
	m := testfixtures.Distilled[0]
	raw := testfixtures.Read(t, m.Base)
	h, err := wire.ParseHeader(raw, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	be := wire.Swap(raw, h)
	path := filepath.Join(t.TempDir(), "vmlinux.be")
	if err := os.WriteFile(path, be, 0o644); err != nil {
		t.Fatal(err)
	}
	held := testfixtures.Spec(t, be, nil)
	b, err := builder.NewSplit(held)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyAll(testfixtures.Spec(t, testfixtures.Read(t, m.Undistilled), held)); err != nil {
		t.Fatal(err)
	}
	module, err := b.Marshal(builder.Options{ByteOrder: binary.BigEndian})
	if err != nil {
		t.Fatal(err)
	}
	wantBase, wantSplit, err := distill.Distill(testfixtures.Spec(t, module, held))
	if err != nil {
		t.Fatal(err)
	}
	for _, last := range []bool{false, true} {
		base, err := btf.Open(context.Background(), path, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		split := testfixtures.Spec(t, module, base)
		if last {
			btfmem.LastReader(base)
		}
		gotBase, gotSplit, err := distill.Distill(split)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotBase, wantBase) || !bytes.Equal(gotSplit, wantSplit) {
			t.Errorf("last reader %v: distilled differently from the base in memory", last)
		}
		if _, err := base.TypeByID(1); (err != nil) != last {
			t.Errorf("last reader %v: base lookup after Distill: %v", last, err)
		}
		if err := base.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
