package kallsyms_test

import (
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/kallsyms"
)

// TestErrorPrefix: the errors of ReadFile and Parse on bad input, and of
// failed lookups, start with "kallsyms: " once, also where they wrap a
// sentinel of the package or name the file.
func TestErrorPrefix(t *testing.T) {
	fuzztest.CheckFiles(t, "kallsyms", func(path string) error {
		_, err := kallsyms.ReadFile(path, kallsyms.Options{MaxSize: 10})
		return err
	})
	_, err := kallsyms.Parse(strings.NewReader("ffffffff81000000 T _text\nffffffff81000010 t helper [mod]\nnot a line\n"), kallsyms.Options{})
	if err == nil {
		t.Fatal("Parse accepts a bad line")
	}
	fuzztest.CheckError(t, "kallsyms", err)
	s, err := kallsyms.Parse(strings.NewReader("ffffffff81000000 T _text\nffffffff81000010 t helper\t[mod]\n"), kallsyms.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Module("no_such_module")
	fuzztest.CheckError(t, "kallsyms", err)
	_, err = s.Lookup(1)
	fuzztest.CheckError(t, "kallsyms", err)
	_, err = s.LookupName("no_such_symbol", "")
	fuzztest.CheckError(t, "kallsyms", err)
	_, err = kallsyms.ReadModule(t.TempDir(), "no_such_module")
	fuzztest.CheckError(t, "kallsyms", err)
}
