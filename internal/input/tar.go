package input

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// BTFHub ships each kernel's BTF as RELEASE.btf.tar.xz: a tar archive
// holding one file, the raw BTF. A tar archive has no magic number at its
// start; a POSIX (ustar) or GNU header has one at byte 257.

// TarHeadLen is how many first bytes IsTar needs.
const TarHeadLen = 263

// IsTar reports whether head, the first TarHeadLen bytes of some data (or
// all of it, if shorter), starts a tar archive: a POSIX ("ustar\x00") or
// GNU ("ustar ") header. Archives in the old V7 format, without a magic
// number, are not recognized.
func IsTar(head []byte) bool {
	if len(head) < TarHeadLen {
		return false
	}
	m := head[257:TarHeadLen]
	return string(m) == "ustar\x00" || string(m) == "ustar "
}

// Untar returns the one regular file of the tar archive in d, and its
// name. The file's bytes are used in place: the Data returned takes d
// over (see Slice), and d becomes empty. Directories and links in the
// archive are passed over; an archive with no regular file or more than
// one, a sparse file, or a header that runs past the end of the data, is
// an error, and d is then left as it was.
func Untar(d *Data) (*Data, string, error) {
	data := d.Bytes()
	r := bytes.NewReader(data)
	tr := tar.NewReader(r)
	var name string
	var body []byte
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("tar archive at byte %d: %w", len(data)-r.Len(), err)
		}
		switch h.Typeflag {
		case tar.TypeReg:
		case tar.TypeGNUSparse:
			return nil, "", fmt.Errorf("tar archive: %s is a sparse file", h.Name)
		default:
			continue
		}
		if body != nil {
			return nil, "", fmt.Errorf("tar archive holds more than one file: %s and %s", name, h.Name)
		}
		off := int64(len(data) - r.Len())
		if h.Size > int64(r.Len()) {
			return nil, "", fmt.Errorf("tar archive: %s claims %d bytes at byte %d, past the end of the archive (%d bytes)", h.Name, h.Size, off, len(data))
		}
		name, body = h.Name, data[off:off+h.Size]
	}
	if body == nil {
		return nil, "", errors.New("tar archive holds no file")
	}
	return Slice(d, body), name, nil
}
