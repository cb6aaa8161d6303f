//go:build !linux

package kallsyms

import (
	"context"
	"errors"
)

// MonitorOptions configures a Monitor (Linux only).
type MonitorOptions struct {
	TrustPortIDs  []uint32
	ReceiveBuffer int
}

// Monitor receives kobject uevents; it exists only on Linux.
type Monitor struct{}

// ListenUevents returns errors.ErrUnsupported outside Linux.
func ListenUevents(MonitorOptions) (*Monitor, error) { return nil, errors.ErrUnsupported }

// Read returns errors.ErrUnsupported outside Linux.
func (*Monitor) Read(context.Context) (Uevent, error) { return Uevent{}, errors.ErrUnsupported }

// Close does nothing outside Linux.
func (*Monitor) Close() error { return nil }
