package kallsyms

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// MonitorOptions configures a Monitor.
type MonitorOptions struct {
	// TrustPortIDs lists netlink port ids besides 0 (the kernel) whose
	// messages are accepted. It exists for tests that inject events; in
	// production it must stay empty, because any process with
	// CAP_NET_ADMIN in the network namespace can send uevents.
	TrustPortIDs []uint32
	// ReceiveBuffer is the socket's receive buffer in bytes; 0 means 1 MiB.
	// Root gets it regardless of net.core.rmem_max (SO_RCVBUFFORCE).
	ReceiveBuffer int
}

// Monitor receives kobject uevents from a NETLINK_KOBJECT_UEVENT socket
// bound to the kernel's multicast group 1. The socket is non-blocking and
// served by the Go runtime's poller, so reads survive signals (EINTR) and
// stop on Close or context cancellation.
//
// Read must not be called from two goroutines at once; Close may be called
// at any time from any goroutine.
type Monitor struct {
	f      *os.File
	rc     syscall.RawConn
	buf    []byte
	trust  []uint32
	closed atomic.Bool
}

// ListenUevents opens a uevent Monitor.
func ListenUevents(opts MonitorOptions) (*Monitor, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_KOBJECT_UEVENT)
	if err != nil {
		return nil, fmt.Errorf("kallsyms: uevent socket: %w", os.NewSyscallError("socket", err))
	}
	size := opts.ReceiveBuffer
	if size == 0 {
		size = 1 << 20
	}
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, size) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, size) // best effort
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: 1}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("kallsyms: uevent socket: %w", os.NewSyscallError("bind", err))
	}
	f := os.NewFile(uintptr(fd), "uevent")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("kallsyms: uevent socket: %w", err)
	}
	return &Monitor{f: f, rc: rc, buf: make([]byte, 16<<10), trust: slices.Clone(opts.TrustPortIDs)}, nil
}

// Read returns the next uevent. Malformed and truncated messages are
// skipped. A message from a sender that is neither the kernel nor trusted is
// returned with ErrUntrustedSender, and must be ignored. When the kernel
// dropped messages for lack of buffer space, Read returns an error matching
// ErrOverflow and the caller should resynchronize; the Monitor stays
// usable. Read returns ctx.Err() when ctx ends, and ErrClosed after Close.
func (m *Monitor) Read(ctx context.Context) (Uevent, error) {
	if err := m.f.SetReadDeadline(time.Time{}); err != nil {
		return Uevent{}, m.readErr(ctx, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = m.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	for {
		n, flags, from, err := m.recv()
		if err != nil {
			return Uevent{}, m.readErr(ctx, err)
		}
		if flags&unix.MSG_TRUNC != 0 {
			continue
		}
		ev, err := parseUevent(m.buf[:n])
		if err != nil {
			continue
		}
		if sa, ok := from.(*unix.SockaddrNetlink); ok {
			ev.PortID = sa.Pid
		}
		if ev.PortID != 0 && !slices.Contains(m.trust, ev.PortID) {
			return ev, ErrUntrustedSender
		}
		return ev, nil
	}
}

// recv receives one message through the runtime poller.
func (m *Monitor) recv() (n, flags int, from unix.Sockaddr, err error) {
	var rerr error
	err = m.rc.Read(func(fd uintptr) bool {
		for {
			n, _, flags, from, rerr = unix.Recvmsg(int(fd), m.buf, nil, 0)
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	if err == nil && rerr != nil {
		err = os.NewSyscallError("recvmsg", rerr)
	}
	return n, flags, from, err
}

func (m *Monitor) readErr(ctx context.Context, err error) error {
	switch {
	case m.closed.Load() || errors.Is(err, os.ErrClosed):
		return ErrClosed
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, unix.ENOBUFS):
		return fmt.Errorf("%w: %w", ErrOverflow, err)
	}
	return fmt.Errorf("kallsyms: uevent socket: %w", err)
}

// Close closes the socket; a blocked Read returns ErrClosed. Close is
// idempotent and returns nil.
func (m *Monitor) Close() error {
	m.closed.Store(true)
	_ = m.f.Close()
	return nil
}
