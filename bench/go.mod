module github.com/kmeta-dev/kmeta/bench

go 1.26.8

replace github.com/kmeta-dev/kmeta => ../

require (
	github.com/cilium/ebpf v0.22.0
	github.com/kmeta-dev/kmeta v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.49.0
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/ulikunitz/xz v0.5.17 // indirect
)
