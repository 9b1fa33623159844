package render

const seenMapAt = 16 // below this many names a linear search beats a map

func (s *state) ref(name string) string {
	if !s.c.Known(name) {
		s.errs = append(s.errs, &unknownRef{name: name})
	}
	r := s.r
	seen := false
	if s.seenRef != nil {
		seen = s.seenRef[name]
	} else {
		for _, x := range r.Refs {
			if x == name {
				seen = true
				break
			}
		}
	}
	if !seen {
		r.Refs = append(r.Refs, name)
		if s.seenRef != nil {
			s.seenRef[name] = true
		} else if len(r.Refs) >= seenMapAt {
			s.seenRef = make(map[string]bool, 2*len(r.Refs))
			for _, x := range r.Refs {
				s.seenRef[x] = true
			}
		}
	}
	return s.slot(Slot{Kind: Ref, A: name})
}

func (s *state) source(src, table string) string {
	if !s.c.KnownSource(src, table) {
		s.errs = append(s.errs, &unknownSource{src: src, table: table})
	}
	k := [2]string{src, table}
	r := s.r
	seen := false
	if s.seenSrc != nil {
		seen = s.seenSrc[k]
	} else {
		for _, x := range r.Sources {
			if x == k {
				seen = true
				break
			}
		}
	}
	if !seen {
		r.Sources = append(r.Sources, k)
		if s.seenSrc != nil {
			s.seenSrc[k] = true
		} else if len(r.Sources) >= seenMapAt {
			s.seenSrc = make(map[[2]string]bool, 2*len(r.Sources))
			for _, x := range r.Sources {
				s.seenSrc[x] = true
			}
		}
	}
	return s.slot(Slot{Kind: Source, A: src, B: table})
}
