package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestBTFLayout(t *testing.T) {
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmeta(t, nil, "btf", "layout", deb)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(testfixtures.Read(t, "pahole/debian-6.1.layout.txt.gz")) {
		t.Fatal("btf layout differs from pahole's")
	}
	out, err = kmeta(t, nil, "btf", "layout", "list_head", "hlist_node", deb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "struct list_head {\n") || !strings.Contains(out, "struct hlist_node {\n") {
		t.Errorf("layout list_head hlist_node:\n%s", out)
	}
	out, err = kmeta(t, nil, "btf", "layout", "--json", "list_head", deb)
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Name    string
		Size    int
		Members []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "list_head" || got[0].Size != 16 || len(got[0].Members) != 2 {
		t.Errorf("layout --json list_head = %+v", got)
	}
	if _, err := kmeta(t, nil, "btf", "layout", "no_such_struct", deb); err == nil || exitStatus(t.Context(), err) != exitFailure {
		t.Errorf("unknown struct: err %v", err)
	}
}

func TestBTFDiff(t *testing.T) {
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	host := testfixtures.File(t, testfixtures.HostVmlinux)
	out, err := kmeta(t, nil, "btf", "diff", deb, deb)
	if err != nil || out != "" {
		t.Fatalf("diff X X: %q, %v", out, err)
	}
	out, err = kmeta(t, nil, "btf", "diff", "--types", "sk_buff", deb, host)
	if !errors.Is(err, errQuiet) || exitStatus(t.Context(), err) != exitNotFound {
		t.Fatalf("diff of different BTFs: err %v, want status 1", err)
	}
	if !strings.Contains(out, "changed struct sk_buff\n\tsize: 232 -> 224\n") {
		t.Errorf("diff --types sk_buff:\n%s", out)
	}
	out, _ = kmeta(t, nil, "btf", "diff", "--json", "--types", "sk_buff", deb, host)
	var changes []struct{ Kind, Name, Change string }
	if err := json.Unmarshal([]byte(out), &changes); err != nil || len(changes) == 0 {
		t.Fatalf("diff --json: %v, %d changes", err, len(changes))
	}
	if _, err := kmeta(t, nil, "btf", "diff", deb, "/nonexistent"); exitStatus(t.Context(), err) != exitFailure {
		t.Errorf("diff with a missing file: err %v, want status 2", err)
	}
}
