package layout

import (
	"bytes"
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
)

// printed is the set of structs and unions printed so far, for pahole's
// rule of printing a struct only if no struct already printed compares
// equal to it. pahole keeps them in a red-black tree (structures__tree,
// __structures__add in pahole.c, 1.24 and 1.30 alike) ordered by
// type__compare: the name, the size, the member count, then member by
// member the names when both have one, the bit offsets and the bitfield
// sizes. A struct is a duplicate when the walk down that tree meets a
// struct that compares equal, and is inserted where the walk ends
// otherwise. An anonymous member compares equal to any name, so the
// order is not transitive and which struct the walk meets depends on the
// tree's shape: the walk, the insertion and the rebalancing here are the
// tree's own (the Linux kernel's rb_insert_color, which is the textbook
// red-black insertion), so the same structs are printed. It is also what
// bounds the work: a walk is O(log n) comparisons, where comparing a
// struct with every struct printed under its name was quadratic when an
// anonymous member hid the names from a hash (BENCH.md).
//
// The tree holds no pointers, and is 4 bytes a named struct, plus a bit
// and a half a type: a node is a type id; its left link and color lie in
// the type's node, whose reference a named struct or union does not use
// (check keeps the anonymous ones' cost there), and its right link in
// right, indexed by the struct's rank among the named structs and unions.
type printed struct {
	root btf.TypeID
	// right is each named struct's right link, by rank.
	right []btf.TypeID
	// isNamed has a bit for each type that is a struct or union with a
	// name, and before counts them below each of its words: rank.
	isNamed []uint64
	before  []uint32
	// path is the walk down the tree, from the root, for the insertion
	// to rebalance on: it has no parent links.
	path []btf.TypeID
	// seen caches the records and names of the structs the walks meet,
	// direct-mapped by id: every walk passes the top of the tree, and
	// finding a struct's record (TypeByID) and its name took most of a
	// walk's time (BENCH.md).
	seen []seenStruct
	// added is the member names of the struct being added.
	added addedNames
	// compares counts comparisons, for the tests that pin their number.
	compares int
}

// seenStruct is the record and name of a struct in the tree, with what
// compareRecord reads of it before any member past the first, decoded
// once: most comparisons end at the first member's name (BENCH.md).
type seenStruct struct {
	t    btf.Type
	name []byte
	// size and vlen are the record's; firstOff, firstBits and firstName
	// are its first member's bit offset, bitfield size and name as
	// pahole holds it, if it has one: 80 bytes in all.
	size      uint32
	vlen      int32
	firstOff  uint32
	firstBits uint8
	firstName []byte
}

// addedNames is the member names of the struct a walk adds, found once
// for all the walk's comparisons, up to the first len(names).
type addedNames struct {
	t     btf.Type // the struct's record
	known int      // names found
	names [64][]byte
}

// at returns the name of member i.
func (a *addedNames) at(i int) []byte {
	if i >= len(a.names) {
		return memberNameOf(a.t.Member(i))
	}
	for ; a.known <= i; a.known++ {
		a.names[a.known] = memberNameOf(a.t.Member(a.known))
	}
	return a.names[i]
}

// maxSeen bounds printed.seen: the top 15 levels of the tree.
const maxSeen = 1 << 15

// red marks a red node in its left link; type ids are below 1<<31
// (btf.Parse).
const red btf.TypeID = 1 << 31

// newPrinted returns an empty tree for the named structs and unions of
// p's types.
func newPrinted(p *printer) *printed {
	pr := &printed{
		isNamed: make([]uint64, (len(p.nodes)+63)/64),
		before:  make([]uint32, (len(p.nodes)+63)/64),
	}
	n := uint32(0)
	for i := range p.nodes {
		if i%64 == 0 {
			pr.before[i/64] = n
		}
		if p.isNamedRecord(btf.TypeID(i)) {
			pr.isNamed[i/64] |= 1 << (i % 64)
			n++
		}
	}
	pr.right = make([]btf.TypeID, n)
	pr.seen = make([]seenStruct, min(maxSeen, 1<<bits.Len32(n)))
	return pr
}

// isNamedRecord reports whether id is a struct or union with a name
// offset, one that run prints.
func (p *printer) isNamedRecord(id btf.TypeID) bool {
	k := p.kind(id)
	return (k == btf.KindStruct || k == btf.KindUnion) && p.typ(id).NameOffset() != 0
}

// rank is the index of the named struct or union id in right.
func (pr *printed) rank(id btf.TypeID) int {
	w := id / 64
	return int(pr.before[w]) + bits.OnesCount64(pr.isNamed[w]&(1<<(id%64)-1))
}

func (pr *printed) left(p *printer, id btf.TypeID) btf.TypeID {
	return p.nodes[id].ref &^ red
}

func (pr *printed) isRed(p *printer, id btf.TypeID) bool {
	return id != 0 && p.nodes[id].ref&red != 0
}

func (pr *printed) setLeft(p *printer, id, l btf.TypeID) {
	p.nodes[id].ref = p.nodes[id].ref&red | l
}

func (pr *printed) setRed(p *printer, id btf.TypeID, r bool) {
	if r {
		p.nodes[id].ref |= red
	} else {
		p.nodes[id].ref &^= red
	}
}

func (pr *printed) rightOf(id btf.TypeID) btf.TypeID { return pr.right[pr.rank(id)] }

func (pr *printed) setRight(id, r btf.TypeID) { pr.right[pr.rank(id)] = r }

// add walks the tree for struct id, whose class is c, and reports
// whether no struct printed compares equal on the way; if none does, it
// inserts id where the walk ended.
func (pr *printed) add(p *printer, id btf.TypeID, c *class) bool {
	pr.path = pr.path[:0]
	rc := 0
	pr.added.t, pr.added.known = p.typ(id), 0
	for o := pr.root; o != 0; {
		pr.path = append(pr.path, o)
		// pahole compares the struct in the tree with the new one.
		switch rc = pr.compare(p, o, c); {
		case rc > 0:
			o = pr.left(p, o)
		case rc < 0:
			o = pr.rightOf(o)
		default:
			return false
		}
	}
	p.nodes[id].ref = red // no children
	pr.setRight(id, 0)
	switch n := len(pr.path); {
	case n == 0:
		pr.root = id
	case rc > 0:
		pr.setLeft(p, pr.path[n-1], id)
	default:
		pr.setRight(pr.path[n-1], id)
	}
	pr.rebalance(p, id)
	return true
}

// rebalance restores the red-black properties after the red node x was
// linked under the last node of pr.path (rb_insert_color; Cormen et al.,
// RB-INSERT-FIXUP).
func (pr *printed) rebalance(p *printer, x btf.TypeID) {
	path := pr.path
	for {
		n := len(path)
		if n == 0 {
			pr.setRed(p, x, false) // the root
			return
		}
		parent := path[n-1]
		if !pr.isRed(p, parent) {
			return
		}
		// A red parent is not the root: there is a grandparent.
		gp := path[n-2]
		if parent == pr.left(p, gp) {
			if uncle := pr.rightOf(gp); pr.isRed(p, uncle) {
				pr.setRed(p, parent, false)
				pr.setRed(p, uncle, false)
				pr.setRed(p, gp, true)
				x, path = gp, path[:n-2]
				continue
			}
			if x == pr.rightOf(parent) {
				pr.rotateLeft(p, parent, gp)
				parent = x
			}
			pr.rotateRight(p, gp, pr.parentOf(path[:n-2]))
		} else {
			if uncle := pr.left(p, gp); pr.isRed(p, uncle) {
				pr.setRed(p, parent, false)
				pr.setRed(p, uncle, false)
				pr.setRed(p, gp, true)
				x, path = gp, path[:n-2]
				continue
			}
			if x == pr.left(p, parent) {
				pr.rotateRight(p, parent, gp)
				parent = x
			}
			pr.rotateLeft(p, gp, pr.parentOf(path[:n-2]))
		}
		pr.setRed(p, parent, false)
		pr.setRed(p, gp, true)
		return
	}
}

// parentOf is the last node of path, 0 for none (the root's parent).
func (pr *printed) parentOf(path []btf.TypeID) btf.TypeID {
	if len(path) == 0 {
		return 0
	}
	return path[len(path)-1]
}

// rotateLeft moves x's right child y up in its place under parent (0:
// the root), x becoming y's left child.
func (pr *printed) rotateLeft(p *printer, x, parent btf.TypeID) {
	y := pr.rightOf(x)
	pr.setRight(x, pr.left(p, y))
	pr.setLeft(p, y, x)
	pr.replace(p, parent, x, y)
}

// rotateRight moves x's left child y up in its place under parent (0:
// the root), x becoming y's right child.
func (pr *printed) rotateRight(p *printer, x, parent btf.TypeID) {
	y := pr.left(p, x)
	pr.setLeft(p, x, pr.rightOf(y))
	pr.setRight(y, x)
	pr.replace(p, parent, x, y)
}

// replace puts y in the link of parent (0: the root) that held x.
func (pr *printed) replace(p *printer, parent, x, y btf.TypeID) {
	switch {
	case parent == 0:
		pr.root = y
	case pr.left(p, parent) == x:
		pr.setLeft(p, parent, y)
	default:
		pr.setRight(parent, y)
	}
}

// compare is pahole's type__compare(o, c) for the struct o in the tree
// and c, being added, of any names: its sign orders them. It compares
// o's record if it can, else its class, loaded for the comparison and dropped after unless
// another struct embeds it: it was printed, and only add asks for it
// again.
func (pr *printed) compare(p *printer, o btf.TypeID, c *class) int {
	pr.compares++
	e := pr.lookup(p, o)
	if rc := bytes.Compare(e.name, c.name); rc != 0 {
		return rc
	}
	rc, ok := compareRecord(e, c, &pr.added)
	if !ok {
		rc = p.compare(p.class(o), c)
		if !p.isEmbedded(o) {
			p.drop(o)
		}
	}
	return rc
}

// lookup returns the record and name of struct o.
func (pr *printed) lookup(p *printer, o btf.TypeID) *seenStruct {
	e := &pr.seen[int(o)&(len(pr.seen)-1)]
	if e.t.ID() != o {
		e.t = p.typ(o)
		e.name = e.t.NameBytes()
		e.size, e.vlen = e.t.Size(), int32(e.t.Vlen())
		m := e.t.Member(0)
		e.firstOff, e.firstBits = m.BitOffset, uint8(m.BitfieldSize)
		e.firstName = memberNameOf(m)
	}
	return e
}

// sign is the sign of pahole's (int)a - (int)b for 32-bit a and b: the
// difference wraps as the C one does.
func sign(a, b uint32) int {
	switch d := int32(a) - int32(b); {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}

// compare is type__compare(o, c) after the names (type__compare_members
// from the size on).
func (p *printer) compare(o, c *class) int {
	if rc := sign(o.size, c.size); rc != 0 {
		return rc
	}
	if rc := len(o.members) - len(c.members); rc != 0 {
		return rc
	}
	for i := range o.members {
		a, b := &o.members[i], &c.members[i]
		if an, bn := p.memberName(o, i), p.memberName(c, i); an != nil && bn != nil {
			if rc := bytes.Compare(an, bn); rc != 0 {
				return rc
			}
		}
		if rc := sign(a.bitOffset, b.bitOffset); rc != 0 {
			return rc
		}
		if rc := int(a.bitfieldSize) - int(b.bitfieldSize); rc != 0 {
			return rc
		}
	}
	return 0
}

// compareRecord is compare for a struct as its record e.t gives it,
// without loading its class (c's member names are cn): ok is false if
// the record has a bitfield before the order is found, whose offset load
// may move.
func compareRecord(e *seenStruct, c *class, cn *addedNames) (rc int, ok bool) {
	if rc := sign(e.size, c.size); rc != 0 {
		return rc, true
	}
	if rc := int(e.vlen) - len(c.members); rc != 0 {
		return rc, true
	}
	for i := range c.members {
		off, bitfield, an := e.firstOff, e.firstBits, e.firstName
		if i > 0 {
			m := e.t.Member(i)
			off, bitfield, an = m.BitOffset, uint8(m.BitfieldSize), memberNameOf(m)
		}
		if bitfield != 0 {
			return 0, false
		}
		b := &c.members[i]
		if bn := cn.at(i); an != nil && bn != nil {
			if rc := bytes.Compare(an, bn); rc != 0 {
				return rc, true
			}
		}
		if rc := sign(off, b.bitOffset); rc != 0 {
			return rc, true
		}
		if rc := -int(b.bitfieldSize); rc != 0 {
			return rc, true
		}
	}
	return 0, true
}
