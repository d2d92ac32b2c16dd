package ratelimit

import "strings"

// GroupOf is the group a Key counts, or "" for a key Key did not make.
func GroupOf(key string) Group {
	_, g, ok := strings.Cut(key, ":")
	if !ok {
		return ""
	}
	if _, known := BasicPerMinute[Group(g)]; !known {
		return ""
	}
	return Group(g)
}
