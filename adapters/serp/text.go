package serp

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"github.com/trawlhq/trawl/core/weburl"
)

// text is the whitespace-collapsed text of a selection.
func text(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

// countRE finds a number written with locale separators: 1,234,567 /
// 1.234.567 / 1 234 567 (thin and no-break spaces too) / 1'234'567.
var countRE = regexp.MustCompile(`\d{1,3}(?:[,.'\x{00A0}\x{202F}\x{2009} ]\d{3})+|\d+`)

// parseCount reads the first number of a "About 1,230,000 results" text.
func parseCount(s string) int64 {
	m := countRE.FindString(s)
	if m == "" {
		return 0
	}
	digits := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, m)
	n, _ := strconv.ParseInt(digits, 10, 64)
	return n
}

// absolute resolves href against base; "" for anything but http(s).
func absolute(base *url.URL, href string) string { return weburl.Absolute(base, href) }

func hostOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// displayFromLink renders a link as engines display it: host › path › parts.
func displayFromLink(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return link
	}
	parts := []string{u.Scheme + "://" + u.Host}
	for _, p := range strings.Split(strings.Trim(u.Path, "/"), "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " › ")
}

// imgSrc is the usable source of an image: src, or a lazy attribute.
func imgSrc(base *url.URL, img *goquery.Selection) string {
	for _, a := range []string{"src", "data-src", "data-lazy-src"} {
		if v, ok := img.Attr(a); ok && v != "" {
			if strings.HasPrefix(v, "data:image") {
				if len(v) > 64 {
					return v
				}
				continue
			}
			if abs := absolute(base, v); abs != "" {
				return abs
			}
		}
	}
	return ""
}
