package btfids_test

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/btfids"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// base73 returns the shipped vmlinux BTF of Debian's 7.3.4 cloud kernel.
func base73(tb testing.TB) *btf.Spec {
	tb.Helper()
	s, err := btf.Parse(testfixtures.Read(tb, "btf/debian-7.3-cloud.btf.xz"), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestIdenticalToResolveBTFIDs applies Finalize to pahole 1.30's output
// for af_key and tun of Debian's 7.3.4 cloud kernel and compares the
// result with the .BTF of the shipped modules, which Debian's build made
// from that output with resolve_btfids --btf: byte for byte.
func TestIdenticalToResolveBTFIDs(t *testing.T) {
	base := base73(t)
	for _, m := range []string{"af_key", "tun"} {
		t.Run(m, func(t *testing.T) {
			in := testfixtures.Read(t, "pahole/encode/debian-7.3/"+m+".pahole.btf.gz")
			want := testfixtures.Read(t, "pahole/encode/debian-7.3/"+m+".btf.gz")
			got, err := btfids.Finalize(in, btfids.Options{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%d bytes, resolve_btfids wrote %d", len(got), len(want))
			}
		})
	}
}

// TestKfuncs tags kfuncs, rewrites the prototype of one with an implicit
// argument and of one with an arena pointer, and refuses a kfunc listed
// with two sets of flags.
func TestKfuncs(t *testing.T) {
	base := base73(t)
	in := testfixtures.Read(t, "pahole/encode/debian-7.3/af_key.pahole.btf.gz")
	out, err := btfids.Finalize(in, btfids.Options{Base: base, Kfuncs: []btfids.Kfunc{
		{Name: "pfkey_send_notify", Flags: btfids.FlagFastcall | btfids.FlagArenaArg1},
		{Name: "pfkey_sendmsg", Flags: btfids.FlagImplicitArgs},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(out, btf.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{}
	for _, ty := range s.Types(btf.ScopeOwn) {
		if ty.Kind() != btf.KindDeclTag {
			continue
		}
		target, err := s.TypeByID(ty.Ref())
		if err != nil {
			t.Fatal(err)
		}
		tags[target.Name()+":"+ty.Name()]++
	}
	for _, want := range []string{"pfkey_send_notify:bpf_kfunc", "pfkey_send_notify:bpf_fastcall", "pfkey_sendmsg:bpf_kfunc"} {
		if tags[want] != 1 {
			t.Errorf("decl tag %s: %d, want 1 (all: %v)", want, tags[want], tags)
		}
	}
	if _, err := s.FindOne("pfkey_sendmsg_impl", btf.FindOptions{Scope: btf.ScopeOwn}); err != nil {
		t.Errorf("no pfkey_sendmsg_impl: %v", err)
	}
	if _, err := s.FindOne("address_space(1)", btf.FindOptions{Scope: btf.ScopeOwn}); err != nil {
		t.Errorf("no arena attribute: %v", err)
	}
	_, err = btfids.Finalize(in, btfids.Options{Base: base, Kfuncs: []btfids.Kfunc{
		{Name: "pfkey_sendmsg", Flags: 1}, {Name: "pfkey_sendmsg", Flags: 2},
	}})
	if err == nil {
		t.Error("a kfunc with two sets of flags was taken")
	}
}
