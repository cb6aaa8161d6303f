package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// WriteText prints changes as a changelog: one line a type ("added struct
// foo", "removed func bar", "changed struct sk_buff"), the details of a
// change indented below it, one line for each member, enumerator or
// property of the type ("member dl: offset 432 -> 456, type u64 -> u32").
func WriteText(w io.Writer, changes []Change) error {
	bw := bufio.NewWriter(w)
	for _, c := range changes {
		writeText(bw, c)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// writeText prints one change as WriteText does.
func writeText(bw *bufio.Writer, c Change) {
	fmt.Fprintf(bw, "%-7s %s %s\n", c.Change, c.Kind, c.Name)
	lw := lineWriter{w: bw}
	for d := range c.details(true) { // lw copies what it keeps

		lw.add(d)
	}
	lw.end()
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
		s.Count(c)
	}
	return s
}

// Count counts c.
func (s *Summary) Count(c Change) {
	switch c.Change {
	case Added:
		s.Added++
	case Removed:
		s.Removed++
	case Changed:
		s.Changed++
	}
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
	s := NewStream(w, true)
	for _, c := range r.Changes {
		if err := s.Add(c); err != nil {
			return err
		}
	}
	return s.Close(r.Summary, r.Reached)
}

// Stream writes changes one at a time, as Walk hands them over, byte for
// byte as WriteText or WriteJSON writes them all: a report of a million
// added types is never in memory.
type Stream struct {
	bw   *bufio.Writer
	json bool
	n    int
	buf  bytes.Buffer
	enc  *json.Encoder
	line []byte // a detail, as putDetail writes it
}

// NewStream returns a Stream writing to w as WriteJSON does, or with
// json false as WriteText does.
func NewStream(w io.Writer, json bool) *Stream {
	return &Stream{bw: bufio.NewWriterSize(w, 64<<10), json: json}
}

// put writes v indented as in a Report whose lines start with prefix.
func (s *Stream) put(prefix string, v any) error {
	b, err := s.encode(prefix, v)
	if err != nil {
		return err
	}
	_, err = s.bw.Write(b)
	return err
}

// encode returns v indented as put writes it, in s.buf.
func (s *Stream) encode(prefix string, v any) ([]byte, error) {
	if s.enc == nil {
		s.enc = json.NewEncoder(&s.buf)
		s.enc.SetEscapeHTML(false)
	}
	s.buf.Reset()
	s.enc.SetIndent(prefix, "  ")
	if err := s.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")), nil
}

// Add writes c.
func (s *Stream) Add(c Change) error {
	defer func() { s.n++ }()
	if !s.json {
		writeText(s.bw, c)
		return nil
	}
	sep := ",\n    "
	if s.n == 0 {
		sep = "{\n  \"changes\": [\n    "
	}
	s.bw.WriteString(sep)
	if err := s.putChange("    ", c); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// putChange writes c as put does, its details encoded one at a time, as
// they are made: a change of a group of a hundred thousand types, or of a
// struct of 65,535 members, has as many details, which encoded whole
// would take several times their size.
func (s *Stream) putChange(prefix string, c Change) error {
	details := c.details(true) // each detail is written before the next
	if c.more == nil && len(c.Details) == 0 {
		c.Details = []Detail{}
		return s.put(prefix, c)
	}
	c.Details, c.more = []Detail{}, nil
	b, err := s.encode(prefix, c)
	if err != nil {
		return err
	}
	// c is encoded with "details": [] (a key: quotes in values are
	// escaped); the details go between its brackets.
	whole := bytes.Clone(b)
	key := []byte(`"details": [`)
	i := bytes.Index(whole, key) + len(key)
	s.bw.Write(whole[:i])
	inner := prefix + "    "
	n := 0
	for d := range details {
		if n > 0 {
			s.bw.WriteByte(',')
		}
		n++
		s.bw.WriteString("\n" + inner)
		if err := s.putDetail(inner, d); err != nil {
			return err
		}
	}
	if n > 0 {
		s.bw.WriteString("\n" + prefix + "  ")
	}
	_, err = s.bw.Write(whole[i:])
	return err
}

// putDetail writes d as put does. A detail is written by hand, field by
// field, unless a value is of a type other than a detail's: with
// encoding/json each detail cost a reflective encoding, most of the CPU
// of a struct's change of millions of details (deep-of-wide-4095 against
// -4094: 9.4 s as JSON where the text took 1.7 s).
func (s *Stream) putDetail(prefix string, d Detail) error {
	if !plainValue(d.Old) || !plainValue(d.New) {
		return s.put(prefix, d)
	}
	b := append(s.line[:0], "{\n"...)
	field := func(key string, v any) error {
		if len(b) > 2 {
			b = append(b, ",\n"...)
		}
		b = append(append(append(append(b, prefix...), `  "`...), key...), `": `...)
		switch v := v.(type) {
		case string:
			if !plainString(v) {
				e, err := s.encode("", v)
				if err != nil {
					return err
				}
				b = append(b, e...)
				return nil
			}
			b = append(append(append(b, '"'), v...), '"')
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case uint64:
			b = strconv.AppendUint(b, v, 10)
		case bool:
			b = strconv.AppendBool(b, v)
		}
		return nil
	}
	err := field("change", d.Change)
	if err == nil && d.Member != "" {
		err = field("member", d.Member)
	}
	if err == nil && d.Enumerator != "" {
		err = field("enumerator", d.Enumerator)
	}
	if err == nil {
		err = field("field", d.Field)
	}
	if err == nil && d.Old != nil {
		err = field("old", d.Old)
	}
	if err == nil && d.New != nil {
		err = field("new", d.New)
	}
	if err != nil {
		return err
	}
	b = append(append(append(b, '\n'), prefix...), '}')
	s.line = b
	_, err = s.bw.Write(b)
	return err
}

// plainValue reports whether putDetail writes v by hand: nil, or of a
// type that a detail's Old and New hold.
func plainValue(v any) bool {
	switch v.(type) {
	case nil, string, int, int64, uint64, bool:
		return true
	}
	return false
}

// plainString reports whether encoding/json writes v between quotes as it
// is: printable ASCII, no quote or backslash (with HTML left unescaped).
func plainString(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Close ends the report, with its summary and reached summary (nil for
// none) as WriteJSON writes them, and flushes it; a text report has
// neither.
func (s *Stream) Close(sum Summary, reached *ReachedSummary) error {
	if s.json {
		switch s.n {
		case 0:
			s.bw.WriteString("{\n  \"changes\": [")
		default:
			s.bw.WriteString("\n  ")
		}
		s.bw.WriteString("],\n  \"summary\": ")
		if err := s.put("  ", sum); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
		if reached != nil {
			s.bw.WriteString(",\n  \"reached\": ")
			if err := s.put("  ", reached); err != nil {
				return fmt.Errorf("diff: %w", err)
			}
		}
		s.bw.WriteString("\n}\n")
	}
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}
