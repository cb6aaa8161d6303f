package bpfobj

// FromRaw is fromRaw, for the tests of module BTF on fixtures: this
// machine's kernel may have no module with BTF.
var FromRaw = fromRaw
