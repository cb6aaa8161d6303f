package testfixtures

import (
	"bytes"
	"debug/elf"
	"testing"
)

// Distilled are the distilled modules under testdata/elf/distilled (NAME.ko.gz:
// the .BTF and .BTF.base sections that pahole 1.30 wrote with the
// distilled_base feature), with the base each was made on and the BTF that
// pahole distilled (its output without the feature).
var Distilled = []struct{ Name, Base, Undistilled string }{
	{"debian-6.12-af_key", "btf/debian-6.12-cloud.btf.zst", "pahole/encode/debian-6.12/af_key.btf.gz"},
	{"debian-6.12-tun", "btf/debian-6.12-cloud.btf.zst", "pahole/encode/debian-6.12/tun.btf.gz"},
	{"debian-7.3-af_key", "btf/debian-7.3-cloud.btf.zst", "pahole/encode/debian-7.3/af_key.pahole.btf.gz"},
}

// DistilledSections returns the .BTF and .BTF.base sections of the
// distilled module fixture name (one of Distilled's).
func DistilledSections(tb testing.TB, name string) (split, base []byte) {
	tb.Helper()
	f, err := elf.NewFile(bytes.NewReader(Read(tb, "elf/distilled/"+name+".ko.gz")))
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range []struct {
		name string
		dst  *[]byte
	}{{".BTF", &split}, {".BTF.base", &base}} {
		sec := f.Section(s.name)
		if sec == nil {
			tb.Fatalf("%s: no %s section", name, s.name)
		}
		if *s.dst, err = sec.Data(); err != nil {
			tb.Fatal(err)
		}
	}
	return split, base
}
