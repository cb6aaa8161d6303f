package elfwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// Section is a section to write: its name and contents.
type Section struct {
	Name string
	Data []byte
}

// Options say how Write adds a section that the file does not have.
type Options struct {
	// Objcopy is the objcopy command line, run by /bin/sh (so "ccache
	// objcopy" or a path with options will do). Empty means pahole's
	// choice: $LLVM_OBJCOPY when it is set, even to nothing, and
	// otherwise "llvm-objcopy".
	Objcopy string
}

// objcopy returns the command line to run.
func (o Options) objcopy() string {
	if o.Objcopy != "" {
		return o.Objcopy
	}
	if s, ok := os.LookupEnv("LLVM_OBJCOPY"); ok {
		return s
	}
	return "llvm-objcopy"
}

// Write writes to dst the ELF file src with each section of secs, in
// order, as pahole 1.30 writes its -J output: replaced in place and the
// file laid out again when the file (as the earlier steps left it) has a
// section of that name, added by objcopy otherwise (see the package
// documentation). dst may be src. The steps work on temporary files beside
// dst, which becomes the result only when all succeeded; a new dst gets
// src's permissions. Every error starts with "elfwrite: " and src.
func Write(ctx context.Context, src, dst string, secs []Section, opts Options) error {
	if err := write(ctx, src, dst, secs, opts.objcopy()); err != nil {
		return fmt.Errorf("elfwrite: %s: %w", src, err)
	}
	return nil
}

func write(ctx context.Context, src, dst string, secs []Section, objcopy string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	return atomicfile.WriteNamed(dst, fi.Mode().Perm(), func(tmp string) error {
		src := src
		for i, s := range secs {
			dst := tmp
			if i < len(secs)-1 {
				dst = fmt.Sprintf("%s.%d", tmp, i)
				defer os.Remove(dst)
			}
			if err := writeOne(ctx, src, dst, s, objcopy); err != nil {
				return err
			}
			src = dst
		}
		return nil
	})
}

// writeOne writes the file src with section s into dst.
func writeOne(ctx context.Context, src, dst string, s Section, objcopy string) error {
	done, err := replace(src, dst, s)
	if err != nil || done {
		return err
	}
	return addSection(ctx, src, dst, s, objcopy)
}

// replace writes to dst the ELF file src with the contents of its section
// s.Name replaced by s.Data and the file laid out again as libelf's
// elf_update lays it out (see the package documentation). It returns
// false, and writes nothing, when src has no such section.
func replace(src, dst string, s Section) (bool, error) {
	in, err := os.Open(src)
	if err != nil {
		return false, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return false, err
	}
	// The headers are read in place from a mapping; the sections' data
	// is copied from the file.
	m, err := mmap.File(in, fi.Size())
	if err != nil {
		return false, err
	}
	defer m.Free()
	h, err := readHeader(m.Bytes())
	if err != nil {
		return false, err
	}
	idx := h.find(s.Name)
	if idx == 0 {
		return false, nil
	}
	p, err := h.layout(idx, s.Data)
	if err != nil {
		return false, err
	}
	out, err := os.OpenFile(dst, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false, err
	}
	if err := p.write(out, in); err != nil {
		out.Close()
		return false, fmt.Errorf("%s: %w", dst, err)
	}
	return true, out.Close()
}

// addSection writes to dst the ELF file src with section s added by
// objcopy, as pahole adds it: the data in a temporary file, then
// "OBJCOPY --add-section NAME=TMP SRC DST" run by /bin/sh, so that objcopy
// may be a command line ("ccache objcopy", a path with options). Its error
// output comes back in the error.
func addSection(ctx context.Context, src, dst string, s Section, objcopy string) error {
	if strings.TrimSpace(objcopy) == "" {
		return fmt.Errorf("no objcopy command to add %s with", s.Name)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".sec-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(s.Data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", objcopy+` "$@"`, "sh",
		"--add-section", s.Name+"="+tmp.Name(), src, dst)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return fmt.Errorf("%s --add-section %s: %w: %s", objcopy, s.Name, err, msg)
		}
		return fmt.Errorf("%s --add-section %s: %w", objcopy, s.Name, err)
	}
	return nil
}
