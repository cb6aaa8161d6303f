// Command gentokens trains the static name-compression dictionary of package
// kallsyms and writes it as Go source.
//
// The dictionary is trained on the names of the text symbols in a gzipped
// kallsyms file, leaving out the __pfx_ padding symbols (the package never
// stores their names). Package kallsyms encodes a name greedily: at each
// position the longest token that the rest of the name starts with, else
// the byte itself (see names.go). Training is built around that encoder, in
// rounds: encode every name with the tokens chosen so far, then score each
// string that spans two or more of the resulting codes by the codes it
// would save (occurrences times codes spanned minus one), and add the best
// scoring strings. Rounds are short (a sixteenth of the free slots) because
// the scores of overlapping strings interfere: once "trace_event_" is a
// token, "trace_" saves less.
//
// Only strings that end where a word of a kernel name ends are scored: a
// word is a run of non-underscores with the underscores that follow it
// (in "__x64_sys_open", "__", "x64_", "sys_", "open"), so that tokens are
// whole words, runs of words, and word tails, which recur across kernels.
// Measured on the names of another kernel (Debian's 6.1), this compresses
// better than scoring every substring, which learns fragments particular
// to the training names.
//
// Every step is ordered (names sorted, ties broken by the string), so the
// output depends only on the input file.
//
// Usage (from the kallsyms directory, see the go:generate line in names.go):
//
//	go run ./internal/gentokens -in testdata/host-6.18.44.kallsyms.gz -out names_table.go
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"slices"
	"strings"
)

const (
	// byteCodes is the number of codes package kallsyms gives to single
	// bytes: codes 0-255 stand for themselves.
	byteCodes = 256
	// maxTokenLen is the longest token package kallsyms can decode (its
	// decoding table keeps a token's length in the 16th byte of its entry).
	maxTokenLen = 15
	// minOccurs is how many times a string must occur in the training
	// names to become a token: a string of one name only is not a pattern.
	minOccurs = 2
)

func main() {
	in := flag.String("in", "", "gzipped kallsyms file to train on")
	out := flag.String("out", "names_table.go", "Go file to write")
	codes := flag.Int("codes", 4096, "dictionary size in codes, a power of two of at least 512")
	flag.Parse()
	if *codes < 2*byteCodes || *codes > 1<<16 || *codes&(*codes-1) != 0 {
		log.Fatalf("-codes %d: not a power of two in [512, 65536]", *codes)
	}
	names, err := readNames(*in)
	if err != nil {
		log.Fatal(err)
	}
	tokens := train(names, *codes-byteCodes)
	if err := write(*out, *in, *codes, tokens); err != nil {
		log.Fatal(err)
	}
}

// name is a distinct training name and how many symbols have it.
type name struct {
	s     string
	count int
}

// readNames returns the distinct training names, sorted.
func readNames(path string) ([]name, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	counts := make(map[string]int)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || !strings.ContainsAny(fields[1], "tTwW") {
			continue
		}
		s := fields[2]
		if strings.HasPrefix(s, "__pfx_") || !printable(s) {
			continue
		}
		counts[s]++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var names []name
	for s, c := range counts {
		names = append(names, name{s, c})
	}
	slices.SortFunc(names, func(a, b name) int { return strings.Compare(a.s, b.s) })
	return names, nil
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// wordEnd reports whether a word of s ends at offset j: at the end of s,
// or between an underscore and a byte that is not one.
func wordEnd(s string, j int) bool {
	return j == len(s) || j > 0 && s[j-1] == '_' && s[j] != '_'
}

// dict is a set of tokens with the encoder of package kallsyms.
type dict struct {
	set   map[string]bool
	order []string          // in the order added
	lens  map[string]uint16 // first two bytes -> bit l set for each token length l
}

func (d *dict) add(t string) {
	d.set[t] = true
	d.order = append(d.order, t)
	d.lens[t[:2]] |= 1 << len(t)
}

// encode appends to starts the offset of each code of the encoding of s,
// then len(s): at each offset, the longest token that s continues with,
// else one byte.
func (d *dict) encode(s string, starts []int) []int {
	i := 0
	for i < len(s) {
		starts = append(starts, i)
		k := 1
		if i+1 < len(s) {
			m := d.lens[s[i:i+2]]
			for l := min(maxTokenLen, len(s)-i); l >= 2; l-- {
				if m&(1<<l) != 0 && d.set[s[i:i+l]] {
					k = l
					break
				}
			}
		}
		i += k
	}
	return append(starts, len(s))
}

// train returns n tokens for names, most used first.
func train(names []name, n int) []string {
	d := &dict{set: make(map[string]bool), lens: make(map[string]uint16)}
	var starts []int
	type cand struct {
		s          string
		gain, occs int
	}
	for len(d.order) < n {
		score := make(map[string]*cand)
		for _, nm := range names {
			starts = d.encode(nm.s, starts[:0])
			for a := 0; a+2 < len(starts); a++ {
				for b := a + 2; b < len(starts) && starts[b]-starts[a] <= maxTokenLen; b++ {
					if !wordEnd(nm.s, starts[b]) {
						continue
					}
					t := nm.s[starts[a]:starts[b]]
					c := score[t]
					if c == nil {
						c = &cand{s: t}
						score[t] = c
					}
					c.gain += (b - a - 1) * nm.count
					c.occs += nm.count
				}
			}
		}
		var cs []*cand
		for _, c := range score {
			if c.occs >= minOccurs {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			break
		}
		slices.SortFunc(cs, func(a, b *cand) int {
			return cmp.Or(cmp.Compare(b.gain, a.gain), strings.Compare(a.s, b.s))
		})
		batch := min(max(16, (n-len(d.order))/16), n-len(d.order), len(cs))
		for _, c := range cs[:batch] {
			d.add(c.s)
		}
	}
	// Code order: most used in the training names first, so that the
	// decoding table's hot entries share cache lines.
	uses := make(map[string]int)
	for _, nm := range names {
		starts = d.encode(nm.s, starts[:0])
		for k := 0; k+1 < len(starts); k++ {
			if l := starts[k+1] - starts[k]; l > 1 {
				uses[nm.s[starts[k]:starts[k+1]]] += nm.count
			}
		}
	}
	tokens := slices.Clone(d.order)
	slices.SortStableFunc(tokens, func(a, b string) int {
		return cmp.Or(cmp.Compare(uses[b], uses[a]), strings.Compare(a, b))
	})
	return tokens
}

func write(path, src string, codes int, tokens []string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/gentokens from %s; DO NOT EDIT.\n\n", src)
	b.WriteString("package kallsyms\n\n")
	fmt.Fprintf(&b, "// nameTokens are the expansions of the token codes %d-%d, in code order\n", byteCodes, codes-1)
	b.WriteString("// (most used first). See names.go.\n")
	fmt.Fprintf(&b, "var nameTokens = [%d]string{\n", codes-byteCodes)
	for _, t := range tokens {
		fmt.Fprintf(&b, "\t%q,\n", t)
	}
	b.WriteString("}\n")
	formatted, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(path, formatted, 0o644)
}
