package kimage

// Options say how Kernel, Vmlinuz, Walk, Decompress, OpenPackage and
// ReadPackage read their input. The zero value reads under
// btf.DefaultMaxSize. (OpenBTF and ReadBTF take btf.Options, whose
// MaxSize means the same.)
type Options struct {
	// MaxSize bounds each input: a package read from a file or a stream,
	// each file in a package, what compressed data inflates to, and what a
	// decompressor keeps for itself (a dictionary or window is at most an
	// eighth of it). Zero means btf.DefaultMaxSize.
	MaxSize int64
}
