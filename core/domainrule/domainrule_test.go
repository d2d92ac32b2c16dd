package domainrule_test

import (
	"reflect"
	"testing"

	"github.com/trawlhq/trawl/core/domainrule"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		host, entry string
		want        bool
	}{
		{"example.com", "example.com", true},
		{"EXAMPLE.com", "example.COM", true},
		{"blog.example.com", "example.com", true}, // an exact entry covers subdomains
		{"a.b.example.com", "example.com", true},
		{"example.com", "*.example.com", true}, // a wildcard covers the apex
		{"news.example.com", "*.example.com", true},
		{"deep.news.example.com", "*.example.com", true},
		{"notexample.com", "example.com", false}, // no suffix tricks
		{"example.com.evil.test", "example.com", false},
		{"example.org", "example.com", false},
		{"example.com", "blog.example.com", false}, // a subdomain entry does not cover the parent
		{"www.example.com", "https://Example.com/path", true},
		{"example.com", "example.com:443", true},
		{"example.com.", "example.com", true},
		{"example.com", "", false},
		{"example.com", "*", false},
		{"", "example.com", false},
	} {
		if got := domainrule.Match(c.host, c.entry); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.host, c.entry, got, c.want)
		}
	}
}

func TestFilter(t *testing.T) {
	for _, c := range []struct {
		name string
		f    domainrule.Filter
		host string
		want bool
	}{
		{"no lists", domainrule.Filter{}, "any.test", true},
		{"whitelisted", domainrule.Filter{Whitelist: []string{"wiki.test"}}, "en.wiki.test", true},
		{"not whitelisted", domainrule.Filter{Whitelist: []string{"wiki.test"}}, "blog.test", false},
		{"blacklisted", domainrule.Filter{Blacklist: []string{"*.spam.test"}}, "spam.test", false},
		{"blacklist beats whitelist", domainrule.Filter{Whitelist: []string{"wiki.test"}, Blacklist: []string{"en.wiki.test"}}, "en.wiki.test", false},
		{"blacklist beats whitelist, other subdomain still allowed", domainrule.Filter{Whitelist: []string{"wiki.test"}, Blacklist: []string{"en.wiki.test"}}, "de.wiki.test", true},
		{"case-insensitive", domainrule.Filter{Blacklist: []string{"SPAM.test"}}, "www.Spam.TEST", false},
	} {
		if got := c.f.Allows(c.host); got != c.want {
			t.Errorf("%s: Allows(%q) = %v, want %v", c.name, c.host, got, c.want)
		}
	}
}

func TestParseList(t *testing.T) {
	got := domainrule.ParseList([]string{"a.test, B.test", " ", "*.c.test", "a.test", "https://d.test/x"})
	want := []string{"a.test", "b.test", "*.c.test", "d.test"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseList = %v, want %v", got, want)
	}
}
