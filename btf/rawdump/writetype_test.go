package rawdump_test

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// writeCounter counts the writes it is given.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestWriteTypeBuffered: WriteType leaves a *bufio.Writer unflushed, so
// that btf find, printing a name that a million types share, made a
// system call for each (2.9 s against 0.47 for btf dump of the same
// types), and prints what Write prints, type by type.
func TestWriteTypeBuffered(t *testing.T) {
	s := testfixtures.DebianSpec(t)
	var want bytes.Buffer
	if err := rawdump.Write(&want, s, rawdump.Options{}); err != nil {
		t.Fatal(err)
	}
	var unbuffered, got writeCounter
	w := bufio.NewWriterSize(&got, 64<<10)
	for _, t2 := range s.All() {
		if t2.ID() == 0 {
			continue
		}
		if err := rawdump.WriteType(w, t2); err != nil {
			t.Fatal(err)
		}
		if t2.ID() <= 100 {
			if err := rawdump.WriteType(&unbuffered, t2); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("WriteType of every type differs from Write")
	}
	if limit := want.Len()/(64<<10) + 2; got.writes > limit {
		t.Errorf("%d writes to the writer under a bufio.Writer of 64 KB for %d bytes, want at most %d", got.writes, want.Len(), limit)
	}
	if unbuffered.writes != 100 {
		t.Errorf("%d writes for 100 types to an unbuffered writer, want one each", unbuffered.writes)
	}
}
