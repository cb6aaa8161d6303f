//go:build unix

package kernel

import "golang.org/x/sys/unix"

// The system calls of the package: files are read by descriptor, modules
// relative to an open directory (openat), each call retried on EINTR.

// atFDCWD makes openRead resolve a name against the working directory.
const atFDCWD = unix.AT_FDCWD

func openRead(dirfd int, name string) (int, error) {
	for {
		// O_NONBLOCK: opening a FIFO planted under a fake root must not
		// block; it is rejected as not a regular file. Reads of regular
		// files ignore the flag.
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openDir opens the directory at path for openat.
func openDir(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func closeFD(fd int) { _ = unix.Close(fd) }

// fileSize returns the size of the file open as fd and whether it is a
// regular file.
func fileSize(fd int) (size int64, regular bool, err error) {
	var st unix.Stat_t
	for {
		if err = unix.Fstat(fd, &st); err != unix.EINTR {
			break
		}
	}
	return st.Size, err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG, err
}

func pread(fd int, b []byte, off int64) (int, error) {
	for {
		n, err := unix.Pread(fd, b, off)
		if err != unix.EINTR {
			return n, err
		}
	}
}

func read(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// runningRelease returns the running kernel's release (uname -r).
func runningRelease() (string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", err
	}
	return unix.ByteSliceToString(u.Release[:]), nil
}
