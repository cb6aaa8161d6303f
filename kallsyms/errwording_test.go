package kallsyms_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/kallsyms"
)

// TestTooLargeFileSize: a regular file over the limit is refused by its
// size, which the error gives, as the other file refusals do.
func TestTooLargeFileSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kallsyms")
	if err := os.WriteFile(path, []byte("ffffffff81000000 T _text\nffffffff81000010 T _stext\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := kallsyms.ReadFile(path, kallsyms.Options{MaxSize: 10})
	want := "kallsyms: " + path + " is 51 bytes, more than the limit of 10 bytes"
	if err == nil || err.Error() != want {
		t.Errorf("ReadFile under 10 bytes:\n got %v\nwant %s", err, want)
	}
}
