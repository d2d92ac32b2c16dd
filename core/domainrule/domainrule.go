// Package domainrule matches host names against whitelist and blacklist
// entries (spec 4.6): case-insensitive; an exact entry also matches its
// subdomains; "*.example.com" matches any subdomain and the bare apex.
package domainrule

import (
	"strings"
)

// Normalize lower-cases an entry or host and strips what users paste along
// with a domain: a scheme, a path, a port, a trailing dot, "www." is kept.
func Normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, ":"); i >= 0 && !strings.Contains(s[i:], "]") {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// Match reports whether host matches one entry.
func Match(host, entry string) bool {
	h, e := Normalize(host), Normalize(entry)
	if h == "" || e == "" {
		return false
	}
	e = strings.TrimPrefix(e, "*.")
	if e == "" || e == "*" {
		return false
	}
	return h == e || strings.HasSuffix(h, "."+e)
}

// MatchAny reports whether host matches any entry.
func MatchAny(host string, entries []string) bool {
	for _, e := range entries {
		if Match(host, e) {
			return true
		}
	}
	return false
}

// Filter is a whitelist and a blacklist.
type Filter struct {
	Whitelist []string
	Blacklist []string
}

// Allows: not blacklisted, and whitelisted when there is a whitelist. The
// blacklist takes precedence.
func (f Filter) Allows(host string) bool {
	if MatchAny(host, f.Blacklist) {
		return false
	}
	return len(f.Whitelist) == 0 || MatchAny(host, f.Whitelist)
}

// ParseList reads a list given as repeated values, "name[]" values or
// comma-separated values, dropping empties and duplicates.
func ParseList(values []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			p := Normalize(part)
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
