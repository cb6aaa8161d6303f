package btf_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
)

// An external module built with pahole's distilled_base feature carries
// its BTF on a small distilled base (.BTF.base). Open with a base
// relocates it onto that base, as the kernel does when it loads the
// module; a base whose types do not fit gives ErrBaseMismatch.
func Example_distilled() {
	ctx := context.Background()
	vmlinux, err := btf.Open(ctx, "../testdata/btf/debian-6.12-cloud.btf.zst", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()

	const ko = "../testdata/elf/distilled/debian-6.12-af_key.ko.gz"
	mod, err := btf.Open(ctx, ko, btf.Options{Base: vmlinux})
	if err != nil {
		log.Fatal(err)
	}
	defer mod.Close()
	sk, err := mod.FindOne("pfkey_sock", btf.FindOptions{Kind: btf.KindStruct, Scope: btf.ScopeOwn})
	if err != nil {
		log.Fatal(err)
	}
	first, err := mod.TypeByID(sk.Member(0).Type)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("af_key: ids %d-%d; pfkey_sock begins with struct %s (id %d, %d members)\n",
		mod.FirstID(), mod.LastID(), first.Name(), first.ID(), first.Vlen())

	other, err := btf.Open(ctx, "../testdata/btf/debian-7.3-cloud.btf.zst", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer other.Close()
	_, err = btf.Open(ctx, ko, btf.Options{Base: other})
	fmt.Println(errors.Is(err, btf.ErrBaseMismatch))
	// Output:
	// af_key: ids 108448-108703; pfkey_sock begins with struct sock (id 2991, 107 members)
	// true
}
