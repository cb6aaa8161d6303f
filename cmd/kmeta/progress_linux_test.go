package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// openPTY returns the two ends of a new pseudo-terminal, or skips.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	return m, s
}

// TestProgressOnTerminal: a command that works for longer than
// progressDelay (0 here) shows a progress line on a terminal stderr, and
// erases it before it ends; on a stderr that is not a terminal it shows
// nothing (every other test): btf find --kernel over thousands of modules
// takes long enough to need one.
func TestProgressOnTerminal(t *testing.T) {
	// Not parallel: progressDelay is set for this test alone, before the
	// parallel tests run.
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()
	sysfs := fakeSysfs(t, nil)
	deb := testfixtures.Path(t, "kimage/linux-image-6.1.0-demo.deb")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"btf", "find", "xfs_mount", "--kernel", "--sysfs", sysfs}, "kmeta: searching the kernel's BTF"},
		{[]string{"btf", "modules", "--sysfs", sysfs}, "kmeta: reading module BTF: 1/"},
		// Reading a package takes seconds: it must show a sign of life.
		{[]string{"btf", "find", "demo", "--kernel", "--package", deb}, "kmeta: reading the kernel package " + deb},
		{[]string{"btf", "modules", "--package", deb}, "kmeta: reading the kernel package " + deb},
	} {
		master, slave := openPTY(t)
		var out bytes.Buffer
		err := run(context.Background(), tc.args, strings.NewReader(""), &out, slave)
		slave.Close()
		master.SetReadDeadline(time.Now().Add(5 * time.Second))
		shown, _ := io.ReadAll(master) // ends with EIO once the slave is closed
		master.Close()
		if err != nil && exitStatus(context.Background(), err) != exitNotFound {
			t.Fatalf("%v: %v", tc.args, err)
		}
		s := string(shown)
		if !strings.Contains(s, tc.want) || !strings.HasSuffix(s, "\r\x1b[K") {
			t.Errorf("%v: the terminal got %q; want a line with %q, erased at the end", tc.args, s, tc.want)
		}
		if strings.Contains(out.String(), "kmeta:") {
			t.Errorf("%v: progress on stdout: %q", tc.args, out.String())
		}
	}
}
