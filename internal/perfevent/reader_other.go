//go:build !linux

package perfevent

import "context"

// Reader reads perf records; on this system Open never returns one.
type Reader struct{}

// Options configures Open.
type Options struct {
	Pages     int
	BPFEvents bool
}

// Open returns ErrUnsupported.
func Open(opts *Options) (*Reader, error) { return nil, ErrUnsupported }

// Read returns ErrClosed.
func (r *Reader) Read(ctx context.Context, dst []Record) ([]Record, error) { return dst, ErrClosed }

// Close does nothing.
func (r *Reader) Close() error { return nil }

// Now returns 0: there is no perf clock here.
func Now() uint64 { return 0 }
