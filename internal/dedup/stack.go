package dedup

// stack is the explicit stack of a depth-first walk that libbpf does by
// recursion (refType, deepSig): a chain of a million types is a million
// frames deep. It holds its frames in chunks of stackChunk, kept between
// walks, so that a deep walk allocates its frames once and never copies
// them as it grows (a slice grown by append allocated five times its
// final size for a million levels; issue 37).
type stack[T any] struct {
	chunks [][]T
	n      int // frames on the stack
}

const stackChunk = 1 << 12

// push puts f on top.
func (s *stack[T]) push(f T) {
	c := s.n / stackChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]T, stackChunk))
	}
	s.chunks[c][s.n%stackChunk] = f
	s.n++
}

// top returns the frame on top; the stack must not be empty.
func (s *stack[T]) top() *T { return &s.chunks[(s.n-1)/stackChunk][(s.n-1)%stackChunk] }

// pop removes the frame on top.
func (s *stack[T]) pop() { s.n-- }

// reset empties the stack, keeping its chunks.
func (s *stack[T]) reset() { s.n = 0 }
