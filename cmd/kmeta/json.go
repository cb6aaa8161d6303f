package main

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"

	"github.com/kmeta-dev/kmeta/btf/layout"
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

// writeLayoutsJSON writes the layouts as a document, each as it is made,
// so that memory does not grow with the output (issue 37). (Member types
// are pahole's spellings with its stray spaces trimmed: btf/layout does
// that.) Nothing is written before the first layout or error: an error
// then leaves w as it was.
func writeLayoutsJSON(w io.Writer, ls iter.Seq2[layout.Struct, error]) error {
	return writeJSONArray(w, ls)
}

// writeJSONArray writes the values of seq as a JSON document, an array,
// byte for byte as writeJSON writes the slice of them, one value at a
// time.
func writeJSONArray[T any](w io.Writer, seq iter.Seq2[T, error]) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	sep := "[\n  "
	for v, err := range seq {
		if err != nil {
			return err
		}
		buf.Reset()
		buf.WriteString(sep)
		if err := enc.Encode(v); err != nil {
			return err
		}
		if _, err := w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); err != nil {
			return err
		}
		sep = ",\n  "
	}
	end := "\n]\n"
	if sep == "[\n  " {
		end = "[]\n"
	}
	_, err := io.WriteString(w, end)
	return err
}

// ptr returns a pointer to a copy of v, for the optional numbers of JSON
// records.
func ptr[T any](v T) *T { return &v }
