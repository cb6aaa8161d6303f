package input_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestInflateZstd(t *testing.T) {
	head := []byte("\x9f\xeb\x01\x00")
	// Claims 2 GiB: refused before decoding.
	_, err := input.Inflate(context.Background(), input.Zstd, testfixtures.ZstdZeros(2<<30, head, 4), input.Options{Limit: 1 << 30})
	var tl *input.TooLargeError
	if !errors.As(err, &tl) || tl.Claim != 2<<30 {
		t.Errorf("claim of 2 GiB: %v", err)
	}
	// Claims nothing, holds 8 MiB: stopped at the 4 MiB limit.
	if _, err := input.Inflate(context.Background(), input.Zstd, testfixtures.ZstdZeros(-1, head, 8<<20), input.Options{Limit: 4 << 20}); !errors.As(err, &tl) || tl.Claim != 0 {
		t.Errorf("8 MiB over a 4 MiB limit: %v", err)
	}
	// Within the limit, the frame reads back.
	d, err := input.Inflate(context.Background(), input.Zstd, testfixtures.ZstdZeros(1<<20, head, 1<<20), input.Options{Limit: 4 << 20})
	if err != nil || len(d.Bytes()) != 1<<20 || !bytes.HasPrefix(d.Bytes(), head) {
		t.Fatalf("1 MiB: %v", err)
	}
	d.Release()
	// The real encoder's output reads back too.
	enc, _ := zstd.NewWriter(nil)
	d, err = input.Inflate(context.Background(), input.Zstd, enc.EncodeAll([]byte("hello"), nil), input.Options{})
	if err != nil || string(d.Bytes()) != "hello" {
		t.Fatalf("hello: %q %v", d.Bytes(), err)
	}
}

func TestELFSection(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	payload := enc.EncodeAll([]byte("\x9f\xebBTF"), nil)
	d, err := input.InflateELFSection(context.Background(), append(testfixtures.Chdr64(2, 5), payload...), true, binary.LittleEndian, input.Options{})
	if err != nil || string(d.Bytes()) != "\x9f\xebBTF" {
		t.Fatalf("%q, %v", d.Bytes(), err)
	}
	if _, err := input.InflateELFSection(context.Background(), append(testfixtures.Chdr64(2, 10<<30), payload...), true, binary.LittleEndian, input.Options{}); !errors.Is(err, input.ErrTooLarge) {
		t.Errorf("claims 10 GiB: %v", err)
	}
	if _, err := input.InflateELFSection(context.Background(), append(testfixtures.Chdr64(2, 6), payload...), true, binary.LittleEndian, input.Options{}); err == nil {
		t.Errorf("size mismatch: no error")
	}
	if _, err := input.InflateELFSection(context.Background(), append(testfixtures.Chdr64(9, 5), payload...), true, binary.LittleEndian, input.Options{}); err == nil {
		t.Errorf("unknown type: no error")
	}
}
