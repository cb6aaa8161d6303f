package perfevent

import "errors"

var (
	// ErrUnsupported is returned by Open where perf events do not exist
	// (systems other than Linux).
	ErrUnsupported = errors.New("perfevent: perf events are supported only on Linux")

	// ErrClosed is returned by Read after Close.
	ErrClosed = errors.New("perfevent: reader closed")
)
