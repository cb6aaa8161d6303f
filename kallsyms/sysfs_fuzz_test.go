package kallsyms

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzReadModules writes one module's sysfs directory from mutated
// attributes (seeded with the synthetic sysfs tree's modules) and reads
// it with ReadModules and ReadModule: never a panic, never a read outside
// root/module (a name that is not one path element is not found), and
// both give the same module.
func FuzzReadModules(f *testing.F) {
	tr := tar.NewReader(bytes.NewReader(testfixtures.ReadPath(f, synthSysfsFixure)))
	attrs := map[string]map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Fatal(err)
		}
		mod, attr, ok := strings.Cut(strings.TrimPrefix(h.Name, "sys/module/"), "/")
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			f.Fatal(err)
		}
		if attrs[mod] == nil {
			attrs[mod] = map[string][]byte{}
		}
		attrs[mod][attr] = data
	}
	n := 0
	for mod, a := range attrs {
		if n++; n > 8 {
			break
		}
		f.Add(mod, a["coresize"], a["sections/.text"], a["initstate"], a["notes/.note.gnu.build-id"])
	}
	f.Add("../module/x", []byte("1"), []byte("0x10"), []byte("live"), []byte{})
	f.Fuzz(func(t *testing.T, name string, coresize, text, state, note []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "module", name)
		one := name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
		if one {
			for attr, data := range map[string][]byte{"coresize": coresize, "sections/.text": text, "initstate": state, "notes/.note.gnu.build-id": note} {
				p := filepath.Join(dir, attr)
				if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, data, 0o644) != nil {
					one = false
				}
			}
		}
		all, err := ReadModules(root)
		if err != nil && one {
			t.Fatalf("ReadModules: %v", err)
		}
		info, err := ReadModule(root, name)
		switch {
		case err != nil && !errors.Is(err, ErrNotFound):
			t.Fatalf("ReadModule(%q): %v, not ErrNotFound", name, err)
		case err == nil && !one:
			t.Fatalf("ReadModule(%q) found a module outside root/module: %+v", name, info)
		case err == nil && (len(all) != 1 || all[0].Name != info.Name || all[0].Size != info.Size || all[0].Text != info.Text || all[0].State != info.State || !bytes.Equal(all[0].BuildID, info.BuildID)):
			t.Fatalf("ReadModule = %+v; ReadModules = %+v", info, all)
		case err != nil && len(all) > 0:
			t.Fatalf("ReadModule(%q): %v; ReadModules found %+v", name, err, all)
		}
	})
}
