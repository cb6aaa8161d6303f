package uevent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Listen opens a Monitor on a NETLINK_KOBJECT_UEVENT socket bound to the
// kernel's multicast group 1. The socket is non-blocking and served by the
// Go runtime's poller, so reads survive signals (EINTR) and stop on Close
// or context cancellation.
func Listen(opts Options) (*Monitor, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_KOBJECT_UEVENT)
	if err != nil {
		return nil, fmt.Errorf("uevent: socket: %w", os.NewSyscallError("socket", err))
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
		return nil, fmt.Errorf("uevent: socket: %w", os.NewSyscallError("bind", err))
	}
	f := os.NewFile(uintptr(fd), "uevent")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("uevent: socket: %w", err)
	}
	return newMonitor(&netlinkConn{f: f, rc: rc}, opts), nil
}

// netlinkConn is the real socket.
type netlinkConn struct {
	f  *os.File
	rc syscall.RawConn
}

func (c *netlinkConn) recv(ctx context.Context, buf []byte) (int, bool, uint32, error) {
	if err := c.f.SetReadDeadline(time.Time{}); err != nil {
		return 0, false, 0, c.readErr(ctx, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	var n, flags int
	var from unix.Sockaddr
	var rerr error
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, _, flags, from, rerr = unix.Recvmsg(int(fd), buf, nil, 0)
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	if err == nil && rerr != nil {
		err = os.NewSyscallError("recvmsg", rerr)
	}
	if err != nil {
		return 0, false, 0, c.readErr(ctx, err)
	}
	var port uint32
	if sa, ok := from.(*unix.SockaddrNetlink); ok {
		port = sa.Pid
	}
	return n, flags&unix.MSG_TRUNC != 0, port, nil
}

func (c *netlinkConn) readErr(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, os.ErrClosed):
		return ErrClosed
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, unix.ENOBUFS):
		return fmt.Errorf("%w: %w", ErrOverflow, err)
	}
	return fmt.Errorf("uevent: socket: %w", err)
}

func (c *netlinkConn) close() error { return c.f.Close() }
