package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kimage"
)

// magicLen is how much of an input its magic check looks at.
const magicLen = 8

// elfMagic starts every ELF file.
var elfMagic = []byte("\x7fELF")

// checkELF returns the check of an input that must be an ELF file (what:
// "BPF object", "vmlinux or module"), or compressed data (.gz, .xz, .zst)
// that inflates to one; it is made on the first bytes, before the rest is
// read, so that /dev/zero or a wrong file fails at once.
func checkELF(name, what string) func(head []byte) error {
	return func(head []byte) error {
		if k := kimage.Identify(head); k == kimage.KindELF || k == kimage.KindCompressed {
			return nil
		}
		if len(head) == 0 {
			return fmt.Errorf("%s: not a %s: it is empty", name, what)
		}
		return fmt.Errorf("%s: not a %s: it starts with %x, not with ELF's magic (7f454c46) or a compressor's", name, what, head)
	}
}

// inputName names path in errors: "standard input" for "-".
func inputName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// readELF reads the ELF input path ("-": standard input) whole, under the
// input limit and checking its magic first (checkELF), and inflates it if
// it is compressed, checking the inflated data's magic as it comes out.
func (c *cli) readELF(path, what string) (*input.Data, error) {
	name := inputName(path)
	d, err := c.readArg(path, checkELF(name, what), magicLen)
	if err != nil {
		return nil, err
	}
	return c.inflateELF(name, what, d)
}

// inflateELF returns d, an input that checkELF took, inflated if it is
// compressed, checking the inflated data's magic as it comes out; d is
// released if it is.
func (c *cli) inflateELF(name, what string, d *input.Data) (*input.Data, error) {
	f := input.Detect(d.Bytes())
	if f == input.None {
		return d, nil
	}
	plain, err := input.Inflate(c.ctx, f, d.Bytes(), input.Options{Limit: c.maxInput, What: name, Check: checkInflatedELF(what), CheckLen: len(elfMagic)})
	d.Release()
	if err != nil {
		return nil, withHint(fmt.Errorf("%s: %w", name, err))
	}
	return plain, nil
}

// checkInflatedELF returns the check of the first bytes that compressed
// input (what: "vmlinux or module", ...) inflates to: ELF's magic.
func checkInflatedELF(what string) func(head []byte) error {
	return func(head []byte) error {
		if kimage.Identify(head) == kimage.KindELF {
			return nil
		}
		if len(head) == 0 {
			return fmt.Errorf("not a %s: it inflates to nothing", what)
		}
		return fmt.Errorf("not a %s: it inflates to data that starts with %x, not with ELF's magic", what, head)
	}
}

// checkCompressedFile checks the compressed regular file at path as
// inflateELF checks an input read whole, inflating its first bytes only:
// compressed data that is not ELF (a vmlinux.btf.gz) is refused as such
// before the file is read, as it is uncompressed (checkELF), not found to
// be "malformed DWARF" after it is inflated whole.
func (c *cli) checkCompressedFile(path, what string) error {
	d, err := input.File(c.ctx, path, input.Options{Limit: c.maxInput})
	if err != nil {
		return withHint(err)
	}
	defer d.Release()
	f := input.Detect(d.Bytes())
	r, _, err := input.Decompress(f, d.Bytes(), c.maxInput)
	head, n := make([]byte, len(elfMagic)), 0
	for err == nil && n < len(head) {
		var m int
		m, err = r.Read(head[n:])
		n += m
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		// As input.Inflate says it.
		return fmt.Errorf("%s: %v data is truncated or corrupt: %w", path, f, err)
	case err != nil && err != io.EOF:
		return withHint(fmt.Errorf("%s: %v: %w", path, f, err))
	}
	if err := checkInflatedELF(what)(head[:n]); err != nil {
		return fmt.Errorf("%s: %v: %w", path, f, err)
	}
	return nil
}

// object is a BPF object opened from the command line, with the memory
// that holds it.
type object struct {
	*bpfelf.Object
	data *input.Data
}

// Close releases the object and its memory.
func (o *object) Close() {
	o.Object.Close()
	o.data.Release()
}

// openObject opens the BPF object at path ("-": standard input), checking
// its magic before reading it.
func (c *cli) openObject(path string) (*object, error) {
	d, err := c.readELF(path, "BPF object")
	if err != nil {
		return nil, err
	}
	obj, err := bpfelf.Parse(d.Bytes())
	if err != nil {
		d.Release()
		return nil, fmt.Errorf("%s: %w", inputName(path), err)
	}
	return &object{Object: obj, data: d}, nil
}

// headOfFile returns whether path is a regular file, and if it is, its
// first n bytes (fewer if it is shorter), read without consuming anything:
// a pipe or a device cannot be looked at twice, and is read whole instead.
// "-" is standard input, never a file.
func headOfFile(path string, n int) (regular bool, head []byte, err error) {
	regular, head, _, err = headOfFileInfo(path, n)
	return regular, head, err
}

// headOfFileInfo is headOfFile; it also returns the FileInfo of the file
// opened, if any.
func headOfFileInfo(path string, n int) (regular bool, head []byte, fi os.FileInfo, err error) {
	if path == "-" {
		return false, nil, nil, nil
	}
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return false, nil, nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return false, nil, fi, nil
	}
	head = make([]byte, n)
	m, _ := f.ReadAt(head, 0)
	return true, head[:m], fi, nil
}

// stdinTwice reports whether more than one of inputs is "-": standard
// input can be read once.
func stdinTwice(inputs ...string) bool {
	n := 0
	for _, in := range inputs {
		if in == "-" {
			n++
		}
	}
	return n > 1
}

// checkBTF returns the check of an input read as BTF (name names it):
// any kind kimage.Identify knows in its first kernelHead bytes.
func checkBTF(name string) func(head []byte) error {
	return func(head []byte) error {
		if kimage.Identify(head) != kimage.KindUnknown {
			return nil
		}
		return fmt.Errorf("%s: not BTF: it starts with %x, not with BTF's magic (9feb), ELF's, a compressor's, a kernel image's or a package's", name, head[:min(len(head), magicLen)])
	}
}

// checkBTFInputs checks, before a command's costly preparation (dedup's
// base), that every input starts as BTF input (checkBTF): a file by its
// first bytes; standard input, a pipe or a device by reading it, since it
// cannot be read twice: it is kept in c.preread for openOne. Batch modes
// (batch) read files only.
func (c *cli) checkBTFInputs(paths []string, batch bool) error {
	return c.checkBTFInputFiles(paths, batch, nil)
}

// checkBTFInputFiles is checkBTFInputs; it adds the FileInfo of each input
// it opens to ins, if not nil, as newInputFiles would have stat'ed it.
func (c *cli) checkBTFInputFiles(paths []string, batch bool, ins *inputFiles) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		regular, head, fi, err := headOfFileInfo(p, kernelHead)
		if err != nil {
			return err
		}
		if fi != nil && ins != nil {
			ins.add(p, fi)
		}
		if regular {
			if err := checkBTF(p)(head); err != nil {
				return err
			}
			continue
		}
		if batch {
			return fmt.Errorf("%s: not a regular file: the batch reads files", p)
		}
		d, err := c.readArg(p, checkBTF(inputName(p)), kernelHead)
		if err != nil {
			return err
		}
		c.prereadMu.Lock()
		if c.preread == nil {
			c.preread = map[string]*input.Data{}
		}
		c.preread[p] = d
		c.prereadMu.Unlock()
	}
	return nil
}

// releasePreread frees what checkBTFInputs read.
func (c *cli) releasePreread() {
	c.prereadMu.Lock()
	defer c.prereadMu.Unlock()
	for p, d := range c.preread {
		d.Release()
		delete(c.preread, p)
	}
}
