// Package apidoc holds tests of the public packages' documentation as go
// doc shows it, and of the layering that docs/layers.md writes down
// (TestLayers); it has no code of its own.
package apidoc
