package kimage

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Kernel returns a reader of the uncompressed kernel (the vmlinux ELF
// file) inside data, an x86 bzImage or a Debian package that installs
// one, and the size the image claims for it (0 if unknown). maxSize bounds
// the package's vmlinuz and what decompressors keep for themselves; the
// caller bounds the stream it reads.
func Kernel(ctx context.Context, data []byte, maxSize int64) (io.Reader, int64, error) {
	switch {
	case IsDeb(data) || IsRPM(data):
		image, name, err := Vmlinuz(ctx, data, maxSize)
		if err != nil {
			return nil, 0, err
		}
		r, claim, err := imageKernel(image, maxSize)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", name, err)
		}
		return r, claim, nil
	case IsBzImage(data):
		return imageKernel(data, maxSize)
	}
	return nil, 0, errors.New("kimage: neither an x86 bzImage nor a Debian or RPM package")
}

func imageKernel(image []byte, maxSize int64) (io.Reader, int64, error) {
	p, f, err := Payload(image)
	if err != nil {
		return nil, 0, err
	}
	return Decompress(p, f, maxSize)
}
