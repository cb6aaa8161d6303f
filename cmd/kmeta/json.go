package main

import (
	"encoding/json"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
)

// Every --json output has one of two forms (the README's "JSON output"):
//
//   - a document: one JSON value, an array of records or an object,
//     indented by two spaces and ending in a newline (writeJSON); the
//     output of every command but these two:
//   - a stream of records, as JSON Lines (one compact object per line,
//     newJSONLines) where the output is long and written as it is made:
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

// writeTypesJSONLines writes the types of s in scope as JSON Lines, one
// type per line in rawdump's JSON form.
func writeTypesJSONLines(w io.Writer, s *btf.Spec, scope btf.Scope) error {
	enc := newJSONLines(w)
	for _, t := range s.Types(scope) {
		if err := enc.Encode(newTypeJSON(t)); err != nil {
			return err
		}
	}
	// A Spec opened lazily reports a bad record here, after the walk.
	_, err := s.TypeByID(0)
	return err
}

// writeLayoutsJSON writes the layouts as a document. (Member types are
// pahole's spellings with its stray spaces trimmed: btf/layout does that.)
func writeLayoutsJSON(w io.Writer, ls []layout.Struct) error {
	if ls == nil {
		ls = []layout.Struct{}
	}
	return writeJSON(w, ls)
}
