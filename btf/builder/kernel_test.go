package builder_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The kernel acceptance tests load what the Builder writes with
// bpf(BPF_BTF_LOAD), whose verifier checks every record, name and
// reference. They run as root (CI) and skip elsewhere.

// TestKernelFullVmlinux loads a copy of the host's vmlinux, every kind
// among its records, and with KMETA_HEAVY=1 (.ci/run) Debian's too.
func TestKernelFullVmlinux(t *testing.T) {
	requireKernel(t)
	for _, rel := range []string{testfixtures.HostVmlinux, testfixtures.DebianVmlinux} {
		t.Run(rel, func(t *testing.T) {
			if rel != testfixtures.HostVmlinux {
				testfixtures.SkipUnlessHeavy(t, "one more vmlinux through BPF_BTF_LOAD")
			}
			kernelLoad(t, marshal(t, copyAll(t, fixture(t, rel), false), builder.Options{}))
		})
	}
}

func TestKernelMinimal(t *testing.T) {
	requireKernel(t)
	want := []builder.Want{{Name: "task_struct"}, {Name: "sk_buff"}}
	for _, rel := range []string{testfixtures.HostVmlinux, testfixtures.DebianVmlinux} {
		for _, fwd := range []bool{false, true} {
			name := rel + "/whole"
			if fwd {
				name = rel + "/fwd-pointees"
			}
			t.Run(name, func(t *testing.T) {
				b, err := builder.Minimal(fixture(t, rel), want, builder.MinimalOptions{FwdPointees: fwd})
				if err != nil {
					t.Fatal(err)
				}
				kernelLoad(t, marshal(t, b, builder.Options{}))
			})
		}
	}
}

func TestKernelAllKinds(t *testing.T) {
	b, _ := allKinds(t)
	kernelLoad(t, marshal(t, b, builder.Options{}))
}

// TestKernelModules: the kernel has no way to load split BTF from user
// space (BPF_BTF_LOAD takes no base; only the kernel itself puts module BTF
// on vmlinux), and the Debian modules sit on a base that is not the running
// kernel's. So each module goes in standalone, with the base types it needs
// (Minimal of all its named types), and the split form is tried and its
// rejection logged.
func TestKernelModules(t *testing.T) {
	requireKernel(t)
	for _, name := range testfixtures.DebianGoldenModules {
		t.Run(name, func(t *testing.T) {
			mod := module(t, name)
			b := builder.New()
			var roots []btf.Type
			for _, typ := range mod.Types(btf.ScopeOwn) {
				roots = append(roots, typ)
			}
			if _, err := b.CopyTypes(roots); err != nil {
				t.Fatal(err)
			}
			kernelLoad(t, marshal(t, b, builder.Options{}))

			split := marshal(t, copyAll(t, mod, true), builder.Options{})
			if f, err := bpfsys.LoadBTF(split); err == nil {
				f.Close()
				t.Logf("the kernel accepted split BTF without its base")
			} else {
				var le *bpfsys.LoadError
				if errors.As(err, &le) {
					err = le.Err
				}
				t.Logf("split form, as expected, not loadable from user space: %v", err)
			}
		})
	}
}

// TestKernelRejectsForeignOrder documents that the kernel reads only its
// own byte order: our big-endian output is for other readers.
func TestKernelRejectsForeignOrder(t *testing.T) {
	requireKernel(t)
	b, _ := allKinds(t)
	other := binary.ByteOrder(binary.BigEndian)
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		other = binary.LittleEndian
	}
	if f, err := bpfsys.LoadBTF(marshal(t, b, builder.Options{ByteOrder: other})); err == nil {
		f.Close()
		t.Fatal("kernel accepted BTF in the foreign byte order")
	}
}

// TestKernelAsIs loads what WriteAsIs writes of the host's vmlinux, its
// string section kept as the input has it.
func TestKernelAsIs(t *testing.T) {
	requireKernel(t)
	var raw bytes.Buffer
	if err := builder.WriteAsIs(&raw, hostSpec(t), nil, builder.Options{}); err != nil {
		t.Fatal(err)
	}
	kernelLoad(t, raw.Bytes())
}
