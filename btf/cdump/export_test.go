package cdump

import (
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// WriteSkipFirst writes s as bpftool 7.5 does, leaving out, as it does, the
// type that sorts first (see the package documentation).
func WriteSkipFirst(w io.Writer, s *btf.Spec, opts Options) error {
	opts.skipFirst = true
	return Write(w, s, opts)
}
