package uevent

import (
	"context"
	"slices"
	"sync/atomic"
)

// Options configures a Monitor.
type Options struct {
	// TrustPortIDs lists netlink port ids besides 0 (the kernel) whose
	// messages are accepted. It exists for tests that inject events; in
	// production it must stay empty.
	TrustPortIDs []uint32
	// ReceiveBuffer is the socket's receive buffer in bytes; 0 means 1 MiB.
	// Root gets it regardless of net.core.rmem_max (SO_RCVBUFFORCE).
	ReceiveBuffer int
}

// conn is the socket under a Monitor: the netlink socket of Listen, or a
// fake in tests. recv returns one message into buf, whether it was
// truncated, and its sender's port id; it returns ctx's error when ctx
// ends, ErrClosed after close, and an error wrapping ErrOverflow when the
// kernel dropped messages.
type conn interface {
	recv(ctx context.Context, buf []byte) (n int, truncated bool, port uint32, err error)
	close() error
}

// Monitor receives uevents. See the package doc for its concurrency rules.
type Monitor struct {
	c      conn
	buf    []byte
	trust  []uint32
	closed atomic.Bool
}

func newMonitor(c conn, opts Options) *Monitor {
	return &Monitor{c: c, buf: make([]byte, 16<<10), trust: slices.Clone(opts.TrustPortIDs)}
}

// Read returns the next uevent. Malformed and truncated messages are
// skipped. A message from a sender that is neither the kernel nor trusted
// is returned with ErrUntrustedSender. After lost messages Read returns an
// error matching ErrOverflow. Read returns ctx.Err() when ctx ends, and
// ErrClosed after Close.
func (m *Monitor) Read(ctx context.Context) (Event, error) {
	for {
		n, truncated, port, err := m.c.recv(ctx, m.buf)
		if err != nil {
			if m.closed.Load() {
				return Event{}, ErrClosed
			}
			return Event{}, err
		}
		if truncated {
			continue
		}
		ev, err := Parse(m.buf[:n])
		if err != nil {
			continue
		}
		ev.PortID = port
		if port != 0 && !slices.Contains(m.trust, port) {
			return ev, ErrUntrustedSender
		}
		return ev, nil
	}
}

// Close closes the socket; a blocked Read returns ErrClosed. Close is
// idempotent and returns nil.
func (m *Monitor) Close() error {
	m.closed.Store(true)
	_ = m.c.close()
	return nil
}
