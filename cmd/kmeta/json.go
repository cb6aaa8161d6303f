package main

import (
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
