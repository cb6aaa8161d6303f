package kimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Kernel returns a reader of the uncompressed kernel inside data, a kernel
// image (see IsImage) or a Debian package that installs one, and the size
// the image claims for it (0 if unknown). The kernel is the vmlinux ELF
// file for an x86 bzImage and a ppc64 vmlinux, and the kernel's loaded
// sections laid end to end (an arm64 or riscv64 Image) for the others.
// opts.MaxSize bounds the package's vmlinuz, what decompressors keep for
// themselves, and a kernel that must be inflated whole to be found (s390,
// arm zImage); the caller bounds the stream it reads.
func Kernel(ctx context.Context, data []byte, opts Options) (io.Reader, int64, error) {
	maxSize := opts.MaxSize
	if !IsDeb(data) && !IsRPM(data) {
		r, claim, err := imageKernel(ctx, data, maxSize)
		if err != nil {
			return nil, 0, err
		}
		return &prefixReader{r: r, what: "kernel"}, claim, nil
	}
	d, name, _, err := debKernel(ctx, data, maxSize, false)
	if err != nil {
		return nil, 0, err
	}
	image := bytes.Clone(d.Bytes())
	d.Release()
	r, claim, err := imageKernel(ctx, image, maxSize)
	if err != nil {
		return nil, 0, pkgerr.Errorf("kimage: %s: %w", name, err)
	}
	return &prefixReader{r: r, what: name}, claim, nil
}

// imageKernel is Kernel for an image: a bzImage's kernel is streamed, the
// others' are read whole (kernelOf) and handed out as a copy.
func imageKernel(ctx context.Context, image []byte, maxSize int64) (io.Reader, int64, error) {
	switch {
	case IsBzImage(image):
		p, f, err := Payload(image)
		if err != nil {
			return nil, 0, err
		}
		return decompress(ctx, p, f, maxSize, nil)
	case isELF(image) || isArm64Image(image) || isRiscvImage(image):
		return bytes.NewReader(image), int64(len(image)), nil
	}
	d, err := kernelOf(ctx, image, maxSize)
	if err != nil {
		return nil, 0, err
	}
	b := bytes.Clone(d.Bytes())
	d.Release()
	return bytes.NewReader(b), int64(len(b)), nil
}

// kernelOf returns the uncompressed kernel inside image, read whole under
// maxSize; the caller releases it.
func kernelOf(ctx context.Context, image []byte, maxSize int64) (*input.Data, error) {
	switch {
	case IsBzImage(image):
		p, f, err := Payload(image)
		if err != nil {
			return nil, err
		}
		return inflateKernel(ctx, p, f, maxSize)
	case isZboot(image):
		p, f, err := zbootPayload(image)
		if err != nil {
			return nil, err
		}
		return inflateKernel(ctx, p, f, maxSize)
	case isS390(image):
		return s390Payload(ctx, image, maxSize)
	case zImageOrder(image) != nil:
		return zImagePayload(ctx, image, zImageOrder(image), maxSize)
	case isELF(image) || isArm64Image(image) || isRiscvImage(image):
		return input.Borrow(image), nil
	case Detect(image) != Unknown: // Image.gz and the like (arch/arm64/boot/Makefile)
		d, err := inflateKernel(ctx, image, Detect(image), maxSize)
		if err != nil {
			return nil, err
		}
		if k := d.Bytes(); !isELF(k) && !isArm64Image(k) && !isRiscvImage(k) {
			d.Release()
			return nil, fmt.Errorf("kimage: %v data that inflates to neither ELF nor an arm64 or riscv64 Image: it starts with %x", Detect(image), k[:min(len(k), 8)])
		}
		return d, nil
	}
	return nil, unknownImage(image)
}

// inflateKernel inflates payload p in format f under maxSize.
func inflateKernel(ctx context.Context, p []byte, f Format, maxSize int64) (*input.Data, error) {
	r, claim, err := decompress(ctx, p, f, maxSize, nil)
	if err != nil {
		return nil, err
	}
	d, err := readKernel(ctx, r, claim, maxSize, false)
	if err != nil {
		if pe := (*payloadError)(nil); errors.As(err, &pe) {
			return nil, pe // it says which payload
		}
		return nil, pkgerr.Errorf("kimage: %v payload: %w", f, err)
	}
	return d, nil
}

// unknownImage is the error for data that is no kernel image kmeta reads.
func unknownImage(data []byte) error {
	what := "unrecognized data"
	switch {
	case len(data) >= 2 && string(data[:2]) == "MZ":
		what = "a PE/COFF (EFI) file with no Linux image header"
	case len(data) < imageHeadLen:
		what = fmt.Sprintf("only %d bytes", len(data))
	}
	return fmt.Errorf("kimage: not a kernel image kmeta reads (an x86 bzImage, an arm64 or riscv64 Image, EFI zboot, s390, arm zImage or ELF): %s, starting with %x", what, data[:min(len(data), 16)])
}

// imageBTF returns a copy of the raw BTF of the kernel in image. sm, from
// the kernel's System.map (nil if none), locates it in a kernel that is
// not ELF, and checks the scan.
func imageBTF(ctx context.Context, image []byte, sm *sysMap, maxSize int64) ([]byte, error) {
	if isELF(image) {
		raw, _, err := btf.Extract(ctx, image, btf.Options{MaxSize: maxSize})
		return raw, err
	}
	if isArm64Image(image) || isRiscvImage(image) {
		return findBTF(image, sm)
	}
	d, err := kernelOf(ctx, image, maxSize)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if isELF(d.Bytes()) {
		raw, _, err := btf.Extract(ctx, d.Bytes(), btf.Options{MaxSize: maxSize})
		return raw, err
	}
	return findBTF(d.Bytes(), sm)
}
