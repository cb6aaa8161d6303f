package hostile

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Shapes of the seventh campaign (issue 37): kernel packages whose
// archive inflates to far more than the package, and RPM payloads.

// PackageFile is a file of a generated package: its path and contents,
// or, with Zeros set, that many zero bytes, streamed into the archive
// without being held.
type PackageFile struct {
	Name  string
	Data  []byte
	Zeros int64
}

// size is how many bytes f holds.
func (f PackageFile) size() int64 {
	if f.Zeros > 0 {
		return f.Zeros
	}
	return int64(len(f.Data))
}

// writeBody writes f's contents to w.
func (f PackageFile) writeBody(w io.Writer) error {
	if f.Zeros == 0 {
		_, err := w.Write(f.Data)
		return err
	}
	_, err := io.CopyN(w, zeroReader{}, f.Zeros)
	return err
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// zstdOf compresses what write writes, at zstd's fastest level: a file of
// gigabytes of zeros becomes a few kilobytes.
func zstdOf(write func(w io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	if err := write(zw); err != nil {
		zw.Close()
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DebZstd returns a Debian package whose data.tar.zst holds files, in
// order: with a file of Zeros before the kernel, a package of kilobytes
// that its reader must inflate gigabytes of to reach the kernel.
func DebZstd(files []PackageFile) ([]byte, error) {
	data, err := zstdOf(func(w io.Writer) error {
		tw := tar.NewWriter(w)
		for _, f := range files {
			if err := tw.WriteHeader(&tar.Header{Name: "./" + f.Name, Mode: 0o644, Size: f.size(), Typeflag: tar.TypeReg}); err != nil {
				return err
			}
			if err := f.writeBody(tw); err != nil {
				return err
			}
		}
		return tw.Close()
	})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	for _, m := range [][2][]byte{{[]byte("debian-binary"), []byte("2.0\n")}, {[]byte("control.tar.xz"), nil}, {[]byte("data.tar.zst"), data}} {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", m[0], 0, 0, 0, "100644", len(m[1]))
		b.Write(m[1])
		if len(m[1])%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// RPMZstd returns an RPM package (a lead, empty signature and main
// headers) whose payload is the "new ASCII" cpio archive of files, in
// order, compressed with zstd.
func RPMZstd(files []PackageFile) ([]byte, error) {
	return rpmOfCpio(func(w io.Writer) error {
		for i, f := range files {
			if err := writeCpio(w, uint32(i+1), f.Name, 0o100644, f); err != nil {
				return err
			}
		}
		return nil
	})
}

// rpmOfCpio returns an RPM package (a lead, empty signature and main
// headers) whose payload is the cpio entries that write writes and the
// trailer, compressed with zstd.
func rpmOfCpio(write func(w io.Writer) error) ([]byte, error) {
	payload, err := zstdOf(func(w io.Writer) error {
		if err := write(w); err != nil {
			return err
		}
		return writeCpio(w, 0, "TRAILER!!!", 0, PackageFile{})
	})
	if err != nil {
		return nil, err
	}
	lead := make([]byte, 96)
	copy(lead, []byte{0xed, 0xab, 0xee, 0xdb, 3, 0})
	hdr := []byte{0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	return append(append(append(lead, hdr...), hdr...), payload...), nil
}

// writeCpio writes one "new ASCII" (070701) cpio entry of f.
func writeCpio(w io.Writer, ino uint32, name string, mode uint32, f PackageFile) error {
	size := f.size()
	if size >= 1<<32 {
		return fmt.Errorf("hostile: a cpio file of %d bytes: the format holds less than 4 GiB", size)
	}
	h := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, len(name)+1, 0)
	head := append(append([]byte(h), name...), 0)
	head = append(head, make([]byte, (4-len(head)%4)%4)...)
	if _, err := w.Write(head); err != nil {
		return err
	}
	if err := f.writeBody(w); err != nil {
		return err
	}
	_, err := w.Write(make([]byte, (4-size%4)%4))
	return err
}
