package httpsource

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// nextURL is the URL of the page after u, "" when u is the last.
func (f *fetcher) nextURL(u string, resp *http.Response, doc any, records, index int) (string, error) {
	pg := f.o.Paging
	switch pg.Style {
	case "link":
		for _, l := range ParseLink(resp.Header.Values("Link")) {
			if l.Rel("next") {
				return resolve(u, l.URL)
			}
		}
		return "", nil
	case "json":
		v, ok := Lookup(doc, pg.Path)
		if !ok || v == nil {
			return "", nil
		}
		s, isStr := v.(string)
		if !isStr {
			return "", fmt.Errorf("next = \"json:%s\": the value at %s is %s, not a URL", pg.Path, pg.Path, describe(v))
		}
		if s == "" {
			return "", nil
		}
		return resolve(u, s)
	case "cursor":
		v, ok := Lookup(doc, pg.Path)
		if !ok || v == nil || v == "" || v == false {
			return "", nil
		}
		c := scalarText(v)
		if c == "" {
			return "", fmt.Errorf("next = \"cursor:%s:%s\": the value at %s is %s, not a cursor", pg.Path, pg.Param, pg.Path, describe(v))
		}
		return WithParam(f.o.URL, pg.Param, c)
	case "page":
		if records == 0 {
			return "", nil
		}
		return WithParam(f.o.URL, pg.Param, strconv.Itoa(index+1))
	}
	return "", nil
}

func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("next URL %q: %v", ref, err)
	}
	return b.ResolveReference(r).String(), nil
}

// WithParam is u with query parameter param set to v.
func WithParam(u, param, v string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	q := p.Query()
	q.Set(param, v)
	p.RawQuery = q.Encode()
	return p.String(), nil
}

// Redact is u as the ledger keys it and messages show it: scheme and
// host in lower case, no user info or fragment, query parameters sorted,
// and every secret's value written back as its ${VAR} reference. The
// same page always has the same key, and no key holds a secret.
func (f *fetcher) Redact(u string) string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil {
		return f.redactText(u)
	}
	p.User, p.Fragment, p.RawFragment = nil, "", ""
	p.Scheme, p.Host = strings.ToLower(p.Scheme), strings.ToLower(p.Host)
	if p.RawQuery != "" {
		q := p.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			vs := q[k]
			for _, v := range vs {
				parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v))
			}
		}
		p.RawQuery = strings.Join(parts, "&")
	}
	return f.redactText(p.String())
}

// redactText replaces every secret's value (and its query-escaped form)
// with its ${VAR} reference.
func (f *fetcher) redactText(s string) string {
	names := make([]string, 0, len(f.o.Secrets))
	for n := range f.o.Secrets {
		names = append(names, n)
	}
	// Longest values first, so a secret holding another is replaced whole.
	sort.Slice(names, func(i, j int) bool { return len(f.o.Secrets[names[i]]) > len(f.o.Secrets[names[j]]) })
	for _, n := range names {
		v := f.o.Secrets[n]
		if len(v) < 3 {
			continue // too short to be told from other text
		}
		s = strings.ReplaceAll(s, v, "${"+n+"}")
		if e := url.QueryEscape(v); e != v {
			s = strings.ReplaceAll(s, e, "${"+n+"}")
		}
	}
	return s
}

// expand turns a ledger key back into the URL to request: a secret in the
// query goes back escaped, elsewhere as it is.
func (f *fetcher) expand(key string) string {
	path, query, hasQuery := strings.Cut(key, "?")
	for n, v := range f.o.Secrets {
		path = strings.ReplaceAll(path, "${"+n+"}", v)
		query = strings.ReplaceAll(query, "${"+n+"}", url.QueryEscape(v))
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// Link is one link of an RFC 8288 Link header.
type Link struct {
	URL    string
	Params map[string]string // lower-case names
}

// Rel reports whether the link's rel (a space-separated list) has r.
func (l Link) Rel(r string) bool {
	for _, x := range strings.Fields(l.Params["rel"]) {
		if strings.EqualFold(x, r) {
			return true
		}
	}
	return false
}

// ParseLink reads Link header values (RFC 8288 §3): comma-separated
// `<URI-Reference> *( ";" param [ "=" ( token / quoted-string ) ] )`.
// A malformed link is skipped, not an error: the header is advisory.
func ParseLink(values []string) []Link {
	var out []Link
	for _, v := range values {
		for s := strings.TrimSpace(v); s != ""; {
			if s[0] != '<' {
				i := strings.IndexByte(s, ',')
				if i < 0 {
					break
				}
				s = strings.TrimSpace(s[i+1:])
				continue
			}
			end := strings.IndexByte(s, '>')
			if end < 0 {
				break
			}
			l := Link{URL: s[1:end], Params: map[string]string{}}
			s = s[end+1:]
			s = parseParams(s, l.Params)
			out = append(out, l)
			s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), ","))
		}
	}
	return out
}

// parseParams reads ;name=value pairs up to the next link's comma and
// returns the rest.
func parseParams(s string, into map[string]string) string {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] != ';' {
			return s
		}
		s = strings.TrimLeft(s[1:], " \t")
		i := strings.IndexAny(s, "=;,")
		if i < 0 {
			into[strings.ToLower(strings.TrimSpace(s))] = ""
			return ""
		}
		name := strings.ToLower(strings.TrimSpace(s[:i]))
		if s[i] != '=' {
			into[name] = ""
			s = s[i:]
			continue
		}
		s = strings.TrimLeft(s[i+1:], " \t")
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			j := 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			val, s = b.String(), s[min(j+1, len(s)):]
		} else {
			k := strings.IndexAny(s, ";,")
			if k < 0 {
				k = len(s)
			}
			val, s = strings.TrimSpace(s[:k]), s[k:]
		}
		if _, dup := into[name]; !dup { // RFC 8288 §3.3: only the first rel counts
			into[name] = val
		}
	}
}
