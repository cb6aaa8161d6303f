package kimage

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Kind -linecomment -output=kind_string.go

import (
	"bytes"

	"github.com/kmeta-dev/kmeta/internal/input"
)

// Kind is what an input is, as Identify tells it from its first bytes.
//
// Its values are KindUnknown (the zero value), KindBTF, KindELF,
// KindCompressed, KindImage, KindAr, KindRPM and KindTar.
type Kind int

const (
	// KindUnknown is none of the inputs kmeta reads.
	KindUnknown Kind = iota // unknown
	// KindBTF is raw BTF, in either byte order (magic 0xeb9f).
	KindBTF // BTF
	// KindELF is an ELF file: a vmlinux, a module, a BPF object, a ppc64
	// kernel image.
	KindELF // ELF
	// KindCompressed is gzip, xz or zstd data (a .ko.xz, a vmlinux.btf.gz,
	// an arm64 Image.gz, a .tar.xz), which btf.Open and OpenBTF inflate;
	// what it holds shows once inflated.
	KindCompressed // compressed
	// KindImage is a kernel image (see IsImage): an x86 bzImage, an arm64
	// or riscv64 Image, an EFI zboot image, an s390 image or an arm
	// zImage.
	KindImage // kernel image
	// KindAr is an ar archive, as a Debian package is (IsDeb tells one
	// from its first member's name).
	KindAr // ar archive
	// KindRPM is an RPM package (its lead's magic 0xedabeedb).
	KindRPM // RPM package
	// KindTar is a POSIX or GNU tar archive, which btf.Open reads when it
	// holds one file.
	KindTar // tar archive
)

// IdentifyLen is how many first bytes of an input Identify needs to tell
// every Kind: a bzImage's setup header ends before it. Fewer (a short
// input) may leave some kinds unknown.
const IdentifyLen = headLen

// Identify returns the kind of the input whose first bytes are head (its
// first IdentifyLen bytes, or all of it if shorter), by magic numbers
// only: nothing past the header is checked, so an input it names may
// still fail to read. This is the one place that knows the first bytes of
// every input kmeta reads.
func Identify(head []byte) Kind {
	switch {
	case len(head) >= 2 && (head[0] == 0x9f && head[1] == 0xeb || head[0] == 0xeb && head[1] == 0x9f):
		return KindBTF
	case isELF(head):
		return KindELF
	case input.Detect(head) != input.None:
		return KindCompressed
	case IsImage(head):
		return KindImage
	case bytes.HasPrefix(head, []byte(arMagic)):
		return KindAr
	case IsRPM(head):
		return KindRPM
	case input.IsTar(head):
		return KindTar
	}
	return KindUnknown
}
