package httpapi_test

import (
	"testing"
)

// A result page that says there are no results is a 200 with empty
// organic_results on every engine; the engine's challenge page is a 503.
func TestSerpNoResultsIsAnEmptyAnswer(t *testing.T) {
	e := newSearchEnv(t)
	for engine, page := range map[string]string{
		"google":     "../../testdata/serp/google/serpparser-2023-05-no-results-desktop.html",
		"bing":       "../../testdata/serp/bing/serpparser-2021-01-no-results.html",
		"duckduckgo": "../../testdata/serp/duckduckgo/constructed-no-results-bots-query.html",
	} {
		e.engines[engine].ServeFile(t, page)
		r := e.Do("GET", "/v1/serp?q=zzqx+nothing&engine="+engine, e.tok, nil)
		m := r.JSON(t)
		if org, ok := m["organic_results"].([]any); r.Status != 200 || !ok || len(org) != 0 {
			t.Errorf("%s no-results page = %d %.300s", engine, r.Status, r.Body)
		}
	}
	for engine, page := range map[string]string{
		"google":     "../../testdata/serp/google/serpparser-2020-10-recaptcha.html",
		"duckduckgo": "../../testdata/serp/duckduckgo/celina-2026-07-lite-anomaly-captcha.html",
	} {
		e.engines[engine].ServeFile(t, page)
		if r := e.Do("GET", "/v1/serp?q=x&engine="+engine, e.tok, nil); r.Status != 503 {
			t.Errorf("%s challenge page = %d %.300s", engine, r.Status, r.Body)
		}
	}
}
