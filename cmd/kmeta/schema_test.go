package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// schemaDir holds the JSON Schemas of every --json output: the contract
// (README, docs/json.md).
const schemaDir = "../../docs/schema"

// schemaCase runs one command with --json on committed inputs; its
// output must validate against docs/schema/SCHEMA. A new command with
// --json is one more row (TestSchemaEveryCommand says when one is
// missing).
type schemaCase struct {
	schema string                         // file name in docs/schema
	args   func(tb testing.TB) []string   // the command line, --json included
	lines  bool                           // JSON Lines: each line is one instance
	wait   time.Duration                  // interrupt the command after this long (ksym watch)
	skip   func(tb testing.TB, err error) // may skip when the command cannot run here
}

// schemaCases: at least one row for each command with --json, on inputs
// under testdata/ (and fakes built from them), so that every record kind
// of the schema is exercised: anonymous members, bitfields, poisoned
// relocations, unresolved addresses.
var schemaCases = map[string]schemaCase{
	"btf dump": {schema: "btf-dump.json", lines: true, args: func(tb testing.TB) []string {
		return []string{"btf", "dump", testfixtures.Path(tb, "elf/af_key.ko.gz"), "-B", testfixtures.Path(tb, testfixtures.DebianVmlinux), "--json"}
	}},
	"btf dump (prog.bpf.o: func, func_proto, datasec, var)": {schema: "btf-dump.json", lines: true, args: func(tb testing.TB) []string {
		return []string{"btf", "dump", testfixtures.Path(tb, "elf/prog.bpf.o.gz"), "--json"}
	}},
	"btf find": {schema: "btf-find.json", args: func(tb testing.TB) []string {
		deb := testfixtures.Path(tb, testfixtures.DebianVmlinux)
		return []string{"btf", "find", "sk_buff", deb, testfixtures.Path(tb, testfixtures.HostVmlinux), "--json"}
	}},
	"btf find --kernel": {schema: "btf-find.json", args: func(tb testing.TB) []string {
		return []string{"btf", "find", "xfs_mount", "--kernel", "--sysfs", fakeSysfs(tb, nil), "--json"}
	}},
	"btf modules": {schema: "btf-modules.json", args: func(tb testing.TB) []string {
		return []string{"btf", "modules", "--sysfs", fakeSysfs(tb, nil), "--json"}
	}},
	"btf layout": {schema: "btf-layout.json", args: func(tb testing.TB) []string {
		return []string{"btf", "layout", "sk_buff", "task_struct", "page", testfixtures.Path(tb, testfixtures.DebianVmlinux), "--json"}
	}},
	"btf diff": {schema: "btf-diff.json", args: func(tb testing.TB) []string {
		return []string{"btf", "diff", "--types", "sk_buff,task_struct", testfixtures.Path(tb, testfixtures.DebianVmlinux), testfixtures.Path(tb, testfixtures.HostVmlinux), "--json"}
	}},
	"btf core": {schema: "btf-core.json", args: func(tb testing.TB) []string {
		return []string{"btf", "core", testfixtures.Path(tb, "core/fields.bpf.o.gz"), "--target", testfixtures.Path(tb, testfixtures.DebianVmlinux), "--json"}
	}},
	"btf list": {schema: "btf-list.json", args: func(testing.TB) []string { return []string{"btf", "list", "--json"} },
		skip: func(tb testing.TB, err error) {
			if os.Geteuid() != 0 {
				tb.Skipf("btf list needs root (CAP_SYS_ADMIN): %v", err)
			}
		}},
	"ksym addr": {schema: "ksym-addr.json", args: func(tb testing.TB) []string {
		return append([]string{"ksym", "addr", "ffffffff81000114", "ffffffffc0000044", "1", "--json"}, ksymFiles(tb)...)
	}},
	"ksym name": {schema: "ksym-name.json", args: func(tb testing.TB) []string {
		return append([]string{"ksym", "name", "foo", "--json"}, ksymFiles(tb)...)
	}},
	"ksym modules": {schema: "ksym-modules.json", args: func(tb testing.TB) []string {
		return append([]string{"ksym", "modules", "--json"}, ksymFiles(tb)...)
	}},
	"ksym stats": {schema: "ksym-stats.json", args: func(tb testing.TB) []string {
		return append([]string{"ksym", "stats", "--json"}, ksymFiles(tb)...)
	}},
	"ksym watch": {schema: "ksym-watch.json", lines: true, wait: 300 * time.Millisecond, args: func(tb testing.TB) []string {
		return append([]string{"ksym", "watch", "--json"}, ksymFiles(tb)...)
	}},
}

// compileSchemas compiles every schema of docs/schema, each known by its
// $id, so that their references to defs.json resolve without a network.
func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", schemaDir, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	ids := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		m, _ := doc.(map[string]any)
		id, _ := m["$id"].(string)
		if m["$schema"] != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(id, "/"+filepath.Base(f)) {
			t.Fatalf("%s: want draft 2020-12 and an $id ending in its file name, got %v and %q", f, m["$schema"], id)
		}
		if err := c.AddResource(id, doc); err != nil {
			t.Fatal(err)
		}
		ids[filepath.Base(f)] = id
	}
	out := map[string]*jsonschema.Schema{}
	for name, id := range ids {
		s, err := c.Compile(id)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// TestSchema runs every command with --json on committed inputs and
// validates its output against the committed schema (issue 40). The
// validator is github.com/santhosh-tekuri/jsonschema/v6, a test-only
// dependency.
func TestSchema(t *testing.T) {
	t.Parallel()
	schemas := compileSchemas(t)
	for name, tc := range schemaCases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			sch := schemas[tc.schema]
			if sch == nil {
				t.Fatalf("no schema %s in %s", tc.schema, schemaDir)
			}
			out, err := runForSchema(t, tc)
			var interrupted signalCause
			if st := exitStatus(context.Background(), err); err != nil && st != exitNotFound && !(tc.wait > 0 && errors.As(err, &interrupted)) {
				if tc.skip != nil {
					tc.skip(t, err)
				}
				t.Fatalf("%v", err)
			}
			docs := []string{out}
			if tc.lines {
				docs = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			}
			records := 0
			for i, d := range docs {
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(d))
				if err != nil {
					t.Fatalf("output %d is not JSON: %v\n%.300s", i+1, err, d)
				}
				if err := sch.Validate(inst); err != nil {
					t.Fatalf("output %d does not follow %s: %#v\n%.2000s", i+1, tc.schema, err, d)
				}
				records += recordCount(inst)
			}
			if records == 0 {
				t.Errorf("no records: the schema was not exercised:\n%s", out)
			}
		})
	}
}

// runForSchema runs tc's command, interrupting it after tc.wait if set.
func runForSchema(t *testing.T, tc schemaCase) (string, error) {
	ctx := context.Background()
	if tc.wait > 0 {
		c, cancel := context.WithCancelCause(ctx)
		time.AfterFunc(tc.wait, func() { cancel(signalCause{sig: 2}) })
		ctx = c
	}
	var out, errOut bytes.Buffer
	err := run(ctx, tc.args(t), strings.NewReader(""), &out, &errOut)
	return out.String(), err
}

// recordCount is how many records an instance holds: an array's items,
// or one object (diff's document counts its changes).
func recordCount(v any) int {
	switch v := v.(type) {
	case []any:
		return len(v)
	case map[string]any:
		if ch, ok := v["changes"].([]any); ok {
			return len(ch)
		}
		return 1
	}
	return 0
}

// TestSchemaEveryCommand: every command that has a --json flag has a row
// in schemaCases, and every schema file is used by one, so a command
// cannot add --json without a schema, nor a schema outlive its command.
func TestSchemaEveryCommand(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	used := map[string]bool{"defs.json": true}
	for name, tc := range schemaCases {
		covered[strings.Fields(name)[0]+" "+strings.Fields(name)[1]] = true
		used[tc.schema] = true
	}
	root := (&cli{stdout: new(bytes.Buffer), stderr: new(bytes.Buffer)}).rootCmd()
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.Runnable() && cmd.Flags().Lookup("json") != nil {
			path := strings.TrimPrefix(cmd.CommandPath(), "kmeta ")
			if !covered[path] {
				t.Errorf("%q has --json but no row in schemaCases", path)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	files, _ := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	for _, f := range files {
		if !used[filepath.Base(f)] {
			t.Errorf("%s is used by no row of schemaCases", f)
		}
	}
	if len(files) == 0 || !slices.Contains(files, filepath.Join(schemaDir, "defs.json")) {
		t.Errorf("no defs.json in %s", schemaDir)
	}
}

// TestSchemaRejects: the schemas hold the vocabulary, so the records
// kmeta wrote before it (issue 40) fail them.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	schemas := compileSchemas(t)
	for _, tc := range []struct{ schema, doc string }{
		{"btf-find.json", `[{"file": "f", "id": 1, "kind": "STRUCT", "name": "s", "size": 4, "vlen": 0, "members": []}]`},
		{"btf-dump.json", `{"id": 1, "kind": "struct", "name": "(anon)", "size": 4, "members": []}`},
		{"btf-layout.json", `[]`},
		{"btf-diff.json", `[{"kind": "struct", "name": "s", "change": "changed", "details": ["size: 4 -> 8"]}]`},
		{"btf-core.json", `[{"section": "s", "program": "p", "index": 0, "insn": 1, "kind": "byte_off", "local_type": 1, "local": "x", "orig": 0, "target": null, "poisoned": true}]`},
		{"ksym-addr.json", `[{"addr": "0x1", "symbol": "foo", "offset": 0, "module": "vmlinux"}]`},
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		err = schemas[tc.schema].Validate(inst)
		if tc.doc == "[]" {
			if err != nil {
				t.Errorf("%s: [] fails: %v", tc.schema, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s accepts %s", tc.schema, tc.doc)
		}
	}
}
