package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// MagicLen is how many bytes Detect needs to tell a compressed stream.
const MagicLen = 6

// Uncompressed returns a reader of r's text and the format it was
// compressed in: r itself (None) when r's first bytes are not a gzip, xz
// or zstd magic, or else what r's data decompresses to. The compressed
// data is read whole first, under limit, so that the xz and zstd readers
// check the size it claims and its window against limit before they
// inflate anything (see Decompress); what it inflates to is held to limit
// too, by an error that names what. done releases the compressed data.
func Uncompressed(r io.Reader, what string, limit int64) (text io.Reader, f Format, done func(), err error) {
	var head [MagicLen]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, None, nil, err
	}
	r = io.MultiReader(bytes.NewReader(head[:n]), r)
	f = Detect(head[:n])
	if f == None {
		return r, None, func() {}, nil
	}
	data, err := ReadAll(context.Background(), r, Options{Limit: limit, What: what})
	if err != nil {
		return nil, None, nil, err
	}
	z, _, err := Decompress(f, data.Bytes(), limit)
	if err != nil {
		data.Release()
		if errors.Is(err, ErrTooLarge) {
			// Bound errors name their input (kallsyms.ReadFile adds no path to them).
			return nil, None, nil, fmt.Errorf("%s: %v: %w", what, f, err)
		}
		return nil, None, nil, fmt.Errorf("%v: %w", f, err)
	}
	z = formatErrors{r: z, f: f}
	return &LimitReader{R: z, What: "decompressed " + f.String() + " text of " + what, Limit: limit}, f, func() { data.Release() }, nil
}

// formatErrors names the compression format in its reader's errors
// ("gzip: unexpected EOF"), other than the end of the data.
type formatErrors struct {
	r io.Reader
	f Format
}

func (e formatErrors) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("%v: %w", e.f, err)
	}
	return n, err
}
