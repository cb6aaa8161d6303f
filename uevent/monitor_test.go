package uevent

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// msg is one message a fakeConn delivers, or the error it returns.
type msg struct {
	data      string
	truncated bool
	port      uint32
	err       error
}

// fakeConn delivers msgs in order, then blocks until ctx ends or close.
type fakeConn struct {
	msgs   []msg
	closed chan struct{}
}

func newFake(msgs ...msg) *fakeConn { return &fakeConn{msgs: msgs, closed: make(chan struct{})} }

func (c *fakeConn) recv(ctx context.Context, buf []byte) (int, bool, uint32, error) {
	if len(c.msgs) == 0 {
		select {
		case <-ctx.Done():
			return 0, false, 0, ctx.Err()
		case <-c.closed:
			return 0, false, 0, errors.New("use of closed socket")
		}
	}
	m := c.msgs[0]
	c.msgs = c.msgs[1:]
	return copy(buf, m.data), m.truncated, m.port, m.err
}

func (c *fakeConn) close() error { close(c.closed); return nil }

func kernelMsg(action, mod string) string {
	return fmt.Sprintf("%s@/module/%s\x00ACTION=%[1]s\x00DEVPATH=/module/%[2]s\x00SUBSYSTEM=module\x00SEQNUM=7\x00", action, mod)
}

// TestMonitorRead runs a Monitor over a fake socket: truncated and
// malformed messages are skipped, untrusted senders reported, trusted ones
// accepted, overflows passed on; Close ends a blocked Read.
func TestMonitorRead(t *testing.T) {
	c := newFake(
		msg{data: kernelMsg("add", "x"), truncated: true},
		msg{data: "libudev\x00\xfe\xed"},
		msg{data: kernelMsg("add", "x")},
		msg{data: kernelMsg("add", "evil"), port: 99},
		msg{data: kernelMsg("remove", "t"), port: 7},
		msg{err: fmt.Errorf("%w: ENOBUFS", ErrOverflow)},
	)
	m := newMonitor(c, Options{TrustPortIDs: []uint32{7}})
	type got struct {
		Ev  Event
		Err string
	}
	var gots []got
	for range 4 {
		ev, err := m.Read(context.Background())
		g := got{Ev: ev}
		if err != nil {
			g.Err = err.Error()
		}
		gots = append(gots, g)
	}
	want := []got{
		{Ev: Event{Action: "add", DevPath: "/module/x", Subsystem: "module", Seqnum: 7}},
		{Ev: Event{Action: "add", DevPath: "/module/evil", Subsystem: "module", Seqnum: 7, PortID: 99}, Err: ErrUntrustedSender.Error()},
		{Ev: Event{Action: "remove", DevPath: "/module/t", Subsystem: "module", Seqnum: 7, PortID: 7}},
		{Err: ErrOverflow.Error() + ": ENOBUFS"},
	}
	if d := cmp.Diff(want, gots); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if mod := gots[0].Ev.Module(); mod != "x" {
		t.Errorf("Module() = %q", mod)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel: %v", err)
	}
	done := make(chan error)
	go func() { _, err := m.Read(context.Background()); done <- err }()
	m.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
}

func TestParse(t *testing.T) {
	ev, err := Parse([]byte(kernelMsg("add", "x")))
	want := Event{Action: "add", DevPath: "/module/x", Subsystem: "module", Seqnum: 7}
	if diff := cmp.Diff(want, ev); err != nil || diff != "" {
		t.Errorf("Parse: %v %s", err, diff)
	}
	for _, bad := range []string{"", "add", "@/x", "add@", "libudev\x00x"} {
		if _, err := Parse([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q): %v, want ErrMalformed", bad, err)
		}
	}
}
