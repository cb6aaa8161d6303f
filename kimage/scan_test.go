package kimage_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestManyBTFCandidates reads an arm64 Image of 32,768 valid BTFs and no
// System.map: the error says how many there are and lists a few, in a
// short line, where it listed every offset (a line of megabytes for an
// 8 MB image, whose scan kept every candidate: 73 MB, against the 36 the
// reading commands' rule allows; issue 37, red team six).
func TestManyBTFCandidates(t *testing.T) {
	img := testfixtures.Arm64Image(append(make([]byte, 64), hostile.BTFCandidates(1<<15)...))
	_, err := kimage.ReadBTF(context.Background(), bytes.NewReader(img), btf.Options{})
	if err == nil || !strings.Contains(err.Error(), "valid BTF at 32768 offsets") || !strings.Contains(err.Error(), "and 32760 more") || len(err.Error()) > 400 {
		t.Errorf("got %.500v", err)
	}
}
