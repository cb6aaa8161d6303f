package dedup_test

import (
	"archive/tar"
	"bytes"
	"io"
	"path"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// soupFiles returns the files of testdata/soup.tar.gz by path (its
// README says what they are and how they were made). in/ holds BTF whose
// members, typedefs, pointers, arrays (element and index), params and
// return types refer to a FUNC, FUNC_PROTO, VAR, DATASEC, DECL_TAG or
// void, among them inputs whose graphs reach two VARs, DATASECs or
// DECL_TAGs of one name, compared or not depending on libbpf's order;
// libbpf/ holds libbpf 1.8's btf__dedup of those it deduplicates
// (testdata/libbpf/libbpfdedup.c); it fails on the others. split/ holds
// bases, split BTF on them and libbpf's results.
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
// name met in a comparison), a refusal. Where two such types can be
// reached, kmeta compares every candidate in libbpf's order (checkOdd).
// Under 0.1 s.
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
			case !ok:
				if err == nil {
					t.Fatal("deduplicated; libbpf fails")
				}
			case err != nil:
				t.Fatal(err)
			default:
				equalBTF(t, got, want, nil)
			}
		})
	}
	for _, c := range []struct{ base, in, want string }{
		{"base", "split-same", "split-same.libbpf"},
		{"base", "split-own", ""},
		{"nc-base", "nc", "nc.libbpf"},
		{"nc-base", "nc-fail", ""},
		{"chain-base", "chain-ok", "chain-ok.libbpf"},
		{"chain-base", "chain-fail", ""},
	} {
		t.Run("split-"+c.in, func(t *testing.T) {
			vm := parse(t, files["split/"+c.base+".btf"], nil)
			b, err := dedup.NewBase(vm, dedup.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := dedup.Specs(b, parse(t, files["split/"+c.in+".btf"], vm))
			switch {
			case c.want == "":
				if err == nil {
					t.Fatal("deduplicated; libbpf fails on its VAR and the base's")
				}
			case err != nil:
				t.Fatal(err)
			default:
				equalBTF(t, got, files["split/"+c.want+".btf"], vm)
			}
		})
	}
}

// TestSoupPipeline appends each input of TestLibbpfSoup a type at a time
// to a pipelined Merger (as dwarf2btf appends its compile units) and
// checks that it writes what a Merger that deduplicates at the end
// writes, or refuses as it does: the pipeline decides structs only until
// a graph may reach a VAR, DATASEC or DECL_TAG, and those it decided are
// filed again under the key of faithful mode (pipeFinish). Under 0.3 s.
func TestSoupPipeline(t *testing.T) {
	files := soupFiles(t)
	for name, raw := range files {
		if !strings.HasPrefix(name, "in/") {
			continue
		}
		spec := parse(t, raw, nil)
		var outs [2][]byte
		var errs [2]error
		for i, pipe := range []bool{false, true} {
			m := dedup.New(nil, dedup.Options{})
			if pipe {
				if err := m.Pipeline(); err != nil {
					t.Fatal(err)
				}
			}
			b := builder.New()
			for _, typ := range spec.Types(btf.ScopeAll) {
				if _, err := b.Copy(typ); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := m.AddBuilder(b); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				b.Forget()
			}
			outs[i], errs[i] = m.Dedup(builder.Options{})
		}
		if (errs[0] == nil) != (errs[1] == nil) || !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s: pipelined %d bytes (%v), at the end %d (%v)", name, len(outs[1]), errs[1], len(outs[0]), errs[0])
		}
	}
}
