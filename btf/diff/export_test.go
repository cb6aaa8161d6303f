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

// SetMemosOff turns off (or on) the memos of the comparisons of
// anonymous types and of structs, for a test that the output is that of
// no memo, and returns the function that restores it.
func SetMemosOff(off bool) (restore func()) {
	old := memosOff
	memosOff = off
	return func() { memosOff = old }
}

// SetRememberAbove sets how long the signatures of a pair of structs must
// be for their comparison to be remembered, and returns the function that
// restores it.
func SetRememberAbove(n int) (restore func()) {
	old := rememberAbove
	rememberAbove = n
	return func() { rememberAbove = old }
}

// SetLeftBytes sets what a comparison of structs whose members move keeps
// of the old struct's facts left over before it walks for them again, for
// a test of that walk, and returns the function that restores it.
func SetLeftBytes(n int) (restore func()) {
	old := leftBytes
	leftBytes = n
	return func() { leftBytes = old }
}
