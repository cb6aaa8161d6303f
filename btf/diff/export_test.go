package diff

// SetKeptBytes sets what the first pass keeps of the details, for a test
// of the walk's second comparison, and returns the function that restores
// it.
func SetKeptBytes(n int) (restore func()) {
	old := keptBytes
	keptBytes = n
	return func() { keptBytes = old }
}

// SetStreamAbove sets the longest signature of a struct that is held
// whole, for a test of the comparison of structs as they are spelled, and
// returns the function that restores it.
func SetStreamAbove(n int) (restore func()) {
	old := streamAbove
	streamAbove = n
	return func() { streamAbove = old }
}

// SetFetchBytes sets what a comparison of structs whose members move
// fetches of the new struct's values at a time, for a test of its chunks,
// and returns the function that restores it.
func SetFetchBytes(n int) (restore func()) {
	old := fetchBytes
	fetchBytes = n
	return func() { fetchBytes = old }
}

// SetSameMemoOff turns off (or on) the memo of the comparisons of
// anonymous types, for a test that the output is that of no memo, and
// returns the function that restores it.
func SetSameMemoOff(off bool) (restore func()) {
	old := sameMemoOff
	sameMemoOff = off
	return func() { sameMemoOff = old }
}
