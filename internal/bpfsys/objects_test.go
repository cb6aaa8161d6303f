package bpfsys

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// requireRoot skips the test unless it runs as root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: reading BPF objects needs CAP_BPF or CAP_SYS_ADMIN")
	}
}

// TestVmlinuxObject finds the kernel's vmlinux BTF object by walking the
// ids, and checks its raw BTF against /sys/kernel/btf/vmlinux.
func TestVmlinuxObject(t *testing.T) {
	requireRoot(t)
	want, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("no vmlinux BTF in sysfs: %v", err)
	}
	for id := uint32(0); ; {
		next, err := NextBTFID(id)
		if errors.Is(err, syscall.ENOENT) {
			t.Fatal("no BTF object named vmlinux")
		}
		if err != nil {
			t.Fatal(err)
		}
		id = next
		f, err := BTFByID(id)
		if errors.Is(err, syscall.ENOENT) {
			continue // gone meanwhile
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := f.BTFInfo(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		name := make([]byte, info.NameLen+1)
		data := make([]byte, info.Size)
		if info, err = f.BTFInfo(data, name); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if info.ID != id {
			t.Errorf("id %d reports id %d", id, info.ID)
		}
		if cString(name) != "vmlinux" {
			continue
		}
		if !info.Kernel {
			t.Error("vmlinux is not kernel BTF")
		}
		if string(data) != string(want) {
			t.Errorf("raw BTF of id %d (%d bytes) differs from sysfs (%d bytes)", id, len(data), len(want))
		}
		return
	}
}

func TestMissingID(t *testing.T) {
	requireRoot(t)
	_, err := BTFByID(1<<32 - 1)
	if !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("got %v, want ENOENT", err)
	}
	if !strings.HasPrefix(err.Error(), "BPF_BTF_GET_FD_BY_ID: ") {
		t.Errorf("error %q does not name the command", err)
	}
}

func TestErrorPermission(t *testing.T) {
	err := error(&Error{Op: "BPF_BTF_GET_NEXT_ID", Err: syscall.EPERM})
	if !strings.Contains(err.Error(), "CAP_SYS_ADMIN") || strings.Contains(err.Error(), "CAP_BPF") {
		t.Errorf("%q does not say what is needed", err)
	}
	if !errors.Is(err, os.ErrPermission) {
		t.Error("not os.ErrPermission")
	}
}
