package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/internal/bpftest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// loadTestObjects loads testdata/bpfobj/objs.bpf.o n times with bpftool,
// or skips the test.
func loadTestObjects(t *testing.T, n int) ([]bpftest.Object, string) {
	t.Helper()
	objs := bpftest.Load(t, testfixtures.Path(t, "bpfobj/objs.bpf.o"), n)
	return objs, bpftest.Bpftool(t)
}

// stable runs bpftool, kmeta, and bpftool again, until bpftool says the
// same twice around kmeta: other processes load and unload BPF objects
// meanwhile. It returns bpftool's output and kmeta's.
func stable(t *testing.T, bpftool []string, kmetaArgs []string) (want, got string) {
	t.Helper()
	run := func() string {
		out, err := exec.Command(bpftool[0], bpftool[1:]...).Output()
		if err != nil {
			t.Fatalf("%v: %v", bpftool, err)
		}
		return string(out)
	}
	for range 20 {
		before := run()
		out, err := kmeta(t, nil, kmetaArgs...)
		if err != nil {
			t.Fatalf("kmeta %v: %v", kmetaArgs, err)
		}
		if after := run(); before == after {
			return before, out
		}
	}
	t.Skip("the kernel's BPF objects changed during every one of 20 tries")
	return "", ""
}

// TestBTFListBpftool compares "kmeta btf list" with "bpftool btf list",
// and --json with "bpftool -j btf list", byte for byte, with the test
// object loaded six times (and whatever else is loaded): 30 programs and
// 42 maps with BTF, enough for bpftool's hashmaps to grow four times.
func TestBTFListBpftool(t *testing.T) {
	objs, bpftool := loadTestObjects(t, 6)
	want, got := stable(t, []string{bpftool, "btf", "list"}, []string{"btf", "list"})
	if got != want {
		t.Errorf("kmeta btf list differs from bpftool's:\n--- kmeta\n%s--- bpftool\n%s", got, want)
	}
	for _, o := range objs {
		if !strings.Contains(got, "\n"+strconv.Itoa(int(o.BTFID))+": name <anon>") {
			t.Errorf("BTF object %d of the test object not listed", o.BTFID)
		}
	}
	// --json: bpftool -j's data, as kmeta's JSON document (indented).
	want, got = stable(t, []string{bpftool, "-j", "btf", "list"}, []string{"btf", "list", "--json"})
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, got)); diff != "" {
		t.Errorf("kmeta btf list --json differs from bpftool -j btf list (-bpftool +kmeta):\n%s", diff)
	}
	for _, id := range []string{"1", strconv.Itoa(int(objs[0].BTFID))} {
		want, got = stable(t, []string{bpftool, "btf", "list", "id", id}, []string{"btf", "list", "id", id})
		if got != want {
			t.Errorf("kmeta btf list id %s: %q, bpftool: %q", id, got, want)
		}
		want, got = stable(t, []string{bpftool, "-j", "btf", "list", "id", id}, []string{"btf", "list", "id", id, "--json"})
		// bpftool prints the object alone, kmeta a list of it.
		if diff := cmp.Diff([]any{jsonValue(t, want)}, jsonValue(t, got)); diff != "" {
			t.Errorf("kmeta btf list id %s --json differs from bpftool -j (-bpftool +kmeta):\n%s", id, diff)
		}
	}
}

// TestBTFDumpLiveBpftool compares "kmeta btf dump id|prog|map" with
// bpftool's "btf dump id|prog id|map id", raw and C, for every BTF object
// that bpftool lists, every program and map that uses one, and every part
// of the test objects' maps. Objects that go away meanwhile (other
// processes load and unload theirs) are skipped, not the test's own; of
// other processes' objects, the first 100 are compared. Where the
// running kernel's BTF is the committed host fixture, vmlinux (id 1) is
// compared, raw, with bpftool's committed dump of that fixture instead:
// running bpftool on it again, and the C header (which the golden tests
// compare), cost four vmlinux-sized dumps.
func TestBTFDumpLiveBpftool(t *testing.T) {
	objs, bpftool := loadTestObjects(t, 1)
	skipVmlinux := testfixtures.RunningKernelIsHostFixture(t)
	if skipVmlinux {
		got, err := kmetaBytes(t, nil, "btf", "dump", "id", "1")
		if err != nil {
			t.Fatalf("kmeta btf dump id 1: %v", err)
		}
		if want := testfixtures.Read(t, "bpftool/host-6.18.44.raw.txt.gz"); !bytes.Equal(got, want) {
			t.Errorf("kmeta btf dump id 1 differs from bpftool's dump of %s:\n%s", testfixtures.HostVmlinux, firstDiff(got, want))
		}
	}
	out, err := exec.Command(bpftool, "-j", "btf", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		ID      uint32   `json:"id"`
		ProgIDs []uint32 `json:"prog_ids"`
		MapIDs  []uint32 `json:"map_ids"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{}
	var ourMaps []uint32
	for _, o := range objs {
		ours["id "+strconv.Itoa(int(o.BTFID))] = true
		for _, p := range o.Progs {
			ours["prog "+strconv.Itoa(int(p))] = true
		}
		for _, m := range o.Maps {
			ours["map "+strconv.Itoa(int(m))] = true
		}
		ourMaps = append(ourMaps, o.Maps...)
	}
	type dump struct{ kind, id, part string }
	var dumps []dump
	for _, b := range list {
		dumps = append(dumps, dump{"id", strconv.Itoa(int(b.ID)), ""})
		for _, p := range b.ProgIDs {
			dumps = append(dumps, dump{"prog", strconv.Itoa(int(p)), ""})
		}
		for _, m := range b.MapIDs {
			dumps = append(dumps, dump{"map", strconv.Itoa(int(m)), ""})
			if slices.Contains(ourMaps, m) {
				for _, part := range []string{"key", "value", "kv", "all"} {
					dumps = append(dumps, dump{"map", strconv.Itoa(int(m)), part})
				}
			}
		}
	}
	checked, foreign := 0, 0
	for _, d := range dumps {
		if d.kind == "id" && d.id == "1" && skipVmlinux {
			continue
		}
		if !ours[d.kind+" "+d.id] && d.id != "1" {
			// Other processes' objects: a sample, however many they load.
			if foreign++; foreign > 100 {
				continue
			}
		}
		for _, format := range []string{"raw", "c"} {
			args := []string{"btf", "dump", d.kind}
			bargs := []string{"btf", "dump", d.kind}
			if d.kind != "id" {
				bargs = append(bargs, "id")
			}
			args = append(args, d.id)
			bargs = append(bargs, d.id)
			if d.part != "" {
				args = append(args, d.part)
				bargs = append(bargs, d.part)
			}
			args = append(args, "--format", format)
			if format == "c" {
				// The oracle here is Debian 12's bpftool 7.1.
				args = append(args, "--compat", "bpftool-7.1")
			}
			bargs = append(bargs, "format", format)
			want, berr := exec.Command(bpftool, bargs...).Output()
			got, kerr := kmetaBytes(t, nil, args...)
			if berr != nil || kerr != nil {
				if ours[d.kind+" "+d.id] {
					t.Fatalf("%s %s: bpftool: %v, kmeta: %v", d.kind, d.id, berr, kerr)
				}
				continue // gone meanwhile
			}
			checked++
			if !bytes.Equal(got, want) {
				t.Errorf("kmeta %s differs from bpftool %s:\n%s", strings.Join(args, " "), strings.Join(bargs, " "), firstDiff(got, want))
			}
		}
	}
	t.Logf("%d dumps identical to bpftool's", checked)
	// --json: the same data as bpftool -j, in kmeta's JSON vocabulary
	// (kmeta puts one type on a line).
	for _, d := range dumps {
		if !ours[d.kind+" "+d.id] {
			continue
		}
		bargs := []string{"-j", "btf", "dump", d.kind, d.id}
		if d.kind != "id" {
			bargs = slices.Insert(bargs, 4, "id")
		}
		args := []string{"btf", "dump", d.kind, d.id, "--json"}
		if d.part != "" {
			bargs = append(bargs, d.part)
			args = append(args, d.part)
		}
		want, err := exec.Command(bpftool, bargs...).Output()
		if err != nil {
			t.Fatalf("bpftool %v: %v", bargs, err)
		}
		got, err := kmetaBytes(t, nil, args...)
		if err != nil {
			t.Fatalf("kmeta %v: %v", args, err)
		}
		// kmeta prints JSON Lines, one type a line; bpftool a document
		// {"types": [...]}.
		w := bpftoolTypesJSON(jsonValue(t, string(want)))
		types := []any{}
		for line := range strings.Lines(string(got)) {
			types = append(types, jsonValue(t, line))
		}
		g := any(map[string]any{"types": types})
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("kmeta %v differs from bpftool %v (-bpftool +kmeta):\n%s", args, bargs, diff)
		}
	}
}

// bpftoolTypesJSON rewrites bpftool -j's types in kmeta's JSON vocabulary
// (docs/json.md): kinds and encodings in lower case, no "(anon)" names,
// bit_offset for bits_offset, value for val, an enum's signedness as
// "signed", no vlen (the lists hold it), bitfield_size on every member.
func bpftoolTypesJSON(doc any) any {
	for _, t := range doc.(map[string]any)["types"].([]any) {
		rec := t.(map[string]any)
		rec["kind"] = strings.ToLower(rec["kind"].(string))
		delete(rec, "vlen")
		if enc, ok := rec["encoding"].(string); ok {
			switch rec["kind"] {
			case "enum", "enum64":
				rec["signed"] = enc == "SIGNED"
				delete(rec, "encoding")
			default:
				rec["encoding"] = strings.Trim(strings.ToLower(enc), "()")
			}
		}
		bpftoolNames(rec)
		for _, list := range []string{"members", "params", "values"} {
			items, _ := rec[list].([]any)
			for _, it := range items {
				m := it.(map[string]any)
				bpftoolNames(m)
				if list == "members" && m["bitfield_size"] == nil {
					m["bitfield_size"] = 0.0
				}
				if v, ok := m["val"]; ok {
					m["value"] = v
					delete(m, "val")
				}
			}
		}
	}
	return doc
}

// bpftoolNames drops bpftool's "(anon)" name and renames bits_offset.
func bpftoolNames(m map[string]any) {
	if m["name"] == "(anon)" {
		delete(m, "name")
	}
	if v, ok := m["bits_offset"]; ok {
		m["bit_offset"] = v
		delete(m, "bits_offset")
	}
}

// firstDiff shows where a and b first differ, by line.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  kmeta:   " + la[i] + "\n  bpftool: " + lb[i]
		}
	}
	return "lengths " + strconv.Itoa(len(la)) + " and " + strconv.Itoa(len(lb)) + " lines"
}

// TestBTFLiveNotFound: an id that names nothing, and a map without BTF,
// give status 1 and a one-line error.
func TestBTFLiveNotFound(t *testing.T) {
	objs, _ := loadTestObjects(t, 1)
	var noBTF string
	for _, m := range objs[0].Maps {
		out, err := exec.Command(bpftest.Bpftool(t), "-j", "map", "show", "id", strconv.Itoa(int(m))).Output()
		if err == nil && !bytes.Contains(out, []byte(`"btf_id"`)) {
			noBTF = strconv.Itoa(int(m))
		}
	}
	for _, args := range [][]string{
		{"btf", "list", "id", "4294967295"},
		{"btf", "dump", "id", "4294967295"},
		{"btf", "dump", "prog", "4294967295"},
		{"btf", "dump", "map", "4294967295", "--format", "c"},
		{"btf", "dump", "map", noBTF},
	} {
		out, msg, code := status(t, "", args...)
		if code != exitNotFound || out != "" || msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("kmeta %v: status %d, stdout %q, error %q", args, code, out, msg)
		}
	}
}

// TestBTFLiveUsage: malformed ids and parts are usage errors.
func TestBTFLiveUsage(t *testing.T) {
	for _, args := range [][]string{
		{"btf", "dump", "id", "x"},
		{"btf", "dump", "prog", "-1"},
		{"btf", "dump", "map", "1", "keys"},
		{"btf", "dump", "id", "1", "key"},
		{"btf", "dump", "a", "b"},
		{"btf", "list", "x"},
		{"btf", "list", "id"},
		{"btf", "list", "id", "x"},
		{"btf", "list", "id", "1", "2"},
	} {
		_, msg, code := status(t, "", args...)
		if code != exitFailure || !strings.Contains(msg, "usage: kmeta btf "+args[1]) {
			t.Errorf("kmeta %v: status %d, error %q", args, code, msg)
		}
	}
}

// TestBTFListUnprivileged runs "kmeta btf list" and "btf dump id 1" as
// nobody without capabilities (through setpriv, when the test runs as
// root; in process otherwise): status 2, and one line that says what is
// missing.
func TestBTFListUnprivileged(t *testing.T) {
	for _, args := range [][]string{{"btf", "list"}, {"btf", "dump", "id", "1"}, {"btf", "dump", "map", "1", "--format", "c"}} {
		stdout, stderr, code := runUnprivileged(t, args...)
		if code != exitFailure || stdout != "" ||
			!strings.HasPrefix(stderr, "kmeta: ") || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "operation not permitted (needs root or CAP_SYS_ADMIN)") {
			t.Errorf("kmeta %v without privilege: status %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// runUnprivileged runs kmeta as nobody without capabilities: the test
// binary copied where nobody can run it, through setpriv.
func runUnprivileged(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if os.Geteuid() != 0 {
		stdout, msg, code := status(t, "", args...)
		if msg != "" {
			stderr = "kmeta: " + msg + "\n"
		}
		return stdout, stderr, code
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("root, and no setpriv to drop privileges with")
	}
	bin := copyKmeta(t)
	cmd := exec.Command(setpriv, append([]string{"--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", bin}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

// copyKmeta copies the test binary, as "kmeta" (see TestMain), into a
// directory that every user can read.
func copyKmeta(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "kmeta-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := filepath.Join(dir, "kmeta")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestLibbpfHashmapOrder replays bpftool's hashmap on walks whose printed
// order bpftool 7.1 gave on this project's 6.18 VM (2026-11-26), with the
// test object loaded twice and nothing else: programs 102,105-108 on BTF
// 22 and 114,117-120 on BTF 31; maps 26,27,29,30,32-34 on 22 and
// 38,39,41,42,44-46 on 31 (the ring buffers and .rodata.cst16 maps have no
// BTF).
func TestLibbpfHashmapOrder(t *testing.T) {
	for _, c := range []struct {
		pairs [][2]uint32 // btf id, object id, in walk order
		want  map[uint32]string
	}{
		{
			pairs: [][2]uint32{{22, 102}, {22, 105}, {22, 106}, {22, 107}, {22, 108}, {31, 114}, {31, 117}, {31, 118}, {31, 119}, {31, 120}},
			want:  map[uint32]string{22: "106,105,102,107,108", 31: "120,119,118,117,114"},
		},
		{
			pairs: [][2]uint32{{22, 26}, {22, 27}, {22, 29}, {22, 30}, {22, 32}, {22, 33}, {22, 34}, {31, 38}, {31, 39}, {31, 41}, {31, 42}, {31, 44}, {31, 45}, {31, 46}},
			want:  map[uint32]string{22: "33,32,30,26,27,29,34", 31: "46,45,38,39,41,42,44"},
		},
	} {
		m := new(libbpfHashmap)
		for _, p := range c.pairs {
			m.append(p[0], p[1])
		}
		for key, want := range c.want {
			var got []string
			for _, v := range m.get(key) {
				got = append(got, strconv.Itoa(int(v)))
			}
			if strings.Join(got, ",") != want {
				t.Errorf("BTF %d: %s, bpftool printed %s", key, strings.Join(got, ","), want)
			}
		}
	}
	if got := new(libbpfHashmap).get(1); got == nil || len(got) != 0 {
		t.Errorf("empty map: %v", got)
	}
}

// jsonValue decodes a JSON document.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%.200q: %v", s, err)
	}
	return v
}
