// Package weburl holds the URL rules every endpoint shares: scheme, length,
// raw IP hosts, default ports, public addresses, normalisation and the
// deduplication key.
package weburl

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/trawlhq/trawl/core/failure"
)

// Length limits of spec section 8.
const (
	MaxURLLength     = 180
	MaxLongURLLength = 500 // sitemap and callback_url
	MsgNonPublic     = "The %s " + ruleNonPublic + "."
	ruleNonPublic    = "resolves to a non-public address"
	ruleRequired     = "field is required"
	ruleTooLong      = "may not be greater than %d characters"
	ruleMalformed    = "must be a valid URL"
	ruleScheme       = "must use http or https"
	ruleRawIP        = "must use a domain name, not a raw IP address"
	rulePort         = "must use the default port"
	ruleCredentials  = "must not contain credentials"
	ruleHost         = "must have a valid host name"
	errOp            = "weburl.Parse"
)

// Violation is the cause of a URL rule failure: the rule as a phrase
// without the field ("must use http or https"), for callers checking a URL
// the caller did not type (a redirect target).
type Violation struct {
	Rule      string
	NonPublic bool
}

func (v *Violation) Error() string { return "url " + v.Rule }

// violation is the 422 naming field for a broken rule.
func violation(op, field, rule string, nonPublic bool) error {
	err := failure.Invalidf(op, field, "The %s %s.", field, rule)
	if fe, ok := failure.As(err); ok {
		fe.Err = &Violation{Rule: rule, NonPublic: nonPublic}
	}
	return err
}

// Rules parameterise Parse.
type Rules struct {
	Field  string // the request field, named in errors
	MaxLen int    // 0: MaxURLLength
}

// Parse checks a URL input against the common URL rules and returns it
// normalised: lower-case scheme and host, IDN host in ASCII, no default
// port, no fragment.
func Parse(raw string, r Rules) (*url.URL, error) {
	field := r.Field
	if field == "" {
		field = "url"
	}
	maxLen := r.MaxLen
	if maxLen <= 0 {
		maxLen = MaxURLLength
	}
	fail := func(rule string, args ...any) error {
		return violation(errOp, field, fmt.Sprintf(rule, args...), rule == ruleNonPublic)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fail(ruleRequired)
	}
	if utf8.RuneCountInString(raw) > maxLen {
		return nil, fail(ruleTooLong, maxLen)
	}
	if !utf8.ValidString(raw) || strings.ContainsAny(raw, " \t\r\n\x00\\") {
		return nil, fail(ruleMalformed)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return nil, fail(ruleMalformed)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" || u.Host == "" {
			return nil, fail(ruleMalformed)
		}
		return nil, fail(ruleScheme)
	}
	if u.Host == "" {
		return nil, fail(ruleMalformed)
	}
	if u.User != nil {
		return nil, fail(ruleCredentials)
	}
	host := u.Hostname()
	port := u.Port()
	if IsRawIP(host) {
		return nil, fail(ruleRawIP)
	}
	if port != "" && port != DefaultPort(u.Scheme) {
		return nil, fail(rulePort)
	}
	if strings.HasSuffix(u.Host, ":") {
		return nil, fail(ruleMalformed)
	}
	ascii, err := idna.Lookup.ToASCII(strings.TrimSuffix(host, "."))
	if err == nil {
		// The ASCII form must be stable, or two spellings of a host differ.
		again, err2 := idna.Lookup.ToASCII(ascii)
		if err2 != nil || again != ascii {
			err = fmt.Errorf("unstable host %q", ascii)
		}
	}
	if err != nil || !validHostname(ascii) {
		return nil, fail(ruleHost)
	}
	if IsRawIP(ascii) { // Unicode forms can normalise into an IP ("0ˣ" -> "0x")
		return nil, fail(ruleRawIP)
	}
	if IsLocalName(ascii) {
		return nil, fail(ruleNonPublic)
	}
	u.Host = ascii
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// DefaultPort is the port a scheme uses when none is written.
func DefaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// IsRawIP reports whether a host is an IP address in any form a resolver
// would accept: dotted IPv4, IPv6, and the decimal, octal, hex and short
// forms (2130706433, 0177.0.0.1, 0x7f.1, 127.1). A name whose last label is
// numeric cannot be a domain (no top-level domain is numeric).
func IsRawIP(host string) bool {
	h := strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	labels := strings.Split(h, ".")
	last := strings.ToLower(labels[len(labels)-1])
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		_, err := strconv.ParseUint(last[2:], 16, 64)
		return err == nil || last == "0x"
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func validHostname(h string) bool {
	if len(h) == 0 || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// IsLocalName: names that always mean this machine or its network.
func IsLocalName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "localhost.localdomain" ||
		strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") || h == "metadata.google.internal"
}

var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
		"::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7", "fe80::/10",
		"fec0::/10", "ff00::/8", "2002::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// nat64 is the well-known NAT64 prefix: the IPv4 address sits in the last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// IsPublicIP reports whether an address may be fetched: not loopback,
// private, link-local (cloud metadata), CGNAT, this-network, multicast,
// documentation or reserved, in IPv4 or IPv6, including IPv4-mapped and
// NAT64 forms of those.
func IsPublicIP(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return IsPublicIP(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	if a.Is6() && a.Is4In6() {
		return IsPublicIP(a.Unmap())
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return a.IsGlobalUnicast()
}

// NonPublicError is the 422 for a URL whose host resolves to a non-public address.
func NonPublicError(field string) error {
	if field == "" {
		field = "url"
	}
	return violation("weburl.Resolve", field, ruleNonPublic, true)
}

// DedupKey compares URLs as the map endpoint does: case-insensitively and
// ignoring a trailing slash.
func DedupKey(u string) string {
	k := strings.ToLower(strings.TrimSpace(u))
	for strings.HasSuffix(k, "/") {
		k = strings.TrimSuffix(k, "/")
	}
	return k
}

// Origin is scheme://host of a URL.
func Origin(u *url.URL) string { return fmt.Sprintf("%s://%s", u.Scheme, u.Host) }

// Absolute resolves ref against base and keeps it only when the result is
// an http(s) URL; "" otherwise. Protocol-relative refs become https.
func Absolute(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	if strings.HasPrefix(ref, "//") && base == nil {
		ref = "https:" + ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}
