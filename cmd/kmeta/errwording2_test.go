package main

import (
	"context"
	"testing"
)

// TestShortRefusals: refusals are one short line that names the culprit
// once (errwording2).
func TestShortRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()

	// An option kmeta pahole does not take is named; the ones it takes
	// are in --help, not in a line longer than a terminal's.
	file := writeFile(t, dir, "vmlinux", nil)
	_, err := kmeta(t, nil, "pahole", "-J", "--btf_encode_force", file)
	if want := `kmeta: pahole: --btf_encode_force: not a pahole option kmeta takes ("kmeta pahole --help" lists them)`; errorLine(ctx, err) != want || exitStatus(ctx, err) != exitFailure {
		t.Errorf("pahole --btf_encode_force: status %d, %q\nwant %q", exitStatus(ctx, err), errorLine(ctx, err), want)
	}
}
