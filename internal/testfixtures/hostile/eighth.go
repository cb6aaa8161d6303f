package hostile

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Shapes of the eighth campaign (issue 37): BTFHub's archives
// (RELEASE.btf.tar, compressed) and trees of them
// (DISTRO/VERSION/ARCH/RELEASE.btf.tar.xz), as btf min -d reads them, and
// RPM packages of hard links.

// ArchiveShape is a hostile tar archive around one kernel's BTF.
type ArchiveShape int

const (
	// ManyDirs is n directory entries, then the BTF: the reader walks
	// every header to find the one file.
	ManyDirs ArchiveShape = iota
	// ManyLinks is n symbolic links to /etc/shadow, then the BTF.
	ManyLinks
	// ManyFiles is n empty regular files, then the BTF: refused at the
	// second file.
	ManyFiles
	// HugePAX is the BTF behind a PAX header whose path is n bytes long.
	HugePAX
	// NestedTar is a tar archive holding the BTF's tar archive.
	NestedTar
	// LinkOnly is a symbolic link and a hard link to /etc/shadow, and no file.
	LinkOnly
	// EscapingName is the BTF under the name ../../../../tmp/x.btf.
	EscapingName
)

// ArchiveShapes are every ArchiveShape.
func ArchiveShapes() []ArchiveShape {
	return []ArchiveShape{ManyDirs, ManyLinks, ManyFiles, HugePAX, NestedTar, LinkOnly, EscapingName}
}

func (s ArchiveShape) String() string {
	names := []string{"many-dirs", "many-links", "many-files", "huge-pax", "nested-tar", "link-only", "escaping-name"}
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("ArchiveShape(%d)", int(s))
}

// BuildArchive returns a tar archive of shape s around raw, n its count
// (entries, or the PAX path's bytes).
func BuildArchive(s ArchiveShape, n int, raw []byte) ([]byte, error) {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	add := func(h *tar.Header, data []byte) error {
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(data))
		}
		h.Mode = 0o644
		if err := w.WriteHeader(h); err != nil {
			return err
		}
		_, err := w.Write(data)
		return err
	}
	file := &tar.Header{Name: "x.btf", Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	var err error
	switch s {
	case ManyDirs, ManyLinks, ManyFiles:
		for i := 0; i < n && err == nil; i++ {
			h := &tar.Header{Name: fmt.Sprintf("d%07d/", i), Typeflag: tar.TypeDir, Format: tar.FormatUSTAR}
			switch s {
			case ManyLinks:
				h = &tar.Header{Name: fmt.Sprintf("s%07d", i), Typeflag: tar.TypeSymlink, Linkname: "/etc/shadow", Format: tar.FormatUSTAR}
			case ManyFiles:
				h = &tar.Header{Name: fmt.Sprintf("f%07d", i), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
			}
			err = add(h, nil)
		}
	case HugePAX:
		// archive/tar writes no PAX record over 1 MiB: the header is
		// written as a file, then marked as one.
		rec := fmt.Sprintf(" path=%s.btf\n", strings.Repeat("a", n))
		rec = fmt.Sprint(len(rec)+len(fmt.Sprint(len(rec)))) + rec
		at := b.Len()
		err = add(&tar.Header{Name: "PaxHeaders/x.btf", Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}, []byte(rec))
		if err == nil {
			err = w.Flush()
			markPAX(b.Bytes()[at : at+512])
		}
		file.Format = tar.FormatUSTAR
	case NestedTar:
		inner, ierr := BuildArchive(EscapingName, 0, raw)
		if ierr != nil {
			return nil, ierr
		}
		file.Name, raw = "x.btf.tar", inner
	case LinkOnly:
		err = add(&tar.Header{Name: "x.btf", Typeflag: tar.TypeSymlink, Linkname: "/etc/shadow"}, nil)
		if err == nil {
			err = add(&tar.Header{Name: "y.btf", Typeflag: tar.TypeLink, Linkname: "/etc/shadow"}, nil)
		}
		file = nil
	case EscapingName:
		file.Name = "../../../../tmp/x.btf"
	}
	if err == nil && file != nil {
		err = add(file, raw)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("hostile: %v: %w", s, err)
	}
	return b.Bytes(), nil
}

// markPAX makes the tar header block h a PAX extended header (type 'x'),
// and sums it again: the checksum is the sum of its bytes with the
// checksum field as spaces, six octal digits, NUL and space (POSIX ustar).
func markPAX(h []byte) {
	h[156] = tar.TypeXHeader
	copy(h[148:156], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// WriteKernelTree writes n copies of raw into dir as BTFHub lays its
// archive out, DISTRO/VERSION/ARCH/RELEASE.btf, a thousand kernels a
// distribution, and returns their paths relative to dir.
func WriteKernelTree(dir string, n int, raw []byte) ([]string, error) {
	rels := make([]string, n)
	for i := range rels {
		rels[i] = filepath.Join(fmt.Sprintf("distro%d", i/1000), "1", "x86_64", fmt.Sprintf("5.%d.btf", i))
		p := filepath.Join(dir, rels[i])
		if i%1000 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			return nil, err
		}
	}
	return rels, nil
}

// RPMHardLinks returns an RPM package (as RPMZstd's) whose payload is n
// hard links of size 0, each to a file of its own whose contents never
// come (rpm stores them with a set's last link), named by nameLen bytes:
// a reader that holds each waiting link's name holds n * nameLen bytes.
func RPMHardLinks(n, nameLen int) ([]byte, error) {
	return rpmOfCpio(func(w io.Writer) error {
		for i := range n {
			name := fmt.Sprintf("usr/share/%0*d", nameLen, i)
			if err := writeCpioLink(w, uint32(i+1), 2, name); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeCpioLink writes one "new ASCII" cpio entry of an empty regular
// file with inode ino and nlink links.
func writeCpioLink(w io.Writer, ino, nlink uint32, name string) error {
	h := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, 0o100644, 0, 0, nlink, 0, 0, 0, 0, 0, 0, len(name)+1, 0)
	head := append(append([]byte(h), name...), 0)
	_, err := w.Write(append(head, make([]byte, (4-len(head)%4)%4)...))
	return err
}
