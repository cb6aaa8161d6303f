package diff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// WriteText prints changes as a changelog: one line a type ("added struct
// foo", "removed func bar", "changed struct sk_buff"), the details of a
// change indented below it.
func WriteText(w io.Writer, changes []Change) error {
	bw := bufio.NewWriter(w)
	for _, c := range changes {
		fmt.Fprintf(bw, "%-7s %s %s\n", c.Change, c.Kind, c.Name)
		for _, d := range c.Details {
			fmt.Fprintf(bw, "\t%s\n", d)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// WriteJSON prints changes as a JSON array of objects with the keys kind,
// name, change and details, indented by two spaces, with <, > and &
// written as they are (the details hold "->").
func WriteJSON(w io.Writer, changes []Change) error {
	if changes == nil {
		changes = []Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(changes); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}
