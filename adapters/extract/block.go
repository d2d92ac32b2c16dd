package extract

import (
	"bytes"
	"strings"
)

// A block page is an anti-bot interstitial or an access-denied page served
// in place of the content. Strong markers belong to bot-protection vendors'
// challenge pages; weak ones also appear in ordinary pages, so they count
// only when the page has little text of its own.
var (
	strongBlockMarkers = []string{
		"cf_chl_opt", "cf-browser-verification", "challenge-platform/h/", "px-captcha", "_pxappid", "captcha-delivery.com",
		"_incapsula_resource", "incapsula incident id", "/sorry/index", "sec-if-cpt-container", "ak_bmsc_challenge",
		"window._cf_chl", "id=\"challenge-form\"",
	}
	weakBlockMarkers = []string{
		"g-recaptcha", "h-captcha", "hcaptcha.com", "recaptcha/api.js", "verify you are human", "are you a robot",
		"unusual traffic from your computer", "access denied", "you don't have permission to access", "request blocked",
		"checking your browser", "enable javascript and cookies to continue", "bot detection", "please complete the security check",
	}
	blockTitles = []string{"just a moment", "attention required", "access denied", "are you a robot", "robot check",
		"security check", "captcha", "human verification", "request rejected", "blocked"}
)

// blockedAccessDenied is the block reason of an access-denied page (the
// others are challenges: a captcha or a bot check).
const blockedAccessDenied = "an access-denied page"

// blockReason says why a page is a block page, or "" when it is not.

func blockReason(page []byte, title string, textChars int) string {
	lower := bytes.ToLower(page[:min(len(page), 200_000)])
	t := strings.ToLower(strings.TrimSpace(title))
	for _, m := range strongBlockMarkers {
		if bytes.Contains(lower, []byte(m)) && textChars < 3000 {
			return "a bot-protection challenge"
		}
	}
	short := textChars < 800
	for _, bt := range blockTitles {
		if strings.Contains(t, bt) && short {
			if strings.Contains(t, "access denied") || strings.Contains(t, "blocked") || strings.Contains(t, "rejected") {
				return blockedAccessDenied
			}
			return "a captcha challenge"
		}
	}
	for _, m := range weakBlockMarkers {
		if bytes.Contains(lower, []byte(m)) && short {
			if strings.Contains(m, "access") || strings.Contains(m, "permission") || strings.Contains(m, "blocked") {
				return blockedAccessDenied
			}
			return "a captcha challenge"
		}
	}
	return ""
}
