package btf_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
)

// A module's BTF is split BTF: its type ids continue after vmlinux's, and its
// types refer to vmlinux's. Open vmlinux first, then the module on top of it;
// ScopeOwn walks only the module's own types, as bpftool -B prints them.
func Example_split() {
	vmlinux, err := btf.Open(context.Background(), "../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()

	// The .BTF section of a compressed module, read on its base.
	mod, err := btf.Open(context.Background(), "../testdata/elf/af_key.ko.gz", btf.Options{Base: vmlinux})
	if err != nil {
		log.Fatal(err)
	}
	defer mod.Close()
	fmt.Printf("af_key: ids %d-%d, %d own types\n", mod.FirstID(), mod.LastID(), mod.NumTypes())

	sk, err := mod.FindOne("pfkey_sock", btf.FindOptions{Kind: btf.KindStruct, Scope: btf.ScopeOwn})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range sk.Members() {
		t, err := mod.TypeByID(m.Type) // an id of vmlinux's
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("struct %s (%d bytes) begins with %s, a struct %s of vmlinux (id %d)\n",
			sk.Name(), sk.Size(), m.Name(), t.Name(), m.Type)
		break
	}
	// Output:
	// af_key: ids 94976-95151, 176 own types
	// struct pfkey_sock (880 bytes) begins with sk, a struct sock of vmlinux (id 770)
}
