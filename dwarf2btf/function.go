package dwarf2btf

// fnBuild is what a subprogram's children say of it besides what they
// push on the loader's scratch stacks (l.ps, l.anns, l.lex).
type fnBuild struct {
	unspec bool
}

// newFunction is pahole's die__create_new_function: the subprogram enters
// the function table after everything inside it.
func (l *loader) newFunction(x *die, depth int) error {
	f := function{name: l.r.str(x, slotName), typeRef: ref(x, slotType)}
	f.decl = x.present(slotDeclaration)
	f.external = x.present(slotExternal)
	f.hasOrigin = x.present(slotAbstractOrigin)
	f.origin = ref(x, slotAbstractOrigin)
	f.spec = ref(x, slotSpecification)
	off := x.off
	l.cu.idx.reserve(off)
	var b fnBuild
	var err error
	run, annLo, lexLo := startRun(l.cu.params), len(l.anns), len(l.lex)
	if x.children {
		err = l.processFunction(&b, &run, depth)
	}
	anns, lex := l.anns[annLo:], l.lex[lexLo:]
	f.lo, f.n = finish(&run, &l.cu.params, &l.ps)
	l.cu.indexParams(f.lo, f.n)
	f.unspec = b.unspec
	f.annLo, f.annN = int32(len(l.cu.annots)), int32(len(anns))
	l.cu.annots = append(l.cu.annots, anns...)
	f.lexLo, f.lexN = int32(len(l.cu.lexVars)), int32(len(lex))
	l.cu.lexVars = append(l.cu.lexVars, lex...)
	l.anns, l.lex = l.anns[:annLo], l.lex[:lexLo]
	l.cu.index(off, idxFunc, len(l.cu.funcs))
	l.cu.funcs = appendTable(l.cu.funcs, f)
	return err
}

// processFunction is pahole's die__process_function over the children of
// a subprogram (run, its parameters', set) or of a lexical block inside
// one (run nil).
func (l *loader) processFunction(b *fnBuild, run *elemRun, depth int) error {
	isProto := run != nil
	paramIdx := int32(0)
	return l.children(depth, func(c *die, d int) error {
		switch c.tag {
		case 0x48, 0x49, 0x4109, 0x410a, dwTagDwarfProcedure, // call sites
			0x4107, 0x4108, 0x4106, 0x2f, 0x30, // template parameters
			dwTagLabel:
			return l.skip(c, d)
		case dwTagFormalParameter:
			p := newParam(l.r, c)
			idx := paramIdx
			paramIdx++
			if !isProto {
				l.cu.index(c.off, idxParam, len(l.cu.params))
				l.cu.params = appendTable(l.cu.params, p)
				return l.skip(c, d)
			}
			l.cu.idx.reserve(c.off)
			p.unexpected = l.r.unexpectedReg(c, int(idx))
			if counts(l, l.cu.params, run) {
				n, _ := l.countRun(run, c, dwTagFormalParameter, 0)
				growExact(&l.cu.params, n) // a function is refused only if written
			}
			*push(run, &l.cu.params, &l.ps) = p
			if !c.children { // no annotations
				return nil
			}
			lo, n, err := l.annotations(c, d, idx)
			l.anns = append(l.anns, l.cu.annots[lo:lo+n]...)
			l.cu.annots = l.cu.annots[:lo]
			return err
		case dwTagVariable:
			i, err := l.newVariable(c, d)
			l.lex = append(l.lex, int32(i))
			return err
		case dwTagUnspecParams:
			if isProto {
				b.unspec = true
			}
			return l.skip(c, d)
		case dwTagInlinedSubr:
			return l.inlineExpansion(b, c, d)
		case dwTagLexicalBlock:
			if !c.children {
				return nil
			}
			return l.processFunction(b, nil, d)
		case dwTagLLVMAnnotation:
			if isProto {
				lo := len(l.cu.annots)
				l.addAnnot(c, -1)
				l.anns = append(l.anns, l.cu.annots[lo:]...)
				l.cu.annots = l.cu.annots[:lo]
			}
			return l.skip(c, d)
		}
		return l.processTag(c, d)
	})
}

// inlineExpansion is pahole's die__process_inline_expansion: lexical
// blocks inside it join the enclosing function's blocks, other variables
// and types are plain tags.
func (l *loader) inlineExpansion(b *fnBuild, x *die, depth int) error {
	l.cu.index(x.off, idxOther, 0)
	if !x.children {
		return nil
	}
	return l.children(depth, func(c *die, d int) error {
		switch c.tag {
		case 0x48, 0x49, 0x4109, 0x410a, dwTagFormalParameter, dwTagLabel:
			return l.skip(c, d)
		case dwTagLexicalBlock:
			if !c.children {
				return nil
			}
			return l.processFunction(b, nil, d)
		case dwTagInlinedSubr:
			return l.inlineExpansion(b, c, d)
		}
		return l.processTag(c, d)
	})
}
