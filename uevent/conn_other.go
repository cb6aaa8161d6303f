//go:build !linux

package uevent

import (
	"errors"
	"fmt"
	"runtime"
)

// Listen fails outside Linux, which alone has kobject uevents.
func Listen(Options) (*Monitor, error) {
	return nil, fmt.Errorf("uevent: not supported on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
