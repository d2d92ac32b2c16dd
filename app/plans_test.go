package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadPlans(t *testing.T) {
	yamlDoc := `plans:
  - name: basic
    monthly_credits: 1000
    per_minute: {content: 4}
  - name: team
    display_name: Team
    monthly_credits: 50000
    max_tokens: 10
    per_minute: {content: 100, prompt: 50, extract: 50, scrape: 100, serp: 60, serp_content: 30, map: 60, bulk: 20}
`
	jsonDoc := `{"plans": [{"name": "basic", "monthly_credits": 1000, "per_minute": {"content": 4}},
		{"name": "team", "display_name": "Team", "monthly_credits": 50000, "max_tokens": 10,
		 "per_minute": {"content": 100, "prompt": 50, "extract": 50, "scrape": 100, "serp": 60, "serp_content": 30, "map": 60, "bulk": 20}}]}`
	for name, doc := range map[string]string{"yaml": yamlDoc, "json": jsonDoc} {
		p, err := LoadPlans(name, []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		basic, team := p.Must("basic"), p.Must("team")
		if basic.DisplayName != "Basic" || basic.MonthlyCredits != 1000 || basic.MaxTokens != 1 || p.Limit("basic", "content") != 4 || p.Limit("basic", "prompt") != 8 {
			t.Errorf("%s: basic = %+v (the unnamed fields keep the defaults)", name, basic)
		}
		if team.DisplayName != "Team" || team.MaxTokens != 10 || p.Limit("team", "bulk") != 20 {
			t.Errorf("%s: team = %+v", name, team)
		}
		if got := strings.Join(p.Names(), ","); got != "basic,team,none" {
			t.Errorf("%s: plans %s (the file is the whole table)", name, got)
		}
	}
	for _, c := range []struct{ doc, want string }{
		{``, "empty"},
		{`plans: []`, "at least one plan"},
		{`plans: [{name: basic, monthly_credit: 5}]`, "monthly_credit"},
		{`plans: [{name: basic, monthly_credits: lots}]`, "lots"},
		{`plans: [{name: basic, max_tokens: 0}]`, "plans[0].max_tokens"},
		{`plans: [{name: basic}, {name: pro, per_minute: {scrape: -3}}]`, "plans[1].per_minute.scrape"},
		{`plans: [{name: basic, per_minute: {crawl: 3}}]`, "plans[0].per_minute.crawl"},
		{`plans: [{name: team, display_name: Team, monthly_credits: 5, max_tokens: 1}]`, "plans[0].per_minute.content: required"},
		{`plans: [{name: team, monthly_credits: 5, max_tokens: 1}]`, "plans[0].display_name"},
	} {
		_, err := LoadPlans("plans.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "plans.yaml") {
			t.Errorf("%q: error %v, want one from plans.yaml naming %q", c.doc, err, c.want)
		}
	}
}

func TestPlansFromEnv(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "plans.yaml"), filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, []byte("plans:\n  - name: basic\n    max_tokens: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"plans": [{"name": "basic", "max_tokens": 0}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	c, err := DefaultConfig().FromEnv(env())
	if err != nil || c.Plans.Must("pro").MonthlyCredits != 20000 {
		t.Fatalf("no file: %v, pro = %+v", err, c.Plans.Must("pro"))
	}
	c, err = DefaultConfig().FromEnv(env("TRAWL_PLANS_FILE", good))
	if err != nil || c.Plans.Must("basic").MaxTokens != 2 || c.PlansFile != good {
		t.Fatalf("file: %v, basic = %+v", err, c.Plans.Must("basic"))
	}
	c, err = DefaultConfig().FromEnv(env("TRAWL_PLANS", `{"plans": [{"name": "business", "monthly_credits": 1}]}`))
	if err != nil || c.Plans.Must("business").MonthlyCredits != 1 {
		t.Fatalf("inline: %v", err)
	}
	for _, e := range [][]string{
		{"TRAWL_PLANS_FILE", bad},
		{"TRAWL_PLANS_FILE", filepath.Join(dir, "missing.yaml")},
		{"TRAWL_PLANS_FILE", good, "TRAWL_PLANS", "plans: []"},
	} {
		if _, err := DefaultConfig().FromEnv(env(e...)); err == nil || !strings.Contains(err.Error(), "TRAWL_PLANS") {
			t.Errorf("%v: error %v, want one naming TRAWL_PLANS*", e, err)
		}
	}
	// The server refuses to start, naming the bad field.
	var code int
	var stderr string
	{
		var out, errb strings.Builder
		code = CLI{Stdout: &out, Stderr: &errb, Getenv: env("TRAWL_PLANS_FILE", bad)}.Main([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data")})
		stderr = errb.String()
	}
	if code == 0 || !strings.Contains(stderr, "plans[0].max_tokens") {
		t.Fatalf("serve with a bad plan file: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Fatalf("the store was created for a server that never started (%v)", err)
	}
}

// The example plan file of docs/configuration.md is a valid table.
func TestREADMEPlanFile(t *testing.T) {
	raw, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "```yaml\nplans:")
	if !ok {
		t.Fatal("no plan file example in docs/configuration.md")
	}
	doc, _, _ := strings.Cut(rest, "```")
	p, err := LoadPlans("README", []byte("plans:"+doc))
	if err != nil {
		t.Fatal(err)
	}
	if p.Must("team").MaxTokens != 10 || p.Must("basic").MonthlyCredits != 3000 || p.Limit("basic", "serp") != 10 {
		t.Fatalf("README table = %+v", p.All())
	}
}
