package diff

// SetKeptBytes sets what the first pass keeps of the details, for a test
// of the walk's second comparison, and returns the function that restores
// it.
func SetKeptBytes(n int) (restore func()) {
	old := keptBytes
	keptBytes = n
	return func() { keptBytes = old }
}
