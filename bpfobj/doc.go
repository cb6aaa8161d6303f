// Package bpfobj reads the BPF objects that the running kernel holds: its
// BTF objects (vmlinux's, each module's, and the BTF that BPF programs and
// maps were loaded with), and which programs and maps use which BTF. It is
// what "bpftool btf list" and "bpftool btf dump id|prog|map" read.
//
// BTFs, Progs and Maps walk the kernel's ids (BPF_BTF_GET_NEXT_ID,
// BPF_PROG_GET_NEXT_ID, BPF_MAP_GET_NEXT_ID) and yield each object's
// information; BTFByID, ProgByID and MapByID read one. OpenBTF reads a BTF
// object's raw bytes (BPF_OBJ_GET_INFO_BY_FD) into a *btf.Spec: a module's
// BTF is split BTF on vmlinux, and is opened on a vmlinux base as bpftool
// opens it; the BTF of programs and maps stands alone.
//
//	for info, err := range bpfobj.BTFs() {
//		if err != nil { ... }
//		b, err := bpfobj.OpenBTF(info.ID, bpfobj.Options{})
//		...
//		defer b.Close()
//		t, err := b.Spec.FindOne("flow_key", btf.FindOptions{})
//	}
//
// Ids are the kernel's: an object may go away between the walk that
// finds its id and the call that opens it. The walks skip such objects, as
// bpftool does; opening an id that is gone gives an error wrapping
// ErrNotFound.
//
// Off Linux every call returns an error wrapping errors.ErrUnsupported.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// The functions keep no state and are safe for concurrent use. A BTF, once
// opened, is a copy of the kernel's data: it is safe for concurrent use
// (see btf.Spec) and stays valid when the kernel object goes away, until
// Close.
//
// # Security
//
// Reading BPF objects by id needs CAP_SYS_ADMIN (or root): the kernel
// refuses BPF_*_GET_NEXT_ID and BPF_*_GET_FD_BY_ID to CAP_BPF alone. Without
// it the errors wrap os.ErrPermission and say what is missing. The raw BTF comes from the kernel and is still parsed as
// hostile input by package btf; its size, which the kernel reports, is
// capped by Options.MaxSize before anything is allocated.
package bpfobj
