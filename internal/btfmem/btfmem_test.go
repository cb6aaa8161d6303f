package btfmem

import "testing"

type spec struct{ evicted, from, to, discarded int }

// TestRegistered: the functions reach what Register was given for the
// type, and a type with nothing registered panics with its name.
func TestRegistered(t *testing.T) {
	Register(Funcs[*spec]{
		Evict:      func(s *spec) { s.evicted++ },
		EvictTypes: func(s *spec, from, to int) { s.from, s.to = from, to },
		Discard:    func(s *spec, n int) { s.discarded = n },
	})
	s := &spec{}
	Evict(s)
	EvictTypes(s, 3, 5)
	Discard(s, 7)
	if *s != (spec{evicted: 1, from: 3, to: 5, discarded: 7}) {
		t.Errorf("after the calls: %+v", *s)
	}
	defer func() {
		if r := recover(); r != "btfmem: no functions registered for *int" {
			t.Errorf("Evict of an unregistered type: %v", r)
		}
	}()
	Evict(new(int))
}

// TestEvictWhileOpening: the options pass through what RegisterOpening
// was given.
func TestEvictWhileOpening(t *testing.T) {
	type options struct{ evict bool }
	RegisterOpening(func(o options) options { o.evict = true; return o })
	if o := EvictWhileOpening(options{}); !o.evict {
		t.Error("EvictWhileOpening did not set the options")
	}
}
