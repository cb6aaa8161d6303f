package main

import (
	"bytes"
	"encoding/json"
	"io"
)

// Every --json output has one of two forms (the README's "JSON output"):
//
//   - a document: one JSON value, an array of records or an object,
//     indented by two spaces and ending in a newline (writeJSON); the
//     output of every command but these two:
//   - a stream of records, as JSON Lines (one compact object per line,
//     newJSONLines, and rawdump.WriteJSON for btf dump) where the output is long and written as it is made:
//     btf dump --json (a record per type: 95,000 for a vmlinux) and ksym
//     watch --json (a record per event, as events come).
//
// Neither escapes <, > and & (encoding/json's default, for HTML), which
// kernel names and C type spellings ("a -> b") hold.

// writeJSON writes v to w as a JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// newJSONLines returns an encoder of JSON Lines: each Encode writes one
// record on one line.
func newJSONLines(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// ptr returns a pointer to a copy of v, for the optional numbers of JSON
// records.
func ptr[T any](v T) *T { return &v }

// jsonArray writes a JSON array an element at a time, byte for byte as
// writeJSON writes the slice of them, so that a long list (btf find's
// matches) is never held.
type jsonArray struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	n   int
}

// newJSONArray returns a jsonArray that writes to w.
func newJSONArray(w io.Writer) *jsonArray {
	a := &jsonArray{w: w}
	a.enc = json.NewEncoder(&a.buf)
	a.enc.SetIndent("  ", "  ")
	a.enc.SetEscapeHTML(false)
	return a
}

// add writes the element v.
func (a *jsonArray) add(v any) error {
	a.buf.Reset()
	if err := a.enc.Encode(v); err != nil {
		return err
	}
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.n++
	if _, err := io.WriteString(a.w, sep); err != nil {
		return err
	}
	_, err := a.w.Write(bytes.TrimSuffix(a.buf.Bytes(), []byte("\n")))
	return err
}

// close ends the array.
func (a *jsonArray) close() error {
	end := "\n]\n"
	if a.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}
