package diff

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
)

// Detail is one property that differs between the old and the new
// definition of a changed type: a field of a member, the value of an
// enumerator, or a property of the type itself (its size, a function's
// prototype, a typedef's target).
//
// Field names the property, in the JSON vocabulary of kmeta's --json
// outputs (docs/json.md):
//
//   - of a member (Member set): "bit_offset" (bits from the start of the
//     outermost struct), "bitfield_size" (bits; 0 for a member that is no
//     bitfield) and "type" (its C type name);
//   - of an enumerator (Enumerator set): "value";
//   - of the type: "size" (bytes), "signed" (an enum's), "prototype" (a
//     function's declaration), "linkage", "type" (what a typedef, var or
//     tag refers to, as a C type name), "component_idx" (a decl tag's),
//     "encoding", "nr_bits" and "bit_offset" (an int's), "fwd_kind"
//     ("struct" or "union"), "definitions" (how many types share the kind
//     and name), "definition" (one of them added or removed, without Old
//     and New) and "member_order" (the same members in another order,
//     without Old and New).
//
// Old is nil for an added property, New for a removed one; otherwise they
// hold an int64 (a uint64 for an enumerator beyond int64's range), a bool
// or a string.
//
// Members are matched by name (the path through named anonymous members;
// "#i" for the i-th member of no name of its level). When a name repeats
// in a struct (several members of no name, or hostile BTF), members are
// matched as multisets: those of equal name and fields first, the k-th
// of the old struct with the k-th of the new; then those left over of one
// name, the k-th with the k-th, as Changed; the rest are Removed or
// Added. So five ints "x" against the same with the second and fourth
// named "y" are two "x" removed and two "y" added, and no member that is
// still there is reported.
type Detail struct {
	Change     string `json:"change"` // Added, Removed or Changed
	Member     string `json:"member,omitempty"`
	Enumerator string `json:"enumerator,omitempty"`
	Field      string `json:"field"`
	Old        any    `json:"old,omitempty"`
	New        any    `json:"new,omitempty"`
}

// typeField returns the field name of a type's fact, as the signature
// spells it. (A switch, not a map: a map literal is made by an init
// function, which every kmeta command runs: cmd/kmeta/BENCH.md.)
func typeField(name string) (string, bool) {
	switch name {
	case "component":
		return "component_idx", true
	case "bits":
		return "nr_bits", true
	case "bit offset":
		return "bit_offset", true
	case "union":
		return "fwd_kind", true
	}
	return "", false
}

// factDetails yields the details of one fact (its name as signature
// spells it) whose value went from old to new; "" is no value (added or
// removed). It returns false when yield does.
func factDetails(change, name, old, new string, yield func(Detail) bool) bool {
	if path, ok := strings.CutPrefix(name, "member "); ok {
		return memberDetails(change, path, old, new, yield)
	}
	d := Detail{Change: change, Field: name}
	if e, ok := strings.CutPrefix(name, "enumerator "); ok {
		d.Enumerator, d.Field = e, "value"
	} else if f, ok := typeField(name); ok {
		d.Field = f
	}
	if old != "" {
		d.Old = factValue(name, old)
	}
	if new != "" {
		d.New = factValue(name, new)
	}
	return yield(d)
}

// factValue is the typed value of a type's fact as the signature spells
// it.
func factValue(name, v string) any {
	switch {
	case name == "signed":
		return v == "true"
	case name == "union":
		if v == "true" {
			return "union"
		}
		return "struct"
	case name == "encoding":
		n, _ := strconv.ParseUint(v, 10, 8)
		return btf.IntInfo{Encoding: uint8(n)}.EncodingName()
	case name == "component":
		n, _ := strconv.ParseUint(v, 10, 64)
		return int64(n)
	case strings.HasPrefix(name, "enumerator "), name == "size", name == "bits", name == "bit offset":
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
		n, _ := strconv.ParseUint(v, 10, 64)
		return n
	}
	return v
}

// memberFields is a member's fact value, "offset BYTES[:BITS][, N bits],
// TYPE" (members writes it), as fields.
type memberFields struct {
	bitOffset, bitfieldSize int64
	typ                     string
}

// parseMember reads a member's fact value. The offset and the bitfield
// size are numbers, so the type name is what follows them, whatever it
// holds.
func parseMember(v string) memberFields {
	var m memberFields
	v = strings.TrimPrefix(v, "offset ")
	off, rest, _ := strings.Cut(v, ", ")
	bytes, bits, hasBits := strings.Cut(off, ":")
	m.bitOffset, _ = strconv.ParseInt(bytes, 10, 64)
	m.bitOffset *= 8
	if hasBits { // not parsed otherwise: "" would allocate its error
		r, _ := strconv.ParseInt(bits, 10, 64)
		m.bitOffset += r
	}
	if n, t, ok := strings.Cut(rest, " bits, "); ok {
		if size, err := strconv.ParseInt(n, 10, 64); err == nil {
			m.bitfieldSize, rest = size, t
		}
	}
	m.typ = rest
	return m
}

// memberDetails yields the fields of member path that differ, or all of
// them when it was added or removed. It returns false when yield does.
func memberDetails(change, path, old, new string, yield func(Detail) bool) bool {
	var o, n memberFields
	if old != "" {
		o = parseMember(old)
	}
	if new != "" {
		n = parseMember(new)
	}
	field := func(name string, ov, nv any, differ bool) bool {
		if change == Changed && !differ {
			return true
		}
		d := Detail{Change: change, Member: path, Field: name}
		if old != "" {
			d.Old = ov
		}
		if new != "" {
			d.New = nv
		}
		return yield(d)
	}
	return field("bit_offset", o.bitOffset, n.bitOffset, o.bitOffset != n.bitOffset) &&
		field("bitfield_size", o.bitfieldSize, n.bitfieldSize, o.bitfieldSize != n.bitfieldSize) &&
		field("type", o.typ, n.typ, o.typ != n.typ)
}

// lineWriter writes details, as they come, as the text lines of
// WriteText, each after a tab: one line for each member or enumerator, or
// property of the type. The details of one member that follow each other
// with the same change share a line, which is written a field at a time,
// not held.
type lineWriter struct {
	w    *bufio.Writer
	open bool   // a member's line is begun
	head Detail // the first detail of that line, its Member in member
	sep  string // what goes before its next field
	// member holds head's Member: the details' strings may be reused
	// once the next is taken (Change.more).
	member []byte
}

// add writes d: on the open line when it is of the same member and
// change, else on a new one.
func (lw *lineWriter) add(d Detail) {
	if lw.open && d.Member == lw.head.Member && d.Change == lw.head.Change {
		lw.field(d)
		return
	}
	lw.end()
	lw.w.WriteByte('\t')
	// The line's head is written a piece at a time: a member's path
	// may take kilobytes (anonymous members 4,095 levels deep).
	what, name := d.Field, ""
	switch {
	case d.Member != "":
		what, name = "member ", d.Member
	case d.Enumerator != "":
		what, name = "enumerator ", d.Enumerator
	case d.Field == "member_order":
		lw.w.WriteString("member order changed\n")
		return
	case d.Field == "definition":
		lw.w.WriteString(d.Change)
		lw.w.WriteString(" definition\n")
		return
	}
	if d.Change != Changed {
		lw.w.WriteString(d.Change)
		lw.w.WriteByte(' ')
	}
	lw.w.WriteString(what)
	lw.w.WriteString(name)
	if d.Change == Changed {
		lw.w.WriteString(": ")
	} else {
		lw.w.WriteString(" (")
	}
	lw.member = append(lw.member[:0], d.Member...)
	d.Member = aliasString(lw.member)
	lw.open, lw.head, lw.sep = true, d, ""
	lw.field(d)
	if d.Member == "" {
		lw.end()
	}
}

// field writes one field of the open line.
func (lw *lineWriter) field(f Detail) {
	if t := fieldText(lw.head, f); t != "" {
		lw.w.WriteString(lw.sep)
		lw.w.WriteString(t)
		lw.sep = ", "
	}
}

// end ends the open line, if any.
func (lw *lineWriter) end() {
	if !lw.open {
		return
	}
	if lw.head.Change != Changed {
		lw.w.WriteByte(')')
	}
	lw.w.WriteByte('\n')
	lw.open = false
}

// fieldText spells one detail of line d: "OLD -> NEW" for a change, or
// the value; a member's fields named, its bit offset in bytes[:bits].
func fieldText(d, f Detail) string {
	val := func(v any) string {
		if f.Field == "bit_offset" && d.Member != "" {
			return string(appendBitOffset(nil, uint32(v.(int64))))
		}
		return fmt.Sprint(v)
	}
	var s string
	switch d.Change {
	case Changed:
		s = val(f.Old) + " -> " + val(f.New)
	case Added:
		s = val(f.New)
	default:
		s = val(f.Old)
	}
	if d.Member == "" {
		return s
	}
	switch f.Field {
	case "bit_offset":
		return "offset " + s
	case "bitfield_size":
		if d.Change != Changed {
			if s == "0" {
				return ""
			}
			return s + " bits"
		}
		return "bitfield_size " + s
	}
	if d.Change != Changed {
		return s
	}
	return "type " + s
}
