package dwarf2btf

// typeBlockBits sets the entries of a typeTable block: 1024 entries of 64
// bytes, large enough that a block costs one allocation per thousand
// types, small enough that a unit of a few types does not pay much for it.
const (
	typeBlockBits = 10
	typeBlockMask = 1<<typeBlockBits - 1
)

// typeTable is a unit's type table, in fixed blocks rather than one
// slice: it grows without copying the entries it holds. A slice grown by
// append copies each entry about four times on its way to a unit of
// 100,000 types and leaves the old arrays for the collector, which is
// most of the loader's CPU and transient memory on such a unit; the
// blocks are kept from one unit to the next, as the slice's array was.
type typeTable struct {
	blocks [][]typeEntry
	n      int
}

// len returns how many entries the table holds.
func (t *typeTable) len() int { return t.n }

// at returns entry i. Like a slice's index, an i outside the table
// panics rather than reading a stale entry of an earlier unit.
func (t *typeTable) at(i int) *typeEntry {
	if uint(i) >= uint(t.n) {
		panic("dwarf2btf: type index out of range")
	}
	return &t.blocks[i>>typeBlockBits][i&typeBlockMask]
}

// add appends e and returns its index.
func (t *typeTable) add(e typeEntry) int {
	b := t.n >> typeBlockBits
	if b == len(t.blocks) {
		t.blocks = append(t.blocks, make([]typeEntry, 1<<typeBlockBits))
	}
	t.blocks[b][t.n&typeBlockMask] = e
	t.n++
	return t.n - 1
}

// reset empties the table and adds e, the void entry.
func (t *typeTable) reset(e typeEntry) {
	t.n = 0
	t.add(e)
}
