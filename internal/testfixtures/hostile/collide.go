package hostile

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Collision names a shape of the fifth campaign: many types equal in every
// shallow field that a deduplication, a diff or a C printer hashes (kind,
// name, size, vlen, member names and offsets), and different only deep
// down, so that every one meets every other in its hash bucket.
// BuildCollision makes them in any size.
type Collision int

// The collisions. [1] is always "int".
const (
	CollideEnums   Collision = iota // N enums "e" of 4 bytes and one value "v" = i: equal but for the value
	CollideStructs                  // N structs "s" { struct "t" { enum "e" { v = i } m; } m; }: equal but two levels down
	CollideDeep                     // N structs "s" { m } through 16 levels of structs "s", the last of enum "e" { v = i }: equal but 16 levels down
	CollideUnions                   // N unions "u" of two members "a" and "b", "b" of a pointer to an enum "e" { v = i }: equal but behind a pointer
	numCollisions
)

// Collisions lists every collision.
func Collisions() []Collision { return upTo(numCollisions) }

// String names the collision in lower case with dashes, as in
// "collide-enums".
func (c Collision) String() string {
	return [...]string{"collide-enums", "collide-structs", "collide-deep", "collide-unions"}[c]
}

// BuildCollision returns the collision c with n as its size parameter.
func BuildCollision(c Collision, n int) ([]byte, error) {
	return marshal(fmt.Sprintf("%v of %d", c, n), func(b *builder.Builder, intID btf.TypeID) error {
		for i := range n {
			if err := collide(b, c, intID, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// collideDepth is how many structs of one name CollideDeep nests.
const collideDepth = 16

func collide(b *builder.Builder, c Collision, intID btf.TypeID, i int) error {
	e, err := b.AddEnum("e", 4, false, []builder.Enumerator{{Name: "v", Value: uint64(i)}})
	if err != nil || c == CollideEnums {
		return err
	}
	switch c {
	case CollideStructs:
		return nest(b, []string{"t", "s"}, e)
	case CollideDeep:
		names := make([]string, collideDepth)
		for j := range names {
			names[j] = "s"
		}
		return nest(b, names, e)
	}
	p, err := b.AddPointer(e)
	if err != nil {
		return err
	}
	_, err = b.AddUnion("u", 8, []builder.Member{{Name: "a", Type: intID}, {Name: "b", Type: p}})
	return err
}

// nest adds a struct of 4 bytes named each of names in turn, each of one
// member "m" of the one before, the first of inner.
func nest(b *builder.Builder, names []string, inner btf.TypeID) error {
	for _, name := range names {
		var err error
		if inner, err = b.AddStruct(name, 4, []builder.Member{{Name: "m", Type: inner}}); err != nil {
			return err
		}
	}
	return nil
}
