package hostile

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Probe names a shape of the fourth campaign against issue 37's rules:
// inputs whose cost is driven by their strings, by names that everything
// shares, by CO-RE flavors, and BTF wrapped in hostile ELF files
// (BuildELF). BuildProbe makes them in any size.
type Probe int

// The probes. [1] is always "int".
const (
	DistinctLong Probe = iota // N structs, each of a distinct name of 200 bytes and one int member of another: a string section of about 400 N bytes
	SharedName                // N structs "x" of one member "x", each under a typedef "x" and a FUNC "x" taking it: every type of one name
	Flavors                   // N structs "task_struct___N" of a member "pid" and "x", and a struct "task_struct": N CO-RE candidates for one name
	numProbes
)

// Probes lists every probe.
func Probes() []Probe { return upTo(numProbes) }

// String names the probe in lower case with dashes, as in "shared-name".
func (p Probe) String() string {
	return [...]string{"distinct-long", "shared-name", "flavors"}[p]
}

// BuildProbe returns the probe p with n as its size parameter.
func BuildProbe(p Probe, n int) ([]byte, error) {
	return marshal(fmt.Sprintf("%v of %d", p, n), func(b *builder.Builder, intID btf.TypeID) error {
		switch p {
		case DistinctLong:
			return distinctLong(b, intID, n)
		case SharedName:
			return sharedName(b, intID, n)
		case Flavors:
			return flavors(b, intID, n)
		}
		return fmt.Errorf("unknown probe %d", p)
	})
}

// distinctLongLen is the length of DistinctLong's names.
const distinctLongLen = 200

func distinctLong(b *builder.Builder, intID btf.TypeID, n int) error {
	pad := strings.Repeat("z", distinctLongLen)
	for i := range n {
		name := fmt.Sprintf("s%d_", i)
		name += pad[len(name):]
		if _, err := b.AddStruct(name, 4, []builder.Member{{Name: "m" + name[1:], Type: intID}}); err != nil {
			return err
		}
	}
	return nil
}

func sharedName(b *builder.Builder, intID btf.TypeID, n int) error {
	for range n {
		s, err := b.AddStruct("x", 4, []builder.Member{{Name: "x", Type: intID}})
		if err != nil {
			return err
		}
		t, err := b.AddTypedef("x", s)
		if err != nil {
			return err
		}
		proto, err := b.AddFuncProto(intID, []builder.Param{{Name: "x", Type: t}})
		if err != nil {
			return err
		}
		if _, err := b.AddFunc("x", proto, btf.LinkageGlobal); err != nil {
			return err
		}
	}
	return nil
}

func flavors(b *builder.Builder, intID btf.TypeID, n int) error {
	ms := []builder.Member{{Name: "pid", Type: intID}, {Name: "x", Type: intID, BitOffset: 32}}
	for i := range n {
		if _, err := b.AddStruct(fmt.Sprintf("task_struct___%d", i), 8, ms); err != nil {
			return err
		}
	}
	_, err := b.AddStruct("task_struct", 8, ms)
	return err
}
