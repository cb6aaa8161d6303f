// Package apidoc holds tests of the public packages' documentation as go
// doc shows it; it has no code of its own.
package apidoc
