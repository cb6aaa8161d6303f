package kimage

import (
	"fmt"
	"path"
)

// What a package may hold, so that what reading one keeps stays bounded
// whatever its data.tar or payload inflates to: a kernel's modules are a
// few thousand (Debian 6.1's cloud kernel has 1,121), and no file system
// holds a path longer than PATH_MAX or a file name longer than NAME_MAX.
const (
	// maxPackageModules is how many module files a package may install,
	// as kallsyms bounds the modules of a kernel.
	maxPackageModules = 1 << 16
	// maxPathLen is the longest path of a file in a package (PATH_MAX).
	maxPathLen = 4096
	// maxNameLen is the longest name of a module file (NAME_MAX).
	maxNameLen = 255
)

// moduleCount counts the module files of a package and refuses them past
// maxPackageModules, or with a name longer than maxNameLen.
type moduleCount int

func (c *moduleCount) add(name string) error {
	if base := path.Base(name); len(base) > maxNameLen {
		return fmt.Errorf("kimage: a module file name of %d bytes (%.40s...), longer than a file name may be (%d)", len(base), base, maxNameLen)
	}
	if *c++; *c > maxPackageModules {
		return fmt.Errorf("kimage: more than %d modules in the package, at %s", maxPackageModules, name)
	}
	return nil
}

// checkPath refuses a package path longer than maxPathLen.
func checkPath(name string) error {
	if len(name) > maxPathLen {
		return fmt.Errorf("kimage: a path of %d bytes (%.40s...), longer than a path may be (%d)", len(name), name, maxPathLen)
	}
	return nil
}

// internErr returns the error of p.errText with err's message, which it
// files there first if there is none.
func (p *Package) internErr(err error) error {
	msg := err.Error()
	if e, ok := p.errText[msg]; ok {
		return e
	}
	p.errText[msg] = err
	return err
}
