package dedup_test

import (
	"archive/tar"
	"bytes"
	"io"
	"path"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// soupFiles returns the files of testdata/soup.tar.gz by path. in/ holds
// BTF whose members, typedefs, pointers, arrays (element and index),
// params and return types refer to a FUNC, FUNC_PROTO, VAR, DATASEC,
// DECL_TAG or void: "shared-KIND-POS" (two holders of one odd type),
// "twin-KIND-POS" (two units, each with its own odd types of the same
// names), "apart-KIND-POS" (of other names), "varvar", "order-var-first",
// "never-compared", "loop-KIND" (a KIND and a DECL_TAG on it
// referring to each other) and the twelfth red team's kind-soup-60. libbpf/ holds
// libbpf 1.8's btf__dedup of those it deduplicates
// (testdata/libbpf/libbpfdedup.c); it fails on the others. split/ holds
// kind-soup-6 as a base, split BTF on it and libbpf's result.
func soupFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	// ReadPath inflates the gzip.
	tr := tar.NewReader(bytes.NewReader(testfixtures.ReadPath(t, "testdata/soup.tar.gz")))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[path.Clean(h.Name)] = data
	}
}

// TestLibbpfSoup checks references to kinds libbpf's graph comparison
// does not compare (VAR, DATASEC, DECL_TAG) against libbpf 1.8: where it
// deduplicates, the same bytes; where it fails (two such types of one
// name met in a comparison), a refusal. "never-compared" is refused
// though libbpf deduplicates it: its two VARs of one name are never
// compared, but whether they are depends on the comparisons the filters
// skip (checkOdd), so kmeta refuses every such input. Under 0.1 s.
func TestLibbpfSoup(t *testing.T) {
	files := soupFiles(t)
	for name, raw := range files {
		base, ok := strings.CutPrefix(name, "in/")
		if !ok {
			continue
		}
		t.Run(strings.TrimSuffix(base, ".btf"), func(t *testing.T) {
			got, err := dedup.Specs(nil, parse(t, raw, nil))
			want, ok := files["libbpf/"+base]
			switch {
			case base == "never-compared.btf" || !ok:
				if err == nil {
					t.Fatal("deduplicated; libbpf fails, or kmeta refuses (checkOdd)")
				}
			case err != nil:
				t.Fatal(err)
			default:
				equalBTF(t, got, want, nil)
			}
		})
	}
	vm := parse(t, files["split/base.btf"], nil)
	b, err := dedup.NewBase(vm, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dedup.Specs(b, parse(t, files["split/split-same.btf"], vm))
	if err != nil {
		t.Fatal(err)
	}
	equalBTF(t, got, files["split/split-same.libbpf.btf"], vm)
	if _, err := dedup.Specs(b, parse(t, files["split/split-own.btf"], vm)); err == nil {
		t.Error("split-own: deduplicated; libbpf fails on its VAR and the base's")
	}
}
