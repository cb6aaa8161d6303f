package dedup

// stack is the explicit stack of a depth-first walk that libbpf does by
// recursion (refType, deepSig): a chain of a million types is a million
// frames deep. It holds its frames in chunks of stackChunk, kept between
// walks, so that a deep walk allocates its frames once and never copies
// them as it grows (a slice grown by append allocated five times its
// final size for a million levels; issue 37). The first chunk grows by
// append from stackFirst frames: most walks are a few frames deep, and
// a module's deduplication made a whole chunk (32 KB) for them, 45% of
// what btf dedup --each allocated over the Debian 6.1 modules.
type stack[T any] struct {
	chunks [][]T
	n      int // frames on the stack
}

const (
	stackChunk = 1 << 12
	stackFirst = 1 << 6
)

// push puts f on top.
func (s *stack[T]) push(f T) {
	c, i := s.n/stackChunk, s.n%stackChunk
	switch {
	case c < len(s.chunks) && i < len(s.chunks[c]):
		s.chunks[c][i] = f
	case c == 0:
		if len(s.chunks) == 0 {
			s.chunks = append(s.chunks, make([]T, 0, stackFirst))
		}
		s.chunks[0] = append(s.chunks[0], f)
	default:
		s.chunks = append(s.chunks, make([]T, stackChunk))
		s.chunks[c][i] = f
	}
	s.n++
}

// top returns the frame on top; the stack must not be empty.
func (s *stack[T]) top() *T { return &s.chunks[(s.n-1)/stackChunk][(s.n-1)%stackChunk] }

// pop removes the frame on top.
func (s *stack[T]) pop() { s.n-- }

// reset empties the stack, keeping its chunks.
func (s *stack[T]) reset() { s.n = 0 }
