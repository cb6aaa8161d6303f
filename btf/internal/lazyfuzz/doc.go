// Package lazyfuzz holds only tests: a fuzz test that runs every public
// consumer of a btf.Spec (dedup, the C dumper, layout, diff, CO-RE, the
// Builder's copy and Minimal, and the Spec's own Resolve, SizeOf and
// AlignOf) on the same BTF opened eagerly and lazily (issue 37). A lazy
// Spec checks a record's references only when a view of it is handed out,
// so a consumer that reads records in bulk must check the Spec first
// (btf.Spec.Check): the property is that a lazy Spec is as safe as an eager
// one, and gives the same results where the eager open succeeds. It also
// holds FuzzParsers, which runs the parsers of user-given strings (sizes,
// kinds, compat names, kernel releases) of the packages it imports.
package lazyfuzz
