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
	MsgNonPublic     = "The %s resolves to a non-public address."
	msgRequired      = "The %s field is required."
	msgTooLong       = "The %s may not be greater than %d characters."
	msgMalformed     = "The %s must be a valid URL."
	msgScheme        = "The %s must use http or https."
	msgRawIP         = "The %s must use a domain name, not a raw IP address."
	msgPort          = "The %s must use the default port."
	msgCredentials   = "The %s must not contain credentials."
	msgHost          = "The %s must have a valid host name."
	errOp            = "weburl.Parse"
)

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
	fail := func(format string, args ...any) error {
		return failure.Invalidf(errOp, field, format, append([]any{field}, args...)...)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fail(msgRequired)
	}
	if utf8.RuneCountInString(raw) > maxLen {
		return nil, fail(msgTooLong, maxLen)
	}
	if !utf8.ValidString(raw) || strings.ContainsAny(raw, " \t\r\n\x00\\") {
		return nil, fail(msgMalformed)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return nil, fail(msgMalformed)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" || u.Host == "" {
			return nil, fail(msgMalformed)
		}
		return nil, fail(msgScheme)
	}
	if u.Host == "" {
		return nil, fail(msgMalformed)
	}
	if u.User != nil {
		return nil, fail(msgCredentials)
	}
	host := u.Hostname()
	port := u.Port()
	if IsRawIP(host) {
		return nil, fail(msgRawIP)
	}
	if port != "" && port != DefaultPort(u.Scheme) {
		return nil, fail(msgPort)
	}
	if strings.HasSuffix(u.Host, ":") {
		return nil, fail(msgMalformed)
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
		return nil, fail(msgHost)
	}
	if IsRawIP(ascii) { // Unicode forms can normalise into an IP ("0ˣ" -> "0x")
		return nil, fail(msgRawIP)
	}
	if IsLocalName(ascii) {
		return nil, fail(MsgNonPublic)
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
	return failure.Invalidf("weburl.Resolve", field, MsgNonPublic, field)
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
