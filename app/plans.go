package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trawlhq/trawl/core/billing"
)

// planFile is the document of TRAWL_PLANS_FILE (YAML, or JSON, which YAML
// reads too): the whole plan table, in the order the dashboard lists it.
// A plan named like a default one (basic, pro, business) starts from the
// default's values, so it need only name what changes; any other plan names
// every field.
type planFile struct {
	Plans []planEntry `yaml:"plans"`
}

type planEntry struct {
	Name           string         `yaml:"name"`
	DisplayName    *string        `yaml:"display_name"`
	MonthlyCredits *int64         `yaml:"monthly_credits"`
	MaxTokens      *int           `yaml:"max_tokens"`
	PerMinute      map[string]int `yaml:"per_minute"`
}

// LoadPlans reads a plan table document and validates it; the error names
// the source and the bad field.
func LoadPlans(source string, doc []byte) (billing.Plans, error) {
	var f planFile
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return billing.Plans{}, fmt.Errorf("%s: empty; want a plans: list", source)
		}
		return billing.Plans{}, fmt.Errorf("%s: %v", source, err)
	}
	defaults := map[string]billing.Plan{}
	for _, p := range billing.DefaultPlanList() {
		defaults[p.Name] = p
	}
	list := make([]billing.Plan, len(f.Plans))
	for i, e := range f.Plans {
		p, ok := defaults[strings.TrimSpace(e.Name)]
		if !ok {
			p = billing.Plan{Name: e.Name, PerMinute: map[string]int{}}
		}
		if e.DisplayName != nil {
			p.DisplayName = *e.DisplayName
		}
		if e.MonthlyCredits != nil {
			p.MonthlyCredits = *e.MonthlyCredits
		}
		if e.MaxTokens != nil {
			p.MaxTokens = *e.MaxTokens
		}
		for g, n := range e.PerMinute {
			p.PerMinute[g] = n
		}
		list[i] = p
	}
	plans, err := billing.NewPlans(list)
	if err != nil {
		return billing.Plans{}, fmt.Errorf("%s: %w", source, err)
	}
	return plans, nil
}

// plansFromEnv loads TRAWL_PLANS_FILE, or the same document inline in
// TRAWL_PLANS; neither: the default table.
func (c Config) plansFromEnv(getenv func(string) string) (Config, error) {
	file, inline := strings.TrimSpace(getenv("TRAWL_PLANS_FILE")), getenv("TRAWL_PLANS")
	switch {
	case file != "" && strings.TrimSpace(inline) != "":
		return c, errors.New("TRAWL_PLANS_FILE and TRAWL_PLANS: set one, not both")
	case file != "":
		doc, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("TRAWL_PLANS_FILE: %w", err)
		}
		c.PlansFile = file
		c.Plans, err = LoadPlans("TRAWL_PLANS_FILE "+file, doc)
		return c, err
	case strings.TrimSpace(inline) != "":
		var err error
		c.Plans, err = LoadPlans("TRAWL_PLANS", []byte(inline))
		return c, err
	}
	c.Plans = billing.DefaultPlans()
	return c, nil
}
