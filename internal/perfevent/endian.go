package perfevent

import "encoding/binary"

// isLittle reports whether the machine is little-endian.
func isLittle() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }
