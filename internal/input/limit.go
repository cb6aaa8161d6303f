package input

import "io"

// LimitReader reads R up to Limit bytes and fails with a *TooLargeError
// naming What past them: a stream's bound when it is parsed as it is read
// rather than read whole (ReadAll).
type LimitReader struct {
	R     io.Reader
	What  string
	Limit int64 // DefaultLimit when 0 or less
	n     int64 // bytes read so far
}

// Read reads from R, and fails once more than Limit bytes have come.
func (l *LimitReader) Read(p []byte) (int, error) {
	limit := l.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if l.n > limit {
		return 0, &TooLargeError{What: l.What, Limit: limit}
	}
	// One byte more than the limit tells a stream of exactly the limit
	// from one over it.
	if left := limit - l.n + 1; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := l.R.Read(p)
	l.n += int64(n)
	if l.n > limit && (err == nil || err == io.EOF) {
		return n, &TooLargeError{What: l.What, Limit: limit}
	}
	return n, err // R's own error first: an inner bound names its input

}
