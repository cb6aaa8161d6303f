package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteText prints changes as a changelog: one line a type ("added struct
// foo", "removed func bar", "changed struct sk_buff"), the details of a
// change indented below it, one line for each member, enumerator or
// property of the type ("member dl: offset 432 -> 456, type u64 -> u32").
func WriteText(w io.Writer, changes []Change) error {
	bw := bufio.NewWriter(w)
	for _, c := range changes {
		fmt.Fprintf(bw, "%-7s %s %s\n", c.Change, c.Kind, c.Name)
		for _, d := range detailLines(c.Details) {
			fmt.Fprintf(bw, "\t%s\n", d)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// Summary counts changes by what happened to the types.
type Summary struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

// Summarize counts changes.
func Summarize(changes []Change) Summary {
	var s Summary
	for _, c := range changes {
		switch c.Change {
		case Added:
			s.Added++
		case Removed:
			s.Removed++
		case Changed:
			s.Changed++
		}
	}
	return s
}

// Report is the document WriteJSON writes: the changes listed, their
// summary, and, when Options.Types named the types to compare, the
// summary of the changes to the types they reach.
type Report struct {
	Changes []Change `json:"changes"`
	Summary Summary  `json:"summary"` // of Changes
	// Reached counts the changes to the types that the named ones reach
	// (those marked Reached), whether Changes lists them or not; nil
	// without Options.Types.
	Reached *ReachedSummary `json:"reached,omitempty"`
}

// ReachedSummary counts the changes to the types that the named ones
// reach.
type ReachedSummary struct {
	Summary
	Listed bool `json:"listed"` // Report.Changes lists them
}

// WriteJSON prints r as one JSON document, indented by two spaces, with
// <, > and & written as they are (C declarations hold them). Changes and
// their details are [] when there are none.
func WriteJSON(w io.Writer, r Report) error {
	// Written one change at a time, byte for byte as an indented
	// json.Encoder writes the whole Report, which it would first build in
	// memory: a report of a million added types is hundreds of MB of JSON.
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	put := func(prefix string, v any) error {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return err
	}
	bw.WriteString("{\n  \"changes\": [")
	for i, c := range r.Changes {
		c.Details = emptyNotNil(c.Details)
		sep := ",\n    "
		if i == 0 {
			sep = "\n    "
		}
		bw.WriteString(sep)
		if err := put("    ", c); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	}
	if len(r.Changes) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"summary\": ")
	if err := put("  ", r.Summary); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	if r.Reached != nil {
		bw.WriteString(",\n  \"reached\": ")
		if err := put("  ", r.Reached); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	}
	bw.WriteString("\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

func emptyNotNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
